# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Default joints and tool frame: the arm of any URDF, fingers and branches left out."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from robot_id_ros.model.robot import ModelError, RobotModel, default_urdf_path
from robots import example_robot_data_dir, panda, ur5

ROOT = Path(__file__).resolve().parents[2]


def test_the_bundled_youbot_given_by_path_is_the_arm_without_fingers():
    m = RobotModel(default_urdf_path())
    assert m.joint_names == tuple(f'arm_joint_{i}' for i in range(1, 6))
    assert m.tool_frame == 'arm_tool_link'
    assert 'gripper_finger_joint_l' in m.selection_note and '\n' not in m.selection_note


def test_panda_with_its_gripper_ends_at_joint_7_and_the_tcp():
    urdf, joints = panda()
    m = RobotModel(urdf)
    assert list(m.joint_names) == joints
    assert m.tool_frame == 'panda_hand_tcp'
    assert 'panda_finger_joint1' in m.selection_note


def test_a_plain_arm_takes_every_joint_and_says_nothing():
    urdf, joints = ur5()
    m = RobotModel(urdf)
    assert list(m.joint_names) == joints and m.selection_note == ''


@pytest.mark.parametrize('rel, last, n', [
    ('kinova_description/robots/kinova.urdf', 'j2s6s200_joint_6', 6),
    ('finger_edu_description/robots/finger_edu.urdf', 'finger_middle_to_lower_joint', 3),
    ('talos_data/robots/talos_left_arm.urdf', 'arm_left_7_joint', 6),
])
def test_other_arms_of_example_robot_data(rel, last, n):
    m = RobotModel(example_robot_data_dir() / rel)
    assert m.joint_names[-1] == last and m.n == n


def test_a_link_named_like_a_locked_joint_so100():
    """SO-100's gripper joint moves a link also named ``gripper``: Pinocchio's reduction fails
    on such names unless they are renamed around it; the result must be the same physics."""
    urdf = example_robot_data_dir() / 'so_arm_description' / 'urdf' / 'so100.urdf'
    m = RobotModel(urdf)
    assert m.n == 5 and m.tool_frame == 'gripper' and 'gripper' in m.selection_note
    assert m.model.existFrame('gripper', pin.FrameType.BODY)
    assert not any(f.name.endswith('__link') for f in m.model.frames)
    full = pin.buildModelFromUrdf(str(urdf))
    q_full = pin.neutral(full)
    q = np.array([0.3, 1.2, -1.0, 0.4, 0.7])
    for name, v in zip(m.joint_names, q):
        q_full[full.joints[full.getJointId(name)].idx_q] = v
    g_full = pin.computeGeneralizedGravity(full, full.createData(), q_full)
    idx = [full.joints[full.getJointId(name)].idx_v for name in m.joint_names]
    np.testing.assert_allclose(m.gravity_torque(q), g_full[idx], rtol=1e-12, atol=1e-12)
    d = full.createData()
    pin.framesForwardKinematics(full, d, q_full)
    tool_full = d.oMf[full.getFrameId('gripper', pin.FrameType.BODY)]
    np.testing.assert_allclose(m.tool_placement(q).homogeneous, tool_full.homogeneous, atol=1e-12)


def test_a_urdf_without_arm_joints_says_so():
    urdf = example_robot_data_dir() / 'hector_description' / 'robots' / 'quadrotor_base.urdf'
    with pytest.raises(ModelError, match='no revolute, continuous or prismatic joint'):
        RobotModel(urdf)


def test_a_tool_frame_given_selects_the_joints_up_to_it():
    urdf, joints = panda()
    m = RobotModel(urdf, tool_frame='panda_link5')
    assert list(m.joint_names) == joints[:5]


def test_mimic_joints_and_a_two_finger_gripper_are_left_out(tmp_path):
    def link(name):
        return (
            f'<link name="{name}"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" '
            f'iyy="0.01" iyz="0" izz="0.01"/></inertial></link>')

    def joint(name, parent, child, kind='revolute', extra=''):
        return (
            f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="10" '
            f'velocity="1"/>{extra}</joint>')

    urdf = ('<robot name="arm">' +
            ''.join(link(n) for n in ('base', 'l1', 'l2', 'tip', 'fa', 'fb')) +
            joint('j1', 'base', 'l1') + joint('j2', 'l1', 'l2') +
            joint('tool', 'l2', 'tip', 'fixed') + joint('left', 'l2', 'fa', 'prismatic') +
            joint('right', 'l2', 'fb', 'prismatic', '<mimic joint="left"/>') + '</robot>')
    path = tmp_path / 'arm.urdf'
    path.write_text(urdf)
    m = RobotModel(path)
    assert m.joint_names == ('j1', 'j2') and m.tool_frame == 'tip'
    assert 'left' in m.selection_note and 'right' in m.selection_note


@pytest.mark.integration
def test_describe_and_design_excitation_work_on_the_bundled_urdf_by_path(tmp_path):
    urdf = str(ROOT / 'urdf' / 'youbot_arm.urdf')
    r = subprocess.run(
        [sys.executable, '-m', 'robot_id_ros.cli', 'describe', '--urdf', urdf, '--json'],
        capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)['joint_names'] == [f'arm_joint_{i}' for i in range(1, 6)]
    assert r.stderr.startswith('note: using joints arm_joint_1')
