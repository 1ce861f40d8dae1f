# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction near zero velocity: the stiction band, its release at the residual's rate (hold_band),
the dead zone and the stiction hold, through the estimator and alone."""
import numpy as np
import pytest
from estimate_cases import BENT, RATE, measured, stamps

from robot_id_ros.estimate import BAND_ZERO_NM, EstimatorConfig, WrenchEstimator, hold_band


def test_stiction_band_no_sign_invented_at_rest(youbot):
    """At rest, stiction holds an unknown friction torque; velocity noise around zero must not
    switch a Coulomb sign on and off (it would with the smooth-sign friction), and a friction
    torque inside the band raises no contact."""
    n = 400
    t = np.arange(n) / RATE
    rng = np.random.default_rng(1)
    Q = np.tile(BENT, (n, 1))
    QD = rng.normal(0.0, 0.004, Q.shape)          # encoder noise: well inside the stiction band
    held = np.array([0.0, 0.6, -0.5, 0.0, 0.0])   # friction holding the arm, within +-breakaway
    E = np.array([youbot.robot.inverse_dynamics(q, np.zeros(5), np.zeros(5)) for q in Q]) + held
    cfg = EstimatorConfig(contact_threshold_sigma=3.0, default_residual_std_nm=0.05)
    assert not WrenchEstimator(youbot, cfg).process(stamps(t), Q, QD, E).contact_state.any()
    # the exact sign (youBot) with a stiction band above the velocity noise
    cfg = EstimatorConfig(contact_threshold_sigma=3.0, default_residual_std_nm=0.05,
                          friction_sign='exact', stiction_velocity_rad_s=0.02)
    res = WrenchEstimator(youbot, cfg).process(stamps(t), Q, QD, E)
    assert not res.contact_state.any()
    # the estimate does not flicker with the velocity noise; the smooth-sign friction (no band)
    # swings by +-fc with it
    est = WrenchEstimator(youbot, cfg)
    point, band = est.friction(QD)
    np.testing.assert_array_equal(point, np.broadcast_to(youbot.friction.offset_nm, QD.shape))
    np.testing.assert_array_equal(band, np.broadcast_to(youbot.friction.breakaway_nm, QD.shape))
    assert np.std(youbot.friction.torque(QD),
                  axis=0)[:3].min() > 0.1  # what a smooth sign would do
    no_band = WrenchEstimator(youbot, EstimatorConfig(
        stiction_velocity_rad_s=0.0, friction_sign='exact')).process(stamps(t), Q, QD, E)
    s_band, s_none = np.std(res.tau_ext[50:], axis=0), np.std(no_band.tau_ext[50:], axis=0)
    assert np.all(s_none[:4] > 1.2 * s_band[:4]), (s_band, s_none)
    assert np.all(np.abs(res.tau_ext[50:]).mean(axis=0) < youbot.friction.breakaway_nm)
    est = WrenchEstimator(youbot, cfg)
    r = est.update(stamps(t)[0], Q[0], QD[0], E[0])
    np.testing.assert_allclose(r.tau_ext_band, youbot.friction.breakaway_nm)
    # the band goes into the covariance: uncertain at rest, less so when moving
    # once moving, the band is released at the observer's rate (the residual still holds the
    # stuck-phase friction for a few time constants): zero after 0.5 s of motion
    for k in range(1, 101):
        moving = est.update(stamps(t)[0] + k * 5 * 10 ** 6, Q[0], np.full(5, 0.5), E[0])
        if k == 1:
            assert np.all(moving.tau_ext_band < r.tau_ext_band)
    assert np.all(moving.tau_ext_band == 0.0)


def test_stiction_deadzone_maps_only_torque_outside_the_band(youbot):
    """At rest with friction held inside the breakaway band, the dead zone publishes no force; a
    real push beyond the band comes through, reduced by at most the band."""
    n = 300
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    QD = np.zeros_like(Q)
    g = np.array([youbot.robot.gravity_torque(q) for q in Q])
    held = np.array([0.0, 0.6, -0.5, 0.0, 0.0])  # friction inside +-breakaway, no external force
    kw = dict(sigma_guard=0.1, damping=0.1)
    on = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='deadzone',
                                                 **kw)).process(stamps(t), Q, QD, g + held)
    off = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='none',
                                                  **kw)).process(stamps(t), Q, QD, g + held)
    assert np.abs(on.wrench[100:, :3]).max() < 1e-6
    assert np.linalg.norm(
        off.wrench[-1, :3]) > 1.0  # without it the held friction reads as a force
    F = np.array([0.0, 0.0, -20.0, 0, 0, 0])  # well beyond the band at the loaded joints
    J = youbot.robot.tool_jacobian(BENT, 'base')
    pushed = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='deadzone', **kw)).process(
        stamps(t), Q, QD, g - J.T @ F)
    band_force = np.linalg.norm(np.linalg.pinv(J[:3].T) @ youbot.friction.breakaway_nm)
    assert np.linalg.norm(pushed.wrench[-1, :3] - F[:3]) <= band_force
    assert pushed.wrench[-1, 2] < -10.0


def test_breakaway_after_sticking_raises_no_contact(youbot):
    """A joint that was stuck (friction inside the band, not external force) and then moves: the
    observer lets go of the stuck-phase friction only at its bandwidth, so the band is released at
    that rate too and no contact is flagged, while a real push later still is."""
    rest = int(1.0 * RATE)
    tm = np.arange(int(2.0 * RATE)) / RATE              # starts from rest: q0 + a (1 - cos wt)
    a, w = np.array([0.0, 0.3, 0.3, 0.0, 0.0]), 2 * np.pi * 0.5
    Qm = BENT + a * (1 - np.cos(w * tm[:, None]))
    QDm = a * w * np.sin(w * tm[:, None])
    QDDm = a * w ** 2 * np.cos(w * tm[:, None])
    Q = np.vstack([np.tile(BENT, (rest, 1)), Qm])
    QD = np.vstack([np.zeros((rest, 5)), QDm])
    QDD = np.vstack([np.zeros((rest, 5)), QDDm])
    t = np.arange(len(Q)) / RATE
    held = np.array([0.0, 0.7, -0.55, 0.0, 0.0])       # just inside the breakaway band of J2, J3
    F = np.zeros((len(Q), 6))
    push = t > 2.2
    F[push, 2] = -15.0
    E = measured(youbot, Q, QD, QDD, F)
    E[:rest] += held
    cfg = EstimatorConfig(contact_threshold_sigma=5.0, default_residual_std_nm=0.03,
                          default_model_relative_error=0.0)   # the true model
    res = WrenchEstimator(youbot, cfg).process(stamps(t), Q, QD, E)
    assert not res.contact_state[t < 2.2].any()
    first = t[np.argmax(res.contact_state > 0)]
    assert res.contact_state[push].any() and 2.2 < first < 2.25


def test_sliding_friction_has_the_exact_sign_above_the_stiction_velocity(youbot):
    """A joint creeping at a small measured velocity slides: the estimator charges its full Coulomb
    friction (the smooth sign of the identification regressor would charge only tanh(qd / v) of
    it)."""
    fr = youbot.friction
    est = WrenchEstimator(youbot, EstimatorConfig(stiction_velocity_rad_s=0.005,
                                                  friction_sign='exact'))
    qd = np.array([0.012, -0.012, 0.02, -0.5, 0.0])
    point, band = est.friction(qd)
    expect = np.where(qd > 0, fr.coulomb_pos_nm,
                      -fr.coulomb_neg_nm) * (qd != 0) + fr.viscous_nm_s_rad * qd
    np.testing.assert_allclose(point[:4], expect[:4], atol=1e-12)
    assert np.all(band[:4] == 0.0) and band[4] == fr.breakaway_nm[4]
    assert abs(fr.torque(qd)[0]) < 0.85 * fr.coulomb_pos_nm[0]  # the smooth sign at 0.012 rad/s
    np.testing.assert_allclose(est.friction(qd[None])[0][0], point)     # (N, n) gives the same


def stop_under_load(youbot, drift_fraction=0.4):
    """The arm moves 1 s (rest to rest) with a constant tool force, then rests 2 s. At rest the
    static friction starts at the sliding friction of the last direction and drifts by
    ``drift_fraction`` of the breakaway band (the drives' integral action): (t, Q, QD, E, F)."""
    fr = youbot.friction
    tm = np.arange(int(1.0 * RATE)) / RATE
    a, w = np.array([0.2, 0.25, 0.25, 0.3, 0.0]), np.pi
    Qm, QDm, QDDm = BENT + a * (1 - np.cos(w * tm[:, None])), a * w * np.sin(w * tm[:, None]), \
        a * w ** 2 * np.cos(w * tm[:, None])
    nr = int(2.0 * RATE)
    q_end = BENT + 2 * a
    Q = np.vstack([Qm, np.tile(q_end, (nr, 1))])
    QD = np.vstack([QDm, np.zeros((nr, 5))])
    QDD = np.vstack([QDDm, np.zeros((nr, 5))])
    t = np.arange(len(Q)) / RATE
    F = np.array([4.0, -3.0, -10.0, 0.0, 0.0, 0.0])
    E = np.empty_like(Q)
    for k in range(len(Q)):
        J = youbot.robot.tool_jacobian(Q[k], 'base')
        E[k] = youbot.robot.inverse_dynamics(Q[k], QD[k], QDD[k]) - J.T @ F
    E[:len(tm)] += fr.sliding_torque(QDm)
    last = np.where(a > 0, fr.coulomb_pos_nm, 0.0)  # moving +: friction +fc at the stop
    tr = (t[len(tm):] - t[len(tm)]) / 2.0
    E[len(tm):] += last - drift_fraction * fr.breakaway_nm * tr[:, None] * (a > 0)
    return t, Q, QD, E, F


def test_stiction_hold_keeps_a_force_after_the_joints_stop(youbot):
    """A force that was measured while the joints slid stays measured after they stop, while their
    static friction drifts inside its band; the dead zone (smallest consistent torque) loses the
    part of it inside the band; 'hold' gives the same numbers per sample and in batch."""
    t, Q, QD, E, F = stop_under_load(youbot)
    kw = dict(stiction_velocity_rad_s=0.005, default_residual_std_nm=0.05)
    hold = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='hold',
                                                   **kw)).process(stamps(t), Q, QD, E)
    dz = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='deadzone',
                                                 **kw)).process(stamps(t), Q, QD, E)
    moving = (t > 0.3) & (t < 0.9)
    rest = t > 1.3
    err = lambda res, m: np.linalg.norm(res.wrench[m, :3] - F[:3], axis=1).max()   # noqa: E731
    assert err(hold, moving) < 0.6  # sliding: friction known (observer lag only)
    assert err(hold, rest) < 0.3, err(hold, rest)           # stopped: the force is kept
    assert err(dz, rest) > 1.0, err(dz, rest)  # the dead zone drops what the band could hide
    est = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='hold', **kw))
    W = np.array([est.update(s, q, qd, e).wrench for s, q, qd, e in zip(stamps(t), Q, QD, E)])
    np.testing.assert_allclose(W, hold.wrench, atol=1e-9)


def test_tare_at_rest_takes_no_static_friction_as_bias(youbot):
    """At rest the drives hold friction inside the band; a tare there with a stiction mode removes
    only what the band cannot explain, so when the joints start moving (friction now known) no
    force appears. A plain tare ('none') takes the held friction as bias and shows it as a
    force."""
    rest = int(1.0 * RATE)
    tm = np.arange(int(1.5 * RATE)) / RATE
    a, w = np.array([0.0, 0.3, 0.3, 0.0, 0.0]), 2 * np.pi * 0.5
    Q = np.vstack([np.tile(BENT, (rest, 1)), BENT + a * (1 - np.cos(w * tm[:, None]))])
    QD = np.vstack([np.zeros((rest, 5)), a * w * np.sin(w * tm[:, None])])
    QDD = np.vstack([np.zeros((rest, 5)), a * w ** 2 * np.cos(w * tm[:, None])])
    t = np.arange(len(Q)) / RATE
    E = np.array([youbot.robot.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    E += youbot.friction.sliding_torque(QD)
    held = np.array([0.0, 0.6, -0.5, 0.0, 0.0])            # inside the breakaway band of J2, J3
    E[:rest] += held
    out = {}
    for mode in ('none', 'hold'):
        est = WrenchEstimator(youbot,
                              EstimatorConfig(stiction_mode=mode, stiction_velocity_rad_s=0.005))
        W = []
        for k in range(len(t)):
            if k == rest - 20:
                bias = est.tare()
            W.append(est.update(stamps(t)[k], Q[k], QD[k], E[k]).wrench[:3])
        out[mode] = (np.linalg.norm(np.array(W)[t > 1.6], axis=1).max(), bias)
    assert out['hold'][0] < 0.2, out['hold']
    np.testing.assert_allclose(out['hold'][1], 0.0, atol=1e-9)
    assert out['none'][0] > 1.0, out['none']


def _sequential_hold_band(band, dt, rate, starts):
    """hold_band's definition, one sample at a time (the reference for the vectorised one)."""
    out = np.empty_like(band)
    prev = None
    for k in range(len(band)):
        if prev is None or starts[k]:
            prev = band[k].copy()
        else:
            held = prev * np.exp(-rate * dt[k])
            held[held < BAND_ZERO_NM] = 0.0
            prev = np.maximum(band[k], held)
        out[k] = prev
    return out


@pytest.mark.parametrize('seed', range(6))
def test_hold_band_equals_the_sequential_recursion(seed):
    """Random bands (many exact zeros, values decaying through BAND_ZERO_NM, scales 1e-8..1e2 Nm),
    irregular intervals and segment restarts: the vectorised hold_band gives the recursion's
    numbers."""
    rng = np.random.default_rng(seed)
    N, n = 4000, 4
    band = rng.uniform(0.0, 1.0,
                       (N, n)) * (rng.uniform(size=(N, n)) < 0.05) * 10.0**rng.uniform(-8, 2, n)
    band[::97] = 10 * BAND_ZERO_NM  # just above the zero level: released within a few samples
    dt = rng.uniform(0.001, 0.02, N) * np.where(rng.uniform(size=N) < 0.02, 20.0, 1.0)
    starts = rng.uniform(size=N) < 0.003
    starts[0] = True
    rate = rng.uniform(1.0, 200.0)
    want = _sequential_hold_band(band, dt, rate, starts)
    got = hold_band(band, dt, rate, starts)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0.0)
    assert ((got > 0) == (want > 0)).all()
    # crossing BAND_ZERO_NM exactly as the recursion does: zero from the first sample below it on
    one = hold_band(np.r_[[[1.0]], np.zeros((400, 1))], np.full(401, 0.01), 10.0)
    k0 = int(np.ceil(np.log(1.0 / BAND_ZERO_NM) / 0.1))
    assert one[k0 - 1, 0] >= BAND_ZERO_NM and (one[k0:] == 0.0).all()
    np.testing.assert_array_equal(hold_band(np.zeros((5, 2)), np.full(5, 0.01), 10.0), 0.0)
