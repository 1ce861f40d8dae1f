# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's force script puts each force in motion at its planned point of the path (and
says so when a trajectory time comes before any trajectory)."""
from types import SimpleNamespace

import numpy as np
import pytest

from robot_id_ros import record as rec
from robot_id_ros.demo.director import Director
from robot_id_ros.demo.force_script import (MOTION_FORCES_N, Action, ForceScript,
                                            motion_force_plan)
from robot_id_ros.errors import OperationError
from robot_id_ros.model.robot import youbot_model


def _trajectory(robot):
    rng = np.random.default_rng(3)
    n = robot.n
    return rec.FourierTrajectory(tuple(robot.joint_names), 6.0, 0.15 * rng.standard_normal((n, 2)),
                                 0.15 * rng.standard_normal((n, 2)),
                                 np.array([2.9, 1.2, -2.5, 1.8, 2.9]))


def test_motion_forces_go_on_and_off_at_their_planned_trajectory_times():
    robot = youbot_model()
    traj = _trajectory(robot)
    hold_s, gap_s = 2.0, 1.0
    script = ForceScript.default(robot, traj, quick=True, hold_s=hold_s, gap_s=gap_s)
    acts = script.actions
    k = next(i for i, a in enumerate(acts) if a.kind == 'trajectory')
    motion = acts[k:]
    T = traj.period_s
    plan = motion_force_plan(robot, traj, T, 2 * T - 0.5, MOTION_FORCES_N, hold_s, gap_s)[:4]
    assert plan, 'the test trajectory must leave room for forces'
    on = [motion[i - 1].value for i, a in enumerate(motion) if a.kind == 'force']
    off = [motion[i - 1].value for i, a in enumerate(motion) if a.kind == 'clear']
    assert all(motion[i - 1].kind == 'at_trajectory_time'
               for i, a in enumerate(motion) if a.kind in ('force', 'clear'))
    np.testing.assert_allclose(on, [t for t, _ in plan])
    np.testing.assert_allclose(off, [t + hold_s for t, _ in plan])
    for i, a in enumerate(motion):
        if a.kind == 'force':
            np.testing.assert_array_equal(a.value, plan[on.index(motion[i - 1].value)][1])
    # the contact-free phase is the first period; the forced one runs to the trajectory's end
    ends = [motion[i - 1] for i, a in enumerate(motion) if a.kind == 'phase_end']
    assert [(e.kind, e.value) for e in ends] == [('at_trajectory_time', T),
                                                 ('at_trajectory_time', 2 * T)]
    # the planned waits add up to the trajectory's length (the script's length estimate)
    waits = sum(a.duration_s for a in motion if a.kind == 'at_trajectory_time')
    assert abs(waits - 2 * T) < 1e-9


def test_a_trajectory_time_before_any_trajectory_is_a_clear_error():
    with pytest.raises(OperationError, match="before any 'trajectory' action"):
        Director._at_trajectory_time(SimpleNamespace(_trajectory_start_ns=None),
                                     Action('at_trajectory_time', 1.0, 1.0))
