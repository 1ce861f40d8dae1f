# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Uncertainty of the estimate.

The covariance of the model torque (``TorqueUncertainty``), how often the wrench covariance is
recomputed (``CovarianceSchedule``), how much of the identification residual's white noise gets
through the residual's filter (``white_noise_gain``) and the residual's lag after a change of the
external torque (``LagVariance``).

The error of tau_ext has three parts with different time scales:

* white sensing noise, per sample: the identification residual std (its samples in motion, where
  a good model leaves the noise), low-passed by the residual's filter: its variance times
  ``white_noise_gain`` (the filter's noise gain; 1 at the first sample after a reset, where the
  residual is the raw one-sample value);
* slow model error: the parameter covariance mapped through the regressor, the stiction band
  (friction unknown within it; a uniform error, variance band^2 / 3), and, for a joint at least as
  fast as its stiction velocity, what the identification residual at that joint's speed showed
  above the residual std (the model file's ``residual.by_speed``: a friction law fitted in motion
  can miss a creeping joint by several times the residual std), less what the band already
  covers; not reduced by the filter;
* the lag: a first-order residual follows a change of tau_ext as 1 - exp(-K t), so its error just
  after a step of size D is D exp(-K t). It is observable: with r' = K (tau_ext - r) the error is
  r' / K; ``LagVariance`` maps it to the wrench (a signed vector, by the wrench map of the last
  recomputation) and turns it into a variance that decays at the lag's own rate.

The first two are recomputed on the covariance schedule; the lag changes within a period and is
added at every sample. Near a singular pose the damped wrench map adds a bias (``damping_bias``),
bounded by what the drives can balance (``wrench_prior``).
"""
from __future__ import annotations

import math

import numpy as np

from robot_id_ros.estimate.envelope import decaying_max
from robot_id_ros.io.model_file import IdentifiedModel, speed_band


class TorqueUncertainty:
    """Covariance of the model torque: parameters + identification residual + stiction band.

    The parameters' part is the base covariance of the identification, else the standard
    parameters' std.

    Args:
        model: the identified model (its ``base_covariance`` or ``parameter_std`` if any, its
            ``residual_by_speed`` if any).
        residual_std_nm: (n,) Nm, the identification residual's std of each joint.
        stiction_velocity_rad_s: (n,) rad/s; below it the stiction band alone stands for the
            friction's error (``speed_error_var``). None: the residual by speed is not used.
        statistics: the estimator's ``ResidualStatistics``: the errors that grow with the model
            torque, the speed and the measured torque, and whether ``residual_std_nm`` was
            measured at the residual's output (then not reduced by its filter); None: none.
    """

    def __init__(self, model: IdentifiedModel, residual_std_nm, stiction_velocity_rad_s=None,
                 statistics=None):
        self.model = model
        self.res_var = np.asarray(residual_std_nm, dtype=float) ** 2
        self.noise_filtered = statistics is None or not statistics.at_output
        zero = np.zeros(len(self.res_var))
        self.model_relative_error, self.speed_error, self.effort_relative_error = (
            (statistics.model_relative_error, statistics.speed_error_nm_s_rad,
             statistics.effort_relative_error) if statistics is not None else (zero, zero, zero))
        self.grows = bool(np.any(self.model_relative_error > 0) or np.any(self.speed_error > 0)
                          or np.any(self.effort_relative_error > 0))
        self.by_speed = (model.residual_by_speed if stiction_velocity_rad_s is not None
                         else None)
        if self.by_speed is not None:
            # above the residual std; a band with too few samples adds nothing
            excess = self.by_speed.rms_nm ** 2 - self.res_var[:, None]
            self._excess_var = np.where(np.isfinite(excess), np.maximum(excess, 0.0), 0.0)
            self._v_s = np.broadcast_to(np.asarray(stiction_velocity_rad_s, float),
                                        (len(self.res_var),))
        self.tracking_var_nm2 = None   # (n,) what tracked friction terms still carry, Nm^2
        self.kind = 'none'
        if model.base is not None and model.base_covariance is not None:
            self.kind = 'base'
            self.cov = np.asarray(model.base_covariance, dtype=float)
        elif model.parameter_std is not None:
            self.kind = 'standard'
            self.cov = np.diag(np.asarray(model.parameter_std, dtype=float) ** 2)

    def speed_error_var(self, qd, band):
        """Return the model error variance (Nm^2) the residual by speed adds, shaped like ``qd``.

        Per joint at least as fast as its stiction velocity: the excess of the identification
        residual's mean square in the joint's speed band over the residual variance, less the
        stiction band's own variance (band^2 / 3), at least 0; 0 below the stiction velocity
        (there the band is the friction's error), above the last edge and without a table.

        Args:
            qd: (n,) or (N, n) rad/s.
            band: like ``qd``, Nm, the stiction band half-width.
        """
        qd = np.asarray(qd, dtype=float)
        if self.by_speed is None:
            return np.zeros_like(qd)
        k, inside = speed_band(self.by_speed.speed_edges_rad_s, qd)
        j = np.broadcast_to(np.arange(qd.shape[-1]), qd.shape)
        excess = self._excess_var[j, k]
        return np.where(inside & (np.abs(qd) >= self._v_s),
                        np.maximum(excess - np.asarray(band) ** 2 / 3.0, 0.0), 0.0)

    def torque_covariance(self, q, qd, qdd, band, noise_gain=1.0, model_nm=None, measured_nm=None):
        """Covariance of the model torque at N samples.

        Args:
            q: (N, n) rad.
            qd: (N, n) rad/s.
            qdd: (N, n) rad/s^2.
            band: (N, n) Nm, stiction band half-width (a uniform error: variance band^2 / 3).
            noise_gain: scalar or (N,), the fraction of the residual variance (white noise) that
                gets through the residual's filter (``white_noise_gain``).
            model_nm, measured_nm: (N, n) the model and the measured torque, Nm (for the errors
                that grow with them); None: zero.

        Returns:
            (N, n, n) Nm^2.
        """
        N, n = np.shape(q)
        C = np.zeros((N, n, n))
        if self.kind != 'none':
            W = self.model.regressor.stack(q, qd, qdd).reshape(N, n, -1)
            if self.kind == 'base':      # W theta = W_b beta with W_b = W[:, independent]
                W = W[..., self.model.base.independent]
            C += np.einsum('kip,pq,kjq->kij', W, self.cov, W)
        idx = np.arange(n)
        C[:, idx, idx] += self.joint_variance(qd, band, np.reshape(
            np.asarray(noise_gain, dtype=float), (-1, 1)), model_nm, measured_nm)
        return C

    def joint_variance(self, qd, band, noise_gain, model_nm=None, measured_nm=None):
        """Return each joint's torque variance (Nm^2) besides the parameters', shaped like ``qd``.

        The rule the published sigma rests on: the residual variance that gets through the
        residual's filter (all of it when measured at the output: a calibration), the stiction
        band as a uniform error (band^2 / 3), the residual by speed (``speed_error_var``) and the
        errors that grow with the model torque, the speed and the measured torque
        (``statistics.ResidualStatistics``), and what tracked friction terms still carry
        (``friction_tracking``).

        Args:
            qd: (n,) or (N, n) rad/s.
            band: like ``qd``, Nm, the stiction band half-width.
            noise_gain: a float, or (N, 1) (``white_noise_gain``).
            model_nm, measured_nm: like ``qd``, the model and the measured torque, Nm; None:
                zero.
        """
        noise = noise_gain * self.res_var if self.noise_filtered else self.res_var
        var = noise + np.asarray(band) ** 2 / 3.0 + self.speed_error_var(qd, band)
        if self.tracking_var_nm2 is not None:
            var = var + self.tracking_var_nm2
        if self.grows:
            zero = np.zeros_like(np.asarray(qd, dtype=float))
            m = zero if model_nm is None else np.asarray(model_nm, dtype=float)
            t = zero if measured_nm is None else np.asarray(measured_nm, dtype=float)
            var = var + ((self.model_relative_error * m) ** 2 + (self.speed_error * qd) ** 2
                         + (self.effort_relative_error * t) ** 2)
        return var

    def wrench_covariance(self, A, q, qd, qd_prev, dt, band, noise_gain, model_nm=None,
                          measured_nm=None):
        """Return one sample's wrench covariance A C A^T (6, 6), Nm^2 and N^2.

        Without a parameter covariance C is diagonal (``joint_variance``).

        Args:
            A: (6, n) the wrench map (wrench = A tau).
            q: (n,) rad.
            qd: (n,) rad/s.
            qd_prev: (n,) rad/s at the previous sample, None after a reset (then qdd = 0).
            dt: s since the previous sample.
            band: n floats, Nm, stiction band half-width.
            noise_gain: ``white_noise_gain`` at this sample (a float).
            model_nm, measured_nm: (n,) the model and the measured torque, Nm, or None.
        """
        if self.kind == 'none':
            return (A * self.joint_variance(qd, band, float(noise_gain), model_nm,
                                            measured_nm)) @ A.T
        qdd = (qd - qd_prev) / dt if qd_prev is not None and dt > 0 else np.zeros_like(qd)
        rows = (None if x is None else np.asarray(x)[None] for x in (model_nm, measured_nm))
        C = self.torque_covariance(q[None], qd[None], qdd[None], np.asarray(band)[None],
                                   noise_gain, *rows)[0]
        return A @ C @ A.T

    def held_wrench_var(self, cov_idx, A, Q, QD, dt, band, starts, noise_gain, model_nm=None,
                        measured_nm=None):
        """Return ``wrench_covariance``'s diagonal (N, 6), held between recomputations.

        Args:
            cov_idx: (M,) the samples where it is recomputed (``CovarianceSchedule.samples``).
            A: (N, 6, n) the wrench maps.
            Q: (N, n) rad.
            QD: (N, n) rad/s.
            dt: (N,) s, the interval before each sample.
            band: (N, n) Nm.
            starts: (N,) bool, True at a restart (qdd = 0 there, as after a reset).
            noise_gain: (N,) ``white_noise_gain``.
            model_nm, measured_nm: (N, n) the model and the measured torque, Nm, or None.
        """
        qdd = np.zeros((len(cov_idx), Q.shape[1]))
        prev_ok = (cov_idx > 0) & ~starts[cov_idx]
        ci = cov_idx[prev_ok]
        qdd[prev_ok] = (QD[ci] - QD[ci - 1]) / dt[ci][:, None]
        C = self.torque_covariance(Q[cov_idx], QD[cov_idx], qdd, band[cov_idx],
                                   noise_gain[cov_idx],
                                   *(None if x is None else x[cov_idx]
                                     for x in (model_nm, measured_nm)))
        Ak = A[cov_idx]
        var = np.einsum('kij,kjl,kil->ki', Ak, C, Ak)
        return var[np.searchsorted(cov_idx, np.arange(len(Q)), side='right') - 1]


def white_noise_gain(method, bandwidth_hz, dt_s):
    """Return var(residual) / var(input) for white noise on the measured torque (per sample).

    Momentum observer (``residuals.MomentumObserver``): its input enters as the trapezoid
    (n_k + n_{k-1}) / 2 through r_k = a r_{k-1} + (1 - a) x_k, a = exp(-K dt); the squared impulse
    response sums to (1 - a) / 2 exactly. Direct residual: the critically damped second-order
    low-pass at w = 2 pi f passes w dt / 4 of it (the continuous-time noise bandwidth; the
    differentiated velocity's noise is not counted). 1 where dt <= 0 (the first sample after a
    reset is the raw one-sample residual).

    Args:
        method: 'momentum' or 'direct'.
        bandwidth_hz: the residual's bandwidth K / (2 pi), Hz.
        dt_s: scalar or (N,) s, the interval before each sample.

    Returns:
        Scalar or (N,) in (0, 1].
    """
    dt = np.asarray(dt_s, dtype=float)
    K = 2.0 * math.pi * bandwidth_hz
    if method == 'momentum':
        g = 0.5 * -np.expm1(-K * np.maximum(dt, 0.0))
    else:
        g = 0.25 * K * dt
    return np.where(dt > 0, np.minimum(g, 1.0), 1.0)


class CovarianceSchedule:
    """When the wrench covariance is recomputed.

    At the first sample after a reset, then at the first sample at least ``period_s`` after the
    last recomputation (held in between). ``due`` is the rule one sample at a time, ``samples``
    the same rule over arrays.

    Args:
        period_s: the period, s (> 0).
    """

    def __init__(self, period_s):
        # stamps are integers: d >= period_s * 1e9 <=> d >= ceil(period_s * 1e9)
        self.period_ns = math.ceil(period_s * 1e9)
        self.last_ns = None

    def reset(self):
        """Recompute at the next sample."""
        self.last_ns = None

    def due(self, stamp_ns: int) -> bool:
        """Whether to recompute at this sample (then it counts as recomputed).

        Args:
            stamp_ns: the sample's stamp, ns.

        Returns:
            True to recompute.
        """
        if self.last_ns is None or stamp_ns - self.last_ns >= self.period_ns:
            self.last_ns = stamp_ns
            return True
        return False

    def samples(self, stamp_ns, seg_start, seg_end):
        """Return the samples ``due`` picks over N accepted samples, reset at each segment start.

        Args:
            stamp_ns: (N,) int64 ns, increasing within each segment.
            seg_start: the first sample of each segment (a reset before it).
            seg_end: the end (exclusive) of each segment.

        Returns:
            (M,) int indices of the samples where the covariance is recomputed, increasing.
        """
        out = []
        for s0, s1 in zip(seg_start.tolist(), seg_end.tolist()):
            rel = stamp_ns[s0:s1] - stamp_ns[s0]                  # increasing within a segment
            nxt = np.searchsorted(rel, rel + self.period_ns).tolist()
            k = 0
            while k < s1 - s0:
                out.append(s0 + k)
                k = nxt[k]
        return np.array(out)


class LagVariance:
    """Variance of the wrench's lag behind a change of the external torque, per wrench axis.

    The residual is a first-order low-pass of tau_ext (bandwidth K): after a change, its error
    e = tau_ext - r obeys e_k = a e_{k-1} (a = exp(-K dt)) and r_k - r_{k-1} = (1 - a) e_{k-1}, so
    ``e_k = a / (1 - a) (r_k - r_{k-1})`` is seen in the residual's own increments (exact for the
    momentum observer with a held input; an approximation for the direct residual's second-order
    filter). It is a signed vector: one change of the wrench moves every joint's residual
    together, so the wrench's lag error is ``A e`` (A the wrench map), not the sum of the joints'
    variances (which would add up the large, cancelling entries A has near a weak pose). Per
    joint, the part of e within the stiction band is friction (its variance is the band's) and
    white noise of variance s^2 on the measured torque gives e a variance ``a^2 s^2 / 2`` (the
    increments' noise, ``white_noise_gain``'s filter): only the part of e^2 above the band and
    above ``NOISE_SIGMAS^2`` times that noise is taken as lag, so noise alone rarely adds any.
    The wrench variance then decays as the lag itself does, by a^2 per sample, unless a larger
    one is seen: ``v_k = max(a^2 v_{k-1}, (A e_k)^2)`` per axis (0 after a reset).

    ``batch`` takes a segment of samples, solving the max-plus recursion in the log domain;
    update's compiled step (``sample_step``) runs the recursion one sample at a time.

    Args:
        bandwidth_hz: the residual's bandwidth K / (2 pi), Hz.
        residual_var_nm2: (n,) Nm^2, the white noise variance s^2 of each joint.
    """

    NOISE_SIGMAS = 2.0    # lag is what the increments show beyond 2 std of their noise

    def __init__(self, bandwidth_hz, residual_var_nm2):
        self.bandwidth_hz = float(bandwidth_hz)
        self.K = 2.0 * math.pi * self.bandwidth_hz
        self.res_var = np.asarray(residual_var_nm2, dtype=float)

    def _seen(self, a, dr, band, A):
        """Return the wrench lag variance (.., 6) the increments ``dr`` (.., n) Nm show.

        ``a`` (.., 1), ``band`` (.., n) Nm the stiction band, ``A`` (.., 6, n) the wrench map.
        """
        e = a / (1.0 - a) * dr
        m = np.maximum(np.abs(e) - band, 0.0)
        m = np.sqrt(np.maximum(m * m - (self.NOISE_SIGMAS ** 2 / 2.0) * a * a * self.res_var,
                               0.0))
        w = np.einsum('...ij,...j->...i', A, np.copysign(m, e))
        return w * w

    def batch(self, dt_s, R, band, starts, A):
        """Return the variance over N samples from a reset state.

        Args:
            dt_s: (N,) s, the interval before each sample.
            R: (N, n) Nm, the residual.
            band: (N, n) Nm, the stiction band half-width.
            starts: (N,) bool, True where the residual restarted (a reset before the sample).
            A: (N, 6, n) the wrench map (of the last covariance recomputation) at each sample.

        Returns:
            (N, 6).
        """
        dt = np.asarray(dt_s, dtype=float)
        fresh = np.asarray(starts, bool) | (dt <= 0)
        fresh[:1] = True
        a = np.exp(-self.K * np.where(fresh, 0.0, dt))[:, None]
        dr = np.zeros_like(R)
        dr[1:] = R[1:] - R[:-1]
        seen = np.where(fresh[:, None], 0.0, self._seen(np.where(a < 1.0, a, 0.5), dr, band, A))
        return decaying_max(seen, np.where(fresh[:, None], 0.0, 2.0 * np.log(a)), fresh)


def wrench_prior(robot):
    """Return the std (6,) of a plausible wrench at the tool, N and Nm, from the model alone.

    The force the drives are built to balance at the tool: joint j can hold at most its effort
    limit, and a force at the tool acts on it through a lever arm no longer than ``reach_j``, the
    sum of the (pose-independent) distances from its origin along the chain to the tool origin,
    so it balances at least ``effort_j / reach_j`` in every pose. The force prior is the median
    of that over the joints (one weak or one short-levered joint does not set it); the moment
    prior is the median effort limit (a moment at the tool loads a joint along it one to one).
    Joints without a positive finite effort limit or reach are left out; with none left the
    prior is infinite (no bound).

    Args:
        robot: ``RobotModel`` (its Pinocchio model, ``limits.effort_nm`` and tool frame).

    Returns:
        (6,) force std (N) on rows 0-2, moment std (Nm) on rows 3-5.
    """
    pm = robot.model
    links = [np.linalg.norm(pm.jointPlacements[k].translation) for k in range(2, pm.njoints)]
    links.append(np.linalg.norm(pm.frames[robot.tool_frame_id].placement.translation))
    reach_m = np.cumsum(links[::-1])[::-1]
    effort = np.asarray(robot.limits.effort_nm, dtype=float)
    ok = np.isfinite(effort) & (effort > 0) & (reach_m > 0)
    if not ok.any():
        return np.full(6, np.inf)
    force_n = np.median(effort[ok] / reach_m[ok])
    return np.r_[np.full(3, force_n), np.full(3, np.median(effort[ok]))]


def damping_bias(J, tau_nm, wrench, rows, damped=None, prior=None):
    """Return the damped least squares wrench minus the plain least squares one, (6,) or (N, 6).

    Near a singularity the wrench map is damped: the directions J^T hardly sees are pulled towards
    zero, an error the noise-propagated covariance does not hold. Given the data, the error of
    the damped estimate is this difference d plus the plain least squares error, so ``d d^T`` is
    added to the covariance (the plain least squares is the minimum-norm one: finite at an exact
    singularity). Along a direction J^T barely senses the plain least squares amplifies the noise
    by 1 / sigma_min, but the true wrench there is not arbitrary: d is capped at the ``prior``
    (``wrench_prior``: the wrench the drives can balance), scaled down as a whole where its
    prior-normalised norm exceeds 1. Rows not estimated are 0.

    Args:
        J: (6, n) or (N, 6, n) the (joint-weighted) tool Jacobian(s) the wrench was mapped with.
        tau_nm: (n,) or (N, n) the (joint-weighted) external torque it was mapped from.
        wrench: (6,) or (N, 6) the damped estimate.
        rows: the estimated rows.
        damped: (N,) bool, where damping was on (elsewhere d = 0); None: everywhere.
        prior: (6,) N and Nm, the cap (``wrench_prior``); None: no cap.
    """
    J, tau_nm, wrench = np.asarray(J), np.asarray(tau_nm), np.asarray(wrench)
    out = np.zeros(wrench.shape)
    k = np.flatnonzero(np.ones(len(J), bool) if damped is None else damped) if J.ndim == 3 \
        else Ellipsis
    U, sv, Vt = np.linalg.svd(np.swapaxes(J[k][..., rows, :], -1, -2), full_matrices=False)
    inv = np.divide(1.0, sv, out=np.zeros_like(sv), where=sv > 0.0)
    ls = np.einsum('...ji,...j,...kj->...ik', Vt, inv, U)
    d = wrench[k][..., rows] - np.einsum('...ij,...j->...i', ls, tau_nm[k])
    if prior is not None:
        size = np.sqrt(np.sum((d / np.asarray(prior)[rows]) ** 2, axis=-1, keepdims=True))
        d = d / np.maximum(size, 1.0)
    if J.ndim == 3:
        out[np.ix_(k, rows)] = d
    else:
        out[rows] = d
    return out


def batch_wrench_std(unc, lag, cov_idx, gain, A, Q, QD, dt, band, starts, R, bias, env=None,
                     E=None):
    """Return the wrench std (N, 6) over N samples (a batch).

    The covariance of the last recomputation, plus the lag's variance (``LagVariance``), plus
    the damping's ``bias`` as ``d d^T`` with its diagonal raised to the bias envelope
    (``envelope.BiasEnvelope``); update's compiled step (``sample_step``) builds the same matrix.

    Args:
        unc: ``TorqueUncertainty``.
        lag: ``LagVariance``.
        cov_idx: (M,) the recomputations (``CovarianceSchedule.samples``).
        gain: (N,) ``white_noise_gain``.
        A: (N, 6, n) the wrench maps.
        Q: (N, n) rad.
        QD: (N, n) rad/s.
        dt: (N,) s, the interval before each sample.
        band: (N, n) Nm, the stiction band half-width.
        starts: (N,) bool, True at a restart.
        R: (N, n) Nm, the residual.
        bias: (N, 6) ``damping_bias``.
        env: ``envelope.BiasEnvelope`` (the bias's variance is its envelope); None: bias^2.
        E: (N, n) Nm, the measured torque (the model torque is R + E), or None.
    """
    var = unc.held_wrench_var(cov_idx, A, Q, QD, dt, band, starts, gain,
                              None if E is None else R + E, E)
    held = A[cov_idx][np.searchsorted(cov_idx, np.arange(len(Q)), side='right') - 1]
    var += lag.batch(dt, R, band, starts, held)
    b2 = bias ** 2 if env is None else env.batch(dt, bias, starts)
    return np.sqrt(np.maximum(var + b2, 0.0))
