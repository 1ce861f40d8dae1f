# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Static poses: generated sets, limit and floor checks, pose files (robot_id_ros.record.poses)."""
import numpy as np
import pytest

from robot_id_ros import record as R

CANDLE = np.array((2.9496, 1.1344, -2.5482, 1.789, 2.9234))  # the youBot's candle pose, rad


def test_generated_poses_within_limits_above_floor_and_better_conditioned(robot):
    ps = R.generate_poses(robot, 10, 0.1, floor_z_m=0.0, floor_clearance_m=0.05, seed=3,
                          candidates=200)
    assert ps.poses.shape == (10, 5)
    R.check_poses(robot, ps.poses, 0.1, 0.0, 0.05)  # raises if any is outside
    assert np.allclose(ps.poses[:, 0], ps.poses[0, 0])  # joint 1 (vertical axis) is held
    assert ps.n_base == 8
    rng = np.random.default_rng(0)
    random_conds = [
        R.static_condition_number(robot, robot.random_configurations(10, rng, 0.1))
        for _ in range(20)
    ]
    assert ps.condition_number < np.median(random_conds)
    assert ps.condition_number == pytest.approx(R.static_condition_number(robot, ps.poses))


def test_check_poses_names_the_problem(robot):
    bad = CANDLE.copy()
    bad[2] = 0.05  # within the limit but not within the margin
    with pytest.raises(R.PoseError, match='pose 1: arm_joint_3 .* outside'):
        R.check_poses(robot, [CANDLE, bad], 0.1)
    # stretched forward and down: the tool goes below the floor
    low = np.array([2.9496, 2.6, -0.2, 1.789, 2.9234])
    with pytest.raises(R.PoseError, match='pose 0 is unreachable: .* below the floor'):
        R.check_poses(robot, [low], 0.05, floor_z_m=0.0)
    with pytest.raises(R.PoseError, match='4 values for 5 joints'):
        R.load_pose_list([[1, 2, 3, 4]], robot.joint_names)
    named = R.load_pose_list({'poses': [dict(zip(robot.joint_names, CANDLE))]}, robot.joint_names)
    assert np.allclose(named[0], CANDLE)
