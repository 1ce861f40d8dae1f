# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""force_controller: hand guiding and force holding closed on the estimated wrench.

A thin layer over ``robot_id_ros.control.ForceController``: it takes the wrench_estimator's
``wrench``, ``wrench_std`` and ``contact`` topics (remap them to ``wrench_estimator/...``), the
arm's ``joint_states`` and a ``collision`` flag (std_msgs/Bool from any safety source), steps the
controller at ``control_rate_hz`` of ROS time (sim time under ``use_sim_time``) and sends each
set point through ``command_interface``. Nothing is sent until ``~/enable`` (std_srvs/SetBool)
is called with true; false stops and holds. Enabling is refused (success false, the reason in
the message) while the joint states are absent, stale or inconsistent. The mode and the force /
admittance settings change at run time (``ros2 param set /force_controller mode
hand_guiding``); a mode change ramps. ``~/state`` (std_msgs/String) is 'running', 'stopping:
REASON', 'stopped: REASON', 'disabled' or 'disabled: REASON', followed by '(N joint states not
used)' once a joint state was rejected; a stop's reason is also logged (throttled). On
shutdown the controller stops and, while it still can, sends a last hold set point.

Nothing received is trusted as it is (``robot_id_ros.control.input_checks``): a joint state
that jumped farther than the drives can move is not used and is counted (logged with the
count), an estimate that is not finite, stale, stamped ahead of the clock or not in
``wrench_frame_id`` stops and holds, and a set point that is not finite is never published.

Its topics, services and parameters are listed in docs/nodes.md (generated from the node).
"""
from __future__ import annotations

import numpy as np
from geometry_msgs.msg import WrenchStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, String
from std_srvs.srv import SetBool
from trajectory_msgs.msg import JointTrajectory

from robot_id_ros.control import ControllerConfig, ForceController, ForceInput
from robot_id_ros.errors import InputError
from robot_id_ros.io.joint_state import JointIndexer, JointStateError
from robot_id_ros.io.model_file import load_model
from robot_id_ros.ros import parameter_tables as tables
from robot_id_ros.ros.command_adapters import import_brics, joint_positions_msg
from robot_id_ros.ros.conversions import stamp_ns, trajectory_msg
from robot_id_ros.ros.main import run_node
from robot_id_ros.ros.msg_helpers import draining_subscription
from robot_id_ros.ros.node_parameters import (declare_table, parameter_check, require,
                                              settings_from_params, string_list)

LOG_EVERY_S = 2.0       # the shortest interval between two log lines of one kind


def _vector(w):
    return np.array([w.force.x, w.force.y, w.force.z])


def _number_list(name, value):
    """Return a number-array parameter value as a list of floats (raises ValueError)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, '__len__'):
        raise ValueError(f'{name} must be a list of numbers, got {value!r}')
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value):
        raise ValueError(f'{name} must be a list of numbers, got {list(value)!r}')
    return [float(v) for v in value]


class ForceControllerNode(Node):
    """The force controller node (see the module doc)."""

    def __init__(self, node_name='force_controller', **kwargs):
        super().__init__(node_name, **kwargs)
        p = declare_table(self, tables.force_controller_parameters())
        require(p, 'model_file', 'a model file from robot-id identify')
        if p['command_interface'] not in tables.FORCE_CONTROLLER_INTERFACES:
            raise InputError(f"command_interface {p['command_interface']!r} must be one of "
                             f'{tables.FORCE_CONTROLLER_INTERFACES}', 'parameter')
        self.model = load_model(p['model_file'], urdf_path=p['urdf_path'] or None,
                                joint_names=string_list(p['joint_names']) or None)
        with parameter_check():
            self.ctl = ForceController(self.model.robot, self._config(p),
                                       p['wrench_frame_id'] or None)
        self.names = list(self.model.joint_names)
        self.indexer = JointIndexer(self.names, notice=self.get_logger().warning)
        self.force = self.std = None      # (stamp ns, (3,), frame_id) of the newest messages
        self.contact = self.collision = False
        self._make_output(p)
        best_effort = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)
        # the streams are drained per executor pass, so the control step reads the newest
        # sample, not the oldest of a queue the executor has fallen behind on
        draining_subscription(self, JointState, 'joint_states', self._on_joint_state,
                              best_effort)
        draining_subscription(self, WrenchStamped, 'wrench', self._on_wrench, 10)
        draining_subscription(self, WrenchStamped, 'wrench_std', self._on_std, 10)
        self.create_subscription(Bool, 'contact', self._on_contact, 10)
        self.create_subscription(Bool, 'collision', self._on_collision, 10)
        self.pub_state = self.create_publisher(String, '~/state', 10)
        self.create_service(SetBool, '~/enable', self._on_enable)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.create_timer(1.0 / float(p['control_rate_hz']), self._on_timer)
        self._last_state = None
        self.get_logger().info(f'force_controller: {len(self.names)} joints, mode '
                               f"{self.ctl.mode}, {p['command_interface']}; disabled until "
                               '~/enable')

    @staticmethod
    def _config(values, base=None) -> ControllerConfig:
        plain = {k: (_number_list(k, v) if k in tables.FORCE_CONTROLLER_ARRAYS else v)
                 for k, v in values.items()}
        return settings_from_params(ControllerConfig, plain, base)

    def _make_output(self, p):
        self.interface = p['command_interface']
        if self.interface == 'brics_position':
            self.brics = import_brics()
            self.pub_cmd = self.create_publisher(self.brics[0], p['position_command_topic'], 10)
        else:
            self.pub_cmd = self.create_publisher(JointTrajectory, p['command_topic'], 10)

    def _now_s(self):
        return self.get_clock().now().nanoseconds * 1e-9

    # --- inputs ----------------------------------------------------------------------------
    def _on_joint_state(self, msg):
        try:
            q = self.indexer.convert(msg.name, msg.position, msg.velocity, msg.effort).q
        except JointStateError as exc:
            self.get_logger().warning(f'joint state not used: {exc}', throttle_duration_sec=5.0)
            return
        now = self._now_s()
        problem = self.ctl.joints.offer(q, stamp_ns(msg.header.stamp) * 1e-9,
                                        now if now > 0.0 else None)   # 0: no clock yet
        if problem is not None:
            self.get_logger().warning(
                f'joint state not used: {problem} ({self.ctl.joints.rejected} not used so far)',
                throttle_duration_sec=LOG_EVERY_S)

    def _on_wrench(self, msg):
        self.force = (stamp_ns(msg.header.stamp), _vector(msg.wrench), msg.header.frame_id)

    def _on_std(self, msg):
        self.std = (stamp_ns(msg.header.stamp), _vector(msg.wrench), msg.header.frame_id)

    def _on_contact(self, msg):
        self.contact = bool(msg.data)

    def _on_collision(self, msg):
        self.collision = self.collision or bool(msg.data)    # cleared by ~/enable

    def _input(self):
        """Return the ForceInput of the newest wrench and its std (None before both)."""
        if self.force is None or self.std is None:
            return None
        stamp, force, frame = self.force
        # the frame of whichever of the two is not in the expected one (both are checked)
        frame = self.std[2] if frame == self.ctl.frame_id else frame
        flag = self.collision or (self.contact and self.ctl.config.estimator_collision)
        return ForceInput(stamp * 1e-9, force, self.std[1], flag, frame)

    # --- services and parameters --------------------------------------------------------------
    def _on_enable(self, request, response):
        now = self._now_s()
        refused = self.ctl.enable_problem(now) if request.data else None
        if refused is not None:
            response.success = False
            response.message = f'not enabled: {refused}'
            self.get_logger().warning(response.message)
            return response
        if request.data:
            self.collision = False
        self.ctl.set_enabled(request.data, now)
        response.success = True
        response.message = (f"enabled in mode {self.ctl.mode} at {now:.3f} s" if request.data
                            else f'disabled at {now:.3f} s: stopping and holding')
        self.get_logger().info(response.message)
        return response

    def _on_set_parameters(self, params):
        # array values arrive as array.array (or, typed dynamically, as any type)
        values = {p.name: p.value for p in params}
        try:
            config = self._config(values, self.ctl.config)
        except (ValueError, TypeError) as exc:
            return SetParametersResult(successful=False, reason=str(exc))
        self.ctl.update_config(config, self._now_s())
        return SetParametersResult(successful=True)

    # --- the control step ------------------------------------------------------------------
    def _on_timer(self):
        joints = self.ctl.joints
        if joints.q is None:
            return
        now = self._now_s()
        cmd = self.ctl.step(now, joints.q, self._input(), joints.stamp_s)
        if cmd.send:
            self._send(cmd, now)
        state = cmd.state + (f': {cmd.reason}' if cmd.reason not in ('', 'disabled') else '')
        if joints.rejected:
            state += f' ({joints.rejected} joint states not used)'
        if state != self._last_state:
            self._last_state = state
            self.pub_state.publish(String(data=state))
            if cmd.reason not in ('', 'disabled'):
                self.get_logger().warning(f'force_controller {state}',
                                          throttle_duration_sec=LOG_EVERY_S)

    def _send(self, cmd, now_s):
        if not (np.all(np.isfinite(cmd.q_rad)) and np.all(np.isfinite(cmd.qd_rad_s))):
            self.get_logger().error('set point not finite: not sent',
                                    throttle_duration_sec=LOG_EVERY_S)
            return
        if self.interface == 'brics_position':
            self.pub_cmd.publish(joint_positions_msg(self.brics, self.names, cmd.q_rad,
                                                     int(cmd.t_s * 1e9)))
        else:
            lead = max(cmd.t_s - now_s, 1e-3)
            self.pub_cmd.publish(trajectory_msg(self.names, [lead], [cmd.q_rad], [cmd.qd_rad_s]))

    def stop(self):
        """Stop for good and send a last hold set point (``run_node`` calls it at shutdown).

        After a signal has already shut the context down nothing can be sent: the driver then
        holds the last set point sent, one control period ahead of the arm.
        """
        self.ctl.shutdown()
        joints = self.ctl.joints
        if joints.q is not None and self.ctl.q_ref is not None and self.context.ok():
            cmd = self.ctl.step(self._now_s(), joints.q, self._input(), joints.stamp_s)
            self._send(cmd, self._now_s())


def main(args=None):
    return run_node(ForceControllerNode, 'force_controller', args)


if __name__ == '__main__':
    raise SystemExit(main())
