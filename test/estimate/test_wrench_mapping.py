# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Wrench mapping: frames, a six-joint arm (full wrench), damping near a singularity and the
band weighting of the least squares."""
import numpy as np
import pytest
from estimate_cases import BENT, CANDLE, RATE, measured, stamps, trajectory
from robots import ur5

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator, WrenchMapper
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.robot import RobotModel


def test_frame_base_vs_tool(youbot):
    t, Q, QD, QDD = trajectory(BENT, 2.0, np.full(5, 0.15), [0.3, 0.4, 0.5, 0.35, 0.45])
    F = np.zeros((len(t), 6))
    F[:, :3] = [4.0, -6.0, -8.0]
    E = measured(youbot, Q, QD, QDD, F)
    base = WrenchEstimator(youbot, EstimatorConfig(frame='base')).process(stamps(t), Q, QD, E)
    tool = WrenchEstimator(youbot, EstimatorConfig(frame='tool')).process(stamps(t), Q, QD, E)
    assert tool.frame_id == youbot.robot.tool_frame
    k = len(t) - 1
    R = youbot.robot.tool_placement(Q[k]).rotation
    np.testing.assert_allclose(tool.wrench[k, :3], R.T @ base.wrench[k, :3], atol=0.05)
    np.testing.assert_allclose(tool.wrench[k, :3], R.T @ F[k, :3], atol=0.3)


def test_ur5_full_wrench_six_joints():
    robot = RobotModel(ur5()[0], tool_frame='tool0')
    assert robot.n == 6
    model = nominal_model(robot)
    q0 = np.array([0.3, -1.2, 1.5, -1.0, -1.4, 0.4])
    t, Q, QD, QDD = trajectory(q0, 3.0, np.full(6, 0.2), [0.3, 0.4, 0.5, 0.35, 0.45, 0.55])
    F = np.zeros((len(t), 6))
    F[t >= 1.0] = [5.0, -3.0, 8.0, 0.5, -0.3, 0.2]
    for frame in ('base', 'tool'):
        Ff = F.copy()
        if frame == 'tool':   # the same physical wrench in tool axes
            for k in range(len(t)):
                R = robot.tool_placement(Q[k]).rotation
                Ff[k, :3], Ff[k, 3:] = R.T @ F[k, :3], R.T @ F[k, 3:]
        E = measured(model, Q, QD, QDD, Ff, frame=frame)
        res = WrenchEstimator(model, EstimatorConfig(frame=frame)).process(stamps(t), Q, QD, E)
        m = t > 1.5
        np.testing.assert_allclose(res.wrench[m], Ff[m], atol=0.15)


def test_damped_near_singularity_reported(youbot):
    est = WrenchEstimator(youbot)
    q = CANDLE  # stretched straight up: the z force is unobservable
    r = est.update(10**9, q, np.zeros(5),
                   youbot.robot.gravity_torque(q) + np.array([0, 1.0, 0, 0, 0]))
    assert r.damped and r.sigma_min < est.config.sigma_guard
    assert np.all(np.isfinite(r.wrench)) and np.abs(r.wrench).max() < 1e3
    r2 = WrenchEstimator(youbot).update(10**9, BENT, np.zeros(5),
                                        youbot.robot.gravity_torque(BENT))
    assert not r2.damped and r2.sigma_min > 0.05


def test_band_weighting_lets_moving_joints_carry_the_force(youbot):
    """A push while joint 3 passes through zero velocity with an unknown friction inside its band:
    weighting joints by 1 / (residual variance + band^2 / 3) keeps the estimate on the other
    joints; the unweighted least squares spreads joint 3's friction error into the force."""
    n = 200
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1)) + np.outer(t, [0.3, 0.3, 0.0, 0.3, 0.3])
    QD = np.tile([0.3, 0.3, 0.0, 0.3, 0.3], (n, 1))         # joint 3 at rest, the others moving
    QDD = np.zeros_like(Q)
    F = np.tile([8.0, 0.0, -8.0, 0, 0, 0], (n, 1))
    E = measured(youbot, Q, QD, QDD, F)
    E[:, 2] += 0.5  # joint 3's friction: unknown inside its band
    kw = dict(default_residual_std_nm=0.05)
    w = WrenchEstimator(youbot, EstimatorConfig(band_weighting=True,
                                                **kw)).process(stamps(t), Q, QD, E)
    u = WrenchEstimator(youbot, EstimatorConfig(band_weighting=False,
                                                **kw)).process(stamps(t), Q, QD, E)
    err_w = np.linalg.norm(w.wrench[-50:, :3] - F[-50:, :3], axis=1).mean()
    err_u = np.linalg.norm(u.wrench[-50:, :3] - F[-50:, :3], axis=1).mean()
    assert err_w < 0.5 * err_u and err_w < 0.5, (err_w, err_u)
    # the wrench covariance follows the weighting: the mapped matrix is still the one applied to
    # tau
    assert np.all(np.isfinite(w.wrench_std)) and np.all(w.wrench_std[-1, :3] > 0)


def test_matrices_of_one_jacobian_give_matrix_one_and_the_batch(youbot):
    """matrices() is public for one Jacobian (update's damped map) and for many (process): the
    same A, sigma_min and damping as matrix_one (update's covariance, the closed form away from
    the singularity) and the batch, also near the singularity."""
    mapper = WrenchMapper(5, 'force')
    qs = [BENT, CANDLE, 0.5 * (BENT + CANDLE)]
    Js = np.array([youbot.robot.tool_jacobian(q, 'base') for q in qs])
    tau = np.array([0.3, -0.5, 0.2, 0.1, 0.05])
    A_all, smin_all, damped_all = mapper.matrices(Js)
    for J, A_b, s_b, d_b in zip(Js, A_all, smin_all, damped_all):
        A, smin, damped = mapper.matrices(J)
        assert A.shape == (6, 5) and np.all(A[3:] == 0.0)
        np.testing.assert_allclose(mapper.matrix_one(J) @ tau, A @ tau, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(A, A_b, rtol=1e-9, atol=1e-12)
        assert smin == pytest.approx(s_b, rel=1e-9)
        assert bool(damped) == bool(d_b)
    assert not damped_all[0] and damped_all[1]            # stretched up (CANDLE): damped


def test_matrix_one_with_joint_weights_equals_the_weighted_matrix(youbot):
    """matrix_one with joint weights (update's covariance, the closed form away from the
    singularity) maps like the weighted matrix: A = matrices(J w)[0] w, also through the SVD
    near the singularity; the weighting changes the map where the joints' weights differ."""
    mapper = WrenchMapper(5, 'force')
    tau = np.array([0.3, -0.5, 0.2, 0.1, 0.05])
    weights = ([1.0, 0.4, 0.9, 0.7, 1.0], np.array([0.2, 1.0, 1.0, 0.5, 0.8]), None)
    for q in (BENT, CANDLE, 0.5 * (BENT + CANDLE)):
        J = youbot.robot.tool_jacobian(q, 'base')
        for wt in weights:
            w = np.ones(5) if wt is None else np.asarray(wt)
            A, _, damped = mapper.matrices(J * w)
            wrench = mapper.matrix_one(J, wt) @ tau
            np.testing.assert_allclose(wrench, A @ (tau * w), rtol=1e-9, atol=1e-12)
            if wt is not None and not damped:
                assert np.abs(wrench - mapper.matrix_one(J) @ tau).max() > 1e-3
