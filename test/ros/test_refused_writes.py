# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""RefusedWrites: a refused write is counted and reported; while shutting down it is raised."""
from types import SimpleNamespace

import pytest

from robot_id_ros.ros.refused_writes import RefusedWrites


def _node(ok):
    return SimpleNamespace(context=SimpleNamespace(ok=lambda: ok))


def _refuse(_msg):
    raise RuntimeError('Failed to publish: cannot publish data,\n at rmw_publish.cpp:62')


def test_refused_is_counted_and_reported_in_one_line():
    lines = []
    guard = RefusedWrites(_node(True), lines.append)
    assert guard.write('/joint_states', lambda m: None, 1) is True
    assert guard.write('/joint_states', _refuse, 1) is False
    assert guard.write('/joint_states', _refuse, 2) is False
    assert guard.count == 2
    assert lines[-1] == ('/joint_states: the middleware refused a message (2 so far): Failed to '
                         'publish: cannot publish data, at rmw_publish.cpp:62')


def test_a_refusal_while_shutting_down_is_raised():
    guard = RefusedWrites(_node(False), lambda line: None)
    with pytest.raises(RuntimeError, match='cannot publish'):
        guard.write('/joint_states', _refuse, 1)
    assert guard.count == 0
