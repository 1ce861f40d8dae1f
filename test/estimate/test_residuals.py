# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Residuals: the momentum observer's bandwidth and the causal differentiator."""
import numpy as np
import pytest
from estimate_cases import BENT, RATE, measured, stamps

from robot_id_ros.estimate import (CausalDifferentiator, DirectResidual, EstimatorConfig,
                                   WrenchEstimator)


def test_observer_step_response_is_first_order(youbot):
    """A step of tau_ext reaches 1 - exp(-K t): the configured bandwidth is the real one."""
    n = 200
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    Z = np.zeros_like(Q)
    F = np.zeros((n, 6))
    F[t >= 0.2, 2] = -10.0
    E = measured(youbot, Q, Z, Z, F)
    res = WrenchEstimator(youbot,
                          EstimatorConfig(observer_gain_hz=5.0)).process(stamps(t), Q, Z, E)
    K = 2 * np.pi * 5.0
    for k in np.searchsorted(t, [0.2 + 1 / K, 0.2 + 2 / K]):  # one and two time constants later
        # the trapezoid rule lets the step in half a sample early
        assert res.wrench[k,
                          2] == pytest.approx(-10.0 * (1 - np.exp(-K * (t[k] - 0.2 + 0.5 / RATE))),
                                              rel=0.02)


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
    out2 = np.array(
        [d2.step(np.array([v]), 1 / rate if k else 0.0)[1][0] for k, v in enumerate(x2)])
    np.testing.assert_array_equal(out2[:1000], out[:1000])


def test_batch_equals_step_by_step():
    """The direct residual's batch() over a segment gives step()'s numbers from a reset residual
    (the momentum observer's one-sample form is update's compiled step: test_update_equals_process
    checks it against the batch)."""
    residual = DirectResidual(3, 8.0)
    rng = np.random.default_rng(4)
    N = 400
    dt = rng.uniform(0.004, 0.006, N)
    dt[0] = 0.0
    A = rng.normal(size=(N, 3, 3))
    M = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)
    QD = np.cumsum(rng.normal(0.0, 0.05, (N, 3)), axis=0)
    U = rng.normal(0.0, 1.0, (N, 3))
    residual.reset()
    want = np.array([residual.step(dt[k], M[k], QD[k], U[k]).copy() for k in range(N)])
    np.testing.assert_allclose(residual.batch(dt, M, QD, U), want, rtol=1e-9, atol=1e-12)
