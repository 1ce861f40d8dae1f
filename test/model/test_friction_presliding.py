# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The presliding (Dahl) Coulomb law of model/friction.py: its state, its torque, its file form
and the regressor's Coulomb column."""
import numpy as np
import pytest

from robot_id_ros.model.friction import FrictionModel, presliding_state, smooth_sign
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.model.robot import youbot_model

Q0 = 0.002


def test_state_after_a_monotone_travel_is_exact_whatever_the_sampling():
    # from no history, a travel d in one direction gives z = 1 - exp(-d / q0), however the
    # travel was cut into samples (the step is the law's exact solution)
    d = np.linspace(0.0, 0.006, 7)
    coarse = presliding_state(d[:, None], [Q0])[:, 0]
    fine_q = np.linspace(0.0, 0.006, 601)
    fine = presliding_state(fine_q[:, None], [Q0])[::100, 0]
    np.testing.assert_allclose(coarse, 1.0 - np.exp(-d / Q0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(fine, coarse, rtol=0, atol=1e-12)


def test_a_reversal_turns_the_state_over_within_a_few_q0_of_travel():
    up = np.linspace(0.0, 0.05, 200)            # 25 q0 up: fully slipping, z = +1
    down = 0.05 - np.linspace(0.0, 0.05, 200)[1:]
    z = presliding_state(np.r_[up, down][:, None], [Q0])[:, 0]
    assert z[199] == pytest.approx(1.0, abs=1e-9)
    travel_back = 0.05 - np.r_[up, down][200:]
    # z = -1 + 2 exp(-travel / q0): zero after q0 ln 2 of travel back, -1 after many q0
    np.testing.assert_allclose(z[200:], -1.0 + 2.0 * np.exp(-travel_back / Q0), atol=1e-9)
    assert z[-1] == pytest.approx(-1.0, abs=1e-9)


def test_the_state_is_exact_over_any_steps_and_joints_without_it_stay_zero():
    rng = np.random.default_rng(3)
    Q = np.cumsum(rng.normal(scale=0.002, size=(300, 3)), axis=0)
    q0 = [Q0, 0.0, 0.005]
    Z = presliding_state(Q, q0)
    assert not Z[:, 1].any() and np.all(np.abs(Z) <= 1.0)
    # a monotone stretch taken in one step or in many ends at the same state (exact per step)
    one = presliding_state(np.array([[0.0] * 3, [3 * Q0] * 3]), q0)[-1]
    many = presliding_state(np.linspace(0.0, 3 * Q0, 40)[:, None] * np.ones(3), q0)[-1]
    np.testing.assert_allclose(one, many, atol=1e-12)
    np.testing.assert_allclose(one[0], 1.0 - np.exp(-3.0), atol=1e-12)


def test_torque_takes_the_state_in_the_coulomb_term_only_and_the_file_keeps_q0():
    f = FrictionModel([0.5, 0.4], [0.5, 0.4], [0.1, 0.2], [0.05, 0.0], stribeck_nm=[0.2, 0.1],
                      presliding_rad=[Q0, 0.0])
    assert f.has_presliding
    qd = np.array([0.3, -0.2])
    z = np.array([-0.25, 0.9])           # joint 2 has no presliding: its z is not used
    s = smooth_sign(qd, f.sign_velocity_rad_s)
    stribeck = f.stribeck_nm * np.exp(-(qd / f.stribeck_velocity_rad_s) ** 2) * s
    expected = np.array([0.5 * -0.25, 0.4 * s[1]]) + f.viscous_nm_s_rad * qd + f.offset_nm \
        + stribeck
    np.testing.assert_allclose(f.torque(qd, z), expected, atol=1e-12)
    # without a state (a single sample, a pose) the smooth sign stands in: the law in full slip
    np.testing.assert_allclose(f.torque(qd), FrictionModel(
        [0.5, 0.4], [0.5, 0.4], [0.1, 0.2], [0.05, 0.0], stribeck_nm=[0.2, 0.1]).torque(qd))
    names = ['a', 'b']
    back = FrictionModel.from_dict(f.to_dict(names), names)
    np.testing.assert_array_equal(back.presliding_rad, [Q0, 0.0])
    # a file written before presliding has no key: the velocity law
    old = f.to_dict(names)
    for j in old['joints'].values():
        del j['presliding_rad']
    assert not FrictionModel.from_dict(old, names).has_presliding


def test_negative_or_non_finite_q0_is_refused_with_its_name():
    for bad in (-0.001, float('nan')):
        with pytest.raises(ValueError, match='presliding_rad'):
            FrictionModel([0.5], [0.5], [0.1], [0.0], presliding_rad=bad)


def test_regressor_coulomb_column_is_the_state_and_a_fit_recovers_the_friction():
    robot = youbot_model()
    reg = Regressor(robot, RegressorOptions(friction=True, offset=True, presliding_rad=Q0))
    rng = np.random.default_rng(5)
    t = np.arange(0, 6.0, 0.005)[:, None]
    w = rng.uniform(0.5, 1.5, robot.n)
    Q = 1.0 + 0.3 * np.sin(w * t)
    QD, QDD = 0.3 * w * np.cos(w * t), -0.3 * w ** 2 * np.sin(w * t)
    Z = reg.presliding_state(Q)
    W = reg.stack(Q, QD, QDD, Z).reshape(len(Q), robot.n, reg.p)
    kinds = reg.joint_kinds
    fc = reg.n_inertial + kinds.index('fc') + len(kinds) * np.arange(robot.n)
    np.testing.assert_allclose(W[:, np.arange(robot.n), fc], Z, atol=0)
    # torque of a friction with that law is fitted exactly by the friction columns
    truth = FrictionModel([0.6, 0.3, 0.3, 0.1, 0.05], [0.6, 0.3, 0.3, 0.1, 0.05],
                          [0.5, 0.4, 0.3, 0.05, 0.03], [0.02] * 5, presliding_rad=Q0)
    tau = truth.torque_along(Q, QD)
    cols = np.concatenate([reg.n_inertial + kinds.index(k) + len(kinds) * np.arange(robot.n)
                           for k in ('fv', 'fc', 'fo')])
    Wf = W.reshape(-1, reg.p)[:, cols]
    x = np.linalg.lstsq(Wf, tau.reshape(-1), rcond=None)[0]
    np.testing.assert_allclose(x[robot.n:2 * robot.n], truth.coulomb_pos_nm, atol=1e-9)
    # without the state the column is the smooth sign (poses, single samples)
    W0 = reg.stack(Q[:5], QD[:5], QDD[:5]).reshape(5, robot.n, reg.p)
    np.testing.assert_allclose(W0[:, np.arange(robot.n), fc], smooth_sign(QD[:5]), atol=0)
