# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``WrenchEstimator.update``'s arithmetic after the Pinocchio calls, compiled (numba), one sample.

One sample of the estimator is a few dozen operations on 5-6 values each: in Python each numpy
call (about a microsecond whatever the size) or pass over the joints costs more than the sums.
So the whole one-sample step is one compiled kernel, ``sample_step``, with its state in arrays the
estimator holds (``StepState``): friction law and stiction band, the band's release, the
momentum observer, the tare average, the joint weights, the stiction mode, the closed-form
3-row wrench map, the contact scores and state, the lag's variance, the damping bias's envelope
and the sample's covariance. This is the only one-sample implementation of those rules; ``process``
keeps their vectorised forms, and test/estimate/test_update_equals_process.py checks that the two
give the same numbers.

What stays in Python runs on few samples: the covariance recomputation (every
``covariance_period_s``), the direct residual (``residuals.DirectResidual``), the damped map near a
singularity (SVD) and its bias; ``sample_step`` stops where one of them is needed (its return
code) and is called again from there.

The kernels are compiled when the first estimator is made (``WrenchEstimator._compile_step``:
about 8 s of CPU once) and kept in numba's on-disk cache: in ``__pycache__`` next to this file,
or where that is not writable in the user's cache directory (~/.cache/numba; ``NUMBA_CACHE_DIR``
moves it); loading them from there takes about 0.1 s. Without numba installed (``COMPILED``
False) the same functions run as plain Python: the same numbers, about 7x slower per sample
(69-72 against 9.5-9.6 us here, ``NUMBA_DISABLE_JIT=1 benchmarks/bench_estimator_cost.py``);
the node says so when it starts.
"""
from __future__ import annotations

import math

import numpy as np

try:
    from numba import njit
except ImportError:         # the kernels run as plain Python (see the module doc)
    njit = None

# whether the kernels are compiled (numba installed)
COMPILED = njit is not None

# rows of the joint parameters P (n columns)
(P_FC_POS, P_FC_NEG, P_VISCOUS, P_OFFSET, P_STRIBECK, P_STRIBECK_V, P_STICTION_V, P_BREAKAWAY,
 P_RES_VAR, P_CONTACT2, P_COLLISION2, P_CONTACT, P_COLLISION, P_SCALE_FREE,
 P_PRESLIDING) = range(15)
N_P_ROWS = 15
# entries of the scalar parameters p
(SIGN_V, BANDED, BAND_RATE, OBSERVER_K, MOMENTUM, WEIGHTED, STICTION_MODE, COMBINED, KC2, KK2,
 RELEASE, LAG_K, LAM_MIN, BLOCK0, ENV_PERIOD, TARE_WINDOW, BAND_ZERO) = range(17)
N_SCALARS = 17
STICTION_CODES = {'none': 0, 'deadzone': 1, 'hold': 2}
# rows of the joint state S (n columns)
(S_R, S_R_PREV, S_QD_PREV, S_U_PREV, S_BAND, S_HELD, S_AVG, S_BIAS, S_TAU, S_TAU_MAP, S_SCALE,
 S_U, S_Z, S_Q_PREV) = range(14)
N_S_ROWS = 14
# entries of the scalar state s
(HAVE_R, HAVE_R_PREV, HAVE_BAND, BAND_ANY, HAVE_HELD, HAVE_AVG, CONTACT_LEVEL, MAPPED, DAMPED,
 SIGMA_MIN, SCORE_CONTACT, SCORE_COLLISION, COV_FINITE, HAVE_BIAS) = range(14)
LAG0, ENV0 = 14, 20         # the lag's variance (6), the bias envelope (6)
HAVE_Z = 26                 # the presliding state (rows S_Z, S_Q_PREV) has a previous sample
N_STATE = 27
# where sample_step starts; its return code is where to resume (or DONE, NONFINITE)
STAGE_FRICTION = 0     # friction, band, u, the momentum observer
STAGE_FRONT = 1        # after the residual (Python: the direct residual into row S_R)
STAGE_BACK = 2         # after the map (Python: a damped map, a recomputed covariance, the bias)
DONE, NONFINITE = 3, 4
LAG_NOISE_SIGMAS = 2.0      # uncertainty.LagVariance.NOISE_SIGMAS


def _compiled(func):
    """Return ``numba.njit(func)`` with its on-disk cache, if numba finds a writable place for it.

    Without one, each process compiles the kernels again (about 8 s of CPU here).
    """
    if njit is None:
        return func
    try:
        return njit(cache=True)(func)
    except RuntimeError:        # numba: no locator available (no writable cache directory)
        return njit(func)


@_compiled
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


@_compiled
def tare_average_add(avg, r, dt_s, window_s, fresh):
    """One sample of ``samples.TareAverage``: ``avg`` (n,) Nm moved towards ``r`` in place.

    First order with time constant ``window_s`` (s); a fresh start, dt 0 or window 0 take ``r``.
    """
    if fresh or dt_s == 0.0 or window_s == 0.0:
        for j in range(len(avg)):
            avg[j] = r[j]
    else:
        g = dt_s / (dt_s + window_s)
        for j in range(len(avg)):
            avg[j] = avg[j] + g * (r[j] - avg[j])


@_compiled
def contact_level(level, s_contact, s_collision, release):
    """One step of ``contact.ContactDetector``'s hysteresis: the next level (0, 1, 2)."""
    if s_collision >= 1.0:
        level = 2
    elif level == 2 and s_collision < release:
        level = 1 if s_contact >= release else 0
    if level == 0 and s_contact >= 1.0:
        level = 1
    elif level == 1 and s_contact < release:
        level = 0
    return level


@_compiled
def _friction(P, p, S, s, q, qd, nle, tau_m, dt):
    """Compute the friction, its stiction band and u = C qd + g + f - tau_m (row S_U).

    As ``stiction.StictionFriction`` with the model's law; the band (row S_BAND) is released as
    ``stiction.hold_band`` does. A joint with presliding (q0 = P[P_PRESLIDING] > 0) takes its
    Coulomb sign from the Dahl state (row S_Z), stepped over q - q_prev as
    ``friction.presliding_state`` does and started, after a restart, at the smooth sign
    (``StictionFriction.presliding_start``).
    """
    n = qd.shape[0]
    band = S[S_BAND]
    sign_v = p[SIGN_V]
    # the residual forgets a stuck joint's friction at its own rate: the band held before decays
    release = s[BAND_ANY] != 0.0 and dt > 0.0
    decay = math.exp(-p[BAND_RATE] * dt) if release else 0.0
    any_band = False
    for j in range(n):
        v = qd[j]
        if sign_v > 0.0:
            sg = math.tanh(v / sign_v)
        else:
            sg = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)
        sc, q0 = sg, P[P_PRESLIDING, j]
        if q0 > 0.0:
            if s[HAVE_Z] == 0.0 or dt <= 0.0:
                z = sg
            else:
                z = S[S_Z, j]
                dq = q[j] - S[S_Q_PREV, j]
                if dq != 0.0:
                    sd = 1.0 if dq > 0.0 else -1.0
                    z = sd - (sd - z) * math.exp(-abs(dq) / q0)
            S[S_Z, j], S[S_Q_PREV, j] = z, q[j]
            sc = z
        law = (P[P_FC_POS, j] * sc if sc > 0.0 else P[P_FC_NEG, j] * sc) \
            + P[P_VISCOUS, j] * v + P[P_OFFSET, j]
        fs = P[P_STRIBECK, j]
        if fs != 0.0:
            x = v / P[P_STRIBECK_V, j]
            law += fs * math.exp(-x * x) * sg
        if p[BANDED] == 0.0:
            point, b = law, 0.0
        else:
            vs = P[P_STICTION_V, j]
            w = abs(v) / vs - 1.0 if vs > 0.0 else 1.0
            w = 0.0 if w <= 0.0 else (1.0 if w >= 1.0 else w)
            off, brk = P[P_OFFSET, j], P[P_BREAKAWAY, j]
            if sign_v > 0.0:
                point, b = law, (1.0 - w) * (brk + abs(law - off))
            else:
                point, b = off + w * (law - off), (1.0 - w) * brk
        if release:
            h = band[j] * decay
            if not (b >= h or h < p[BAND_ZERO]):
                b = h
        band[j] = b
        any_band = any_band or b != 0.0
        S[S_U, j] = (nle[j] + point) - tau_m[j]
    s[BAND_ANY] = 1.0 if any_band else 0.0
    s[HAVE_BAND] = 1.0
    s[HAVE_Z] = 1.0


@_compiled
def _momentum_observer(p, S, s, Mprev, M, qd, dt):
    """Take one sample of ``residuals.MomentumObserver`` (row S_R; keeps M, qd and u)."""
    n = qd.shape[0]
    r, u = S[S_R], S[S_U]
    if s[HAVE_R] == 0.0 or dt <= 0.0:
        for j in range(n):
            r[j] = u[j]    # the acceleration-free residual: exact at rest
    else:
        a = math.exp(-p[OBSERVER_K] * dt)
        g, h = (1.0 - a) / dt, 0.5 * dt
        dq = qd - S[S_QD_PREV]
        for i in range(n):
            x = 0.0
            for j in range(n):
                x += (M[i, j] + Mprev[i, j]) * dq[j]
            r[i] = a * r[i] + g * (0.5 * x + h * (u[i] + S[S_U_PREV, i]))
    Mprev[:, :] = M
    S[S_QD_PREV] = qd
    S[S_U_PREV] = u
    s[HAVE_R] = 1.0


@_compiled
def _front(P, p, S, s, J, W, dt):
    """Run the tare average, tau_ext, joint weights, stiction mode, closed-form map, contact."""
    n = S.shape[1]
    tare_average_add(S[S_AVG], S[S_R], dt, p[TARE_WINDOW], s[HAVE_AVG] == 0.0)
    s[HAVE_AVG] = 1.0
    tau, band, scale, tm = S[S_TAU], S[S_BAND], S[S_SCALE], S[S_TAU_MAP]
    free = s[BAND_ANY] == 0.0
    for j in range(n):
        tau[j] = S[S_R, j] - S[S_BIAS, j]
    # joint weights sqrt(w / max w), w = 1 / (residual variance + band^2 / 3) (1 unweighted)
    if p[WEIGHTED] == 0.0:
        scale[:] = 1.0
    elif free:
        scale[:] = P[P_SCALE_FREE]
    else:
        w_max = 0.0
        for j in range(n):
            scale[j] = 1.0 / (P[P_RES_VAR, j] + band[j] * band[j] / 3.0)
            w_max = scale[j] if scale[j] > w_max else w_max
        for j in range(n):
            scale[j] = math.sqrt(scale[j] / w_max)
    # the torque that goes into the wrench (stiction.stiction_batch)
    mode = p[STICTION_MODE]
    for j in range(n):
        t, b = tau[j], band[j]
        x = t
        if mode != 0.0 and not free:
            if mode == 2.0 and s[HAVE_HELD] != 0.0:
                h, lo, hi = S[S_HELD, j], t - b, t + b
                x = lo if h < lo else (hi if h > hi else h)
            else:                                   # dead zone
                e = abs(t) - b
                x = math.copysign(e, t) if e > 0.0 else 0.0 * t
        tm[j] = x
    if mode == 2.0:
        S[S_HELD] = tm
        s[HAVE_HELD] = 1.0
    # the wrench: three consecutive rows away from a singularity in closed form
    s[MAPPED] = 0.0
    k0 = int(p[BLOCK0])
    if k0 >= 0:
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
            G[0, 0], G[0, 1], G[0, 2], G[1, 1], G[1, 2], G[2, 2], p[LAM_MIN])
        if ok:
            y0, y1, y2 = G[0, 3], G[1, 3], G[2, 3]
            W[:] = 0.0
            W[k0] = (c00 * y0 + c01 * y1 + c02 * y2) / det
            W[k0 + 1] = (c01 * y0 + c11 * y1 + c12 * y2) / det
            W[k0 + 2] = (c02 * y0 + c12 * y1 + c22 * y2) / det
            s[MAPPED], s[DAMPED], s[SIGMA_MIN] = 1.0, 0.0, smin
    # contact scores (contact.ContactDetector.scores) and the hysteresis
    sc = sk = 0.0
    if p[COMBINED] != 0.0:
        for j in range(n):
            t2, b2 = tau[j] * tau[j], band[j] * band[j]
            sc += t2 / (P[P_CONTACT2, j] + p[KC2] * b2)
            sk += t2 / (P[P_COLLISION2, j] + p[KK2] * b2)
        sc, sk = math.sqrt(sc), math.sqrt(sk)
    else:
        for j in range(n):
            e = abs(tau[j]) - band[j]
            if e > 0.0:
                c, k = e / P[P_CONTACT, j], e / P[P_COLLISION, j]
                sc = c if c > sc else sc
                sk = k if k > sk else sk
            elif e != e:
                sc = sk = math.nan
                break
    s[SCORE_CONTACT], s[SCORE_COLLISION] = sc, sk
    s[CONTACT_LEVEL] = contact_level(int(s[CONTACT_LEVEL]), sc, sk, p[RELEASE])


@_compiled
def _back(P, p, S, s, A, held_cov, W, bias, dt):
    """Update the lag's variance and the bias envelope; return (covariance (6, 6), finite)."""
    n = S.shape[1]
    r = S[S_R]
    lag = s[LAG0:LAG0 + 6]
    # uncertainty.LagVariance: the lag the residual's increments show, mapped by the held A
    if s[HAVE_R_PREV] == 0.0 or dt <= 0.0:
        lag[:] = 0.0
    else:
        a = math.exp(-p[LAG_K] * dt)
        g, c = a / (1.0 - a), (LAG_NOISE_SIGMAS ** 2 / 2.0) * a * a
        m = np.zeros(n)
        seen = False
        for j in range(n):
            e = g * (r[j] - S[S_R_PREV, j])
            x = abs(e) - S[S_BAND, j]
            x = x * x - c * P[P_RES_VAR, j] if x > 0.0 else 0.0
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
    S[S_R_PREV] = r
    s[HAVE_R_PREV] = 1.0
    # envelope.BiasEnvelope: the largest recent bias^2, decaying over the covariance period
    env = s[ENV0:ENV0 + 6]
    have_bias = s[HAVE_BIAS] != 0.0
    any_env = False
    for i in range(6):
        any_env = any_env or env[i] != 0.0
    if have_bias or any_env:
        a2 = math.exp(-2.0 * dt / p[ENV_PERIOD]) if dt > 0.0 else 0.0
        for i in range(6):
            v = a2 * env[i] if dt > 0.0 else 0.0
            if have_bias:
                d2 = bias[i] * bias[i]
                v = v if v > d2 else d2
            env[i] = v
    # the covariance: held + lag on the diagonal + d d^T, its diagonal raised to the envelope
    cov = held_cov.copy()
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
        check += S[S_TAU, j]
    for i in range(6):
        check += W[i]
    check += s[SCORE_CONTACT] + s[SCORE_COLLISION]
    for i in range(6):
        check += lag[i]
    if have_bias:
        for i in range(6):
            check += bias[i]
    return cov, math.isfinite(check) and s[COV_FINITE] != 0.0


@_compiled
def sample_step(stage, dt, due, P, p, S, s, Mprev, M, J, nle, q, qd, tau_m, W, A, held_cov,
                bias):
    """Run one sample from ``stage`` until Python is needed or the sample is done.

    Args:
        stage: STAGE_FRICTION for a new sample, else the code the previous call returned.
        dt: s since the previous sample (0 after a restart).
        due: the covariance is recomputed at this sample (``CovarianceSchedule.due``).
        P, p: joint (N_P_ROWS, n) and scalar (N_SCALARS,) parameters (``step_parameters``).
        S, s: joint (N_S_ROWS, n) and scalar (N_STATE,) state, changed in place.
        Mprev: (n, n) the previous mass matrix (state).
        M: (n, n) mass matrix; J: (6, n) tool Jacobian; nle: (n,) C qd + g; q: (n,) rad;
            qd: (n,) rad/s; tau_m: (n,) Nm, the measured torque.
        W: (6,) the wrench (written here or, for a damped map, by Python).
        A: (6, n) the wrench map of the last covariance recomputation.
        held_cov: (6, 6) the covariance of the last recomputation.
        bias: (6,) the damping bias when s[HAVE_BIAS].

    Returns:
        (code, tau_ext (n,), band (n,), wrench (6,), covariance (6, 6)): code STAGE_FRONT (the
        direct residual is needed), STAGE_BACK (``s[MAPPED]`` 0: the damped map is needed; or
        the covariance is due), DONE (the arrays are new) or NONFINITE (the state became
        non-finite); the arrays are empty unless DONE.
    """
    empty, empty2 = np.empty(0), np.empty((0, 0))
    if stage == STAGE_FRICTION:
        _friction(P, p, S, s, q, qd, nle, tau_m, dt)
        if p[MOMENTUM] == 0.0:
            return STAGE_FRONT, empty, empty, empty, empty2
        _momentum_observer(p, S, s, Mprev, M, qd, dt)
        stage = STAGE_FRONT
    if stage == STAGE_FRONT:
        s[HAVE_BIAS] = 0.0
        _front(P, p, S, s, J, W, dt)
        if due or s[MAPPED] == 0.0:
            return STAGE_BACK, empty, empty, empty, empty2
    cov, finite = _back(P, p, S, s, A, held_cov, W, bias, dt)
    if not finite:
        return NONFINITE, empty, empty, empty, empty2
    return DONE, S[S_TAU].copy(), S[S_BAND].copy(), W.copy(), cov


def step_parameters(n, friction, stiction_velocity_rad_s, law, residual_var_nm2, detector,
                    config, band_rate, lag_k, lam_min, block0, scale_free):
    """Return the kernel's fixed parameters (P (N_P_ROWS, n), p (N_SCALARS,)).

    Args:
        n: joints.
        friction: the model's ``FrictionModel``.
        stiction_velocity_rad_s: (n,) rad/s (``StictionFriction.v_s``).
        law: 'model' or 'exact'.
        residual_var_nm2: (n,) Nm^2.
        detector: the ``ContactDetector``.
        config: the validated ``EstimatorConfig``.
        band_rate: 1/s, the rate at which the residual forgets (its bandwidth, rad/s).
        lag_k: 1/s, ``LagVariance.K``.
        lam_min: the mapper's smallest undamped Gram eigenvalue.
        block0: the first of three consecutive mapped rows, -1 if the rows are not such.
        scale_free: (n,) the joint weights with no joint in a band.
    """
    from robot_id_ros.estimate.stiction import BAND_ZERO_NM
    P = np.zeros((N_P_ROWS, n))
    P[P_FC_POS], P[P_FC_NEG] = friction.coulomb_pos_nm, friction.coulomb_neg_nm
    P[P_VISCOUS], P[P_OFFSET] = friction.viscous_nm_s_rad, friction.offset_nm
    P[P_STRIBECK], P[P_STRIBECK_V] = friction.stribeck_nm, friction.stribeck_velocity_rad_s
    P[P_STICTION_V], P[P_BREAKAWAY] = stiction_velocity_rad_s, friction.breakaway_nm
    P[P_RES_VAR] = residual_var_nm2
    P[P_CONTACT2], P[P_COLLISION2] = detector.contact_nm ** 2, detector.collision_nm ** 2
    P[P_CONTACT], P[P_COLLISION] = detector.contact_nm, detector.collision_nm
    P[P_SCALE_FREE] = scale_free
    if law == 'model':
        P[P_PRESLIDING] = friction.presliding_rad
    p = np.zeros(N_SCALARS)
    p[SIGN_V] = friction.sign_velocity_rad_s if law == 'model' else 0.0
    p[BANDED] = float((np.asarray(stiction_velocity_rad_s) > 0).any())
    p[BAND_RATE], p[OBSERVER_K] = band_rate, 2.0 * math.pi * config.observer_gain_hz
    p[MOMENTUM] = float(config.method == 'momentum')
    p[WEIGHTED] = float(config.band_weighting)
    p[STICTION_MODE] = STICTION_CODES[config.stiction_mode]
    p[COMBINED] = float(detector.combined)
    p[KC2], p[KK2] = detector.contact_sigma2, detector.collision_sigma2
    p[RELEASE], p[LAG_K], p[LAM_MIN], p[BLOCK0] = detector.release_ratio, lag_k, lam_min, block0
    p[ENV_PERIOD], p[TARE_WINDOW] = config.covariance_period_s, config.tare_window_s
    p[BAND_ZERO] = BAND_ZERO_NM
    return P, p


def new_state(n):
    """Return a reset state (S (N_S_ROWS, n), s (N_STATE,), M_prev (n, n))."""
    s = np.zeros(N_STATE)
    s[COV_FINITE] = 1.0
    return np.zeros((N_S_ROWS, n)), s, np.zeros((n, n))
