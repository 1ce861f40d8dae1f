# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Planned motions: point to point, approach, transition (robot_id_ros.record.motions)."""
import numpy as np
import pytest

from robot_id_ros import record as R

CANDLE = np.array((2.9496, 1.1344, -2.5482, 1.789, 2.9234))  # the youBot's candle pose, rad


def test_point_to_point_respects_limits_and_ends_at_rest(robot):
    lim = R.SafetyLimits(0.1, [0.5, 0.5, 0.5, 0.8, 0.8], 1.0)
    q1 = CANDLE + np.array([0.5, -0.6, 0.3, 0.2, -1.0])
    m = R.plan_point_to_point(CANDLE, q1, lim)
    vp, ap, _, _ = R.motion_peaks(m, 0.001)
    v, a = lim.per_joint(5)
    assert np.all(vp <= v * 1.001) and np.all(ap <= a * 1.001)
    assert np.max(vp / v) > 0.99 or np.max(ap / a) > 0.99  # time-optimal for this profile
    q, qd, qdd = m.evaluate(m.duration_s)
    assert np.allclose(q, q1) and np.allclose(qd, 0) and np.allclose(qdd, 0)


def test_approach_direction_and_clipping(robot):
    lim = R.SafetyLimits()
    lo, hi = lim.bounds(robot)
    target = CANDLE.copy()
    target[1] = lo[1]  # no room to come from below on joint 2
    m, signs = R.plan_approach(CANDLE, target, +1, 0.1, lim, lo, hi)
    assert signs[1] == 0 and signs[0] == 1
    # the last part moves every other joint upward into the target
    ts = np.linspace(m.starts[-2], m.duration_s, 50)
    qs = np.array([m.evaluate(t)[0] for t in ts])
    assert np.all(np.diff(qs[:, 0]) >= -1e-12) and np.allclose(qs[-1], target)
    m2, signs2 = R.plan_approach(CANDLE, CANDLE, -1, 0.1, lim, lo, hi)
    assert np.all(signs2 == -1)


def test_transition_matches_boundary_states():
    lim = R.SafetyLimits(0.0, 1.0, 2.0)
    start = (np.zeros(2), np.zeros(2), np.zeros(2))
    end = (np.array([0.3, -0.2]), np.array([0.4, -0.1]), np.array([0.5, 0.0]))
    m = R.plan_transition(start, end, lim, np.full(2, -1.0), np.full(2, 1.0))
    q, qd, qdd = m.evaluate(m.duration_s)
    assert np.allclose(q, end[0]) and np.allclose(qd, end[1]) and np.allclose(qdd, end[2])
    vp, ap, qmin, qmax = R.motion_peaks(m, 0.001)
    assert np.all(vp <= 1.001) and np.all(ap <= 2.001)
    with pytest.raises(R.RecordingError, match='no smooth transition'):
        R.plan_transition(start, end, lim, np.full(2, -0.1), np.full(2, 0.1), max_duration_s=5)
