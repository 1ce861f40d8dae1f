"""Estimation core: known external forces recovered from torques generated with the model.

Measured torque is generated as tau_m = ID(q, qd, qdd) + friction(qd) - J^T F (the wrench F
applied to the tool), plus noise where stated; the estimator must return F.
"""
import numpy as np
import pytest

from robot_id_ros.model.base_parameters import compute_base_parameters
from robot_id_ros.estimate.estimation import (BAND_ZERO_NM, COLLISION, CONTACT, CONTACT_NONE, CausalDifferentiator,
                                          ContactDetector, EstimatorConfig, EstimatorInputError, WrenchEstimator,
                                          effort_scale, hold_band)
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import RobotModel, youbot_model
from robot_id_ros.io.model_file import Payload, nominal_model
from robot_id_ros.demo.pipeline import DEMO_ESTIMATOR

CANDLE = np.array([2.9496, 1.1344, -2.5482, 1.789, 2.9234])
BENT = CANDLE + np.array([0.0, 0.5, 0.9, 0.4, 0.0])       # tool 0.47 m out, well away from singularity
UR5 = ('/work/main/.venv/lib/python3.11/site-packages/cmeel.prefix/share/example-robot-data/robots/'
       'ur_description/urdf/ur5_robot.urdf')
RATE = 200.0


def youbot_friction():
    return FrictionModel(coulomb_pos_nm=[0.5, 0.5, 0.4, 0.2, 0.1], coulomb_neg_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
                         viscous_nm_s_rad=[0.5, 0.4, 0.3, 0.1, 0.05], offset_nm=0.0,
                         breakaway_nm=[0.8, 0.8, 0.6, 0.3, 0.15])


@pytest.fixture(scope='module')
def youbot():
    return nominal_model(youbot_model(), youbot_friction())


def trajectory(q0, seconds, amp, freq_hz, rate=RATE):
    t = np.arange(int(seconds * rate)) / rate
    w = 2 * np.pi * np.asarray(freq_hz)
    Q = q0 + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    return t, Q, QD, QDD


def measured(model, Q, QD, QDD, F, frame='base', noise_nm=0.0, seed=0, payload=None):
    """Torque the drives produce when the wrench F (N, 6) in ``frame`` acts on the tool."""
    truth = model
    if payload is not None:
        truth = nominal_model(model.robot, model.friction)
        truth.set_payload(payload)
    E = np.empty_like(Q)
    for k in range(len(Q)):
        J = truth.robot.tool_jacobian(Q[k], frame)
        E[k] = truth.torque(Q[k], QD[k], QDD[k]) - J.T @ F[k]
    return E + np.random.default_rng(seed).normal(0.0, noise_nm, E.shape)


def stamps(t):
    return (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)


@pytest.mark.parametrize('method', ['momentum', 'direct'])
def test_known_force_recovered_in_motion(youbot, method):
    t, Q, QD, QDD = trajectory(BENT, 8.0, np.array([0.25, 0.2, 0.2, 0.2, 0.3]), [0.3, 0.4, 0.5, 0.35, 0.45])
    F = np.zeros((len(t), 6))
    F[t >= 2.0, :3] = [5.0, -3.0, 0.0]
    F[t >= 5.0, :3] = [0.0, 0.0, -15.0]
    E = measured(youbot, Q, QD, QDD, F, noise_nm=0.01)
    est = WrenchEstimator(youbot, EstimatorConfig(method=method))
    res = est.process(stamps(t), Q, QD, E)
    settled = (t > 0.5) & ~((t >= 2.0) & (t < 2.4)) & ~((t >= 5.0) & (t < 5.4))
    err = res.wrench[settled, :3] - F[settled, :3]
    rms = np.sqrt(np.mean(err ** 2, axis=0))
    assert np.all(rms < 0.5), rms
    assert np.allclose(res.wrench[:, 3:], 0.0)       # 5 joints: force only
    assert res.frame_id == youbot.robot.model.frames[1].name
    # the per-sample path gives the same numbers as the batch path
    est2 = WrenchEstimator(youbot, EstimatorConfig(method=method))
    W = np.array([est2.update(s, q, qd, e).wrench for s, q, qd, e in zip(stamps(t)[:300], Q[:300], QD[:300],
                                                                          E[:300])])
    np.testing.assert_allclose(W, res.wrench[:300], atol=1e-9)


@pytest.mark.parametrize('method', ['momentum', 'direct'])
def test_known_force_recovered_at_rest(youbot, method):
    n = 400
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    Z = np.zeros_like(Q)
    F = np.zeros((n, 6))
    F[t >= 1.0, :3] = [0.0, 5.0, -5.0]
    E = measured(youbot, Q, Z, Z, F)
    res = WrenchEstimator(youbot, EstimatorConfig(method=method)).process(stamps(t), Q, Z, E)
    np.testing.assert_allclose(res.wrench[t > 1.5, :3], F[t > 1.5, :3], atol=0.05)
    np.testing.assert_allclose(res.wrench[t < 1.0, :3], 0.0, atol=1e-6)


def test_observer_step_response_is_first_order(youbot):
    """A step of tau_ext reaches 1 - exp(-K t): the configured bandwidth is the real one."""
    n = 200
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    Z = np.zeros_like(Q)
    F = np.zeros((n, 6))
    F[t >= 0.2, 2] = -10.0
    E = measured(youbot, Q, Z, Z, F)
    res = WrenchEstimator(youbot, EstimatorConfig(observer_gain_hz=5.0)).process(stamps(t), Q, Z, E)
    K = 2 * np.pi * 5.0
    for k in np.searchsorted(t, [0.2 + 1 / K, 0.2 + 2 / K]):  # one and two time constants later
        # the trapezoid rule lets the step in half a sample early
        assert res.wrench[k, 2] == pytest.approx(-10.0 * (1 - np.exp(-K * (t[k] - 0.2 + 0.5 / RATE))), rel=0.02)


def test_stiction_band_no_sign_invented_at_rest(youbot):
    """At rest, stiction holds an unknown friction torque; velocity noise around zero must not
    switch a Coulomb sign on and off (it would with the smooth-sign friction), and a friction torque
    inside the band raises no contact."""
    n = 400
    t = np.arange(n) / RATE
    rng = np.random.default_rng(1)
    Q = np.tile(BENT, (n, 1))
    QD = rng.normal(0.0, 0.004, Q.shape)          # encoder noise: well inside the stiction band
    held = np.array([0.0, 0.6, -0.5, 0.0, 0.0])   # friction holding the arm, within +-breakaway
    E = np.array([youbot.robot.inverse_dynamics(q, np.zeros(5), np.zeros(5)) for q in Q]) + held
    cfg = EstimatorConfig(contact_threshold_sigma=3.0, default_residual_std_nm=0.05)
    res = WrenchEstimator(youbot, cfg).process(stamps(t), Q, QD, E)
    assert not res.contact_state.any()
    # the estimate does not flicker with the velocity noise; the smooth-sign friction (no band)
    # swings by +-fc with it
    est = WrenchEstimator(youbot, cfg)
    point, band = est.friction(QD)
    np.testing.assert_array_equal(point, np.broadcast_to(youbot.friction.offset_nm, QD.shape))
    np.testing.assert_array_equal(band, np.broadcast_to(youbot.friction.breakaway_nm, QD.shape))
    assert np.std(youbot.friction.torque(QD), axis=0)[:3].min() > 0.1    # what a smooth sign would do
    no_band = WrenchEstimator(youbot, EstimatorConfig(stiction_velocity_rad_s=0.0)).process(stamps(t), Q, QD, E)
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


def test_payload_compensation_changeable_at_run_time(youbot):
    n = 300
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    Z = np.zeros_like(Q)
    payload = Payload(0.5, np.array([0.0, 0.0, 0.0]))
    E = measured(youbot, Q, Z, Z, np.zeros((n, 6)), payload=payload)
    model = nominal_model(youbot.robot, youbot.friction)
    est = WrenchEstimator(model)
    out = [est.update(s, q, qd, e).wrench for s, q, qd, e in zip(stamps(t)[:150], Q[:150], Z[:150], E[:150])]
    # unmodelled payload: its weight appears as an external force, -m g in z (base frame)
    np.testing.assert_allclose(out[-1][:3], [0.0, 0.0, -0.5 * 9.81], atol=0.02)
    est.set_payload(0.5, [0.0, 0.0, 0.0])
    out = [est.update(s, q, qd, e).wrench for s, q, qd, e in zip(stamps(t)[150:], Q[150:], Z[150:], E[150:])]
    np.testing.assert_allclose(out[-1][:3], 0.0, atol=0.02)
    est.set_payload(None)
    assert model.payload is None
    # a payload with its COM off the tool point, in motion: compensated too
    t, Q, QD, QDD = trajectory(BENT, 2.0, np.full(5, 0.2), [0.3, 0.4, 0.5, 0.35, 0.45])
    frictionless = nominal_model(youbot.robot)
    E = measured(frictionless, Q, QD, QDD, np.zeros((len(t), 6)), payload=Payload(0.4, np.array([0.02, -0.01, 0.05])))
    est = WrenchEstimator(nominal_model(youbot.robot))
    est.set_payload(0.4, [0.02, -0.01, 0.05])
    res = est.process(stamps(t), Q, QD, E)
    assert np.abs(res.wrench[t > 0.3, :3]).max() < 0.1


def test_frame_base_vs_tool(youbot):
    t, Q, QD, QDD = trajectory(BENT, 2.0, np.full(5, 0.15), [0.3, 0.4, 0.5, 0.35, 0.45])
    F = np.zeros((len(t), 6))
    F[:, :3] = [4.0, -6.0, -8.0]
    E = measured(youbot, Q, QD, QDD, F)
    base = WrenchEstimator(youbot, EstimatorConfig(frame='base')).process(stamps(t), Q, QD, E)
    tool = WrenchEstimator(youbot, EstimatorConfig(frame='tool')).process(stamps(t), Q, QD, E)
    assert tool.frame_id == youbot.robot.tool_frame
    k = len(t) - 1
    R = youbot.robot.tool_placement(Q[k]).rotation
    np.testing.assert_allclose(tool.wrench[k, :3], R.T @ base.wrench[k, :3], atol=0.05)
    np.testing.assert_allclose(tool.wrench[k, :3], R.T @ F[k, :3], atol=0.3)


def test_ur5_full_wrench_six_joints():
    robot = RobotModel(UR5, tool_frame='tool0')
    assert robot.n == 6
    model = nominal_model(robot)
    q0 = np.array([0.3, -1.2, 1.5, -1.0, -1.4, 0.4])
    t, Q, QD, QDD = trajectory(q0, 3.0, np.full(6, 0.2), [0.3, 0.4, 0.5, 0.35, 0.45, 0.55])
    F = np.zeros((len(t), 6))
    F[t >= 1.0] = [5.0, -3.0, 8.0, 0.5, -0.3, 0.2]
    for frame in ('base', 'tool'):
        Ff = F.copy()
        if frame == 'tool':   # the same physical wrench in tool axes
            for k in range(len(t)):
                R = robot.tool_placement(Q[k]).rotation
                Ff[k, :3], Ff[k, 3:] = R.T @ F[k, :3], R.T @ F[k, 3:]
        E = measured(model, Q, QD, QDD, Ff, frame=frame)
        res = WrenchEstimator(model, EstimatorConfig(frame=frame)).process(stamps(t), Q, QD, E)
        m = t > 1.5
        np.testing.assert_allclose(res.wrench[m], Ff[m], atol=0.15)


def test_damped_near_singularity_reported(youbot):
    est = WrenchEstimator(youbot)
    q = CANDLE                                     # stretched straight up: the z force is unobservable
    r = est.update(10 ** 9, q, np.zeros(5), youbot.robot.gravity_torque(q) + np.array([0, 1.0, 0, 0, 0]))
    assert r.damped and r.sigma_min < est.config.sigma_guard
    assert np.all(np.isfinite(r.wrench)) and np.abs(r.wrench).max() < 1e3
    r2 = WrenchEstimator(youbot).update(10 ** 9, BENT, np.zeros(5), youbot.robot.gravity_torque(BENT))
    assert not r2.damped and r2.sigma_min > 0.05


def test_contact_hysteresis():
    det = ContactDetector([1.0, 2.0], [3.0, 6.0], release_ratio=0.5)
    seq = []
    for tau in ([0.9, 0.0], [1.0, 0.0], [0.6, 0.0], [0.4, 0.0], [0.0, 6.5], [0.0, 4.0], [0.0, 2.5], [0.0, 0.9]):
        seq.append(det.step(*det.scores(np.array(tau), np.zeros(2))))
    assert seq == [CONTACT_NONE, CONTACT, CONTACT, CONTACT_NONE, COLLISION, COLLISION, CONTACT, CONTACT_NONE]
    # the band is subtracted before comparing
    s_c, _ = det.scores(np.array([1.5, 0.0]), np.array([0.6, 0.0]))
    assert s_c == pytest.approx(0.9)
    # the vectorised states() equals step() sample by sample, restarts included
    rng = np.random.default_rng(0)
    tau = np.cumsum(rng.normal(0.0, 0.4, (5000, 2)), axis=0) % 8.0 - 4.0
    band = rng.uniform(0.0, 0.5, tau.shape) * (rng.uniform(size=tau.shape) < 0.3)
    starts = rng.uniform(size=len(tau)) < 0.01
    sc, sk = det.scores(tau, band)
    want = []
    for k in range(len(tau)):
        if starts[k] or k == 0:
            det.reset()
        want.append(det.step(sc[k], sk[k]))
    np.testing.assert_array_equal(det.states(sc, sk, starts), want)
    assert set(want) == {CONTACT_NONE, CONTACT, COLLISION}


def test_contact_thresholds_from_model_residual(youbot):
    model = nominal_model(youbot.robot, youbot.friction)
    model.residual_std_nm = np.array([0.1, 0.2, 0.1, 0.05, 0.02])
    est = WrenchEstimator(model, EstimatorConfig(contact_threshold_sigma=4.0, collision_threshold_sigma=10.0))
    np.testing.assert_allclose(est.contact.contact_nm, 4.0 * model.residual_std_nm)
    np.testing.assert_allclose(est.contact.collision_nm, 10.0 * model.residual_std_nm)
    assert est.threshold_source == 'model residual std'


def test_contact_detected_within_50ms_while_moving_and_no_false_contact(youbot):
    t, Q, QD, QDD = trajectory(BENT, 6.0, np.array([0.25, 0.2, 0.2, 0.2, 0.3]), [0.3, 0.4, 0.5, 0.35, 0.45])
    F = np.zeros((len(t), 6))
    F[t >= 4.0, :3] = [0.0, 0.0, -5.0]
    model = nominal_model(youbot.robot, youbot.friction)
    model.residual_std_nm = np.full(5, 0.05)
    E = measured(model, Q, QD, QDD, F, noise_nm=0.05, seed=3)
    res = WrenchEstimator(model).process(stamps(t), Q, QD, E)
    assert not res.contact_state[t < 4.0].any()
    first = t[np.flatnonzero(res.contact_state)[0]]
    assert 4.0 <= first <= 4.05


def test_time_jump_back_resets_without_spike(youbot):
    n = 200
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    Z = np.zeros_like(Q)
    E = measured(youbot, Q, Z, Z, np.zeros((n, 6)))
    S = stamps(t)
    est = WrenchEstimator(youbot)
    for k in range(n):
        est.update(S[k], Q[k], Z[k], E[k])
    r = est.update(S[0], Q[0], Z[0], E[0])          # the bag looped: 1 s back
    assert r.reset_reason and 'back' in r.reset_reason
    assert np.abs(r.wrench).max() < 1e-6
    # a small step back is an out-of-order sample, rejected without changing the state
    with pytest.raises(EstimatorInputError) as exc:
        est.update(S[0] - 10 ** 6, Q[0], Z[0], E[0])
    assert exc.value.kind == 'out_of_order'
    # batch path: the same reset
    S2 = np.r_[S, S]
    res = WrenchEstimator(youbot).process(S2, np.r_[Q, Q], np.r_[Z, Z], np.r_[E, E])
    assert len(res.resets) == 1 and res.resets[0][0] == n
    assert np.abs(res.wrench).max() < 1e-6


def test_gap_resets(youbot):
    est = WrenchEstimator(youbot, EstimatorConfig(max_gap_s=0.5))
    g = youbot.robot.gravity_torque(BENT)
    est.update(10 ** 9, BENT, np.zeros(5), g)
    r = est.update(10 ** 9 + 2 * 10 ** 9, BENT, np.zeros(5), g)
    assert r.reset_reason and 'gap' in r.reset_reason


def test_bad_input_rejected_and_state_unchanged(youbot):
    t, Q, QD, QDD = trajectory(BENT, 1.0, np.full(5, 0.2), [0.3, 0.4, 0.5, 0.35, 0.45])
    E = measured(youbot, Q, QD, QDD, np.zeros((len(t), 6)))
    S = stamps(t)
    a, b = WrenchEstimator(youbot), WrenchEstimator(youbot)
    for k in range(100):
        a.update(S[k], Q[k], QD[k], E[k])
        b.update(S[k], Q[k], QD[k], E[k])
    bad = [((S[100], Q[100], QD[100], np.r_[E[100, :4], np.nan]), 'nonfinite'),
           ((S[100], Q[100], QD[100], E[100, :4]), 'shape'),
           ((S[100], np.r_[Q[100, :4], np.inf], QD[100], E[100]), 'nonfinite'),
           ((S[99], Q[100], QD[100], E[100]), 'duplicate_stamp'),
           ((S[98], Q[100], QD[100], E[100]), 'out_of_order')]
    for args, kind in bad:
        with pytest.raises(EstimatorInputError) as exc:
            a.update(*args)
        assert exc.value.kind == kind
    for k in range(100, len(t)):
        ra = a.update(S[k], Q[k], QD[k], E[k])
        rb = b.update(S[k], Q[k], QD[k], E[k])
        np.testing.assert_array_equal(ra.wrench, rb.wrench)
    # batch: NaN rows, duplicates and out-of-order stamps are listed and skipped
    E2 = E.copy()
    E2[10, 0] = np.nan
    S2 = S.copy()
    S2[20] = S2[19]
    res = WrenchEstimator(youbot).process(S2, Q, QD, E2)
    assert [k for k, _ in res.rejected] == [10, 20]
    assert len(res.stamp_ns) == len(t) - 2


def test_tare_zeroes_the_current_bias(youbot):
    """A model error (wrong mass) at a static pose is removed by tare; a force applied afterwards
    is then measured from zero."""
    n = 600
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    Z = np.zeros_like(Q)
    F = np.zeros((n, 6))
    F[t >= 2.0, :3] = [3.0, 0.0, -5.0]
    E = measured(youbot, Q, Z, Z, F) + np.array([0.0, 0.3, -0.2, 0.05, 0.0])   # model bias
    est = WrenchEstimator(youbot)
    for k in range(n):
        if k == 300:
            bias = est.tare()
            np.testing.assert_allclose(bias, [0.0, -0.3, 0.2, -0.05, 0.0], atol=1e-6)
        r = est.update(stamps(t)[k], Q[k], Z[k], E[k])
        if k == 350:
            np.testing.assert_allclose(r.wrench, 0.0, atol=1e-6)
    np.testing.assert_allclose(r.wrench[:3], [3.0, 0.0, -5.0], atol=0.02)
    with pytest.raises(RuntimeError):
        WrenchEstimator(youbot).tare()


def test_covariance_from_parameters_and_residual(youbot):
    model = nominal_model(youbot.robot, youbot.friction)
    model.residual_std_nm = np.full(5, 0.05)
    e0 = WrenchEstimator(model)
    q, g = BENT, model.robot.gravity_torque(BENT)
    qd = np.full(5, 0.3)
    tau = g + model.friction.torque(qd)
    c0 = e0.update(10 ** 9, q, qd, tau).wrench_covariance
    assert np.all(np.linalg.eigvalsh(c0) > -1e-12)
    assert np.all(np.diag(c0)[:3] > 0) and np.all(c0[3:, :] == 0)
    # add a parameter covariance (base parameters): the wrench gets less certain
    model.base = compute_base_parameters(model.regressor)
    model.base_covariance = np.eye(model.base.n_base) * 1e-4
    c1 = WrenchEstimator(model).update(10 ** 9, q, qd, tau).wrench_covariance
    assert np.all(np.diag(c1)[:3] > np.diag(c0)[:3])
    # residual-only covariance equals A diag(s^2) A^T
    model.base = model.base_covariance = None
    e2 = WrenchEstimator(model)
    r = e2.update(10 ** 9, q, qd, tau)
    J = model.robot.tool_jacobian(q)[:3]
    A = np.linalg.pinv(J.T)
    np.testing.assert_allclose(r.wrench_covariance[:3, :3], A @ np.diag(np.full(5, 0.05 ** 2)) @ A.T, rtol=1e-6)


def test_causal_differentiator_tracks_derivative_and_is_causal():
    rate, f = 1000.0, 1.0
    t = np.arange(2000) / rate
    x = np.sin(2 * np.pi * f * t)
    d = CausalDifferentiator(1, 30.0)
    out = np.array([d.step(np.array([v]), 1 / rate if k else 0.0)[1][0] for k, v in enumerate(x)])
    lag = 2 / (2 * np.pi * 30.0)                      # group delay of the critically damped filter
    expect = 2 * np.pi * f * np.cos(2 * np.pi * f * (t - lag))
    assert np.abs(out[500:] - expect[500:]).max() < 0.05 * 2 * np.pi * f
    # causal: changing the future does not change the past outputs
    d2 = CausalDifferentiator(1, 30.0)
    x2 = x.copy()
    x2[1000:] += 5.0
    out2 = np.array([d2.step(np.array([v]), 1 / rate if k else 0.0)[1][0] for k, v in enumerate(x2)])
    np.testing.assert_array_equal(out2[:1000], out[:1000])


def test_effort_scale(youbot):
    m = nominal_model(youbot.robot, youbot.friction)
    np.testing.assert_array_equal(effort_scale(m, 'torque'), np.ones(5))
    with pytest.raises(ValueError, match='drive gains'):
        effort_scale(m, 'current')
    m.drive_gains_nm_per_a = np.array([5.226, 5.226, 3.35, 3.621, 3.479])
    np.testing.assert_array_equal(effort_scale(m, 'current'), m.drive_gains_nm_per_a)
    np.testing.assert_array_equal(effort_scale(m, 'current', [1, 2, 3, 4, 5]), [1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match='5 finite'):
        effort_scale(m, 'current', [1, 2])


def test_config_validation(youbot):
    with pytest.raises(ValueError, match='method'):
        WrenchEstimator(youbot, EstimatorConfig(method='kalman'))
    with pytest.raises(ValueError, match='collision'):
        WrenchEstimator(youbot, EstimatorConfig(contact_threshold_sigma=5, collision_threshold_sigma=2))


def test_stiction_deadzone_maps_only_torque_outside_the_band(youbot):
    """At rest with friction held inside the breakaway band, the dead zone publishes no force; a
    real push beyond the band comes through, reduced by at most the band."""
    n = 300
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    QD = np.zeros_like(Q)
    g = np.array([youbot.robot.gravity_torque(q) for q in Q])
    held = np.array([0.0, 0.6, -0.5, 0.0, 0.0])          # friction inside +-breakaway, no external force
    kw = dict(sigma_guard=0.1, damping=0.1)
    on = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='deadzone', **kw)).process(stamps(t), Q, QD, g + held)
    off = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='none', **kw)).process(stamps(t), Q, QD, g + held)
    assert np.abs(on.wrench[100:, :3]).max() < 1e-6
    assert np.linalg.norm(off.wrench[-1, :3]) > 1.0        # without it the held friction reads as a force
    F = np.array([0.0, 0.0, -20.0, 0, 0, 0])                 # well beyond the band at the loaded joints
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
    cfg = EstimatorConfig(contact_threshold_sigma=5.0, default_residual_std_nm=0.03)
    res = WrenchEstimator(youbot, cfg).process(stamps(t), Q, QD, E)
    assert not res.contact_state[t < 2.2].any()
    first = t[np.argmax(res.contact_state > 0)]
    assert res.contact_state[push].any() and 2.2 < first < 2.25


def test_band_weighting_lets_moving_joints_carry_the_force(youbot):
    """A push while joint 3 passes through zero velocity with an unknown friction inside its band:
    weighting joints by 1 / (residual variance + band^2 / 3) keeps the estimate on the other
    joints; the unweighted least squares spreads joint 3's friction error into the force."""
    n = 200
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1)) + np.outer(t, [0.3, 0.3, 0.0, 0.3, 0.3])
    QD = np.tile([0.3, 0.3, 0.0, 0.3, 0.3], (n, 1))         # joint 3 at rest, the others moving
    QDD = np.zeros_like(Q)
    F = np.tile([8.0, 0.0, -8.0, 0, 0, 0], (n, 1))
    E = measured(youbot, Q, QD, QDD, F)
    E[:, 2] += 0.5                                            # joint 3's friction: unknown inside its band
    kw = dict(default_residual_std_nm=0.05)
    w = WrenchEstimator(youbot, EstimatorConfig(band_weighting=True, **kw)).process(stamps(t), Q, QD, E)
    u = WrenchEstimator(youbot, EstimatorConfig(band_weighting=False, **kw)).process(stamps(t), Q, QD, E)
    err_w = np.linalg.norm(w.wrench[-50:, :3] - F[-50:, :3], axis=1).mean()
    err_u = np.linalg.norm(u.wrench[-50:, :3] - F[-50:, :3], axis=1).mean()
    assert err_w < 0.5 * err_u and err_w < 0.5, (err_w, err_u)
    # the wrench covariance follows the weighting: the mapped matrix is still the one applied to tau
    assert np.all(np.isfinite(w.wrench_std)) and np.all(w.wrench_std[-1, :3] > 0)


def test_sliding_friction_has_the_exact_sign_above_the_stiction_velocity(youbot):
    """A joint creeping at a small measured velocity slides: the estimator charges its full Coulomb
    friction (the smooth sign of the identification regressor would charge only tanh(qd / v) of it)."""
    fr = youbot.friction
    est = WrenchEstimator(youbot, EstimatorConfig(stiction_velocity_rad_s=0.005))
    qd = np.array([0.012, -0.012, 0.02, -0.5, 0.0])
    point, band = est.friction(qd)
    expect = np.where(qd > 0, fr.coulomb_pos_nm, -fr.coulomb_neg_nm) * (qd != 0) + fr.viscous_nm_s_rad * qd
    np.testing.assert_allclose(point[:4], expect[:4], atol=1e-12)
    assert np.all(band[:4] == 0.0) and band[4] == fr.breakaway_nm[4]
    assert abs(fr.torque(qd)[0]) < 0.85 * fr.coulomb_pos_nm[0]          # the smooth sign at 0.012 rad/s
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
    last = np.where(a > 0, fr.coulomb_pos_nm, 0.0)                       # moving +: friction +fc at the stop
    tr = (t[len(tm):] - t[len(tm)]) / 2.0
    E[len(tm):] += last - drift_fraction * fr.breakaway_nm * tr[:, None] * (a > 0)
    return t, Q, QD, E, F


def test_stiction_hold_keeps_a_force_after_the_joints_stop(youbot):
    """A force that was measured while the joints slid stays measured after they stop, while their
    static friction drifts inside its band; the dead zone (smallest consistent torque) loses the
    part of it inside the band; 'hold' gives the same numbers per sample and in batch."""
    t, Q, QD, E, F = stop_under_load(youbot)
    kw = dict(stiction_velocity_rad_s=0.005, default_residual_std_nm=0.05)
    hold = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='hold', **kw)).process(stamps(t), Q, QD, E)
    dz = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='deadzone', **kw)).process(stamps(t), Q, QD, E)
    moving = (t > 0.3) & (t < 0.9)
    rest = t > 1.3
    err = lambda res, m: np.linalg.norm(res.wrench[m, :3] - F[:3], axis=1).max()   # noqa: E731
    assert err(hold, moving) < 0.6                          # sliding: friction known (observer lag only)
    assert err(hold, rest) < 0.3, err(hold, rest)           # stopped: the force is kept
    assert err(dz, rest) > 1.0, err(dz, rest)               # the dead zone drops what the band could hide
    est = WrenchEstimator(youbot, EstimatorConfig(stiction_mode='hold', **kw))
    W = np.array([est.update(s, q, qd, e).wrench for s, q, qd, e in zip(stamps(t), Q, QD, E)])
    np.testing.assert_allclose(W, hold.wrench, atol=1e-9)


def test_tare_at_rest_takes_no_static_friction_as_bias(youbot):
    """At rest the drives hold friction inside the band; a tare there with a stiction mode removes
    only what the band cannot explain, so when the joints start moving (friction now known) no force
    appears. A plain tare ('none') takes the held friction as bias and shows it as a force."""
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
        est = WrenchEstimator(youbot, EstimatorConfig(stiction_mode=mode, stiction_velocity_rad_s=0.005))
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
    irregular intervals and segment restarts: the vectorised hold_band gives the recursion's numbers."""
    rng = np.random.default_rng(seed)
    N, n = 4000, 4
    band = rng.uniform(0.0, 1.0, (N, n)) * (rng.uniform(size=(N, n)) < 0.05) * 10.0 ** rng.uniform(-8, 2, n)
    band[::97] = 10 * BAND_ZERO_NM                    # just above the zero level: released within a few samples
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


@pytest.mark.parametrize('cfg', [dict(), DEMO_ESTIMATOR, dict(method='direct'),
                                 dict(frame='tool', band_weighting=True)],
                         ids=['default', 'demo', 'direct', 'tool-weighted'])
def test_process_equals_update_loop(youbot, cfg):
    """process() gives update()'s numbers sample by sample: joints resting in their stiction band and
    breaking away, pushes through the contact and collision levels, poses near the stretched-up
    singularity (damped mapping), a parameter covariance, a gap, a time jump back, and rejected samples."""
    rate = 200.0
    t = np.arange(int(6.0 * rate)) / rate
    w = 2 * np.pi * np.array([0.4, 0.55, 0.3, 0.7, 0.5])
    QD = np.array([0.4, 0.3, 0.3, 0.5, 0.6]) * np.maximum(np.sin(w * t[:, None]), 0.0) ** 2   # rests half the time
    Q = BENT + np.cumsum(QD, axis=0) / rate
    to_candle = np.sin(np.linspace(0.0, np.pi, 100))[:, None]
    Q[900:1000] += to_candle * (CANDLE - Q[900:1000])                                      # through the singularity
    QDD = np.gradient(QD, 1.0 / rate, axis=0)
    F = np.zeros((len(t), 6))
    F[:, 2] = -12.0 * np.clip(np.sin(2 * np.pi * 0.35 * t), 0.0, None)
    model = nominal_model(youbot.robot, youbot.friction)
    model.base = compute_base_parameters(model.regressor)
    model.base_covariance = np.eye(model.base.n_base) * 1e-5
    E = measured(model, Q, QD, QDD, F, noise_nm=0.01, seed=1)
    E += np.where(QD == 0.0, 0.5, 0.0) * youbot.friction.breakaway_nm * np.sign(np.sin(3.0 * t))[:, None]
    S = stamps(t)
    S[400:] += 10 ** 9                       # a 1 s gap
    S[800:] -= 3 * 10 ** 9                   # the bag jumped back
    S[300] = S[299]                          # duplicate
    S[500] = S[499] - 10 ** 6                # out of order
    E[600, 1] = np.nan
    config = EstimatorConfig(**cfg)
    res = WrenchEstimator(model, config).process(S, Q, QD, E)
    est = WrenchEstimator(model, config)
    one = []
    for k in res.index:
        one.append(est.update(S[k], Q[k], QD[k], E[k]))
    assert [k for k, _ in res.rejected] == [300, 500, 600] and [k for k, _ in res.resets] == [400, 800]
    np.testing.assert_allclose(res.tau_ext, [r.tau_ext for r in one], rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(res.wrench, [r.wrench for r in one], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res.wrench_std, [np.sqrt(np.diag(r.wrench_covariance)) for r in one],
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.sigma_min, [r.sigma_min for r in one], rtol=1e-10)
    np.testing.assert_array_equal(res.contact_state, [r.contact_state for r in one])
    # the data exercise what they are meant to
    states = set(res.contact_state.tolist())
    assert {CONTACT_NONE, CONTACT, COLLISION} <= states
    assert any(r.damped for r in one) and not all(r.damped for r in one)
    assert any((r.tau_ext_band > 0).any() for r in one)
