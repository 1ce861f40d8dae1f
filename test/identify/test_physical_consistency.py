# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Physical consistency (pseudo-inertia LMI) on synthetic truth; identified URDF export."""
import numpy as np
import pytest

from robot_id_ros.identify import IdentificationOptions, identify, validate
from robot_id_ros.model.robot import RobotModel, youbot_model
from robot_id_ros.model.pseudo_inertia import is_physically_consistent, pseudo_inertia
from robot_id_ros.model.urdf_export import InconsistentInertiaError, export_urdf

from test_identification import FRICTION, SIGMA, fourier_trajectory, perturbed, synthetic_series


def test_pseudo_inertia_of_a_real_body_is_psd():
    robot = youbot_model()
    theta = robot.standard_parameters()
    ok, mins = is_physically_consistent(theta, robot.n)
    assert ok and np.all(mins > 0)
    bad = theta.copy()
    bad[0] = -1.0  # negative mass
    assert not is_physically_consistent(bad, robot.n)[0]
    assert pseudo_inertia(theta[:10])[3, 3] == pytest.approx(theta[0])


def test_consistent_fit_close_to_least_squares_and_urdf_export(tmp_path):
    robot = youbot_model()
    rng = np.random.default_rng(2)
    truth = perturbed(robot, rng)
    t, Q, QD, QDD = fourier_trajectory(robot, rng, periods=4)
    train, _ = synthetic_series(truth, FRICTION, t, Q, QD, QDD, SIGMA, rng)
    t2, Q2, QD2, QDD2 = fourier_trajectory(robot, np.random.default_rng(9), periods=2)
    test, _ = synthetic_series(truth, FRICTION, t2, Q2, QD2, QDD2, SIGMA, rng)
    # both with fixed options: the constraint is what differs
    ls = identify(robot, [train], options=IdentificationOptions(auto_options=False))
    pc = identify(robot, [train], options=IdentificationOptions(physical_consistency=True,
                                                                auto_options=False))
    c = pc.consistency
    assert c.status == 'optimal'
    assert is_physically_consistent(pc.model.parameters[:50], robot.n)[0]
    assert np.all(c.min_eigenvalues > 0)
    # the truth is consistent, so the constrained fit costs almost nothing
    assert c.relative_error <= c.relative_error_ls * 1.01
    assert np.all(np.array(validate(pc.model, test).metrics['rmse_nm']) / SIGMA <= 1.06)
    assert c.time_s > 0 and c.time_ratio > 0
    assert 'physical_consistency' in pc.timings_s
    # the URDF carries the identified inertias exactly
    path = export_urdf(pc.model.robot, pc.model.parameters, tmp_path / 'identified.urdf')
    back = RobotModel(path, robot.joint_names, robot.tool_frame)
    assert np.allclose(back.standard_parameters(), pc.model.parameters[:50], atol=1e-8)
    # an inconsistent least-squares set is refused
    if not is_physically_consistent(ls.model.parameters[:50], robot.n)[0]:
        with pytest.raises(InconsistentInertiaError, match='not physically valid'):
            export_urdf(ls.model.robot, ls.model.parameters, tmp_path / 'bad.urdf')
