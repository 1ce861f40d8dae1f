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
    """Every node's own declarations (robot_id_ros.nodes.docs.collect), read once per test session
    on a private ROS domain."""
    import rclpy
    from rclpy.context import Context

    from robot_id_ros.nodes import docs

    ctx = Context()
    rclpy.init(context=ctx, args=[], domain_id=unique_domain_id())
    try:
        return docs.collect(context=ctx)
    finally:
        rclpy.shutdown(context=ctx)
