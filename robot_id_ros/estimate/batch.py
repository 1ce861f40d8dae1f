# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``WrenchEstimator.process``: the estimator over arrays (offline), ``update``'s rules vectorised.

Each rule is the vectorised form of the one ``update`` runs one sample at a time in its compiled
step (``sample_step``); test/estimate/test_update_equals_process.py checks that the two give the
same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from robot_id_ros.estimate.over_samples import unexplained_band_over
from robot_id_ros.estimate.samples import (NONFINITE_REASON, NONFINITE_STATE, EstimatorInputError,
                                           Rejection, first_nonfinite, tare_average)
from robot_id_ros.estimate.stiction import hold_band, stiction_batch
from robot_id_ros.estimate.uncertainty import batch_wrench_std, damping_bias, white_noise_gain


@dataclass
class BatchResult:
    """``WrenchEstimator.process`` output: arrays over the accepted samples."""

    stamp_ns: np.ndarray           # (N,)
    tau_ext: np.ndarray            # (N, n) Nm
    wrench: np.ndarray             # (N, 6) N and Nm
    wrench_std: np.ndarray         # (N, 6) square roots of the covariance diagonal
    contact_state: np.ndarray      # (N,) int (ContactState values)
    sigma_min: np.ndarray          # (N,)
    frame_id: str
    index: np.ndarray              # (N,) index of each accepted sample in the input
    rejected: list = field(default_factory=list)   # (input index, reason)
    resets: list = field(default_factory=list)     # (input index, reason)


def checked_arrays(est, stamp_ns, Q, QD, E):
    """Return ``process``'s inputs as arrays (int64 stamps, float rest), their shapes checked.

    Raises:
        EstimatorInputError: (kind 'shape') arrays of the wrong shape.
    """
    stamp_ns = np.asarray(stamp_ns, dtype=np.int64)
    Q, QD, E = (np.asarray(a, dtype=float) for a in (Q, QD, E))
    if (Q.ndim != 2 or QD.shape != Q.shape or E.shape != Q.shape
            or stamp_ns.shape != (len(Q),) or Q.shape[1] != est.n):
        raise EstimatorInputError('shape', f'expected (N, {est.n}) arrays and N stamps, got '
                                  f'{Q.shape}, {QD.shape}, {E.shape}, {stamp_ns.shape}')
    return stamp_ns, Q, QD, E


def process_batch(est, stamp_ns, Q, QD, E, tare_at_s=None, progress=None) -> BatchResult:
    """Run the estimator ``est`` over N samples (``WrenchEstimator.process`` says how)."""
    stamp_ns, Q, QD, E = checked_arrays(est, stamp_ns, Q, QD, E)
    N0 = len(Q)
    usable = np.isfinite(Q).all(1) & np.isfinite(QD).all(1) & np.isfinite(E).all(1)
    why = {}
    for k in np.flatnonzero(usable & ~est.bounds.inside(*(np.where(
            usable[:, None], A, 0.0) for A in (Q, QD, E)))).tolist():
        usable[k], why[k] = False, est.bounds.rejection(Q[k], QD[k], E[k])
    bias0, cuts = est.bias.copy(), []     # cuts: where a non-finite state restarted
    while True:
        est.bias = bias0.copy()
        parts, tare = [], [None]           # tare: the stamp of the tare still to take
        if tare_at_s is not None and usable.any():
            tare = [int(stamp_ns[np.argmax(usable)]) + int(tare_at_s * 1e9)]
        for i0, i1 in zip([0] + cuts, cuts + [N0]):
            est.reset('process')
            part = _process_part(est, stamp_ns[i0:i1], Q[i0:i1], QD[i0:i1], E[i0:i1],
                                 usable[i0:i1], tare, progress)
            parts.append((i0, part))
        bad = first_nonfinite(parts)
        if bad is None:
            break
        usable[bad], why[bad] = False, Rejection(NONFINITE_STATE, NONFINITE_REASON)
        cuts = sorted(set(cuts) | {bad + 1} - {N0})
    est.reset('process done')   # process() starts from and leaves a reset estimator
    return _joined(parts, why, cuts, est.frame_id)


def process_by_update(est, stamp_ns, Q, QD, E, tare_at_s=None, progress=None) -> BatchResult:
    """Run ``est.update`` over N samples, for an estimator whose samples change the next ones.

    ``process``'s inputs and result (a tare taken after the first sample ``tare_at_s`` after the
    first one accepted); a sample ``update`` refuses is listed with its reason.
    """
    stamp_ns, Q, QD, E = checked_arrays(est, stamp_ns, Q, QD, E)
    N, n = Q.shape
    est.reset('process')
    rows, index, rejected, resets, tare_ns = [], [], [], [], None
    for k in range(N):
        try:
            r = est.update(int(stamp_ns[k]), Q[k], QD[k], E[k])
        except EstimatorInputError as exc:
            rejected.append((k, Rejection(exc.kind, str(exc))))
            if exc.kind == NONFINITE_STATE:
                resets.append((k, NONFINITE_REASON))
            continue
        if r.reset_reason is not None and index:
            resets.append((k, r.reset_reason))
        rows.append(r)
        index.append(k)
        if tare_at_s is not None and tare_ns is None:
            tare_ns = int(stamp_ns[k]) + int(tare_at_s * 1e9)
        if tare_ns is not None and tare_ns != -1 and stamp_ns[k] >= tare_ns:
            est.tare()
            tare_ns = -1
        if progress is not None and k % 1000 == 0:
            progress(k, N)
    if progress is not None:
        progress(N, N)
    est.reset('process done')

    def stacked(values, shape):
        return np.array(values, dtype=float).reshape((len(rows),) + shape)
    return BatchResult(
        np.array([r.stamp_ns for r in rows], dtype=np.int64),
        stacked([r.tau_ext for r in rows], (n,)), stacked([r.wrench for r in rows], (6,)),
        stacked([np.sqrt(np.maximum(np.diag(r.wrench_covariance), 0.0)) for r in rows], (6,)),
        np.array([int(r.contact_state) for r in rows], dtype=int),
        stacked([r.sigma_min for r in rows], ()), est.frame_id, np.array(index, dtype=np.int64),
        rejected, resets)


def _joined(parts, why, cuts, frame_id):
    """Join parts ``[(first input index, BatchResult)]``; ``why`` {index: reason} first."""
    def cat(name):
        return np.concatenate([getattr(p, name) for _, p in parts])
    index = np.concatenate([i0 + p.index for i0, p in parts]).astype(np.int64)
    rejected = sorted((i0 + k, why.get(i0 + k, r)) for i0, p in parts for k, r in p.rejected)
    resets = sorted([(i0 + k, r) for i0, p in parts for k, r in p.resets]
                    + [(c - 1, NONFINITE_REASON) for c in cuts])
    return BatchResult(cat('stamp_ns'), cat('tau_ext'), cat('wrench'), cat('wrench_std'),
                       cat('contact_state'), cat('sigma_min'), frame_id, index,
                       rejected, resets)


def _process_part(est, stamp_ns, Q, QD, E, usable, tare, progress):
    """Run ``process`` between non-finite restarts; ``tare``: [stamp ns], [None] once taken."""
    n = est.n
    keep, seg_start, rejected, resets = est.gate.scan(stamp_ns, usable, Q, QD)
    idx = np.flatnonzero(keep)
    S, Q, QD, E, starts = stamp_ns[idx], Q[idx], QD[idx], E[idx], seg_start[idx]
    N = len(idx)
    if N == 0:
        return BatchResult(S, np.zeros((0, n)), np.zeros((0, 6)), np.zeros((0, 6)),
                           np.zeros(0, int), np.zeros(0), est.frame_id, idx, rejected,
                           resets)
    Ms, H, Js = _dynamics(est, Q, QD, progress)
    dt = np.zeros(N)
    dt[1:] = (S[1:] - S[:-1]) * 1e-9
    dt[starts] = 0.0
    seg = np.flatnonzero(starts)
    seg_end = np.r_[seg[1:], N]
    F, band = est.friction(QD, _presliding_states(est, Q, QD, seg, seg_end), E)
    band = hold_band(band, dt, est.band_rate, starts)
    U = H + F - E
    R = np.empty((N, n))
    for s0, s1 in zip(seg, seg_end):
        R[s0:s1] = est.residual.batch(dt[s0:s1], Ms[s0:s1], QD[s0:s1], U[s0:s1])
    T, restart = _tare_batch(est, R, S, dt, band, starts, tare)
    sw = est.joint_scale(band) if est.config.band_weighting else np.ones((N, n))
    A, smin, damped = est.mapper.matrices(Js * sw[:, None, :])
    A = A * sw[:, None, :]                       # wrench = A tau in the original joint units
    Tm = stiction_batch(est.config.stiction_mode, T, band, restart)
    W = np.einsum('kij,kj->ki', A, Tm)
    states = est.contact.states(*est.contact.scores(T, _unexplained(est, band, R + E, QD)),
                                starts)
    bias = damping_bias(Js * sw[:, None, :], Tm * sw, W, est.mapper.rows, damped,
                        est.wrench_prior)
    gain = white_noise_gain(est.config.method, est.lag.bandwidth_hz, dt)   # 0 at starts
    wstd = batch_wrench_std(est.uncertainty, est.lag, est.covariance_schedule.samples(
        S, seg, seg_end), gain, A, Q, QD, dt, band, starts, R, bias, est.bias_envelope, E)
    if progress is not None:
        progress(N, N)
    return BatchResult(S, T, W, wstd, states, smin, est.frame_id, idx, rejected, resets)


def _unexplained(est, band, model_nm, QD):
    """Return the contact test's band: the stiction band and the model's error (N, n) Nm."""
    st = est.statistics
    if not st.model_error:
        return band
    return unexplained_band_over(band, model_nm, QD, st.model_relative_error,
                                 st.speed_error_nm_s_rad)


def _presliding_states(est, Q, QD, seg, seg_end):
    """Return the Dahl state (N, n) of the model's presliding joints, or None.

    Each segment is started afresh (as ``update`` after a restart); None where the model has
    no presliding.
    """
    fr = est.friction
    if not est.has_presliding:
        return None
    Z = np.empty_like(Q)
    for s0, s1 in zip(seg, seg_end):
        Z[s0:s1] = fr.friction.presliding_state(Q[s0:s1], fr.presliding_start(QD[s0]))
    return Z


def _dynamics(est, Q, QD, progress):
    """Return M (N, n, n), C qd + g (N, n) and the tool Jacobian (N, 6, n) of N samples."""
    N, n = Q.shape
    Ms = np.empty((N, n, n))
    H = np.empty((N, n))
    Js = np.empty((N, 6, n))
    robot = est.robot
    m, d, fid, qpin = robot.model, robot.data, robot.tool_frame_id, robot.q_pin
    ref = est.jacobian_reference
    crba, nle, gfj = pin.crba, pin.nonLinearEffects, pin.getFrameJacobian
    world = pin.Convention.WORLD
    step = max(1, N // 20)
    q0 = Q[0]
    QP = Q if qpin(q0) is q0 else np.array([qpin(q) for q in Q])   # no continuous joints
    for k0 in range(0, N, step):       # in chunks, for progress
        k1 = min(k0 + step, N)
        if progress is not None:
            progress(k0, N)
        for qk, qdk, Mk, Hk, Jk in zip(QP[k0:k1], QD[k0:k1], Ms[k0:k1], H[k0:k1], Js[k0:k1]):
            Mk[...] = crba(m, d, qk, world)     # and the joint Jacobians gfj reads
            Hk[...] = nle(m, d, qk, qdk)
            Jk[...] = gfj(m, d, fid, ref)
    return Ms, H, Js


def _tare_batch(est, R, S, dt, band, starts, tare):
    """Return tared tau_ext (N, n) and where the stiction hold restarts, (N,) bool.

    With ``tare`` = ``[stamp ns]``, set ``est.bias`` after the first sample from that stamp on
    as ``tare`` would there (and ``tare[0]`` to None: taken): the samples after it are tared.
    """
    T = R - est.bias
    restart = starts.copy()         # where the stiction hold starts afresh
    seg = np.flatnonzero(starts)
    if tare[0] is not None:
        k_t = int(np.searchsorted(S, tare[0]))
        if k_t < len(R):
            avg = tare_average(R, dt, seg[seg <= k_t][-1], k_t, est.config.tare_window_s)
            est.bias = est.bias_from(avg, band[k_t])
            T[k_t + 1:] = R[k_t + 1:] - est.bias
            restart[k_t + 1:k_t + 2] = True
            tare[0] = None
    return T, restart
