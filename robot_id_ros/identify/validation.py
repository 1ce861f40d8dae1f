# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Prediction error of a model on data (ROS-free).

The metrics of ``robot-id validate`` and of the fit, and held-out validation with the data
processed as at identification.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.interpolate

import robot_id_ros.signals as signals
from robot_id_ros.identify.options import (IdentificationError, IdentificationOptions,
                                           check_motion_selection, effort_to_torque)
from robot_id_ros.identify.samples import split_at_gaps, usable_samples
from robot_id_ros.identify.trajectories import (MAX_CUTOFF_RATE_FRACTION, Trajectory,
                                                excitation_window, joined_trajectory,
                                                motion_mask, prepare_trajectory)
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.io.model_file import IdentifiedModel, ResidualBySpeed, speed_band

# options that a caller's processing options override in the model's (when set, not default)
_PROCESSING_OVERRIDES = ('effort_unit', 'drive_gains_nm_per_a', 'derivative_method', 'cutoff_hz',
                         'period_s')


# bands of joint speed |qd| (rad/s) of the residual by speed; above the last edge the residual
# std of the fit stands (the joints move, the friction law is the fitted one)
RESIDUAL_SPEED_EDGES_RAD_S = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2)
# a band with fewer samples of a joint gets no RMS (a few reversals are no statistic)
RESIDUAL_BAND_MIN_SAMPLES = 30


def residual_by_speed(qd_runs, residual_runs, edges=RESIDUAL_SPEED_EDGES_RAD_S,
                      min_samples=RESIDUAL_BAND_MIN_SAMPLES) -> ResidualBySpeed:
    """Return the RMS residual of each joint per band of its speed, over every run.

    Args:
        qd_runs: per run the (N, n) joint velocities the model was evaluated at, rad/s.
        residual_runs: per run the (N, n) measured - predicted torque, Nm.
        edges: the bands' edges, rad/s, ascending.
        min_samples: bands with fewer samples of a joint get NaN.
    """
    band, inside = speed_band(edges, np.vstack(qd_runs))
    r2 = np.vstack(residual_runs) ** 2
    edges = np.asarray(edges, dtype=float)
    n, B = band.shape[1], len(edges) - 1
    rms, count = np.full((n, B), np.nan), np.zeros((n, B), dtype=int)
    for k in range(B):
        in_k = inside & (band == k)
        count[:, k] = in_k.sum(axis=0)
        ok = count[:, k] >= min_samples
        sums = np.where(in_k, r2, 0.0).sum(axis=0)
        rms[ok, k] = np.sqrt(sums[ok] / count[ok, k])
    return ResidualBySpeed(edges, rms, count)


def _relative(a, b):
    """||Return a|| / ||b|| (b's norm floored to avoid a division by zero)."""
    return float(np.linalg.norm(a) / max(np.linalg.norm(b), 1e-300))


def _lowpassed(tau, rate_hz, filter_hz):
    """Return ``tau`` low-passed at ``filter_hz`` (at most below Nyquist), zero phase."""
    return signals.lowpass_zero_phase(tau, rate_hz,
                                      min(filter_hz, MAX_CUTOFF_RATE_FRACTION * rate_hz))


def validation_metrics(measured, predicted, rate_hz=None, filter_hz=None, joint_names=None,
                       mask=None, measured_filtered=None):
    """Prediction error of ``predicted`` against ``measured`` torque.

    Args:
        measured, predicted: (N, n) torque, Nm.
        rate_hz: sample rate (for the filtered figures).
        filter_hz: when given (with ``rate_hz``), also the figures against the measured torque
            low-passed at it (zero phase).
        joint_names: names, stored in the result.
        mask: (N, n) bool (``motion_mask``): also the in-motion figures over the rows where it is
            True (``rmse_in_motion_nm``, ``relative_error_in_motion``, ``in_motion_fraction``
            per joint).
        measured_filtered: (N, n) the measured torque already low-passed at ``filter_hz`` (a
            run of several pieces, each filtered on its own); default: filtered here.

    Returns:
        dict with the keys of ``robot-id validate --json``: RMSE per joint (Nm), relative errors.
    """
    measured = np.asarray(measured, float)
    predicted = np.asarray(predicted, float)
    e = measured - predicted
    out = {
        'joint_names': list(joint_names) if joint_names is not None else None,
        'samples': int(measured.shape[0]),
        'rmse_nm': np.sqrt(np.mean(e ** 2, axis=0)).tolist(),
        'per_joint_relative_error': (np.linalg.norm(e, axis=0)
                                     / np.maximum(np.linalg.norm(measured, axis=0),
                                                  1e-300)).tolist(),
        'relative_error': _relative(e, measured),
    }
    if filter_hz is not None and (rate_hz is not None or measured_filtered is not None):
        mf = (np.asarray(measured_filtered, float) if measured_filtered is not None else
              _lowpassed(measured, rate_hz, filter_hz))
        ef = mf - predicted
        out['filter_hz'] = float(filter_hz)
        out['relative_error_filtered'] = _relative(ef, mf)
        out['rmse_filtered_nm'] = np.sqrt(np.mean(ef ** 2, axis=0)).tolist()
    if mask is not None:
        mask = np.asarray(mask, bool)
        cnt = mask.sum(axis=0)
        em = np.where(mask, e, 0.0)
        out['in_motion_samples'] = cnt.tolist()
        out['in_motion_fraction'] = (cnt / max(measured.shape[0], 1)).tolist()
        out['rmse_in_motion_nm'] = np.where(
            cnt > 0, np.sqrt(np.sum(em ** 2, axis=0) / np.maximum(cnt, 1)), np.nan).tolist()
        out['relative_error_in_motion'] = (_relative(em, np.where(mask, measured, 0.0))
                                           if cnt.sum() else float('nan'))   # no row in motion
    return out


def processing_options(model: IdentifiedModel, base: IdentificationOptions | None = None,
                       given=None) -> IdentificationOptions:
    """Return the options a model was identified with, for processing new data alike.

    Args:
        model: the model (its ``identification.options``).
        base: the caller's options: the effort unit, drive gains, derivative method, cut-off and
            period override the model's where set (not default); used whole when the model has
            no options.
        given: names of ``base``'s settings the caller set explicitly: they override the
            model's even when they equal the core default (``--effort-unit torque`` on a model
            identified from currents).

    Returns:
        The options (``period_s`` is the caller's: a new record has its own period).
    """
    d = dict(model.identification.get('options', {}))
    opts = IdentificationOptions.from_dict(d) if d else (base or IdentificationOptions())
    if base is not None:
        for k in _PROCESSING_OVERRIDES:
            v = getattr(base, k)
            if k in (given or ()) or (v is not None
                                      and v != getattr(IdentificationOptions, k, None)):
                setattr(opts, k, v)
    if (opts.effort_unit == 'current' and opts.drive_gains_nm_per_a is None
            and model.drive_gains_nm_per_a is not None):
        opts.drive_gains_nm_per_a = list(model.drive_gains_nm_per_a)
    opts.period_s = base.period_s if base is not None else None
    return opts


@dataclass
class ValidationResult:
    """metrics (``validation_metrics``), the processed trajectory, the predicted torque (N, n).

    ``trajectory`` and ``predicted`` are on the processing grid; the as-recorded figures of the
    metrics are at the recorded samples (``recorded_t_s``, s on the trajectory's clock, with the
    recorded torque ``recorded_tau`` and the prediction there ``recorded_predicted``, Nm).
    """

    metrics: dict
    trajectory: Trajectory
    predicted: np.ndarray
    recorded_t_s: np.ndarray | None = None
    recorded_tau: np.ndarray | None = None
    recorded_predicted: np.ndarray | None = None


def at_recorded_samples(series: JointStateSeries, options: IdentificationOptions,
                        tr: Trajectory, predicted):
    """Return the recorded torque and the prediction at the recorded samples the run covers.

    The prediction (smooth: the model at the zero-phase processed states) is interpolated from
    the processing grid to each recorded stamp (cubic); the measured torque is the effort as
    recorded (times the drive gains for currents), neither resampled nor filtered.

    Args:
        series: the recorded run (the same as processed into ``tr``).
        options: the effort unit and drive gains.
        tr: the processed trajectory (``stamp0_ns``: the bag time of its t = 0).
        predicted: (len(tr), n) predicted torque on ``tr``'s grid, Nm.

    Returns:
        (t_s (M,) on ``tr``'s clock, recorded torque (M, n) Nm, prediction (M, n) Nm) over the
        recorded samples within ``tr``'s time span (its trimmed ends excluded).
    """
    series, _ = usable_samples(series)
    t = (series.stamp_ns - (tr.stamp0_ns if tr.stamp0_ns is not None else series.stamp_ns[0]))
    t = t * 1e-9
    inside = (t >= tr.t_s[0]) & (t <= tr.t_s[-1])
    tau = effort_to_torque(series.effort[inside], options, len(series.joint_names))
    pred = scipy.interpolate.CubicSpline(tr.t_s, predicted, axis=0)(t[inside])
    return t[inside], tau, pred


def validate(model: IdentifiedModel, series: JointStateSeries,
             options: IdentificationOptions | None = None, sidecar=None, filter_hz=None,
             min_velocity_rad_s=None, min_velocity_scope=None,
             min_velocity_margin_s=None, given=None) -> ValidationResult:
    """Prediction error of ``model`` on held-out data, processed as at identification.

    The as-recorded figures (``rmse_nm``, ``per_joint_relative_error``, ``relative_error``,
    ``samples``) compare the effort as recorded, at the recorded samples, with the prediction
    there; the filtered ones the effort resampled to the processing grid and low-passed at
    ``filter_hz`` (never the identification's own torque filter); with a minimum velocity
    (argument, else the one the model was identified with, if any) also the in-motion figures
    over the grid rows ``motion_mask`` keeps (``rmse_in_motion_nm`` ...).

    Args:
        model: the identified model.
        series: the held-out run.
        options: processing options (see ``processing_options``).
        sidecar: the run's sidecar dict, or None.
        filter_hz: cut-off of the filtered figures; default the model's torque cut-off, else
            the trajectory's.
        min_velocity_rad_s: joint j's rows where |qd_j| (processed) >= this are in motion.
        min_velocity_scope: 'joint', or 'all': every joint's |qd| >= it.
        min_velocity_margin_s: rows within this time of a slower sample are not in motion.
        given: names of ``options``' settings given explicitly (see ``processing_options``).

    Returns:
        The ``ValidationResult``.
    """
    opts = processing_options(model, options, given)
    vmin = opts.min_velocity_rad_s if min_velocity_rad_s is None else float(min_velocity_rad_s)
    scope = opts.min_velocity_scope if min_velocity_scope is None else min_velocity_scope
    margin = (opts.min_velocity_margin_s if min_velocity_margin_s is None
              else float(min_velocity_margin_s))
    check_motion_selection(vmin, scope, margin)
    # a run with pauses: each piece processed on its own (nothing interpolated across a pause)
    pieces, gap_notes = split_at_gaps(series, 'held-out run')
    pieces = _in_excitation_periods(pieces, opts, sidecar, gap_notes)
    parts = []
    for piece in pieces:
        tr = prepare_trajectory(piece, dataclasses.replace(opts, torque_filter=False), sidecar,
                                model.robot)
        pred = model.predict(tr.q, tr.qd, tr.qdd)
        if filter_hz is None:
            filter_hz = model.identification.get('torque_cutoff_hz') or tr.cutoff_hz
        mask = motion_mask(tr.qd, tr.rate_hz, vmin, scope, margin) if vmin > 0 else None
        parts.append((tr, pred, mask, at_recorded_samples(piece, opts, tr, pred)))
    if len(parts) == 1:
        tr, pred, mask, (t_rec, tau_rec, pred_rec) = parts[0]
        m = validation_metrics(tr.tau, pred, tr.rate_hz, filter_hz, model.joint_names, mask)
    else:
        tr, pred, mask, t_rec, tau_rec, pred_rec = _joined(parts, gap_notes)
        m = validation_metrics(tr.tau, pred, tr.rate_hz, filter_hz, model.joint_names, mask,
                               np.vstack([_lowpassed(p[0].tau, p[0].rate_hz, filter_hz)
                                          for p in parts]))
    m.update(validation_metrics(tau_rec, pred_rec, joint_names=model.joint_names))
    m['resampled_samples'] = len(tr)
    if mask is not None:
        m.update({'min_velocity_rad_s': vmin, 'min_velocity_scope': scope,
                  'min_velocity_margin_s': margin})
    m['source'] = series.source
    m['derivative_method'] = tr.method
    m['effort_unit'] = opts.effort_unit
    return ValidationResult(m, tr, pred, t_rec, tau_rec, pred_rec)


def _in_excitation_periods(pieces, opts, sidecar, notes):
    """Return the pieces of a held-out run that hold a sample of its excitation periods.

    Where processing cuts a run to the sidecar's excitation periods (``excitation_window``), a
    piece of the wait or the ramps around them would be cut to nothing: it is left out, with a
    line in ``notes``. Raises ``IdentificationError`` when no piece holds one.
    """
    window = excitation_window(sidecar, opts)
    if window is None:
        return pieces
    inside = [p for p in pieces if len(p.slice_stamp(window[0], window[1])) > 0]
    if not inside:
        raise IdentificationError(f'held-out run {pieces[0].source}: no sample inside the '
                                  "excitation periods of its sidecar; give the run's own sidecar")
    if len(inside) < len(pieces):
        notes.append(f'held-out run: {len(pieces) - len(inside)} piece(s) between gaps outside '
                     'the excitation periods left out')
    return inside


def _joined(parts, notes):
    """Return the pieces of a held-out run as one (trajectory, prediction, mask, recorded ...).

    The trajectory's t_s is on the first piece's clock (the pauses stay as jumps in it).
    """
    trs = [p[0] for p in parts]
    tr = joined_trajectory(trs, notes)
    masks = [p[2] for p in parts]
    rec = [p[3] for p in parts]
    return (tr, np.vstack([p[1] for p in parts]), None if masks[0] is None else np.vstack(masks),
            np.concatenate([r[0] + (x.stamp0_ns - tr.stamp0_ns) * 1e-9
                            for r, x in zip(rec, trs)]),
            np.vstack([r[1] for r in rec]), np.vstack([r[2] for r in rec]))
