# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Set points that cannot jump: the commanded path, the continuity of joint states, the hold."""
import numpy as np
import pytest

from robot_id_ros import record as rec
from robot_id_ros.record.setpoints import (JUMP_ALLOWANCE_RAD, SPEED_MARGIN, CommandedPath,
                                           ContinuityCheck, hold_motion)

S = 1_000_000_000
SPEED = np.array([1.0, 2.0])


def test_commanded_path_follows_the_motions_sent():
    path = CommandedPath()
    assert path.empty and path.at(0) is None
    move = rec.QuinticMove([0.0, 0.0], [1.0, -1.0], 2.0)
    path.add(10 * S, move)
    assert np.allclose(path.at(9 * S), [0.0, 0.0])            # before its start: its start pose
    assert np.allclose(path.at(11 * S), move.evaluate(1.0)[0])  # mid-motion: interpolated
    assert np.allclose(path.at(20 * S), [1.0, -1.0])           # after its end: its end pose
    # a newer motion replaces the rest of the older one from its start on
    back = rec.QuinticMove(move.evaluate(0.5)[0], [0.0, 0.0], 1.0)
    path.add(int(10.5 * S), back)
    assert np.allclose(path.at(int(10.25 * S)), move.evaluate(0.25)[0])
    assert np.allclose(path.at(12 * S), [0.0, 0.0])
    # one sent to start later keeps the older one until then
    path.add(30 * S, rec.QuinticMove([0.0, 0.0], [0.5, 0.5], 1.0))
    assert np.allclose(path.at(20 * S), [0.0, 0.0])
    assert np.allclose(path.at(40 * S), [0.5, 0.5])


def test_a_state_that_moved_farther_than_the_drives_could_is_refused():
    check = ContinuityCheck(SPEED)
    assert 'waiting for the next' in check.check(100 * S - 10_000_000, [0.0, 0.0], 0.99)
    assert check.check(100 * S, [0.0, 0.0], 1.0) is None       # the second confirms the first
    assert check.rejected == 0
    # 10 ms later, 5 mrad: accepted
    assert check.check(100 * S + 10_000_000, [0.005, 0.0], 1.01) is None
    # 5 ms later, joint 1 moved 2 rad: bad input, counted, not the reference
    reason = check.check(100 * S + 15_000_000, [2.005, 0.0], 1.015)
    assert 'joint 1 moved 2.000 rad' in reason and check.rejected == 1
    assert check.check(100 * S + 20_000_000, [0.01, 0.0], 1.02) is None
    # a forged stamp 10 s ahead, received 5 ms after the last: it buys no distance
    reason = check.check(110 * S, [1.0, 0.0], 1.025)
    assert reason is not None and check.rejected == 2
    allowed = check.allowed_rad(110 * S, 1.025)
    assert allowed[0] == pytest.approx(SPEED[0] * SPEED_MARGIN * 0.025 + JUMP_ALLOWANCE_RAD)


def test_continuity_admits_real_motion_gaps_and_a_faster_clock():
    check = ContinuityCheck(SPEED)
    check.check(-10_000_000, [0.0, 0.0], -0.01)
    assert check.check(0, [0.0, 0.0], 0.0) is None
    # a gap of 1 s (stamps and receipt alike) at the speed limit: accepted
    assert check.check(S, [1.0, 2.0], 1.0) is None
    # a simulation at 4x real time: 0.2 s of stamps in 50 ms of receipt time
    assert check.check(int(1.2 * S), [1.2, 2.0], 1.05, clock_rate=4.0) is None
    # states delivered in a burst (no receipt time between them), 5 ms of stamps each
    for k in range(1, 20):
        assert check.check(int(1.2 * S) + k * 5_000_000, [1.2 + 0.005 * k, 2.0], 1.05) is None
    # a clock that went back, the arm where it was: accepted (only the distance counts)
    assert check.check(0, [1.295, 2.0], 1.06) is None
    assert check.rejected == 0


def test_a_forged_first_state_is_replaced_by_the_real_ones():
    check = ContinuityCheck(SPEED)
    check.check(S, [2.0, 0.0], 1.0)                          # forged, before any real state
    assert check.check(S + 5_000_000, [0.0, 0.0], 1.005) is not None     # real, refuses it
    assert check.rejected == 1 and 'the first state' in check.last_reason
    assert check.check(S + 10_000_000, [0.001, 0.0], 1.01) is None      # real, confirmed
    assert check.check(S + 15_000_000, [2.0, 0.0], 1.015) is not None   # forged again: refused
    assert check.check(S + 20_000_000, [0.002, 0.0], 1.02) is None


def test_hold_is_rate_limited_and_within_the_limits():
    lower, upper = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    hold = hold_motion([0.5, 0.0], [0.5, 0.0], SPEED, lower, upper, 0.2)
    assert hold.duration_s == 0.2 and np.allclose(hold.q1, [0.5, 0.0])
    hold = hold_motion([0.5, 0.0], [3.0, 0.0], SPEED, lower, upper, 0.2)
    assert np.allclose(hold.q1, [1.0, 0.0])
    t = np.linspace(0.0, hold.duration_s, 401)
    qd = np.array([hold.evaluate(x)[1] for x in t])
    assert np.all(np.abs(qd) <= SPEED * (1 + 1e-9))
