# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Drive gains (Nm/A per joint) identified jointly with the dynamics from motor currents.

The motor-current statistics are accumulated here from the runs (per time block), and the
maximum-likelihood fit of the gains and the base parameters, with its common scale and its
white-noise deviations, is made on them (identify/drive_gain_fit.py); the result, what is
identifiable and its report are in identify/drive_gain_result.py.

Those white-noise deviations understate the uncertainty where model error, not noise, dominates:
a joint whose torque is mostly friction has its gain nearly collinear with its own friction
parameters, and a friction law a little off the model's moves the gain far more than the noise
does. So each run is also cut into ``BLOCKS`` time blocks and the fit repeated with one block
left out (delete-one-block jackknife; the statistics are sums, so each repeat costs one solve):
the spread of the gain over those repeats holds the model error that varies along the recording.
A friction law that misses the same way in every block (a Stribeck term the model lacks) moves
no block's gain against the others: the statistics also hold a Stribeck column per joint, and
the shift of each gain when the fit uses it is a third deviation. The reported deviation is the
largest of the three; a gain whose 95 % interval (1.96 deviations) stays within
``GAIN_TOLERANCE`` of it is identifiable up to the common scale (``ratio_identifiable``), and
flagged identifiable when the scale comes from a payload run or a known parameter. On the URDF's
scale no gain is flagged: its error is the URDF's common mass error, which the data cannot see
(the gravity of the dominant joints fixes it, so the gains stay right relative to each other).

The static payload experiment (``estimate_drive_gains``) is the case with no unknown
dynamics: paired differences, beta empty, b = the known payload's torque.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np
import pinocchio as pin

from robot_id_ros.identify.drive_gain_fit import (MIN_TORQUE_NM, GainStatistics, solve_drive_gains,
                                                  unexplained_fraction)
from robot_id_ros.identify.drive_gain_result import GAIN_TOLERANCE, DriveGainsResult
from robot_id_ros.identify.least_squares import free_columns, regressor_chunks, structural_base
from robot_id_ros.identify.options import IdentificationError, IdentificationOptions
from robot_id_ros.identify.payload import match_poses, payload_regressor
from robot_id_ros.identify.static import StaticPoses
from robot_id_ros.identify.trajectories import fit_mask, prepare_trajectory
from robot_id_ros.io.model_file import Payload
from robot_id_ros.model.regressor import Regressor
from robot_id_ros.model.robot import RobotModel

# samples of the gravity match (URDF scale): at most this many, evenly spread
_GRAVITY_SAMPLES = 2000
# known torque that the free columns reproduce to within this fraction fixes no scale
_MIN_SCALE_INFORMATION = 1e-6
# time blocks per run of the delete-one-block jackknife of the gains
BLOCKS = 8


def with_block_spread(result: DriveGainsResult, blocks, scale_source,
                      min_torque_nm=MIN_TORQUE_NM):
    """Return ``result`` with the delete-one-block jackknife spread of its gains folded into std.

    Args:
        result: the fit on all blocks (``solve_drive_gains`` of their total).
        blocks: ``GainStatistics`` of each time block (at least 2).
        scale_source: as for ``solve_drive_gains``.
        min_torque_nm: as for ``solve_drive_gains``.

    Returns:
        The result with std_blocks set and std = max(std_noise, std_blocks); a joint whose gain
        a repeat cannot fit (too little torque, a negative gain) gets an infinite spread. With
        the URDF scale each repeat keeps the whole recording's gravity match: the URDF's scale
        is not a noise (and is left out of the intervals, as from the Fisher information).
    """
    total = GainStatistics.total(blocks)
    K = len(blocks)
    gains = np.full((K, len(result.gains_nm_per_a)), np.inf)
    for b, part in enumerate(blocks):
        rest = total.without(part)
        if scale_source == 'urdf':
            rest = dataclasses.replace(rest, GG=total.GG, Gg=total.Gg, gg=total.gg)
        try:
            gains[b] = solve_drive_gains(rest, scale_source, min_torque_nm).gains_nm_per_a
        except IdentificationError:
            continue
    ok = np.all(np.isfinite(gains), axis=0)
    spread = np.full(gains.shape[1], np.inf)
    spread[ok] = np.sqrt((K - 1) / K * np.sum(
        (gains[:, ok] - gains[:, ok].mean(axis=0)) ** 2, axis=0))
    spread[~np.isfinite(result.gains_nm_per_a)] = np.nan
    return dataclasses.replace(result, std=np.fmax(result.std_noise, spread), std_blocks=spread,
                               blocks=K)


def payload_parameters(robot: RobotModel, payload: Payload):
    """(10,) standard parameters (last joint's frame, Pinocchio order) of a point payload."""
    tool = robot.model.frames[robot.tool_frame_id].placement
    com = tool.act(np.asarray(payload.com_m, float))
    return pin.Inertia(float(payload.mass_kg), com, np.zeros((3, 3))).toDynamicParameters()


def _scale_source(options: IdentificationOptions, loaded):
    """('payload' | 'known' | 'urdf', note) by preference."""
    if loaded:
        return 'payload', (f'scale from {len(loaded)} run(s) with a known payload '
                           f'({", ".join(f"{p.mass_kg:g} kg" for _, p in loaded)})')
    if options.known_parameters:
        return 'known', ('scale from the known parameter(s) '
                         + ', '.join(f'{k}={v:g}' for k, v in options.known_parameters.items()))
    return 'urdf', ('scale from the URDF gravity (no payload run, no known parameter): the gains '
                    "are as accurate as the URDF's masses; intervals leave that error out, and "
                    'no gain is flagged identifiable')


def identify_drive_gains(robot: RobotModel, trajectories, options: IdentificationOptions,
                         loaded=(), min_torque_nm=MIN_TORQUE_NM) -> DriveGainsResult:
    """Drive gains jointly with the dynamics, on processed trajectories holding currents (A).

    Args:
        robot: the model (URDF values start the fit and, without anything else, fix the scale).
        trajectories: processed ``Trajectory`` list whose ``tau`` is the motor current, A.
        options: regressor structure, known parameters, row selection (``min_velocity_rad_s``).
        loaded: ``(Trajectory, Payload)`` pairs: runs with a known payload at the tool.
        min_torque_nm: joints whose predicted torque RMS is below this get NaN.

    Returns:
        The ``DriveGainsResult``; the scale source as in identify/drive_gain_fit.py.
    """
    plain = Regressor(robot, options.regressor_options())
    base = structural_base(plain, free_columns(plain, options.known_parameters)[0])
    # the statistics also hold a Stribeck column per joint (the friction law's likeliest miss):
    # the fit with it tells how far the model's own friction structure moves the gains
    richer = options.friction and not options.stribeck_column
    reg = Regressor(robot, dataclasses.replace(options, stribeck_column=True).regressor_options()
                    ) if richer else plain
    cols = [reg.names.index(plain.names[i]) for i in base.independent]
    nb = len(cols)
    cols += [i for i, nm in enumerate(reg.names) if nm not in plain.names]
    cols = np.array(cols, dtype=int)
    known_idx = free_columns(reg, options.known_parameters)[1]
    theta_ref = reg.reference_parameters()
    for k, v in options.known_parameters.items():
        theta_ref[reg.names.index(k)] = v
    source, note = _scale_source(options, loaded)
    blocks = [GainStatistics.zeros(robot.n, len(cols)) for _ in range(BLOCKS)]
    inertial = cols < reg.n_inertial
    last = slice(reg.n_inertial - 10, reg.n_inertial)
    runs = [(tr, None) for tr in trajectories] + list(loaded)
    total = sum(len(tr) for tr, _ in runs)
    for tr, payload in runs:
        mask = fit_mask(tr, options)
        x_pay = None if payload is None else payload_parameters(robot, payload)
        every = max(1, total // _GRAVITY_SAMPLES)
        block_of = np.arange(len(tr)) * BLOCKS // max(len(tr), 1)
        for s, e, W in regressor_chunks(
                reg, tr.q, tr.qd, tr.qdd, options.chunk_samples,
                tr.regressor_filter, drift=reg.run_drift(tr.t_s)):
            B = (W[:, known_idx] @ theta_ref[known_idx]).reshape(e - s, robot.n)
            if x_pay is not None:
                B = B + (W[:, last] @ x_pay).reshape(e - s, robot.n)
            Wb = W[:, cols].reshape(e - s, robot.n, -1)
            for b in np.unique(block_of[s:e]):
                rows = np.flatnonzero(block_of[s:e] == b)
                blocks[b].add(Wb[rows].reshape(-1, Wb.shape[2]), B[rows], tr.tau[s:e][rows],
                              mask[s:e][rows])
            for i in range(s, e, every):
                G = reg.static(tr.q[i][None])[:, cols] * inertial
                g = robot.gravity_torque(tr.q[i])
                part = blocks[block_of[i]]
                part.GG += G.T @ G
                part.Gg += G.T @ g
                part.gg += float(g @ g)
    rich = GainStatistics.total(blocks)
    blocks = [b.columns(nb) for b in blocks]
    stats = GainStatistics.total(blocks)
    if source != 'urdf' and unexplained_fraction(stats) < _MIN_SCALE_INFORMATION:
        what = ('the payload torque' if source == 'payload' else
                'the known parameters (regrouped with others: not identifiable alone)')
        source, note = 'urdf', f'{what} fix(es) no scale: ' + _scale_source(
            dataclasses.replace(options, known_parameters={}), ())[1]
    result = with_block_spread(solve_drive_gains(stats, source, min_torque_nm, note), blocks,
                               source, min_torque_nm)
    if not richer:
        return result
    try:
        shift = np.abs(solve_drive_gains(rich, source, min_torque_nm).gains_nm_per_a
                       - result.gains_nm_per_a)
    except IdentificationError:
        shift = np.full(robot.n, np.inf)
    shift = np.where(np.isfinite(result.gains_nm_per_a), np.nan_to_num(shift, nan=np.inf),
                     np.nan)
    return dataclasses.replace(result, std=np.fmax(result.std, shift), std_structure=shift)


def drive_gains_from_recordings(robot: RobotModel, data, options: IdentificationOptions,
                                loaded=()):
    """Drive gains from recorded runs whose effort is motor current (the pipeline's step).

    Args:
        robot: the model.
        data: ``(series, sidecar)`` pairs of the excitation runs.
        options: the identification options (effort_unit 'current', no gains).
        loaded: ``(series, sidecar, Payload)`` runs with a known payload at the tool.

    Returns:
        (``DriveGainsResult``, the options with ``drive_gains_nm_per_a`` set). Raises
        ``IdentificationError`` when a joint's gain is not identified.
    """
    if not data:
        raise IdentificationError('effort_unit "current" without drive gains: the gains are '
                                  'identified from trajectories (--data); give --data or '
                                  '--drive-gains')
    unit = dataclasses.replace(options, drive_gains_nm_per_a=[1.0] * robot.n)
    trs = [prepare_trajectory(s, unit, sc, robot).decimated(options.max_samples)
           for s, sc in data]
    lds = [(prepare_trajectory(s, unit, sc, robot).decimated(options.max_samples), p)
           for s, sc, p in loaded]
    r = identify_drive_gains(robot, trs, options, lds)
    missing = [robot.joint_names[j] for j in np.flatnonzero(~np.isfinite(r.gains_nm_per_a))]
    if missing:
        raise IdentificationError(f'the data do not identify the drive gain of '
                                  f'{", ".join(missing)} (too little torque): move those joints '
                                  'more, or give --drive-gains')
    return r, dataclasses.replace(options, drive_gains_nm_per_a=list(r.gains_nm_per_a))


def drive_gains_step(robot: RobotModel, data, options: IdentificationOptions, loaded, res,
                     stage='on the core model structure'):
    """Run the identification pipeline's drive-gain step (``identify.pipeline.identify``).

    Args:
        robot: the model.
        data: ``(series, sidecar)`` pairs of the excitation runs.
        options: the options (effort_unit 'current', no gains): the model structure of the fit.
        loaded: ``(series, sidecar, Payload)`` runs with a known payload.
        res: the ``IdentificationResult``: gets the summary lines and the step time (added).
        stage: which model structure the summary line names.

    Returns:
        (``DriveGainsResult``, the options with the identified gains).
    """
    t0 = time.perf_counter()
    r, options = drive_gains_from_recordings(robot, data, options, loaded)
    res.timings_s['drive_gains'] = (res.timings_s.get('drive_gains', 0.0)
                                    + time.perf_counter() - t0)
    res.summary_lines.append(
        f'drive gains (Nm/A) identified with the dynamics {stage}: ' + ', '.join(
            f'{g:.4g} +- {s:.2g}' for g, s in zip(r.gains_nm_per_a, r.std)))
    res.summary_lines.append(f'  {r.note}')
    res.summary_lines.append(
        f'  deviations: the largest of the white-noise one, the {r.blocks}-block jackknife and '
        'the shift with a Stribeck column (model error); identifiable (95 % interval within '
        f'+-{100 * GAIN_TOLERANCE:g} %'
        + (', up to the URDF\'s common scale' if r.scale_source == 'urdf' else '') + '): '
        + ', '.join(f'{n} {"yes" if ok else "NO"}'
                    for n, ok in zip(robot.joint_names, r.ratio_identifiable)))
    advice = r.advice(robot.joint_names)
    if advice:
        res.summary_lines.append(f'  {advice}')
    return r, options


def estimate_drive_gains(robot: RobotModel, payload: Payload, with_current: StaticPoses,
                         without_current: StaticPoses, tolerance_rad=0.02,
                         min_torque_nm=MIN_TORQUE_NM) -> DriveGainsResult:
    """Estimate each joint's current-to-torque gain (Nm/A) with and without a known payload.

    From static poses held with and without the payload, efforts recorded as motor current (A):
    the paired current change di times the gain is the payload torque dtau, i.e. the fit of
    ``identify.drive_gains`` with no unknown dynamics (di_j = dtau_j / k_j per joint, the error
    in the measured current). Joints the payload barely loads (RMS dtau below
    ``min_torque_nm``) get NaN: this experiment does not identify them.
    """
    pairs = match_poses(with_current.q, without_current.q, tolerance_rad)
    if len(pairs) < 2:
        raise IdentificationError(
            'need at least 2 poses recorded both with and without the payload')
    iw, io = (np.array(x) for x in zip(*pairs))
    Q = with_current.q[iw]
    di = with_current.tau[iw] - without_current.tau[io]
    x = np.concatenate([[payload.mass_kg], payload.mass_kg * np.asarray(payload.com_m, float)])
    dtau = (payload_regressor(robot, Q) @ x).reshape(-1, robot.n)
    stats = GainStatistics.zeros(robot.n, 0)
    stats.add(np.zeros((dtau.size, 0)), dtau, di)
    return solve_drive_gains(stats, 'payload', min_torque_nm,
                             f'scale from the known payload ({payload.mass_kg:g} kg), '
                             f'{len(Q)} paired static poses')
