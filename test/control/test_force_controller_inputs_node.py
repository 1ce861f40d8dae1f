# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The force_controller node over real DDS against a hostile peer: what it does with bad input.

The node runs alone (no simulator: the test's peer publishes the arm's joint states at the work
pose, and an estimate, both at 200 Hz stamped with the clock); the peer forges joint states
2 rad off on joint 1 (a 30 ms burst, one every millisecond), publishes NaN forces and sigmas,
an estimate stamped an hour ahead and estimates in a foreign frame or none, and sets the array
parameters over ROS.

Proves: no published set point steps by more than a few control periods at the joint speed
limit (before, the stop took a forged joint state as its set point: a 2 rad step), none is not
finite, the node stays alive and says why it stopped on ``~/state``; enabling is refused while
a forged joint state is recent; ``guide_axes`` and the dither arrays can be set at run time.
"""
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from geometry_msgs.msg import WrenchStamped
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import GetParameters, SetParameters
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import SetBool
from trajectory_msgs.msg import JointTrajectory

from cases import WORK_POSE_RAD
from identified_model import SEED, identified_model_path
from robot_id_ros.estimate.mapping import root_frame_name
from robot_id_ros.io.model_file import load_model
from ros_helpers import RosHarness, isolated_env, stop_node

pytestmark = [pytest.mark.integration]
ROOT = Path(__file__).resolve().parents[2]
FORGED_RAD = np.array([2.0, 0.0, 0.0, 0.0, 0.0])
# the largest joint change between two consecutive set points: 0.5 rad/s (max_joint_speed_rad_s)
# over 10 control periods of 10 ms (a loaded machine may delay the timer); a forged state: 2 rad
MAX_STEP_RAD = 0.05


def start_controller(domain, model_path):
    args = [sys.executable, '-m', 'robot_id_ros.ros.nodes.force_controller', '--ros-args',
            '-p', f'model_file:={model_path}', '-p', 'mode:=hold',
            # generous for a loaded machine: the peer's messages may be late
            '-p', 'stale_timeout_s:=0.5', '-p', 'joint_state_timeout_s:=1.0',
            '-p', 'time_jump_s:=5.0']
    return subprocess.Popen(args, env=isolated_env(domain), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


class Peer(RosHarness):
    """Publishes the arm's joint states and an estimate; forges them on request."""

    def __init__(self, ctx, names, frame):
        super().__init__(step_s=0.002)
        self.names, self.frame = names, frame
        self.node = n = self.add(Node('peer', context=ctx))
        self.force, self.sigma, self.ahead_s = [0.0, 0.0, 0.0], [0.3, 0.3, 0.3], 0.0
        self.commands, self.states = [], []
        self.pub_joints = n.create_publisher(JointState, 'joint_states', 10)
        self.pub_wrench = n.create_publisher(WrenchStamped, 'wrench', 10)
        self.pub_std = n.create_publisher(WrenchStamped, 'wrench_std', 10)
        n.create_subscription(JointTrajectory, 'joint_trajectory_controller/joint_trajectory',
                              lambda m: self.commands.append(np.array(m.points[0].positions)),
                              100)
        n.create_subscription(String, 'force_controller/state',
                              lambda m: self.states.append(m.data), 100)
        self.enable = n.create_client(SetBool, 'force_controller/enable')
        self.set_params = n.create_client(SetParameters, 'force_controller/set_parameters')
        self.get_params = n.create_client(GetParameters, 'force_controller/get_parameters')
        n.create_timer(0.005, self._tick)

    def _tick(self):
        self.publish_joints(np.asarray(WORK_POSE_RAD))
        stamp = self.node.get_clock().now().nanoseconds * 1e-9 + self.ahead_s
        for pub, v in ((self.pub_wrench, self.force), (self.pub_std, self.sigma)):
            msg = WrenchStamped()
            msg.header.frame_id = self.frame
            msg.header.stamp.sec, frac = int(stamp), stamp - int(stamp)
            msg.header.stamp.nanosec = int(frac * 1e9)
            msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = map(float, v)
            pub.publish(msg)

    def publish_joints(self, q):
        msg = JointState()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.name, msg.position = list(self.names), [float(v) for v in q]
        msg.velocity = msg.effort = [0.0] * len(self.names)
        self.pub_joints.publish(msg)

    def forge(self, duration_s=0.03, counted=True):
        """Publish joint states 2 rad off on joint 1 every millisecond for ``duration_s``.

        With ``counted``, then wait until ``~/state`` counts more joint states not used.
        """
        before = self.not_used()
        for _ in range(int(round(duration_s / 0.001))):
            self.publish_joints(np.asarray(WORK_POSE_RAD) + FORGED_RAD)
            self.spin(0.001)
        if counted:
            self.wait_counted(before)

    def wait_counted(self, before):
        assert self.spin(until=lambda: self.not_used() > before, timeout=30.0), \
            self.states[-5:]

    def not_used(self):
        """Return how many joint states the node says it did not use (0 before any)."""
        found = [re.search(r'\((\d+) joint states not used\)', s) for s in self.states]
        return max([int(m.group(1)) for m in found if m], default=0)

    def set_enabled(self, on):
        return self.call(self.enable, SetBool.Request(data=on))

    def enable_when_consistent(self):
        """Enable (retried while refused: a forged state is recent); returns the refusals."""
        refusals = []
        for _ in range(60):
            resp = self.set_enabled(True)
            if resp.success:
                return refusals
            refusals.append(resp.message)
            self.spin(0.25)
        raise AssertionError(refusals[-3:])

    def wait_state(self, text, since=0, timeout=30.0):
        """Wait until a state published from index ``since`` on contains ``text``."""
        assert self.spin(until=lambda: any(text in s for s in self.states[since:]),
                         timeout=timeout), (text, self.states[-5:])

    def set_param(self, name, kind, values):
        field = {ParameterType.PARAMETER_DOUBLE_ARRAY: 'double_array_value',
                 ParameterType.PARAMETER_INTEGER_ARRAY: 'integer_array_value',
                 ParameterType.PARAMETER_STRING_ARRAY: 'string_array_value',
                 ParameterType.PARAMETER_STRING: 'string_value'}[kind]
        value = ParameterValue(type=kind, **{field: values})
        req = SetParameters.Request(parameters=[Parameter(name=name, value=value)])
        return self.call(self.set_params, req).results[0]

    def param(self, name):
        v = self.call(self.get_params, GetParameters.Request(names=[name])).values[0]
        return list(v.double_array_value) or list(v.integer_array_value)


def _steps(commands):
    q = np.array(commands)
    return np.max(np.abs(np.diff(q, axis=0))) if len(q) > 1 else 0.0


def _peer_and_node(rclpy_context, ros_domain_id):
    path = identified_model_path(SEED)
    model = load_model(path)
    proc = start_controller(ros_domain_id, path)
    peer = Peer(rclpy_context, model.joint_names, root_frame_name(model.robot.model))
    return peer, proc


def test_forged_and_bad_inputs_move_nothing(rclpy_context, ros_domain_id):
    peer, proc = _peer_and_node(rclpy_context, ros_domain_id)
    try:
        assert peer.enable.wait_for_service(timeout_sec=60.0), stop_node(proc)[-3000:]
        peer.spin(0.5)
        peer.enable_when_consistent()
        assert peer.spin(until=lambda: len(peer.commands) > 20, timeout=30.0)
        # holding: forged joint states for 30 ms
        peer.forge(counted=False)
        peer.spin(0.5)
        assert _steps(peer.commands) <= MAX_STEP_RAD, _steps(peer.commands)
        peer.wait_counted(0)
        # enabling right after a forged state is refused, and says why
        peer.forge()
        resp = peer.set_enabled(True)
        assert not resp.success and 'joint states inconsistent' in resp.message, resp.message
        # the stop path: forged states, then disabled at once
        peer.forge()
        assert peer.set_enabled(False).success
        peer.spin(0.5)
        peer.enable_when_consistent()
        # hand guiding on bad estimates: each stops it and is named on ~/state
        result = peer.set_param('mode', ParameterType.PARAMETER_STRING, 'hand_guiding')
        assert result.successful, result.reason
        peer.wait_state('running', len(peer.states) - 1)
        for change, reason in (
                (dict(force=[math.nan, 0.0, 0.0]), 'estimate not finite'),
                (dict(sigma=[0.3, math.nan, 0.3]), 'estimate sigma not finite'),
                (dict(ahead_s=3600.0), 'estimate stamped ahead of the clock'),
                (dict(frame='arm_link_5'), "estimate in frame 'arm_link_5'"),
                (dict(frame=''), 'estimate without a frame_id')):
            before = {k: getattr(peer, k) for k in change}
            for k, v in change.items():
                setattr(peer, k, v)
            peer.wait_state(reason, len(peer.states))
            since = len(peer.states)
            for k, v in before.items():
                setattr(peer, k, v)
            peer.wait_state('running', since)
            assert proc.poll() is None, stop_node(proc)[-3000:]
        q = np.array(peer.commands)
        assert np.all(np.isfinite(q))
        assert _steps(peer.commands) <= MAX_STEP_RAD, _steps(peer.commands)
        assert np.max(np.abs(q - np.asarray(WORK_POSE_RAD))) <= MAX_STEP_RAD
        assert proc.poll() is None
    finally:
        peer.close()
        out = stop_node(proc)
    assert 'Traceback' not in out, out
    assert 'joint state not used: joint 1 moved 2.000 rad' in out, out[-3000:]


def test_array_parameters_set_at_run_time(rclpy_context, ros_domain_id):
    """guide_axes and the dither arrays are writable (docs/security.md): as double arrays (what
    rclpy sends for [0.0, 1.0, 0.0]) and integer arrays (``ros2 param set ... '[0, 1, 0]'``);
    out of range or not numbers, refused with a reason."""
    peer, proc = _peer_and_node(rclpy_context, ros_domain_id)
    d, i = ParameterType.PARAMETER_DOUBLE_ARRAY, ParameterType.PARAMETER_INTEGER_ARRAY
    try:
        assert peer.set_params.wait_for_service(timeout_sec=60.0), stop_node(proc)[-3000:]
        for name, kind, values in (('guide_axes', d, [0.0, 1.0, 0.0]),
                                   ('guide_axes', i, [1, 0, 1]),
                                   ('dither_amplitude_rad', d, [0.002, 0.0, 0.0, 0.0, 0.0]),
                                   ('dither_null_rad', d, [0.0, 0.004, 0.004, 0.004, 0.0]),
                                   ('force_axis', i, [0, 0, -1])):
            result = peer.set_param(name, kind, values)
            assert result.successful, (name, values, result.reason)
            assert peer.param(name) == values
        for name, kind, values in (('guide_axes', d, [2.0, 0.0, 0.0]),
                                   ('guide_axes', ParameterType.PARAMETER_STRING_ARRAY, ['x']),
                                   ('dither_amplitude_rad', d, [0.1])):
            result = peer.set_param(name, kind, values)
            assert not result.successful and name in result.reason, (name, result.reason)
        assert peer.param('guide_axes') == [1, 0, 1]
        assert proc.poll() is None
    finally:
        peer.close()
        out = stop_node(proc)
    assert 'Traceback' not in out, out
