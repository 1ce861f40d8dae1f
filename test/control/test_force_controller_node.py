# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The force_controller node over real DDS with the youbot_sim and wrench_estimator nodes.

Three subprocesses on an isolated domain, on sim time (the sim at 200 Hz, at a quarter of real
time: see REAL_TIME_FACTOR): the sim
(seed 3, the work pose of ``cases``), the estimator with the model identified from that arm
(``identified_model``) and config/wrench_estimator.yaml, and the controller with
config/force_controller.yaml in hand guiding. The test relays the estimator's ``~/wrench`` to
the controller (so that it can stop the estimates: stale), publishes the controller's
``collision`` flag, calls ``~/enable`` and pushes the tool with 10 N on ``sim/wrench``. The tool
speed is J(q) qd of the sim's joint states (sim time from their stamps).

Proves: nothing is commanded until enabled; the tool stops (speed below 1 mm/s, staying so
for the whole second of sim time watched) within 100 ms of sim time after the estimate goes
stale (its last arrival plus stale_timeout_s), after the collision flag and after ``~/enable``
false. The hand keeps pushing with 10 N: with the set point left where the stop put it, the
drives' integral moved the tool back to it at 1.5-2.5 mm/s some 0.3-0.4 s after the stop; the
held set point now relaxes to where the arm rests (``stop_relax_s``).
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from geometry_msgs.msg import WrenchStamped
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, String
from std_srvs.srv import SetBool, Trigger
from trajectory_msgs.msg import JointTrajectory

from cases import WORK_POSE_RAD, youbot_controller_config
from identified_model import SEED, identified_model_path
from robot_id_ros.io.model_file import load_model
from ros_helpers import RosHarness, isolated_env, stop_node

pytestmark = [pytest.mark.integration]
ROOT = Path(__file__).resolve().parents[2]
STOP_WITHIN_NS = 100_000_000
STILL_M_S = 1e-3
WATCH_S = 1.0          # the tool is watched this long (sim time) after each stop's cause
# sim seconds per wall second: the budget is 100 ms of sim time, and on the shared 2-core test
# machine (load ~10) the three nodes' DDS and scheduling delays alone reach 100 ms of wall time;
# a slower sim gives the nodes the wall time a dedicated machine would
REAL_TIME_FACTOR = 0.25


def start(module, domain, *params, params_file=None, remaps=()):
    args = [sys.executable, '-m', module, '--ros-args']
    if params_file is not None:
        args += ['--params-file', str(params_file)]
    for p in params:
        args += ['-p', p]
    for r in remaps:
        args += ['-r', r]
    return subprocess.Popen(args, env=isolated_env(domain), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def stamp_of(msg):
    return msg.header.stamp.sec * 10 ** 9 + msg.header.stamp.nanosec


class Probe(RosHarness):
    """The test's node: relays the estimate, counts commands, reads the joint states."""

    def __init__(self, ctx, robot):
        super().__init__(step_s=0.002)
        self.robot = robot
        self.node = n = self.add(Node('probe', context=ctx))
        self.relay_on = True
        self.last_relayed_ns = 0
        self.commands, self.states, self.joints = 0, [], []
        self.pub_wrench = n.create_publisher(WrenchStamped, 'ctl/wrench', 10)
        self.pub_collision = n.create_publisher(Bool, 'ctl/collision', 10)
        self.pub_hand = n.create_publisher(WrenchStamped, 'sim/wrench', 10)
        n.create_subscription(WrenchStamped, 'wrench_estimator/wrench', self._relay, 100)
        n.create_subscription(JointTrajectory, 'joint_trajectory_controller/joint_trajectory',
                              self._on_command, 100)
        n.create_subscription(String, 'force_controller/state',
                              lambda m: self.states.append(m.data), 100)
        n.create_subscription(JointState, 'joint_states', self.joints.append,
                              QoSProfile(depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT))
        self.enable = n.create_client(SetBool, 'force_controller/enable')
        self.tare = n.create_client(Trigger, 'wrench_estimator/tare')

    def _relay(self, msg):
        if self.relay_on:
            self.pub_wrench.publish(msg)
            self.last_relayed_ns = stamp_of(msg)

    def _on_command(self, _msg):
        self.commands += 1

    def now_ns(self):
        return stamp_of(self.joints[-1])

    def speed(self, msg):
        q, qd = np.array(msg.position[:5]), np.array(msg.velocity[:5])
        return float(np.linalg.norm(self.robot.tool_jacobian(q)[:3] @ qd))

    def wait_sim(self, seconds, timeout=60.0):
        t_end = self.now_ns() + int(seconds * 1e9)
        assert self.spin(until=lambda: self.now_ns() >= t_end, timeout=timeout)

    def stopped_after(self, t_cause_ns, watch_s=WATCH_S):
        """Sim time (ns after t_cause_ns) from which the tool speed stays below 1 mm/s to the
        end of ``watch_s``."""
        self.wait_sim(watch_s + (t_cause_ns - self.now_ns()) * 1e-9 + 0.05)
        t_end_ns = t_cause_ns + int(watch_s * 1e9)
        moving = [stamp_of(m) for m in self.joints
                  if t_cause_ns <= stamp_of(m) <= t_end_ns and self.speed(m) >= STILL_M_S]
        return (moving[-1] - t_cause_ns) if moving else 0

    def profile(self, t_ns):
        """(ms after t_ns, mm/s) of the joint states from 0.1 s before t_ns, for a message."""
        return [(round((stamp_of(m) - t_ns) * 1e-6), round(self.speed(m) * 1e3, 2))
                for m in self.joints if stamp_of(m) >= t_ns - 100_000_000][::5].__repr__() + repr(
            self.states)

    def push(self, fx):
        msg = WrenchStamped()
        msg.header.frame_id = 'base'
        msg.wrench.force.x = float(fx)
        self.pub_hand.publish(msg)

    def set_enabled(self, on):
        resp = self.call(self.enable, SetBool.Request(data=on))
        assert resp.success, resp.message

    def wait_moving(self):
        assert self.spin(until=lambda: self.speed(self.joints[-1]) > 0.01, timeout=40.0), \
            self.states


def test_force_controller_node_stops_within_100_ms(rclpy_context, ros_domain_id):
    model_path = identified_model_path(SEED)
    pose = '[' + ', '.join(str(v) for v in WORK_POSE_RAD) + ']'
    sim = start('robot_id_ros.ros.nodes.youbot_sim', ros_domain_id, f'seed:={SEED}',
                'publish_rate_hz:=200.0', f'real_time_factor:={REAL_TIME_FACTOR}',
                f'initial_positions:={pose}')
    est = start('robot_id_ros.ros.nodes.wrench_estimator', ros_domain_id,
                f'model_file:={model_path}', 'use_sim_time:=true',
                params_file=ROOT / 'config' / 'wrench_estimator.yaml')
    ctl = start('robot_id_ros.ros.nodes.force_controller', ros_domain_id,
                f'model_file:={model_path}', 'use_sim_time:=true', 'mode:=hand_guiding',
                params_file=ROOT / 'config' / 'force_controller.yaml',
                remaps=('wrench:=ctl/wrench', 'wrench_std:=wrench_estimator/wrench_std',
                        'contact:=wrench_estimator/contact', 'collision:=ctl/collision'))
    probe = Probe(rclpy_context, load_model(model_path).robot)
    stale_ns = int(youbot_controller_config().stale_timeout_s * 1e9)
    try:
        assert probe.spin(until=lambda: len(probe.joints) > 50 and probe.last_relayed_ns > 0,
                          timeout=60.0), (len(probe.joints), probe.last_relayed_ns,
                                          stop_node(sim)[-3000:], stop_node(est)[-3000:],
                                          stop_node(ctl)[-3000:])
        probe.wait_sim(2.0)
        assert probe.call(probe.tare).success
        # disabled: a 10 N push commands nothing
        assert probe.spin(until=lambda: probe.pub_hand.get_subscription_count() > 0)
        probe.push(10.0)
        probe.wait_sim(1.5)
        assert probe.commands == 0
        # enabled: the tool moves with the push
        probe.set_enabled(True)
        probe.wait_moving()
        assert probe.commands > 0
        # stale: the estimates stop reaching the controller
        probe.relay_on = False
        probe.spin(0.01)
        t_stale = probe.last_relayed_ns + stale_ns
        assert probe.stopped_after(t_stale) <= STOP_WITHIN_NS, probe.profile(t_stale)
        # collision flag (latched until enabled again)
        probe.relay_on = True
        probe.set_enabled(True)
        probe.wait_moving()
        probe.pub_collision.publish(Bool(data=True))
        t_flag = probe.now_ns()
        assert probe.stopped_after(t_flag) <= STOP_WITHIN_NS, probe.profile(t_flag)
        assert 'collision' in probe.states[-1], probe.states
        # disable
        probe.set_enabled(True)
        probe.wait_moving()
        probe.set_enabled(False)
        t_off = probe.now_ns()
        assert probe.stopped_after(t_off) <= STOP_WITHIN_NS, probe.profile(t_off)
    finally:
        probe.close()
        outs = [stop_node(p) for p in (ctl, est, sim)]
    for out in outs:
        assert 'Traceback' not in out, out
