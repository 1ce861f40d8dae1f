# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""No import cycles inside robot_id_ros: the module graph (every import, also those inside
functions) read from the source with ast must be a DAG, and the ROS-free sub-packages import only
downwards."""
import ast
from pathlib import Path

import robot_id_ros

PACKAGE = Path(robot_id_ros.__file__).parent


def module_name(path):
    rel = path.relative_to(PACKAGE.parent).with_suffix('')
    parts = rel.parts[:-1] if rel.name == '__init__' else rel.parts
    return '.'.join(parts)


def import_graph():
    """{module: set of robot_id_ros modules it imports}."""
    modules = {module_name(p): p for p in PACKAGE.rglob('*.py')}
    graph = {}
    for name, path in modules.items():
        is_pkg = path.name == '__init__.py'
        package = name if is_pkg else name.rsplit('.', 1)[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split('.')[:len(package.split('.')) - node.level + 1]
                    mod = '.'.join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ''
                targets = [mod] + [f'{mod}.{a.name}' for a in node.names]
            for t in targets:
                # the longest prefix that is a module of the package
                while t and t not in modules:
                    t = t.rsplit('.', 1)[0] if '.' in t else ''
                if t and t != name:
                    edges.add(t)
        graph[name] = edges
    return graph


def find_cycle(graph):
    """One cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        state[n] = 2
        stack.pop()
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}) == ['a', 'b', 'c', 'a']
    assert find_cycle({'a': {'b'}, 'b': {'c'}, 'c': set()}) is None


def test_package_imports_form_a_dag():
    graph = import_graph()
    assert len(graph) > 40
    cycle = find_cycle(graph)
    assert cycle is None, 'import cycle: ' + ' -> '.join(cycle)


# the ROS-free sub-packages from the bottom up: each imports only those before it (record, stage 1,
# sits below identify, stage 2; both use signals)
LAYERS = ('errors', 'settings', 'model', 'io', 'signals', 'sim', 'record', 'identify', 'estimate',
          'control')


def test_the_ros_free_packages_import_only_downwards():
    def layer(module):
        parts = module.split('.')
        return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None

    upward = sorted(f'{a} -> {b}' for a, targets in import_graph().items() for b in targets
                    if layer(a) and layer(b)
                    and LAYERS.index(layer(b)) > LAYERS.index(layer(a)))
    assert not upward, 'imports up the layers: ' + ', '.join(upward)
