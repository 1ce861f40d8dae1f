# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The held torque's variance from the hold's history (issue 16, ``holdvariance``).

A pushed hold sits at its band's edge (variance of the breakaway-Coulomb gap), a change seen at
another joint releases it, a joint that alone senses a wrench axis keeps the uniform band, and the
one-sample and batch forms agree.
"""
import numpy as np
import pytest
from estimate_cases import BENT, measured, stamps

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.estimate.holdvariance import HoldVariance, sole_sensors
from robot_id_ros.model.friction import FrictionModel

N_J = 3
BAND = [0.8, 0.6, 0.4]


def friction():
    """Three joints: breakaway 0.8/0.6/0.4 Nm, Coulomb 0.6/0.5/0.35 Nm (gaps 0.2/0.1/0.05 Nm)."""
    return FrictionModel(coulomb_pos_nm=np.array([0.6, 0.5, 0.35]),
                         coulomb_neg_nm=np.array([0.65, 0.5, 0.36]),
                         viscous_nm_s_rad=np.zeros(N_J), offset_nm=np.zeros(N_J),
                         breakaway_nm=np.array(BAND))


def hold():
    return HoldVariance(friction(), np.full(N_J, 0.05), rows=[0, 1, 2], guard=0.02)


def test_gap_is_breakaway_minus_the_smaller_coulomb():
    np.testing.assert_allclose(hold().gap_var, np.array([0.2, 0.1, 0.05]) ** 2 / 3.0)


def test_pushed_hold_is_at_the_edge_until_a_change_is_seen_elsewhere():
    h = hold()
    none = [False] * N_J
    assert h.step(None, [0.0] * 3, BAND, BAND, 0.1, None) == [0.0] * 3 and h.edge == none
    h.step([0.0] * 3, [0.3, 0.0, 0.0], BAND, BAND, 0.1, None)      # joint 0 pushed
    assert h.edge == [True, False, False]
    full = np.array(BAND) ** 2 / 3.0
    v = h.variance(h.edge, BAND, BAND, [False] * 3)
    np.testing.assert_allclose(v, [0.2 ** 2 / 3.0, full[1], full[2]])
    h.step([0.3, 0.0, 0.0], [0.3, 0.0, 0.001], BAND, BAND, 0.1, None)   # noise-sized move
    assert h.edge == [True, False, True]
    h.step([0.3, 0.0, 0.001], [0.3, 0.2, 0.001], BAND, BAND, 0.1, None)  # joint 1 sees a change
    assert h.edge == [False, True, False]
    h.step([0.3, 0.2, 0.001], [0.3, 0.2, 0.001], BAND, BAND, 0.1, None)  # nothing: kept
    assert h.edge == [False, True, False]
    h.step(None, [0.3, 0.2, 0.001], BAND, BAND, 0.1, None)               # restart
    assert h.edge == none


def test_sole_sensor_and_released_band_keep_the_uniform_band():
    h = hold()
    full = np.array(BAND) ** 2 / 3.0
    v = h.variance([True] * 3, BAND, [0.8, 0.3, 0.4], [True, False, False])
    np.testing.assert_allclose(v, [full[0], full[1], h.gap_var[2]])


def test_sole_sensors_are_the_joints_an_axis_needs():
    J = np.zeros((6, 3))
    J[0] = [1.0, 1.0, 0.0]       # fx: joints 0 and 1
    J[2] = [0.0, 0.0, 0.5]       # fz: joint 2 alone
    np.testing.assert_array_equal(sole_sensors(J, [0, 2], 0.02), [False, False, True])
    np.testing.assert_array_equal(sole_sensors(J, [0], 0.02), [False, False, False])


def test_edges_batch_equals_step():
    rng = np.random.default_rng(3)
    N = 400
    H = np.cumsum(rng.normal(0, 0.05, (N, N_J)) * (rng.random((N, N_J)) < 0.2), axis=0)
    band = np.tile(BAND, (N, 1)) * (rng.random((N, 1)) < 0.9)
    raw = band * np.where(rng.random((N, N_J)) < 0.9, 1.0, 0.5)
    restart = rng.random(N) < 0.02
    gain = np.full(N, 0.135)
    h = hold()
    want = []
    for k in range(N):
        h.step(None if k == 0 or restart[k] else H[k - 1].tolist(), H[k].tolist(),
               band[k].tolist(), raw[k].tolist(), gain[k], None)
        want.append(list(h.edge))
    got = hold().edges(H, band, raw, restart, gain)
    assert 0.2 < got.mean() < 0.9               # both states occur
    np.testing.assert_array_equal(got, np.array(want))


@pytest.fixture(scope='module')
def resting(youbot):
    """The youBot at rest at BENT: 1 s without force, then 8 N along x from t = 1 s."""
    youbot.residual_std_nm = np.full(youbot.n, 0.05)
    t = np.arange(0, 2.0, 0.005)
    Q = np.tile(BENT, (len(t), 1))
    QD = np.zeros_like(Q)
    F = np.zeros((len(t), 6))
    F[t >= 1.0, 0] = 8.0
    E = measured(youbot, Q, QD, np.zeros_like(Q), F)
    return t, stamps(t), Q, QD, E


def test_a_push_at_rest_narrows_the_published_sigma(youbot, resting):
    """After the force pushes the holds, their friction is at the edge: sigma shrinks (fx, fz).

    With the uniform band (stiction mode 'deadzone': no hold) it stays as it was.
    """
    t, S, Q, QD, E = resting
    std = {}
    for mode in ('hold', 'deadzone'):
        est = WrenchEstimator(youbot, EstimatorConfig(stiction_mode=mode, friction_sign='exact',
                                                      stiction_velocity_rad_s=0.005))
        std[mode] = np.array([np.sqrt(np.diag(est.update(s, q, qd, e).wrench_covariance)[:3])
                              for s, q, qd, e in zip(S, Q, QD, E)])
        out = est.process(S, Q, QD, E)
        np.testing.assert_allclose(out.wrench_std[:, :3], std[mode], rtol=1e-9, atol=1e-12)
    before, after = (t > 0.5) & (t < 1.0), t > 1.5
    for ax in (0, 2):
        np.testing.assert_allclose(std['deadzone'][after, ax], std['deadzone'][before, ax],
                                   rtol=1e-6)
        assert std['hold'][after, ax].max() < 0.8 * std['hold'][before, ax].min()
