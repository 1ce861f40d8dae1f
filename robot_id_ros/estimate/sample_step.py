# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``WrenchEstimator.update``'s arithmetic after the Pinocchio calls, compiled (numba), one sample.

One sample of the estimator is a few dozen operations on 5-6 values each: in Python each numpy
call or pass over the joints would cost more than the sums, so the one-sample rules run here,
compiled, in three stages (``Stage``):

1. ``friction_and_residual``: the friction law and its stiction band, the band's release, the
   momentum observer;
2. ``map_and_contact``: the tare average, tau_ext, the joint weights, the stiction mode
   (``StictionMode``), the closed-form 3-row wrench map, the contact scores and level;
3. ``uncertainty``: the lag's variance, the damping bias's envelope and the sample's covariance.

``run_sample`` runs the three in one call. Python is needed between them only for the direct
residual (before stage 2), a damped map near a singularity or a covariance recomputation (before
stage 3); ``run_sample`` then stops and says which stage comes next, and the estimator runs that
stage itself: each stage runs once per sample.

The state is one numpy record with named fields and so are the fixed parameters (``step_state``:
``new_state``, ``step_parameters``); numba reads and writes their fields by name. This is the only
one-sample implementation of these rules; ``process`` keeps their vectorised forms (``batch``),
and test/estimate/test_update_equals_process.py checks that the two give the same numbers.

The kernels are compiled when the first estimator is made (``WrenchEstimator._compile_step``;
``compiled`` says where numba keeps them). The contact rule is ``contact_rule``.
"""
from __future__ import annotations

import math

import numpy as np

from robot_id_ros.estimate.compiled import compiled
from robot_id_ros.estimate.contact_rule import contact_level, contact_scores, unexplained_band
from robot_id_ros.estimate.step_state import Stage, StictionMode

LAG_NOISE_SIGMAS = 2.0      # uncertainty.LagVariance.NOISE_SIGMAS
BAND_ZERO_NM = 1e-6         # a released stiction band below this is zero (both paths)


@compiled
def gram3(a, d, f, b, e, c, lam_min):
    """Cofactors and determinant of G = [[a, d, f], [d, b, e], [f, e, c]], and sigma_min.

    The closed form of ``mapping.gram3_min_eig_inverse`` on one matrix: the smallest eigenvalue
    by the trigonometric method, the inverse by cofactors.

    Returns:
        (ok, c00, c01, c02, c11, c12, c22, det, sigma_min); ok False near a singularity (smallest
        eigenvalue <= ``lam_min``: the damped least squares is needed) or where G is not positive
        definite.
    """
    p1 = d * d + e * e + f * f
    q = (a + b + c) / 3.0
    aq, bq, cq = a - q, b - q, c - q
    p2 = aq * aq + bq * bq + cq * cq + 2.0 * p1
    if p2 > 0.0:
        p = math.sqrt(p2 / 6.0)
        ip = 1.0 / p
        ba, bb, bc, bd, be, bf = aq * ip, bq * ip, cq * ip, d * ip, e * ip, f * ip
        r = 0.5 * (ba * (bb * bc - be * be) - bd * (bd * bc - be * bf)
                   + bf * (bd * be - bb * bf))
        r = -1.0 if r < -1.0 else (1.0 if r > 1.0 else r)
        lam = q + 2.0 * p * math.cos(math.acos(r) / 3.0 + 2.0 * math.pi / 3.0)
    else:
        lam = q
    c00, c01, c02 = b * c - e * e, f * e - d * c, d * e - f * b
    c11, c12, c22 = a * c - f * f, d * f - a * e, a * b - d * d
    det = a * c00 + d * c01 + f * c02
    ok = lam > lam_min and det > 0.0
    return ok, c00, c01, c02, c11, c12, c22, det, math.sqrt(lam) if lam > 0.0 else 0.0


@compiled
def tare_average_add(avg, r, dt_s, window_s, fresh):
    """One sample of the tare average: ``avg`` (n,) Nm moved towards ``r`` in place.

    First order with time constant ``window_s`` (s); a fresh start, dt 0 or window 0 take ``r``.
    """
    if fresh or dt_s == 0.0 or window_s == 0.0:
        for j in range(len(avg)):
            avg[j] = r[j]
    else:
        g = dt_s / (dt_s + window_s)
        for j in range(len(avg)):
            avg[j] = avg[j] + g * (r[j] - avg[j])


@compiled
def stiction_point_and_band(law_nm, v, v_s, offset_nm, breakaway_nm, smooth):
    """Return one joint's friction point estimate and band half-width (Nm): the rule at rest.

    Slower than ``v_s`` (rad/s) the friction is anywhere within offset +- breakaway: with the
    model's smooth law (``smooth``) the point stays the law ``law_nm`` and the band covers that
    interval around it, with the exact sign the point is the offset and the band the breakaway;
    faster than 2 ``v_s`` the law, band 0; in between a linear blend (``stiction`` says why).
    """
    w = abs(v) / v_s - 1.0 if v_s > 0.0 else 1.0
    w = 0.0 if w <= 0.0 else (1.0 if w >= 1.0 else w)
    if smooth:
        return law_nm, (1.0 - w) * (breakaway_nm + abs(law_nm - offset_nm))
    return offset_nm + w * (law_nm - offset_nm), (1.0 - w) * breakaway_nm


@compiled
def _friction(pr, st, q, qd, nle, tau_m, dt):
    """Compute the friction, its stiction band and u = C qd + g + f - tau_m (``st.u``).

    As ``stiction.StictionFriction`` with the model's law; the band is released as
    ``stiction.hold_band`` does. A joint with presliding (``pr.presliding_rad`` > 0) takes its
    Coulomb sign from the Dahl state, stepped over q - q_prev as ``friction.presliding_state``
    does and started, after a restart, at the smooth sign (``StictionFriction.presliding_start``).
    A joint with load-dependent Coulomb friction adds mu |L| times the Coulomb sign, L the gear's
    load (``friction.gear_load_nm``).
    """
    n = qd.shape[0]
    band = st.band
    sign_v = pr.sign_velocity_rad_s
    # the residual forgets a stuck joint's friction at its own rate: the band held before decays
    release = st.band_any and dt > 0.0
    decay = math.exp(-pr.band_rate * dt) if release else 0.0
    any_band = False
    for j in range(n):
        v = qd[j]
        if sign_v > 0.0:
            sg = math.tanh(v / sign_v)
        else:
            sg = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)
        sc, q0 = sg, pr.presliding_rad[j]
        if q0 > 0.0:
            if not st.have_dahl or dt <= 0.0:
                z = sg
            else:
                z = st.dahl_z[j]
                dq = q[j] - st.q_prev[j]
                if dq != 0.0:
                    sd = 1.0 if dq > 0.0 else -1.0
                    z = sd - (sd - z) * math.exp(-abs(dq) / q0)
            st.dahl_z[j], st.q_prev[j] = z, q[j]
            sc = z
        law = (pr.coulomb_pos_nm[j] * sc if sc > 0.0 else pr.coulomb_neg_nm[j] * sc) \
            + pr.viscous_nm_s_rad[j] * v + pr.offset_nm[j]
        fs = pr.stribeck_nm[j]
        if fs != 0.0:
            x = v / pr.stribeck_velocity_rad_s[j]
            law += fs * math.exp(-x * x) * sg
        mu = pr.load_coulomb_per_nm[j]
        if mu != 0.0:
            # the gear's load is the measured torque less the whole friction, which acts before
            # the gear (friction.gear_load_nm): the link's whole load, a contact's too
            r = tau_m[j] - law
            law += mu * abs(r) / (1.0 + mu * sc * (1.0 if r > 0.0 else -1.0)) * sc
        if not pr.banded:
            point, b = law, 0.0
        else:
            point, b = stiction_point_and_band(law, v, pr.stiction_velocity_rad_s[j],
                                               pr.offset_nm[j], pr.breakaway_nm[j], sign_v > 0.0)
        if release:
            h = band[j] * decay
            if not (b >= h or h < BAND_ZERO_NM):
                b = h
        band[j] = b
        any_band = any_band or b != 0.0
        st.u[j] = (nle[j] + point) - tau_m[j]
    st.band_any = any_band
    st.have_band = True
    st.have_dahl = True


@compiled
def _momentum_observer(pr, st, M, qd, dt):
    """Take one sample of ``residuals.MomentumObserver`` (``st.residual``; keeps M, qd and u)."""
    n = qd.shape[0]
    r, u, Mprev = st.residual, st.u, st.mass_prev
    if not st.have_residual or dt <= 0.0:
        for j in range(n):
            r[j] = u[j]    # the acceleration-free residual: exact at rest
    else:
        a = math.exp(-pr.observer_k * dt)
        g, h = (1.0 - a) / dt, 0.5 * dt
        dq = qd - st.qd_prev
        for i in range(n):
            x = 0.0
            for j in range(n):
                x += (M[i, j] + Mprev[i, j]) * dq[j]
            r[i] = a * r[i] + g * (0.5 * x + h * (u[i] + st.u_prev[i]))
    Mprev[:, :] = M
    st.qd_prev[:] = qd
    st.u_prev[:] = u
    st.have_residual = True


@compiled
def friction_and_residual(params, state, M, q, qd, nle, tau_m, dt):
    """Stage 1: the friction and its band, u, and (``momentum``) the momentum observer."""
    pr, st = params[0], state[0]
    st.measured_nm[:] = tau_m
    st.velocity_rad_s[:] = qd
    _friction(pr, st, q, qd, nle, tau_m, dt)
    if pr.momentum:
        _momentum_observer(pr, st, M, qd, dt)


@compiled
def _joint_weights(pr, st):
    """Set ``st.joint_scale``: sqrt(w / max w), w = 1 / (residual variance + band^2 / 3)."""
    n, scale, band = st.band.shape[0], st.joint_scale, st.band
    if not pr.weighted:
        scale[:] = 1.0
    elif not st.band_any:
        scale[:] = pr.scale_free
    else:
        w_max = 0.0
        for j in range(n):
            scale[j] = 1.0 / (pr.residual_var_nm2[j] + band[j] * band[j] / 3.0)
            w_max = scale[j] if scale[j] > w_max else w_max
        for j in range(n):
            scale[j] = math.sqrt(scale[j] / w_max)


@compiled
def _stiction_torque(pr, st):
    """Set ``st.tau_map``, the torque that goes into the wrench (``stiction.stiction_batch``)."""
    tau, band, tm = st.tau_ext, st.band, st.tau_map
    mode, free = pr.stiction_mode, not st.band_any
    for j in range(tau.shape[0]):
        t, b = tau[j], band[j]
        x = t
        if mode != StictionMode.NONE and not free:
            if mode == StictionMode.HOLD and st.have_held:
                h, lo, hi = st.held[j], t - b, t + b
                x = lo if h < lo else (hi if h > hi else h)
            else:                                   # dead zone
                e = abs(t) - b
                x = math.copysign(e, t) if e > 0.0 else 0.0 * t
        tm[j] = x
    if mode == StictionMode.HOLD:
        st.held[:] = tm
        st.have_held = True


@compiled
def _gram_map(pr, st, J):
    """Map ``st.tau_map`` to all six wrench rows through their Gram matrix, if not singular.

    As ``mapping.WrenchMapper.matrices`` away from a singularity: W = (J J^T)^-1 J tau with the
    joint weights, sigma_min^2 the Gram matrix's smallest eigenvalue.
    """
    n = st.tau_map.shape[0]
    scale, tm = st.joint_scale, st.tau_map
    G, y = np.zeros((6, 6)), np.zeros(6)
    for i in range(6):
        for k in range(i, 6):
            acc = 0.0
            for j in range(n):
                acc += (J[i, j] * scale[j]) * (J[k, j] * scale[j])
            G[i, k] = G[k, i] = acc
        acc = 0.0
        for j in range(n):
            acc += (J[i, j] * scale[j]) * (tm[j] * scale[j])
        y[i] = acc
    if not np.all(np.isfinite(G)):
        return
    lam = np.linalg.eigvalsh(G)[0]
    if lam > pr.lam_min:
        st.wrench[:] = np.linalg.solve(G, y)
        st.mapped, st.damped, st.sigma_min = True, False, math.sqrt(lam)


@compiled
def _closed_form_map(pr, st, J):
    """Map ``st.tau_map`` to ``st.wrench`` where not near a singularity.

    In closed form for three consecutive rows, through their Gram matrix for all six. Sets
    ``st.mapped`` False where the damped map (Python) is needed.
    """
    n, k0 = st.tau_map.shape[0], pr.block0
    scale, tm, W = st.joint_scale, st.tau_map, st.wrench
    st.mapped = False
    if k0 < 0:
        if pr.full_rows:
            _gram_map(pr, st, J)
        return
    G = np.zeros((3, 4))
    for i in range(3):
        for k in range(3):
            acc = 0.0
            for j in range(n):
                acc += (J[k0 + i, j] * scale[j]) * (J[k0 + k, j] * scale[j])
            G[i, k] = acc
        acc = 0.0
        for j in range(n):
            acc += (J[k0 + i, j] * scale[j]) * (tm[j] * scale[j])
        G[i, 3] = acc
    ok, c00, c01, c02, c11, c12, c22, det, smin = gram3(
        G[0, 0], G[0, 1], G[0, 2], G[1, 1], G[1, 2], G[2, 2], pr.lam_min)
    if ok:
        y0, y1, y2 = G[0, 3], G[1, 3], G[2, 3]
        W[:] = 0.0
        W[k0] = (c00 * y0 + c01 * y1 + c02 * y2) / det
        W[k0 + 1] = (c01 * y0 + c11 * y1 + c12 * y2) / det
        W[k0 + 2] = (c02 * y0 + c12 * y1 + c22 * y2) / det
        st.mapped, st.damped, st.sigma_min = True, False, smin


@compiled
def _contact(pr, st):
    """Set the contact scores (``contact_scores``) and the level (``contact_level``)."""
    if pr.model_error:
        band = np.empty(st.band.shape[0])
        for j in range(band.shape[0]):
            b = unexplained_band(st.band[j], st.residual[j] + st.measured_nm[j],
                                 st.velocity_rad_s[j], pr.model_relative_error[j],
                                 pr.speed_error_nm_s_rad[j])
            # what the tracked friction still carries is no contact either
            band[j] = math.sqrt(b * b + pr.tracking_var_nm2[j])
        sc, sk = contact_scores(st.tau_ext, band, pr.contact_nm, pr.collision_nm,
                                pr.contact_k2, pr.collision_k2, pr.combined)
    else:
        sc, sk = contact_scores(st.tau_ext, st.band, pr.contact_nm, pr.collision_nm,
                                pr.contact_k2, pr.collision_k2, pr.combined)
    st.score_contact, st.score_collision = sc, sk
    st.contact_level = contact_level(st.contact_level, sc, sk, pr.release_ratio)


@compiled
def map_and_contact(params, state, J, dt):
    """Stage 2: the tare average, tau_ext, joint weights, stiction mode, closed-form map, contact.

    Returns:
        True where Python must map (``mapped`` False: the damped map) before stage 3.
    """
    pr, st = params[0], state[0]
    n = st.residual.shape[0]
    st.have_bias = False
    tare_average_add(st.tare_avg, st.residual, dt, pr.tare_window_s, not st.have_avg)
    st.have_avg = True
    for j in range(n):
        st.tau_ext[j] = st.residual[j] - st.tare_bias[j]
    _joint_weights(pr, st)
    _stiction_torque(pr, st)
    _closed_form_map(pr, st, J)
    _contact(pr, st)
    return not st.mapped


@compiled
def _lag_variance(pr, st, dt):
    """Update ``st.lag``: the lag the residual's increments show, mapped by the held A.

    As ``uncertainty.LagVariance``.
    """
    n = st.residual.shape[0]
    r, lag, A = st.residual, st.lag, st.cov_rows
    if not st.have_residual_prev or dt <= 0.0:
        lag[:] = 0.0
    else:
        a = math.exp(-pr.lag_k * dt)
        g, c = a / (1.0 - a), (LAG_NOISE_SIGMAS ** 2 / 2.0) * a * a
        m = np.zeros(n)
        seen = False
        for j in range(n):
            e = g * (r[j] - st.residual_prev[j])
            x = abs(e) - st.band[j]
            x = x * x - c * pr.residual_var_nm2[j] if x > 0.0 else 0.0
            if x > 0.0:
                m[j] = math.copysign(math.sqrt(x), e)
                seen = True
        a2 = a * a
        for i in range(6):
            x = a2 * lag[i]
            if seen:
                w = 0.0
                for j in range(n):
                    w += A[i, j] * m[j]
                x = w * w if w * w > x else x
            lag[i] = x
    st.residual_prev[:] = r
    st.have_residual_prev = True


@compiled
def _bias_envelope(pr, st, dt):
    """Update ``st.envelope`` (``envelope.BiasEnvelope``): the largest recent bias^2, decaying."""
    env, bias, have_bias = st.envelope, st.damping_bias, st.have_bias
    any_env = False
    for i in range(6):
        any_env = any_env or env[i] != 0.0
    if have_bias or any_env:
        a2 = math.exp(-2.0 * dt / pr.envelope_period_s) if dt > 0.0 else 0.0
        for i in range(6):
            v = a2 * env[i] if dt > 0.0 else 0.0
            if have_bias:
                d2 = bias[i] * bias[i]
                v = v if v > d2 else d2
            env[i] = v


@compiled
def uncertainty(params, state, dt):
    """Stage 3: the lag's variance, the bias envelope and the covariance; the sample's outputs.

    The covariance is the held one + the lag on the diagonal + d d^T (d: the damping bias), its
    diagonal raised to the envelope.

    Returns:
        (Stage.DONE or Stage.NONFINITE (the state became non-finite), tau_ext (n,), band (n,),
        wrench (6,), covariance (6, 6)); the arrays are empty unless DONE.
    """
    pr, st = params[0], state[0]
    n = st.residual.shape[0]
    _lag_variance(pr, st, dt)
    _bias_envelope(pr, st, dt)
    lag, env, bias, have_bias = st.lag, st.envelope, st.damping_bias, st.have_bias
    cov = st.held_cov.copy()
    for i in range(6):
        cov[i, i] += lag[i]
    if have_bias:
        for i in range(6):
            for k in range(6):
                cov[i, k] += bias[i] * bias[k]
    for i in range(6):
        d2 = bias[i] * bias[i] if have_bias else 0.0
        x = env[i] - d2
        cov[i, i] += x if x > 0.0 else 0.0
    check = 0.0
    for j in range(n):
        check += st.tau_ext[j]
    for i in range(6):
        check += st.wrench[i]
    check += st.score_contact + st.score_collision
    for i in range(6):
        check += lag[i]
    if have_bias:
        for i in range(6):
            check += bias[i]
    if not (math.isfinite(check) and st.cov_finite):
        return Stage.NONFINITE.value, np.empty(0), np.empty(0), np.empty(0), np.empty((0, 0))
    return Stage.DONE.value, st.tau_ext.copy(), st.band.copy(), st.wrench.copy(), cov


@compiled
def run_sample(params, state, M, J, q, qd, nle, tau_m, dt, due):
    """Run one sample's stages in one call, stopping where Python is needed.

    Args:
        params: the fixed parameters (``step_parameters``, one record).
        state: the state (``new_state``, one record), changed in place.
        M: (n, n) mass matrix; J: (6, n) tool Jacobian; q: (n,) rad; qd: (n,) rad/s;
            nle: (n,) C qd + g; tau_m: (n,) Nm, the measured torque.
        dt: s since the previous sample (0 after a restart).
        due: the covariance is recomputed at this sample (``CovarianceSchedule.due``).

    Returns:
        ``uncertainty``'s tuple, or (the next stage, empty arrays) where Python is needed first:
        Stage.MAP_AND_CONTACT after the direct residual, Stage.UNCERTAINTY after a damped map or
        a covariance recomputation.
    """
    friction_and_residual(params, state, M, q, qd, nle, tau_m, dt)
    empty, empty2 = np.empty(0), np.empty((0, 0))
    if not params[0].momentum:
        return Stage.MAP_AND_CONTACT.value, empty, empty, empty, empty2
    if map_and_contact(params, state, J, dt) or due:
        return Stage.UNCERTAINTY.value, empty, empty, empty, empty2
    return uncertainty(params, state, dt)
