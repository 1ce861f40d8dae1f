# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The physically consistent fit's LMI problem, compiled once per structure and solved again
with other data (what the cross-validation does per fold), gives the solution of the new data:
the same as a problem compiled for it alone, and not the previous data's."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import robot_id_ros.identify.consistency as consistency  # noqa: E402
from robot_id_ros.identify import IdentificationOptions, identify  # noqa: E402
from robot_id_ros.model.friction import FrictionModel  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from test_identification import fourier_trajectory, perturbed, synthetic_series  # noqa: E402

SIGMA = np.array([0.05, 0.05, 0.03, 0.02, 0.01])
FRICTION = FrictionModel([0.3] * 5, [0.3] * 5, [0.2] * 5, [0.0] * 5)
OPTIONS = IdentificationOptions(auto_options=False, physical_consistency=True)


@pytest.fixture(scope='module')
def two_runs():
    rng = np.random.default_rng(5)
    robot = youbot_model()
    out = []
    for _ in range(2):   # two arms, two excitations: different least-squares fits
        truth = perturbed(robot, rng, mass_rel=0.4)
        t, Q, QD, QDD = fourier_trajectory(robot, rng, period_s=8.0, periods=2)
        out.append(synthetic_series(truth, FRICTION, t, Q, QD, QDD, SIGMA, rng)[0])
    return robot, out


def _consistent_theta(robot, series):
    res = identify(robot, [series], options=OPTIONS)
    assert res.consistency.status == 'optimal'
    return res.consistency.theta


def test_compiled_problem_solved_again_gives_the_new_datas_solution(two_runs):
    robot, (a, b) = two_runs
    consistency._PROBLEMS.clear()
    theta_a = _consistent_theta(robot, a)
    assert len(consistency._PROBLEMS) == 1
    theta_b = _consistent_theta(robot, b)          # the problem compiled for a, new data
    assert len(consistency._PROBLEMS) == 1
    consistency._PROBLEMS.clear()
    theta_b_alone = _consistent_theta(robot, b)    # compiled for b alone
    scale = np.maximum(np.abs(theta_b_alone), 1e-3)
    assert np.max(np.abs(theta_b - theta_b_alone) / scale) < 1e-4
    # the two fits differ by far more than that: a stale problem would be seen
    assert np.max(np.abs(theta_a - theta_b_alone) / scale) > 1e-2
