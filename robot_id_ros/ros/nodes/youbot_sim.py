# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""youbot_sim: the simulated youBot arm driver (a thin rclpy wrapper of ``sim.SimDriver``).

Like the real driver it publishes joint_states and follows JointTrajectory commands, and, when
their message packages are installed, the real youBot driver's FollowJointTrajectory action
``arm_controller/follow_joint_trajectory`` and brics ``arm_controller/position_command``
(see ``ros.sim_command_servers``). It offers the driver's std_srvs/Empty services
``switchOnMotors``, ``switchOffMotors`` (no motion, zero effort, commands refused) and
``calibrate`` (moves to the calibrated pose). Every name is relative: started in the namespace
``arm_1`` (config/youbot_driver_twin.yaml, launch/youbot_bringup.launch.py) the simulator offers
the real driver's names and, with that file's settings, its joint state layout. It is the
clock source (/clock and every stamp are simulation time, a steady wall timer scaled by
``real_time_factor``). The test-only ``sim/...`` topics and services apply a wrench or a payload
and publish the ground truth (frame rules: ``robot_id_ros.sim.driver.wrench_target``).
"""
from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Inertia, WrenchStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from std_srvs.srv import Empty, Trigger
from trajectory_msgs.msg import JointTrajectory

from robot_id_ros.errors import InputError
from robot_id_ros.ros import parameter_tables as tables
from robot_id_ros.ros.conversions import stamp_ns, time_msg, wrench_msg, wrench_values
from robot_id_ros.ros.diagnostics import diagnostic_array
from robot_id_ros.ros.main import run_node
from robot_id_ros.ros.msg_helpers import joint_state_msg, trajectory_points, trigger_handler
from robot_id_ros.ros.node_parameters import OutputGuard, declare_table, settings_from_params
from robot_id_ros.ros.sim_command_servers import (FollowJointTrajectoryServer,
                                                  InterfacePackageMissing,
                                                  position_command_subscription)
from robot_id_ros.ros.refused_writes import RefusedWrites
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.driver import SimDriver

# the real youBot driver's command interfaces, relative to the node's namespace (arm_1 on a robot)
FOLLOW_JOINT_TRAJECTORY_ACTION = 'arm_controller/follow_joint_trajectory'
POSITION_COMMAND_TOPIC = 'arm_controller/position_command'
# joint states (and ground truth) the writer keeps for reliable readers: 5 s at 200 Hz, so a
# reader starved of CPU for a while still gets every sample
JOINT_STATE_WRITER_DEPTH = 1000


class YoubotSimNode(Node):
    """The simulated youBot driver node."""

    def __init__(self, node_name='youbot_sim', **kwargs):
        super().__init__(node_name, **kwargs)
        p = declare_table(self, tables.youbot_sim_parameters())
        if self.get_parameter('use_sim_time').value:
            self.get_logger().error('use_sim_time ignored: youbot_sim is the clock source')
        cfg = settings_from_params(SimConfig, p)
        self.driver = SimDriver(cfg, name=self.get_name(), **{
            k: p[k] for k in tables.YOUBOT_SIM_DRIVER_SETTINGS})
        self.arm = arm = self.driver.arm
        # a reliable reader misses what the writer's history dropped before the reader
        # acknowledged it (a reader starved of CPU during a catch-up burst)
        qos = QoSProfile(depth=JOINT_STATE_WRITER_DEPTH, reliability=ReliabilityPolicy.RELIABLE)
        self.pub_js = self.create_publisher(JointState, p['joint_states_topic'], qos)
        self.pub_clock = p['publish_clock'] and self.create_publisher(ClockMsg, '/clock', 10)
        self.pub_diag = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        truth = ((WrenchStamped, 'sim/true_wrench'), (WrenchStamped, 'sim/true_wrench_tool'),
                 (JointState, 'sim/true_external_joint_torques'))
        self.pub_truth = p['publish_ground_truth'] and [self.create_publisher(t, n, qos)
                                                        for t, n in truth]
        self.create_subscription(JointTrajectory, p['command_topic'], self._on_trajectory, 10)
        self.follow_joint_trajectory = self._driver_interfaces()
        for name, call in (('switchOnMotors', lambda: self.driver.switch_motors(True)),
                           ('switchOffMotors', lambda: self.driver.switch_motors(False)),
                           ('calibrate', self.driver.calibrate)):
            self.create_service(Empty, name, self._empty_handler(call))
        self.create_subscription(WrenchStamped, 'sim/wrench', self._on_wrench, 10)
        self.create_subscription(Inertia, 'sim/payload', self._on_payload, 10)
        for name in ('clear_wrench', 'clear_payload'):
            handler = trigger_handler(getattr(self.driver, name))
            self.create_service(Trigger, f'sim/{name}', handler)
        self._truth_out = OutputGuard(p['true_parameters_file'], 'true_parameters_file')
        self.create_service(Trigger, 'sim/write_true_parameters', trigger_handler(
            self._write_true_parameters, self._log_written))
        self.published_joint_states = 0
        self.refused = RefusedWrites(self, self._on_refused)
        self._anchor = self.driver.realtime.anchor     # re-anchor the simulation time (benchmark)
        self._steady = Clock(clock_type=ClockType.STEADY_TIME)
        self._timer = None
        self._make_timer()
        status = self.driver.status
        self.create_timer(1.0, lambda: self._diagnostics(*status()), clock=self._steady)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        if self.driver.true_parameters_file:     # at start, a failure to write stops the node
            self._log_written(self.driver.write_true_file())
        self._publish(arm.measure())
        self.get_logger().info(f'youbot_sim: seed {cfg.seed}, {p["publish_rate_hz"]:g} Hz on '
                               f'{self.pub_js.topic_name}, x{p["real_time_factor"]:g} real time')

    def _driver_interfaces(self):
        """Offer the real driver's action and position command where their packages exist."""
        server, self._take_setpoints = None, None
        try:
            server = FollowJointTrajectoryServer(self, self.driver, FOLLOW_JOINT_TRAJECTORY_ACTION)
        except InterfacePackageMissing as exc:
            self.get_logger().info(f'no {FOLLOW_JOINT_TRAJECTORY_ACTION} action: {exc}')
        try:
            self._take_setpoints = position_command_subscription(
                self, self.driver, POSITION_COMMAND_TOPIC, self._on_setpoint_rejected)
        except InterfacePackageMissing as exc:
            self.get_logger().info(f'no {POSITION_COMMAND_TOPIC} topic: {exc}')
        return server

    def _empty_handler(self, call):
        """Return a std_srvs/Empty handler (the real driver's type) running ``call``."""
        def handle(_request, response):
            self._report(*call())
            return response
        return handle

    def _on_setpoint_rejected(self, text):
        self.get_logger().warning(text, throttle_duration_sec=1.0)     # a stream: once a second
        self._diagnostics('warn', text, what='input')

    def _make_timer(self):
        if self._timer is not None:
            self.destroy_timer(self._timer)
        self._timer = self.create_timer(self.driver.realtime.timer_period_s, self._tick,
                                        clock=self._steady)

    def _tick(self):
        problem = self.driver.run(self._publish, self._take_setpoints)
        if problem is not None:
            self._diagnostics('warn', problem, what='input')

    def _publish(self, m):
        stamp = time_msg(self.driver.realtime.stamp_ns(m.t_s))
        if self._write(self.pub_js, joint_state_msg(stamp, *self.driver.joint_state(m))):
            self.published_joint_states += 1
        if self.follow_joint_trajectory is not None:
            self.follow_joint_trajectory.tick(m)
        if self.pub_clock:
            self._write(self.pub_clock, ClockMsg(clock=stamp))
        if self.pub_truth:
            base, tool, tau = self.pub_truth
            self._write(base, wrench_msg(m.true_wrench_base, self.driver.root_frame, stamp))
            self._write(tool, wrench_msg(m.true_wrench_tool, self.driver.tool_frame, stamp))
            self._write(tau, joint_state_msg(stamp, self.arm.joint_names,
                                             effort=m.true_external_torque_nm))

    def _write(self, publisher, msg) -> bool:
        """Publish ``msg``; a write the middleware refuses is counted and reported, not fatal."""
        return self.refused.write(publisher.topic_name, publisher.publish, msg)

    def _on_refused(self, text):
        self.get_logger().error(text, throttle_duration_sec=1.0)
        self.driver.last_problem = (self.driver.clock(), text)

    def _diagnostics(self, level, message, values=(), what='simulation'):
        stamp = time_msg(self.driver.realtime.stamp_ns(self.arm.t))
        self.pub_diag.publish(diagnostic_array(stamp, f'{self.get_name()}: {what}', 'youbot_sim',
                                               level, message, values))

    def _report(self, done, text):
        """Log what an input did; a rejected input is an error and a diagnostics warning."""
        if done:
            self.get_logger().info(text)
        else:
            self.get_logger().error(text)
            self._diagnostics('warn', text, what='input')

    def _on_trajectory(self, msg: JointTrajectory):
        self._report(*self.driver.command(msg.joint_names, trajectory_points(msg),
                                          stamp_ns(msg.header.stamp)))

    def _on_wrench(self, msg: WrenchStamped):
        self._report(*self.driver.apply_wrench(msg.header.frame_id, wrench_values(msg.wrench)))

    def _on_payload(self, msg: Inertia):
        com, inertia = [msg.com.x, msg.com.y, msg.com.z], [msg.ixx, msg.ixy, msg.iyy, msg.ixz,
                                                           msg.iyz, msg.izz]
        self._report(*self.driver.attach_payload(msg.m, com, inertia))

    def _write_true_parameters(self):
        """Write the configured true-parameters file (never through a link out of its folder)."""
        try:
            self._truth_out.target()
        except InputError as exc:
            return False, str(exc)
        return self.driver.write_true_parameters()

    def _log_written(self, path):
        self.get_logger().info(f'true parameters written to {path}')

    def _on_set_parameters(self, params):
        new = {prm.name: prm.value for prm in params}
        reason = self.driver.set_parameters(new)
        if reason is None and ('real_time_factor' in new or 'publish_rate_hz' in new):
            self._make_timer()
        return SetParametersResult(successful=reason is None, reason=reason or '')


def main(args=None):
    return run_node(YoubotSimNode, 'youbot_sim', args)


if __name__ == '__main__':
    raise SystemExit(main())
