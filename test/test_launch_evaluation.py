# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The launch files evaluated with each documented argument set, with and without a namespace.

Each case runs the launch file's own code (test/launch_evaluation.py) and hands what it would
start to rcl through rclpy nodes with the same name, namespace, parameter files and remappings:

- every node receives its shipped parameters (config/*.yaml) under any namespace;
- the driver (the simulator or the real youBot driver) and its clients meet on the same joint
  states, command topic, action and services;
- no launch needs the ``ros2`` command line;
- every process's failure ends the launch with a reason and a non-zero status, a stage's success
  ends it with 0.

The same launch files run for real under ROS 2 launch with tools/run_launch_files.py.
"""
import importlib.util
import itertools

import pytest
import yaml

from launch_evaluation import (ROOT, ament_index, documented_launches, evaluate, exit_of,
                               parameter, ros_node)
from ros_helpers import unique_domain_id
from test_node_parameters import flatten

INTERFACES = ('follow_joint_trajectory', 'brics_position', 'trajectory', 'trajectory_stream')
BRINGUP, SESSION = 'youbot_bringup.launch.py', 'identification_session.launch.py'
SIM, ESTIMATOR = 'youbot_sim.launch.py', 'wrench_estimator.launch.py'
# the documented alternatives to the documented commands (README, docs/youbot.md, docstrings)
ALTERNATIVES = [
    *[(BRINGUP, {'robot': 'sim', 'record': 'static', 'command_interface': i}) for i in INTERFACES],
    *[(BRINGUP, {'robot': 'real', 'record': 'sweeps', 'command_interface': i})
      for i in INTERFACES[:2]],
    (BRINGUP, {'robot': 'sim', 'model': 'm.yaml', 'joint_states_topic': '/arm_1/joint_states'}),
    (BRINGUP, {'robot': 'sim', 'record': 'excitation', 'trajectory': 'e.yaml',
               'command_interface': 'trajectory', 'command_topic': 'arm_cmd'}),
    (BRINGUP, {'robot': 'sim', 'driver': 'false', 'record': 'static', 'model': 'm.yaml'}),
    (SIM, {'model': 'm.yaml', 'joint_states_topic': '/arm_1/joint_states'}),
    (SIM, {'model': 'm.yaml', 'estimator': 'false'}),
    *[(SESSION, {'stage': s, 'sim': 'true'}) for s in ('static', 'sweeps', 'excitation')],
    (SESSION, {'stage': 'identification', 'autostart': 'false'}),
    (ESTIMATOR, {'model': 'm.yaml', 'joint_states_topic': '/arm_1/joint_states'}),
    (ESTIMATOR, {'model': 'm.yaml', 'calibration': 'c.yaml'}),
]


def _cases():
    seen, out = set(), []
    documented = [(f, a) for _, f, a in documented_launches()]
    for (file, args), namespace in itertools.product(documented + ALTERNATIVES, ('', 'ns1')):
        args = dict(args, **({'namespace': namespace} if namespace else {}))
        key = (file, tuple(sorted(args.items())))
        if key not in seen:
            seen.add(key)
            out.append(pytest.param(file, args, id=f'{file[:-10]}:' + ','.join(
                f'{k}={v}' for k, v in sorted(args.items()))))
    return out


CASES = _cases()


@pytest.fixture(scope='module')
def prefix(tmp_path_factory):
    return ament_index(tmp_path_factory.mktemp('index'))


@pytest.fixture(scope='module')
def rcl():
    """An rclpy context that only makes nodes (nothing is spun)."""
    import rclpy
    from rclpy.context import Context

    ctx = Context()
    rclpy.init(context=ctx, args=[], domain_id=unique_domain_id())
    yield ctx
    rclpy.shutdown(context=ctx)


@pytest.fixture
def make_node(rcl, tmp_path):
    made = []

    def make(started):
        made.append(ros_node(started, rcl, tmp_path))
        return made[-1]
    yield make
    for n in made:
        n.destroy_node()


def _same(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a))
    return a == b


def _shipped(path):
    """{parameter: value} of a package config file (every section), or None for another file."""
    if not isinstance(path, str) or not path.startswith(str(ROOT)) and '/share/robot_id_ros/' \
            not in path:
        return None
    doc = yaml.safe_load(open(path))
    values = {}
    for section in doc.values():
        values.update(flatten(section['ros__parameters']))
    return values


@pytest.mark.parametrize('file, args', CASES)
def test_every_node_receives_its_shipped_parameters(file, args, prefix, make_node):
    launched = evaluate(ROOT / 'launch' / file, args, prefix)
    assert launched.nodes(), f'{file} {args} starts no node of the package'
    for started in launched.nodes():
        expected = {}
        for p in started.params:
            expected.update(p if isinstance(p, dict) else _shipped(p) or {})
        node = make_node(started)
        wrong = {k: (parameter(node, k), v) for k, v in expected.items()
                 if not _same(parameter(node, k), v)}
        assert not wrong, (f'{file} {args}: node {started.fqn} does not get (got, shipped) '
                           f'{wrong}')


# ------------------------------------------------------------------ names
REAL_DRIVER_NAMES = {'joint_states': 'arm_1/joint_states',
                     'follow_joint_trajectory': 'arm_1/arm_controller/follow_joint_trajectory',
                     'brics_position': 'arm_1/arm_controller/position_command'}
SIM_NAMES = {'follow_joint_trajectory': 'arm_controller/follow_joint_trajectory',
             'brics_position': 'arm_controller/position_command'}


def _driver(launched, file, args, prefix):
    """The started driver (simulator or real), from the launch of the same file that runs it."""
    found = launched.nodes('youbot_sim') + [s for s in launched.started if s.kind == 'node' and
                                            s.package == 'youbot_driver_ros_interface']
    if not found and file == BRINGUP and args.get('driver') == 'false':
        companion = dict(args, driver='true', record='none')
        companion.pop('model', None)
        return _driver(evaluate(ROOT / 'launch' / file, companion, prefix), file, companion,
                       prefix)
    return found[0] if found else None


def _value(docs, started, node, name):
    """The node's parameter as the launch sets it, else as the node declares it."""
    value = parameter(node, name)
    if value is None:
        value = next(p.default for p in docs[started.executable].parameters if p.name == name)
    return value


def _driver_names(docs, driver, node):
    """{what: absolute name} the driver offers."""
    if driver.package == 'robot_id_ros':
        names = {k: node.resolve_topic_name(v) for k, v in SIM_NAMES.items()}
        names['joint_states'] = node.resolve_topic_name(
            _value(docs, driver, node, 'joint_states_topic'))
        names['trajectory'] = names['trajectory_stream'] = node.resolve_topic_name(
            _value(docs, driver, node, 'command_topic'))
        return names
    return {k: node.resolve_topic_name(v) for k, v in REAL_DRIVER_NAMES.items()}


def _client_names(docs, started, node):
    """{what: absolute name} a client of the driver uses."""
    if started.executable == 'wrench_estimator':
        (name,) = [e.name for e in docs['wrench_estimator'].endpoints
                   if e.kind == 'subscribes' and e.type == 'sensor_msgs/msg/JointState']
        return {'joint_states': node.resolve_topic_name(name)}
    if started.executable not in ('static_pose_recorder', 'friction_sweep_recorder',
                                  'trajectory_recorder'):
        return {}
    interface = _value(docs, started, node, 'command_interface')
    command = {'trajectory': 'command_topic', 'trajectory_stream': 'command_topic',
               'follow_joint_trajectory': 'follow_joint_trajectory_action',
               'brics_position': 'position_command_topic'}[interface]
    return {'joint_states': node.resolve_topic_name(
        _value(docs, started, node, 'joint_states_topic')),
        interface: node.resolve_topic_name(_value(docs, started, node, command))}


@pytest.fixture(scope='module')
def node_docs(node_infos):
    return {d.executable: d for d in node_infos}


@pytest.mark.parametrize('file, args', CASES)
def test_the_driver_and_its_clients_meet_on_the_same_names(
        file, args, prefix, make_node, node_docs):
    launched = evaluate(ROOT / 'launch' / file, args, prefix)
    driver = _driver(launched, file, args, prefix)
    offered = _driver_names(node_docs, driver, make_node(driver)) if driver else {}
    wanted = launched.arguments['joint_states_topic']
    for started in launched.nodes():
        used = _client_names(node_docs, started, make_node(started))
        for what, name in used.items():
            if what in offered:
                assert name == offered[what], (
                    f'{file} {args}: {started.fqn} uses {what} {name}, the driver '
                    f'{driver.fqn} {offered[what]}')
            elif not driver:
                assert what != 'joint_states' or not wanted.startswith('/') or name == wanted, (
                    f'{file} {args}: {started.fqn} reads {name}, not {wanted}')
            else:
                pytest.fail(f'{file} {args}: {started.fqn} commands by {what}, which the driver '
                            f'{driver.fqn} does not offer')
    for call in [s for s in launched.started if s.kind == 'process']:
        ident = launched.one('identification')
        service = make_node(ident).resolve_service_name('~/identify')
        assert call.cmd[-1] == service, (call.cmd, service)


# ------------------------------------------------------------------ processes and their ends
@pytest.mark.parametrize('file, args', CASES)
def test_no_launch_needs_the_ros2_command_line(file, args, prefix):
    launched = evaluate(ROOT / 'launch' / file, args, prefix)
    for p in [s for s in launched.started if s.kind == 'process']:
        assert p.cmd[0] != 'ros2', f'{file} {args} runs {p.cmd}: package.xml has no ros2cli'
        assert p.cmd[1] == '-m' and importlib.util.find_spec(p.cmd[2]), p.cmd


def _expected_stages(file, args):
    """How many processes end the launch as its work done (0: it serves until stopped)."""
    if file == SESSION:
        return 0 if args['stage'] == 'identification' and args.get('autostart') == 'false' else 1
    return int(file == BRINGUP and args.get('record', 'none') != 'none')


@pytest.mark.parametrize('file, args', CASES)
def test_every_failure_ends_the_launch_non_zero_with_its_reason(file, args, prefix):
    launched = evaluate(ROOT / 'launch' / file, args, prefix)
    ends = {id(s): exit_of(launched, s, 0) for s in launched.started}
    stages = [s for s in launched.started
              if ends[id(s)][0] == 'done' and ends[id(s)][1].endswith(' done')]
    assert len(stages) == _expected_stages(file, args), (
        f'{file} {args}: processes whose exit 0 ends the launch as done: {stages}')
    for started in launched.started:
        who = started.name if started.kind == 'process' else started.executable
        for code in (1, 2, 3, -9):
            kind, reason = exit_of(launched, started, code)
            assert kind == 'failed' and who in reason, (
                f'{file} {args}: when {who} exits with {code} the launch ends {kind!r} '
                f'{reason!r}')
        kind, reason = ends[id(started)]
        if stages and started not in stages:
            assert kind == 'failed' and who in reason, (
                f'{file} {args}: {who} stops before the stage is done: {kind!r} {reason!r}')
        else:
            assert kind == 'done', f'{file} {args}: {who} exits 0: {kind!r} {reason!r}'
        assert exit_of(launched, started, 3, shutting_down=True)[0] == 'nothing'


@pytest.mark.parametrize('file, args', CASES)
def test_every_remapping_renames_a_name_the_node_uses(file, args, prefix, node_docs):
    launched = evaluate(ROOT / 'launch' / file, args, prefix)
    for started in launched.nodes():
        doc = node_docs[started.executable]
        names = {e.name for e in doc.endpoints}
        for source, _ in started.remappings:
            assert source in names, (f'{file} {args}: {started.fqn} remaps {source!r}, which it '
                                     f'does not use ({sorted(names)})')


def test_a_command_line_override_wins_over_the_twin_files(rcl):
    """youbot_driver_twin.yaml's ``ros2 run`` recipe with ``-p``: rcl applies the override last
    only when the files' sections share one key (``/**``); a node-specific key after it wins."""
    import rclpy

    node = rclpy.create_node(
        'youbot_sim', namespace='/arm_1', context=rcl, use_global_arguments=False,
        automatically_declare_parameters_from_overrides=True, start_parameter_services=False,
        cli_args=['--ros-args', '--params-file', str(ROOT / 'config' / 'youbot_sim.yaml'),
                  '--params-file', str(ROOT / 'config' / 'youbot_driver_twin.yaml'),
                  '-p', 'gripper:=false', '-p', 'publish_rate_hz:=200.0'])
    try:
        assert parameter(node, 'gripper') is False
        assert parameter(node, 'publish_rate_hz') == 200.0
        assert parameter(node, 'effort_length_quirk') is True     # the twin's, over the sim's
    finally:
        node.destroy_node()
