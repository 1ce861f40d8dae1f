# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Evaluate a launch file with its arguments where ROS 2 launch is not installed.

``evaluate(path, arguments)`` runs the file's own ``generate_launch_description()`` and its
``OpaqueFunction`` against a recording stand-in of the few launch / launch_ros classes the
package's launch files use (installed in ``sys.modules`` only while it runs), with the real
``ament_index_python`` on an index that holds this checkout. It returns the nodes and processes
the launch would start, each as launch_ros passes them on (node name, absolute namespace,
``--params-file`` files in order with a dict written as launch_ros writes it, remappings), and
the exit handlers registered for them. ``ros_node(started, context)`` then makes an rclpy node
with exactly those arguments, so rcl itself applies the parameter files and resolves the names.
The runs under the real launch libraries are tools/run_launch_files.py's.
"""
from __future__ import annotations

import importlib.util
import shlex
import sys
import types
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = 'robot_id_ros'
DOCUMENTS = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]


# ------------------------------------------------------------------ the recording stand-in
class _Recorded:
    """An action or description: its constructor arguments, kept as given."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class _LaunchConfiguration:
    def __init__(self, name, default=None):
        self.name = name

    def perform(self, context):
        return context.launch_configurations[self.name]


class _Shutdown(_Recorded):
    @property
    def reason(self):
        return self.kwargs.get('reason', '')


def _stand_in_modules():
    names = {
        'launch': ['LaunchDescription'],
        'launch.actions': ['DeclareLaunchArgument', 'OpaqueFunction', 'LogInfo', 'EmitEvent',
                           'RegisterEventHandler', 'ExecuteProcess', 'Shutdown',
                           'IncludeLaunchDescription', 'GroupAction'],
        'launch.event_handlers': ['OnProcessExit'],
        'launch.events': [],
        'launch.substitutions': [],
        'launch_ros': [],
        'launch_ros.actions': ['Node'],
    }
    modules = {}
    for module, classes in names.items():
        m = types.ModuleType(module)
        for c in classes:
            setattr(m, c, type(c, (_Recorded,), {}))
        modules[module] = m
    modules['launch.events'].Shutdown = _Shutdown
    modules['launch.substitutions'].LaunchConfiguration = _LaunchConfiguration
    return modules


@contextmanager
def _stand_in():
    saved = {k: sys.modules.get(k) for k in _stand_in_modules()}
    sys.modules.update(_stand_in_modules())
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def ament_index(tmp_path):
    """An ament prefix holding this checkout as robot_id_ros (and the real driver's package)."""
    prefix = tmp_path / 'ament_prefix'
    marks = prefix / 'share' / 'ament_index' / 'resource_index' / 'packages'
    marks.mkdir(parents=True, exist_ok=True)
    for package in (PACKAGE, 'youbot_driver'):
        (marks / package).touch()
    if not (prefix / 'share' / PACKAGE).exists():
        (prefix / 'share' / PACKAGE).symlink_to(ROOT)
    (prefix / 'share' / 'youbot_driver' / 'config').mkdir(parents=True, exist_ok=True)
    return prefix


# ------------------------------------------------------------------ evaluation
@dataclass
class Started:
    """A node or process the launch starts, as launch_ros passes it on."""

    kind: str                          # 'node' or 'process'
    package: str = ''
    executable: str = ''
    name: str = ''
    namespace: str = '/'
    params: list = field(default_factory=list)      # files and dicts, in order
    remappings: list = field(default_factory=list)  # (from, to)
    cmd: list = field(default_factory=list)         # a process's command line
    action: object = None

    @property
    def fqn(self):
        return self.namespace.rstrip('/') + '/' + self.name


@dataclass
class Evaluated:
    """What one launch with its arguments starts."""

    arguments: dict
    started: list
    handlers: dict                     # id(action) -> [on_exit callables or action lists]
    logs: list

    def nodes(self, executable=None, package=PACKAGE):
        return [s for s in self.started if s.kind == 'node' and s.package == package and
                (executable is None or s.executable == executable)]

    def one(self, executable):
        found = self.nodes(executable)
        assert len(found) <= 1, f'{len(found)} nodes {executable}'
        return found[0] if found else None


def _absolute_namespace(ns):
    ns = (ns or '').strip('/')
    return '/' + ns if ns else '/'


def _started(action):
    kw = action.kwargs
    if type(action).__name__ == 'ExecuteProcess':
        return Started('process', cmd=list(kw['cmd']), name=kw.get('name', ''), action=action)
    return Started('node', package=kw['package'], executable=kw['executable'],
                   name=kw.get('name', kw['executable']),
                   namespace=_absolute_namespace(kw.get('namespace')),
                   params=list(kw.get('parameters', [])),
                   remappings=[tuple(r) for r in kw.get('remappings', [])], action=action)


def evaluate(path, arguments, prefix):
    """Evaluate launch file ``path`` with ``arguments`` ({name: value}) on ament ``prefix``.

    Raises:
        ValueError: an argument that the file does not declare, a required one missing, or a
            value outside its choices (as ros2 launch refuses them).
    """
    import os
    with _stand_in():
        old = os.environ.get('AMENT_PREFIX_PATH')
        os.environ['AMENT_PREFIX_PATH'] = str(prefix)
        try:
            spec = importlib.util.spec_from_file_location(f'_launch_{Path(path).stem}', path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            description = module.generate_launch_description()
            return _run(description, dict(arguments))
        finally:
            if old is None:
                os.environ.pop('AMENT_PREFIX_PATH', None)
            else:
                os.environ['AMENT_PREFIX_PATH'] = old


def _run(description, arguments):
    entities = list(description.args[0])
    values, pending = {}, list(entities)
    declared = [e for e in entities if type(e).__name__ == 'DeclareLaunchArgument']
    for d in declared:
        name, kw = d.args[0], d.kwargs
        value = arguments.pop(name, kw.get('default_value'))
        if value is None:
            raise ValueError(f'required argument {name} not given')
        if kw.get('choices') and value not in kw['choices']:
            raise ValueError(f'{name}:={value} not one of {kw["choices"]}')
        values[name] = value
    if arguments:
        raise ValueError(f'undeclared arguments {sorted(arguments)}')
    context = types.SimpleNamespace(launch_configurations=values, is_shutdown=False)
    started, handlers, logs = [], {}, []
    while pending:
        action = pending.pop(0)
        kind = type(action).__name__
        if kind == 'OpaqueFunction':
            pending = list(action.kwargs['function'](context) or []) + pending
        elif kind in ('Node', 'ExecuteProcess'):
            started.append(_started(action))
        elif kind == 'RegisterEventHandler':
            handler = action.args[0]
            target = handler.kwargs['target_action']
            handlers.setdefault(id(target), []).append(handler.kwargs['on_exit'])
        elif kind == 'LogInfo':
            logs.append(action.kwargs['msg'])
    return Evaluated(values, started, handlers, logs)


def exit_of(evaluated, started, returncode, shutting_down=False):
    """What the launch does when ``started`` exits: ('failed', reason), ('done', reason) or
    ('nothing', '')."""
    outcome = ('nothing', '')
    for on_exit in evaluated.handlers.get(id(started.action), []):
        event = types.SimpleNamespace(returncode=returncode, action=started.action)
        context = types.SimpleNamespace(is_shutdown=shutting_down, launch_configurations={})
        try:
            actions = on_exit(event, context) if callable(on_exit) else on_exit
        except Exception as exc:     # a raising handler fails the launch (LaunchService: 1)
            return 'failed', str(exc)
        for a in actions or []:
            event = a.kwargs.get('event') if type(a).__name__ == 'EmitEvent' else None
            if isinstance(event, _Shutdown) or type(a).__name__ == 'Shutdown':
                outcome = ('done', event.reason if event else a.kwargs.get('reason', ''))
    return outcome


# ------------------------------------------------------------------ rcl applies it
def params_file_of_dict(started, values, directory):
    """The file launch_ros writes for a dict of parameters (keyed by the node's full name)."""
    path = Path(directory) / f'launch_params_{len(list(Path(directory).iterdir()))}.yaml'
    path.write_text(yaml.safe_dump({started.fqn: {'ros__parameters': values}}))
    return path


def ros_node(started, context, directory):
    """An rclpy node with the launch's name, namespace, params files and remappings."""
    import rclpy

    args = ['--ros-args']
    for p in started.params:
        if isinstance(p, dict):
            args += ['--params-file', str(params_file_of_dict(started, p, directory))]
        elif p:
            args += ['--params-file', str(p)]
    for src, dst in started.remappings:
        args += ['-r', f'{src}:={dst}']
    return rclpy.create_node(started.name, namespace=started.namespace, context=context,
                             cli_args=args, start_parameter_services=False,
                             automatically_declare_parameters_from_overrides=True,
                             use_global_arguments=False)


def parameter(node, name):
    """A parameter's value as plain Python (arrays as lists); None when not set."""
    if not node.has_parameter(name):
        return None
    value = node.get_parameter(name).value
    return list(value) if not isinstance(value, (str, bytes)) and hasattr(value, '__len__') \
        else value


# ------------------------------------------------------------------ the documented commands
def documented_launches():
    """[(source, launch file name, {argument: value})] of every `ros2 launch robot_id_ros` in
    the README, docs/*.md and the launch files' docstrings."""
    out = []
    sources = [(p.relative_to(ROOT), p.read_text()) for p in DOCUMENTS]
    for p in sorted((ROOT / 'launch').glob('*.launch.py')):
        sources.append((p.relative_to(ROOT), _docstring(p)))
    for source, text in sources:
        joined = text.replace('\\\n', ' ')
        for line in joined.splitlines():
            at = line.find(f'ros2 launch {PACKAGE} ')
            if at < 0:
                continue
            words = shlex.split(line[at:].split('#')[0])
            args = dict(w.split(':=', 1) for w in words[4:] if ':=' in w)
            out.append((str(source), words[3], args))
    return out


def _docstring(path):
    import ast
    return ast.get_docstring(ast.parse(path.read_text())) or ''
