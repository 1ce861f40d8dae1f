# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
import numpy as np

from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.true_model import load_true_model, true_model_of
from robot_id_ros.sim.youbot_arm import SimulatedArm


def test_true_model_reproduces_the_simulators_dynamics(tmp_path):
    arm = SimulatedArm(SimConfig(seed=5))
    m = true_model_of(arm)
    arm.write_true_parameters(tmp_path / 'true.yaml')
    m2 = load_true_model(tmp_path / 'true.yaml')
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = arm.nominal.random_configurations(1, rng, 0.1)[0]
        np.testing.assert_allclose(m.robot.gravity_torque(q), arm.true_gravity_torque(q),
                                   atol=1e-10)
        np.testing.assert_allclose(m2.robot.gravity_torque(q), arm.true_gravity_torque(q),
                                   atol=1e-10)
        # and differs from the URDF's nominal gravity
        assert np.abs(m.robot.gravity_torque(q) - arm.nominal_gravity_torque(q)).max() > 1e-3
    np.testing.assert_allclose(
        np.diag(m.robot.mass_matrix(q)) - np.diag(arm.nominal.mass_matrix(q)),
        np.diag(m.robot.mass_matrix(q)) - np.diag(arm.nominal.mass_matrix(q)))
    # rotor inertia J_m N^2 ~ 2e-6 * 156^2 for joint 1
    assert 0.03 < m.robot.model.armature[0] < 0.07
    # friction in motion equals the simulator's slip friction far from zero speed
    qd = np.array([0.5, -0.4, 0.3, -0.6, 0.7])
    expected = np.where(qd > 0, m.friction.coulomb_pos_nm,
                        -m.friction.coulomb_neg_nm) + m.friction.viscous_nm_s_rad * qd
    np.testing.assert_allclose(m.friction.torque(qd), expected, atol=1e-6)
