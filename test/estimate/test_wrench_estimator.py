# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The estimator end to end: known external forces recovered from torques generated with the
model (see estimate_cases), per sample (update) and in batch (process), with the same numbers."""
import numpy as np
import pytest
from estimate_cases import BENT, CANDLE, RATE, measured, stamps, trajectory

from robot_id_ros.demo.pipeline import DEMO_ESTIMATOR
from robot_id_ros.estimate import (COLLISION, CONTACT, CONTACT_NONE, EstimatorConfig,
                                   WrenchEstimator)
from robot_id_ros.io.model_file import Payload, nominal_model
from robot_id_ros.model.base_parameters import compute_base_parameters


@pytest.mark.parametrize('method', ['momentum', 'direct'])
def test_known_force_recovered_in_motion(youbot, method):
    t, Q, QD, QDD = trajectory(BENT, 8.0, np.array([0.25, 0.2, 0.2, 0.2, 0.3]),
                               [0.3, 0.4, 0.5, 0.35, 0.45])
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
    W = np.array([
        est2.update(s, q, qd, e).wrench
        for s, q, qd, e in zip(stamps(t)[:300], Q[:300], QD[:300], E[:300])
    ])
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


def test_payload_compensation_changeable_at_run_time(youbot):
    n = 300
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    Z = np.zeros_like(Q)
    payload = Payload(0.5, np.array([0.0, 0.0, 0.0]))
    E = measured(youbot, Q, Z, Z, np.zeros((n, 6)), payload=payload)
    model = nominal_model(youbot.robot, youbot.friction)
    est = WrenchEstimator(model)
    out = [
        est.update(s, q, qd, e).wrench
        for s, q, qd, e in zip(stamps(t)[:150], Q[:150], Z[:150], E[:150])
    ]
    # unmodelled payload: its weight appears as an external force, -m g in z (base frame)
    np.testing.assert_allclose(out[-1][:3], [0.0, 0.0, -0.5 * 9.81], atol=0.02)
    est.set_payload(0.5, [0.0, 0.0, 0.0])
    out = [
        est.update(s, q, qd, e).wrench
        for s, q, qd, e in zip(stamps(t)[150:], Q[150:], Z[150:], E[150:])
    ]
    np.testing.assert_allclose(out[-1][:3], 0.0, atol=0.02)
    est.set_payload(None)
    assert model.payload is None
    # a payload with its COM off the tool point, in motion: compensated too
    t, Q, QD, QDD = trajectory(BENT, 2.0, np.full(5, 0.2), [0.3, 0.4, 0.5, 0.35, 0.45])
    frictionless = nominal_model(youbot.robot)
    E = measured(frictionless, Q, QD, QDD, np.zeros((len(t), 6)),
                 payload=Payload(0.4, np.array([0.02, -0.01, 0.05])))
    est = WrenchEstimator(nominal_model(youbot.robot))
    est.set_payload(0.4, [0.02, -0.01, 0.05])
    res = est.process(stamps(t), Q, QD, E)
    assert np.abs(res.wrench[t > 0.3, :3]).max() < 0.1


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


@pytest.mark.parametrize('cfg', [dict(), DEMO_ESTIMATOR, dict(method='direct'),
                                 dict(frame='tool', band_weighting=True)],
                         ids=['default', 'demo', 'direct', 'tool-weighted'])
def test_process_equals_update_loop(youbot, cfg):
    """process() gives update()'s numbers sample by sample: joints resting in their stiction band
    and breaking away, pushes through the contact and collision levels, poses near the stretched-up
    singularity (damped mapping), a parameter covariance, a gap, a time jump back, and rejected
    samples."""
    rate = 200.0
    t = np.arange(int(6.0 * rate)) / rate
    w = 2 * np.pi * np.array([0.4, 0.55, 0.3, 0.7, 0.5])
    QD = np.array([0.4, 0.3, 0.3, 0.5, 0.6]) * np.maximum(np.sin(w * t[:, None]),
                                                          0.0)**2  # rests half the time
    Q = BENT + np.cumsum(QD, axis=0) / rate
    to_candle = np.sin(np.linspace(0.0, np.pi, 100))[:, None]
    Q[900:1000] += to_candle * (CANDLE - Q[900:1000])  # through the singularity
    QDD = np.gradient(QD, 1.0 / rate, axis=0)
    F = np.zeros((len(t), 6))
    F[:, 2] = -30.0 * np.clip(np.sin(2 * np.pi * 0.35 * t), 0.0, None)
    model = nominal_model(youbot.robot, youbot.friction)
    model.base = compute_base_parameters(model.regressor)
    model.base_covariance = np.eye(model.base.n_base) * 1e-5
    E = measured(model, Q, QD, QDD, F, noise_nm=0.01, seed=1)
    E += np.where(QD == 0.0, 0.5, 0.0) * youbot.friction.breakaway_nm * np.sign(np.sin(
        3.0 * t))[:, None]
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
    assert [k for k, _ in res.rejected] == [300, 500, 600] and [k for k, _ in res.resets
                                                                ] == [400, 800]
    np.testing.assert_allclose(res.tau_ext, [r.tau_ext for r in one], rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(res.wrench, [r.wrench for r in one], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res.wrench_std,
                               [np.sqrt(np.diag(r.wrench_covariance)) for r in one], rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(res.sigma_min, [r.sigma_min for r in one], rtol=1e-10)
    np.testing.assert_array_equal(res.contact_state, [r.contact_state for r in one])
    # the data exercise what they are meant to
    states = set(res.contact_state.tolist())
    assert {CONTACT_NONE, CONTACT, COLLISION} <= states
    assert any(r.damped for r in one) and not all(r.damped for r in one)
    assert any((r.tau_ext_band > 0).any() for r in one)
