# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')

from ros_helpers import unique_domain_id  # noqa: E402


@pytest.fixture
def ros_domain_id(monkeypatch):
    """A fresh ROS domain id for this test, also exported for subprocesses."""
    d = unique_domain_id()
    monkeypatch.setenv('ROS_DOMAIN_ID', str(d))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    return d


@pytest.fixture
def rclpy_context(ros_domain_id):
    """An initialised rclpy Context on its own domain; shut down after the test."""
    import rclpy
    from rclpy.context import Context

    ctx = Context()
    rclpy.init(context=ctx, domain_id=ros_domain_id)
    yield ctx
    if ctx.ok():
        rclpy.shutdown(context=ctx)


@pytest.fixture(scope='session')
def node_infos():
    """Every node's own declarations (robot_id_ros.ros.docs.collect), read once per test session
    on a private ROS domain.
    """
    import rclpy
    from rclpy.context import Context

    from robot_id_ros.ros import docs

    ctx = Context()
    rclpy.init(context=ctx, args=[], domain_id=unique_domain_id())
    try:
        return docs.collect(context=ctx)
    finally:
        rclpy.shutdown(context=ctx)


# Markers by place, so that `make test-fast` (-m "not integration and not slow") gives a quick loop
# without editing each file: integration tests start nodes over real DDS or build the package;
# slow tests run the whole demo or the benchmarks.
_INTEGRATION = ('nodes/', 'test_packaging.py::test_colcon', 'test_cli_describe.py')
_SLOW = ('test_demo.py', 'test_benchmarks_run.py', 'identify/test_real_data.py',
         'identify/test_payload_sim.py',
         'identify/test_identification_sim.py')  # simulated recordings
# The longest files first (`make test` with two workers under two busy loops, the 60 slowest
# tests summed per file, s: recorders 489, driver interfaces 399, closed loop 187, payload 126,
# identification 113, real data 103, drive gains 97, twin 76, force-control stage 66):
# under pytest-xdist (--dist loadfile --no-loadscope-reorder, the Makefile's) the workers take
# whole files in this order, so no long file starts last while the other worker idles.
_LONGEST_FIRST = ('test_demo.py', 'nodes/test_recorders.py', 'nodes/test_command_interfaces.py',
                  'control/test_closed_loop.py', 'identify/test_payload_sim.py',
                  'identify/test_identification_sim.py', 'control/test_force_control_stage.py',
                  'nodes/test_youbot_sim_node.py', 'identify/test_payload_motion_sim.py',
                  'nodes/test_wrench_estimator_sim.py', 'identify/test_identification.py',
                  'identify/test_real_data.py', 'nodes/test_youbot_twin.py',
                  'identify/test_drive_gains.py', 'nodes/test_recorders_late_command.py')


def pytest_configure(config):
    config.addinivalue_line('markers',
                            'integration: starts ROS nodes over real DDS or builds the package')
    config.addinivalue_line('markers',
                            'slow: takes minutes (the demo, benchmarks, real-data fits)')
    config.addinivalue_line('markers', 'lint: flake8, pep257, copyright and xml checks')


def pytest_collection_modifyitems(config, items):
    root = Path(__file__).parent
    for item in items:
        rel = Path(str(item.fspath)).relative_to(root).as_posix() + '::' + item.name
        if any(rel.startswith(p) or p in rel for p in _INTEGRATION):
            item.add_marker(pytest.mark.integration)
        if any(rel.startswith(p) for p in _SLOW):
            item.add_marker(pytest.mark.slow)
    if os.environ.get('PYTEST_XDIST_WORKER'):
        rank = {f: k for k, f in enumerate(_LONGEST_FIRST)}

        def file_rank(item):
            rel = Path(str(item.fspath)).relative_to(root).as_posix()
            return rank.get(rel, len(rank))
        items.sort(key=file_rank)       # stable: the order within a file is kept


@pytest.fixture(scope='session')
def interface_packages():
    """Install folder of brics_actuator and control_msgs, built once (cached across sessions)."""
    from interface_packages import built_interfaces

    return built_interfaces()
