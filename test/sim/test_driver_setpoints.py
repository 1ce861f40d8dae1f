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


def _stream_through_catch_ups(how):
    """Track a sine through ticks that each catch up 0.27 s of sim time; max error, rad.

    The sim runs at 6x real time and each tick comes 45 ms of wall time after the last (a busy
    node; within ``MAX_CATCH_UP_S``, so nothing is dropped). ``how``: 'trajectory' (the whole
    sine as one trajectory command, sampled at 20 ms with velocities) or set points: the
    "recorder" answers each published joint state with the set point 0.15 s ahead, which
    reaches the driver's queue one publish period later, taken before every physics step
    ('per_step') or only when a tick starts ('per_tick', the executor's way).
    """
    d = SimDriver(SimConfig(seed=2), publish_rate_hz=50.0, real_time_factor=6.0,
                  start_time_sec=1000.0)
    arm, wall = d.arm, [0.0]
    d.realtime.clock = lambda: wall[0]
    d.realtime.anchor()
    q0 = arm.measure().position_rad.copy()
    lead_s, amp, w = 0.15, 0.4, 2 * np.pi * 0.4

    def planned(t):
        q = q0.copy()
        q[2] += amp * np.sin(w * t)
        return q
    sent, queue, errs = [], [], []
    if how == 'trajectory':
        t = np.arange(1, 451) * 0.02
        qd = np.zeros(5)
        d.command(ARM, [(ti, planned(ti), np.r_[qd[:2], amp * w * np.cos(w * ti), qd[3:]], [])
                        for ti in t])

    def take():
        for t_for in queue:
            assert d.position_setpoint(ARM, ['rad'] * 5, planned(t_for),
                                       [d.realtime.stamp_ns(t_for)] * 5)[0]
        queue.clear()

    def publish(m):
        if how != 'trajectory':
            queue.extend(sent)           # sent one period ago: arrived now
            sent[:] = [m.t_s + lead_s]
        if m.t_s > 1.0:
            errs.append(abs(m.position_rad[2] - planned(m.t_s)[2]))
    while arm.t < 8.0:
        wall[0] += 0.045
        take()
        d.run(publish, take if how == 'per_step' else None)
    return max(errs)


def test_a_stream_is_followed_through_a_tick_that_catches_up():
    # the set points that arrive during a catch-up are followed at their times: the arm tracks
    # the stream as it tracks the same motion sent as one trajectory (the drives' own lag);
    # taken only at each tick's start it reaches the newest set point and waits for the next tick
    err = {how: _stream_through_catch_ups(how) for how in ('trajectory', 'per_step', 'per_tick')}
    print('max tracking error, rad:', {k: round(v, 4) for k, v in err.items()})
    assert err['per_step'] < 1.25 * err['trajectory'] + 0.002
    assert err['per_tick'] > 5 * err['per_step']
