# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Driver statistics while recording.

``timing_stats`` (rate, jitter, gaps), ``TrackingMonitor`` (position tracking error with a
trip limit) and ``LateStartTracker`` (tracking of a motion the driver may start late).
"""
from __future__ import annotations

import numpy as np

MIN_STAMPS_FOR_TIMING = 3         # timing_stats reports NaN rates for fewer stamps
DEPART_RAD = 0.01                 # the arm left its start pose: some joint moved this far
LATE_START_MIN_S = 0.05           # a departure later than planned by less is the drives' lag
PLAN_SCAN_STEP_S = 2e-3           # time step of the search for the planned departure


def timing_stats(stamp_ns, gap_factor=3.0):
    """Rate, jitter and gaps of message stamps.

    Args:
        stamp_ns: message stamps, ns.
        gap_factor: an interval longer than this times the median interval is a gap.

    Returns:
        dict with messages, rate_hz, dt_median_s, jitter_std_s, dt_max_s, gaps (count of
        intervals > gap_factor * median), gap_total_s, non_increasing.
    """
    t = np.asarray(stamp_ns, dtype=np.int64)
    out = {'messages': int(len(t))}
    if len(t) < MIN_STAMPS_FOR_TIMING:
        out.update(rate_hz=float('nan'), dt_median_s=float('nan'), jitter_std_s=float('nan'),
                   dt_max_s=float('nan'), gaps=0, gap_total_s=0.0, non_increasing=0)
        return out
    dt = np.diff(t) * 1e-9
    med = float(np.median(dt))
    gaps = dt > gap_factor * med
    out.update(rate_hz=float(1.0 / med) if med > 0 else float('inf'), dt_median_s=med,
               jitter_std_s=float(np.std(dt)), dt_max_s=float(dt.max()), gaps=int(gaps.sum()),
               gap_total_s=float(dt[gaps].sum()), non_increasing=int(np.sum(dt <= 0)))
    return out


class TrackingMonitor:
    """Position tracking error per joint, with a trip limit.

    |q_measured - q_desired| per joint: RMS, max, and a limit check that trips after
    ``consecutive`` samples above the limit.

    Args:
        n: number of joints.
        limit_rad: largest tracking error tolerated, rad.
        consecutive: samples in a row above the limit that trip the monitor.
    """

    def __init__(self, n, limit_rad, consecutive=3):
        self.limit = float(limit_rad)
        self.consecutive = int(consecutive)
        self.sum_sq = np.zeros(n)
        self.max_abs = np.zeros(n)
        self.count = 0
        self._over = 0

    def update(self, q_meas, q_des):
        """Feed one sample (measured and desired positions, rad); returns |error| per joint."""
        e = np.abs(np.asarray(q_meas, float) - np.asarray(q_des, float))
        self.sum_sq += e ** 2
        self.max_abs = np.maximum(self.max_abs, e)
        self.count += 1
        self._over = self._over + 1 if np.max(e) > self.limit else 0
        return e

    @property
    def tripped(self):
        """True once ``consecutive`` samples in a row were above the limit."""
        return self._over >= self.consecutive

    @property
    def rms(self):
        """RMS tracking error per joint, rad."""
        return np.sqrt(self.sum_sq / max(self.count, 1))

    def report(self):
        """Return a dict with samples, rms_rad, max_rad, limit_rad."""
        return {'samples': self.count, 'rms_rad': self.rms.tolist(),
                'max_rad': self.max_abs.tolist(), 'limit_rad': self.limit}


class LateStartTracker:
    """Tracking of a planned motion that the driver may start late.

    A command can reach a driver after the start time it names (a loaded machine, a slow
    network): a driver then starts it late, from the start pose. Comparing the measured pose with
    the plan at the planned times would see a growing error and stop the arm although it follows
    the motion exactly, only later. So the start is measured: the arm waits at the start pose
    (compared with that pose) until it leaves it by ``DEPART_RAD``; the delay between that and the
    plan's own departure, when over ``LATE_START_MIN_S``, is the start lag, and from then on the
    plan is compared at ``t - lag``. An arm that has not left the pose ``max_lag_s`` after the
    planned departure is compared with the plan (which trips the monitor: the command is lost).

    Only a motion sent as one timed command starts late as a whole. Set points that each keep
    their own time (a stream of timestamped positions) are followed at those times once they
    arrive: after a late first one the arm catches up, so with ``shifts`` False the late
    departure is only measured (``departure_delay_ns``) and the plan is compared unshifted.

    Args:
        motion: the planned motion (``evaluate(t)`` gives ``(q, qd, qdd)``; ``duration_s``).
        start_ns: its planned start, ns (driver time); None: set ``start_ns`` before the first
            ``update`` (the tracker can be made before the motion is sent).
        monitor: the ``TrackingMonitor`` fed with each sample.
        max_lag_s: longest start lag taken as a late start, s.
        shifts: a late start delays the whole motion (True), or only its first set points.
    """

    def __init__(self, motion, start_ns, monitor, max_lag_s, shifts=True):
        self.motion, self.monitor = motion, monitor
        self.start_ns = None if start_ns is None else int(start_ns)
        self.max_lag_s = float(max_lag_s)
        self.shifts = bool(shifts)
        self.q0 = np.asarray(motion.evaluate(0.0)[0], float)
        self.planned_departure_s = None
        for k in range(int(motion.duration_s / PLAN_SCAN_STEP_S) + 2):   # until it moves
            if np.max(np.abs(motion.evaluate(k * PLAN_SCAN_STEP_S)[0] - self.q0)) > DEPART_RAD:
                self.planned_departure_s = k * PLAN_SCAN_STEP_S
                break
        # a motion that never moves has no lag to measure
        self.lag_ns = None if self.planned_departure_s is not None else 0
        self.departure_delay_ns = self.lag_ns     # the arm's departure after the plan's, ns

    def update(self, stamp_ns, q):
        """Feed one measured pose (rad) at ``stamp_ns``.

        Returns:
            ``(error_rad, planned_q)``: |measured - reference| per joint and the reference (the
            start pose while waiting for a late start, else the plan at ``t - lag``).
        """
        q = np.asarray(q, float)
        t = (int(stamp_ns) - self.start_ns) * 1e-9
        if self.lag_ns is None:
            if np.max(np.abs(q - self.q0)) > DEPART_RAD:
                lag_s = t - self.planned_departure_s
                self.departure_delay_ns = int(lag_s * 1e9) if lag_s > LATE_START_MIN_S else 0
                self.lag_ns = self.departure_delay_ns if self.shifts else 0
            elif t <= self.planned_departure_s + self.max_lag_s:
                # still at the start pose: on time (the plan fits) or late (the pose fits)
                planned = self.motion.evaluate(t)[0]
                ref = (planned if np.max(np.abs(q - planned)) <= np.max(np.abs(q - self.q0))
                       else self.q0)
                return self.monitor.update(q, ref), ref
        planned = self.motion.evaluate(t - (self.lag_ns or 0) * 1e-9)[0]
        return self.monitor.update(q, planned), planned

    def never_started(self, stamp_ns):
        """Tell whether at ``stamp_ns`` the arm is still at its start pose after the max lag."""
        t = (int(stamp_ns) - self.start_ns) * 1e-9
        return self.lag_ns is None and t > self.planned_departure_s + self.max_lag_s
