# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Planned joint motions and their sampling for a JointTrajectory command.

* ``plan_point_to_point``: quintic time scaling, synchronised joints, duration chosen so velocity
  and acceleration stay within limits (``QuinticMove``).
* ``plan_transition``: quintic between two full states, for ramping into and out of an
  excitation (``QuinticTransition``).
* ``plan_approach``: overshoot waypoint so a pose is reached moving in a chosen direction.
* ``sample_for_command``: points for a JointTrajectory message.
"""
from __future__ import annotations

import math

import numpy as np

from robot_id_ros.io.parted_bag import RecordingError
from robot_id_ros.record.safety import SafetyLimits

# quintic 10s^3 - 15s^4 + 6s^5: peak ds/dtau = 15/8, peak d2s/dtau2 = 10/sqrt(3)
_QV, _QA = 15.0 / 8.0, 10.0 / math.sqrt(3.0)
APPROACH_MIN_MOVE_RAD = 1e-6      # a joint the approach moves less than this has no direction
TRANSITION_LIMIT_TOLERANCE = 1.0001  # sampled peaks may exceed a limit by this factor (sampling)
TRANSITION_POSITION_TOLERANCE_RAD = 1e-9
TRANSITION_DURATION_STEP = 1.1    # plan_transition lengthens the transition by 10 % per try
TRANSITION_MAX_SAMPLE_S = 0.02    # peaks sampled every min(this, duration / TRANSITION_SAMPLES)
TRANSITION_SAMPLES = 200


class Motion:
    """A planned joint motion.

    ``evaluate(t)`` -> (q, qd, qdd) in rad, rad/s, rad/s^2 for 0 <= t <= duration_s (held after).
    """

    duration_s: float

    def evaluate(self, t):  # pragma: no cover - interface
        raise NotImplementedError


class QuinticMove(Motion):
    """Straight line in joint space from q0 to q1 with quintic time scaling (rest to rest)."""

    def __init__(self, q0, q1, duration_s):
        self.q0 = np.asarray(q0, float)
        self.q1 = np.asarray(q1, float)
        self.duration_s = float(duration_s)

    def evaluate(self, t):
        """(q, qd, qdd) at ``t`` s after the start."""
        T = self.duration_s
        d = self.q1 - self.q0
        if T <= 0:
            return self.q1.copy(), np.zeros_like(d), np.zeros_like(d)
        s = min(max(t / T, 0.0), 1.0)
        p = 10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5
        v = (30 * s ** 2 - 60 * s ** 3 + 30 * s ** 4) / T
        a = (60 * s - 180 * s ** 2 + 120 * s ** 3) / T ** 2
        return self.q0 + p * d, v * d, a * d


def point_to_point_duration(q0, q1, max_velocity, max_acceleration, min_duration_s=0.0):
    """Shortest duration (s) of a ``QuinticMove`` from q0 to q1 within the limits.

    Args:
        q0: start, rad.
        q1: end, rad.
        max_velocity: per-joint (or one) velocity limit, rad/s.
        max_acceleration: per-joint (or one) acceleration limit, rad/s^2.
        min_duration_s: lower bound of the result, s.

    Returns:
        The duration in s.
    """
    d = np.abs(np.asarray(q1, float) - np.asarray(q0, float))
    tv = _QV * d / max_velocity
    ta = np.sqrt(_QA * d / max_acceleration)
    return float(max(min_duration_s, np.max(tv), np.max(ta)))


def plan_point_to_point(q0, q1, limits: SafetyLimits, min_duration_s=0.0):
    """Return the fastest ``QuinticMove`` from q0 to q1 (rad) within ``limits``.

    The move is at least ``min_duration_s`` long.
    """
    v, a = limits.per_joint(len(np.atleast_1d(q0)))
    return QuinticMove(q0, q1, point_to_point_duration(q0, q1, v, a, min_duration_s))


class Sequence(Motion):
    """Motions one after the other."""

    def __init__(self, parts):
        self.parts = list(parts)
        self.starts = np.cumsum([0.0] + [p.duration_s for p in self.parts])
        self.duration_s = float(self.starts[-1])

    def evaluate(self, t):
        """(q, qd, qdd) at ``t`` s after the start of the first part."""
        k = int(np.clip(np.searchsorted(self.starts, t, side='right') - 1, 0, len(self.parts) - 1))
        return self.parts[k].evaluate(t - self.starts[k])


def plan_approach(q_from, q_to, direction, overshoot_rad, limits: SafetyLimits, lower, upper,
                  settle_s=0.0):
    """Move to ``q_to`` arriving with every joint moving in ``direction``.

    First to the waypoint q_to - direction * overshoot (clipped to [lower, upper]), then to q_to.

    Args:
        q_from: start, rad.
        q_to: target, rad.
        direction: +1 or -1.
        overshoot_rad: distance of the waypoint from the target, rad.
        limits: velocity and acceleration limits.
        lower: (n,) lower position bounds, rad.
        upper: (n,) upper position bounds, rad.
        settle_s: pause at the waypoint, s.

    Returns:
        (Motion, per-joint approach sign actually achieved: +-1, or 0 where the limit left no
        room).
    """
    q_to = np.asarray(q_to, float)
    via = np.clip(q_to - direction * overshoot_rad, lower, upper)
    moved = q_to - via
    signs = np.where(np.abs(moved) > APPROACH_MIN_MOVE_RAD, np.sign(moved), 0.0).astype(int)
    first = plan_point_to_point(q_from, via, limits)
    second = plan_point_to_point(via, q_to, limits)
    parts = [first, second]
    if settle_s > 0:
        parts.insert(1, QuinticMove(via, via, settle_s))
    return Sequence(parts), signs


class QuinticTransition(Motion):
    """Quintic polynomial per joint between two full states (q, qd, qdd) over ``duration_s``."""

    def __init__(self, start, end, duration_s):
        self.duration_s = T = float(duration_s)
        q0, v0, a0 = (np.asarray(x, float) for x in start)
        q1, v1, a1 = (np.asarray(x, float) for x in end)
        M = np.array([[T ** 3, T ** 4, T ** 5], [3 * T ** 2, 4 * T ** 3, 5 * T ** 4],
                      [6 * T, 12 * T ** 2, 20 * T ** 3]])
        rhs = np.stack([q1 - q0 - v0 * T - 0.5 * a0 * T ** 2, v1 - v0 - a0 * T, a1 - a0])
        c345 = np.linalg.solve(M, rhs)
        self.c = np.stack([q0, v0, 0.5 * a0, *c345])  # (6, n)

    def evaluate(self, t):
        """(q, qd, qdd) at ``t`` s after the start."""
        t = min(max(t, 0.0), self.duration_s)
        c = self.c
        q = sum(c[k] * t ** k for k in range(6))
        qd = sum(k * c[k] * t ** (k - 1) for k in range(1, 6))
        qdd = sum(k * (k - 1) * c[k] * t ** (k - 2) for k in range(2, 6))
        return q, qd, qdd


def motion_peaks(motion: Motion, dt=0.01):
    """(max |qd|, max |qdd|, min q, max q) per joint over the motion, sampled every ``dt`` s."""
    ts = np.arange(0.0, motion.duration_s + dt, dt)
    S = [motion.evaluate(t) for t in ts]
    Q = np.array([s[0] for s in S])
    V = np.array([s[1] for s in S])
    A = np.array([s[2] for s in S])
    return np.max(np.abs(V), 0), np.max(np.abs(A), 0), Q.min(0), Q.max(0)


def plan_transition(start, end, limits: SafetyLimits, lower, upper, min_duration_s=0.5,
                    max_duration_s=120.0):
    """Return the shortest ``QuinticTransition`` (in steps of 10 %) within the limits.

    Args:
        start: (q, qd, qdd) at the start, rad, rad/s, rad/s^2.
        end: (q, qd, qdd) at the end.
        limits: velocity and acceleration limits.
        lower: (n,) lower position bounds, rad.
        upper: (n,) upper position bounds, rad.
        min_duration_s: shortest transition considered, s.
        max_duration_s: longest transition considered, s.

    Returns:
        The QuinticTransition.

    Raises:
        RecordingError: when none up to ``max_duration_s`` stays within the velocity,
            acceleration and position limits.
    """
    n = len(np.atleast_1d(start[0]))
    v, a = limits.per_joint(n)
    T = max(min_duration_s, point_to_point_duration(start[0], end[0], v, a))
    tol, qtol = TRANSITION_LIMIT_TOLERANCE, TRANSITION_POSITION_TOLERANCE_RAD
    while T <= max_duration_s:
        m = QuinticTransition(start, end, T)
        dt = min(TRANSITION_MAX_SAMPLE_S, T / TRANSITION_SAMPLES)
        vp, ap, qmin, qmax = motion_peaks(m, dt=dt)
        if np.all(vp <= v * tol) and np.all(ap <= a * tol) and np.all(qmin >= lower - qtol) \
                and np.all(qmax <= upper + qtol):
            return m
        T *= TRANSITION_DURATION_STEP
    raise RecordingError('no smooth transition within the velocity/acceleration/position '
                         f'limits up to {max_duration_s:.0f} s: the excitation starts or ends too '
                         'fast or too close to a limit')


def sample_for_command(motion: Motion, t0_s, t1_s, dt_s):
    """Points of ``motion`` for a JointTrajectory command.

    Args:
        motion: the motion.
        t0_s: first time, s (motion time).
        t1_s: last time, s (always included).
        dt_s: sample spacing, s.

    Returns:
        (times relative to t0 in s, positions rad, velocities rad/s), sampled on [t0, t1].
    """
    ts = np.arange(t0_s, t1_s, dt_s)
    if len(ts) == 0 or ts[-1] < t1_s - 1e-9:
        ts = np.append(ts, t1_s)
    S = [motion.evaluate(t) for t in ts]
    return ts - t0_s, np.array([s[0] for s in S]), np.array([s[1] for s in S])
