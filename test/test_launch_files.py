# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The launch files, checked without ROS 2 launch installed (static analysis with ast).

- every launch/*.launch.py parses; the three the README names exist;
- every Node(executable='...') is a console script of setup.py, of package robot_id_ros;
- every file a launch file references through get_package_share_directory('robot_id_ros') exists
  in the checkout and is installed there by setup.py's data_files (no other file references);
- every launch file declares params_file, namespace, use_sim_time, model and joint_states_topic
  (command_topic too where a node commands the arm), and every LaunchConfiguration it reads;
- the node names the launch files give match the section keys of the nodes' config YAMLs;
- every parameter a launch file sets on a node is declared by that node, and every remapping
  renames a topic the node really uses (read from the node itself, robot_id_ros.ros.docs);
- a node of another package is only the real youBot driver (``REAL_DRIVER``), checked in
  test_bringup_launch.py with youbot_bringup.launch.py's simulated twin;
- on a ROS 2 machine (launch_ros importable) each file's generate_launch_description() runs.

test_launch_evaluation.py evaluates each file with its documented arguments (node names,
namespaces, parameter files, remappings and topics as rcl applies them); tools/run_launch_files.py
runs them for real where the ROS 2 launch libraries are installed.
"""
import ast
import importlib.util
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = 'robot_id_ros'
LAUNCH_FILES = sorted((ROOT / 'launch').glob('*.launch.py'))
REQUIRED_FILES = ('wrench_estimator.launch.py', 'identification_session.launch.py',
                  'youbot_sim.launch.py')
REQUIRED_ARGUMENTS = {'params_file', 'namespace', 'use_sim_time', 'model', 'joint_states_topic'}
COMMANDING = {
    'youbot_sim', 'static_pose_recorder', 'trajectory_recorder', 'friction_sweep_recorder'
}
# the real youBot driver (ROS 2 port of youbot_driver_ros_interface): its parameters, and the names
# it uses relative to its node (arm_1 = its first arm)
REAL_DRIVER = {
    'package': 'youbot_driver_ros_interface',
    'executable': 'youbot_driver_ros_interface',
    'parameters': {'youBotHasBase', 'youBotHasArms', 'youBotDriverCycleFrequencyInHz',
                   'youBotDriverGripperReadingsCycleFrequencyInHz', 'youBotConfigurationFilePath',
                   'trajectoryActionServerEnable', 'trajectoryPositionGain',
                   'trajectoryVelocityGain', 'youBotBaseName', 'youBotArmName1'},
    'names': {'arm_1/joint_states', 'arm_1/arm_controller/position_command',
              'arm_1/arm_controller/velocity_command',
              'arm_1/arm_controller/follow_joint_trajectory',
              'arm_1/gripper_controller/position_command', 'arm_1/switchOnMotors',
              'arm_1/switchOffMotors', 'arm_1/calibrate', 'base/joint_states', 'cmd_vel',
              'odom'},
}
FILE_CONSTANT = re.compile(r'[\w./-]+\.(yaml|yml|urdf|xacro|xml|rviz|launch\.py|json|csv)')
IDS = [p.name for p in LAUNCH_FILES]


# ------------------------------------------------------------------ setup.py, read the same way
def _setup_tree():
    return ast.parse((ROOT / 'setup.py').read_text())


def console_scripts():
    for node in ast.walk(_setup_tree()):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == 'NODES' for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise AssertionError('setup.py has no NODES dict')


def installed_share_files():
    """{share-relative path: repo path} of setup.py's data_files under share/robot_id_ros."""
    from glob import glob
    tree = _setup_tree()
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == 'data_files':
            for entry in node.value.elts:
                dest, files = entry.elts
                dest = _const_str(dest)
                if isinstance(files, ast.Call) and getattr(files.func, 'id', '') == 'glob':
                    paths = sorted(glob(str(ROOT / ast.literal_eval(files.args[0]))))
                    paths = [str(Path(p).relative_to(ROOT)) for p in paths]
                else:
                    paths = [_const_str(e) for e in files.elts]
                prefix = f'share/{PACKAGE}'
                if dest == prefix or dest.startswith(prefix + '/'):
                    sub = dest[len(prefix):].strip('/')
                    for p in paths:
                        out[f'{sub}/{Path(p).name}'.strip('/')] = ROOT / p
    assert out, 'setup.py installs nothing under share/robot_id_ros'
    return out


def _const_str(node):
    """A string constant, or 'share/' + package_name style concatenations of setup.py."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _const_str(node.left) + _const_str(node.right)
    if isinstance(node, ast.Name) and node.id == 'package_name':
        return PACKAGE
    raise AssertionError(f'setup.py data_files: cannot read {ast.dump(node)}')


# ------------------------------------------------------------------ launch file analysis
def tree(path):
    return ast.parse(path.read_text(), filename=str(path))


def _kw(call, name):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _callee(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ''


def _docstring_nodes(t):
    out = set()
    for node in ast.walk(t):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _enclosing_function(t, target):
    best = None
    for f in ast.walk(t):
        if isinstance(f, ast.FunctionDef) and any(n is target for n in ast.walk(f)):
            if best is None or any(n is f for n in ast.walk(best)):
                best = f
    return best or t


def _assignments(scope, name):
    """Values assigned to ``name`` in ``scope`` (plain and subscript assignments)."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for tgt in node.targets:
                if isinstance(tgt, ast.Name) and tgt.id == name:
                    yield 'value', node.value
                elif isinstance(tgt, ast.Subscript) and isinstance(
                        tgt.value, ast.Name) and tgt.value.id == name:
                    key = tgt.slice
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        yield 'key', key.value


def _is_share_call(node, t, scope, seen=()):
    """get_package_share_directory('robot_id_ros'), directly or through a variable."""
    if isinstance(node, ast.Call) and _callee(node) in ('get_package_share_directory',
                                                        'FindPackageShare'):
        return bool(node.args) and isinstance(node.args[0],
                                              ast.Constant) and node.args[0].value == PACKAGE
    if isinstance(node, ast.Name) and node.id not in seen:
        vals = [v for kind, v in _assignments(scope, node.id) if kind == 'value'] or \
               [v for kind, v in _assignments(t, node.id) if kind == 'value']
        return bool(vals) and all(_is_share_call(v, t, scope, seen + (node.id,)) for v in vals)
    return False


def share_references(t):
    """[(share-relative path, lineno)] of os.path.join / PathJoinSubstitution on the package share,
    and the ids of the string constants they consumed."""
    refs, used = [], set()
    for call in ast.walk(t):
        if not isinstance(call, ast.Call):
            continue
        name = _callee(call)
        if name == 'join' and call.args:
            parts = call.args
        elif name == 'PathJoinSubstitution' and call.args and isinstance(
                call.args[0], (ast.List, ast.Tuple)):
            parts = call.args[0].elts
        else:
            continue
        scope = _enclosing_function(t, call)
        if not _is_share_call(parts[0], t, scope):
            continue
        rest = parts[1:]
        assert all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in rest), (
            f'line {call.lineno}: a path under the package share must be made of string constants')
        refs.append(('/'.join(p.value for p in rest), call.lineno))
        used.update(id(p) for p in rest)
    return refs, used


def node_calls(t, external=False):
    """The Node calls of a launch file; the real driver's only with ``external``."""
    return [
        c for c in ast.walk(t)
        if isinstance(c, ast.Call) and _callee(c) in ('Node', 'LifecycleNode') and (
            external or not _is_real_driver(c))
    ]


def _is_real_driver(call):
    pkg = _kw(call, 'package')
    return isinstance(pkg, ast.Constant) and pkg.value == REAL_DRIVER['package']


def declared_arguments(t):
    out = {}
    for c in ast.walk(t):
        if isinstance(c, ast.Call) and _callee(c) == 'DeclareLaunchArgument':
            first = c.args[0] if c.args else _kw(c, 'name')
            assert isinstance(
                first, ast.Constant), f'line {c.lineno}: argument name must be a string constant'
            out[first.value] = c
    return out


def used_configurations(t):
    """Names read with LaunchConfiguration('x'), directly or through helpers such as arg('x') whose
    first parameter reaches LaunchConfiguration (helpers of helpers too)."""
    out = set()
    funcs = [f for f in ast.walk(t) if isinstance(f, ast.FunctionDef) and f.args.args]
    helpers = {'LaunchConfiguration'}
    changed = True
    while changed:
        changed = False
        for f in funcs:
            if f.name in helpers:
                continue
            first = f.args.args[0].arg
            if any(
                    isinstance(c, ast.Call) and _callee(c) in helpers and c.args and
                    isinstance(c.args[0], ast.Name) and c.args[0].id == first
                    for c in ast.walk(f)):
                helpers.add(f.name)
                changed = True
    for c in ast.walk(t):
        if isinstance(c, ast.Call) and _callee(c) in helpers:
            first = c.args[0] if c.args else _kw(c, 'variable_name')
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                out.add(first.value)
    return out


def parameter_keys(t, call):
    """Parameter names a Node call sets through dict literals, dict(...) calls and variables."""
    scope = _enclosing_function(t, call)
    keys = set()

    def visit(node, seen):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if k is None:
                    visit(v, seen)
                elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                    keys.add(k.value)
        elif isinstance(node, ast.Call) and _callee(node) == 'dict':
            for a in node.args:
                visit(a, seen)
            for k in node.keywords:
                if k.arg is None:
                    visit(k.value, seen)
                else:
                    keys.add(k.arg)
        elif isinstance(node, ast.Name) and node.id not in seen:
            for kind, v in _assignments(scope, node.id):
                if kind == 'key':
                    keys.add(v)
                else:
                    visit(v, seen | {node.id})
        elif isinstance(node, (ast.List, ast.Tuple)):
            for e in node.elts:
                visit(e, seen)
        elif isinstance(node, ast.BinOp):
            visit(node.left, seen)
            visit(node.right, seen)
        elif isinstance(node, ast.IfExp):
            visit(node.body, seen)
            visit(node.orelse, seen)

    p = _kw(call, 'parameters')
    if p is not None:
        visit(p, frozenset())
    return keys


def remap_sources(t, call):
    """Constant 'from' names of a Node call's remappings (through a variable too)."""
    scope = _enclosing_function(t, call)
    r = _kw(call, 'remappings')
    if isinstance(r, ast.Name):
        vals = [v for kind, v in _assignments(scope, r.id) if kind == 'value']
        assert len(
            vals
        ) == 1, f'line {call.lineno}: remappings variable {r.id} assigned {len(vals)} times'
        r = vals[0]
    if r is None or not isinstance(r, (ast.List, ast.Tuple)):
        return []     # built at launch time: test_launch_evaluation checks them evaluated
    out = []
    for e in r.elts:
        src = e.elts[0]
        assert isinstance(
            src, ast.Constant), f'line {call.lineno}: remapping source must be a string constant'
        out.append(src.value)
    return out


# ------------------------------------------------------------------ tests
def test_the_readme_launch_files_exist():
    names = {p.name for p in LAUNCH_FILES}
    assert set(REQUIRED_FILES) <= names, sorted(set(REQUIRED_FILES) - names)


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_parses_and_defines_generate_launch_description(path):
    t = tree(path)
    assert any(
        isinstance(n, ast.FunctionDef) and n.name == 'generate_launch_description' for n in t.body)


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_executables_are_console_scripts(path):
    t = tree(path)
    scripts = console_scripts()
    calls = node_calls(t)
    assert calls, f'{path.name} starts no Node'
    for c in calls:
        exe, pkg = _kw(c, 'executable'), _kw(c, 'package')
        assert isinstance(
            exe, ast.Constant), f'{path.name}:{c.lineno}: executable must be a string constant'
        assert exe.value in scripts, (
            f'{path.name}:{c.lineno}: {exe.value!r} is not a console script of setup.py')
        assert isinstance(
            pkg, ast.Constant) and pkg.value == PACKAGE, f'{path.name}:{c.lineno}: package'


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_referenced_files_exist_and_are_installed(path):
    t = tree(path)
    installed = installed_share_files()
    refs, used = share_references(t)
    docstrings = _docstring_nodes(t)
    stray = [(n.value, n.lineno) for n in ast.walk(t)
             if isinstance(n, ast.Constant) and isinstance(n.value, str) and
             FILE_CONSTANT.fullmatch(n.value) and id(n) not in used and id(n) not in docstrings]
    assert not stray, f'{path.name}: file names not resolved in the package share: {stray}'
    for rel, line in refs:
        assert (ROOT /
                rel).is_file(), f'{path.name}:{line}: {rel} does not exist in the repository'
        assert rel in installed, (
            f'{path.name}:{line}: {rel} is not installed by setup.py data_files')
        assert installed[rel] == ROOT / rel


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_declares_the_common_arguments(path):
    t = tree(path)
    declared = declared_arguments(t)
    want = set(REQUIRED_ARGUMENTS)
    if any(_kw(c, 'executable').value in COMMANDING for c in node_calls(t)):
        want.add('command_topic')
    assert want <= set(declared), f'{path.name} lacks arguments {sorted(want - set(declared))}'
    assert _kw(declared['joint_states_topic'], 'default_value').value == '/joint_states'
    if 'command_topic' in want:
        assert _kw(declared['command_topic'],
                   'default_value').value == 'joint_trajectory_controller/joint_trajectory'
    for name, c in declared.items():
        assert _kw(c,
                   'description') is not None, f'{path.name}: argument {name} has no description'
    used = used_configurations(t)
    assert used - set(declared) == set(
    ), f'{path.name} reads undeclared arguments {sorted(used - set(declared))}'
    assert set(declared) - used == set(
    ), f'{path.name} declares unused arguments {sorted(set(declared) - used)}'


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_params_file_defaults_to_the_package_config(path):
    """params_file and *_params_file default to an installed config YAML via the package share
    (identification_session: '' = the stage node's own package config)."""
    t = tree(path)
    for name, c in declared_arguments(t).items():
        if not name.endswith('params_file'):
            continue
        d = _kw(c, 'default_value')
        if isinstance(d, ast.Constant
                      ) and d.value == '' and path.name == 'identification_session.launch.py':
            continue
        scope = _enclosing_function(t, c)
        if isinstance(d, ast.Name):
            vals = [v for kind, v in _assignments(scope, d.id) if kind == 'value']
            assert len(
                vals) == 1, f'{path.name}: {name} default {d.id} is assigned {len(vals)} times'
            d = vals[0]
        assert isinstance(d, ast.Call) and _callee(d) in ('join', 'PathJoinSubstitution') and \
            _is_share_call(d.args[0] if _callee(d) == 'join' else d.args[0].elts[0], t, scope), (
                f'{path.name}: {name} must default to a config under '
                f'get_package_share_directory({PACKAGE!r})')
        parts = d.args[1:] if _callee(d) == 'join' else d.args[0].elts[1:]
        assert [p.value for p in parts][0] == 'config' and parts[-1].value.endswith('.yaml'), name


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_node_names_match_their_config_sections(path):
    """A node started under another name than its config's section key would silently ignore it."""
    t = tree(path)
    for c in node_calls(t):
        exe = _kw(c, 'executable').value
        name = _kw(c, 'name')
        assert isinstance(name,
                          ast.Constant), f'{path.name}:{c.lineno}: give {exe} a constant name='
        cfg = ROOT / 'config' / f'{exe}.yaml'
        if not cfg.is_file():
            continue          # test_node_parameters reports a node without its config
        keys = set(yaml.safe_load(cfg.read_text()))
        assert keys & {'/**', name.value, f'/{name.value}', f'/**/{name.value}'}, (
            f'{path.name}: node {exe} is named {name.value!r}, '
            f'config/{exe}.yaml has sections {sorted(keys)}')


@pytest.fixture(scope='module')
def node_docs(node_infos):
    return {d.executable: d for d in node_infos}


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_launch_parameters_and_remappings_match_the_nodes(path, node_docs):
    from robot_id_ros.ros.docs import BUILTIN_PARAMETERS
    t = tree(path)
    for c in node_calls(t):
        exe = _kw(c, 'executable').value
        d = node_docs[exe]
        declared = {p.name for p in d.parameters} | BUILTIN_PARAMETERS
        keys = parameter_keys(t, c)
        assert keys <= declared, (
            f'{path.name}:{c.lineno}: {exe} does not declare {sorted(keys - declared)}')
        names = {
            e.name
            for e in d.endpoints if e.kind in ('publishes', 'subscribes', 'service', 'client')
        }
        for src in remap_sources(t, c):
            assert src in names, (
                f'{path.name}:{c.lineno}: remapping {src!r} renames nothing: {exe} uses '
                f'{sorted(names)}')


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=IDS)
def test_generate_launch_description_on_a_ros2_machine(path):
    if importlib.util.find_spec('launch_ros') is None or importlib.util.find_spec(
            'launch') is None:
        pytest.skip(
            'launch / launch_ros are not importable here (no PyPI wheels); '
            'this runs on a ROS 2 machine')
    if importlib.util.find_spec('ament_index_python') is None:
        pytest.skip('ament_index_python is not importable')
    from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    try:
        get_package_share_directory(PACKAGE)
    except PackageNotFoundError:
        pytest.skip(
            f'{PACKAGE} is not in the ament index (colcon build and source install/setup.bash)')
    from launch import LaunchDescription
    spec = importlib.util.spec_from_file_location(path.stem.replace('.', '_'), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ld = module.generate_launch_description()
    assert isinstance(ld, LaunchDescription)
    names = {a.name for a in ld.get_launch_arguments()}
    assert REQUIRED_ARGUMENTS <= names, sorted(REQUIRED_ARGUMENTS - names)
