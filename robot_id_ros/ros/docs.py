# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The node reference docs/nodes.md, generated from the nodes' own declarations.

Each node class (the one rclpy Node subclass of its module, see ``robot_id_ros.ros.nodes``) is
instantiated in-process, with its own defaults, on a private rclpy Context, and read back: its
declared parameters (name, type, default, description with unit, read-only, range) and the
topics, services and actions it created.  Nothing is typed by hand, so the tables cannot drift
from the code; test/test_readme_tables.py checks that docs/nodes.md holds exactly this text.

    python -m robot_id_ros.ros.docs > docs/nodes.md

Names are shown as a node declares them: relative (``joint_states``: resolved in the node's
namespace, remappable), private (``~/wrench``: under the node's name) or absolute
(``/diagnostics``).  rclpy's own parameters (``use_sim_time``, ``start_type_description_service``)
and services (parameter services, ``~/get_type_description``) and ``/parameter_events`` are left
out: every node has them.
"""
from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from robot_id_ros.errors import OperationError

# the package's node executables, in README order; module = executable
EXECUTABLES = ('youbot_sim', 'static_pose_recorder', 'trajectory_recorder',
               'friction_sweep_recorder', 'identification', 'wrench_estimator',
               'force_controller')

BUILTIN_PARAMETERS = frozenset({'use_sim_time', 'start_type_description_service'})
BUILTIN_SERVICES = frozenset({
    'describe_parameters', 'get_parameters', 'get_parameter_types', 'list_parameters',
    'set_parameters', 'set_parameters_atomically', 'get_type_description', 'get_logger_levels',
    'set_logger_levels'
})
BUILTIN_TOPICS = frozenset({'/parameter_events', '/rosout'})
_PROBE_NS = '/docs_probe_ns'     # relative names resolve under it; absolute names do not

_TYPE_NAMES = {
    0: '(unset)',
    1: 'bool',
    2: 'int',
    3: 'double',
    4: 'string',
    5: 'byte[]',
    6: 'bool[]',
    7: 'int[]',
    8: 'double[]',
    9: 'string[]'
}


class ConventionError(OperationError):
    """A node module that does not follow the convention of robot_id_ros.ros.nodes."""


@dataclass
class ParameterDoc:
    name: str
    type: str
    default: object            # None: declared without a default (must be given)
    read_only: bool
    description: str
    constraints: str = ''


@dataclass
class EndpointDoc:
    kind: str  # publishes | subscribes | service | client | action server | action client
    name: str
    type: str


@dataclass
class NodeDoc:
    executable: str
    module: str
    class_name: str = ''
    node_name: str = ''
    summary: str = ''
    parameters: list = field(default_factory=list)
    endpoints: list = field(default_factory=list)


def node_class(module):
    """Return the one rclpy Node subclass ``module`` defines (ConventionError otherwise)."""
    from rclpy.node import Node
    classes = [c for _, c in inspect.getmembers(module, inspect.isclass)
               if issubclass(c, Node) and c is not Node and c.__module__ == module.__name__]
    if len(classes) != 1:
        raise ConventionError(
            f'{module.__name__} must define exactly one rclpy Node subclass, defines '
            f'{[c.__name__ for c in classes]}')
    return classes[0]


def _type_name(cls):
    """sensor_msgs.msg.JointState -> sensor_msgs/msg/JointState."""
    parts = cls.__module__.split('.')
    return f'{parts[0]}/{parts[1]}/{cls.__name__}' if len(parts) >= 2 else cls.__name__


def _relative_name(resolved, node_name):
    private = f'{_PROBE_NS}/{node_name}/'
    if resolved.startswith(private):
        return '~/' + resolved[len(private):]
    if resolved.startswith(_PROBE_NS + '/'):
        return resolved[len(_PROBE_NS) + 1:]
    return resolved


def _constraints(desc):
    out = []
    for r in desc.floating_point_range:
        out.append(f'range [{_fmt(r.from_value)}, {_fmt(r.to_value)}]' +
                   (f' step {_fmt(r.step)}' if r.step else ''))
    for r in desc.integer_range:
        out.append(f'range [{r.from_value}, {r.to_value}]' +
                   (f' step {r.step}' if r.step > 1 else ''))
    if desc.additional_constraints:
        out.append(desc.additional_constraints)
    return '; '.join(out)


def _portable(value):
    """Machine-specific absolute paths (this checkout, the install prefix) made portable."""
    if isinstance(value, str):
        for root, label in ((str(Path(__file__).resolve().parents[2]), '<package>'), (sys.prefix,
                                                                                      '<prefix>')):
            if root and root != '/' and value.startswith(root + os.sep):
                return label + value[len(root):]
    if isinstance(value, list):
        return [_portable(v) for v in value]
    return value


def nominal_model_file(directory):
    """Return a real model file (the youBot's URDF parameters, not identified) in ``directory``."""
    from robot_id_ros.model.robot import youbot_model
    from robot_id_ros.io.model_file import nominal_model

    path = Path(directory) / 'nominal_youbot_model.yaml'
    if not path.exists():
        nominal_model(youbot_model()).save(path)
    return path


def example_trajectory_file(directory):
    """Return a real excitation trajectory file (small motion about the youBot's candle pose)."""
    import numpy as np

    from robot_id_ros.record import FourierTrajectory
    from robot_id_ros.model.robot import YOUBOT_JOINTS

    path = Path(directory) / 'example_excitation.yaml'
    if not path.exists():
        n = len(YOUBOT_JOINTS)
        FourierTrajectory(YOUBOT_JOINTS, 10.0, np.full((n, 1), 0.05), np.zeros((n, 1)),
                          np.array([2.9496, 1.1344, -2.5482, 1.789, 2.9234])).save(path)
    return path


# Parameters naming an input file a node needs to start (declared with default ''): to read a
# node's declarations it is constructed with a real file made by the core for them.
FILE_FIXTURES = {'model_file': nominal_model_file, 'trajectory_file': example_trajectory_file}


def instantiate(cls, context, namespace=None, overrides=None, declared=None):
    """(node, {parameter: default as declared in the code}) for node class ``cls``.

    The defaults are recorded from the node's declare_parameter(s) calls, so a parameter given
    through ``overrides`` still shows its own default; a parameter declared with a type only has
    default None.  ``declared`` (a dict) is filled as declarations happen, so a caller sees them
    even when the constructor raises; a node whose constructor raises is destroyed.
    """
    from rcl_interfaces.msg import ParameterValue
    from rclpy.parameter import Parameter, parameter_value_to_python

    declared = {} if declared is None else declared
    made = []

    class _Recording(cls):
        def declare_parameters(self, namespace, parameters, ignore_override=False):
            if not made:
                made.append(self)
            for entry in parameters:
                value = entry[1] if len(entry) > 1 else None
                if isinstance(value, Parameter.Type):
                    value = None
                elif isinstance(value, ParameterValue):
                    value = parameter_value_to_python(value)
                declared.setdefault(f'{namespace}.{entry[0]}' if namespace else entry[0], value)
            return super().declare_parameters(namespace, parameters, ignore_override)

    _Recording.__name__, _Recording.__qualname__ = cls.__name__, cls.__qualname__
    try:
        node = _Recording(context=context, namespace=namespace,
                          parameter_overrides=list(overrides or []))
    except BaseException:
        for n in made:
            try:
                n.destroy_node()
            except Exception:  # noqa: BLE001 - half-built node: free what can be freed
                pass
        raise
    return node, declared


def _construct(cls, context, namespace, workdir):
    """Construct the node with its own defaults, giving it input files it needs to start.

    A node that refuses to start without an input file (a parameter of FILE_FIXTURES, empty by
    default) gets a real one through that parameter, and the tables still show the declared
    default.
    """
    from rclpy.parameter import Parameter

    declared = {}
    try:
        return instantiate(cls, context, namespace, declared=declared)
    except Exception:  # noqa: BLE001
        # retried below with input files, re-raised if that is not the cause
        need = [n for n, v in declared.items() if v == '' and n in FILE_FIXTURES]
        if not need:
            raise
    return instantiate(cls, context, namespace,
                       [Parameter(n, value=str(FILE_FIXTURES[n](workdir))) for n in need])


def inspect_node(executable, context, workdir, namespace=_PROBE_NS) -> NodeDoc:
    """Instantiate the node of ``executable`` with its defaults; read back what it declares."""
    module_name = f'robot_id_ros.ros.nodes.{executable}'
    doc = NodeDoc(executable, module_name)
    module = importlib.import_module(module_name)
    cls = node_class(module)
    doc.class_name = cls.__name__
    doc.summary = (inspect.getdoc(module) or '').strip().split('\n\n')[0].replace('\n', ' ')
    node, declared = _construct(cls, context, namespace, workdir)
    try:
        name = doc.node_name = node.get_name()
        names = [n for n in node._parameters if n not in BUILTIN_PARAMETERS]
        for n, desc in zip(names, node.describe_parameters(names)):
            value = declared.get(n, node._parameters[n].value)
            doc.parameters.append(
                ParameterDoc(n, _TYPE_NAMES.get(desc.type, str(desc.type)), _portable(value),
                             bool(desc.read_only), ' '.join(desc.description.split()),
                             _constraints(desc)))
        eps = []
        for p in node.publishers:
            if p.topic_name not in BUILTIN_TOPICS:
                eps.append(
                    EndpointDoc('publishes', _relative_name(p.topic_name, name),
                                _type_name(p.msg_type)))
        for s in node.subscriptions:
            if s.topic_name not in BUILTIN_TOPICS:
                eps.append(
                    EndpointDoc('subscribes', _relative_name(s.topic_name, name),
                                _type_name(s.msg_type)))
        for kind, items in (('service', node.services), ('client', node.clients)):
            for s in items:
                resolved = node.resolve_service_name(s.srv_name)
                short = resolved.rsplit('/', 1)[-1]
                if (kind == 'service' and short in BUILTIN_SERVICES
                        and resolved == f'{namespace}/{name}/{short}'):
                    continue
                eps.append(
                    EndpointDoc(kind, _relative_name(resolved, name), _type_name(s.srv_type)))
        for w in node.waitables:
            action_type = getattr(w, '_action_type', None)
            action_name = getattr(w, '_action_name', None)
            if action_type is None or action_name is None:
                continue
            kind = 'action server' if type(w).__name__ == 'ActionServer' else 'action client'
            resolved = node.resolve_topic_name(action_name)
            eps.append(EndpointDoc(kind, _relative_name(resolved, name), _type_name(action_type)))
        order = ['subscribes', 'publishes', 'service', 'client', 'action server', 'action client']
        doc.endpoints = sorted(eps, key=lambda e: (order.index(e.kind), e.name))
    finally:
        node.destroy_node()
    return doc


def collect(executables=EXECUTABLES, context=None, domain_id=None):
    """Return a NodeDoc for every executable; uses ``context`` or a private one (``domain_id``)."""
    import rclpy
    from rclpy.context import Context

    own = context is None
    if own:
        context = Context()
        kwargs = {} if domain_id is None else {'domain_id': domain_id}
        rclpy.init(context=context, args=[], **kwargs)
    try:
        with tempfile.TemporaryDirectory(prefix='robot_id_ros_docs_') as tmp:
            cwd = os.getcwd()
            os.chdir(tmp)  # a node that writes a file on start writes it here, not in the checkout
            try:
                return [inspect_node(e, context, tmp) for e in executables]
            finally:
                os.chdir(cwd)
    finally:
        if own:
            rclpy.shutdown(context=context)


def _fmt(v):
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return f"'{v}'"
    if isinstance(v, (list, tuple)):
        return '[' + ', '.join(_fmt(x) for x in v) + ']'
    return str(v)


def _cell(text):
    """Return a table cell holding a code span: only the pipe needs escaping (GFM tables)."""
    return str(text).replace('|', '\\|').replace('\n', ' ')


def _prose(text):
    """Return plain text for a table cell, with no markup made by accident.

    No emphasis (current*Kt*N), strike-through (~/a ... ~/b) or HTML tags (<output_path>).
    """
    parts = re.split(r'(``.+?``|`[^`]+`)', ' '.join(str(text).split()))
    for i in range(0, len(parts), 2):          # outside code spans only
        for ch in '\\*~|':
            parts[i] = parts[i].replace(ch, '\\' + ch)
        parts[i] = parts[i].replace('<', '&lt;')
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace('|', '\\|')
    return ''.join(parts)


def _code(text):
    text = str(text)
    return f'`` {text} ``' if '`' in text else f'`{text}`'


def render_markdown(docs) -> str:
    """Return the markdown between ``<!-- nodes:begin -->`` and ``<!-- nodes:end -->``."""
    lines = [
        '<!-- generated by `python -m robot_id_ros.ros.docs` from the nodes\' own declarations; '
        'do not edit by hand -->', '',
        'Every node also has `use_sim_time` (ROS 2 standard). Names without a leading `/` are '
        'relative to the node\'s namespace (remappable); `~/` names are under the node\'s name. '
        'Read-only parameters are fixed at start; the others can be changed with '
        '`ros2 param set`.',
        ''
    ]
    for d in docs:
        lines.append(f'### `{d.executable}`')
        lines.append('')
        lines.append(
            f'Node `{d.node_name}` (class `{d.class_name}` in `{d.module}`). {_prose(d.summary)}'.
            rstrip())
        lines.append('')
        if d.endpoints:
            lines += ['| interface | name | type |', '|---|---|---|']
            lines += [f'| {e.kind} | {_code(e.name)} | `{e.type}` |' for e in d.endpoints]
            lines.append('')
        if d.parameters:
            lines += [
                '| parameter | type | default | read-only | description |', '|---|---|---|---|---|'
            ]
            for p in d.parameters:
                default = '(required)' if p.default is None else _code(_fmt(p.default))
                text = p.description + (f' ({p.constraints})' if p.constraints else '')
                lines.append(
                    f'| `{p.name}` | {p.type} | {_cell(default)} | '
                    f'{"yes" if p.read_only else "no"} | '
                    f'{_prose(text)} |')
            lines.append('')
    while lines and lines[-1] == '':
        lines.pop()
    return '\n'.join(lines) + '\n'


def generate(context=None, domain_id=None) -> str:
    return render_markdown(collect(context=context, domain_id=domain_id))


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog='python -m robot_id_ros.ros.docs',
                                 description=__doc__.split('\n\n')[0])
    ap.add_argument('--domain-id', type=int, default=None,
                    help='ROS domain for the short-lived nodes (default: ROS_DOMAIN_ID or 0)')
    a = ap.parse_args(argv)
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    sys.stdout.write(generate(domain_id=a.domain_id))


if __name__ == '__main__':
    main()
