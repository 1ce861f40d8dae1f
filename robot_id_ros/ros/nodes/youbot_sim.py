"""youbot_sim: the simulated youBot arm driver (thin rclpy wrapper of robot_id_ros.sim.SimulatedArm).

Interface (names relative to the node's namespace):

out  joint_states                       sensor_msgs/JointState  5 arm joints + 2 gripper fingers
                                                                 (finger effort 0), effort in Nm
                                                                 (or A with effort_unit: current)
     /clock                             rosgraph_msgs/Clock     the simulation time
     /diagnostics                       diagnostic_msgs/DiagnosticArray
in   joint_trajectory_controller/joint_trajectory  trajectory_msgs/JointTrajectory (command_topic)
test-only (ground truth and disturbances; a real driver has none of these):
in   sim/wrench                         geometry_msgs/WrenchStamped  external wrench on the arm
                                        (see ``_on_wrench`` for the frame rules); all zero clears
     sim/payload                        geometry_msgs/Inertia   payload in the tool frame; m = 0 detaches
out  sim/true_wrench                    geometry_msgs/WrenchStamped  applied wrench at the tool
                                        frame origin, base axes (frame_id = root link)
     sim/true_wrench_tool               geometry_msgs/WrenchStamped  the same in tool axes
     sim/true_external_joint_torques    sensor_msgs/JointState  effort = J^T F (Nm)
srv  sim/clear_wrench, sim/clear_payload, sim/write_true_parameters   std_srvs/Trigger

The node is the clock source: it never uses sim time itself; its loop is driven by a steady wall
timer scaled by ``real_time_factor``.  Joint states, truth topics and /clock are stamped with the
simulation time.
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np
import rclpy
from builtin_interfaces.msg import Time as TimeMsg
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Inertia, WrenchStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.clock import Clock, ClockType
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory

from robot_id_ros.ros.params import EFFORT_UNITS, desc, float_desc, int_desc
from robot_id_ros.sim.config import YOUBOT_GRIPPER_JOINTS, SimConfig, SimConfigError
from robot_id_ros.sim.trajectory import TrajectoryError
from robot_id_ros.sim.youbot_arm import SimInputError, SimulatedArm

DEFAULT_COMMAND_TOPIC = 'joint_trajectory_controller/joint_trajectory'
_DEFAULTS = SimConfig()


# name: (default, descriptor); the read-only ones shape the simulated robot and are fixed at start.
def _parameter_table():
    d = _DEFAULTS
    return {
        'seed': (d.seed, int_desc(
            'seed of the true parameter perturbation and of the sensor noise', 0, 2 ** 31 - 1, True)),
        'physics_rate_hz': (d.physics_rate_hz, float_desc(
            'physics integration rate (semi-implicit Euler), Hz', 200.0, 20000.0, True)),
        'publish_rate_hz': (50.0, float_desc(
            'joint_states publishing rate in simulation time, Hz (the real driver: 50)', 1.0, 1000.0)),
        'real_time_factor': (1.0, float_desc(
            'simulation seconds per wall second (10: ten times faster than real time)', 0.01, 100.0)),
        'effort_unit': ('torque', desc("joint_states effort: 'torque' (Nm, = current*Kt*N like the "
                                         "driver) or 'current' (motor current, A)")),
        'current_noise_a': (d.current_noise_a, float_desc(
            'white noise on the motor current, standard deviation in A', 0.0, 1.0)),
        'command_topic': (DEFAULT_COMMAND_TOPIC, desc(
            'topic of trajectory_msgs/JointTrajectory commands', True)),
        'joint_states_topic': ('joint_states', desc('topic of the published joint states', True)),
        'publish_clock': (True, desc('publish /clock (the simulation time)', True)),
        'publish_ground_truth': (True, desc(
            'publish the test-only ground truth sim/true_wrench, sim/true_wrench_tool and '
            'sim/true_external_joint_torques with every joint state', True)),
        'start_time_sec': (-1.0, float_desc(
            'simulation time at start, s since the epoch; -1: the wall time at start', -1.0, 4.0e9, True)),
        'initial_positions': (list(d.initial_positions_rad), desc(
            'arm joint positions at start (rad, J1..J5); default the candle pose', True)),
        'wrench_frame': ('', desc('frame whose origin sim/wrench acts at when its frame_id is the base, '
                                   "'base' or 'tool'; '' = the tool frame", True)),
        'true_parameters_file': ('', desc(
            'YAML file for the TRUE parameters, written at start when set and on sim/write_true_parameters; '
            "'' = never written")),
        'quantize': (d.quantize, desc('quantise like the drives: encoder ticks, integer rpm, integer mA', True)),
        'coulomb_nm': (list(d.coulomb_nm), desc('true Coulomb friction in motion per joint, Nm', True)),
        'coulomb_asymmetry_bound': (d.coulomb_asymmetry_bound, float_desc(
            'max |fc+ - fc-| / fc of the true Coulomb friction (drawn per seed)', 0.0, 1.0, True)),
        'viscous_nm_s_rad': (list(d.viscous_nm_s_rad), desc('true viscous friction per joint, Nm s/rad', True)),
        'breakaway_ratio': (d.breakaway_ratio, float_desc(
            'stiction breakaway torque / Coulomb friction', 1.0, 10.0, True)),
        'stribeck_velocity_rad_s': (d.stribeck_velocity_rad_s, float_desc(
            'Stribeck velocity: friction decays from breakaway to Coulomb over this speed', 1e-4, 10.0, True)),
        'rotor_inertia_motor_kg_m2': (d.rotor_inertia_motor_kg_m2, float_desc(
            'motor rotor inertia J_m (reflected as J_m N^2), kg m^2', 0.0, 1e-3, True)),
        'mass_rel_bound': (d.mass_rel_bound, float_desc(
            'true link masses = URDF * U[1-b, 1+b]', 0.0, 0.9, True)),
        'com_abs_bound_m': (d.com_abs_bound_m, float_desc(
            'true centres of mass = URDF + U[-b, b] per coordinate, m', 0.0, 0.1, True)),
        'inertia_rel_bound': (d.inertia_rel_bound, float_desc(
            'true principal second moments = URDF * U[1-b, 1+b]', 0.0, 0.9, True)),
    }


class YoubotSimNode(Node):
    """The simulated youBot driver node."""

    def __init__(self, node_name='youbot_sim', **kwargs):
        super().__init__(node_name, **kwargs)
        table = _parameter_table()
        for name, (default, descriptor) in table.items():
            self.declare_parameter(name, default, descriptor)
        p = {name: self.get_parameter(name).value for name in table}
        if self.get_parameter('use_sim_time').value:
            self.get_logger().error('use_sim_time is true on youbot_sim, which is the clock source: ignored '
                                    '(the simulation is driven by the wall clock and real_time_factor)')
        if p['effort_unit'] not in EFFORT_UNITS:
            raise SimConfigError(f"parameter effort_unit must be 'torque' or 'current', got {p['effort_unit']!r}")
        cfg = SimConfig(
            seed=int(p['seed']), physics_rate_hz=float(p['physics_rate_hz']),
            current_noise_a=float(p['current_noise_a']), quantize=bool(p['quantize']),
            initial_positions_rad=tuple(p['initial_positions']), coulomb_nm=tuple(p['coulomb_nm']),
            coulomb_asymmetry_bound=float(p['coulomb_asymmetry_bound']),
            viscous_nm_s_rad=tuple(p['viscous_nm_s_rad']), breakaway_ratio=float(p['breakaway_ratio']),
            stribeck_velocity_rad_s=float(p['stribeck_velocity_rad_s']),
            rotor_inertia_motor_kg_m2=float(p['rotor_inertia_motor_kg_m2']),
            mass_rel_bound=float(p['mass_rel_bound']), com_abs_bound_m=float(p['com_abs_bound_m']),
            inertia_rel_bound=float(p['inertia_rel_bound']))
        try:
            self.arm = SimulatedArm(cfg)
        except SimInputError as exc:
            raise SimConfigError(f'parameter initial_positions: {exc}') from exc
        arm = self.arm
        self.root_frame = arm.model.model.frames[1].name
        self.tool_frame = arm.model.tool_frame
        wf = p['wrench_frame'] or self.tool_frame
        self._check_wrench_frame(wf)
        self.wrench_frame = wf
        self.effort_unit = p['effort_unit']
        self.real_time_factor = float(p['real_time_factor'])
        self.publish_period_s = 1.0 / float(p['publish_rate_hz'])
        self.true_parameters_file = p['true_parameters_file']
        start = float(p['start_time_sec'])
        self._start_ns = int(time.time() * 1e9) if start < 0 else int(round(start * 1e9))
        self._names = list(arm.joint_names) + list(YOUBOT_GRIPPER_JOINTS)
        self._zeros2 = [0.0, 0.0]

        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
        self.pub_js = self.create_publisher(JointState, p['joint_states_topic'], qos)
        self.pub_clock = self.create_publisher(ClockMsg, '/clock', 10) if p['publish_clock'] else None
        self.pub_diag = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.publish_truth = bool(p['publish_ground_truth'])
        if self.publish_truth:
            self.pub_true_wrench = self.create_publisher(WrenchStamped, 'sim/true_wrench', qos)
            self.pub_true_wrench_tool = self.create_publisher(WrenchStamped, 'sim/true_wrench_tool', qos)
            self.pub_true_tau = self.create_publisher(JointState, 'sim/true_external_joint_torques', qos)
        self.create_subscription(JointTrajectory, p['command_topic'], self._on_trajectory, 10)
        self.create_subscription(WrenchStamped, 'sim/wrench', self._on_wrench, 10)
        self.create_subscription(Inertia, 'sim/payload', self._on_payload, 10)
        self.create_service(Trigger, 'sim/clear_wrench', self._srv_clear_wrench)
        self.create_service(Trigger, 'sim/clear_payload', self._srv_clear_payload)
        self.create_service(Trigger, 'sim/write_true_parameters', self._srv_write_true)
        self.add_on_set_parameters_callback(self._on_set_parameters)

        self._last_problem = None     # (wall time, text)
        self.rejected_commands = 0
        self.accepted_commands = 0
        self.last_command_sim_time_s = None
        self.published_joint_states = 0
        self._pub_k = 0               # index of the next publish instant
        self._steady = Clock(clock_type=ClockType.STEADY_TIME)
        self._anchor()
        self._diag_wall = time.monotonic()
        self._diag_sim = arm.t
        self.achieved_rtf = float('nan')
        self._timer = None
        self._make_timer()
        self.create_timer(1.0, self._publish_diagnostics, clock=self._steady)
        if self.true_parameters_file:
            self._write_true(self.true_parameters_file)
        self._publish(arm.measure())
        self.get_logger().info(
            f'youbot_sim: seed {cfg.seed}, physics {cfg.physics_rate_hz:g} Hz, joint_states at '
            f'{1.0 / self.publish_period_s:g} Hz on {self.pub_js.topic_name}, commands on '
            f'{p["command_topic"]}, real-time factor {self.real_time_factor:g}')

    # --- timing ---------------------------------------------------------------------------------
    def _anchor(self):
        """Tie simulation time to wall time from now on (after a rate change or a stall)."""
        self._wall0 = time.monotonic()
        self._sim0 = self.arm.t
        self._pub_t0 = self.arm.t
        self._pub_k = 1

    def _make_timer(self):
        if self._timer is not None:
            self.destroy_timer(self._timer)
        period = min(max(self.publish_period_s / self.real_time_factor, 0.001), 0.02)
        self._timer = self.create_timer(period, self._tick, clock=self._steady)

    def _tick(self):
        arm = self.arm
        wall = time.monotonic()
        target = self._sim0 + (wall - self._wall0) * self.real_time_factor
        deadline = wall + 0.05   # stay responsive to commands
        while True:
            t_pub = self._pub_t0 + self._pub_k * self.publish_period_s
            if t_pub > target + 1e-12:
                break
            arm.advance_to(t_pub)
            self._publish(arm.measure())
            self._pub_k += 1
            if time.monotonic() > deadline:
                break
        lag = target - arm.t
        if lag > max(1.0, 2 * self.publish_period_s) * self.real_time_factor:
            # cannot keep up: drop the backlog instead of racing to catch up
            self._note_problem(f'simulation fell {lag:.2f} s behind the requested real-time factor '
                               f'{self.real_time_factor:g}; re-anchored', log=False)
            self._anchor()

    def stamp(self, t_s) -> TimeMsg:
        ns = self._start_ns + int(round(t_s * 1e9))
        return TimeMsg(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)

    # --- publishing -------------------------------------------------------------------------------
    def _publish(self, m):
        stamp = self.stamp(m.t_s)
        js = JointState()
        js.header.stamp = stamp
        js.name = self._names
        js.position = m.position_rad.tolist() + self._zeros2
        js.velocity = m.velocity_rad_s.tolist() + self._zeros2
        eff = m.effort_nm if self.effort_unit == 'torque' else m.current_a
        js.effort = eff.tolist() + self._zeros2
        self.pub_js.publish(js)
        self.published_joint_states += 1
        if self.pub_clock is not None:
            self.pub_clock.publish(ClockMsg(clock=stamp))
        if not self.publish_truth:
            return
        wb = WrenchStamped()
        wb.header.stamp = stamp
        wb.header.frame_id = self.root_frame
        _fill_wrench(wb, m.true_wrench_base)
        self.pub_true_wrench.publish(wb)
        wt = WrenchStamped()
        wt.header.stamp = stamp
        wt.header.frame_id = self.tool_frame
        _fill_wrench(wt, m.true_wrench_tool)
        self.pub_true_wrench_tool.publish(wt)
        te = JointState()
        te.header.stamp = stamp
        te.name = list(self.arm.joint_names)
        te.effort = m.true_external_torque_nm.tolist()
        self.pub_true_tau.publish(te)

    def _note_problem(self, text, log=True, level=DiagnosticStatus.WARN):
        self._last_problem = (time.monotonic(), text)
        if log:
            self.get_logger().error(text)
        st = DiagnosticStatus(level=level, name=f'{self.get_name()}: input', hardware_id='youbot_sim',
                              message=text)
        arr = DiagnosticArray(status=[st])
        arr.header.stamp = self.stamp(self.arm.t)
        self.pub_diag.publish(arr)

    def _publish_diagnostics(self):
        wall = time.monotonic()
        arm = self.arm
        if wall > self._diag_wall:
            self.achieved_rtf = (arm.t - self._diag_sim) / (wall - self._diag_wall)
        self._diag_wall, self._diag_sim = wall, arm.t
        level, msg = DiagnosticStatus.OK, 'running'
        if self.achieved_rtf < 0.9 * self.real_time_factor:
            level, msg = DiagnosticStatus.WARN, (f'achieved real-time factor {self.achieved_rtf:.2f} is below the '
                                                 f'requested {self.real_time_factor:g}')
        recent = self._last_problem is not None and wall - self._last_problem[0] < 10.0
        if recent:
            level, msg = DiagnosticStatus.WARN, self._last_problem[1]
        kv = {
            'sim_time_s': f'{arm.t:.3f}',
            'real_time_factor_requested': f'{self.real_time_factor:g}',
            'real_time_factor_achieved': f'{self.achieved_rtf:.3f}',
            'trajectory_active': str(arm.trajectory_active),
            'joints_at_rest': ','.join(n for n, s in zip(arm.joint_names, arm.dir == 0) if s),
            'wrench_applied': str(bool(np.any(arm.tau_ext != 0))),
            'payload_kg': '0' if arm.payload is None else f'{arm.payload[0]:g}',
            'accepted_commands': str(self.accepted_commands),
            'rejected_commands': str(self.rejected_commands),
            'last_problem': '' if self._last_problem is None else self._last_problem[1],
        }
        st = DiagnosticStatus(level=level, name=f'{self.get_name()}: simulation', hardware_id='youbot_sim',
                              message=msg, values=[KeyValue(key=k, value=v) for k, v in kv.items()])
        arr = DiagnosticArray(status=[st])
        arr.header.stamp = self.stamp(arm.t)
        self.pub_diag.publish(arr)

    # --- inputs ---------------------------------------------------------------------------------
    def _on_trajectory(self, msg: JointTrajectory):
        try:
            points = [(p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec,
                       list(p.positions), list(p.velocities), list(p.accelerations)) for p in msg.points]
            start = None
            st_ns = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
            if st_ns != 0:
                start = (st_ns - self._start_ns) * 1e-9
            plan = self.arm.set_trajectory(list(msg.joint_names), points, start)
        except TrajectoryError as exc:
            self.rejected_commands += 1
            self._note_problem(f'rejected trajectory on {self.get_name()}: {exc}; the arm keeps its current command')
            return
        self.accepted_commands += 1
        self.last_command_sim_time_s = self.arm.t
        self.get_logger().info(f'trajectory accepted: {len(msg.points)} point(s) for '
                               f'{", ".join(msg.joint_names)}, {plan.duration_s:.3f} s')

    def _check_wrench_frame(self, frame):
        pm = self.arm.model.model
        if not pm.existFrame(frame):
            raise SimConfigError(f'wrench frame {frame!r} is not a frame of the model')
        if pm.frames[pm.getFrameId(frame)].parentJoint != pm.njoints - 1:
            raise SimConfigError(f'wrench frame {frame!r} is not on the last link')

    def _on_wrench(self, msg: WrenchStamped):
        """frame_id '' / 'base' / root link: at ``wrench_frame``, base axes; 'tool': at ``wrench_frame``,
        its own axes; another frame of the last link: at that frame, its own axes."""
        w = [msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z,
             msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z]
        fid = msg.header.frame_id
        try:
            if fid in ('', 'base', self.root_frame):
                frame, axes = self.wrench_frame, 'base'
            elif fid == 'tool':
                frame, axes = self.wrench_frame, 'tool'
            else:
                try:
                    self._check_wrench_frame(fid)
                except SimConfigError as exc:
                    raise SimInputError(f'{exc}; use the base ({self.root_frame}), "tool" or a frame '
                                        f'of the last link such as {self.tool_frame}') from None
                frame, axes = fid, 'tool'
            if not all(math.isfinite(v) for v in w):
                raise SimInputError(f'wrench has a non-finite value: {w}')
            if max(abs(v) for v in w[:3]) > 200.0 or max(abs(v) for v in w[3:]) > 50.0:
                raise SimInputError(f'wrench {w} is beyond the simulation\'s range (|f| <= 200 N, |t| <= 50 Nm)')
            self.arm.apply_wrench(w, frame, axes)
        except SimInputError as exc:
            self._note_problem(f'rejected sim/wrench: {exc}')
            return
        self.get_logger().info(f'sim/wrench: {w} at {frame} ({axes} axes)')

    def _on_payload(self, msg: Inertia):
        I = [msg.ixx, msg.ixy, msg.iyy, msg.ixz, msg.iyz, msg.izz]
        try:
            self.arm.attach_payload(msg.m, [msg.com.x, msg.com.y, msg.com.z], I)
        except SimInputError as exc:
            self._note_problem(f'rejected sim/payload: {exc}')
            return
        self.get_logger().info(f'sim/payload: {msg.m:g} kg at {[msg.com.x, msg.com.y, msg.com.z]} (tool frame)')

    def _srv_clear_wrench(self, req, resp):
        self.arm.clear_wrench()
        resp.success, resp.message = True, 'external wrench cleared'
        return resp

    def _srv_clear_payload(self, req, resp):
        self.arm.detach_payload()
        resp.success, resp.message = True, 'payload detached'
        return resp

    def _write_true(self, path):
        p = self.arm.write_true_parameters(path)
        self.get_logger().info(f'true parameters written to {p}')
        return p

    def _srv_write_true(self, req, resp):
        if not self.true_parameters_file:
            resp.success = False
            resp.message = 'parameter true_parameters_file is empty: set it to the path to write'
            return resp
        try:
            resp.message = str(self._write_true(self.true_parameters_file))
            resp.success = True
        except OSError as exc:
            resp.success, resp.message = False, f'cannot write {self.true_parameters_file}: {exc}'
        return resp

    def _on_set_parameters(self, params):
        for prm in params:
            if prm.name == 'effort_unit' and prm.value not in EFFORT_UNITS:
                return SetParametersResult(successful=False,
                                           reason=f"effort_unit must be 'torque' or 'current', got {prm.value!r}")
        for prm in params:
            if prm.name == 'real_time_factor':
                self.real_time_factor = float(prm.value)
                self._anchor_keep_phase()
            elif prm.name == 'publish_rate_hz':
                self.publish_period_s = 1.0 / float(prm.value)
                self._anchor_keep_phase()
            elif prm.name == 'effort_unit':
                self.effort_unit = prm.value
            elif prm.name == 'current_noise_a':
                self.arm.drives.current_noise_a = float(prm.value)
            elif prm.name == 'true_parameters_file':
                self.true_parameters_file = prm.value
        return SetParametersResult(successful=True)

    def _anchor_keep_phase(self):
        self._anchor()
        if self._timer is not None:
            self._make_timer()


def _fill_wrench(msg, w):
    f, t = msg.wrench.force, msg.wrench.torque
    f.x, f.y, f.z, t.x, t.y, t.z = (float(v) for v in w)


def main(args=None):
    rclpy.init(args=args)
    node = None
    try:
        node = YoubotSimNode()
        rclpy.spin(node)
    except (SimConfigError, ParameterException) as exc:
        print(f'youbot_sim: {exc}', file=sys.stderr)
        rclpy.try_shutdown()
        sys.exit(2)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:  # noqa: BLE001 - a signal shut the context down while spinning: a clean stop
        if rclpy.ok():
            raise
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()


if __name__ == '__main__':
    main()


__all__ = ['YoubotSimNode', 'main']
