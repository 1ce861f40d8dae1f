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
the glitch rules: a sample outside the model's limits with a margin (``samples.InputBounds``) or
one that jumped from the previous one (``jumps``) is rejected like a malformed one, and a sample
that leaves the state non-finite is rejected and restarts the estimator (``NONFINITE_REASON``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from robot_id_ros.errors import InputError, OperationError
from robot_id_ros.estimate.config import EstimatorConfig
from robot_id_ros.estimate.contact import CONTACT_NONE, COLLISION, ContactDetector, ContactState
from robot_id_ros.estimate.envelope import BiasEnvelope
from robot_id_ros.estimate.mapping import WrenchMapper, root_frame_name
import robot_id_ros.estimate.onestep as K
from robot_id_ros.estimate.residuals import DirectResidual, MomentumObserver
from robot_id_ros.estimate.samples import (NONFINITE_STATE, EstimatorInputError, InputBounds,
                                           Rejection, StampGate, TareAverage, check_sample,
                                           first_nonfinite)
from robot_id_ros.estimate.stiction import (StictionFriction, deadzone, hold_band,
                                            stiction_batch)
from robot_id_ros.estimate.uncertainty import (CovarianceSchedule, LagVariance, TorqueUncertainty,
                                               batch_wrench_std, damping_bias, damping_bias_one,
                                               white_noise_gain, wrench_prior)
from robot_id_ros.io.model_file import IdentifiedModel, Payload

NONFINITE_REASON = 'non-finite internal state'   # the reset after a sample that made it so
_crba, _nle, _frame_jacobian, _WORLD = (pin.crba, pin.nonLinearEffects, pin.getFrameJacobian,
                                        pin.Convention.WORLD)
_STATES = tuple(ContactState)      # by level


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
        self._band_rate = 2.0 * np.pi * bandwidth_hz
        self._lag = LagVariance(bandwidth_hz, self.residual_std_nm ** 2)
        self._bias_env = BiasEnvelope(c.covariance_period_s)
        self.bounds = InputBounds(self.robot.limits)
        self.gate = StampGate(c.time_jump_s, c.max_gap_s, self.bounds)
        self._tare_avg = TareAverage(c.tare_window_s)
        self._cov_schedule = CovarianceSchedule(c.covariance_period_s)
        # update's compiled step (onestep): its fixed parameters and its state
        self._P, self._p = K.step_parameters(
            self.n, model.friction, self.friction.v_s, c.friction_sign,
            self.residual_std_nm ** 2, self.contact, c, self._band_rate, self._lag.K,
            self.mapper.lam_min, self.mapper.block_start, self._joint_scale(np.zeros(self.n)))
        self._S, self._s, self._M_prev = K.new_state(self.n)
        self._wrench = np.zeros(6)           # the wrench of the sample being taken
        self._bias_nm = np.zeros(6)          # the damping bias of a damped sample
        self.reset()
        self._compile_step()

    def _compile_step(self):
        """Compile the step for this model's array types, or load it from numba's cache.

        On throw-away state at the neutral pose, so that the first sample is not late.
        """
        m, d = self._pm, self._pd
        q = pin.neutral(m)
        _crba(m, d, q, _WORLD)
        J = _frame_jacobian(m, d, self._fid, self._ref)
        nle = _nle(m, d, q, np.zeros(m.nv))
        S, s, M_prev = K.new_state(self.n)
        zero = np.zeros(self.n)
        K.sample_step(K.STAGE_FRICTION, 0.0, True, self._P, self._p, S, s, M_prev, d.M, J, nle,
                      zero, zero, zero, np.zeros(6), np.zeros((6, self.n)), np.zeros((6, 6)),
                      np.zeros(6))
        self.mapper.matrix_one(J, zero + 1.0)      # its closed form (onestep.gram3), likewise

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
    def bias(self):
        """(n,) Nm, the tare bias subtracted from the residual (a copy)."""
        return self._S[K.S_BIAS].copy()

    @bias.setter
    def bias(self, value):
        self._S[K.S_BIAS] = value

    @property
    def stiction_band(self):
        """(n,) Nm, the stiction band half-width at the last sample; None after a reset."""
        return self._S[K.S_BAND].copy() if self._s[K.HAVE_BAND] else None

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
        self._cov_schedule.reset()
        self.last_q = self._qd_prev = None      # last_q: the last sample's q (rad)
        self._wrench_cov = np.zeros((6, 6))
        self._cov_rows = np.zeros((6, self.n))  # the wrench map of the last recomputation
        bias = self._S[K.S_BIAS].copy()
        self._S[...], self._s[...] = 0.0, 0.0   # the step's state, the tare kept
        self._S[K.S_BIAS] = bias
        self._s[K.COV_FINITE] = 1.0
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
        if not self._s[K.HAVE_AVG]:
            raise OperationError('cannot tare before the first joint state sample', 'no_sample')
        self.bias = self._bias_from(self._S[K.S_AVG].copy(), self.stiction_band)
        self._s[K.HAVE_HELD] = 0.0
        return self.bias

    def _bias_from(self, avg, band):
        """Return the tare bias from mean residual ``avg`` (Nm) and the band (see ``tare``)."""
        if self.config.stiction_mode != 'none' and band is not None:
            return deadzone(avg, band)
        return avg.copy()

    def clear_tare(self):
        """Remove the tare: the bias is zero again."""
        self.bias = np.zeros(self.n)
        self._s[K.HAVE_HELD] = 0.0

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
        dt, reason = self.gate.accept(stamp_ns, q, qd)
        if reason is not None:
            self._restart(reason)
        m, d = self._pm, self._pd
        qp = self.robot.q_pin(q)
        _crba(m, d, qp, _WORLD)     # M and the joint Jacobians (one forward pass)
        J = _frame_jacobian(m, d, self._fid, self._ref)
        nle = _nle(m, d, qp, qd)
        due = self._cov_schedule.due(stamp_ns)
        S, s, W = self._S, self._s, self._wrench
        # the compiled step (onestep.sample_step), resumed where Python is needed
        args = (self._P, self._p, S, s, self._M_prev, d.M, J, nle, q, qd, tau_m, W)
        code, tau, band, wrench, cov = K.sample_step(K.STAGE_FRICTION, dt, due, *args,
                                                     self._cov_rows, self._wrench_cov,
                                                     self._bias_nm)
        if code == K.STAGE_FRONT:           # the direct residual
            S[K.S_R] = self.residual.step(dt, d.M, qd, S[K.S_U].copy())
            code, tau, band, wrench, cov = K.sample_step(code, dt, due, *args, self._cov_rows,
                                                         self._wrench_cov, self._bias_nm)
        if code == K.STAGE_BACK:
            self._map_and_covariance(q, qd, dt, J, due)
            code, tau, band, wrench, cov = K.sample_step(code, dt, due, *args, self._cov_rows,
                                                         self._wrench_cov, self._bias_nm)
        self.last_q, self._qd_prev = q, qd
        if code == K.NONFINITE:
            self.reset(NONFINITE_REASON)
            raise EstimatorInputError(NONFINITE_STATE, f'sample at {stamp_ns} ns made the '
                                      'estimate non-finite: estimator reset')
        return EstimateResult(stamp_ns, tau, band, wrench, cov, _STATES[int(s[K.CONTACT_LEVEL])],
                              s[K.SCORE_CONTACT], s[K.SIGMA_MIN], bool(s[K.DAMPED]),
                              self.frame_id, reason)

    def _presliding_states(self, Q, QD, seg, seg_end):
        """Return the Dahl state (N, n) of the model's presliding joints, or None.

        Each segment is started afresh (as ``update`` after a restart); None where the model has
        no presliding.
        """
        fr = self.friction
        if not np.any(self._P[K.P_PRESLIDING] > 0):
            return None
        Z = np.empty_like(Q)
        for s0, s1 in zip(seg, seg_end):
            Z[s0:s1] = fr.friction.presliding_state(Q[s0:s1], fr.presliding_start(QD[s0]))
        return Z

    def _map_and_covariance(self, q, qd, dt, J, due):
        """Run update's Python part of a sample: the damped map and its bias, the covariance."""
        S, s = self._S, self._s
        sw = S[K.S_SCALE].copy()
        if not s[K.MAPPED]:                 # the SVD, damped near a singularity
            A, smin, damped = self.mapper.matrices(J * sw)
            tau_map = S[K.S_TAU_MAP].copy()
            self._wrench[:] = A @ (tau_map * sw)
            s[K.SIGMA_MIN], s[K.DAMPED] = float(smin), float(damped)
            if damped:
                self._bias_nm[:] = damping_bias_one(J, tau_map, sw, self._wrench,
                                                    self.mapper.rows, self._prior)
                s[K.HAVE_BIAS] = 1.0
        if due:
            self._wrench_cov, self._cov_rows = self._covariance_one(q, qd, dt, S[K.S_BAND].copy(),
                                                                    J, sw)
            s[K.COV_FINITE] = float(np.isfinite(self._wrench_cov).all())

    def _covariance_one(self, q, qd, dt, band, J, sw):
        """Return the wrench covariance (6, 6) and its map A (6, n) at this sample.

        ``band`` (n,) Nm.
        """
        A = self.mapper.matrix_one(J, sw)
        gain = float(white_noise_gain(self.config.method, self._lag.bandwidth_hz, dt))
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
            usable[k], why[k] = False, self.bounds.rejection(Q[k], QD[k], E[k])
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
            usable[bad], why[bad] = False, Rejection(NONFINITE_STATE, NONFINITE_REASON)
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
        keep, seg_start, rejected, resets = self.gate.scan(stamp_ns, usable, Q, QD)
        idx = np.flatnonzero(keep)
        S, Q, QD, E, starts = stamp_ns[idx], Q[idx], QD[idx], E[idx], seg_start[idx]
        N = len(idx)
        if N == 0:
            return BatchResult(S, np.zeros((0, n)), np.zeros((0, 6)), np.zeros((0, 6)),
                               np.zeros(0, int), np.zeros(0), self.frame_id, idx, rejected,
                               resets)
        Ms, H, Js = self._dynamics(Q, QD, progress)
        dt = np.zeros(N)
        dt[1:] = (S[1:] - S[:-1]) * 1e-9
        dt[starts] = 0.0
        seg = np.flatnonzero(starts)
        seg_end = np.r_[seg[1:], N]
        F, band = self.friction(QD, self._presliding_states(Q, QD, seg, seg_end))
        band = hold_band(band, dt, self._band_rate, starts)
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
