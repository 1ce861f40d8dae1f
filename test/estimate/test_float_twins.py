# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``update``'s plain-float forms give the numbers of the vectorised forms ``process`` uses.

One sample in ``update`` runs on lists of floats (a numpy call on 5 values costs more than the
arithmetic); each such twin is checked here against its vectorised original on random values
that reach every branch: zero and tiny velocities, both signs, Stribeck terms, joints without a
stiction band, bands released through BAND_ZERO_NM, lag increments above and below the noise.
"""
import numpy as np
import pytest

from robot_id_ros.estimate import BAND_ZERO_NM, StictionFriction, hold_band, hold_band_step
from robot_id_ros.estimate.onesample import deadzone_one, stiction_hold_one
from robot_id_ros.estimate.stiction import deadzone, stiction_hold
from robot_id_ros.estimate.uncertainty import (LagVariance, TorqueUncertainty, white_noise_gain,
                                               white_noise_gain_one)
from robot_id_ros.model.friction import FrictionModel, law_one

N, n = 2000, 5


def friction(rng, stribeck=True):
    """A friction model with asymmetric Coulomb terms, offsets and (optionally) Stribeck terms."""
    return FrictionModel(rng.uniform(0.1, 2.0, n), rng.uniform(0.1, 2.0, n),
                         rng.uniform(0.0, 1.0, n), rng.uniform(-0.3, 0.3, n),
                         rng.uniform(0.0, 0.5, n) if stribeck else None,
                         rng.uniform(0.01, 0.2, n) if stribeck else None,
                         sign_velocity_rad_s=rng.uniform(0.001, 0.05))


def velocities(rng):
    """(N, n) rad/s: exact zeros, values around the stiction and sign velocities, and fast ones."""
    qd = rng.normal(size=(N, n)) * 10.0 ** rng.uniform(-5, 0.5, (N, n))
    qd[rng.uniform(size=(N, n)) < 0.1] = 0.0
    return qd


@pytest.mark.parametrize('seed', range(3))
@pytest.mark.parametrize('stribeck', [True, False])
def test_law_one_equals_the_vectorised_law(seed, stribeck):
    rng = np.random.default_rng(seed)
    fr = friction(rng, stribeck)
    QD = velocities(rng)
    terms = fr.joint_terms()
    smooth = np.array([law_one(terms, qd.tolist(), fr.sign_velocity_rad_s) for qd in QD])
    exact = np.array([law_one(terms, qd.tolist()) for qd in QD])
    np.testing.assert_allclose(smooth, fr.torque(QD), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(exact, fr.sliding_torque(QD), rtol=1e-13, atol=1e-15)
    assert not np.allclose(smooth, exact)       # the two laws differ: both branches were taken


@pytest.mark.parametrize('law', ['model', 'exact'])
@pytest.mark.parametrize('v_s', [0.005, 'per joint', 0.0])
def test_stiction_friction_one_equals_call(law, v_s):
    rng = np.random.default_rng(7)
    fr = friction(rng)
    if v_s == 'per joint':
        v_s = np.array([0.0, 0.002, 0.005, 0.01, 0.05])     # one joint without a band
    sf = StictionFriction(fr, v_s, law)
    QD = velocities(rng)
    point, band = sf(QD)
    one = [sf.one(qd.tolist()) for qd in QD]
    np.testing.assert_allclose(np.array([p for p, _ in one]), point, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(np.array([b for _, b in one]), band, rtol=1e-13, atol=1e-15)
    if np.any(v_s):
        assert (band > 0).any() and (band == 0).any()   # inside, between and outside the band


def test_hold_band_step_equals_hold_band():
    rng = np.random.default_rng(3)
    band = rng.uniform(0.0, 1.0, (N, n)) * (rng.uniform(size=(N, n)) < 0.05)
    band[::97] = 10 * BAND_ZERO_NM          # released through the zero level within a few steps
    dt = rng.uniform(0.001, 0.02, N)
    rate = 2 * np.pi * 10.0
    want = hold_band(band, dt, rate)
    held, got = None, []
    for b, d in zip(band.tolist(), dt.tolist()):
        held = hold_band_step(b, held, d if held is not None else 0.0, rate)
        got.append(held)
    got = np.array(got)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0.0)
    assert ((got > 0) == (want > 0)).all() and (got > 0).mean() > 0.1


def test_deadzone_and_hold_one_equal_the_vectorised_ones():
    rng = np.random.default_rng(5)
    T = rng.normal(size=(N, n)) * 2.0
    T[rng.uniform(size=(N, n)) < 0.05] = 0.0
    band = rng.uniform(0.0, 1.5, (N, n)) * (rng.uniform(size=(N, n)) < 0.7)
    held = rng.normal(size=(N, n)) * 2.0
    np.testing.assert_array_equal(
        np.array([deadzone_one(t, b) for t, b in zip(T.tolist(), band.tolist())]),
        deadzone(T, band))
    np.testing.assert_array_equal(
        np.array([stiction_hold_one(t, b, h)
                  for t, b, h in zip(T.tolist(), band.tolist(), held.tolist())]),
        stiction_hold(T, band, held))


def test_lag_variance_step_equals_batch():
    """Residual steps (some far above the noise and the band, most within) through a random
    wrench map: the float ``step`` gives ``batch``'s variance, and the lag was seen."""
    rng = np.random.default_rng(11)
    res_var = rng.uniform(0.01, 0.1, n) ** 2
    lag = LagVariance(10.0, res_var)
    dt = rng.uniform(0.004, 0.006, N)
    jumps = (rng.uniform(size=(N, 1)) < 0.01) * rng.normal(size=(N, n)) * 3.0
    R = np.cumsum(jumps, axis=0) + rng.normal(size=(N, n)) * 0.02
    band = rng.uniform(0.0, 0.5, (N, n)) * (rng.uniform(size=(N, n)) < 0.3)
    A = rng.normal(size=(N, 6, n))
    starts = np.zeros(N, bool)
    starts[0] = starts[N // 2] = True
    want = lag.batch(dt, R, band, starts, A)
    got, prev = [], None
    for k in range(N):
        got.append(lag.step(0.0 if starts[k] else dt[k], prev, R[k].tolist(), band[k].tolist(),
                            A[k] if k % 2 else A[k].tolist()))   # update passes the array
        prev = R[k].tolist()
    got = np.array(got)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-300)
    assert (got > 1.0).any()


@pytest.mark.parametrize('method', ['momentum', 'direct'])
def test_white_noise_gain_one_equals_the_vectorised_gain(method):
    dt = np.r_[-0.01, 0.0, np.geomspace(1e-5, 10.0, 200)]
    one = [white_noise_gain_one(method, 10.0, d) for d in dt.tolist()]
    np.testing.assert_allclose(one, white_noise_gain(method, 10.0, dt), rtol=1e-14, atol=0.0)
    assert one[0] == one[1] == 1.0 and min(one) < 1e-3


def test_wrench_covariance_without_parameter_covariance_equals_torque_covariance(youbot):
    """The float-built diagonal C (no parameter covariance) gives A C A^T of torque_covariance."""
    rng = np.random.default_rng(2)
    unc = TorqueUncertainty(youbot, rng.uniform(0.02, 0.2, n))
    assert unc.kind == 'none'
    A = rng.normal(size=(6, n))
    q, qd, band = rng.normal(size=n), rng.normal(size=n), rng.uniform(0.0, 1.0, n)
    C = unc.torque_covariance(q[None], qd[None], np.zeros((1, n)), band[None], 0.3)[0]
    np.testing.assert_allclose(unc.wrench_covariance(A, q, qd, None, 0.005, band.tolist(), 0.3),
                               A @ C @ A.T, rtol=1e-13, atol=1e-15)
