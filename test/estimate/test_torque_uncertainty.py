# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Uncertainty: the wrench covariance from the parameter covariance and the residual, and the
covariance period."""
import numpy as np
from estimate_cases import BENT

from robot_id_ros.estimate import CovarianceSchedule, TorqueUncertainty, WrenchEstimator
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.base_parameters import compute_base_parameters


def test_covariance_from_parameters_and_residual(youbot):
    model = nominal_model(youbot.robot, youbot.friction)
    model.residual_std_nm = np.full(5, 0.05)
    e0 = WrenchEstimator(model)
    q, g = BENT, model.robot.gravity_torque(BENT)
    qd = np.full(5, 0.3)
    tau = g + model.friction.torque(qd)
    c0 = e0.update(10 ** 9, q, qd, tau).wrench_covariance
    assert np.all(np.linalg.eigvalsh(c0) > -1e-12)
    assert np.all(np.diag(c0)[:3] > 0) and np.all(c0[3:, :] == 0)
    # add a parameter covariance (base parameters): the wrench gets less certain
    model.base = compute_base_parameters(model.regressor)
    model.base_covariance = np.eye(model.base.n_base) * 1e-4
    c1 = WrenchEstimator(model).update(10 ** 9, q, qd, tau).wrench_covariance
    assert np.all(np.diag(c1)[:3] > np.diag(c0)[:3])
    # residual-only covariance equals A diag(s^2) A^T
    model.base = model.base_covariance = None
    e2 = WrenchEstimator(model)
    r = e2.update(10 ** 9, q, qd, tau)
    J = model.robot.tool_jacobian(q)[:3]
    A = np.linalg.pinv(J.T)
    np.testing.assert_allclose(r.wrench_covariance[:3, :3], A @ np.diag(np.full(5, 0.05**2)) @ A.T,
                               rtol=1e-6)


def test_covariance_schedule_due_equals_samples():
    """The covariance period rule: due() sample by sample (update) picks the samples that
    samples() picks over arrays (process), restarting at each segment; a stamp difference of
    exactly the period is due."""
    rng = np.random.default_rng(3)
    N = 2000
    S = 10 ** 18 + np.cumsum(rng.integers(1_000_000, 9_000_000, N))
    starts = rng.uniform(size=N) < 0.01
    starts[0] = True
    seg = np.flatnonzero(starts)
    seg_end = np.r_[seg[1:], N]
    for period_s in (0.05, 0.0123456789, 1e-9):
        sched = CovarianceSchedule(period_s)
        want = []
        for k in range(N):
            if starts[k]:
                sched.reset()
            if sched.due(int(S[k])):
                want.append(k)
        np.testing.assert_array_equal(CovarianceSchedule(period_s).samples(S, seg, seg_end), want)
    sched = CovarianceSchedule(0.05)
    assert sched.due(0) and not sched.due(49_999_999) and sched.due(50_000_000)


def test_wrench_covariance_without_parameter_covariance_equals_torque_covariance(youbot):
    """The float-built diagonal C (no parameter covariance) gives A C A^T of torque_covariance."""
    rng = np.random.default_rng(2)
    unc = TorqueUncertainty(youbot, rng.uniform(0.02, 0.2, 5))
    assert unc.kind == 'none'
    A = rng.normal(size=(6, 5))
    q, qd, band = rng.normal(size=5), rng.normal(size=5), rng.uniform(0.0, 1.0, 5)
    C = unc.torque_covariance(q[None], qd[None], np.zeros((1, 5)), band[None], 0.3)[0]
    np.testing.assert_allclose(unc.wrench_covariance(A, q, qd, None, 0.005, band.tolist(), 0.3),
                               A @ C @ A.T, rtol=1e-13, atol=1e-15)
