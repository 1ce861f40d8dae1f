# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Joint trajectories for the simulated drives: validation of commands and set-point interpolation.

A command is what a ``trajectory_msgs/msg/JointTrajectory`` carries: joint names (any subset of
the arm's joints, any order) and points with ``time_from_start``, positions and optionally
velocities (and accelerations, checked but not used).  Like ros2_control's
joint_trajectory_controller:

- the new trajectory replaces the running one; it starts from the current set point;
- joints the command does not name hold their current set point;
- points with positions only are interpolated linearly, points with velocities by cubic Hermite
  splines; after the last point the set point holds the last position.

``validate_command`` rejects, with a message that names the problem: no joints, unknown or
repeated joints, no points, length mismatches, NaN/inf, non-increasing or negative times,
positions outside the joint limits and velocities above the velocity limits.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np
from robot_id_ros.errors import InputError


class TrajectoryError(InputError):
    """A trajectory command that is rejected; the message says why."""


@dataclass
class TrajectoryCommand:
    """A validated command in the model's joint indexing."""

    joint_indices: np.ndarray        # (m,) index of each commanded joint in model order
    times_s: np.ndarray              # (k,) strictly increasing, >= 0
    positions_rad: np.ndarray        # (k, m)
    velocities_rad_s: np.ndarray | None  # (k, m) or None when no point has velocities


def validate_command(joint_names, points, model_joint_names, lower_rad, upper_rad,
                     velocity_limit_rad_s=None, limit_tolerance_rad=1e-9):
    """Check a trajectory command; return a ``TrajectoryCommand`` or raise ``TrajectoryError``.

    points: sequence of (time_from_start_s, positions, velocities, accelerations); velocities and
    accelerations may be empty sequences.
    """
    names = [str(n) for n in joint_names]
    if not names:
        raise TrajectoryError('trajectory names no joints')
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise TrajectoryError(f'trajectory names joint(s) more than once: {", ".join(dup)}')
    model_joint_names = list(model_joint_names)
    unknown = [n for n in names if n not in model_joint_names]
    if unknown:
        raise TrajectoryError(f'unknown joint(s) {", ".join(unknown)}; this arm has '
                              f'{", ".join(model_joint_names)}')
    idx = np.array([model_joint_names.index(n) for n in names], dtype=int)
    if len(points) == 0:
        raise TrajectoryError('trajectory has no points')
    m = len(names)
    times, pos, vel = [], [], []
    any_vel = any(len(p[2]) > 0 for p in points)
    for k, (t, p, v, a) in enumerate(points):
        t = float(t)
        if not np.isfinite(t):
            raise TrajectoryError(f'point {k}: time_from_start is not finite')
        if len(p) != m:
            raise TrajectoryError(f'point {k}: {len(p)} positions for {m} joint names')
        if len(v) not in (0, m):
            raise TrajectoryError(
                f'point {k}: {len(v)} velocities for {m} joint names (give none or {m})')
        if len(a) not in (0, m):
            raise TrajectoryError(
                f'point {k}: {len(a)} accelerations for {m} joint names (give none or {m})')
        if any_vel and len(v) == 0:
            raise TrajectoryError(f'point {k} has no velocities while other points have them '
                                  '(give velocities on every point or on none)')
        p = np.asarray(p, dtype=float)
        v = np.asarray(v, dtype=float)
        a = np.asarray(a, dtype=float)
        for label, arr in (('position', p), ('velocity', v), ('acceleration', a)):
            bad = np.flatnonzero(~np.isfinite(arr))
            if bad.size:
                raise TrajectoryError(
                    f'point {k}: {label} of {names[bad[0]]} is {arr[bad[0]]} (not finite)')
        if k == 0 and t < 0:
            raise TrajectoryError(f'point 0: time_from_start {t:.6g} s is negative')
        if k > 0 and not t > times[-1]:
            raise TrajectoryError(
                f'point {k}: time_from_start {t:.6g} s is not after point {k - 1} '
                f'({times[-1]:.6g} s); times must increase strictly')
        lo = np.asarray(lower_rad)[idx] - limit_tolerance_rad
        hi = np.asarray(upper_rad)[idx] + limit_tolerance_rad
        out = np.flatnonzero((p < lo) | (p > hi))
        if out.size:
            j = out[0]
            raise TrajectoryError(
                f'point {k}: {names[j]} position {p[j]:.6g} rad is outside its limits '
                f'[{lo[j] + limit_tolerance_rad:.6g}, {hi[j] - limit_tolerance_rad:.6g}] rad')
        if velocity_limit_rad_s is not None and v.size:
            vl = np.asarray(velocity_limit_rad_s)[idx]
            over = np.flatnonzero(np.abs(v) > vl * (1 + 1e-9))
            if over.size:
                j = over[0]
                raise TrajectoryError(
                    f'point {k}: {names[j]} velocity {v[j]:.6g} rad/s exceeds its limit '
                    f'{vl[j]:.6g} rad/s')
        times.append(t)
        pos.append(p)
        vel.append(v)
    return TrajectoryCommand(idx, np.array(times), np.array(pos),
                             np.array(vel) if any_vel else None)


class TrajectoryPlan:
    """Set points q_d(t), qd_d(t) of all n joints for a command that starts at ``t_start``."""

    def __init__(self, command: TrajectoryCommand, t_start_s, q_set_rad, qd_set_rad_s,
                 lower_rad, upper_rad):
        n = len(q_set_rad)
        k = len(command.times_s)
        self.t_start = float(t_start_s)
        q0 = np.array(q_set_rad, dtype=float)
        # knot 0 is the current set point at t = 0 (unless the first point is itself at t = 0)
        first_at_zero = command.times_s[0] <= 0.0
        nk = k if first_at_zero else k + 1
        T = np.zeros(nk)
        P = np.tile(q0, (nk, 1))
        V = np.zeros((nk, n))
        off = 0 if first_at_zero else 1
        T[off:] = command.times_s
        P[off:, command.joint_indices] = command.positions_rad
        self.hermite = command.velocities_rad_s is not None
        if self.hermite:
            V[off:, command.joint_indices] = command.velocities_rad_s
            if not first_at_zero:
                V[0] = np.asarray(qd_set_rad_s, dtype=float)
                # joints not commanded hold: no velocity carried over
                held = np.ones(n, bool)
                held[command.joint_indices] = False
                V[0, held] = 0.0
        self.T, self.P, self.V = T, P, V
        self.lower = np.asarray(lower_rad, dtype=float)
        self.upper = np.asarray(upper_rad, dtype=float)
        self.duration_s = float(T[-1])
        self._seg = 0
        self._zero_l = [0.0] * n
        # the same as lists of floats for sample_values
        self._T, self._P, self._V = T.tolist(), P.tolist(), V.tolist()
        self._lower_l, self._upper_l = self.lower.tolist(), self.upper.tolist()
        self.joint_indices = command.joint_indices

    @property
    def end_time(self):
        return self.t_start + self.duration_s

    def sample(self, t_s):
        """(q_d, qd_d) at absolute time t_s (clamped to the joint limits), as arrays."""
        q, qd = self.sample_values(t_s)
        return np.array(q), np.array(qd)

    def sample_values(self, t_s):
        """Return ``sample(t_s)`` as two lists of floats (what the simulator's step uses).

        Args:
            t_s: absolute sim time [s].

        Returns:
            (q_d [rad], qd_d [rad/s]), n floats each.
        """
        tau = t_s - self.t_start
        T = self._T
        if tau <= T[0]:
            return list(self._P[0]), list(self._V[0] if self.hermite else self._zero_l)
        if tau >= T[-1]:
            return list(self._P[-1]), list(self._zero_l)
        s = self._seg
        if not (T[s] <= tau < T[s + 1]):
            s = bisect.bisect_right(T, tau) - 1
            self._seg = s
        h = T[s + 1] - T[s]
        u = (tau - T[s]) / h
        p0, p1 = self._P[s], self._P[s + 1]
        # the same operation order per joint as the array expressions of the Hermite basis
        if not self.hermite:
            qd = [(b - a) / h for a, b in zip(p0, p1)]
            q = [a + u * (b - a) for a, b in zip(p0, p1)]
        else:
            u2, u3 = u * u, u * u * u
            c00, c10, c01, c11 = (2 * u3 - 3 * u2 + 1), (u3 - 2 * u2 + u), (-2 * u3 + 3 * u2), (
                u3 - u2)
            d00, d10, d01, d11 = (6 * u2 - 6 * u), (3 * u2 - 4 * u + 1), (-6 * u2 + 6 * u), (
                3 * u2 - 2 * u)
            m0 = [v * h for v in self._V[s]]
            m1 = [v * h for v in self._V[s + 1]]
            q = [c00 * a + c10 * ma + c01 * b + c11 * mb for a, ma, b, mb in zip(p0, m0, p1, m1)]
            qd = [(d00 * a + d10 * ma + d01 * b + d11 * mb) / h
                  for a, ma, b, mb in zip(p0, m0, p1, m1)]
        return [lo if x < lo else (hi if x > hi else x)
                for x, lo, hi in zip(q, self._lower_l, self._upper_l)], qd
