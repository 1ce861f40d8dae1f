# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest

from robot_id_ros.model.base_parameters import compute_base_parameters
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import RobotModel, youbot_model
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robots import panda, ur5


def _arms():
    yield youbot_model()
    for arm in (panda, ur5):
        urdf, joints = arm()
        yield RobotModel(urdf, joints)


@pytest.mark.parametrize('index', [0, 1, 2])
def test_regressor_times_parameters_equals_rnea(index):
    robot = list(_arms())[index]
    reg = Regressor(robot)
    theta = reg.reference_parameters()
    rng = np.random.default_rng(index)
    for _ in range(20):
        q, qd, qdd = rng.normal(size=(3, robot.n))
        np.testing.assert_allclose(
            reg.compute(q, qd, qdd) @ theta, robot.inverse_dynamics(q, qd, qdd),
            atol=1e-9 * (1 + np.abs(robot.inverse_dynamics(q, qd, qdd)).max()))


def test_friction_and_rotor_columns_match_friction_model():
    robot = youbot_model()
    opts = RegressorOptions(friction=True, coulomb_asymmetric=True, offset=True,
                            rotor_inertia=True)
    reg = Regressor(robot, opts)
    fr = FrictionModel([0.8, 0.6, 0.5, 0.2, 0.15], [0.7, 0.55, 0.45, 0.22, 0.13],
                       [1.0, 0.8, 0.6, 0.1, 0.1], [0.01, -0.02, 0.0, 0.03, 0.0])
    Ia = np.array([0.05, 0.05, 0.02, 0.01, 0.01])
    theta = reg.reference_parameters()
    per_joint = {
        'Ia': Ia,
        'fv': fr.viscous_nm_s_rad,
        'fcp': fr.coulomb_pos_nm,
        'fcn': fr.coulomb_neg_nm,
        'fo': fr.offset_nm
    }
    for j in range(5):
        for k, kind in enumerate(reg.joint_kinds):
            theta[reg.n_inertial + j * len(reg.joint_kinds) + k] = per_joint[kind][j]
    robot_ia = robot.copy()
    robot_ia.set_rotor_inertia(Ia)
    rng = np.random.default_rng(7)
    for _ in range(10):
        q, qd, qdd = rng.normal(size=(3, 5))
        expected = robot_ia.inverse_dynamics(q, qd, qdd) + fr.torque(qd)
        np.testing.assert_allclose(reg.compute(q, qd, qdd) @ theta, expected, atol=1e-9)
    assert reg.names[reg.n_inertial:reg.n_inertial + 5] == ('Ia1', 'fv1', 'fcp1', 'fcn1', 'fo1')


def test_stack_is_sample_major_and_static_is_gravity():
    robot = youbot_model()
    reg = Regressor(robot)
    rng = np.random.default_rng(1)
    Q = rng.normal(size=(4, 5))
    W = reg.static(Q)
    theta = reg.reference_parameters()
    for k in range(4):
        np.testing.assert_allclose(W[5 * k:5 * k + 5] @ theta, robot.gravity_torque(Q[k]),
                                   atol=1e-10)
    nz = np.flatnonzero(np.abs(W).sum(axis=0) > 0)
    assert set(nz) <= set(reg.static_columns())


@pytest.mark.parametrize('arm, n_inertial, n_friction', [(panda, 43, 57), (ur5, 36, 48)])
def test_base_parameter_counts_match_literature(arm, n_inertial, n_friction):
    urdf, joints = arm()
    robot = RobotModel(urdf, joints)
    assert compute_base_parameters(Regressor(robot)).n_base == n_inertial
    assert compute_base_parameters(Regressor(robot,
                                             RegressorOptions(friction=True))).n_base == n_friction


def test_youbot_base_parameters():
    robot = youbot_model()
    base = compute_base_parameters(Regressor(robot))
    assert base.n_base == 29
    assert compute_base_parameters(Regressor(robot, RegressorOptions(friction=True))).n_base == 39
    static = compute_base_parameters(Regressor(robot), static=True)
    # joints 2..4 are parallel and horizontal, joint 1 vertical: gravity sees only the first
    # moments perpendicular to the axes (x, z of links 2..4) and x, y of link 5
    assert static.n_base == 8
    assert sorted(n.rstrip('R') for n in static.names) == sorted(
        ['mx2', 'mz2', 'mx3', 'mz3', 'mx4', 'mz4', 'mx5', 'my5'])
    # link 1 rotates about the vertical: only its ZZ matters
    assert {'XX1', 'XY1', 'XZ1', 'YY1', 'YZ1', 'mx1', 'my1', 'mz1',
            'm1'} <= set(base.unidentifiable())
    exprs = base.expressions()
    assert len(exprs) == 29 and exprs[0].startswith('ZZ1')
    # the mass of links 3..5 is seen by joint 2 through the 0.155 m link length
    assert any(e.startswith('mz2 + 0.155*m3 + 0.155*m4 + 0.155*m5') for e in exprs)


@pytest.mark.parametrize('index', [0, 1])
def test_base_regressor_reproduces_torques(index):
    robot = list(_arms())[index]
    reg = Regressor(robot, RegressorOptions(friction=True))
    base = compute_base_parameters(reg)
    rng = np.random.default_rng(11)
    theta = reg.reference_parameters() + rng.normal(0, 0.01,
                                                    reg.p)  # any parameters, not only the URDF's
    Q, QD, QDD = rng.normal(size=(3, 30, robot.n))
    W = reg.stack(Q, QD, QDD)
    np.testing.assert_allclose(base.base_regressor(W) @ base.to_base(theta), W @ theta, atol=1e-9)
    # to_standard gives a torque-equivalent standard vector
    theta2 = base.to_standard(base.to_base(theta), reg.reference_parameters())
    np.testing.assert_allclose(W @ theta2, W @ theta, atol=1e-9)
    # the base regressor has full column rank
    assert np.linalg.matrix_rank(base.base_regressor(W)) == base.n_base
