# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction from constant-velocity sweeps (ROS-free).

Forward and backward passes over the same positions; half their difference at matched positions
is pure friction (gravity cancels), fitted per joint as Coulomb + viscous (+ Stribeck).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.optimize

from robot_id_ros.identify.options import (IdentificationError, IdentificationOptions,
                                           effort_to_torque)
from robot_id_ros.model.friction import FrictionModel, stribeck_shape
from robot_id_ros.model.robot import RobotModel

# a segment, or the common range of a forward/backward pair, needs at least this many samples
_MIN_SAMPLES = 5
# the Stribeck term is fitted only with at least this many speeds
_STRIBECK_MIN_SPEEDS = 4
# Stribeck velocity (rad/s) where none is fitted, and its fit bounds
_STRIBECK_VELOCITY_DEFAULT_RAD_S = 0.1
_STRIBECK_VELOCITY_BOUNDS_RAD_S = (1e-4, 10)


@dataclass
class FrictionSweepResult:
    """Friction fitted from the sweeps.

    friction; points: joint name -> {'speed_rad_s', 'half_difference_nm', 'asymmetry_nm'};
    residual_nm (n,) RMS of the per-joint fit; joints_fitted: names.
    """

    friction: FrictionModel
    points: dict
    residual_nm: np.ndarray
    joints_fitted: list


def _passes(robot: RobotModel, sweeps, options: IdentificationOptions):
    """{(joint, speed index): {direction: [(q (M, n), tau (M, n), speed rad/s)]}}."""
    by = {}
    for series, sidecar in sweeps:
        if not sidecar:
            raise IdentificationError(f'sweep bag {series.source} has no sidecar with '
                                      'constant_velocity segments (record it with '
                                      'friction_sweep_recorder)')
        tau = effort_to_torque(series.effort, options, robot.n)
        for s in sidecar.get('segments', []):
            if s.get('type') != 'constant_velocity' or s['joint'] not in robot.joint_names:
                continue
            j = robot.joint_names.index(s['joint'])
            m = (series.stamp_ns >= s['t_start_ns']) & (series.stamp_ns <= s['t_end_ns'])
            if m.sum() < _MIN_SAMPLES:
                continue
            direction = int(np.sign(s.get('direction', np.sign(s['velocity_rad_s']))))
            by.setdefault((j, int(s.get('speed_index', 0))), {}).setdefault(direction, []).append(
                (series.q[m], tau[m], abs(float(s['velocity_rad_s']))))
    return by


def _half_differences(by, j, gravity):
    """Joint ``j``'s (speeds, half differences, asymmetries) over its forward/backward pairs."""
    speeds, diffs, asyms = [], [], []
    for (jj, _), d in sorted(by.items()):
        if jj != j or 1 not in d or -1 not in d:
            continue
        qf = np.concatenate([x[0][:, j] for x in d[1]])
        tf = np.concatenate([x[1][:, j] for x in d[1]])
        qb = np.concatenate([x[0][:, j] for x in d[-1]])
        tb = np.concatenate([x[1][:, j] for x in d[-1]])
        Qf = np.concatenate([x[0] for x in d[1]])
        v = float(np.mean([x[2] for x in d[1] + d[-1]]))
        ob = np.argsort(qb)
        lo, hi = max(qf.min(), qb.min()), min(qf.max(), qb.max())
        inside = (qf >= lo) & (qf <= hi)
        if inside.sum() < _MIN_SAMPLES:
            continue
        tb_at = np.interp(qf[inside], qb[ob], tb[ob])
        speeds.append(v)
        diffs.append(float(np.mean(0.5 * (tf[inside] - tb_at))))
        if gravity is not None:
            g = np.asarray(gravity(Qf[inside]))[:, j]
            asyms.append(float(np.mean(0.5 * (tf[inside] + tb_at) - g)))
    return speeds, diffs, asyms


def _fit_curve(speeds, diffs, stribeck):
    """Return (fc, fv, fs, vs) of d(v) = fc + fv v (+ fs exp(-(v/vs)^2)).

    The Stribeck term when ``stribeck`` and enough speeds; fs = 0 and vs the default otherwise.
    """
    if len(speeds) == 1:
        fc, fv = diffs[0], 0.0
    else:
        A = np.column_stack([np.ones_like(speeds), speeds])
        fc, fv = np.linalg.lstsq(A, diffs, rcond=None)[0]
    fs, vs = 0.0, _STRIBECK_VELOCITY_DEFAULT_RAD_S
    if stribeck and len(speeds) >= _STRIBECK_MIN_SPEEDS:
        def f(p):
            return p[0] + p[1] * speeds + p[2] * stribeck_shape(speeds, p[3]) - diffs
        lo, hi = _STRIBECK_VELOCITY_BOUNDS_RAD_S
        r = scipy.optimize.least_squares(f, [fc, fv, 0.0, max(0.5 * speeds.min(), 1e-3)],
                                         bounds=([-np.inf, -np.inf, 0, lo],
                                                 [np.inf, np.inf, np.inf, hi]))
        fc, fv, fs, vs = r.x
    return fc, fv, fs, vs


def identify_friction_sweeps(robot: RobotModel, sweeps, options: IdentificationOptions,
                             gravity=None) -> FrictionSweepResult:
    """Friction per joint from constant-velocity sweeps.

    For each joint and speed, forward and backward passes are matched by position (the backward
    torque is interpolated at the forward positions over their common range); half their
    difference is friction only: d(v) = fc + fv v (+ fs exp(-(v/vs)^2)). Half their sum minus the
    gravity model is (fc+ - fc-)/2 + offset, the direction-dependent part.

    Args:
        robot: the model (joint names).
        sweeps: list of (JointStateSeries, sidecar) with ``constant_velocity`` segments.
        options: effort unit, ``stribeck`` (fit the Stribeck term), sign velocity.
        gravity: ``gravity(Q) -> tau`` (Nm) for the asymmetry, or None.

    Returns:
        The ``FrictionSweepResult``. Raises ``IdentificationError`` when no joint has a pair.
    """
    n = robot.n
    by = _passes(robot, sweeps, options)
    points = {}
    fr = FrictionModel.zeros(n)
    stribeck_v = np.full(n, _STRIBECK_VELOCITY_DEFAULT_RAD_S)
    stribeck = np.zeros(n)
    fitted = []
    residual = np.zeros(n)
    for j in range(n):
        speeds, diffs, asyms = _half_differences(by, j, gravity)
        if not speeds:
            continue
        speeds, diffs = np.array(speeds), np.array(diffs)
        fitted.append(robot.joint_names[j])
        fc, fv, stribeck[j], stribeck_v[j] = _fit_curve(speeds, diffs, options.stribeck)
        pred = fc + fv * speeds + stribeck[j] * stribeck_shape(speeds, stribeck_v[j])
        residual[j] = float(np.sqrt(np.mean((diffs - pred) ** 2)))
        a = float(np.mean(asyms)) if asyms else 0.0
        fr.coulomb_pos_nm[j] = fc + a
        fr.coulomb_neg_nm[j] = fc - a
        fr.viscous_nm_s_rad[j] = fv
        points[robot.joint_names[j]] = {'speed_rad_s': speeds.tolist(),
                                        'half_difference_nm': diffs.tolist(),
                                        'asymmetry_nm': asyms}
    if not fitted:
        raise IdentificationError('the sweep bags hold no joint with both a forward and a '
                                  'backward constant-velocity pass')
    out = FrictionModel(fr.coulomb_pos_nm, fr.coulomb_neg_nm, fr.viscous_nm_s_rad, np.zeros(n),
                        stribeck, stribeck_v, sign_velocity_rad_s=options.sign_velocity_rad_s)
    return FrictionSweepResult(out, points, residual, fitted)
