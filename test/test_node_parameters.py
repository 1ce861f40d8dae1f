# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Every config/<executable>.yaml agrees with its node's OWN parameter declarations.

For each node executable of setup.py the node class (the one rclpy Node subclass its module
defines, see robot_id_ros/ros/nodes/__init__.py) is instantiated in-process on an isolated ROS
domain and its declared parameters are read back:

- every parameter set in the config is declared by the node (an undeclared one would be silently
  ignored by ROS 2), with a value of the declared type, and reaches the node;
- every parameter the node declares without a default (value unset after construction) is set by
  the config;
- the config is a ROS 2 params file that rcl itself accepts and applies to this node (its section
  key is the node's name or ``/**``), the way ``ros2 run ... --params-file`` and launch load it.

A node module that breaks the convention, has no config or disagrees with it fails.
"""
import importlib
import inspect
import math
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILTIN_PARAMETERS = {'use_sim_time', 'start_type_description_service'}  # declared by rclpy itself


def _node_executables():
    text = (ROOT / 'setup.py').read_text()
    block = text[text.index('NODES = {'):text.index('}', text.index('NODES = {'))]
    return re.findall(r"'([\w-]+)': 'robot_id_ros\.ros\.nodes\.(\w+):main'", block)


NODE_EXECUTABLES = _node_executables()


def test_setup_py_lists_the_contract_nodes():
    assert sorted(e for e, _ in NODE_EXECUTABLES) == sorted([
        'youbot_sim', 'static_pose_recorder', 'trajectory_recorder', 'friction_sweep_recorder',
        'identification', 'wrench_estimator', 'force_controller'
    ])
    assert all(exe == mod
               for exe, mod in NODE_EXECUTABLES), 'module name differs from executable name'


def node_module(module_name):
    """The node module ``robot_id_ros.ros.nodes.<module_name>``."""
    return importlib.import_module(f'robot_id_ros.ros.nodes.{module_name}')


def node_class(module):
    from rclpy.node import Node
    classes = [c for _, c in inspect.getmembers(module, inspect.isclass)
               if issubclass(c, Node) and c is not Node and c.__module__ == module.__name__]
    assert len(classes) == 1, (
        f'{module.__name__} must define exactly one rclpy Node subclass, defines '
        f'{[c.__name__ for c in classes]}')
    return classes[0]


def flatten(params, prefix=''):
    """ros__parameters -> {dotted name: value}, as rcl flattens nested maps."""
    out = {}
    for k, v in params.items():
        name = f'{prefix}{k}'
        if isinstance(v, dict):
            out.update(flatten(v, name + '.'))
        else:
            out[name] = v
    return out


def read_config(exe):
    """(section keys, {parameter: value}) of config/<exe>.yaml; asserts the params-file layout."""
    path = ROOT / 'config' / f'{exe}.yaml'
    if not path.is_file():
        pytest.skip(
            f'config/{exe}.yaml does not exist (test_every_node_has_its_config fails for it)')
    doc = yaml.safe_load(path.read_text())
    assert isinstance(doc,
                      dict) and doc, f'{path.name}: not a mapping of node name -> ros__parameters'
    values = {}
    for key, section in doc.items():
        assert isinstance(section, dict) and list(section) == ['ros__parameters'], (
            f'{path.name}: section {key!r} must hold exactly one key, ros__parameters')
        p = section['ros__parameters']
        assert isinstance(p, dict), f'{path.name}: {key}.ros__parameters is not a mapping'
        for name, v in flatten(p).items():
            assert name not in values, f'{path.name}: {name} set twice'
            values[name] = v
    return list(doc), values


def ros_parameter(name, value):
    from rclpy.parameter import Parameter
    if isinstance(value, list) and not value:
        pytest.fail(
            f'{name}: an empty list in a ROS 2 params file leaves the parameter unset '
            '(rcl reads [] as no value); give a non-empty list or drop the parameter')
    try:
        return Parameter(name, value=value)
    except TypeError as exc:
        pytest.fail(
            f'{name}: value {value!r} is not a ROS 2 parameter value ({exc}); a list must not mix '
            'int and float')


def construction_overrides(exe, tmp_path, declared_in_yaml):
    """Overrides that give construction the input files it needs and keep its outputs in tmp_path.

    An input-file parameter of robot_id_ros.ros.docs.FILE_FIXTURES (model_file,
    trajectory_file) that the config leaves empty or points at a file that does not exist here
    gets a real file made by the core (the nominal youBot model, a small excitation); an output
    path parameter (output, output_path, output_dir) is pointed into tmp_path.
    """
    from robot_id_ros.ros.docs import FILE_FIXTURES
    out = {}
    for name, value in declared_in_yaml.items():
        base = name.rsplit('.', 1)[-1]
        if base in FILE_FIXTURES and isinstance(value, str) and not Path(value).is_file():
            out[name] = str(FILE_FIXTURES[base](tmp_path))
        elif isinstance(value, str) and re.fullmatch(
                r'(output|out)(_dir|_directory|_folder|_path)?', base):
            out[name] = str(tmp_path / 'out' / base)
    return out


def construct(cls, exe, **kwargs):
    from rclpy.exceptions import InvalidParameterTypeException, ParameterUninitializedException
    try:
        return cls(**kwargs)
    except InvalidParameterTypeException as exc:
        pytest.fail(
            f'config/{exe}.yaml gives a value of the wrong type '
            f'(a double needs a decimal point: 50.0, not 50): {exc}')
    except ParameterUninitializedException as exc:
        pytest.fail(
            f'{exe}: construction reads a parameter declared without a default that '
            f'config/{exe}.yaml does not set: {exc}')


def same_value(a, b):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return a is not None and b is not None and len(a) == len(b) and all(
            same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0.0)
    return a == b


@pytest.mark.parametrize('exe,module_name', NODE_EXECUTABLES, ids=[e for e, _ in NODE_EXECUTABLES])
def test_node_module_follows_the_convention(exe, module_name):
    module = node_module(module_name)
    node_class(module)
    assert callable(getattr(module, 'main', None)), f'{module.__name__} has no main()'
    args = inspect.signature(module.main).parameters.get('args')
    assert args is not None and args.default is None, f'{module.__name__}.main must take args=None'


@pytest.mark.parametrize('exe,module_name', NODE_EXECUTABLES, ids=[e for e, _ in NODE_EXECUTABLES])
def test_every_node_has_its_config(exe, module_name):
    node_module(module_name)
    assert (ROOT / 'config' / f'{exe}.yaml').is_file(), (
        f'node robot_id_ros.ros.nodes.{module_name} exists but config/{exe}.yaml does not '
        '(launch files load it)')


@pytest.mark.parametrize('exe,module_name', NODE_EXECUTABLES, ids=[e for e, _ in NODE_EXECUTABLES])
def test_config_matches_the_node_declarations(exe, module_name, rclpy_context, tmp_path):
    """Construct with the config's values as parameter_overrides; compare with the declarations."""
    cls = node_class(node_module(module_name))
    sections, values = read_config(exe)
    values = dict(values)
    substituted = construction_overrides(exe, tmp_path, values)
    overrides = [ros_parameter(n, substituted.get(n, v)) for n, v in values.items()]
    node = construct(cls, exe, context=rclpy_context, parameter_overrides=overrides)
    try:
        declared = {name: p for name, p in node._parameters.items()}
        listed = set(node.list_parameters([], 0).names)
        assert listed == set(declared)
        undeclared = sorted(set(values) - set(declared))
        assert not undeclared, (
            f'config/{exe}.yaml sets parameters node {node.get_name()} does not declare: '
            f'{undeclared}')
        unset = sorted(n for n, p in declared.items()
                       if p.value is None and n not in BUILTIN_PARAMETERS)
        assert not unset, (
            f'node {node.get_name()} declares parameters without a default that config/{exe}.yaml '
            f'does not set: {unset}')
        wrong = {n: (declared[n].value, v) for n, v in values.items()
                 if n not in substituted and not same_value(declared[n].value, v)}
        assert not wrong, f'{exe}: parameter values differ from the config (node, config): {wrong}'
        name = node.get_name()
        for key in sections:
            assert key in ('/**', name, f'/{name}', f'/**/{name}'), (
                f'config/{exe}.yaml section {key!r} does not apply to node {name!r} '
                f'(use {name!r} or /**)')
    finally:
        node.destroy_node()


@pytest.mark.parametrize('exe,module_name', NODE_EXECUTABLES, ids=[e for e, _ in NODE_EXECUTABLES])
def test_config_loads_as_a_params_file(exe, module_name, ros_domain_id, tmp_path):
    """The way ros2 run/launch load it: rcl parses the file and applies the sections matching the
    node."""
    import rclpy
    from rclpy.context import Context

    cls = node_class(node_module(module_name))
    _, values = read_config(exe)
    substituted = construction_overrides(exe, tmp_path, values)
    args = ['--ros-args', '--params-file', str(ROOT / 'config' / f'{exe}.yaml')]
    if substituted:
        extra = tmp_path / 'substitutions.yaml'
        extra.write_text(yaml.safe_dump({'/**': {'ros__parameters': substituted}}))
        args += ['--params-file', str(extra)]
    ctx = Context()
    try:
        rclpy.init(context=ctx, args=args, domain_id=ros_domain_id)
    except Exception as exc:  # noqa: BLE001 - rcl reports a bad params file as RCLError
        pytest.fail(f'rcl rejects config/{exe}.yaml as a params file: {exc}')
    try:
        node = construct(cls, exe, context=ctx)
        try:
            got = {n: node.get_parameter(n).value for n in values if node.has_parameter(n)}
            missing = sorted(set(values) - set(got))
            assert not missing, (
                f'{exe}: not declared (or the section key does not match the node): {missing}')
            wrong = {
                n: (got[n], v)
                for n, v in values.items() if n not in substituted and not same_value(got[n], v)
            }
            assert not wrong, (f'{exe}: values that did not arrive through the params file '
                               f'(node, config): {wrong}')
        finally:
            node.destroy_node()
    finally:
        rclpy.shutdown(context=ctx)
