# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""wrench_estimator: ~/wrench, the wrench the environment applies to the robot at its tool.

Real-time external wrench estimation from joint states (no F/T sensor). The wrench acts at the
tool frame's origin (a push on the tool along +x reads +fx), in the axes of ``frame``.

Its topics, services and parameters are listed in docs/nodes.md (generated from the node).

Every output carries its input sample's stamp; ``~/contact`` is published when it changes and
with each /diagnostics (reliable, transient local: a late subscriber gets the current flag).
The outputs are packed serialized (``conversions.wrench_stamped_writer``, checked against
rclpy's serialisation at start; message objects otherwise), and a topic nobody subscribes to is
not filled. The input is taken serialized and read without building message objects
(``msg_helpers.joint_state_taker``) in a thread of its own (``input_thread.InputThread``: one
wait on the subscription, no executor pass per wake-up); above 2 / ``input_batch_period_s`` (a
1 kHz driver) it wakes once per ``input_batch_period_s`` and takes everything queued. The
estimator's state is shared with the services and the diagnostics timer under ``lock``. Where
rclpy lacks the wait-set calls (or with ``input_thread=False``) the executor delivers the input,
and above that rate a timer takes what is queued every ``input_batch_period_s``
(``InputGroup``), until a wake-up finds nothing. A sample
that cannot be used (array lengths, NaN, a value outside the model's limits with a margin,
missing joints or effort, duplicate or older stamp) publishes nothing, logs a throttled warning
and shows in diagnostics (rejected samples by kind); a stamp jumping back (a looped bag) or a
long gap resets the observer, and so does a sample that left the estimate non-finite (counted in
the resets). A joint state without velocity gets it from its positions
(``position_velocity.PositionVelocity``, the causal rule ``robot-id estimate`` applies to a
bag; said once in the log). The payload parameters and calibration_duration_s are the only
ones that change at run time: a mass above max_payload_kg or a centre of mass beyond 1 m is
refused with the reason.

The contact thresholds and the published sigma rest on residual statistics: a calibration
(``calibration_file``, loaded at start; ``~/calibrate`` measures one on a few seconds the caller
declares free of contact, rebuilds the estimator with it and writes the file:
``ros.node_calibration``), else the model file's, else fallback statistics, which the node names
at start (a warning) and in /diagnostics (level WARN).
"""
from __future__ import annotations

from pathlib import Path
import threading
import time
import traceback

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import CallbackGroup, ReentrantCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import Trigger

from robot_id_ros.estimate import EstimatorConfig, EstimatorInputError, effort_scale
from robot_id_ros.estimate.monitor import (InputMonitor, WarningThrottle, apply_payload,
                                           payload_bound_kg, startup_summary, wrench_std)
from robot_id_ros.estimate.observability import observability_values
from robot_id_ros.estimate.position_velocity import PositionVelocity
from robot_id_ros.estimate.samples import NONFINITE_STATE
from robot_id_ros.io.joint_state import JointIndexer, JointStateError
from robot_id_ros.io.model_file import load_model
from robot_id_ros.ros.conversions import (NS_PER_S, fill_wrench, joint_state_writer,
                                          wrench_stamped_writer)
from robot_id_ros.ros.diagnostics import diagnostic_array
from robot_id_ros.ros.input_thread import InputThread, input_thread_available
from robot_id_ros.ros.main import run_node
from robot_id_ros.ros.node_calibration import NodeCalibration
from robot_id_ros.ros.node_friction import (default_tracked_model_path, save_tracked_friction,
                                            tracking_values)
from robot_id_ros.ros.msg_helpers import joint_state_taker, trigger_handler
from robot_id_ros.ros.refused_writes import RefusedWrites
from robot_id_ros.ros import parameter_tables as tables
from robot_id_ros.ros.node_parameters import (declare_table, parameter_check, refuse_renamed,
                                              require, settings_from_params, string_list)

BACKLOG_MAX = 1000      # samples taken from the queue in one callback at most


class InputGroup(CallbackGroup):
    """The input subscription's callback group: out of the executor's wait set while batched.

    rclpy's executors (Humble, Jazzy, Kilted) build their wait set each pass from the entities
    whose group ``can_execute``; while ``batched`` is set the subscription is left out, so a
    sample does not wake the executor: a timer takes the queued samples instead.
    """

    def __init__(self):
        super().__init__()
        self.batched = False

    def can_execute(self, entity):
        """Return True unless batched (the executor then leaves the subscription out)."""
        return not self.batched

    def beginning_execution(self, entity):
        """Return True unless batched."""
        return not self.batched

    def ending_execution(self, entity):
        """Nothing to release."""


class WrenchEstimatorNode(Node):
    """The real-time wrench estimator node."""

    def __init__(self, node_name='wrench_estimator', *, input_thread=True, **kwargs):
        """Build the node; ``input_thread`` False: the executor delivers the input (see doc)."""
        super().__init__(node_name, **kwargs)
        self.input_thread = None
        refuse_renamed(self, tables.WRENCH_ESTIMATOR_FORMER_NAMES)
        p = declare_table(self, tables.wrench_estimator_parameters())
        require(p, 'model_file', 'a model file from robot-id identify')
        self.model = load_model(p['model_file'], urdf_path=p['urdf_path'] or None,
                                joint_names=string_list(p['joint_names']) or None)
        gains = [float(g) for g in p['drive_gains_nm_per_a']]
        with parameter_check():       # the settings are checked as the estimator is built
            cfg = settings_from_params(EstimatorConfig, p)
            self.calibration = NodeCalibration(self, p['calibration_file'], p['model_file'])
            t_build = time.monotonic()
            self.est = self.calibration.build_estimator(self.model, cfg)
            t_build = time.monotonic() - t_build
            unit = p['effort_unit'] or self.model.effort_unit
            self.scale = effort_scale(self.model, unit, gains if any(gains) else None)
        if t_build > 2.0:       # numba compiled the step: the first start on this machine
            self.get_logger().info(f'estimator built in {t_build:.1f} s (its one-sample step '
                                   "compiled into numba's cache; later starts load it)")
        if not p['effort_unit']:
            self.get_logger().info(f"effort_unit '{unit}': the unit the model was identified "
                                   'from (set effort_unit to override)')
        self.max_payload_kg = payload_bound_kg(self.model, p['max_payload_kg'])
        apply_payload(self.est, self.model, p['payload_mass_kg'], p['payload_com_m'],
                      self.max_payload_kg)
        self.indexer = JointIndexer(self.model.joint_names, notice=self.get_logger().warning)
        self.position_velocity = None   # built at the first joint state without velocity
        self.throttle = WarningThrottle(self.get_logger())
        self.monitor = InputMonitor(p['stale_timeout_s'], self.throttle.warn)
        qos = QoSProfile(depth=int(p['qos_depth']), reliability=ReliabilityPolicy.BEST_EFFORT)
        self._create_outputs()
        # the node's clock is the wall clock (no sim time): latency from time.time_ns()
        self.wall_clock = not self.get_clock().ros_time_is_active
        self.input_group = InputGroup()
        # the estimator's state is shared by the input (thread) and the services and timers
        self.lock = threading.Lock()
        sub = self.create_subscription(JointState, 'joint_states', self._on_joint_state, qos,
                                       callback_group=self.input_group)
        self.take_queued = joint_state_taker(sub)
        steady = Clock(clock_type=ClockType.STEADY_TIME)
        self.batch_period_s = float(p['input_batch_period_s']) if self.take_queued else 0.0
        self._last_wake_s = -1.0        # time.monotonic() of the last wake-up by a sample
        self._interval_s = self.batch_period_s    # running mean of the input interval
        self.wakeups = 0                # callbacks that took input (per sample or per batch)
        self._outputs = (True, True, True)   # which outputs have subscribers (see _see_outputs)
        self.batch_timer = None
        if input_thread and self.take_queued is not None and input_thread_available():
            try:
                self.input_thread = InputThread(sub, self.context, self._on_input,
                                                float(p['input_batch_period_s']),
                                                self._on_input_error)
            except Exception as exc:  # noqa: BLE001 - this rclpy's wait set differs
                self.get_logger().warning(f'input through the executor (no input thread: '
                                          f'{" ".join(str(exc).split())})')
        if self.input_thread is not None:
            self.input_group.batched = True         # the executor never takes the input
        elif self.batch_period_s > 0.0:
            self.batch_timer = self.create_timer(self.batch_period_s, self._on_batch, clock=steady)
            self.batch_timer.cancel()
        self._create_services(p['tracked_model_file'])
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.create_timer(float(p['diagnostics_period_s']), self._on_timer, clock=steady)
        self.get_logger().info(startup_summary(p['model_file'], self.model, self.est))
        if self.est.statistics.fallback:
            self.get_logger().warning(
                f'running on {self.est.statistics.source}: call ~/calibrate while the arm moves '
                'without contact, or give calibration_file (robot-id calibrate)')
        if self.input_thread is not None:
            self.input_thread.start()

    def _create_services(self, tracked_model_file):
        """Create the services (``tracked_model_file``: where ~/save_friction writes)."""
        info = self.get_logger().info
        self.create_service(Trigger, '~/tare', trigger_handler(self._tare, info))
        self.create_service(Trigger, '~/reset', trigger_handler(self._reset))
        self.create_service(Trigger, '~/clear_tare', trigger_handler(self._clear_tare, info))
        # answers when done, awaiting the gathering without holding the executor (a coroutine);
        # reentrant: a second call is answered (refused) while the first one gathers
        self.create_service(Trigger, '~/calibrate', self.calibration.handle,
                            callback_group=ReentrantCallbackGroup())
        self.tracked_model_path = (Path(tracked_model_file) if tracked_model_file else
                                   default_tracked_model_path(self.get_fully_qualified_name()))
        self.create_service(Trigger, '~/save_friction', trigger_handler(
            lambda: save_tracked_friction(self.est, self.tracked_model_path, self.lock), info))

    def _create_outputs(self):
        """Create the publishers and the output messages and serialisers they reuse."""
        self.pub_wrench = self.create_publisher(WrenchStamped, '~/wrench', 10)
        self.pub_std = self.create_publisher(WrenchStamped, '~/wrench_std', 10)
        self.pub_tau = self.create_publisher(JointState, '~/external_joint_torques', 10)
        self.pub_contact = self.create_publisher(Bool, '~/contact', QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self.pub_diag = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.msg_wrench, self.msg_std = WrenchStamped(), WrenchStamped()
        self.msg_wrench.header.frame_id = self.msg_std.header.frame_id = self.est.frame_id
        self.msg_tau = JointState(name=list(self.model.joint_names))
        # serialized outputs where the writer matches rclpy's own serialisation (else None:
        # the message objects above are filled and published)
        self.pack_wrench = wrench_stamped_writer(self.est.frame_id)
        self.pack_tau = joint_state_writer(self.model.joint_names)
        self.msg_contact = None            # the last Bool published, None before the first
        # outputs the middleware refused (under heavy load): counted, warned, in diagnostics
        self.refused = RefusedWrites(self, lambda text: self.throttle.warn('publish', text))

    def stop(self):
        """End the input thread (``run_node`` calls this before ``destroy_node``)."""
        if self.input_thread is not None:
            self.input_thread.stop()

    def destroy_node(self):
        """Stop the input thread, then destroy the node."""
        self.stop()
        super().destroy_node()

    def _on_input(self):
        """Take the queued samples (the input thread's wake-up); return how many.

        A wait that ended by its timeout finds none: it is not counted as a wake-up.
        """
        with self.lock:
            self._see_outputs()
            taken = self.drain()
            self.wakeups += taken > 0
            return taken

    def _on_input_error(self, exc):
        self.get_logger().error('joint_states input failed: ' + ''.join(
            traceback.format_exception(exc)).strip())

    def _on_joint_state(self, msg: JointState):
        self.wakeups += 1
        self._see_outputs()
        stamp = msg.header.stamp
        self._process(stamp.sec, stamp.nanosec, msg.name, msg.position, msg.velocity, msg.effort)
        if self.take_queued:
            taken = 1 + self.drain()
            if self.batch_timer is not None:
                self._batch_if_fast(taken)

    def _batch_if_fast(self, taken):
        """Switch to batched input when samples come faster than 2 / ``batch_period_s``.

        The interval between samples is a running mean over wake-ups (``taken`` samples since
        the previous one), so that a late wake-up on a slow input does not switch.
        """
        now = time.monotonic()
        if self._last_wake_s >= 0.0:
            per_sample_s = (now - self._last_wake_s) / taken
            self._interval_s += 0.5 * (per_sample_s - self._interval_s)
        self._last_wake_s = now
        if self._interval_s < 0.5 * self.batch_period_s:
            self.input_group.batched = True     # samples come fast: take them in batches
            self.batch_timer.reset()

    def _on_batch(self):
        """Take the queued samples (batched input); none: wake for each sample again."""
        self.wakeups += 1
        self._see_outputs()
        if not self.drain():
            self.input_group.batched = False
            self.batch_timer.cancel()
            self._last_wake_s, self._interval_s = -1.0, self.batch_period_s

    def _see_outputs(self):
        """See which outputs have subscribers (once per wake-up)."""
        self._outputs = (self.pub_wrench.get_subscription_count() > 0,
                         self.pub_std.get_subscription_count() > 0,
                         self.pub_tau.get_subscription_count() > 0)

    def drain(self):
        """Process the samples queued on the input, up to ``BACKLOG_MAX``; return how many."""
        take, process = self.take_queued, self._process
        for k in range(BACKLOG_MAX):
            fields = take()
            if fields is None:
                return k
            process(*fields)
        return BACKLOG_MAX

    def _process(self, sec, nanosec, names, position, velocity, effort):
        """Estimate from one joint state (its stamp and arrays) and publish the outputs."""
        t0 = self.monitor.received()
        stamp = sec * NS_PER_S + nanosec
        try:
            s = self.indexer.convert(names, position, velocity, effort, require_velocity=False)
            if stamp <= 0:
                raise JointStateError('header.stamp is zero: the driver must stamp joint states',
                                      kind='zero_stamp')
            qd = s.qd if s.qd is not None else self._derived_velocity(stamp, s.q)
            torque = s.effort * self.scale
            res = self.est.update(stamp, s.q, qd, torque)
        except (JointStateError, EstimatorInputError) as exc:
            self.monitor.rejected(exc.kind, str(exc), stamp)
            if exc.kind == NONFINITE_STATE:
                self.calibration.restarted(str(exc))
            return
        self.monitor.used(stamp, res)
        cal = self.calibration
        if cal.run_start_ns is None or res.reset_reason is not None or cal.gathering is not None:
            cal.taken(self.est, stamp, res, torque, qd)
        # a refused write costs this sample's outputs; the estimate goes on with the next
        self.refused.write('an output', self._publish, sec, nanosec, s.q, res)
        self.monitor.published(t0, stamp, time.time_ns() if self.wall_clock
                               else self.get_clock().now().nanoseconds)

    def _derived_velocity(self, stamp, q):
        """Return the velocity of a joint state without one, from its positions (said once)."""
        if self.position_velocity is None:
            self.position_velocity = PositionVelocity.for_config(self.est.n, self.est.config)
            self.get_logger().info(self.position_velocity.describe())
        return self.position_velocity.step(stamp, q)

    def _publish(self, sec, nanosec, q, res):
        """Publish the outputs of one sample (each topic only when someone subscribes to it).

        A publication without a matched subscriber reaches no one (the topics are volatile), so
        skipping it changes no subscriber's messages and saves its serialisation. The
        subscribers are counted once per wake-up (``_see_outputs``), not per sample.
        """
        wrench_out, std_out, tau_out = self._outputs
        pack_wrench = self.pack_wrench
        if wrench_out:
            if pack_wrench is not None:
                self.pub_wrench.publish(pack_wrench(sec, nanosec, res.wrench.tolist()))
            else:
                w = self.msg_wrench
                w.header.stamp.sec, w.header.stamp.nanosec = sec, nanosec
                fill_wrench(w.wrench, res.wrench)
                self.pub_wrench.publish(w)
        if std_out:
            if pack_wrench is not None:
                self.pub_std.publish(pack_wrench(sec, nanosec, wrench_std(res).tolist()))
            else:
                sd = self.msg_std
                sd.header.stamp.sec, sd.header.stamp.nanosec = sec, nanosec
                fill_wrench(sd.wrench, wrench_std(res))
                self.pub_std.publish(sd)
        if tau_out:
            if self.pack_tau is not None:
                self.pub_tau.publish(self.pack_tau(sec, nanosec, q.tolist(), res.tau_ext.tolist()))
            else:
                tau = self.msg_tau
                tau.header.stamp.sec, tau.header.stamp.nanosec = sec, nanosec
                tau.position, tau.effort = q.tolist(), res.tau_ext.tolist()
                self.pub_tau.publish(tau)
        contact = bool(res.contact_state)
        if self.msg_contact is None or contact != self.msg_contact.data:
            self.msg_contact = Bool(data=contact)
            self.pub_contact.publish(self.msg_contact)

    def _tare(self):
        try:
            with self.lock:
                bias = self.est.tare()
        except RuntimeError as exc:
            return False, str(exc)
        return True, f'tared at {self._at()}; bias (Nm) = ' + ', '.join(f'{b:+.3f}' for b in bias)

    def _clear_tare(self):
        with self.lock:
            self.est.clear_tare()
        return True, f'tare cleared at {self._at()} (bias zero)'

    def _at(self):
        """Return the stamp of the last sample taken, as the tare services report it."""
        at = self.est.last_stamp_ns
        return 'no sample yet' if at is None else f'{at * 1e-9:.3f} s'

    def _reset(self):
        with self.lock:
            self.est.reset('reset service')
            self.monitor.observer_reset()
            self.calibration.restarted('reset service')
        return True, 'observer reset (tare kept)'

    def replace_estimator(self, est):
        """Run ``est`` from the next sample on (under ``lock``): a calibration's rebuild.

        It shares the model (so the payload is kept), goes on from the friction tracked so far
        and starts from a reset observer.
        """
        est.continue_tracking(self.est)
        self.est = est
        self.monitor.observer_reset()

    def _on_set_parameters(self, params):
        new = {p.name: p.value for p in params}
        if 'payload_mass_kg' in new or 'payload_com_m' in new:
            mass = new.get('payload_mass_kg', self.get_parameter('payload_mass_kg').value)
            com = new.get('payload_com_m', self.get_parameter('payload_com_m').value)
            try:
                with self.lock:
                    apply_payload(self.est, self.model, mass, com, self.max_payload_kg)
                    self.calibration.interrupt('the payload changed during the gathering')
            except (ValueError, TypeError) as exc:
                return SetParametersResult(successful=False, reason=str(exc))
            self.get_logger().info(f'payload now {mass} kg at {list(com)} m (tool frame)')
        return SetParametersResult(successful=True)

    def _on_timer(self):
        self.wall_clock = not self.get_clock().ros_time_is_active
        with self.lock:
            if self.msg_contact is not None:
                self.pub_contact.publish(self.msg_contact)
            level, message, values = self.monitor.status(self.est)
            problems, calibration_values = self.calibration.status(self.est)
            if problems:      # fallback statistics, a refused calibration file
                message = '; '.join(([message] if level != 'ok' else []) + problems)
                level = 'warn' if level == 'ok' else level
            values += calibration_values
            values += observability_values(self.est)     # which wrench axes are sensed, and why
            values += tracking_values(self.est)
            batched = (self.input_group.batched if self.input_thread is None
                       else self.input_thread.batched)
            values += [('input_batched', batched), ('input_wakeups', self.wakeups),
                       ('failed_publications', self.refused.count)]
        self.pub_diag.publish(diagnostic_array(
            self.get_clock().now().to_msg(), f'{self.get_name()}: wrench estimation',
            self.model.robot.robot_name, level, message, values))


def main(args=None):
    return run_node(WrenchEstimatorNode, 'wrench_estimator', args)


if __name__ == '__main__':
    raise SystemExit(main())
