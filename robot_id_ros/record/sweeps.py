# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction sweeps: constant-velocity passes of one joint and their forward/backward pairing.

* ``plan_friction_sweep``: constant-velocity passes of one joint, symmetric about the angle where
  its gravity torque is extreme or zero, forward and back at each speed.
* ``pair_sweep_passes``: forward/backward pairing: half difference = friction, gravity cancels.
* ``fit_coulomb_viscous``: Coulomb and viscous coefficients over the speeds.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.record.motions import Motion
from robot_id_ros.record.poses import PoseError
from robot_id_ros.record.safety import SafetyLimits

GRAVITY_ACTS_MIN_NM = 1e-4        # below this everywhere in the range, gravity does not act
AUTO_ZERO_MIN_GAIN = 1.25         # 'auto' centres on the zero only for a sweep this much longer


def gravity_center(robot: RobotModel, q_config, joint, lower, upper, mode='extreme', grid=721):
    """Return the angle of ``joint`` where its gravity torque is extreme or zero.

    Angle of ``joint`` (others at q_config) within [lower, upper] where its gravity torque is
    extreme (the interior local extreme with the largest |g|) or zero (the crossing closest to
    the middle of the range). Where gravity does not act on the joint, the middle of the range.

    Args:
        robot: the arm.
        q_config: (n,) held configuration, rad.
        joint: index of the swept joint.
        lower: lower end of the range, rad.
        upper: upper end of the range, rad.
        mode: 'extreme' or 'zero'.
        grid: number of angles the torque is evaluated at.

    Returns:
        (angle rad, gravity torque there Nm).

    Raises:
        PoseError: no extreme (or zero) inside the range in this configuration.
        InputError: an unknown mode.
    """
    qs = np.linspace(lower, upper, grid)
    g = np.empty(grid)
    q = np.asarray(q_config, float).copy()
    for k, v in enumerate(qs):
        q[joint] = v
        g[k] = robot.gravity_torque(q)[joint]
    mid = 0.5 * (lower + upper)
    if np.max(np.abs(g)) < GRAVITY_ACTS_MIN_NM:  # gravity does not act on this joint here
        return mid, float(g[grid // 2])
    if mode == 'extreme':
        q[joint] = _extreme_angle(robot, joint, qs, g, lower, upper)
        return q[joint], float(robot.gravity_torque(q)[joint])
    if mode != 'zero':
        raise InputError(f"sweep center mode must be 'extreme', 'zero' or 'auto', got {mode!r}",
                         'sweep_center_mode')
    z = _zero_angle(robot, joint, qs, g, lower, upper)
    q[joint] = z
    return z, float(robot.gravity_torque(q)[joint])


def _extreme_angle(robot, joint, qs, g, lower, upper):
    """Interior local extreme of g on the grid qs with the largest |g|, refined by a parabola."""
    # interior local extrema of g (dg/dq changes sign)
    dg = np.diff(g)
    ext = np.flatnonzero(np.sign(dg[:-1]) * np.sign(dg[1:]) < 0) + 1
    if len(ext) == 0:
        raise PoseError(f'gravity torque of {robot.joint_names[joint]} has no extreme inside '
                        f'[{lower:.3f}, {upper:.3f}] rad in this configuration; use sweep center '
                        '"zero" or change the held configuration')
    k = int(ext[np.argmax(np.abs(g[ext]))])
    # parabolic refinement through the three grid points around the extreme
    den = g[k - 1] - 2 * g[k] + g[k + 1]
    off = 0.5 * (g[k - 1] - g[k + 1]) / den if den != 0 else 0.0
    return float(qs[k] + np.clip(off, -1, 1) * (qs[1] - qs[0]))


def _zero_angle(robot, joint, qs, g, lower, upper):
    """Zero crossing of g on the grid qs nearest the middle, by linear interpolation."""
    crossings = np.flatnonzero(np.sign(g[:-1]) * np.sign(g[1:]) <= 0)
    if len(crossings) == 0:
        raise PoseError(f'gravity torque of {robot.joint_names[joint]} has no zero within '
                        f'[{lower:.3f}, {upper:.3f}] rad in this configuration; use sweep center '
                        '"extreme" or change the held configuration')
    zs = []
    for c in crossings:
        g0, g1 = g[c], g[c + 1]
        zs.append(qs[c] if g1 == g0 else qs[c] - g0 * (qs[c + 1] - qs[c]) / (g1 - g0))
    zs = np.array(zs)
    return float(zs[np.argmin(np.abs(zs - 0.5 * (lower + upper)))])


class ConstantVelocityPass(Motion):
    """One joint from a to b: accelerate at ``accel`` to ``speed``, cruise, decelerate (trapezoid).

    ``cruise`` = (t_start, t_end) of the constant-velocity part, s.

    Args:
        q_config: (n,) configuration of the other joints, rad.
        joint: index of the moving joint.
        a: start angle, rad.
        b: end angle, rad.
        speed: cruise speed, rad/s.
        accel: acceleration, rad/s^2.
    """

    def __init__(self, q_config, joint, a, b, speed, accel):
        self.q = np.asarray(q_config, float).copy()
        self.j, self.a, self.b = joint, float(a), float(b)
        self.dir = 1.0 if b >= a else -1.0
        dist = abs(b - a)
        ta = speed / accel
        if accel * ta ** 2 > dist:  # never reaches the speed
            raise PoseError(f'sweep of {dist:.3f} rad is too short to reach {speed:.3f} rad/s at '
                            f'{accel:.3f} rad/s^2 (needs {speed ** 2 / accel:.3f} rad)')
        self.speed, self.accel, self.ta = float(speed), float(accel), ta
        tc = (dist - accel * ta ** 2) / speed
        self.tc = tc
        self.duration_s = 2 * ta + tc
        self.cruise = (ta, ta + tc)

    def evaluate(self, t):
        """(q, qd, qdd) at ``t`` s after the start."""
        t = min(max(t, 0.0), self.duration_s)
        ta, tc, v, acc = self.ta, self.tc, self.speed, self.accel
        if t < ta:
            s, sd, sdd = 0.5 * acc * t ** 2, acc * t, acc
        elif t < ta + tc:
            s, sd, sdd = 0.5 * acc * ta ** 2 + v * (t - ta), v, 0.0
        else:
            r = self.duration_s - t
            s, sd, sdd = abs(self.b - self.a) - 0.5 * acc * r ** 2, acc * r, -acc
        q = self.q.copy()
        qd = np.zeros_like(q)
        qdd = np.zeros_like(q)
        q[self.j] = self.a + self.dir * s
        qd[self.j] = self.dir * sd
        qdd[self.j] = self.dir * sdd
        return q, qd, qdd


@dataclass
class SweepPass:
    """One constant-velocity pass of a sweep (direction +1 forward, -1 backward)."""

    joint: int
    joint_name: str
    speed_index: int
    speed_rad_s: float
    direction: int
    motion: ConstantVelocityPass


@dataclass
class SweepPlan:
    """The passes of one joint's friction sweep about ``center_rad`` (+- ``amplitude_rad``)."""

    joint: int
    joint_name: str
    center_rad: float
    gravity_at_center_nm: float
    amplitude_rad: float
    configuration: np.ndarray       # held configuration with the joint at the start extreme
    passes: list = field(default_factory=list)
    center_mode: str = 'extreme'

    @property
    def duration_s(self):
        """Total duration of the passes, s."""
        return sum(p.motion.duration_s for p in self.passes)


def plan_friction_sweep(robot: RobotModel, q_config, joint, speeds, amplitude_rad,
                        limits: SafetyLimits, center_mode='extreme',
                        min_amplitude_rad=0.1) -> SweepPlan:
    """Plan the constant-velocity passes of a friction sweep of ``joint``.

    Centre c where gravity is extreme/zero, range c +- a (a = amplitude, reduced to fit the limits
    with margin), forward then backward at each speed (sorted ascending).

    Args:
        robot: the arm.
        q_config: (n,) configuration the other joints hold, rad.
        joint: index of the swept joint.
        speeds: pass speeds, rad/s.
        amplitude_rad: half range of the sweep, rad (reduced to fit the limits).
        limits: safety limits (margin, velocity, acceleration).
        center_mode: 'extreme', 'zero' or 'auto' (the extreme unless the zero allows a clearly
            longer sweep).
        min_amplitude_rad: shortest half range accepted, rad.

    Returns:
        SweepPlan.

    Raises:
        PoseError: speeds above the velocity limit, a held configuration outside the limits, no
            usable centre or too short a range.
    """
    lower, upper = limits.bounds(robot)
    vmax, amax = limits.per_joint(robot.n)
    speeds = [float(s) for s in speeds]
    if not speeds or any(not s > 0 for s in speeds):
        raise PoseError(f'sweep speeds must be a non-empty list of positive values, got {speeds}')
    if max(speeds) > vmax[joint]:
        raise PoseError(f'sweep speed {max(speeds):.3f} rad/s of {robot.joint_names[joint]} '
                        f'exceeds the velocity limit {vmax[joint]:.3f} rad/s')
    q_config = np.asarray(q_config, float).copy()
    others = [k for k in range(robot.n) if k != joint]
    bad = [robot.joint_names[k] for k in others if not lower[k] <= q_config[k] <= upper[k]]
    if bad:
        raise PoseError(f'held sweep configuration puts {", ".join(bad)} outside the limits with '
                        'margin')
    a, center_mode, c, gc = _sweep_center(robot, q_config, joint, lower, upper, amplitude_rad,
                                          center_mode)
    if a < min_amplitude_rad:
        raise PoseError(f'sweep of {robot.joint_names[joint]} about {c:.3f} rad ({center_mode} '
                        f'gravity) has only +-{a:.3f} rad inside the limits with margin (need '
                        f'{min_amplitude_rad:.3f}); hold the other joints elsewhere or use the '
                        'other centre mode')
    q_config[joint] = c - a
    name = robot.joint_names[joint]
    plan = SweepPlan(joint, name, c, gc, a, q_config.copy(), center_mode=center_mode)
    for si, v in enumerate(sorted(speeds)):
        plan.passes.append(SweepPass(joint, name, si, v, 1, ConstantVelocityPass(
            q_config, joint, c - a, c + a, v, amax[joint])))
        plan.passes.append(SweepPass(joint, name, si, v, -1, ConstantVelocityPass(
            q_config, joint, c + a, c - a, v, amax[joint])))
    return plan


def _sweep_center(robot, q_config, joint, lower, upper, amplitude_rad, center_mode):
    """(amplitude fitting the limits rad, mode used, centre rad, gravity there Nm)."""
    options = []
    for mode in (('extreme', 'zero') if center_mode == 'auto' else (center_mode,)):
        try:
            c, gc = gravity_center(robot, q_config, joint, lower[joint], upper[joint], mode)
        except PoseError:
            if center_mode != 'auto':
                raise
            continue
        amplitude = min(float(amplitude_rad), c - lower[joint], upper[joint] - c)
        options.append((amplitude, mode, c, gc))
    if not options:
        raise PoseError(f'{robot.joint_names[joint]}: gravity torque has neither an extreme nor a '
                        'zero inside the limits in this configuration; hold the other joints '
                        'elsewhere')
    # auto: the extreme unless the zero allows a clearly longer sweep
    best = options[0]
    if len(options) > 1 and options[1][0] > AUTO_ZERO_MIN_GAIN * best[0]:
        best = options[1]
    return best


def pair_sweep_passes(q_fwd, tau_fwd, q_bwd, tau_bwd, bins=20):
    """Pair a forward and a backward constant-velocity pass of one joint by position.

    Over the common position range (``bins`` bins), half the difference of the mean torques is
    the friction magnitude at that speed (gravity and any position-dependent torque cancel) and
    half the sum is the position-dependent part.

    Args:
        q_fwd: positions of the forward pass, rad.
        tau_fwd: torques of the forward pass, Nm (or A).
        q_bwd: positions of the backward pass, rad.
        tau_bwd: torques of the backward pass.
        bins: number of position bins over the common range.

    Returns:
        (friction, friction std, bin centres rad, half sums), friction in the torque unit.

    Raises:
        InputError: the passes do not overlap, or no bin holds samples of both.
    """
    q_fwd, tau_fwd, q_bwd, tau_bwd = (np.asarray(x, float)
                                      for x in (q_fwd, tau_fwd, q_bwd, tau_bwd))
    lo = max(q_fwd.min(), q_bwd.min())
    hi = min(q_fwd.max(), q_bwd.max())
    if not hi > lo:
        raise InputError('forward and backward passes do not overlap in position', 'sweep_passes')
    edges = np.linspace(lo, hi, bins + 1)
    diffs, centres, sums = [], [], []
    for k in range(bins):
        mf = (q_fwd >= edges[k]) & (q_fwd < edges[k + 1])
        mb = (q_bwd >= edges[k]) & (q_bwd < edges[k + 1])
        if mf.sum() and mb.sum():
            tf, tb = tau_fwd[mf].mean(), tau_bwd[mb].mean()
            diffs.append(0.5 * (tf - tb))
            sums.append(0.5 * (tf + tb))
            centres.append(0.5 * (edges[k] + edges[k + 1]))
    if not diffs:
        raise InputError('no position bin holds samples of both passes', 'sweep_passes')
    diffs = np.array(diffs)
    std = diffs.std(ddof=1) if len(diffs) > 1 else 0.0
    return float(diffs.mean()), float(std), np.array(centres), np.array(sums)


def fit_coulomb_viscous(speeds, friction):
    """Least squares f = fc + fv * v over speeds.

    Args:
        speeds: pass speeds, rad/s.
        friction: friction at each speed, Nm (or A).

    Returns:
        (fc, fv): Coulomb (Nm) and viscous (Nm s/rad) coefficients.
    """
    v = np.asarray(speeds, float)
    f = np.asarray(friction, float)
    A = np.stack([np.ones_like(v), v], 1)
    fc, fv = np.linalg.lstsq(A, f, rcond=None)[0]
    return float(fc), float(fv)
