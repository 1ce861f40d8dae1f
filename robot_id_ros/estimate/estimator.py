# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""External torque and wrench estimation without a force/torque sensor (``WrenchEstimator``).

Conventions
-----------
The arm obeys ``M(q) qdd + C(q, qd) qd + g(q) + f(qd) = tau_m + tau_ext`` where ``tau_m`` is the
measured drive torque (the driver's effort, or motor current x drive gain) and
``tau_ext = J(q)^T F`` is the joint torque caused by the wrench ``F`` that the environment applies
to the tool at the tool frame's origin (De Luca; Haddadin et al. 2017). Everything this package
reports follows that convention: ``tau_ext`` = model torque - measured torque, and ``wrench`` is
the wrench *applied to the tool* (push the tool down: negative z force in the base frame).

The estimator chains the units of this package: a residual (``residuals``: momentum observer or
direct residual) estimates tau_ext; friction near zero velocity is not given a sign
(``stiction``): within the stiction band the friction torque is taken at the centre of its bounds
and the band's half-width is reported as an interval on tau_ext, adds ``band^2 / 3`` (uniform) to
its variance and enters contact detection (``contact``) as one more standard deviation of that
joint; ``mapping`` turns tau_ext into the wrench and ``uncertainty`` gives its covariance. The
stamp, tare and covariance-period rules (``samples``, ``uncertainty.CovarianceSchedule``) are
shared by ``update`` (one sample) and ``process`` (arrays), which give the same numbers. So are
the glitch rules: a sample outside the model's limits with a margin (``samples.InputBounds``) is
rejected like a malformed one, and a sample that leaves the state non-finite (residual, wrench,
covariance) is rejected and restarts the estimator (``NONFINITE_REASON``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import add, sub

import numpy as np
import pinocchio as pin

from robot_id_ros.errors import InputError, OperationError
from robot_id_ros.estimate.config import EstimatorConfig
from robot_id_ros.estimate.contact import CONTACT_NONE, COLLISION, ContactDetector, ContactState
from robot_id_ros.estimate.envelope import BiasEnvelope
from robot_id_ros.estimate.mapping import WrenchMapper, root_frame_name
from robot_id_ros.estimate.onesample import joint_scale_one, stiction_one
from robot_id_ros.estimate.residuals import DirectResidual, MomentumObserver
from robot_id_ros.estimate.samples import (NONFINITE_STATE, EstimatorInputError, InputBounds,
                                           StampGate, TareAverage, check_sample,
                                           first_nonfinite)
from robot_id_ros.estimate.stiction import (StictionFriction, deadzone, hold_band, hold_band_step,
                                            stiction_batch)
from robot_id_ros.estimate.uncertainty import (CovarianceSchedule, LagVariance, TorqueUncertainty,
                                               batch_wrench_std, damping_bias, damping_bias_one,
                                               sample_covariance, white_noise_gain,
                                               white_noise_gain_one, wrench_prior)
from robot_id_ros.io.model_file import IdentifiedModel, Payload

NONFINITE_REASON = 'non-finite internal state'   # the reset after a sample that made it so
_crba, _nle, _frame_jacobian, _WORLD = (pin.crba, pin.nonLinearEffects, pin.getFrameJacobian,
                                        pin.Convention.WORLD)


@dataclass
class EstimateResult:
    """One estimate; ``wrench`` (fx, fy, fz, mx, my, mz) is applied to the tool at its origin.

    In ``frame_id``; wrench rows the mode does not estimate are zero, their covariance too.
    """

    stamp_ns: int
    tau_ext: np.ndarray           # (n,) Nm, tared
    tau_ext_band: np.ndarray      # (n,) Nm half-width of the stiction interval on tau_ext
    wrench: np.ndarray            # (6,) N and Nm
    wrench_covariance: np.ndarray  # (6, 6)
    contact_state: ContactState   # NONE / CONTACT / COLLISION
    contact_score: float          # contact statistic / its threshold (1 = at it; ContactDetector)
    sigma_min: float              # smallest singular value of the mapped Jacobian
    damped: bool                  # damping active (near a singularity)
    frame_id: str
    reset_reason: str | None = None

    @property
    def contact(self):
        """True in contact or collision."""
        return self.contact_state != CONTACT_NONE

    @property
    def collision(self):
        """True in collision."""
        return self.contact_state == COLLISION


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


class WrenchEstimator:
    """External joint torque, tool wrench, its covariance and contact state from joint states.

    ``update`` takes one sample (stamp in ns, q, qd in rad and rad/s, measured torque in Nm, model
    joint order) and returns an ``EstimateResult``; it raises ``EstimatorInputError`` for a sample
    it will not use (state unchanged). ``process`` runs the same estimator over arrays (offline).

    Args:
        model: the identified model (changed by ``set_payload``).
        config: settings; None: the defaults.

    Raises:
        InputError: invalid settings.
    """

    def __init__(self, model: IdentifiedModel, config: EstimatorConfig | None = None):
        self.model = model
        self.config = (config or EstimatorConfig()).validated()
        c = self.config
        self.robot = model.robot
        self.n = model.n
        self._pm, self._pd = self.robot.model, self.robot.data
        self._fid = self.robot.tool_frame_id
        self._ref = pin.LOCAL_WORLD_ALIGNED if c.frame == 'base' else pin.LOCAL
        self.frame_id = (root_frame_name(self.robot.model) if c.frame == 'base'
                         else self.robot.tool_frame)
        self.mapper = WrenchMapper(self.n, c.wrench_mode, c.sigma_guard, c.damping)
        self._prior = wrench_prior(self.robot)     # caps the damping bias (N, Nm)
        self.residual_std_nm, self.threshold_source = self._residual_std()
        self.friction = StictionFriction(model.friction, c.stiction_velocity_rad_s,
                                         c.friction_sign, self.residual_std_nm)
        self.contact = self._detector()
        self.uncertainty = TorqueUncertainty(model, self.residual_std_nm, self.friction.v_s)
        if c.method == 'momentum':
            self.residual = MomentumObserver(self.n, c.observer_gain_hz)
        else:
            self.residual = DirectResidual(self.n, c.direct_filter_hz)
        # the residual forgets the stuck-phase friction at its own bandwidth (see hold_band)
        bandwidth_hz = c.observer_gain_hz if c.method == 'momentum' else c.direct_filter_hz
        self._band_rate = 2.0 * math.pi * bandwidth_hz
        self._lag = LagVariance(bandwidth_hz, self.residual_std_nm ** 2)
        self._bias_env = BiasEnvelope(c.covariance_period_s)
        self.bounds = InputBounds(self.robot.limits)
        self.gate = StampGate(c.time_jump_s, c.max_gap_s)
        self._tare_avg = TareAverage(c.tare_window_s)
        self._cov_schedule = CovarianceSchedule(c.covariance_period_s)
        self.bias = np.zeros(self.n)
        # what update needs and does not change per sample
        self._weighted, self._stiction_mode = c.band_weighting, c.stiction_mode
        self._res_var = (self.residual_std_nm ** 2).tolist()
        # no joint in a band: the joint scale is fixed (an array: map_one takes it as it is)
        self._sw_free = np.array(joint_scale_one(self._res_var, [0.0] * self.n))
        self.reset()

    def _residual_std(self):
        """(residual std (n,) Nm, where it comes from): the model file's, else the default."""
        std, c = self.model.residual_std_nm, self.config
        if std is not None and np.all(np.isfinite(std)) and np.all(np.asarray(std) > 0):
            return np.asarray(std, dtype=float), 'model residual std'
        return (np.full(self.n, c.default_residual_std_nm),
                f'default residual std {c.default_residual_std_nm} Nm (model file has none)')

    def _detector(self):
        """Return the contact detector: thresholds in Nm from the config, else k residual std."""
        c = self.config
        contact_nm = (np.asarray(c.contact_threshold_nm, float)
                      if c.contact_threshold_nm is not None
                      else c.contact_threshold_sigma * self.residual_std_nm)
        collision_nm = (np.asarray(c.collision_threshold_nm, float)
                        if c.collision_threshold_nm is not None
                        else c.collision_threshold_sigma * self.residual_std_nm)
        for name, v in (('contact_threshold_nm', contact_nm),
                        ('collision_threshold_nm', collision_nm)):
            if v.shape != (self.n,):
                raise InputError(f'{name} needs {self.n} values, got {v.shape}', 'config')
        return ContactDetector(contact_nm, collision_nm, c.contact_release_ratio, c.contact_test,
                               c.contact_threshold_sigma, c.collision_threshold_sigma)

    def _joint_scale(self, band):
        """Return sqrt(w), w = 1 / (residual variance + band^2 / 3) per joint; (n,) or (N, n).

        Normalised to 1 at the most certain joint (the mapper's sigma guard keeps its meaning).
        """
        w = 1.0 / (self.residual_std_nm ** 2 + np.asarray(band) ** 2 / 3.0)
        return np.sqrt(w / w.max(axis=-1, keepdims=True))

    # --- state --------------------------------------------------------------------------
    @property
    def stiction_band(self):
        """(n,) Nm, the stiction band half-width at the last sample; None after a reset."""
        return None if self._band_held is None else np.array(self._band_held)

    @property
    def last_stamp_ns(self):
        """Stamp (ns) of the last sample taken since the last reset; None after a reset."""
        return self.gate.last_ns

    def reset(self, reason='reset'):
        """Restart the residual (observer, filters), stamps and contact state; keep the tare.

        Args:
            reason: kept as ``last_reset_reason``.
        """
        self.gate.reset()
        self._restart(reason)

    def _restart(self, reason):
        """``reset`` but the stamp gate (which has just taken the sample that restarts)."""
        self.residual.reset()
        self.contact.reset()
        self._tare_avg.reset()
        self._cov_schedule.reset()
        self.last_q = self._qd_prev = None      # last_q: the last sample's q (rad)
        self._wrench_cov = np.zeros((6, 6))
        self._cov_rows = None       # the wrench map of the last covariance recomputation
        self._r_prev = None
        self._lag.reset()
        self._bias_env.reset()
        self._band_held = None
        self._band_any = False        # some joint's held band > 0 (else the hold is skipped)
        self._held = None
        self._cov_finite = True
        self.last_reset_reason = reason

    def tare(self):
        """Take the recent mean tau_ext (before tare) as bias: the current reading becomes zero.

        With a stiction mode ('deadzone', 'hold') a resting joint's bias is only the part of its
        average outside its stiction band: inside, the residual is static friction that the next
        motion removes, not a bias (taking it would shift that joint by up to its band for good).

        Returns:
            (n,) Nm, the bias.

        Raises:
            OperationError: (a RuntimeError; kind 'no_sample') before any sample.
        """
        if self._tare_avg.value is None:
            raise OperationError('cannot tare before the first joint state sample', 'no_sample')
        self.bias = self._bias_from(self._tare_avg.value, self.stiction_band)
        self._held = None
        return self.bias

    def _bias_from(self, avg, band):
        """Return the tare bias from mean residual ``avg`` (Nm) and the band (see ``tare``)."""
        if self.config.stiction_mode != 'none' and band is not None:
            return deadzone(avg, band)
        return avg.copy()

    def clear_tare(self):
        """Remove the tare: the bias is zero again."""
        self.bias = np.zeros(self.n)
        self._held = None

    def set_payload(self, mass_kg=None, com_m=(0.0, 0.0, 0.0)):
        """Attach a payload at the tool, or remove it.

        Args:
            mass_kg: kg; None or 0 removes the payload.
            com_m: its centre of mass in the tool frame, m.

        Raises:
            InputError: a mass <= 0 or a COM that is not a finite 3-vector.
        """
        if mass_kg is None or float(mass_kg) == 0.0:
            self.model.set_payload(None)
            return
        com = np.asarray(com_m, dtype=float)
        if not (np.isfinite(mass_kg) and mass_kg > 0 and com.shape == (3,)
                and np.all(np.isfinite(com))):
            raise InputError(f'payload needs a mass > 0 kg and a finite 3-vector COM, got '
                             f'{mass_kg}, {com_m}', 'payload')
        self.model.set_payload(Payload(float(mass_kg), com))

    # --- one sample ---------------------------------------------------------------------
    def update(self, stamp_ns, q, qd, effort_nm) -> EstimateResult:
        """Take one joint-state sample.

        Args:
            stamp_ns: the sample's stamp, ns.
            q: (n,) rad, model joint order.
            qd: (n,) rad/s.
            effort_nm: (n,) measured joint torque, Nm.

        Returns:
            ``EstimateResult``; its ``reset_reason`` is set when this sample restarted the
            estimator (time jump, gap).

        Raises:
            EstimatorInputError: a sample not to use (shape, non-finite, implausible, duplicate
                or out-of-order stamp; the state is unchanged), or (kind 'nonfinite_state') a
                sample that made the state non-finite: the estimator is reset (tare kept) and
                the next sample starts afresh.
        """
        q, qd, tau_m = check_sample(self.n, q, qd, effort_nm, self.bounds)
        stamp_ns = int(stamp_ns)
        dt, reason = self.gate.accept(stamp_ns)
        if reason is not None:
            self._restart(reason)
        # per-joint arithmetic on floats (see onesample); an all-zero band skips the band's work
        m, d = self._pm, self._pd
        qp = self.robot.q_pin(q)
        _crba(m, d, qp, _WORLD)     # M and the joint Jacobians (one forward pass)
        M = d.M.copy()
        J = _frame_jacobian(m, d, self._fid, self._ref)
        f, band = self.friction.one(qd.tolist())
        if self._band_any and dt > 0.0:     # a held band to release (none after a restart)
            band = hold_band_step(band, self._band_held, dt, self._band_rate)
        self._band_held = band
        self._band_any = any(band)
        free = not self._band_any
        u = list(map(sub, map(add, _nle(m, d, qp, qd).tolist(), f), tau_m.tolist()))
        r = self.residual.step(dt, M, qd, u)
        self._tare_avg.add(r, dt)
        tau = list(map(sub, r, self.bias.tolist()))
        sw = ((self._sw_free if free else joint_scale_one(self._res_var, band))
              if self._weighted else None)
        tau_map, self._held = stiction_one(self._stiction_mode, tau, band, free, self._held)
        wrench, smin, damped = self.mapper.map_one(J, tau_map, sw)
        s_c, s_k = self.contact.scores_one(tau, band)
        state = self.contact.step(s_c, s_k)
        if self._cov_schedule.due(stamp_ns):
            self._wrench_cov, self._cov_rows = self._covariance_one(q, qd, dt, band, J, sw)
            self._cov_finite = bool(np.isfinite(self._wrench_cov).all())
        self.last_q, self._qd_prev = q, qd
        lag = self._lag.step(dt, self._r_prev, r, band, self._cov_rows)
        self._r_prev = r
        bias = damping_bias_one(J, tau_map, sw, wrench, self.mapper.rows,
                                self._prior) if damped else None
        cov = sample_covariance(self._wrench_cov, lag, bias, self._bias_env.step(dt, bias))
        # finite: the held covariance (checked when recomputed), the lag and the bias
        check = sum(tau) + sum(wrench.tolist()) + s_c + s_k + sum(lag)
        if bias is not None:
            check += sum(bias.tolist())
        if not (math.isfinite(check) and self._cov_finite):
            self.reset(NONFINITE_REASON)
            raise EstimatorInputError(NONFINITE_STATE, f'sample at {stamp_ns} ns made the '
                                      'estimate non-finite: estimator reset')
        return EstimateResult(stamp_ns, np.array(tau), np.array(band), wrench, cov, state, s_c,
                              smin, damped, self.frame_id, reason)

    def _covariance_one(self, q, qd, dt, band, J, sw):
        """Return the wrench covariance (6, 6) and its map A (6, n) at this sample.

        ``band`` n floats, Nm.
        """
        A = self.mapper.matrix_one(J, sw)
        gain = white_noise_gain_one(self.config.method, self._lag.bandwidth_hz, dt)
        return self.uncertainty.wrench_covariance(A, q, qd, self._qd_prev, dt, band, gain), A

    # --- many samples -------------------------------------------------------------------
    def process(self, stamp_ns, Q, QD, E, tare_at_s=None, progress=None) -> BatchResult:
        """Run the estimator over N samples (``update``'s numbers, vectorised).

        Samples with NaN/inf, outside the input bounds, with duplicate or slightly older stamps
        are rejected (listed); a stamp jumping back by more than ``time_jump_s`` or a gap over
        ``max_gap_s`` restarts the residual, as ``update`` does; a sample that makes the state
        non-finite is rejected and the estimator restarts after it (as ``update`` does). Starts
        from a reset estimator and leaves one (the tare is kept).

        Args:
            stamp_ns: (N,) int ns.
            Q: (N, n) rad, model joint order.
            QD: (N, n) rad/s.
            E: (N, n) measured joint torque, Nm.
            tare_at_s: tare after the first sample that many seconds after the start (as
                ``tare`` called after its ``update``: the later samples are tared); None: no tare.
            progress: ``progress(done, total)`` is called now and then.

        Returns:
            ``BatchResult`` over the accepted samples.

        Raises:
            EstimatorInputError: (kind 'shape') arrays of the wrong shape.
        """
        stamp_ns = np.asarray(stamp_ns, dtype=np.int64)
        Q, QD, E = (np.asarray(a, dtype=float) for a in (Q, QD, E))
        N0, n = Q.shape
        if QD.shape != Q.shape or E.shape != Q.shape or stamp_ns.shape != (N0,) or n != self.n:
            raise EstimatorInputError('shape', f'expected (N, {self.n}) arrays and N stamps, got '
                                      f'{Q.shape}, {QD.shape}, {E.shape}, {stamp_ns.shape}')
        usable = np.isfinite(Q).all(1) & np.isfinite(QD).all(1) & np.isfinite(E).all(1)
        why = {}
        for k in np.flatnonzero(usable & ~self.bounds.inside(*(np.where(
                usable[:, None], A, 0.0) for A in (Q, QD, E)))).tolist():
            usable[k], why[k] = False, self.bounds.problem(Q[k], QD[k], E[k])
        bias0, cuts = self.bias.copy(), []     # cuts: where a non-finite state restarted
        while True:
            self.bias = bias0.copy()
            parts, tare = [], [None]           # tare: the stamp of the tare still to take
            if tare_at_s is not None and usable.any():
                tare = [int(stamp_ns[np.argmax(usable)]) + int(tare_at_s * 1e9)]
            for i0, i1 in zip([0] + cuts, cuts + [N0]):
                self.reset('process')
                part = self._process_part(stamp_ns[i0:i1], Q[i0:i1], QD[i0:i1], E[i0:i1],
                                          usable[i0:i1], tare, progress)
                parts.append((i0, part))
            bad = first_nonfinite(parts)
            if bad is None:
                break
            usable[bad], why[bad] = False, NONFINITE_REASON
            cuts = sorted(set(cuts) | {bad + 1} - {N0})
        self.reset('process done')   # process() starts from and leaves a reset estimator
        return self._joined(parts, why, cuts)

    def _joined(self, parts, why, cuts):
        """Join parts ``[(first input index, BatchResult)]``; ``why`` {index: reason} first."""
        def cat(name):
            return np.concatenate([getattr(p, name) for _, p in parts])
        index = np.concatenate([i0 + p.index for i0, p in parts]).astype(np.int64)
        rejected = sorted((i0 + k, why.get(i0 + k, r)) for i0, p in parts for k, r in p.rejected)
        resets = sorted([(i0 + k, r) for i0, p in parts for k, r in p.resets]
                        + [(c - 1, NONFINITE_REASON) for c in cuts])
        return BatchResult(cat('stamp_ns'), cat('tau_ext'), cat('wrench'), cat('wrench_std'),
                           cat('contact_state'), cat('sigma_min'), self.frame_id, index,
                           rejected, resets)

    def _process_part(self, stamp_ns, Q, QD, E, usable, tare, progress):
        """Run ``process`` between non-finite restarts; ``tare``: [stamp ns], [None] once taken."""
        n = self.n
        keep, seg_start, rejected, resets = self.gate.scan(stamp_ns, usable)
        idx = np.flatnonzero(keep)
        S, Q, QD, E, starts = stamp_ns[idx], Q[idx], QD[idx], E[idx], seg_start[idx]
        N = len(idx)
        if N == 0:
            return BatchResult(S, np.zeros((0, n)), np.zeros((0, 6)), np.zeros((0, 6)),
                               np.zeros(0, int), np.zeros(0), self.frame_id, idx, rejected,
                               resets)
        Ms, H, Js = self._dynamics(Q, QD, progress)
        F, band = self.friction(QD)
        dt = np.zeros(N)
        dt[1:] = (S[1:] - S[:-1]) * 1e-9
        dt[starts] = 0.0
        band = hold_band(band, dt, self._band_rate, starts)
        seg = np.flatnonzero(starts)
        seg_end = np.r_[seg[1:], N]
        U = H + F - E
        R = np.empty((N, n))
        for s0, s1 in zip(seg, seg_end):
            R[s0:s1] = self.residual.batch(dt[s0:s1], Ms[s0:s1], QD[s0:s1], U[s0:s1])
        T, restart = self._tare_batch(R, S, dt, band, starts, tare)
        sw = self._joint_scale(band) if self.config.band_weighting else np.ones((N, n))
        A, smin, damped = self.mapper.matrices(Js * sw[:, None, :])
        A = A * sw[:, None, :]                       # wrench = A tau in the original joint units
        Tm = stiction_batch(self.config.stiction_mode, T, band, restart)
        W = np.einsum('kij,kj->ki', A, Tm)
        states = self.contact.states(*self.contact.scores(T, band), starts)
        bias = damping_bias(Js * sw[:, None, :], Tm * sw, W, self.mapper.rows, damped,
                            self._prior)
        gain = white_noise_gain(self.config.method, self._lag.bandwidth_hz, dt)   # 0 at starts
        wstd = batch_wrench_std(self.uncertainty, self._lag, self._cov_schedule.samples(
            S, seg, seg_end), gain, A, Q, QD, dt, band, starts, R, bias, self._bias_env)
        if progress is not None:
            progress(N, N)
        return BatchResult(S, T, W, wstd, states, smin, self.frame_id, idx, rejected, resets)

    def _dynamics(self, Q, QD, progress):
        """Return M (N, n, n), C qd + g (N, n) and the tool Jacobian (N, 6, n) of N samples."""
        N, n = Q.shape
        Ms = np.empty((N, n, n))
        H = np.empty((N, n))
        Js = np.empty((N, 6, n))
        m, d, fid, ref, qpin = self._pm, self._pd, self._fid, self._ref, self.robot.q_pin
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

    def _tare_batch(self, R, S, dt, band, starts, tare):
        """Return tared tau_ext (N, n) and where the stiction hold restarts, (N,) bool.

        With ``tare`` = ``[stamp ns]``, set ``self.bias`` after the first sample from that stamp on
        as ``tare`` would there (and ``tare[0]`` to None: taken): the samples after it are tared.
        """
        T = R - self.bias
        restart = starts.copy()         # where the stiction hold starts afresh
        seg = np.flatnonzero(starts)
        if tare[0] is not None:
            k_t = int(np.searchsorted(S, tare[0]))
            if k_t < len(R):
                avg = self._tare_avg.over(R, dt, seg[seg <= k_t][-1], k_t)
                self.bias = self._bias_from(avg, band[k_t])
                T[k_t + 1:] = R[k_t + 1:] - self.bias
                restart[k_t + 1:k_t + 2] = True
                tare[0] = None
        return T, restart
