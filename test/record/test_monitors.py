# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Driver statistics: timing and tracking (robot_id_ros.record.monitors)."""
import numpy as np
import pytest

from robot_id_ros import record as R


def test_timing_stats_and_tracking_monitor():
    t = np.arange(0, 1000) * 10_000_000
    t = np.delete(t, np.arange(500, 520))  # a 0.2 s gap
    s = R.timing_stats(t)
    assert s['rate_hz'] == pytest.approx(100.0) and s['gaps'] == 1
    assert s['dt_max_s'] == pytest.approx(0.21)
    m = R.TrackingMonitor(2, 0.05, consecutive=3)
    for e in (0.01, 0.06, 0.07):
        m.update([e, 0.0], [0.0, 0.0])
    assert not m.tripped
    m.update([0.08, 0], [0, 0])
    assert m.tripped and m.report()['max_rad'][0] == pytest.approx(0.08)


def _follow(motion, start_ns, delay_s, dt_s=0.005, lag_s=0.01):
    """Stamps and measured poses of a driver that starts ``motion`` ``delay_s`` late and
    follows it ``lag_s`` behind (a tracking controller), for the motion's duration + delay."""
    t = np.arange(0.0, motion.duration_s + delay_s, dt_s)
    q = np.array([motion.evaluate(max(x - delay_s - lag_s, 0.0))[0] for x in t])
    return start_ns + (t * 1e9).astype(np.int64), q


@pytest.mark.parametrize('delay_s', [0.0, 0.35, 1.2])
def test_a_motion_started_late_is_tracked_from_its_real_start(delay_s):
    """A driver that got the command late starts it late: the tracker measures the lag from
    the departure from the start pose and compares with the plan shifted by it; no trip."""
    move = R.Sequence([R.QuinticMove([0.0, 0.0], [0.0, 0.0], 0.5),
                       R.QuinticMove([0.0, 0.0], [0.8, -0.6], 1.0)])
    stamps, q = _follow(move, 10**12, delay_s)
    m = R.TrackingMonitor(2, 0.05, consecutive=3)
    tr = R.LateStartTracker(move, 10**12, m, max_lag_s=2.0)
    for s, x in zip(stamps, q):
        tr.update(s, x)
    assert not m.tripped and m.max_abs.max() < 0.02
    expected = delay_s if delay_s > 0 else 0.0     # the 10 ms controller lag is not a late start
    assert tr.lag_ns * 1e-9 == pytest.approx(expected, abs=0.011)
    # the plain comparison at the planned times is far over the limit for the late starts
    plain = R.TrackingMonitor(2, 0.05, consecutive=3)
    for s, x in zip(stamps, q):
        plain.update(x, move.evaluate((s - 10**12) * 1e-9)[0])
    assert (plain.max_abs.max() > 0.2) == (delay_s > 0.3)


def test_a_motion_never_started_trips_after_the_longest_lag():
    move = R.QuinticMove([0.0], [1.0], 1.0)
    m = R.TrackingMonitor(1, 0.05, consecutive=3)
    tr = R.LateStartTracker(move, 0, m, max_lag_s=0.5)
    t = np.arange(0, 3.0, 0.005)
    for s in t:
        tr.update(int(s * 1e9), [0.0])
        if m.tripped:
            break
    assert m.tripped and tr.lag_ns is None and tr.never_started(int(s * 1e9))
    assert 0.5 < s < 0.5 + 0.3     # the plan moves away within a few hundred ms of the limit


def _catch_up(motion, start_ns, lost_s, catch_up_s=0.04, dt_s=0.005, lag_s=0.01):
    """Stamps and measured poses of a driver of timed set points whose first ones were lost:
    the arm waits at the start pose for ``lost_s``, then catches up with the set points in
    ``catch_up_s`` and follows them ``lag_s`` behind."""
    t = np.arange(0.0, motion.duration_s, dt_s)
    q0 = motion.evaluate(0.0)[0]
    caught = motion.evaluate(lost_s + catch_up_s - lag_s)[0]
    q = [q0 if x < lost_s else
         q0 + min((x - lost_s) / catch_up_s, 1.0) * (caught - q0) if x < lost_s + catch_up_s
         else motion.evaluate(x - lag_s)[0] for x in t]
    return start_ns + (t * 1e9).astype(np.int64), np.array(q)


@pytest.mark.parametrize('shifts', [True, False])
def test_timed_set_points_started_late_are_caught_up_with_not_shifted(shifts):
    """Set points that keep their own times (a brics stream) whose first ones were lost: the arm
    leaves its start pose late, then catches up. Shifting the plan by that late departure (right
    for one timed command) trips the monitor; unshifted (``shifts`` False) it tracks."""
    move = R.Sequence([R.QuinticMove([0.0, 0.0], [0.0, 0.0], 0.5),
                       R.QuinticMove([0.0, 0.0], [0.8, -0.6], 1.0)])
    stamps, q = _catch_up(move, 10**12, lost_s=0.7)
    m = R.TrackingMonitor(2, 0.05, consecutive=3)
    tr = R.LateStartTracker(move, 10**12, m, max_lag_s=2.0, shifts=shifts)
    tripped = False
    for s, x in zip(stamps, q):
        tr.update(s, x)
        tripped = tripped or m.tripped
    left = stamps[np.argmax(np.max(np.abs(q - q[0]), axis=1) > R.monitors.DEPART_RAD)]
    assert tr.departure_delay_ns * 1e-9 == pytest.approx(
        (left - 10**12) * 1e-9 - tr.planned_departure_s, abs=1e-6)
    assert tr.lag_ns == (tr.departure_delay_ns if shifts else 0)
    assert tripped == shifts
    if not shifts:
        assert m.max_abs.max() < 0.04
