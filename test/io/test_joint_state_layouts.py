# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The real youBot driver's joint state layouts through ``JointIndexer`` (ROS-free)."""
import numpy as np
import pytest

from robot_id_ros.io.joint_state import JointIndexer, JointStateError
from robot_id_ros.sim.config import YOUBOT_GRIPPER_JOINTS, SimConfig
from robot_id_ros.sim.driver_twin import JointStateLayout

ARM = [f'arm_joint_{i}' for i in range(1, 6)]
Q = [0.1, 0.2, -0.3, 0.4, 0.5]


def test_fingers_named_empty_before_the_first_read_are_ignored():
    """Before its first gripper read the driver names both fingers '' (a repeated name)."""
    layout = JointStateLayout(ARM, YOUBOT_GRIPPER_JOINTS, SimConfig(finger_read_rate_hz=5.0))
    names, q, qd, effort = layout.arrays(0.02, Q, [0.0] * 5, [1.0] * 5)
    assert names[5:] == ['', ''] and len(q) == len(qd) == len(effort) == 7
    ix = JointIndexer(list(reversed(ARM)))
    s = ix.convert(names, q, qd, effort)
    assert np.allclose(s.q, Q[::-1]) and not ix.notices
    names, *_ = layout.arrays(0.2, Q, [0.0] * 5, [1.0] * 5)       # read at 5 Hz
    assert names[5:] == list(YOUBOT_GRIPPER_JOINTS)


def test_no_gripper_layout_takes_the_first_efforts_and_notices_once():
    layout = JointStateLayout(ARM, YOUBOT_GRIPPER_JOINTS,
                              SimConfig(gripper=False, effort_length_quirk=True))
    names, q, qd, effort = layout.arrays(0.0, Q, [0.0] * 5, [1.0, 2.0, 3.0, 4.0, 5.0])
    assert (len(names), len(q), len(qd), len(effort)) == (5, 5, 5, 7)
    ix = JointIndexer(ARM)
    for _ in range(3):
        s = ix.convert(names, q, qd, effort)
    assert np.allclose(s.effort, [1, 2, 3, 4, 5]) and len(ix.notices) == 1


def test_a_joint_named_twice_is_still_refused():
    with pytest.raises(JointStateError, match='twice'):
        JointIndexer(ARM).convert(ARM + ['arm_joint_1'], Q + [0.0], Q + [0.0], Q + [0.0])
