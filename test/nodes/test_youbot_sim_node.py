# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Integration tests of the youbot_sim node: the node runs for real and talks over DDS.

Each test has its own ROS domain (fixture ``rclpy_context`` of test/conftest.py).  The node and a
probe node share one executor spun from the test thread, so the ground truth read from the
simulator object is never touched while the executor steps it.
"""
import math
import subprocess
import sys

import numpy as np
import pytest
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Inertia, WrenchStamped
from rclpy.node import Node
from rclpy.parameter import Parameter
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_id_ros.ros.nodes.youbot_sim import YoubotSimNode
from ros_helpers import RosHarness, isolated_env

ARM = [f'arm_joint_{i}' for i in range(1, 6)]
FINGERS = ['gripper_finger_joint_l', 'gripper_finger_joint_r']
CANDLE = [2.9496, 1.1344, -2.5482, 1.789, 2.9234]


class Bench(RosHarness):
    """The sim node plus a probe node recording what it publishes (one executor)."""

    def __init__(self, ctx, topics=('js', 'diag'), **params):
        super().__init__(step_s=0.005)
        defaults = {
            'real_time_factor': 10.0,
            'publish_rate_hz': 100.0,
            'start_time_sec': 1000.0,
            'seed': 4
        }
        defaults.update(params)
        overrides = [Parameter(k, value=v) for k, v in defaults.items()]
        self.sim = self.add(YoubotSimNode(context=ctx, parameter_overrides=overrides))
        self.probe = self.add(Node('probe', context=ctx))
        self.js, self.clock, self.diag, self.true_tau, self.true_w = [], [], [], [], []
        # subscribe only to what a test reads: an rclpy probe cannot drain every topic at 10x real
        # time
        subs = {
            'js': (JointState, 'joint_states', self.js),
            'clock': (ClockMsg, '/clock', self.clock),
            'diag': (DiagnosticArray, '/diagnostics', self.diag),
            'true_tau': (JointState, 'sim/true_external_joint_torques', self.true_tau),
            'true_w': (WrenchStamped, 'sim/true_wrench', self.true_w)
        }
        for key in topics:
            typ, topic, store = subs[key]
            self.probe.create_subscription(typ, topic, store.append, 1000)
        self.traj_pub = self.probe.create_publisher(
            JointTrajectory, 'joint_trajectory_controller/joint_trajectory', 10)
        self.wrench_pub = self.probe.create_publisher(WrenchStamped, 'sim/wrench', 10)
        self.payload_pub = self.probe.create_publisher(Inertia, 'sim/payload', 10)

    def received_sim_time(self, msgs):
        if not msgs:
            return -1.0
        st = msgs[-1].header.stamp
        return st.sec + 1e-9 * st.nanosec - 1000.0

    def spin_sim_seconds(self, seconds, timeout_s=60.0):
        """Spin until joint states (and truth) stamped ``seconds`` after the sim's present
        arrived."""
        t_end = self.sim.arm.t + seconds
        assert self.spin(until=lambda: self.received_sim_time(self.js) >= t_end - 1e-6
                         and (not self.true_tau
                              or self.received_sim_time(self.true_tau) >= t_end - 1e-6),
                         timeout=timeout_s), \
            'no joint states from the simulation time expected'

    def wait_connected(self):
        assert self.spin(until=lambda: len(self.js) > 5 and self.traj_pub
                         .get_subscription_count() > 0 and self.wrench_pub.get_subscription_count(
                         ) > 0 and self.payload_pub.get_subscription_count() > 0)
        # discovery is not symmetric: give the node's side a moment to match the probe's publishers
        self.spin(0.3)


@pytest.fixture
def bench_factory(rclpy_context):
    made = []

    def make(**params):
        b = Bench(rclpy_context, **params)
        made.append(b)
        return b
    yield make
    for b in made:
        b.close()


def stamp_s(stamp):
    return stamp.sec + 1e-9 * stamp.nanosec


def traj(names, points):
    msg = JointTrajectory()
    msg.joint_names = list(names)
    for t, pos in points:
        p = JointTrajectoryPoint()
        p.positions = [float(v) for v in pos]
        p.time_from_start.sec = int(t)
        p.time_from_start.nanosec = int(round((t - int(t)) * 1e9))
        msg.points.append(p)
    return msg


def effort_band(arm):
    """Stiction band plus 4 sigma of current noise and quantisation, per joint (Nm)."""
    noise = (4 * arm.config.current_noise_a * arm.drives.drive_gains_nm_a
             + arm.drives.drive_gains_nm_a * 1e-3)
    return np.maximum(arm.breakaway_pos, arm.breakaway_neg) + noise


def test_joint_states_clock_and_rest_effort(bench_factory):
    b = bench_factory(topics=('js', 'clock'), real_time_factor=4.0, publish_rate_hz=200.0)
    b.wait_connected()
    t0, n0 = b.sim.arm.t, b.sim.published_joint_states
    b.spin_sim_seconds(0.5)
    t1, n1 = b.sim.arm.t, b.sim.published_joint_states
    m = b.js[-1]
    assert list(m.name) == ARM + FINGERS
    assert len(m.position) == len(m.velocity) == len(m.effort) == 7
    assert list(m.effort[5:]) == [0.0, 0.0] and list(m.position[5:]) == [0.0, 0.0]
    # 200 Hz in simulation time: one joint state per 5 ms of simulation time, whatever the load
    assert n1 - n0 == round((t1 - t0) / 0.005) and n1 - n0 >= 100
    # stamps from start_time_sec, on the 5 ms grid, in order (this probe shares one executor with
    # the simulator and may fall behind it on a loaded machine, so it may not see every one)
    stamps = np.array([s.header.stamp.sec + 1e-9 * s.header.stamp.nanosec for s in b.js[-50:]])
    steps = np.diff(stamps) / 0.005
    assert np.allclose(steps, np.round(steps), atol=1e-3) and np.all(np.round(steps) >= 1)
    assert 1000.0 < stamps[-1] < 1010.0
    # /clock carries the joint states' stamps (compared in sim time: the probe may drain the two
    # topics at different moments under load)
    assert b.spin(until=lambda: b.clock and stamp_s(b.clock[-1].clock) >= stamps[-1], timeout=60)
    clock = np.array([stamp_s(c.clock) for c in b.clock])
    assert np.min(np.abs(clock - stamps[-1])) < 0.0051
    # at rest: effort is the TRUE gravity torque within stiction band and noise, and not the URDF's
    arm = b.sim.arm
    q = np.array(m.position[:5])
    assert np.allclose(q, CANDLE, atol=2e-3)
    eff = np.mean([s.effort[:5] for s in b.js[-40:]], axis=0)
    g_true = arm.true_gravity_torque(q)
    assert np.all(np.abs(eff - g_true) <= effort_band(arm)), (eff, g_true)
    assert np.any(np.abs(g_true - arm.nominal_gravity_torque(q)) > 1e-3)


def test_effort_unit_current(bench_factory):
    b = bench_factory(effort_unit='current')
    b.wait_connected()
    m = b.js[-1]
    arm = b.sim.arm
    i = np.array(m.effort[:5])
    # integer mA
    assert np.allclose(i * 1000, np.round(i * 1000), atol=1e-6)
    tau = i * arm.drives.drive_gains_nm_a
    assert np.all(
        np.abs(tau - arm.true_gravity_torque(np.array(m.position[:5]))) <= effort_band(arm))


def test_partial_trajectory_is_followed_and_replaces_the_running_one(bench_factory):
    b = bench_factory(topics=('js',), real_time_factor=5.0)
    b.wait_connected()
    # a slow trajectory on J2, J3 (60 s: the replacement arrives long before it ends even on a
    # loaded machine), replaced early by one on J3 only
    b.traj_pub.publish(
        traj(['arm_joint_3', 'arm_joint_2'], [(1.0, [-2.3, 1.2]), (60.0, [-1.5, 2.2])]))
    assert b.spin(until=lambda: b.sim.driver.accepted == 1, timeout=60.0)
    t1 = b.sim.driver.last_command_sim_time_s
    b.spin_sim_seconds(1.5)
    b.traj_pub.publish(traj(['arm_joint_3'], [(1.5, [-2.0])]))
    assert b.spin(until=lambda: b.sim.driver.accepted == 2, timeout=60.0)
    t2 = b.sim.driver.last_command_sim_time_s
    assert t2 - t1 < 55.0, 'the replacement arrived too late to replace anything'
    b.spin_sim_seconds(3.0)
    t = np.array([b.received_sim_time([m]) for m in b.js])
    pos = np.array([m.position[:5] for m in b.js])
    at_t2 = pos[np.searchsorted(t, t2)]
    assert at_t2[1] > CANDLE[1] + 0.02                  # J2 was moving when replaced
    after = pos[t > t2 + 0.3]
    final = pos[-1]
    assert abs(final[2] - (-2.0)) < 3e-3                # J3 reached the new target
    assert abs(final[0] - CANDLE[0]) < 3e-3             # J1 never commanded
    assert np.ptp(after[:, 1]) < 0.01  # J2 holds: the running trajectory was replaced
    # no jumps (continuous set point), judged per second of sim time between the samples the
    # probe received: at 5x real time on a loaded machine it misses some, and two samples 0.1 s
    # apart may differ by more than one publish period's step. 5 rad/s is 0.05 rad per 10 ms
    # publish period, 10x the fastest commanded joint speed here; a set-point jump is a step
    # within one period.
    dt = np.diff(t)
    assert np.all(dt >= 0) and np.count_nonzero(dt < 0.015) >= 50, 'too few adjacent samples'
    assert np.all(np.abs(np.diff(pos, axis=0)) < 5.0 * dt[:, None] + 1e-9)
    # tracking error of the first trajectory is bounded: J2 follows 1.1344 -> 1.2 (1 s) -> 2.2
    # (60 s)
    first = (t > t1 + 1.2) & (t < t2)
    ref = 1.2 + (t[first] - t1 - 1.0) / 59.0 * 1.0
    assert np.all(np.abs(pos[first, 1] - ref) < 0.02)


def test_bad_commands_are_rejected_without_moving(bench_factory):
    b = bench_factory(real_time_factor=10.0)
    b.wait_connected()
    q0 = np.array(b.js[-1].position[:5])
    bad = {
        'unknown joint': traj(['arm_joint_9'], [(1.0, [0.5])]),
        'not finite': traj(['arm_joint_1'], [(1.0, [math.nan])]),
        'positions for': traj(['arm_joint_1', 'arm_joint_2'], [(1.0, [1.0])]),
        'times must increase': traj(['arm_joint_1'], [(1.0, [1.0]), (1.0, [1.2])]),
        'outside its limits': traj(['arm_joint_2'], [(1.0, [3.5])]),
        'no points': traj(['arm_joint_1'], []),
    }
    for key, msg in bad.items():
        n_diag = len(b.diag)
        b.traj_pub.publish(msg)
        assert b.spin(
            until=lambda: any(key in st.message for d in b.diag[n_diag:] for st in d.status),
            timeout=60.0), key
    bad_wrench = WrenchStamped()
    bad_wrench.header.frame_id = 'no_such_frame'
    bad_wrench.wrench.force.z = 5.0
    n_diag = len(b.diag)
    b.wrench_pub.publish(bad_wrench)
    assert b.spin(
        until=lambda: any('no_such_frame' in st.message for d in b.diag[n_diag:]
                          for st in d.status), timeout=60.0)
    pl = Inertia(m=-1.0)
    n_diag = len(b.diag)
    b.payload_pub.publish(pl)
    assert b.spin(
        until=lambda: any('payload mass' in st.message for d in b.diag[n_diag:]
                          for st in d.status), timeout=60.0)
    assert b.sim.driver.rejected == len(bad) and b.sim.driver.accepted == 0
    t_before = b.received_sim_time(b.js)
    b.spin_sim_seconds(0.5)
    # still running: judged by the stamps (at 10x real time the probe may miss messages)
    assert b.received_sim_time(b.js) >= t_before + 0.5 - 1e-6
    q1 = np.array(b.js[-1].position[:5])
    assert np.allclose(q0, q1, atol=1e-4)
    assert b.sim.arm.payload is None and not np.any(b.sim.arm.tau_ext)


def test_wrench_changes_effort_by_jacobian_transpose(bench_factory):
    b = bench_factory(topics=('js', 'true_tau', 'true_w'), real_time_factor=5.0,
                      current_noise_a=0.0, initial_positions=[2.9496, 1.6, -2.0, 2.2, 2.9])
    b.wait_connected()
    b.spin_sim_seconds(0.3)
    arm = b.sim.arm
    e0 = np.mean([m.effort[:5] for m in b.js[-20:]], axis=0)
    w = WrenchStamped()
    w.header.frame_id = 'arm_link_0'
    w.wrench.force.y, w.wrench.force.z = 5.0, 10.0
    b.wrench_pub.publish(w)
    assert b.spin(until=lambda: np.any(b.sim.arm.tau_ext != 0), timeout=60.0)
    b.spin_sim_seconds(3.0)
    q = np.array(b.js[-1].position[:5])
    J = arm.model.copy().tool_jacobian(q, 'base')
    tau_ext = J.T @ np.array([0.0, 5.0, 10.0, 0, 0, 0])
    assert np.allclose(b.true_tau[-1].effort, tau_ext, atol=0.02 * np.abs(tau_ext).max())
    tw = b.true_w[-1].wrench
    assert np.allclose([tw.force.x, tw.force.y, tw.force.z, tw.torque.x], [0.0, 5.0, 10.0, 0.0],
                       atol=1e-9)
    e1 = np.mean([m.effort[:5] for m in b.js[-20:]], axis=0)
    # the motor holds the wrench: effort changes by -J^T F (plus gravity change of the small sag)
    g0 = arm.true_gravity_torque(np.array(b.js[0].position[:5]))
    g1 = arm.true_gravity_torque(q)
    change = (e1 - e0) - (g1 - g0)
    band = 2 * np.maximum(arm.breakaway_pos, arm.breakaway_neg) + 0.01
    assert np.all(np.abs(change + tau_ext) <= band), (change, -tau_ext, band)
    assert np.all(np.abs(tau_ext[:4]) > band[:4])     # the test is not vacuous on J1..J4
    # clearing the wrench: truth returns to zero
    assert b.call(b.probe.create_client(Trigger, 'sim/clear_wrench'), timeout=60.0).success
    n = len(b.true_tau)
    b.spin_sim_seconds(0.1)
    assert not np.any(b.true_tau[-1].effort) and len(b.true_tau) > n


def test_payload_and_true_parameter_file(bench_factory, tmp_path):
    out = tmp_path / 'truth.yaml'
    b = bench_factory(topics=('js',), real_time_factor=10.0)
    b.wait_connected()
    assert not out.exists()
    cli = b.probe.create_client(Trigger, 'sim/write_true_parameters')
    res = b.call(cli, timeout=60.0)
    assert not res.success and 'true_parameters_file' in res.message
    assert not b.sim.set_parameters(
        [Parameter('true_parameters_file', value=str(out))])[0].successful
    b.sim.driver.true_parameters_file = str(out)       # read-only over ROS: set in-process
    p = Inertia(m=0.4)
    p.com.z = 0.05
    b.payload_pub.publish(p)
    assert b.spin(until=lambda: b.sim.arm.payload is not None, timeout=60.0)
    assert b.call(cli, timeout=60.0).success
    import yaml
    d = yaml.safe_load(out.read_text())
    assert d['seed'] == 4 and d['joint_names'] == ARM
    assert d['payload']['mass_kg'] == pytest.approx(0.4)
    m_true = d['links_true']['arm_link_5']['m']
    assert d['links_true_with_payload']['arm_link_5']['m'] == pytest.approx(m_true + 0.4)


def test_subprocess_main_sim_time_follows_clock_and_bad_parameter(rclpy_context, ros_domain_id,
                                                                  tmp_path):
    env = isolated_env(ros_domain_id)
    bad = subprocess.run([
        sys.executable, '-m', 'robot_id_ros.ros.nodes.youbot_sim', '--ros-args', '-p',
        'effort_unit:=furlongs'
    ], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and 'effort_unit' in bad.stderr
    proc = subprocess.Popen([
        sys.executable, '-m', 'robot_id_ros.ros.nodes.youbot_sim', '--ros-args', '-p',
        'real_time_factor:=5.0', '-p', 'start_time_sec:=500.0', '-p', 'publish_rate_hz:=100.0'
    ], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    harness = RosHarness(step_s=0.05)
    try:
        node = harness.add(Node('follower', context=rclpy_context,
                                parameter_overrides=[Parameter('use_sim_time', value=True)]))
        got = []
        node.create_subscription(JointState, 'joint_states', got.append, 50)
        harness.spin(until=lambda: len(got) >= 100, timeout=30)
        assert len(got) >= 100, 'no joint_states from the subprocess node'
        st = got[-1].header.stamp
        t_msg = st.sec + 1e-9 * st.nanosec
        t_node = node.get_clock().now().nanoseconds * 1e-9
        assert 500.0 < t_msg < 600.0
        assert abs(t_node - t_msg) < 0.5      # the follower's clock is the simulation's
    finally:
        harness.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
