# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""update (one sample, the node's path: the compiled step ``sample_step``) and process (arrays)
give the same numbers with the youBot settings (config/wrench_estimator.yaml): stiction hold, band
weighting, the combined contact test, a tare taken at rest, a parameter covariance, contacts and
collisions, the singular pose; and with the defaults and other settings through a gap, a jump
back in time and a duplicate stamp (restarts and a rejected sample)."""
import copy

import numpy as np
import pytest
from estimate_cases import BENT, CANDLE, measured, stamps

from robot_id_ros.demo.pipeline import DEMO_ESTIMATOR
from robot_id_ros.estimate import (COLLISION, CONTACT, CONTACT_NONE, EstimatorConfig,
                                   EstimatorInputError)
from robot_id_ros.estimate import WrenchEstimator
from robot_id_ros.io.model_file import ResidualBySpeed, nominal_model
from robot_id_ros.model.base_parameters import compute_base_parameters

RATE = 200.0
TARE_S = 1.0                      # the tare, while every joint rests
RTOL = 1e-9


def assert_same_outputs(res, one):
    """The one-sample results ``one`` equal the batch result ``res`` (RTOL)."""
    def same(batch, single, scale):
        np.testing.assert_allclose(batch, single, rtol=RTOL, atol=RTOL * scale)

    same(res.tau_ext, [r.tau_ext for r in one], np.abs(res.tau_ext).max())
    same(res.wrench, [r.wrench for r in one], np.abs(res.wrench).max())
    same(res.wrench_std, [np.sqrt(np.diag(r.wrench_covariance)) for r in one],
         res.wrench_std.max())
    same(res.sigma_min, [r.sigma_min for r in one], 1.0)
    np.testing.assert_array_equal(res.contact_state, [r.contact_state for r in one])


@pytest.fixture(scope='module')
def case(youbot):
    """An identified-like model (residual std, base covariance) and 7 s of samples."""
    t = np.arange(int(7.0 * RATE)) / RATE
    w = 2 * np.pi * np.array([0.4, 0.55, 0.3, 0.7, 0.5])
    QD = np.array([0.4, 0.3, 0.3, 0.5, 0.6]) * np.maximum(np.sin(w * t[:, None]), 0.0) ** 2
    QD[t < 1.2] = 0.0                                   # at rest through the tare
    QD[t >= 6.0] = 0.1 + 0.05 * np.sin(w * t[t >= 6.0, None])   # every joint sliding
    Q = BENT + np.cumsum(QD, axis=0) / RATE
    to_candle = np.sin(np.linspace(0.0, np.pi, 120))[:, None]
    Q[1000:1120] += to_candle * (CANDLE - Q[1000:1120])  # through the stretched-up singularity
    QDD = np.gradient(QD, 1.0 / RATE, axis=0)
    F = np.zeros((len(t), 6))
    F[:, 2] = -14.0 * np.clip(np.sin(2 * np.pi * 0.3 * (t - 1.5)), 0.0, None) * (t > 1.5)
    F[:, 0] = 4.0 * (t > 4.0)
    model = nominal_model(youbot.robot, youbot.friction)
    model.base = compute_base_parameters(model.regressor)
    model.base_covariance = np.diag(np.linspace(1e-6, 1e-4, model.base.n_base))
    model.residual_std_nm = np.array([0.12, 0.1, 0.08, 0.05, 0.03])
    # the residual by speed: above the residual std in the slow bands the joints slide through
    edges = np.array([0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2])
    rms = model.residual_std_nm[:, None] * np.array([6.0, 4.0, 3.0, 2.0, 1.5, 1.0])
    rms[4, 3] = np.nan                                  # a band with too few samples
    model.residual_by_speed = ResidualBySpeed(edges, rms, np.full(rms.shape, 100))
    E = measured(model, Q, QD, QDD, F, noise_nm=0.01, seed=3)
    E += np.array([1.2, -1.1, 0.9, 0.05, 0.0])     # a model bias, beyond the band on J1-J3
    # static friction held inside the band while a joint rests
    E += np.where(QD == 0.0, 0.4, 0.0) * youbot.friction.breakaway_nm * np.sign(
        np.sin(2.0 * t))[:, None]
    return model, stamps(t), Q, QD, E


def test_update_equals_process_with_the_youbot_settings(case):
    model, S, Q, QD, E = case
    config = EstimatorConfig(**DEMO_ESTIMATOR)
    assert (config.stiction_mode, config.band_weighting, config.contact_test) == (
        'hold', True, 'combined')
    batch_est = WrenchEstimator(model, config)
    res = batch_est.process(S, Q, QD, E, tare_at_s=TARE_S)
    est = WrenchEstimator(model, config)
    k_tare = int(np.searchsorted(S, S[0] + int(TARE_S * 1e9)))
    one = []
    for k in range(len(S)):
        one.append(est.update(S[k], Q[k], QD[k], E[k]))
        if k == k_tare:
            est.tare()                                  # as process(tare_at_s) takes it
    np.testing.assert_allclose(est.bias, batch_est.bias, rtol=RTOL, atol=1e-12)
    assert np.abs(est.bias).max() > 0.1                 # the tare removed the model bias
    assert_same_outputs(res, one)
    # the data exercise what they are meant to
    assert {CONTACT_NONE, CONTACT, COLLISION} <= set(res.contact_state.tolist())
    bands = np.array([r.tau_ext_band for r in one])
    assert (bands > 0).all(axis=1).any() and (bands == 0).all(axis=1).any()   # rest and free
    assert any(r.damped for r in one) and not all(r.damped for r in one)
    cov = one[-1].wrench_covariance
    assert cov[0, 1] != 0.0 and np.all(np.diag(cov)[:3] > 0.0)     # the parameter covariance


SETTINGS = {
    'defaults': {},
    'youbot': 'demo',        # config/wrench_estimator.yaml
    'model-law-stribeck-deadzone-joint-test': dict(
        friction_sign='model', stiction_mode='deadzone', contact_test='joint',
        stiction_velocity_rad_s=0.01),
    'direct-hold-weighted': dict(method='direct', stiction_mode='hold', band_weighting=True),
    'model-law-presliding-hold': dict(friction_sign='model', stiction_mode='hold'),
}


@pytest.mark.parametrize('name', SETTINGS)
def test_update_equals_process_through_restarts(case, name):
    """Through a gap over max_gap_s, a stamp jumping back by more than time_jump_s (both restart
    the estimator) and a duplicate stamp (rejected), with a tare: every output of update equals
    process's, the contact state exactly."""
    model, S, Q, QD, E = case
    if 'stribeck' in name:                      # the law's Stribeck term (not in the youBot's)
        model = copy.deepcopy(model)
        model.friction.stribeck_nm = np.array([0.3, 0.2, 0.2, 0.1, 0.05])
        model.friction.stribeck_velocity_rad_s = np.full(5, 0.05)
    if 'presliding' in name:                    # the Dahl state, started afresh at each restart
        model = copy.deepcopy(model)
        model.friction.presliding_rad = np.array([0.003, 0.002, 0.0, 0.004, 0.001])
    S = S.copy()
    S[500:] += 2 * 10 ** 9                      # a 2 s gap
    S[900:] -= 20 * 10 ** 9                     # back by 18 s
    S[300] = S[299]                             # a duplicate: rejected
    config = EstimatorConfig(**(DEMO_ESTIMATOR if SETTINGS[name] == 'demo' else SETTINGS[name]))
    batch_est = WrenchEstimator(model, config)
    res = batch_est.process(S, Q, QD, E, tare_at_s=TARE_S)
    est = WrenchEstimator(model, config)
    k_tare = int(np.searchsorted(S[:500], S[0] + int(TARE_S * 1e9)))
    one, kept, resets = [], [], []
    for k in range(len(S)):
        try:
            r = est.update(S[k], Q[k], QD[k], E[k])
        except EstimatorInputError as e:
            assert k == 300 and e.kind == 'duplicate_stamp'
            continue
        one.append(r)
        kept.append(k)
        if r.reset_reason is not None:
            resets.append(k)
        if k == k_tare:
            est.tare()
    assert kept == res.index.tolist() and [k for k, _ in res.rejected] == [300]
    assert resets == [500, 900] == [k for k, _ in res.resets]
    np.testing.assert_allclose(est.bias, batch_est.bias, rtol=RTOL, atol=1e-12)
    assert_same_outputs(res, one)
    # the data exercise what they are meant to: contacts, rest and motion, the damped map
    assert CONTACT_NONE in res.contact_state and (res.contact_state > CONTACT_NONE).any()
    bands = np.array([r.tau_ext_band for r in one])
    assert (bands > 0).any() and (bands == 0).all(axis=1).any()
    assert any(r.damped for r in one)
    if 'presliding' in name:                    # the state changed the friction
        smooth = copy.deepcopy(model)
        smooth.friction.presliding_rad = np.zeros(5)
        other = WrenchEstimator(smooth, config).process(S, Q, QD, E, tare_at_s=TARE_S)
        assert np.abs(other.tau_ext - res.tau_ext).max() > 0.05
    for r in one:                                # the covariance stays positive semidefinite
        assert np.linalg.eigvalsh(r.wrench_covariance).min() >= -1e-9 * max(
            1.0, np.abs(r.wrench_covariance).max())


def test_a_six_axis_arm_maps_all_six_rows_alike_in_both_paths():
    """A UR5 with the full wrench (the step's Gram map of six rows, the damped map near the
    stretched-out singularity): update and process give the same numbers."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from robots import ur5
    from robot_id_ros.model.robot import RobotModel

    model = nominal_model(RobotModel(*ur5()))
    model.residual_std_nm = np.full(6, 0.05)
    t = np.arange(int(3.0 * RATE)) / RATE
    away = np.array([0.3, -1.2, 1.5, -1.9, -1.57, 0.2])
    Q = away + 0.2 * np.sin(2 * np.pi * 0.4 * t[:, None] + np.arange(6))
    # a smooth excursion to the stretched-out pose (singular) and back, 1.5-2.5 s
    to_singular = np.clip((t - 1.5) / 1.0, 0.0, 1.0)
    Q = Q * (1.0 - 0.5 * (1.0 - np.cos(2 * np.pi * to_singular)))[:, None]
    QD = np.gradient(Q, 1.0 / RATE, axis=0)
    QDD = np.gradient(QD, 1.0 / RATE, axis=0)
    F = np.zeros((len(t), 6))
    F[100:250, :3] = [5.0, -3.0, 8.0]
    E = measured(model, Q, QD, QDD, F, noise_nm=0.01)
    est = WrenchEstimator(model, EstimatorConfig())
    assert est.mapper.mapping.label.startswith('full')
    res = est.process(stamps(t), Q, QD, E)
    one = [WrenchEstimator(model, EstimatorConfig())]
    one = [one[0].update(s, q, qd, e) for s, q, qd, e in zip(stamps(t), Q, QD, E)]
    assert_same_outputs(res, one)
    assert any(r.damped for r in one) and not all(r.damped for r in one)
