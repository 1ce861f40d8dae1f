# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulated driver around the physics, without ROS: real-time pacing (sim.realtime) and the
inputs the driver accepts or rejects (sim.driver)."""
import numpy as np
import pytest

from robot_id_ros.sim.config import SimConfig, SimConfigError
from robot_id_ros.sim.driver import SimDriver, wrench_target
from robot_id_ros.sim.realtime import MAX_CATCH_UP_S, RealTimeClock


class FakeClock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture(scope='module')
def driver():
    return SimDriver(SimConfig(seed=2), publish_rate_hz=100.0, real_time_factor=2.0,
                     start_time_sec=1000.0)


def test_real_time_clock_publishes_each_instant_once_and_reports_a_long_stall(driver):
    wall = FakeClock()
    rt = RealTimeClock(driver.arm, 0.01, 2.0, start_time_s=1000.0, clock=wall)
    t0 = driver.arm.t
    got = []
    wall.t += 0.05                       # 0.1 s of simulation time at factor 2
    assert rt.run(lambda m: got.append(m.t_s)) is None
    np.testing.assert_allclose(got, t0 + 0.01 * np.arange(1, 11), atol=1e-9)
    assert rt.run(lambda m: got.append(m.t_s)) is None and len(got) == 10   # nothing new is due
    assert rt.stamp_ns(1.5) == 1_001_500_000_000
    assert rt.timer_period_s == pytest.approx(0.005)
    rt.set_rates(real_time_factor=100.0)
    assert rt.timer_period_s == 0.001    # bounded below
    wall.t += 5.0                        # a stall: 500 s behind, more than the catch-up budget
    n = len(got)
    problem = rt.run(lambda m: (got.append(m.t_s), setattr(wall, 't', wall.t + 0.06)))
    assert len(got) == n + 1 and 'behind the requested real-time factor 100' in problem


def test_real_time_clock_resumes_after_a_pause_instead_of_racing(driver):
    # a pause of the process (0.3 s of wall time at factor 4: 1.2 s of simulation time) is not
    # raced through: at most MAX_CATCH_UP_S of wall time is caught up, the rest is dropped
    wall = FakeClock()
    rt = RealTimeClock(driver.arm, 0.005, 4.0, start_time_s=1000.0, clock=wall)
    t0, got = driver.arm.t, []
    wall.t += 0.3
    assert rt.run(lambda m: got.append(m.t_s)) is None       # below MAX_LAG_S: no problem
    allowed = MAX_CATCH_UP_S * 4.0
    assert driver.arm.t - t0 == pytest.approx(allowed, abs=1e-9)
    assert len(got) == round(allowed / 0.005)
    assert rt.dropped_backlog_s == pytest.approx(1.2 - allowed)
    wall.t += 0.01                                # then it runs on at its factor
    rt.run(lambda m: got.append(m.t_s))
    assert driver.arm.t - t0 == pytest.approx(allowed + 0.04, abs=1e-9)
    np.testing.assert_allclose(np.diff(got), 0.005, atol=1e-9)     # the publish grid stays


def test_wrench_frames_and_range(driver):
    arm = driver.arm
    root, tool = driver.root_frame, driver.tool_frame
    assert wrench_target(arm, '', [0, 0, 1, 0, 0, 0], tool) == (tool, 'base')
    assert wrench_target(arm, root, [0, 0, 1, 0, 0, 0], tool) == (tool, 'base')
    assert wrench_target(arm, 'tool', [0, 0, 1, 0, 0, 0], tool) == (tool, 'tool')
    assert wrench_target(arm, 'arm_link_5', [0, 0, 1, 0, 0, 0], tool) == ('arm_link_5', 'tool')
    ok, text = driver.apply_wrench('no_such_frame', [0, 0, 1, 0, 0, 0])
    assert not ok and 'no_such_frame' in text and driver.last_problem[1] == text
    ok, text = driver.apply_wrench('base', [0, 0, 500.0, 0, 0, 0])
    assert not ok and "beyond the simulation's range" in text
    assert driver.apply_wrench('base', [0, 0, 5.0, 0, 0, 0])[0]
    assert np.any(arm.tau_ext != 0)
    assert driver.clear_wrench() == (True, 'external wrench cleared') and not np.any(arm.tau_ext)


def test_commands_counted_and_settings_checked(driver, tmp_path):
    n_ok, n_bad = driver.accepted, driver.rejected
    ok, text = driver.command(['arm_joint_9'], [(1.0, [0.5], [], [])])
    assert not ok and 'rejected trajectory on youbot_sim' in text and driver.rejected == n_bad + 1
    ok, text = driver.command(['arm_joint_1'], [(1.0, [2.9], [], [])])
    assert ok and text.startswith('trajectory accepted: 1 point(s) for arm_joint_1')
    assert driver.accepted == n_ok + 1 and driver.last_command_sim_time_s == driver.arm.t
    assert 'furlongs' in driver.set_parameters({'effort_unit': 'furlongs'})
    assert driver.effort_unit == 'torque'
    assert driver.set_parameters({'effort_unit': 'current'}) is None
    names, q, qd, effort = driver.joint_state(driver.arm.measure())
    assert len(names) == len(q) == len(qd) == len(effort) == 7 and effort[5:] == [0.0, 0.0]
    driver.set_parameters({'effort_unit': 'torque'})
    ok, text = driver.write_true_parameters()
    assert not ok and 'true_parameters_file is empty' in text
    driver.set_parameters({'true_parameters_file': str(tmp_path / 'truth.yaml')})
    assert driver.write_true_parameters() == (True, str(tmp_path / 'truth.yaml'))
    level, message, values = driver.status()
    assert level == 'warn' and values['accepted_commands'] == str(driver.accepted)
    with pytest.raises(SimConfigError, match='effort_unit'):
        SimDriver(SimConfig(), effort_unit='furlongs')
    with pytest.raises(SimConfigError, match='not a frame'):
        SimDriver(SimConfig(), wrench_frame='no_such_frame')
