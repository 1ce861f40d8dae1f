"""wrench_estimator: real-time external wrench estimation from joint states (no F/T sensor).

Interface (names relative to the node's namespace, ``~/`` = node-private):

in   joint_states              sensor_msgs/JointState   best-effort subscription (accepts reliable
                                                        and best-effort publishers); effort in Nm
                                                        (or A with effort_unit: current)
out  ~/wrench                  geometry_msgs/WrenchStamped  wrench applied to the tool at the tool
                                                        frame origin; frame_id = URDF root (frame:
                                                        base) or the tool frame (frame: tool)
     ~/wrench_std              geometry_msgs/WrenchStamped  1-sigma of each component (the
                                                        covariance diagonal; full matrix in diagnostics)
     ~/external_joint_torques  sensor_msgs/JointState   position = q, effort = tau_ext (Nm)
     ~/contact                 std_msgs/Bool            contact or collision (hysteresis)
     /diagnostics              diagnostic_msgs/DiagnosticArray  rate, latency, sigma_min, stale
                                                        input, dropped and rejected samples
srv  ~/tare                    std_srvs/Trigger         zero the current bias
     ~/reset                   std_srvs/Trigger         restart the observer (keeps the tare)

Every output carries its input sample's stamp. A sample that cannot be used (array lengths, NaN,
missing joints or effort, duplicate or older stamp) publishes nothing, logs a throttled warning and
shows in diagnostics; a stamp jumping back (a looped bag) or a long gap resets the observer.
"""
from __future__ import annotations

import math
import sys
import time
from collections import deque

import numpy as np
import rclpy
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import WrenchStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.clock import Clock, ClockType
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import Trigger

from robot_id_ros.estimate import (CONTACT_STATE_NAMES, EstimatorConfig, EstimatorInputError,
                                          WrenchEstimator, effort_scale)
from robot_id_ros.io.joint_state import JointIndexer, JointStateError
from robot_id_ros.io.model_file import ModelFileError, load_model
from robot_id_ros.ros.params import NO_STRINGS, desc, float_desc, refuse_renamed, string_list

_D = EstimatorConfig()


# name: (default, descriptor); every parameter is read-only (fixed at start) except the payload ones
def _parameter_table():
    return {
        'model_file': ('', desc('model file from robot-id identify (required)', True)),
        'urdf_path': ('', desc("the robot's URDF: refuse a model made for another URDF ('' = no check)", True)),
        'joint_names': (list(NO_STRINGS), desc("the robot's joints, base to tip: refuse a model made for another "
                                               "joint set ([''] = no check)", True)),
        'method': (_D.method, desc("'momentum' (generalized momentum observer) or 'direct' (residual with a "
                                   "causal filtered differentiator)", True)),
        'frame': (_D.frame, desc("express the wrench in 'base' (URDF root) or 'tool' axes", True)),
        'wrench_mode': (_D.wrench_mode, desc("'auto' (full wrench for >= 6 joints, force at the tool point for "
                                             "fewer), 'force', 'full' or 'torque'", True)),
        'observer_gain_hz': (_D.observer_gain_hz, float_desc('momentum observer bandwidth, Hz', 0.1, 500.0, True)),
        'direct_filter_hz': (_D.direct_filter_hz, float_desc('direct method differentiator bandwidth, Hz',
                                                             0.1, 500.0, True)),
        'stiction_velocity_rad_s': (_D.stiction_velocity_rad_s, float_desc(
            'below this |velocity| (rad/s) friction is unknown within its bounds', 0.0, 1.0, True)),
        'sigma_guard': (_D.sigma_guard, float_desc(
            'smallest singular value of the mapped J^T (m for force) below which damping starts', 1e-6, 10.0, True)),
        'damping': (_D.damping, float_desc('damping of the least squares at a singularity', 0.0, 10.0, True)),
        'band_weighting': (_D.band_weighting, desc(
            'weight each joint in the wrench least squares by 1 / (residual variance + stiction band^2 / 3): '
            'joints inside their stiction band (friction unknown) count little', True)),
        'stiction_mode': (_D.stiction_mode, desc(
            "what a resting joint (friction unknown within its stiction band) gives the wrench: 'none' its "
            "external torque as is; 'deadzone' only the part outside the band; 'hold' the external torque it "
            "had when it stopped, moved only as far as the band requires. With 'deadzone' or 'hold', ~/tare "
            'removes only the part of a resting joint\'s residual that static friction cannot explain', True)),
        'contact_test': (_D.contact_test, desc(
            "'combined': one statistic over all joints, sqrt(sum tau_ext^2 / (residual std^2 + stiction band^2)) "
            "(joints outside their stiction band carry the detection while others pass through it); 'joint': "
            '|tau_ext| - stiction band on any one joint', True)),
        'contact_threshold_sigma': (_D.contact_threshold_sigma, float_desc(
            'contact when the contact test statistic exceeds this many identification residual std',
            0.5, 1000.0, True)),
        'collision_threshold_sigma': (_D.collision_threshold_sigma, float_desc(
            'collision threshold, same unit (>= contact threshold)', 0.5, 1000.0, True)),
        'contact_release_ratio': (_D.contact_release_ratio, float_desc(
            'hysteresis: a state is left below this fraction of its threshold', 0.01, 0.99, True)),
        'payload_mass_kg': (-1.0, float_desc("payload mass, kg; -1 = the model file's payload (changeable at run "
                                             'time)', -1.0, 100.0)),
        'payload_com_m': ([0.0, 0.0, 0.0], desc('payload centre of mass in the tool frame, m (x, y, z; '
                                                'changeable at run time)')),
        'effort_unit': ('torque', desc("joint_states effort: 'torque' (Nm) or 'current' (A, times the drive "
                                       'gains)', True)),
        'drive_gains_nm_per_a': ([0.0], desc("drive gains per joint, Nm/A, for effort_unit current; [0.0] = "
                                             "the model file's", True)),
        'stale_timeout_s': (0.5, float_desc('no joint state for this long (wall time): input reported stale',
                                            0.001, 60.0, True)),
        'time_jump_s': (_D.time_jump_s, float_desc('a stamp this far behind the last: reset (bag looped), s',
                                                   0.001, 3600.0, True)),
        'max_gap_s': (_D.max_gap_s, float_desc('a gap longer than this between samples resets the observer, s',
                                               0.001, 3600.0, True)),
        'diagnostics_period_s': (1.0, float_desc('period of /diagnostics (wall time), s', 0.05, 60.0, True)),
        'qos_depth': (100, desc('joint_states subscription queue depth', True)),
    }


class _Throttle:
    """One warning per problem kind per period."""

    def __init__(self, logger, period_s=5.0):
        self.logger, self.period_s, self.last = logger, period_s, {}

    def warn(self, kind, text):
        now = time.monotonic()
        if now - self.last.get(kind, -1e9) >= self.period_s:
            self.last[kind] = now
            self.logger.warning(text)


class WrenchEstimatorNode(Node):
    """The real-time wrench estimator node."""

    def __init__(self, node_name='wrench_estimator', **kwargs):
        super().__init__(node_name, **kwargs)
        refuse_renamed(self, {'urdf_file': 'urdf_path'})
        table = _parameter_table()
        for name, (default, descriptor) in table.items():
            self.declare_parameter(name, default, descriptor)
        p = {name: self.get_parameter(name).value for name in table}
        if not p['model_file']:
            raise ValueError('parameter model_file is required (a model file from robot-id identify)')
        joints = string_list(p['joint_names']) or None
        self.model = load_model(p['model_file'], urdf_path=p['urdf_path'] or None, joint_names=joints)
        cfg = EstimatorConfig(
            method=p['method'], frame=p['frame'], wrench_mode=p['wrench_mode'],
            observer_gain_hz=p['observer_gain_hz'], direct_filter_hz=p['direct_filter_hz'],
            stiction_velocity_rad_s=p['stiction_velocity_rad_s'], sigma_guard=p['sigma_guard'],
            damping=p['damping'], stiction_mode=p['stiction_mode'], band_weighting=p['band_weighting'],
            contact_test=p['contact_test'], contact_threshold_sigma=p['contact_threshold_sigma'],
            collision_threshold_sigma=p['collision_threshold_sigma'],
            contact_release_ratio=p['contact_release_ratio'], time_jump_s=p['time_jump_s'],
            max_gap_s=p['max_gap_s'])
        self.est = WrenchEstimator(self.model, cfg)
        gains = [float(g) for g in p['drive_gains_nm_per_a']]
        self.scale = effort_scale(self.model, p['effort_unit'], None if not any(gains) else gains)
        self._apply_payload(p['payload_mass_kg'], p['payload_com_m'])
        self.stale_timeout_s = float(p['stale_timeout_s'])
        self.indexer = JointIndexer(self.model.joint_names)
        self.names = list(self.model.joint_names)
        self.throttle = _Throttle(self.get_logger())
        # counters and windows for diagnostics
        self.n_in = self.n_out = self.n_rejected = self.n_dropped = self.n_resets = 0
        self.rejected_by_kind = {}
        self.last_problem = ''
        self.last_problem_t = -1e9
        self.last_rx = None                    # monotonic time of the last message
        self.last_good_stamp = None
        self.nominal_dt_ns = None
        self.proc_ms = deque(maxlen=5000)
        self.age_ms = deque(maxlen=5000)
        self.stale_reported = False
        self.last = None
        self.window_start = time.monotonic()
        self.window_in = 0

        qos = QoSProfile(depth=int(p['qos_depth']), reliability=ReliabilityPolicy.BEST_EFFORT,
                         history=HistoryPolicy.KEEP_LAST)
        self.pub_wrench = self.create_publisher(WrenchStamped, '~/wrench', 10)
        self.pub_std = self.create_publisher(WrenchStamped, '~/wrench_std', 10)
        self.pub_tau = self.create_publisher(JointState, '~/external_joint_torques', 10)
        self.pub_contact = self.create_publisher(Bool, '~/contact', 10)
        self.pub_diag = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_subscription(JointState, 'joint_states', self._on_joint_state, qos)
        self.create_service(Trigger, '~/tare', self._srv_tare)
        self.create_service(Trigger, '~/reset', self._srv_reset)
        self.create_service(Trigger, '~/clear_tare', self._srv_clear_tare)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        steady = Clock(clock_type=ClockType.STEADY_TIME)
        self.timer = self.create_timer(float(p['diagnostics_period_s']), self._on_timer, clock=steady)
        self.get_logger().info(
            f'model {p["model_file"]} ({self.model.robot.robot_name}: {", ".join(self.names)}; tool '
            f'{self.model.robot.tool_frame}); {cfg.method}, wrench {self.est.mapper.mapping.label} in '
            f'{self.est.frame_id}; stiction {cfg.stiction_mode} below {cfg.stiction_velocity_rad_s:g} rad/s, '
            f'band weighting {"on" if cfg.band_weighting else "off"}; {cfg.contact_test} contact test at '
            f'{cfg.contact_threshold_sigma:g} std, thresholds from {self.est.threshold_source}')

    # --- input -------------------------------------------------------------------------
    def _problem(self, kind, text):
        self.n_rejected += 1
        self.rejected_by_kind[kind] = self.rejected_by_kind.get(kind, 0) + 1
        self.last_problem = f'{kind}: {text}'
        self.last_problem_t = time.monotonic()
        self.throttle.warn(kind, f'joint_states sample not used ({kind}): {text}')

    def _on_joint_state(self, msg: JointState):
        t0 = time.perf_counter()
        self.n_in += 1
        self.window_in += 1
        self.last_rx = time.monotonic()
        self.stale_reported = False
        try:
            s = self.indexer.convert(msg.name, msg.position, msg.velocity, msg.effort)
        except JointStateError as exc:
            self._problem(exc.kind, str(exc))
            return
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        if stamp <= 0:
            self._problem('zero_stamp', 'header.stamp is zero: the driver must stamp joint states')
            return
        try:
            res = self.est.update(stamp, s.q, s.qd, s.effort * self.scale)
        except EstimatorInputError as exc:
            self._problem(exc.kind, str(exc))
            return
        if res.reset_reason:
            self.n_resets += 1
            self.nominal_dt_ns = None
            self.throttle.warn('reset', f'observer reset: {res.reset_reason}')
        elif self.last_good_stamp is not None:
            dt = stamp - self.last_good_stamp
            if self.nominal_dt_ns is None:
                self.nominal_dt_ns = dt
            else:
                if dt > 1.5 * self.nominal_dt_ns:
                    self.n_dropped += int(round(dt / self.nominal_dt_ns)) - 1
                else:
                    self.nominal_dt_ns += 0.02 * (dt - self.nominal_dt_ns)
        self.last_good_stamp = stamp
        self._publish(msg.header.stamp, s.q, res)
        self.last = res
        self.n_out += 1
        self.proc_ms.append((time.perf_counter() - t0) * 1e3)
        now = self.get_clock().now().nanoseconds
        self.age_ms.append((now - stamp) * 1e-6)

    def _publish(self, stamp, q, res):
        w = WrenchStamped()
        w.header.stamp = stamp
        w.header.frame_id = res.frame_id
        f, m = res.wrench[:3], res.wrench[3:]
        w.wrench.force.x, w.wrench.force.y, w.wrench.force.z = float(f[0]), float(f[1]), float(f[2])
        w.wrench.torque.x, w.wrench.torque.y, w.wrench.torque.z = float(m[0]), float(m[1]), float(m[2])
        self.pub_wrench.publish(w)
        sd = np.sqrt(np.maximum(np.diag(res.wrench_covariance), 0.0))
        ws = WrenchStamped()
        ws.header = w.header
        ws.wrench.force.x, ws.wrench.force.y, ws.wrench.force.z = float(sd[0]), float(sd[1]), float(sd[2])
        ws.wrench.torque.x, ws.wrench.torque.y, ws.wrench.torque.z = float(sd[3]), float(sd[4]), float(sd[5])
        self.pub_std.publish(ws)
        js = JointState()
        js.header.stamp = stamp
        js.name = self.names
        js.position = q.tolist()
        js.effort = res.tau_ext.tolist()
        self.pub_tau.publish(js)
        self.pub_contact.publish(Bool(data=bool(res.contact_state)))

    # --- services and parameters ---------------------------------------------------------
    def _srv_tare(self, req, resp):
        try:
            bias = self.est.tare()
        except RuntimeError as exc:
            resp.success, resp.message = False, str(exc)
            return resp
        resp.success = True
        resp.message = 'tared; bias (Nm) = ' + ', '.join(f'{b:+.3f}' for b in bias)
        self.get_logger().info(resp.message)
        return resp

    def _srv_clear_tare(self, req, resp):
        self.est.clear_tare()
        resp.success, resp.message = True, 'tare cleared (bias zero)'
        self.get_logger().info(resp.message)
        return resp

    def _srv_reset(self, req, resp):
        self.est.reset('reset service')
        self.last_good_stamp = None
        resp.success, resp.message = True, 'observer reset (tare kept)'
        return resp

    def _apply_payload(self, mass, com):
        mass = float(mass)
        com = [float(c) for c in com]
        if len(com) != 3 or not all(math.isfinite(c) for c in com):
            raise ValueError(f'payload_com_m needs 3 finite values (m, tool frame), got {com}')
        if mass < 0:       # -1: the model file's payload
            if self.model.payload is not None:
                self.est.set_payload(self.model.payload.mass_kg, self.model.payload.com_m)
            return
        self.est.set_payload(mass if mass > 0 else None, com)

    def _on_set_parameters(self, params):
        new = {p.name: p.value for p in params}
        if 'payload_mass_kg' in new or 'payload_com_m' in new:
            mass = new.get('payload_mass_kg', self.get_parameter('payload_mass_kg').value)
            com = new.get('payload_com_m', self.get_parameter('payload_com_m').value)
            try:
                self._apply_payload(mass, com)
            except (ValueError, TypeError) as exc:
                return SetParametersResult(successful=False, reason=str(exc))
            self.get_logger().info(f'payload now {mass} kg at {list(com)} m (tool frame)')
        return SetParametersResult(successful=True)

    # --- diagnostics -------------------------------------------------------------------
    def _on_timer(self):
        now = time.monotonic()
        stale = self.last_rx is None or now - self.last_rx > self.stale_timeout_s
        if stale and self.last_rx is not None and not self.stale_reported:
            self.stale_reported = True
            self.throttle.warn('stale', f'no joint_states for {now - self.last_rx:.2f} s (stale input)')
        rate = self.window_in / max(now - self.window_start, 1e-9)
        self.window_start, self.window_in = now, 0
        st = DiagnosticStatus()
        st.name = f'{self.get_name()}: wrench estimation'
        st.hardware_id = self.model.robot.robot_name
        problems = []
        if self.last_rx is None:
            problems.append('no joint_states received yet')
        elif stale:
            problems.append(f'stale input: no joint_states for {now - self.last_rx:.2f} s')
        if now - self.last_problem_t < 2.0 * self.stale_timeout_s + 1.0:
            problems.append(f'bad input: {self.last_problem}')
        last = self.last
        if last is not None and last.damped:
            problems.append(f'near a singularity: sigma_min {last.sigma_min:.4f} (damped)')
        st.level = DiagnosticStatus.WARN if problems else DiagnosticStatus.OK
        st.message = '; '.join(problems) if problems else 'ok'
        kv = [('input_rate_hz', f'{rate:.1f}'), ('samples_in', self.n_in), ('samples_out', self.n_out),
              ('dropped_samples', self.n_dropped), ('rejected_samples', self.n_rejected),
              ('rejected_by_kind', ', '.join(f'{k}={v}' for k, v in sorted(self.rejected_by_kind.items()))),
              ('last_problem', self.last_problem), ('stale_input', stale), ('resets', self.n_resets),
              ('method', self.est.config.method), ('frame_id', self.est.frame_id),
              ('wrench_mode', self.est.mapper.mapping.label)]
        if self.proc_ms:
            pm, am = np.array(self.proc_ms), np.array(self.age_ms)
            kv += [('processing_ms_p50', f'{np.percentile(pm, 50):.3f}'),
                   ('processing_ms_p99', f'{np.percentile(pm, 99):.3f}'),
                   ('latency_ms_p50', f'{np.percentile(am, 50):.3f}'),
                   ('latency_ms_p99', f'{np.percentile(am, 99):.3f}')]
            self.proc_ms.clear()
            self.age_ms.clear()
        if last is not None:
            sd = np.sqrt(np.maximum(np.diag(last.wrench_covariance), 0.0))
            kv += [('sigma_min', f'{last.sigma_min:.5f}'), ('damped', last.damped),
                   ('contact_state', CONTACT_STATE_NAMES[last.contact_state]),
                   ('contact_score', f'{last.contact_score:.3f}'),
                   ('wrench_std', ' '.join(f'{x:.3f}' for x in sd)),
                   ('wrench_covariance', ' '.join(f'{x:.4g}' for x in last.wrench_covariance.ravel())),
                   ('tare_bias_nm', ' '.join(f'{x:+.3f}' for x in self.est.bias))]
        st.values = [KeyValue(key=k, value=str(v)) for k, v in kv]
        arr = DiagnosticArray()
        arr.header.stamp = self.get_clock().now().to_msg()
        arr.status = [st]
        self.pub_diag.publish(arr)


def main(args=None):
    rclpy.init(args=args)
    try:
        node = WrenchEstimatorNode()
    except (ModelFileError, ValueError, ParameterException) as exc:
        print(f'wrench_estimator: cannot start: {" ".join(str(exc).split())}', file=sys.stderr, flush=True)
        rclpy.try_shutdown()
        return 2
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:  # noqa: BLE001 - SIGTERM shut the context down inside the executor's wait: a clean stop
        if rclpy.ok():
            raise
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
