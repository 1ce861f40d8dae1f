# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulator as the real youBot driver's twin, over real DDS.

youbot_sim runs in the namespace ``arm_1`` with config/youbot_driver_twin.yaml (as
launch/youbot_bringup.launch.py starts it): the driver's names, 50 Hz, integer-rpm velocity and
its joint state layouts (no gripper: 5 names, 7 efforts; with gripper: fingers read at 5 Hz,
named '' before the first read). The tests check that layout on the wire, that the std_srvs/Empty
services switchOffMotors / switchOnMotors / calibrate act (motors off: no motion, zero effort,
commands refused), that the wrench_estimator node fed the twin's messages recovers a known force
as well as with the clean layout, and that static_pose_recorder records through the driver's
action against the twin.
"""
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from builtin_interfaces.msg import Duration
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_srvs.srv import Empty, Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from interface_packages import with_interfaces
from robot_id_ros.io.bags import read_joint_states, sidecar_path
from robot_id_ros.io.sidecar import read_sidecar
from robot_id_ros.ros.nodes.youbot_sim import YoubotSimNode
from robot_id_ros.sim.config import YOUBOT_GRIPPER_JOINTS, SimConfig
from robot_id_ros.sim.true_model import true_model_of
from robot_id_ros.sim.youbot_arm import SimulatedArm
from ros_helpers import RosHarness, isolated_env, stop_node
from test_recorders import FAST, SEED, Procs, _log, _true, _wait

ROOT = Path(__file__).resolve().parents[2]
TWIN_FILE = ROOT / 'config' / 'youbot_driver_twin.yaml'
ARM = [f'arm_joint_{i}' for i in range(1, 6)]
BENT = (2.9496, 1.6344, -1.6482, 2.189, 2.9234)   # a vertical force loads J2..J4
FORCE = np.array([0.0, 0.0, -10.0])               # N, base axes, at the tool frame origin
MARGIN_N = 0.5        # noise (10 mA current noise) and observer transient
# the joint state layouts: the clean one, the driver's without gripper, the driver's with gripper
LAYOUTS = {
    'clean': ['gripper:=true', 'finger_read_rate_hz:=0.0'],
    'no_gripper_7_efforts': ['gripper:=false', 'effort_length_quirk:=true'],
    'fingers_at_5_hz': ['gripper:=true', 'finger_read_rate_hz:=5.0'],
}


def twin_values():
    """The twin preset's parameters (config/youbot_driver_twin.yaml)."""
    (section,) = yaml.safe_load(TWIN_FILE.read_text()).values()
    return section['ros__parameters']


def stamp_s(msg):
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


class Twin(RosHarness):
    """The twin in-process under arm_1, and a probe at the root using the driver's names."""

    def __init__(self, ctx, **params):
        super().__init__(step_s=0.005)
        values = dict(twin_values(), real_time_factor=4.0, start_time_sec=1000.0, seed=4)
        values.update(params)
        self.sim = self.add(YoubotSimNode(
            context=ctx, namespace='arm_1',
            parameter_overrides=[Parameter(k, value=v) for k, v in values.items()]))
        self.probe = p = self.add(Node('probe', context=ctx))
        self.js, self.diag = [], []
        p.create_subscription(JointState, '/arm_1/joint_states', self.js.append, 1000)
        p.create_subscription(DiagnosticArray, '/diagnostics', self.diag.append, 100)
        self.traj = p.create_publisher(
            JointTrajectory, '/arm_1/joint_trajectory_controller/joint_trajectory', 10)
        self.services = {n: p.create_client(Empty, f'/arm_1/{n}')
                         for n in ('switchOnMotors', 'switchOffMotors', 'calibrate')}

    def connected(self):
        return self.spin(until=lambda: len(self.js) > 5 and self.traj.get_subscription_count() > 0
                         and all(c.service_is_ready() for c in self.services.values()),
                         timeout=30.0)

    def spin_sim(self, seconds):
        t_end = self.sim.arm.t + seconds
        assert self.spin(until=lambda: self.js and stamp_s(self.js[-1]) - 1000.0 >= t_end - 1e-6,
                         timeout=60.0)

    def call(self, name):
        return super().call(self.services[name], Empty.Request(), timeout=30.0)


@pytest.fixture
def twin(rclpy_context):
    made = []

    def make(**params):
        made.append(Twin(rclpy_context, **params))
        return made[-1]
    yield make
    for t in made:
        t.close()


def trajectory(names, points):
    msg = JointTrajectory(joint_names=list(names))
    for t, pos in points:
        msg.points.append(JointTrajectoryPoint(
            positions=[float(v) for v in pos],
            time_from_start=Duration(sec=int(t), nanosec=int(round((t % 1) * 1e9)))))
    return msg


def test_twin_layout_without_gripper_at_50_hz_with_integer_rpm(twin):
    b = twin(gripper=False)
    assert b.connected()
    # a slow move of J2 and J3, so that the velocities are not all zero
    b.traj.publish(trajectory(['arm_joint_2', 'arm_joint_3'], [(3.0, [1.5, -2.2])]))
    assert b.spin(until=lambda: b.sim.driver.accepted == 1, timeout=30.0)
    b.spin_sim(2.0)
    m = b.js[-1]
    assert list(m.name) == ARM and len(m.position) == len(m.velocity) == 5
    assert len(m.effort) == 7 and list(m.effort[5:]) == [0.0, 0.0]
    stamps = np.array([stamp_s(s) for s in b.js[-60:]])
    steps = np.diff(stamps) / 0.02                      # 50 Hz in simulation time
    assert np.allclose(steps, np.round(steps), atol=1e-3) and np.mean(np.round(steps) == 1) > 0.7
    # velocity in integer motor rpm: qd * N * 60 / (2 pi) is an integer
    ratios = np.asarray(SimConfig().gear_ratios)
    qd = np.array([s.velocity for s in b.js[-60:]])
    rpm = qd * ratios * 60.0 / (2 * math.pi)
    assert np.allclose(rpm, np.round(rpm), atol=1e-6)
    assert np.abs(rpm[:, 1]).max() >= 1.0               # J2 moved: non-trivial rpm values


def test_twin_fingers_read_at_5_hz_named_after_the_first_read(twin):
    b = twin(gripper=True, finger_read_rate_hz=5.0, real_time_factor=1.0)
    assert b.connected()
    b.spin_sim(0.5)
    first = [s for s in b.js if stamp_s(s) - 1000.0 < 0.2 - 1e-6]
    later = [s for s in b.js if stamp_s(s) - 1000.0 > 0.2 + 1e-6]
    assert first and later, 'no joint states before and after the first finger read'
    for s in b.js:
        assert len(s.name) == len(s.position) == len(s.velocity) == len(s.effort) == 7
        assert list(s.name[:5]) == ARM and list(s.effort[5:]) == [0.0, 0.0]
        assert list(s.velocity[5:]) == [0.0, 0.0]
    assert all(list(s.name[5:]) == ['', ''] for s in first)
    assert all(list(s.name[5:]) == list(YOUBOT_GRIPPER_JOINTS) for s in later)
    assert b.sim.driver.layout.finger_reads == pytest.approx(
        (b.sim.arm.t - 0.0) * 5.0, abs=1.0)


def test_motors_off_no_motion_zero_effort_commands_refused_then_calibrate(twin):
    b = twin(gripper=False, real_time_factor=2.0)
    assert b.connected()
    arm = b.sim.arm
    b.traj.publish(trajectory(['arm_joint_2', 'arm_joint_3'], [(10.0, [1.8, -1.8])]))
    assert b.spin(until=lambda: b.sim.driver.accepted == 1, timeout=30.0)
    b.spin_sim(1.5)
    assert arm.trajectory_active, arm.t
    b.call('switchOffMotors')
    t_off = arm.t
    b.spin_sim(1.0)
    off = [s for s in b.js if stamp_s(s) - 1000.0 > t_off + 1e-6]
    assert len(off) >= 40
    q = np.array([s.position for s in off])
    assert np.ptp(q, axis=0).max() == 0.0                 # no motion at all
    assert np.all(np.array([s.effort for s in off]) == 0.0)
    assert np.all(np.array([s.velocity for s in off]) == 0.0)
    assert abs(q[-1][1] - 1.8) > 0.1                       # it stopped where it was, short of 1.8
    # a command is refused with a clear message, and nothing moves
    n_diag = len(b.diag)
    b.traj.publish(trajectory(['arm_joint_1'], [(1.0, [2.5])]))
    assert b.spin(until=lambda: any('motors are switched off' in st.message
                                    for d in b.diag[n_diag:] for st in d.status), timeout=30.0)
    assert b.sim.driver.rejected >= 1 and b.sim.driver.accepted == 1
    b.call('calibrate')                                     # refused too
    b.spin_sim(0.5)
    assert np.allclose(b.js[-1].position, q[-1], atol=0.0)
    # motors on: the arm holds where it is and the effort carries gravity again
    b.call('switchOnMotors')
    b.spin_sim(1.0)
    q_on = np.array(b.js[-1].position)
    assert np.allclose(q_on, q[-1], atol=2e-3)
    effort = np.mean([s.effort[:5] for s in b.js[-10:]], axis=0)
    g = arm.true_gravity_torque(q_on)
    band = np.maximum(arm.breakaway_pos, arm.breakaway_neg) + 0.1
    assert np.all(np.abs(effort - g) <= band) and np.abs(g).max() > 1.0
    # calibrate: to the folded pose of the twin preset, at most its speed
    b.call('calibrate')
    target = np.array(twin_values()['calibration_positions'])
    duration = 1.5 * np.abs(target - q_on).max() / twin_values()['calibration_speed_rad_s']
    n = len(b.js)
    b.spin_sim(duration + 1.5)
    moving = np.array([s.velocity for s in b.js[n:]])
    assert np.abs(moving).max() <= twin_values()['calibration_speed_rad_s'] * 1.1
    assert np.allclose(b.js[-1].position, target, atol=3e-3), b.js[-1].position


# ------------------------------------------------------------------ estimator on the twin
def test_motors_off_at_start_until_switch_on(twin):
    # motors_on_at_start false: from the first joint state the arm stands still with zero effort
    # and refuses commands, as after switchOffMotors; switchOnMotors then holds it where it is
    b = twin(gripper=False, real_time_factor=2.0, motors_on_at_start=False,
             initial_positions=[2.95, 1.8, -1.8, 1.79, 2.92])     # J2, J3 loaded by gravity
    assert b.connected()
    b.traj.publish(trajectory(['arm_joint_2'], [(1.0, [1.8])]))
    assert b.spin(until=lambda: b.sim.driver.rejected >= 1, timeout=30.0)
    b.spin_sim(1.0)
    assert b.sim.driver.accepted == 0
    q = np.array([s.position for s in b.js])
    assert len(q) >= 50 and np.ptp(q, axis=0).max() == 0.0
    assert np.all(np.array([s.effort for s in b.js]) == 0.0)
    b.call('switchOnMotors')
    b.spin_sim(1.0)
    arm = b.sim.arm
    q_on = np.array(b.js[-1].position)
    assert np.allclose(q_on, q[0], atol=2e-3)
    effort = np.mean([s.effort[:5] for s in b.js[-10:]], axis=0)
    g = arm.true_gravity_torque(q_on)
    band = np.maximum(arm.breakaway_pos, arm.breakaway_neg) + 0.1
    assert np.all(np.abs(effort - g) <= band) and np.abs(g).max() > 1.0
    # and it follows commands again
    b.traj.publish(trajectory(['arm_joint_2'], [(1.0, [q_on[1] + 0.2])]))
    assert b.spin(until=lambda: b.sim.driver.accepted == 1, timeout=30.0)
    b.spin_sim(2.0)
    assert abs(b.js[-1].position[1] - (q_on[1] + 0.2)) < 0.01


def start(module, domain, args, env=None):
    return subprocess.Popen([sys.executable, '-m', module, '--ros-args', *args],
                            env=env or isolated_env(domain), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _params(values):
    return [a for v in values for a in ('-p', v)]


def twin_sim_args(*extra):
    """The twin as youbot_bringup starts it: namespace arm_1, the package config, the preset."""
    return ['-r', '__ns:=/arm_1', '--params-file', str(ROOT / 'config' / 'youbot_sim.yaml'),
            '--params-file', str(TWIN_FILE), *_params(extra)]


def force_error_bound(model, q):
    """Largest force error per component when each joint's torque is off by its breakaway."""
    J = model.robot.tool_jacobian(np.asarray(q))[:3]
    return np.abs(np.linalg.pinv(J.T)) @ np.asarray(model.friction.breakaway_nm)


@pytest.mark.parametrize('layout', list(LAYOUTS))
def test_estimator_on_the_twin_recovers_a_force(rclpy_context, ros_domain_id, tmp_path, layout):
    arm = SimulatedArm(SimConfig(seed=SEED, initial_positions_rad=BENT))
    model = true_model_of(arm)
    path = tmp_path / 'true_model.yaml'
    model.save(path)
    pos = '[' + ', '.join(str(v) for v in BENT) + ']'
    sim = start('robot_id_ros.ros.nodes.youbot_sim', ros_domain_id, twin_sim_args(
        f'seed:={SEED}', 'real_time_factor:=2.0', f'initial_positions:={pos}',
        *LAYOUTS[layout]))
    est = start('robot_id_ros.ros.nodes.wrench_estimator', ros_domain_id, [
        '--params-file', str(ROOT / 'config' / 'wrench_estimator.yaml'),
        '-p', f'model_file:={path}', '-p', 'use_sim_time:=true',
        '-r', 'joint_states:=/arm_1/joint_states'])
    h = RosHarness(step_s=0.005)
    node = h.add(Node('probe', context=rclpy_context))
    wrench, truth, js = [], [], []
    node.create_subscription(WrenchStamped, 'wrench_estimator/wrench', wrench.append, 1000)
    node.create_subscription(WrenchStamped, '/arm_1/sim/true_wrench', truth.append, 1000)
    node.create_subscription(JointState, '/arm_1/joint_states', js.append, 1000)
    tare = node.create_client(Trigger, 'wrench_estimator/tare')
    try:
        assert h.spin(until=lambda: len(wrench) > 20 and len(truth) > 20, timeout=20.0), (
            stop_node(sim), stop_node(est))
        t0 = stamp_s(truth[0])
        assert h.spin(until=lambda: stamp_s(truth[-1]) >= t0 + 4.0, timeout=30.0)
        assert h.call(tare).success
        pub = node.create_publisher(WrenchStamped, '/arm_1/sim/wrench', 10)
        assert h.spin(until=lambda: pub.get_subscription_count() > 0)
        msg = WrenchStamped()
        msg.header.frame_id = 'base'
        msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = (float(v) for v in FORCE)
        pub.publish(msg)
        assert h.spin(until=lambda: any(abs(t.wrench.force.z) > 1 for t in truth[-5:]),
                      timeout=10.0)
        n0, t_force = len(wrench), stamp_s(truth[-1])
        assert h.spin(until=lambda: stamp_s(truth[-1]) >= t_force + 3.0, timeout=30.0)
        h.spin(0.1)
        after = wrench[n0:]
        # 50 Hz: one estimate per joint state, none refused
        stamps = {round(stamp_s(m), 6) for m in truth}
        assert len(after) >= 120
        assert sum(round(stamp_s(m), 6) in stamps for m in after) >= len(after) - 3
        f = np.array([[m.wrench.force.x, m.wrench.force.y, m.wrench.force.z] for m in after])
        assert np.all(np.isfinite(f))
        f_est = f[-10:].mean(axis=0)
        bound = force_error_bound(model, np.array(js[-1].position[:5]))
        err = np.abs(f_est - FORCE)
        print(f'{layout}: estimated {f_est.round(3)} N for {FORCE} N, error {err.round(3)} N, '
              f'bound {bound.round(3)} + {MARGIN_N} N')
        assert np.all(err <= bound + MARGIN_N), (f_est, bound)
        assert abs(f_est[2] - FORCE[2]) < 2.0
    finally:
        h.close()
        out_est, out_sim = stop_node(est), stop_node(sim)
    assert 'Traceback' not in out_est and 'Traceback' not in out_sim, out_est + out_sim
    # no joint state refused: the only line about one is the notice of the 7 efforts
    about = [ln for ln in out_est.splitlines() if 'joint state' in ln or 'mismatch' in ln]
    assert all('effort has 7 values for 5 names' in ln for ln in about), about
    if layout == 'no_gripper_7_efforts':       # the driver's layout is noticed, once
        assert out_est.count('effort has 7 values for 5 names') == 1, out_est


# ------------------------------------------------------------------ a recorder against the twin
@pytest.fixture
def twin_procs(tmp_path, interface_packages):
    pr = Procs(tmp_path)
    pr.env = with_interfaces(pr.env, interface_packages)
    yield pr
    pr.close()


def _static_errors(out, n_poses):
    """Per-visit effort errors against the true gravity, and the pairs' mean errors (Nm)."""
    sc = read_sidecar(sidecar_path(out))
    assert sc['complete'] and sc['info']['status'] == 'finished'
    segs = sc['segments']
    assert len(segs) == 2 * n_poses
    series = read_joint_states(out, ARM)
    true_robot, tp = _true()
    errs, pairs = [], []
    for s in segs:
        assert len(series.slice_stamp(s['t_start_ns'], s['t_end_ns'])) == s['samples']
        errs.append(np.array(s['effort_mean']) - true_robot.gravity_torque(
            np.array(s['q_mean_rad'])))
    for i in range(n_poses):
        a, b = [np.array(s['effort_mean']) for s in segs if s['pose_index'] == i]
        q = np.mean([s['q_mean_rad'] for s in segs if s['pose_index'] == i], axis=0)
        pairs.append(0.5 * (a + b) - true_robot.gravity_torque(q))
    return np.array(errs), np.array(pairs), tp.friction.breakaway_nm


@pytest.mark.parametrize('interface', ['follow_joint_trajectory', 'brics_position'])
def test_static_pose_recorder_through_the_twin(twin_procs, tmp_path, interface):
    """As youbot_bringup runs it: the twin's arm_1/joint_states remapped to /joint_states (as the
    driver's launch file does), the recorder with its defaults for the driver's names."""
    rtf = 3.0 if interface == 'brics_position' else 6.0   # streamed set points: near real time
    log = open(tmp_path / 'twin.log', 'w')
    sim = subprocess.Popen([sys.executable, '-m', 'robot_id_ros.ros.nodes.youbot_sim',
                            '--ros-args', '-r', 'joint_states:=/joint_states',
                            *twin_sim_args(f'seed:={SEED}', f'real_time_factor:={rtf}',
                                           'start_time_sec:=1000.0')],
                           env=twin_procs.env, stdout=log, stderr=subprocess.STDOUT)
    sim.log_path = tmp_path / 'twin.log'
    twin_procs.procs.append(sim)
    out = tmp_path / interface
    slack = ['stream_lead_s:=0.15'] if interface == 'brics_position' else []
    rec = twin_procs.recorder('static_pose_recorder', [
        f'output_path:={out}',
        'pose_count:=3', 'window_s:=1.5', 'settle_dwell_s:=0.4',
        f'command_interface:={interface}', *FAST, *slack], interface)
    assert _wait(rec, 150) == 0, _log(rec)[-4000:] + _log(sim)[-2000:]
    errs, pairs, band = _static_errors(out, 3)
    noise = 4 * 0.010 * SimConfig().drive_gains_nm_a
    print(f'{interface} on the twin: max |effort - g| {np.abs(errs).max(0).round(4)} Nm')
    assert np.all(np.abs(errs) <= band + noise)
    assert np.all(np.abs(pairs) <= band + noise)
    # every recorder reports its set point stream's timing (RecorderBase), not only the
    # trajectory recorder
    info = read_sidecar(sidecar_path(out))['info']
    assert ('command_stream' in info) == (interface == 'brics_position')
    if interface == 'brics_position':
        assert info['command_stream']['sends'] > 0 and info['command_stream']['lead_s'] == 0.15
