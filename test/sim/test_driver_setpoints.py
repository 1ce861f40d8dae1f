# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulated driver's brics position set points and hold (ROS-free)."""
import numpy as np

from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.driver import SimDriver

ARM = [f'arm_joint_{i}' for i in range(1, 6)]


def _driver():
    return SimDriver(SimConfig(seed=2), publish_rate_hz=50.0, start_time_sec=1000.0)


def test_set_points_are_checked_and_nothing_moves_on_a_bad_one():
    d = _driver()
    q0 = d.arm.measure().position_rad.copy()
    ok, text = d.position_setpoint(ARM[:4] + ['gripper_finger_joint_l'], ['rad'] * 5, q0)
    assert not ok and 'gripper_finger_joint_l' in text and 'arm_joint_1' in text
    ok, text = d.position_setpoint(ARM, ['rad'] * 4 + ['deg'], q0)
    assert not ok and "arm_joint_5 in 'deg'" in text and "'rad'" in text
    assert d.rejected == 2 and d.arm.plan is None


def test_a_stream_of_set_points_is_followed_and_hold_stops_the_arm():
    d = _driver()
    arm = d.arm
    q0 = arm.measure().position_rad.copy()
    rate_hz, v = 50.0, 0.3               # joint 3 moves at 0.3 rad/s
    errs = []
    for k in range(1, 101):              # 2 s of set points, each sent 2 periods ahead
        t_for = arm.t + 2 / rate_hz
        q = q0.copy()
        q[2] += v * (t_for - 0.0)
        stamp = d.realtime.start_ns + int(t_for * 1e9)
        ok, text = d.position_setpoint(ARM, ['rad'] * 5, q, [stamp] * 5)
        assert ok, text
        arm.advance(1 / rate_hz)
        if k > 25:                       # after the start-up transient
            errs.append(arm.measure().position_rad[2] - (q0[2] + v * arm.t))
    assert np.max(np.abs(errs)) < 0.01
    d.hold()
    t_hold = arm.t
    arm.advance(1.0)
    q_a = arm.measure().position_rad.copy()
    arm.advance(1.0)
    m = arm.measure()
    assert np.max(np.abs(m.position_rad - q_a)) < 1e-3 and np.max(np.abs(m.velocity_rad_s)) < 0.01
    assert abs(q_a[2] - (q0[2] + v * t_hold)) < 0.05       # it stopped where it was
