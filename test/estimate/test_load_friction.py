# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Load-dependent Coulomb friction in the estimator: the gear's load is the measured torque less
the friction before the gear (``friction.gear_load_nm``), a contact's load included.

The measured torque is made by that law with the link's torque as the load (the rigid-body
torque less the contact's, as the simulator's gears carry it): free motion then reads no force
and a push its own, in the one-sample step and in the batch alike."""
import numpy as np
from estimate_cases import BENT, stamps, trajectory, youbot_friction

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.friction import gear_load_nm
from robot_id_ros.model.robot import youbot_model

MU = 0.05


def _case():
    friction = youbot_friction()
    friction.load_coulomb_per_nm = np.full(5, MU)
    model = nominal_model(youbot_model(), friction)
    t, Q, QD, QDD = trajectory(BENT, 3.0, 0.2, [0.3, 0.4, 0.5, 0.6, 0.7])
    F = np.zeros((len(t), 6))
    F[(t > 1.0) & (t < 2.0), 2] = -8.0
    E = np.empty_like(Q)
    for k in range(len(t)):
        tau_ext = model.robot.tool_jacobian(Q[k], 'base').T @ F[k]
        link = model.rigid_body_torque(Q[k], QD[k], QDD[k]) - tau_ext
        E[k] = link + model.friction.torque(QD[k], load_nm=link)
    return model, t, Q, QD, E, F


def test_gear_load_is_the_measured_torque_less_the_whole_friction():
    fr = youbot_friction()
    fr.load_coulomb_per_nm = np.full(5, MU)
    qd = np.array([0.3, -0.2, 0.5, -0.4, 0.1])
    link = np.array([0.2, 4.0, -2.5, 1.0, -0.05])
    measured = link + fr.torque(qd, load_nm=link)
    s = np.tanh(qd / fr.sign_velocity_rad_s)
    # without a load (or measured torque) the friction is the one without the load term
    np.testing.assert_allclose(gear_load_nm(measured, fr.torque(qd), MU, s), link, atol=1e-12)
    np.testing.assert_allclose(fr.torque(qd, measured_nm=measured), measured - link, atol=1e-12)


def test_free_motion_reads_no_force_and_a_push_its_own():
    model, t, Q, QD, E, F = _case()
    est = WrenchEstimator(model, EstimatorConfig())
    S = stamps(t)
    W = np.array([est.update(S[k], Q[k], QD[k], E[k]).wrench for k in range(len(t))])
    batch = WrenchEstimator(model, EstimatorConfig()).process(S, Q, QD, E).wrench
    free = (t > 0.5) & (t < 0.95)
    held = (t > 1.6) & (t < 1.95)
    for w in (W, batch):
        assert np.abs(w[free, :3]).max() < 0.005, np.abs(w[free, :3]).max()
        np.testing.assert_allclose(w[held, 2], -8.0, atol=0.03)
