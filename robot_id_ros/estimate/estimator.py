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

``update``'s arithmetic after the Pinocchio calls is the compiled step ``sample_step``; ``process``
is in ``batch``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from robot_id_ros.errors import InputError, OperationError
from robot_id_ros.estimate.config import EstimatorConfig
from robot_id_ros.estimate.damped_map import damped_map_one
from robot_id_ros.estimate.contact import CONTACT_NONE, COLLISION, ContactDetector, ContactState
from robot_id_ros.estimate.batch import BatchResult, process_batch, process_by_update
from robot_id_ros.estimate.envelope import BiasEnvelope
from robot_id_ros.estimate.friction_tracking import FrictionTracker, learning_speed_rad_s
from robot_id_ros.estimate.mapping import WrenchMapper, root_frame_name
from robot_id_ros.estimate.residuals import DirectResidual, MomentumObserver
import robot_id_ros.estimate.sample_step as sample_step
from robot_id_ros.estimate.step_state import Stage, field_views, new_state, step_parameters
from robot_id_ros.estimate.samples import (NONFINITE_REASON, NONFINITE_STATE, EstimatorInputError,
                                           InputBounds, StampGate, check_sample)
from robot_id_ros.estimate.statistics import residual_statistics
from robot_id_ros.estimate.stiction import StictionFriction, deadzone
from robot_id_ros.estimate.uncertainty import (CovarianceSchedule, LagVariance, TorqueUncertainty,
                                               white_noise_gain, wrench_prior)
from robot_id_ros.io.calibration_file import ResidualCalibration
from robot_id_ros.io.model_file import IdentifiedModel, Payload

__all__ = ['BatchResult', 'EstimateResult', 'NONFINITE_REASON', 'WrenchEstimator']
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


class WrenchEstimator:
    """External joint torque, tool wrench, its covariance and contact state from joint states.

    ``update`` takes one sample (stamp in ns, q, qd in rad and rad/s, measured torque in Nm, model
    joint order) and returns an ``EstimateResult``; it raises ``EstimatorInputError`` for a sample
    it will not use (state unchanged). ``process`` runs the same estimator over arrays (offline).

    Args:
        model: the identified model (changed by ``set_payload``).
        config: settings; None: the defaults.
        calibration: residual statistics learnt on contact-free data (``robot-id calibrate``),
            for this model and this residual setup; None: the model's (``statistics`` says
            which are used).

    Raises:
        InputError: invalid settings.
    """

    def __init__(self, model: IdentifiedModel, config: EstimatorConfig | None = None,
                 calibration: ResidualCalibration | None = None):
        self.model = model
        self.config = config or EstimatorConfig()    # checked when built
        c = self.config
        self.statistics = residual_statistics(model, c, calibration)
        self.robot = model.robot
        self.n = model.n
        self._pm, self._pd = self.robot.model, self.robot.data
        self._fid = self.robot.tool_frame_id
        self.jacobian_reference = pin.LOCAL_WORLD_ALIGNED if c.frame == 'base' else pin.LOCAL
        self.frame_id = (root_frame_name(self.robot.model) if c.frame == 'base'
                         else self.robot.tool_frame)
        self.mapper = WrenchMapper(self.n, c.wrench_mode, c.sigma_guard, c.damping)
        self.wrench_prior = wrench_prior(self.robot)     # caps the damping bias (N, Nm)
        self.residual_std_nm = self.statistics.std_nm
        self.threshold_source = self.statistics.source
        self.friction = StictionFriction(model.friction, c.stiction_velocity_rad_s,
                                         c.friction_sign, self.residual_std_nm)
        self.contact = self._detector()
        self.uncertainty = TorqueUncertainty(model, self.residual_std_nm, self.friction.v_s,
                                             self.statistics)
        if c.method == 'momentum':
            self.residual = MomentumObserver(self.n, c.observer_gain_hz)
        else:
            self.residual = DirectResidual(self.n, c.direct_filter_hz)
        # the residual forgets the stuck-phase friction at its own bandwidth (see hold_band)
        self.band_rate = 2.0 * np.pi * c.residual_bandwidth_hz
        self.lag = LagVariance(c.residual_bandwidth_hz, self.residual_std_nm ** 2)
        self.bias_envelope = BiasEnvelope(c.covariance_period_s)
        self.bounds = InputBounds(self.robot.limits)
        self.gate = StampGate(c.time_jump_s, c.max_gap_s, self.bounds)
        self.covariance_schedule = CovarianceSchedule(c.covariance_period_s)
        # update's compiled step (sample_step): its fixed parameters and its state, and views of
        # the state's fields for the Python part of a sample
        self._params = step_parameters(
            self.n, model.friction, self.friction.v_s, c.friction_sign,
            self.statistics, self.contact, c, self.band_rate, self.lag.K,
            self.mapper.lam_min, self.mapper.block_start, self.joint_scale(np.zeros(self.n)),
            len(self.mapper.rows) == 6)
        self.has_presliding = bool(np.any(self._params['presliding_rad'] > 0))
        self.tracker = None if not c.friction_tracking else FrictionTracker(
            model.friction, self.sign_velocity_rad_s, self.residual_std_nm,
            c.residual_bandwidth_hz, learning_speed_rad_s(model.friction, self.friction.v_s),
            c.friction_tracking_time_s, c.friction_tracking_holdoff_s)
        self._state = new_state(self.n)
        self._st = field_views(self._state)
        self.bias = self.statistics.mean_nm.copy()   # a calibration's mean, taken as a tare
        self.reset()
        self._compile_step()

    def _compile_step(self):
        """Compile the step for this model's array types, or load it from numba's cache.

        On throw-away state at the neutral pose, so that the first sample is not late.
        """
        m, d = self._pm, self._pd
        q = pin.neutral(m)
        _crba(m, d, q, _WORLD)
        J = _frame_jacobian(m, d, self._fid, self.jacobian_reference)
        nle = _nle(m, d, q, np.zeros(m.nv))
        zero = np.zeros(self.n)
        for momentum in (True, False):      # run_sample both ways, and the stages it leaves
            params, state = self._params.copy(), new_state(self.n)
            params['momentum'] = momentum
            sample_step.run_sample(params, state, d.M, J, zero, zero, nle, zero, 0.0, True)
            sample_step.map_and_contact(params, state, J, 0.0)
            sample_step.uncertainty(params, state, 0.0)
        self.mapper.matrix_one(J, zero + 1.0)      # its closed form (sample_step.gram3), likewise

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

    def joint_scale(self, band):
        """Return sqrt(w), w = 1 / (residual variance + band^2 / 3) per joint; (n,) or (N, n).

        Normalised to 1 at the most certain joint (the mapper's sigma guard keeps its meaning).
        """
        w = 1.0 / (self.residual_std_nm ** 2 + np.asarray(band) ** 2 / 3.0)
        return np.sqrt(w / w.max(axis=-1, keepdims=True))

    # --- state --------------------------------------------------------------------------
    @property
    def bias(self):
        """(n,) Nm, the tare bias subtracted from the residual (a copy)."""
        return self._st.tare_bias.copy()

    @bias.setter
    def bias(self, value):
        self._st.tare_bias[:] = value

    @property
    def sign_velocity_rad_s(self):
        """The friction law's sign as the step runs it: tanh(qd / this); 0: the exact sign."""
        return float(self._params['sign_velocity_rad_s'][0])

    @property
    def stiction_band(self):
        """(n,) Nm, the stiction band half-width at the last sample; None after a reset."""
        return self._st.band.copy() if self._st.have_band[0] else None

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
        self.covariance_schedule.reset()
        if self.tracker is not None:
            self.tracker.restart()
        self.last_q = self._qd_prev = None      # last_q: the last sample's q (rad)
        bias = self.bias
        self._state[...] = new_state(self.n)   # the step's state, the tare kept
        self.bias = bias
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
        if not self._st.have_avg[0]:
            raise OperationError('cannot tare before the first joint state sample', 'no_sample')
        self.bias = self.bias_from(self._st.tare_avg.copy(), self.stiction_band)
        self._st.have_held[0] = False
        return self.bias

    def bias_from(self, avg, band):
        """Return the tare bias from mean residual ``avg`` (Nm) and the band (see ``tare``)."""
        if self.config.stiction_mode != 'none' and band is not None:
            return deadzone(avg, band)
        return avg.copy()

    def clear_tare(self):
        """Remove the tare: the bias is the calibrated mean again (zero without calibration)."""
        self.bias = self.statistics.mean_nm.copy()
        self._st.have_held[0] = False

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
        J = _frame_jacobian(m, d, self._fid, self.jacobian_reference)
        nle = _nle(m, d, qp, qd)
        due = self.covariance_schedule.due(stamp_ns)
        params, state, st = self._params, self._state, self._st
        # the compiled step (sample_step) runs every stage it can in one call; Python runs the
        # direct residual, a damped map and a covariance recomputation, then the stages left
        code, tau, band, wrench, cov = sample_step.run_sample(params, state, d.M, J, q, qd, nle,
                                                              tau_m, dt, due)
        if code != Stage.DONE:
            if code == Stage.MAP_AND_CONTACT:
                st.residual[:] = self.residual.step(dt, d.M, qd, st.u.copy())
                sample_step.map_and_contact(params, state, J, dt)
            if code != Stage.NONFINITE:
                self._map_and_covariance(q, qd, dt, J, due)
                code, tau, band, wrench, cov = sample_step.uncertainty(params, state, dt)
        self.last_q, self._qd_prev = q, qd
        if self.tracker is not None and code != Stage.NONFINITE:
            self._track_friction(dt, qd, due)
        if code == Stage.NONFINITE:
            self.reset(NONFINITE_REASON)
            raise EstimatorInputError(NONFINITE_STATE, f'sample at {stamp_ns} ns made the '
                                      'estimate non-finite: estimator reset')
        return EstimateResult(stamp_ns, tau, band, wrench, cov, _STATES[st.contact_level[0]],
                              st.score_contact[0], st.sigma_min[0], bool(st.damped[0]),
                              self.frame_id, reason)

    def _track_friction(self, dt, qd, due):
        """Let the tracker see this sample; on a covariance sample, run on what it learnt."""
        st = self._st
        free = (st.contact_level[0] == 0
                and st.score_contact[0] < self.config.contact_release_ratio)
        self.tracker.observe(dt, qd, st.residual - st.tare_bias, free)
        if due:
            self._run_on_tracked_terms()
            var = self.tracker.variance_nm2(qd)
            self.uncertainty.tracking_var_nm2 = var
            self._params['tracking_var_nm2'][0] = var

    def _run_on_tracked_terms(self):
        """Put the tracker's friction law into the step's parameters."""
        for name, value in self.tracker.take_terms().items():
            self._params[name][0] = value

    def continue_tracking(self, other):
        """Start from the friction ``other`` (an estimator of this model) tracked, if both do."""
        if self.tracker is None or other.tracker is None:
            return
        for name in ('theta', 'cov', 'used'):
            self.tracker.state[0][name] = other.tracker.state[0][name]
        self._run_on_tracked_terms()

    def tracked_friction(self):
        """Return the model's ``FrictionModel`` as tracked (``FrictionTracker.model_terms``).

        None when not tracking. A model file with it runs the law the tracking ran.
        """
        if self.tracker is None:
            return None
        return dataclasses.replace(self.model.friction, **self.tracker.model_terms())

    def _map_and_covariance(self, q, qd, dt, J, due):
        """Run update's Python part of a sample: the damped map and its bias, the covariance."""
        st = self._st
        sw = st.joint_scale.copy()
        if not st.mapped[0]:                 # the SVD, damped near a singularity
            bias = np.empty(6)
            smin, damped = damped_map_one(J, st.tau_map, sw, self.mapper.rows,
                                          self.mapper.sigma_guard, self.mapper.damping,
                                          self.wrench_prior, st.wrench, bias)
            st.sigma_min[0], st.damped[0] = float(smin), bool(damped)
            if damped:
                st.damping_bias[:] = bias
                st.have_bias[0] = True
        if due:
            st.held_cov[:], st.cov_rows[:] = self._covariance_one(q, qd, dt, st.band.copy(), J,
                                                                  sw)
            st.cov_finite[0] = bool(np.isfinite(st.held_cov).all())

    def _covariance_one(self, q, qd, dt, band, J, sw):
        """Return the wrench covariance (6, 6) and its map A (6, n) at this sample.

        ``band`` (n,) Nm.
        """
        A = self.mapper.matrix_one(J, sw)
        gain = float(white_noise_gain(self.config.method, self.lag.bandwidth_hz, dt))
        st = self._st
        measured = st.measured_nm.copy()
        return self.uncertainty.wrench_covariance(A, q, qd, self._qd_prev, dt, band, gain,
                                                  st.residual + measured, measured), A

    # --- many samples -------------------------------------------------------------------
    def process(self, stamp_ns, Q, QD, E, tare_at_s=None, progress=None) -> BatchResult:
        """Run the estimator over N samples (``update``'s numbers, vectorised: ``batch``).

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
        if self.tracker is not None:    # what it learns from one sample acts on the next
            return process_by_update(self, stamp_ns, Q, QD, E, tare_at_s, progress)
        return process_batch(self, stamp_ns, Q, QD, E, tare_at_s, progress)
