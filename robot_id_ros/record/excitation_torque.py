# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The drives' torque check of an excitation design, and the ways to bring a design within it.

``design_excitation`` (record/excitation.py) keeps a trajectory within the kinematic limits; the
torque a drive must deliver along it is checked here (``peak_torque_fraction``), and
``design_within_torque`` tries seeds, slows the best design (``time_scaled``) and, when gravity
along the path is what is left, designs in a smaller band around a low-gravity pose
(record/excitation_band.py). ROS-free.
"""
from __future__ import annotations

import dataclasses
import inspect

import numpy as np

from robot_id_ros.model.regressor import RegressorOptions
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.record.excitation import (ExcitationResult, design_excitation, design_limits,
                                            trajectory_measures)
from robot_id_ros.record.excitation_band import BAND_FRACTIONS, least_gravity, low_gravity_band
from robot_id_ros.record.fourier import ExcitationError, FourierTrajectory

PEAK_TORQUE_SAMPLES = 2000                  # peak_torque_fraction's grid over one period
# design_within_torque slows the best design by these factors when no seed is within the torque
TIME_SCALE_FACTORS = (1.25, 1.5, 2.0, 3.0)
BAND_ATTEMPTS = 2                           # seeds per smaller band (excitation_band)


def peak_torque_fraction(robot: RobotModel, traj: FourierTrajectory, samples=PEAK_TORQUE_SAMPLES,
                         friction=None):
    """Largest |tau_j| / effort limit_j along one period, with the URDF's rigid-body model.

    A trajectory the drives cannot follow saturates them and its tracking error grows.
    tau is what the drives must deliver: the inverse dynamics plus the friction torque, with its
    sign (friction opposes the motion: it adds to |tau| where the joint moves in the direction of
    the torque, as when a joint is raised against gravity, and subtracts where it moves against
    the torque, as when the joint is lowered).

    Args:
        robot: the arm (its URDF dynamics and effort limits).
        traj: the trajectory.
        samples: grid points over one period.
        friction: a FrictionModel whose torque is added, or None.

    Returns:
        (overall max, per-joint max), as fractions of the effort limits.
    """
    t = np.linspace(0.0, traj.period_s, samples, endpoint=False)
    Q, QD, QDD = traj.evaluate(t)
    tau = np.array([robot.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    if friction is not None:
        tau = tau + friction.torque(QD)
    per_joint = np.abs(tau).max(axis=0) / robot.limits.effort_nm
    return float(per_joint.max()), per_joint


def design_within_torque(robot: RobotModel, regressor_options=RegressorOptions(), *,
                         max_torque_fraction=0.8, attempts=8, friction=None, seed=0, report=None,
                         report_band=None, **design_kwargs):
    """Design excitations until one stays within a fraction of the drives' torque limits.

    ``design_excitation`` until a design needs at most ``max_torque_fraction`` of every drive's
    torque limit. The design's constraints are kinematic, and a trajectory that saturates a drive
    is not followed. Tries the seeds seed, seed + 1, ...; then the best of them slowed by
    ``TIME_SCALE_FACTORS``; then, when the torque left is gravity along the path, designs in a
    smaller position band around a low-gravity pose (``excitation_band``), step by step
    (``BAND_FRACTIONS``, ``BAND_ATTEMPTS`` seeds each, slowed when needed). A design in a smaller
    band carries ``band_note`` (what was done, its condition number) and ``smaller_band`` in its
    ``design``.

    Args:
        robot: the arm.
        regressor_options: as for ``design_excitation``.
        max_torque_fraction: largest accepted ``peak_torque_fraction``.
        attempts: number of seeds designed in the full band.
        friction: a FrictionModel added to the torque check, or None.
        seed: the first seed.
        report: callable(seed, peak) called for every rejected design in the full band.
        report_band: callable(fraction of the range, peak) for every smaller band rejected.
        **design_kwargs: passed to ``design_excitation``.

    Returns:
        (ExcitationResult, peak fraction, per-joint fractions, seed used).

    Raises:
        ExcitationError: no design within the fraction, even in the smallest band (or gravity
            alone needs more than the fraction everywhere in the band); the message names the
            joint and the fix.
    """
    best = None
    for k in range(attempts):
        res = design_excitation(robot, regressor_options, seed=seed + k, **design_kwargs)
        peak, per_joint = peak_torque_fraction(robot, res.trajectory, friction=friction)
        if peak <= max_torque_fraction:
            return res, peak, per_joint, seed + k
        if report is not None:
            report(seed + k, peak)
        if best is None or peak < best[1]:
            best = (res, peak, seed + k)
    got, slowed = _slowed_within(robot, best[0], max_torque_fraction, friction, regressor_options)
    if got is not None:
        return got + (best[2],)
    head = (f'no design within {100 * max_torque_fraction:.0f} % of the drives\' torque limits '
            f'in {attempts} attempts (best {100 * best[1]:.0f} %), nor the best one slowed '
            f'{TIME_SCALE_FACTORS[-1]:g}x ({100 * slowed:.0f} %: at that speed the torque is '
            'mostly gravity along its path)')
    return _design_in_smaller_band(robot, regressor_options, max_torque_fraction, attempts,
                                   friction, seed, best, slowed, head, report_band, design_kwargs)


def _slowed_within(robot, res, max_torque_fraction, friction, regressor_options, factors=None):
    """``res`` slowed by the first of ``factors`` that brings it within the torque fraction.

    Returns:
        ((result, peak, per-joint), None) or (None, peak at the last factor).
    """
    for factor in TIME_SCALE_FACTORS if factors is None else factors:
        got = res if factor == 1 else time_scaled(robot, res, factor, regressor_options)
        peak, per_joint = peak_torque_fraction(robot, got.trajectory, friction=friction)
        if peak <= max_torque_fraction:
            return (got, peak, per_joint), None
    return None, peak


def _design_in_smaller_band(robot, options, max_torque_fraction, attempts, friction, seed,
                            full_best, full_slowed, head, report_band, kw):
    """Run the smaller-band stage of ``design_within_torque`` (the full band failed)."""
    default = {n: p.default for n, p in inspect.signature(design_excitation).parameters.items()}
    arg = {n: kw.get(n, default[n]) for n in default}
    limits = design_limits(robot, arg['position_fraction'], arg['velocity_fraction'],
                           arg['acceleration_fraction'], arg['acceleration_limits_rad_s2'],
                           arg['velocity_limits_rad_s'], arg['floor_z_m'],
                           arg['position_band_rad'])
    g, j, _ = least_gravity(robot, limits)
    name, effort = robot.joint_names[j], robot.limits.effort_nm[j]
    if g > max_torque_fraction:
        raise ExcitationError(
            f'{head}: gravity alone needs at least {100 * g:.0f} % of {name}\'s {effort:.3g} Nm '
            f'at every pose of the band, so no excitation fits; raise --max-torque-fraction, or '
            f'check the effort limit of {name} (and the masses) in the URDF')
    where = 'the start pose' if arg['q_start'] is not None else 'a low-gravity pose'
    rejected = None
    for fraction in BAND_FRACTIONS:
        if fraction >= arg['position_fraction']:
            continue
        band = low_gravity_band(robot, limits, fraction, centre=arg['q_start'])
        if band is None:
            break
        bkw = dict(kw, q_start=band.centre,
                   position_band_rad=(band.limits.q_lower, band.limits.q_upper))
        best = None
        for k in range(min(attempts, BAND_ATTEMPTS)):
            try:
                res = design_excitation(robot, options, seed=seed + k, **bkw)
            except ExcitationError as exc:
                raise ExcitationError(
                    f'{head}, and in a band of {100 * fraction:.0f} % of the range around {where} '
                    f'(gravity alone {100 * band.gravity_ratio:.0f} % of '
                    f'{robot.joint_names[band.joint]}\'s limit there): {exc}') from exc
            peak = peak_torque_fraction(robot, res.trajectory, friction=friction)[0]
            if best is None or peak < best[1]:
                best = (res, peak, seed + k)
        res, _, used = best
        res.trajectory.design['smaller_band'] = {
            'fraction_of_range': fraction, 'centre_rad': band.centre.tolist(),
            'gravity_ratio': band.gravity_ratio,
            'gravity_joint': robot.joint_names[band.joint],
            'full_band_peak_fraction': full_best[1],
            'full_band_slowed_peak_fraction': full_slowed,
            'full_band_cond': full_best[0].cond}
        got, slowed = _slowed_within(robot, res, max_torque_fraction, friction, options,
                                     (1.0,) + TIME_SCALE_FACTORS)
        if got is not None:
            got[0].trajectory.design['band_note'] = _band_note(
                robot, got[0], got[1], band, where, arg['position_fraction'],
                max_torque_fraction, full_best)
            return got + (used,)
        rejected = (fraction, slowed, band)
        if report_band is not None:
            report_band(fraction, slowed)
    if rejected is None:
        raise ExcitationError(f'{head}; no smaller band around a pose with the tool above the '
                              'floor: choose --start-pose, lower --floor-z or raise '
                              '--max-torque-fraction')
    fraction, slowed, band = rejected
    bj = robot.joint_names[band.joint]
    raise ExcitationError(
        f'{head}, nor in a band of {100 * fraction:.0f} % of the range around {where} '
        f'({100 * slowed:.0f} % slowed {TIME_SCALE_FACTORS[-1]:g}x; gravity alone '
        f'{100 * band.gravity_ratio:.0f} % of {bj}\'s {robot.limits.effort_nm[band.joint]:.3g} '
        f'Nm there): raise --max-torque-fraction, or give a --start-pose where {bj} carries '
        'less of the arm')


def _band_note(robot, res, peak, band, where, position_fraction, max_torque_fraction, full_best):
    """One line: the band, the pose, the slowing, the peak and the (weaker) condition number."""
    d = res.trajectory.design
    slow = (f', slowed {d["time_scale"]:g}x (period {res.trajectory.period_s:g} s)'
            if d.get('time_scale') else '')
    return (f'no design in {100 * position_fraction:.0f} % of the ranges stayed within '
            f'{100 * max_torque_fraction:.0f} % of the torque limits (best '
            f'{100 * full_best[1]:.0f} %): band shrunk to {100 * band.fraction:.0f} % of each '
            f'range around {where} ('
            + ', '.join(f'{v:.2f}' for v in band.centre)
            + f' rad; gravity {100 * band.gravity_ratio:.0f} % of '
            f'{robot.joint_names[band.joint]}\'s limit at worst){slow}; peak torque '
            f'{100 * peak:.0f} %, condition number {res.cond:.4g} (full band '
            f'{full_best[0].cond:.4g}): a weaker excitation')


def time_scaled(robot: RobotModel, res: ExcitationResult, factor,
                regressor_options=RegressorOptions()):
    """Return ``res`` run ``factor`` times slower: the same path, period x factor.

    q(t) keeps its values at t x factor (a / factor, b / factor), so the position band and the
    floor stay satisfied; velocities fall by ``factor`` and accelerations by its square, which
    lowers the inertial and Coriolis torque (not gravity). The condition number is recomputed;
    the design records the factor under ``time_scale``.
    """
    tr = res.trajectory
    design = dict(tr.design, time_scale=float(factor), period_designed_s=tr.period_s)
    traj = FourierTrajectory(tr.joint_names, tr.period_s * factor, tr.a / factor,
                             tr.b / factor, tr.q0, design, tr.robot_name)
    cond, logdet = trajectory_measures(robot, traj, regressor_options, res.observation_samples)
    c = dict(res.constraints, velocity_ratio=res.constraints['velocity_ratio'] / factor,
             acceleration_ratio=res.constraints['acceleration_ratio'] / factor ** 2)
    design.update(cond=cond, logdet=logdet, constraints_dense_grid=c)
    return dataclasses.replace(res, trajectory=traj, cond=cond, logdet=logdet, constraints=c)
