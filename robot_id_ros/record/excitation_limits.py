# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Bounds an excitation trajectory must respect, and their check on a dense grid."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.model.robot import RobotModel
from robot_id_ros.record.fourier import ExcitationError, FourierTrajectory

DEFAULT_ACCELERATION_PER_VELOCITY_S = 2.0   # default acc. limit = 2 /s x velocity limit
DENSE_SAMPLES_PER_HARMONIC = 100            # dense verification grid: 100 N points per period
CHECK_TOLERANCE = 1e-9                      # ratios up to 1 + this, clearances down to -this pass


@dataclass
class ExcitationLimits:
    """Bounds a trajectory must respect (already multiplied by the fractions).

    q_lower/q_upper: rad (+-inf for unlimited joints); qd_max: rad/s; qdd_max: rad/s^2;
    floor_z_m: lowest tool-frame height in the root frame (None: no floor).
    """

    q_lower: np.ndarray
    q_upper: np.ndarray
    qd_max: np.ndarray
    qdd_max: np.ndarray
    floor_z_m: float | None = None

    @classmethod
    def from_robot(cls, robot: RobotModel, position_fraction=0.8, velocity_fraction=0.7,
                   acceleration_fraction=0.7, acceleration_limits_rad_s2=None,
                   velocity_limits_rad_s=None, floor_z_m=0.0):
        """Build the fractions of the URDF's limits (or of given velocity / acceleration limits).

        Args:
            robot: the arm.
            position_fraction: share of each joint's range, centred in it, in (0, 1].
            velocity_fraction: share of the velocity limit, in (0, 1].
            acceleration_fraction: share of the acceleration limit, in (0, 1].
            acceleration_limits_rad_s2: per-joint (or one) acceleration limits, rad/s^2 (default
                ``DEFAULT_ACCELERATION_PER_VELOCITY_S`` x the velocity limit).
            velocity_limits_rad_s: per-joint (or one) velocity limits, rad/s (default: URDF).
            floor_z_m: lowest tool-frame height, m (None: no floor).

        Returns:
            ExcitationLimits.

        Raises:
            ExcitationError: a fraction outside (0, 1], an empty range, a missing or
                non-positive limit.
        """
        for name, f in (('position', position_fraction), ('velocity', velocity_fraction),
                        ('acceleration', acceleration_fraction)):
            if not (np.isfinite(f) and 0 < f <= 1):
                raise ExcitationError(f'{name} fraction must be in (0, 1], got {f}')
        lim = robot.limits
        lo, hi = lim.lower_rad, lim.upper_rad
        finite = np.isfinite(lo) & np.isfinite(hi)
        mid = 0.5 * (np.where(finite, lo, 0.0) + np.where(finite, hi, 0.0))   # 0: continuous
        half = np.where(finite, 0.5 * (hi - lo) * position_fraction, np.inf)
        bad = [robot.joint_names[i] for i in np.flatnonzero(finite & (hi - lo <= 0))]
        if bad:
            raise ExcitationError(f'joint(s) {", ".join(bad)} have an empty position range in the '
                                  f'URDF; leave them out with --joints')
        v = lim.velocity_rad_s if velocity_limits_rad_s is None else \
            per_joint(velocity_limits_rad_s, robot.n, 'velocity limits')
        v = np.asarray(v, dtype=float)
        bad = [robot.joint_names[i] for i in np.flatnonzero(~(np.isfinite(v) & (v > 0)))]
        if bad:
            src = ('the URDF velocity limit is 0 or missing' if velocity_limits_rad_s is None
                   else 'given as <= 0')
            raise ExcitationError(f'no usable velocity limit for joint(s) {", ".join(bad)} '
                                  f'({src}); give positive velocity limits (--velocity-limits)')
        if acceleration_limits_rad_s2 is None:
            acc = DEFAULT_ACCELERATION_PER_VELOCITY_S * v
        else:
            acc = per_joint(acceleration_limits_rad_s2, robot.n, 'acceleration limits')
            bad = [robot.joint_names[i] for i in np.flatnonzero(~(np.isfinite(acc) & (acc > 0)))]
            if bad:
                raise ExcitationError(f'acceleration limit of joint(s) {", ".join(bad)} must be '
                                      'positive')
        return cls(mid - half, mid + half, velocity_fraction * v, acceleration_fraction * acc,
                   None if floor_z_m is None else float(floor_z_m))

    def to_dict(self):
        """Plain dict of the bounds (for the trajectory file's ``design``)."""
        return {'q_lower_rad': self.q_lower.tolist(), 'q_upper_rad': self.q_upper.tolist(),
                'qd_max_rad_s': self.qd_max.tolist(), 'qdd_max_rad_s2': self.qdd_max.tolist(),
                'floor_z_m': self.floor_z_m}


def per_joint(v, n, what):
    """Return ``v`` as n per-joint values (one value is repeated).

    Raises ExcitationError naming ``what`` when it has neither 1 nor n values.
    """
    a = np.asarray(v, dtype=float).reshape(-1)
    if a.size == 1:
        a = np.full(n, a.item())
    if a.shape != (n,):
        raise ExcitationError(f'{what}: expected 1 or {n} values, got {a.size}')
    return a


def tool_heights(robot: RobotModel, Q):
    """Z (root frame, m) of the tool frame origin at each row of Q (rad)."""
    import pinocchio as pin

    z = np.empty(len(Q))
    for k, q in enumerate(Q):
        pin.framesForwardKinematics(robot.model, robot.data, robot.q_pin(q))
        z[k] = robot.data.oMf[robot.tool_frame_id].translation[2]
    return z


def constraint_report(robot: RobotModel, traj: FourierTrajectory, limits: ExcitationLimits,
                      samples=None):
    """Worst use of each limit over a dense grid of one period.

    Args:
        robot: the arm.
        traj: the trajectory.
        limits: the bounds.
        samples: grid points per period (default ``DENSE_SAMPLES_PER_HARMONIC`` x N + 1).

    Returns:
        dict of ratios (<= 1 means satisfied): position_ratio (excursion / allowed half-band,
        about the band centre), velocity_ratio, acceleration_ratio; floor_clearance_m (min tool
        z - floor, m; >= 0 satisfied; None without a floor); ok; samples.
    """
    if samples is None:
        samples = DENSE_SAMPLES_PER_HARMONIC * traj.harmonics + 1
    t = np.linspace(0.0, traj.period_s, int(samples), endpoint=False)
    q, qd, qdd = traj.evaluate(t)
    return _report(robot, q, qd, qdd, limits) | {'samples': int(samples)}


def _report(robot, q, qd, qdd, limits):
    mid = 0.5 * (limits.q_lower + limits.q_upper)
    half = 0.5 * (limits.q_upper - limits.q_lower)
    fin = np.isfinite(half)
    pos = float(np.max(np.abs(q[:, fin] - mid[fin]) / half[fin])) if fin.any() else 0.0
    vel = float(np.max(np.abs(qd) / limits.qd_max))
    acc = float(np.max(np.abs(qdd) / limits.qdd_max))
    clearance = None
    if limits.floor_z_m is not None:
        clearance = float(np.min(tool_heights(robot, q)) - limits.floor_z_m)
    tol = CHECK_TOLERANCE
    ok = pos <= 1 + tol and vel <= 1 + tol and acc <= 1 + tol \
        and (clearance is None or clearance >= -tol)
    return {'position_ratio': pos, 'velocity_ratio': vel, 'acceleration_ratio': acc,
            'floor_clearance_m': clearance, 'ok': bool(ok)}
