# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Contact detection: the combined (all-joint) test against the per-joint test.

Measured torques are generated with the model (tau_m = ID + friction - tau_ext) so that the only
residual is the external torque put in (plus noise where stated).
"""
import numpy as np
import pytest
from scipy.stats import chi2
import estimate_cases as cases

from robot_id_ros.estimate import (COLLISION, CONTACT, CONTACT_NONE, CONTACT_STATE_NAMES,
                                   ContactDetector, ContactState, EstimatorConfig, WrenchEstimator)
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import youbot_model

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])
RATE = 200.0
STD = 0.05          # residual std per joint (Nm)


@pytest.fixture(scope='module')
def youbot():
    fr = FrictionModel(coulomb_pos_nm=[0.5, 0.5, 0.4, 0.2,
                                       0.1], coulomb_neg_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
                       viscous_nm_s_rad=[0.5, 0.4, 0.3, 0.1, 0.05], offset_nm=0.0,
                       breakaway_nm=[0.8, 0.8, 0.6, 0.3, 0.15])
    model = nominal_model(youbot_model(), fr)
    model.residual_std_nm = np.full(5, STD)
    return model


def states_of(det, taus):
    """The contact states ``det`` gives over a sequence of tau_ext (no band, no restart)."""
    tau = np.array(taus, dtype=float)
    return list(det.states(*det.scores(tau, np.zeros_like(tau)), np.zeros(len(tau), bool)))


def stamps(t):
    return (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)


def run(model, Q, QD, QDD, tau_ext, noise_nm=0.0, seed=0, **cfg):
    E = np.array([model.torque(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)]) - tau_ext
    E += np.random.default_rng(seed).normal(0.0, noise_nm, E.shape)
    t = np.arange(len(Q)) / RATE
    return t, E, WrenchEstimator(model, EstimatorConfig(**cfg)).process(stamps(t), Q, QD, E)


def moving_with_joint3_stuck(seconds):
    """Joints 1, 2, 4, 5 swing (|qd_1|, |qd_2| > 0.3 rad/s around t = 1.4 s); joint 3 stands still,
    so its friction is unknown within +-0.6 Nm (its breakaway)."""
    t = np.arange(int(seconds * RATE)) / RATE
    amp = np.array([0.3, 0.25, 0.0, 0.2, 0.3])
    w = 2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45])
    Q = BENT + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    return t, Q, QD, QDD


def test_step_on_moving_joints_flagged_while_another_joint_sits_in_its_band(youbot):
    """A contact step of 4 residual std on each of joints 1 and 2 (both moving) and 0.5 Nm on joint
    3 (at rest, inside its 0.6 Nm stiction band): no single joint reaches 4.5 std outside its band,
    so the per-joint test never fires; the combined statistic is sqrt(4^2 + 4^2 + 0.5^2 / (0.05^2 +
    0.6^2)) = 5.72 std, 1.27 x the threshold, which the observer's first-order rise (10 Hz) reaches
    in ln(1 / (1 - 1 / 1.27)) / (2 pi 10 Hz) = 25 ms."""
    t, Q, QD, QDD = moving_with_joint3_stuck(2.5)
    k0 = int(1.4 * RATE)
    assert np.all(np.abs(QD[k0 - 20:k0 + 40][:, [0, 1]]) > 0.3) and not QD[:, 2].any()
    tau = np.zeros_like(Q)
    tau[k0:] = [4 * STD, 4 * STD, 0.5, 0.0, 0.0]
    t, E, res = run(youbot, Q, QD, QDD, tau, noise_nm=0.01, seed=1, contact_threshold_sigma=4.5)
    assert not res.contact_state[:k0].any()
    first = int(np.argmax(res.contact_state > 0))
    assert k0 <= first <= k0 + 7, (first - k0) / RATE  # 25 ms (+ noise): within 35 ms
    assert res.contact_state[first:].all() and res.contact_state.max() == CONTACT
    _, _, joint = run(youbot, Q, QD, QDD, tau, noise_nm=0.01, seed=1, contact_threshold_sigma=4.5,
                      contact_test='joint')
    assert not joint.contact_state.any()


def test_breakaway_transient_at_the_band_edge_is_not_a_contact(youbot):
    """Joint 3 holds friction at the edge of its band (0.58 of 0.6 Nm) while it rests, then breaks
    away: the held friction leaves the residual at the observer's rate while the band is released
    at the same rate, and the combined statistic counts it at most as one std (band^2 as variance):
    no contact. The per-joint test with the band subtracted is quiet too here (exact model)."""
    n_rest = int(1.0 * RATE)
    tm = np.arange(int(2.0 * RATE)) / RATE
    a, w = np.array([0.0, 0.3, 0.3, 0.0, 0.0]), 2 * np.pi * 0.5
    Q = np.vstack([np.tile(BENT, (n_rest, 1)), BENT + a * (1 - np.cos(w * tm[:, None]))])
    QD = np.vstack([np.zeros((n_rest, 5)), a * w * np.sin(w * tm[:, None])])
    QDD = np.vstack([np.zeros((n_rest, 5)), a * w ** 2 * np.cos(w * tm[:, None])])
    tau = np.zeros_like(Q)
    tau[:n_rest] = [0.0, -0.78, 0.58, 0.0, 0.0]  # stuck friction, inside +-breakaway (0.8, 0.6)
    for test in ('combined', 'joint'):
        _, _, res = run(youbot, Q, QD, QDD, tau, contact_threshold_sigma=4.5, contact_test=test)
        assert not res.contact_state.any(), test


def test_noise_only_false_alarm_rate_is_the_chi_square_tail():
    """A Gaussian residual with the model's std on every joint (band as one more std where a joint
    is in its band): the combined statistic squared is chi-square with n degrees of freedom, so the
    fraction of samples at or over k std is chi2.sf(k^2, n), the rate the docstring documents."""
    n, N = 5, 400_000
    rng = np.random.default_rng(7)
    sigma = np.array([0.05, 0.05, 0.034, 0.036, 0.035])
    band = np.zeros((N, n))
    band[: N // 2, 2] = 0.6                              # half the samples: joint 3 in its band
    tau = rng.normal(size=(N, n)) * np.sqrt(sigma ** 2 + band ** 2)
    for k in (3.0, 4.5):
        det = ContactDetector(k * sigma, 3 * k * sigma, test='combined', contact_sigma=k,
                              collision_sigma=3 * k)
        s_c, _ = det.scores(tau, band)
        p = chi2.sf(k * k, n)
        rate = np.mean(s_c >= 1.0)
        assert abs(rate - p) < 5 * np.sqrt(p * (1 - p) / N) + 1e-6, (k, rate, p)


def test_noise_only_residual_in_motion_raises_no_contact(youbot):
    """Torque noise of the model's residual std on every joint for 30 s of motion in which joints
    pass through zero velocity (their bands open and close): the observer low-passes the noise, so
    the statistic stays far below the documented unfiltered rate (chi2.sf(4.5^2, 5) = 1e-3 per
    sample would be ~6 samples here): no contact at all."""
    t = np.arange(int(30.0 * RATE)) / RATE
    amp = np.array([0.3, 0.25, 0.3, 0.3, 0.4])
    w = 2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45])
    Q = BENT + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    _, _, res = run(youbot, Q, QD, QDD, np.zeros_like(Q), noise_nm=STD, seed=3,
                    contact_threshold_sigma=4.5)
    assert not res.contact_state.any()


def test_combined_equals_joint_test_for_one_loaded_joint_outside_its_band():
    det_c = ContactDetector([0.2, 0.3], [0.6, 0.9], test='combined', contact_sigma=4.0,
                            collision_sigma=12.0)
    det_j = ContactDetector([0.2, 0.3], [0.6, 0.9], test='joint')
    for tau in ([0.1, 0.0], [0.0, -0.45], [0.0, 1.2]):
        np.testing.assert_allclose(det_c.scores(np.array(tau), np.zeros(2)),
                                   det_j.scores(np.array(tau), np.zeros(2)))
    # a band counts as one more std: 0.3 Nm on joint 1 with a band of 0.15 Nm (sigma = 0.05)
    s_c, _ = det_c.scores(np.array([0.3, 0.0]), np.array([0.15, 0.0]))
    assert s_c == pytest.approx(0.3 / np.hypot(0.05, 0.15) / 4.0)


def test_combined_hysteresis_and_collision():
    det = ContactDetector([1.0, 1.0], [3.0, 3.0], release_ratio=0.5, test='combined',
                          contact_sigma=1.0, collision_sigma=1.0)
    seq = states_of(det, [[0.6, 0.6], [0.8, 0.8], [0.4, 0.3], [0.3, 0.3], [2.5, 2.5],
                          [1.0, 1.0], [0.5, 0.3]])
    # |tau| = 0.85 (none), 1.13 (contact), 0.5 (hold), 0.42 (release), 3.5 (collision),
    # 1.41 (collision released below 1.5: contact), 0.58 (hold)
    assert seq == [CONTACT_NONE, CONTACT, CONTACT, CONTACT_NONE, COLLISION, CONTACT, CONTACT]


def test_per_joint_thresholds_in_nm_override_the_sigma(youbot):
    """contact_threshold_nm sets each joint's threshold alone; the combined test takes sigma_j =
    threshold_j / k for the band weighting."""
    est = WrenchEstimator(youbot, EstimatorConfig(contact_threshold_nm=(0.5, 0.5, 0.4, 0.4, 0.2),
                                                  contact_threshold_sigma=5.0))
    s_c, _ = est.contact.scores(np.array([0.0, 0.0, 0.0, 0.0, 0.2]), np.zeros(5))
    assert s_c == pytest.approx(1.0)
    s_c, _ = est.contact.scores(np.array([0.0, 0.0, 0.0, 0.0, 0.2]),
                                np.array([0.0, 0.0, 0.0, 0.0, 0.04]))
    assert s_c == pytest.approx(0.2 / np.hypot(0.2, 5.0 * 0.04))


@pytest.mark.parametrize('test', ['combined', 'joint'])
def test_update_and_process_give_the_same_contact_states(youbot, test):
    """Through zero velocities (bands opening and holding), a contact and its release: the batch
    and the per-sample paths agree sample for sample, scores included."""
    t = np.arange(int(4.0 * RATE)) / RATE
    amp = np.array([0.3, 0.25, 0.3, 0.3, 0.4])
    w = 2 * np.pi * np.array([0.6, 0.8, 1.0, 0.7, 0.9])
    Q = BENT + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    tau = np.zeros_like(Q)
    tau[(t >= 1.0) & (t < 2.5)] = [0.3, -0.2, 0.25, 0.1, 0.0]
    t, E, res = run(youbot, Q, QD, QDD, tau, noise_nm=0.02, seed=5, contact_threshold_sigma=4.5,
                    collision_threshold_sigma=7.0, contact_test=test)
    assert (res.contact_state == CONTACT_NONE).any() and (res.contact_state != CONTACT_NONE).any()
    est = WrenchEstimator(
        youbot,
        EstimatorConfig(contact_threshold_sigma=4.5, collision_threshold_sigma=7.0,
                        contact_test=test))
    out = [est.update(s, q, qd, e) for s, q, qd, e in zip(stamps(t), Q, QD, E)]
    np.testing.assert_array_equal([r.contact_state for r in out], res.contact_state)
    score = np.array([r.contact_score for r in out])
    s_c, _ = est.contact.scores(np.array([r.tau_ext for r in out]),
                                np.array([r.tau_ext_band for r in out]))
    np.testing.assert_allclose(score, s_c, rtol=1e-12)


# --- the detector alone and through the estimator (the youBot and poses of estimate_cases) ------
def test_contact_state_is_an_int_enum_with_the_names():
    assert [int(s) for s in ContactState] == [0, 1, 2]
    assert (CONTACT_NONE, CONTACT, COLLISION) == (0, 1, 2)
    assert (CONTACT_NONE, CONTACT, COLLISION) == tuple(ContactState)
    assert CONTACT_STATE_NAMES == ('none', 'contact', 'collision')
    assert CONTACT_STATE_NAMES[ContactState.COLLISION] == 'collision'
    det = ContactDetector([1.0], [2.0])
    assert ContactState(states_of(det, [[3.0]])[0]) is ContactState.COLLISION


def test_contact_hysteresis():
    det = ContactDetector([1.0, 2.0], [3.0, 6.0], release_ratio=0.5)
    seq = states_of(det, [[0.9, 0.0], [1.0, 0.0], [0.6, 0.0], [0.4, 0.0], [0.0, 6.5], [0.0, 4.0],
                          [0.0, 2.5], [0.0, 0.9]])
    assert seq == [
        CONTACT_NONE, CONTACT, CONTACT, CONTACT_NONE, COLLISION, COLLISION, CONTACT, CONTACT_NONE
    ]
    # the band is subtracted before comparing
    s_c, _ = det.scores(np.array([1.5, 0.0]), np.array([0.6, 0.0]))
    assert s_c == pytest.approx(0.9)
    # a restart (a reset or a gap) forgets the contact: the level starts again from none
    tau = np.array([[1.0, 0.0], [0.6, 0.0], [0.6, 0.0]])
    sc, sk = det.scores(tau, np.zeros_like(tau))
    assert list(det.states(sc, sk, np.array([False, False, False]))) == [CONTACT, CONTACT, CONTACT]
    assert list(det.states(sc, sk, np.array([False, True, False]))) == [CONTACT, CONTACT_NONE,
                                                                        CONTACT_NONE]


def test_contact_thresholds_from_model_residual(youbot):
    model = nominal_model(youbot.robot, youbot.friction)
    model.residual_std_nm = np.array([0.1, 0.2, 0.1, 0.05, 0.02])
    est = WrenchEstimator(
        model, EstimatorConfig(contact_threshold_sigma=4.0, collision_threshold_sigma=10.0))
    np.testing.assert_allclose(est.contact.contact_nm, 4.0 * model.residual_std_nm)
    np.testing.assert_allclose(est.contact.collision_nm, 10.0 * model.residual_std_nm)
    assert est.threshold_source == 'model residual std'


def test_contact_detected_within_50ms_while_moving_and_no_false_contact(youbot):
    t, Q, QD, QDD = cases.trajectory(cases.BENT, 6.0, np.array([0.25, 0.2, 0.2, 0.2, 0.3]),
                                     [0.3, 0.4, 0.5, 0.35, 0.45])
    F = np.zeros((len(t), 6))
    F[t >= 4.0, :3] = [0.0, 0.0, -5.0]
    model = nominal_model(youbot.robot, youbot.friction)
    model.residual_std_nm = np.full(5, 0.05)
    E = cases.measured(model, Q, QD, QDD, F, noise_nm=0.05, seed=3)
    res = WrenchEstimator(model).process(stamps(t), Q, QD, E)
    assert not res.contact_state[t < 4.0].any()
    first = t[np.flatnonzero(res.contact_state)[0]]
    assert 4.0 <= first <= 4.05
