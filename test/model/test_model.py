# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest

from robot_id_ros.model.robot import ModelError, RobotModel, default_urdf_path, youbot_model
from robots import panda, ur5

CANDLE = np.array([2.9496, 1.1344, -2.5482, 1.789, 2.9234])


def test_youbot_loads_with_arm_joints_and_locked_fingers():
    r = youbot_model()
    assert r.joint_names == tuple(f'arm_joint_{i}' for i in range(1, 6))
    assert r.n == 5 and r.model.nq == 5
    assert r.tool_frame == 'arm_tool_link'
    assert r.link_names == tuple(f'arm_link_{i}' for i in range(1, 6))
    np.testing.assert_allclose(r.limits.upper_rad, [5.899213, 2.705260, 0.0, 3.577925, 5.846853])
    np.testing.assert_allclose(r.limits.effort_nm, [9.5, 9.5, 6.0, 2.0, 1.0])
    # finger masses (2 x 0.01 kg) are merged into the last link with the palm (0.1 kg)
    assert r.model.inertias[5].mass == pytest.approx(0.687 + 0.1 + 0.02)


def test_candle_pose_is_vertical_line_through_joint2_axis():
    """youbot_facts: at the candle pose, joint axes 2..5 and the tool point lie on one vertical
    line about 0.057 m along x from arm_link_0's origin."""
    import pinocchio as pin
    r = youbot_model()
    pin.framesForwardKinematics(r.model, r.data, CANDLE)
    xs = [r.data.oMi[j].translation[:2]
          for j in range(2, 6)] + [r.data.oMf[r.tool_frame_id].translation[:2]]
    for xy in xs:
        assert abs(xy[0] - 0.057) < 0.004 and abs(xy[1]) < 0.004
    z = [r.data.oMi[j].translation[2]
         for j in range(2, 6)] + [r.data.oMf[r.tool_frame_id].translation[2]]
    assert np.all(np.diff(z) > 0.05)  # stacked upwards
    for j in range(2, 5):  # joint axes 2..4 horizontal (y of the joint frame)
        assert abs(r.data.oMi[j].rotation[2, 1]) < 1e-6


def test_folded_zero_pose_within_limits():
    r = youbot_model()
    assert r.check_in_limits(np.zeros(5)) == []
    assert r.check_in_limits(np.array([0, 0, 0.1, 0, 0])) == ['arm_joint_3']


@pytest.mark.parametrize('arm', [panda, ur5])
def test_other_arms_load(arm):
    urdf, joints = arm()
    r = RobotModel(urdf, joints)
    assert r.joint_names == tuple(joints)
    q = np.random.default_rng(0).uniform(-1, 1, r.n)
    assert r.gravity_torque(q).shape == (r.n,)
    assert r.tool_jacobian(q).shape == (6, r.n)


def test_dynamics_terms_consistent_with_rnea():
    r = youbot_model()
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.normal(size=(3, 5))
    tau = r.inverse_dynamics(q, qd, qdd)
    tau2 = r.mass_matrix(q) @ qdd + r.coriolis_matrix(q, qd) @ qd + r.gravity_torque(q)
    np.testing.assert_allclose(tau, tau2, atol=1e-10)
    np.testing.assert_allclose(r.forward_dynamics(q, qd, tau), qdd, atol=1e-8)


def test_jacobian_frames():
    r = youbot_model()
    q = np.array([1.0, 0.5, -1.0, 1.2, 0.3])
    Jb, Jt = r.tool_jacobian(q, 'base'), r.tool_jacobian(q, 'tool')
    R = r.tool_placement(q).rotation
    np.testing.assert_allclose(Jb[:3], R @ Jt[:3], atol=1e-12)
    np.testing.assert_allclose(Jb[3:], R @ Jt[3:], atol=1e-12)


@pytest.mark.parametrize('kwargs, match', [
    (dict(urdf_path='/no/such.urdf'), 'URDF not found'),
    (dict(joint_names=['arm_joint_1', 'nope']), 'no joint'),
    (dict(joint_names=['arm_joint_3', 'arm_joint_2']), 'not a serial chain'),
    (dict(joint_names=['arm_joint_1', 'arm_joint_1']), 'twice'),
    (dict(tool_frame='no_frame'), "no frame 'no_frame'"),
    (dict(joint_names=['arm_joint_1', 'arm_joint_2', 'arm_joint_3'],
          tool_frame='arm_link_1'), 'not on the last'),
])
def test_bad_model_input_names_the_problem(kwargs, match):
    args = dict(urdf_path=default_urdf_path(), joint_names=[f'arm_joint_{i}' for i in range(1, 6)],
                tool_frame='arm_tool_link')
    args.update(kwargs)
    with pytest.raises(ModelError, match=match):
        RobotModel(**args)


def test_unparseable_urdf(tmp_path):
    bad = tmp_path / 'bad.urdf'
    bad.write_text('<robot name="x"><link')
    with pytest.raises(ModelError, match='cannot parse URDF'):
        RobotModel(bad)
