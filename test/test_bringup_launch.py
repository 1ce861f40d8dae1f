# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""launch/youbot_bringup.launch.py, checked without ROS 2 launch installed (as test_launch_files).

- a node of another package is only the real youBot driver, with parameters and remappings of
  its own (``REAL_DRIVER``, from ../shared/youbot_facts.md);
- the bringup's simulator is the driver's twin: in the namespace ``arm_1`` it offers every name
  of the real driver it needs (read from the node) and the launch gives it the twin preset.
"""
import ast

import pytest
import yaml

from test_launch_files import (IDS, LAUNCH_FILES, REAL_DRIVER, ROOT, _callee, _is_real_driver,
                               _kw, node_calls, parameter_keys, share_references, tree)

# the real driver's names the twin must offer (its arm; without the gripper and velocity commands)
TWIN_NAMES = {'joint_states', 'switchOnMotors', 'switchOffMotors', 'calibrate'}
TWIN_ACTION_NAMES = {'arm_controller/position_command', 'arm_controller/follow_joint_trajectory'}


@pytest.fixture(scope='module')
def node_docs(node_infos):
    return {d.executable: d for d in node_infos}


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_the_only_foreign_node_is_the_real_youbot_driver(path):
    t = tree(path)
    for c in node_calls(t, external=True):
        if not _is_real_driver(c):
            continue
        assert path.name == 'youbot_bringup.launch.py', f'{path.name}: starts the real driver'
        assert _kw(c, 'executable').value == REAL_DRIVER['executable']
        keys = parameter_keys(t, c)
        assert keys <= REAL_DRIVER['parameters'], sorted(keys - REAL_DRIVER['parameters'])
        assert 'youBotDriverCycleFrequencyInHz' in keys
        sources = remap_sources_of(t, c)
        assert sources and set(sources) <= REAL_DRIVER['names'], sources


def remap_sources_of(t, call):
    """Like ``remap_sources``, taking names built with the launch file's ``_join(...)``."""
    r = _kw(call, 'remappings')
    out = []
    for e in r.elts:
        src = e.elts[0]
        if isinstance(src, ast.Call) and _callee(src) == '_join':
            consts = {'ARM_NAMESPACE': 'arm_1'}
            out.append('/'.join(a.value if isinstance(a, ast.Constant) else consts[a.id]
                                for a in src.args))
        else:
            assert isinstance(src, ast.Constant), f'line {call.lineno}: remapping source'
            out.append(src.value)
    return out


def test_bringup_runs_the_simulator_as_the_drivers_twin(node_docs):
    """The sim of youbot_bringup: namespace arm_1, the twin preset, every driver name it needs."""
    path = ROOT / 'launch' / 'youbot_bringup.launch.py'
    t = tree(path)
    sims = [c for c in node_calls(t) if _kw(c, 'executable').value == 'youbot_sim']
    assert len(sims) == 1
    namespace = _kw(sims[0], 'namespace')
    assert isinstance(namespace, ast.Call) and _callee(namespace) == '_join' and \
        isinstance(namespace.args[1], ast.Name) and namespace.args[1].id == 'ARM_NAMESPACE'
    assert "ARM_NAMESPACE = 'arm_1'" in path.read_text()
    refs = {rel for rel, _ in share_references(t)[0]}
    assert {'config/youbot_sim.yaml', 'config/youbot_driver_twin.yaml'} <= refs
    # the sim's relative names under arm_1 are the real driver's
    names = {e.name for e in node_docs['youbot_sim'].endpoints}
    assert TWIN_NAMES <= names, sorted(TWIN_NAMES - names)
    assert {f'arm_1/{n}' for n in TWIN_NAMES | TWIN_ACTION_NAMES} <= REAL_DRIVER['names']
    services = {e.name: e.type for e in node_docs['youbot_sim'].endpoints if e.kind == 'service'}
    for name in ('switchOnMotors', 'switchOffMotors', 'calibrate'):
        assert services[name] == 'std_srvs/srv/Empty', (name, services.get(name))
    # the twin preset applies to the node the launch starts and sets the driver's layout
    twin = yaml.safe_load((ROOT / 'config' / 'youbot_driver_twin.yaml').read_text())
    (key, section), = twin.items()
    assert key in ('/**', '/**/youbot_sim')
    declared = {p.name for p in node_docs['youbot_sim'].parameters}
    values = section['ros__parameters']
    assert set(values) <= declared, sorted(set(values) - declared)
    assert values['publish_rate_hz'] == 50.0 and values['quantize'] is True
    assert values['finger_read_rate_hz'] > 0 and values['effort_length_quirk'] is True
