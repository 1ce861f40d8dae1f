# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Bounded reading of the YAML files a user gives: model files, sidecars, poses, trajectories.

``yaml.safe_load`` builds whatever a file describes. A few hundred bytes of nested aliases (a
"billion laughs") stand for billions of nodes: the parse itself shares them, but anything that
walks the result afterwards (a copy, a conversion, a message) expands them until memory runs
out. A large file is parsed at about a megabyte a second by the pure-Python parser.

``read_yaml`` reads at most ``max_bytes`` (refused from its size, before any parsing), parses with
libyaml where installed, and checks the composed node graph before any Python object is built:
nesting at most ``MAX_YAML_DEPTH`` levels, no alias that contains itself, and aliases that
together add at most ``ALIAS_NODE_BUDGET`` nodes to what the document holds once written out.
The graph walk visits each distinct node once, so a bomb is refused in the time its text takes to
parse. Every refusal is one line naming the file and the limit.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, SequenceNode

from robot_id_ros.errors import InputError

# The largest YAML file the package reads from a user unless the caller says otherwise: sidecars,
# poses and trajectory files are a few kilobytes, a model file with its URDF a few hundred.
MAX_YAML_BYTES = 16 * 1024 * 1024
# No file the package writes nests deeper than about ten levels.
MAX_YAML_DEPTH = 100
# Nodes that aliases may add to a document beyond its own (a pose list reused by anchors adds a
# few hundred); an alias bomb adds billions.
ALIAS_NODE_BUDGET = 100_000

# node counts stop here (a bomb's count would otherwise be a number of a thousand digits)
_COUNT_CAP = 10 ** 15
_BASE_LOADER = getattr(yaml, 'CSafeLoader', None) or yaml.SafeLoader


class YAMLLimitError(yaml.YAMLError):
    """A document beyond the limits of ``read_yaml`` (raised before it is constructed)."""


def _children(node):
    if isinstance(node, SequenceNode):
        return node.value
    if isinstance(node, MappingNode):
        return [x for pair in node.value for x in pair]
    return ()


def check_node_graph(root, max_depth=MAX_YAML_DEPTH, alias_budget=ALIAS_NODE_BUDGET):
    """Raise YAMLLimitError when a composed document is too deep, recursive or expands too much.

    Args:
        root: the document's root node (``yaml.compose`` / a loader's ``get_single_node``).
        max_depth: the deepest nesting accepted.
        alias_budget: how many nodes aliases may add to the document's distinct ones.
    """
    expanded = {}        # id(node) -> number of nodes of its subtree written out
    open_nodes = set()   # ids of the nodes on the current path
    distinct = 0
    stack = [(root, 0, False)]
    while stack:
        node, depth, closing = stack.pop()
        key = id(node)
        if closing:
            open_nodes.discard(key)
            expanded[key] = min(1 + sum(expanded[id(c)] for c in _children(node)), _COUNT_CAP)
            continue
        if key in expanded:
            continue
        if key in open_nodes:
            raise YAMLLimitError('an alias refers to a node that contains it (a recursive '
                                 'structure, which no input of this package has)')
        if depth > max_depth:
            raise YAMLLimitError(f'it nests deeper than {max_depth} levels')
        distinct += 1
        open_nodes.add(key)
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in _children(node) if id(c) not in expanded)
    added = expanded[id(root)] - distinct
    if added > alias_budget:
        size = f'over {_COUNT_CAP:.0e}' if expanded[id(root)] >= _COUNT_CAP else f'{added:.3g}'
        raise YAMLLimitError(f'its aliases expand it by {size} nodes, more than the '
                             f'{alias_budget} accepted (an alias bomb?)')


class BoundedLoader(_BASE_LOADER):
    """A safe loader that checks the node graph (``check_node_graph``) before constructing."""

    def get_single_node(self):
        """Compose the document, then refuse it when it is beyond the limits."""
        node = super().get_single_node()
        if node is not None:
            check_node_graph(node)
        return node


def _read_bounded(path: Path, max_bytes: int, what: str, error):
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):    # a FIFO or a device would block or never end
            raise error(f'{what} {path} is not a regular file: give the file itself')
        size = info.st_size
        if size > max_bytes:
            raise error(_too_large(what, path, size, max_bytes))
        with open(path, 'rb') as f:
            data = f.read(max_bytes + 1)       # a file that grows meanwhile is still bounded
    except OSError as exc:
        raise error(f'cannot read {what} {path}: {exc.strerror or exc}') from None
    if len(data) > max_bytes:
        raise error(_too_large(what, path, len(data), max_bytes))
    return data


def _too_large(what, path, size, max_bytes):
    return (f'{what} {path} is {size / 1e6:.3g} MB, larger than any {what} '
            f'(at most {max_bytes / 1e6:.3g} MB): give the right file')


def read_yaml(path, what='YAML file', error=InputError, max_bytes=MAX_YAML_BYTES, fix=''):
    """Read a YAML file from a user within the module's bounds.

    Args:
        path: the file.
        what: how messages name it ('model file', 'poses_file').
        error: the InputError subclass raised.
        max_bytes: the largest file accepted.
        fix: appended to the message of a file that is not text or not YAML (what to give).

    Returns:
        The document (None for an empty file).

    Raises:
        error: unreadable, too large, not UTF-8 text, not YAML, or beyond the node graph bounds;
            one line naming the file.
    """
    path = Path(path)
    data = _read_bounded(path, max_bytes, what, error)
    fix = f': {fix}' if fix else ''
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError:
        raise error(f'{what} {path} is not text (binary data){fix}') from None
    try:
        return yaml.load(text, Loader=BoundedLoader)
    except YAMLLimitError as exc:
        raise error(f'{what} {path} is refused: {exc}') from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        where = f' at line {mark.line + 1}, column {mark.column + 1}' if mark is not None else ''
        problem = ' '.join(str(getattr(exc, 'problem', None) or type(exc).__name__).split())
        raise error(f'{what} {path} is not valid YAML{where}: {problem}{fix}') from None
    except RecursionError:
        raise error(f'{what} {path} is refused: it nests too deeply') from None
