# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""RecorderBase: the node shell of the three recorders (not an executable itself).

A recorder subscribes to the driver's ``joint_states`` (any QoS reliability), writes every message
into a crash-safe bag and runs its experiment in a worker thread: it commands the arm with
``trajectory_msgs/JointTrajectory`` on ``command_topic`` (or the real youBot driver's action or
position command: ``command_interface``) through an ``ArmCommander``, waits in ROS
time (``use_sim_time`` honoured) on joint-state events, and adds one sidecar segment per completed
step through a ``RecordingSession`` (bag part committed first, then the sidecar rewritten
atomically).

Services (``std_srvs/Trigger``): ``~/start`` (start the experiment, or resume it) and ``~/cancel``
(stop the arm where it is, close the bag and sidecar: both stay valid and readable).

Every failure (driver silent, unreachable pose, tracking error, full disk, unwritable output) ends
the run with an ERROR log naming the cause, keeps the data recorded so far, and writes
``info.status`` / ``info.error`` into the sidecar. A cancel or failure holds the arm at the pose
last commanded, never at a measured one; joint states that moved farther than the drives could
are refused as bad input, counted in ``info.joint_states_refused`` (see ``ros.setpoint_guard``).
With ``shutdown_when_done`` the process then exits with 0 (finished), 1 (failed) or 3
(cancelled).
"""
from __future__ import annotations

import threading
import traceback

import numpy as np

from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.serialization import serialize_message
from std_srvs.srv import Trigger

from robot_id_ros import record as rec
from robot_id_ros.errors import InputError, RobotIdError
from robot_id_ros.io.bags import JOINT_STATE_TYPE
from robot_id_ros.model.robot import RobotModel, default_urdf_path
from robot_id_ros.record.session import (CANCELLED, FAILED, FINISHED, Progress, RecordingSession,
                                         SampleBuffer)
from robot_id_ros.ros.commander import INTERFACES, ArmCommander, Cancelled, CommandSettings
from robot_id_ros.ros.main import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK
from robot_id_ros.ros.node_parameters import EFFORT_UNITS, OutputGuard, settings_from_params
from robot_id_ros.ros.recorders.parameter_tables import common_parameters

EXIT_CODES = {FINISHED: EXIT_OK, FAILED: EXIT_FAILED, CANCELLED: EXIT_CANCELLED}
AUTOSTART_PERIOD_S = 0.05      # steady clock: how often autostart looks for the driver
WORKER_JOIN_TIMEOUT_S = 10.0   # stop(): wait this long for the worker to close bag and sidecar
NO_SUBSCRIBER_HINT = ' (set command_topic, or passive:=true to only record)'
FORMER_EFFORT_UNITS = {'torque_nm': " (renamed: use 'torque')",
                       'current_a': " (renamed: use 'current')"}


class RecorderBase(Node):
    """Parameters, commander, session, services and the worker thread of a recorder."""

    KIND = 'passive'       # sidecar kind of an active run
    NODE_NAME = 'recorder'

    def __init__(self, node_name=None, extra_parameters=None, **kwargs):
        """Declare the parameters and build the model, commander and services.

        Args:
            node_name: the node's name (default ``NODE_NAME``).
            extra_parameters: the subclass's parameter table, declared after the common ones.
            **kwargs: rclpy Node keyword arguments (context, parameter_overrides, ...).
        """
        super().__init__(node_name or self.NODE_NAME, **kwargs)
        table = {**common_parameters(), **(extra_parameters or {})}
        for name, (default, descriptor) in table.items():
            self.declare_parameter(name, default, descriptor)
        self.p = {name: self.get_parameter(name).value for name in table}
        self._output = OutputGuard(self.p['output_path'], 'output_path')
        self.log = self.get_logger()
        self.joint_names = tuple(self.p['joint_names'])
        urdf = self.p['urdf_path'] or str(default_urdf_path())
        self.robot = RobotModel(urdf, self.joint_names, self.p['tool_frame'])
        self.n = self.robot.n
        self.limits = settings_from_params(rec.SafetyLimits, self.p)
        self.limits.per_joint(self.n)
        self.lower, self.upper = self.limits.bounds(self.robot)
        self._check_choices()
        self.bag_topic = '/' + self.p['joint_states_topic'].lstrip('/')
        self.buffer = SampleBuffer(self.p['buffer_s'])
        self.progress = Progress(self.p['progress_period_s'], self.log.info)
        self.session: RecordingSession | None = None
        self.state = 'idle'              # idle, running, finished, cancelled, failed
        self.exit_code = EXIT_OK         # set when the run ends with shutdown_when_done
        self._worker: threading.Thread | None = None
        self._autostart_timer = None
        self.commander = ArmCommander(
            self, self.joint_names, joint_states_topic=self.p['joint_states_topic'],
            command_topic=self.p['command_topic'],
            settings=self._command_settings(),
            limits=self.limits,
            position_limits=(self.robot.limits.lower_rad, self.robot.limits.upper_rad),
            speed_limit_rad_s=self._drive_speed_limits(),
            passive=self.p['passive'], driver_timeout_s=self.p['driver_timeout_s'])
        self.commander.add_listener(self._on_joint_state)
        self.create_service(Trigger, '~/start', self._srv_start)
        self.create_service(Trigger, '~/cancel', self._srv_cancel)
        if self.p['autostart']:
            self._autostart_timer = self.create_timer(
                AUTOSTART_PERIOD_S, self._autostart, clock=Clock(clock_type=ClockType.STEADY_TIME))

    def _command_settings(self):
        p = self.p
        return CommandSettings(
            p['command_interface'], p['command_lead_s'], p['command_point_period_s'],
            p['stream_chunk_s'], action_name=p['follow_joint_trajectory_action'],
            position_command_topic=p['position_command_topic'],
            stream_rate_hz=p['stream_rate_hz'], stream_lead_s=p['stream_lead_s'],
            path_tolerance_rad=p['path_tolerance_rad'],
            goal_tolerance_rad=p['goal_tolerance_rad'])

    def _drive_speed_limits(self):
        """Per-joint speed the drives can reach (rad/s): the URDF's, at least the commanded."""
        urdf = np.asarray(self.robot.limits.velocity_rad_s, dtype=float)
        commanded = self.limits.per_joint(self.n)[0]
        return np.where(np.isfinite(urdf) & (urdf > 0), np.maximum(urdf, commanded), commanded)

    def _check_choices(self):
        if self.p['command_interface'] not in INTERFACES:
            raise InputError('parameter command_interface must be one of '
                             f"{', '.join(repr(i) for i in INTERFACES)}, got "
                             f"{self.p['command_interface']!r}")
        unit = self.p['effort_unit']
        if unit not in EFFORT_UNITS:
            raise InputError(f"parameter effort_unit must be 'torque' or 'current', got {unit!r}"
                             + FORMER_EFFORT_UNITS.get(unit, ''))

    # ------------------------------------------------------------------ data
    def _on_joint_state(self, stamp_ns, msg, sample):
        """Commander listener: every message into the bag while running, samples buffered."""
        session = self.session
        if session is not None and self.state == 'running':
            try:
                session.write(self.bag_topic, JOINT_STATE_TYPE, stamp_ns, serialize_message(msg))
            except rec.RecordingError as exc:
                self.commander.fail(exc)    # nothing more is written; the worker reports it
        if sample is not None:
            self.buffer.append(sample)

    def latest(self):
        """Return the newest joint state (``StampedSample``: stamp_ns, q, qd, effort), or None."""
        return self.commander.latest()

    # ------------------------------------------------------------------ waits of the worker
    def _idle(self):
        """Between the worker's waits: progress lines and the periodic bag commit."""
        self.progress.report()
        self.session.commit_if_due(self.commander.time_ref_ns(),
                                   int(self.p['commit_period_s'] * 1e9))

    def wait_for(self, ready):
        """``ArmCommander.wait_for`` with progress and periodic commits while waiting."""
        return self.commander.wait_for(ready, idle=self._idle)

    def wait_until_stamp(self, t_ns):
        """Block until a joint state stamped >= ``t_ns`` (ns) arrived; return it."""
        return self.commander.wait_until_stamp(t_ns, idle=self._idle)

    def follow(self, after_ns):
        """Yield the buffered joint states stamped after ``after_ns`` (ns), one by one.

        Waits for each new one (the generator never ends by itself).
        """
        while True:
            for sample in self.wait_for(lambda: self.buffer.after(after_ns) or None):
                after_ns = sample.stamp_ns
                yield sample

    def add_segment(self, segment):
        """Commit the bag, then add ``segment`` to the sidecar."""
        self.session.add_segment(segment, self.commander.time_ref_ns())

    def passive_stop_ns(self):
        """When a passive run stops (ns, driver time), or None (until cancelled)."""
        duration_s = self.p['passive_duration_s']
        return self.latest().stamp_ns + int(duration_s * 1e9) if duration_s > 0 else None

    # ------------------------------------------------------------------ run control
    def _autostart(self):
        self.destroy_timer(self._autostart_timer)
        ok, msg = self.start()
        if not ok:
            self.log.error(msg)

    def _srv_start(self, _req, resp):
        resp.success, resp.message = self.start()
        return resp

    def _srv_cancel(self, _req, resp):
        if self.state != 'running':
            resp.success, resp.message = False, f'nothing to cancel (state: {self.state})'
            return resp
        self.commander.cancel()
        self.log.info(f'cancel requested at ROS time {self.commander.time_ref_ns() * 1e-9:.3f} s')
        resp.success = True
        resp.message = 'cancelling: the arm stops where it is, bag and sidecar are closed'
        return resp

    def start(self):
        """Start (or resume) the experiment in the worker thread. Returns (ok, message)."""
        if self.state == 'running':
            return False, 'already running'
        try:
            self._output.target()      # the bag, its sidecar and temporaries stay in its folder
        except InputError as exc:
            return False, str(exc)
        self.commander.reset()
        self.state = 'running'
        self._worker = threading.Thread(target=self._run, name='recorder', daemon=True)
        self._worker.start()
        return True, f'started; recording to {self.p["output_path"]}'

    def stop(self):
        """Cancel a running experiment and wait for the worker to close bag and sidecar.

        ``run_node`` calls it before ``destroy_node``.
        """
        if self.state == 'running':
            self.commander.cancel()
            if self._worker is not None:
                self._worker.join(timeout=WORKER_JOIN_TIMEOUT_S)

    def _new_session(self):
        return RecordingSession(
            self.p['output_path'], 'passive' if self.p['passive'] else self.KIND,
            self.joint_names, self.p['effort_unit'], recorder=self.get_name(),
            info={'urdf': str(self.robot.urdf_path), 'urdf_sha256': self.robot.urdf_sha256,
                  'tool_frame': self.robot.tool_frame, 'parameters': dict(self.p)},
            resume=self.p['resume'], log=self.log.info)

    def _run(self):
        self.progress.start()
        self.session = self._new_session()
        status, err = FINISHED, None
        try:
            self.session.open()
            self.commander.wait_for_state(self.p['startup_timeout_s'])
            self.log.info(f'driver publishes on {self.commander.subscription.topic_name}; '
                          f'recording to {self.session.bag_path}')
            if self.p['passive']:
                self.run_passive()
            else:
                self.commander.wait_for_subscriber(self.p['startup_timeout_s'], NO_SUBSCRIBER_HINT)
                self.run_experiment()
        except Cancelled:
            status = CANCELLED
            if self.commander.error is not None:
                status, err = FAILED, self.commander.error
        except (RobotIdError, ValueError, OSError) as exc:
            status, err = FAILED, exc
        except Exception as exc:  # noqa: BLE001 - report anything, keep the data
            status, err = FAILED, exc
            self.log.error(traceback.format_exc())
        finally:
            if status != FINISHED:
                try:
                    self.commander.hold_position()
                except Exception:  # noqa: BLE001 - best effort while shutting down
                    pass
            self._finish(status, err)

    def _finish(self, status, err):
        status, msg = self.session.finish(status, err, self._run_info)
        self.state = status
        bag = self.session.bag_path
        where = f' (data so far: {bag})' if bag else ''
        if status == FAILED:
            self.log.error(f'recording failed: {msg}{where}')
        elif status == CANCELLED:
            self.log.warning(f'recording cancelled{where}; bag and sidecar are valid')
        else:
            self.log.info(f'recording finished: {bag} and {self.session.sidecar_file.name}')
        self.progress.report(force=True)
        if self.p['shutdown_when_done']:
            self.exit_code = EXIT_CODES[status]
            self.context.try_shutdown()

    def _run_info(self, info):
        """Add what every recorder reports (a set point stream's timing), then ``finish_info``."""
        refused = self.commander.gate.report()
        info['joint_states_refused'] = refused
        if refused['rejected']:
            self.log.warning(f"{refused['rejected']} joint state(s) refused as bad input (moved "
                             f"farther than the drives could); the last: {refused['last_reason']}")
        timing = getattr(self.commander.adapter, 'timing', None)
        if timing is not None:
            info['command_stream'] = timing.report()
            self.log.info(f'set point stream: {timing.sends} sent, latest '
                          f'{timing.late_max_s:.3f} s after its plan (lead {timing.lead_s:g} s), '
                          f'{timing.past_their_time} past their time, longest pause '
                          f'{1e3 * timing.wall_gap_max_s:.0f} ms wall')
        self.finish_info(info)

    # ------------------------------------------------------------------ hooks for subclasses
    def run_experiment(self):
        """Run the active experiment (worker thread); raise to fail the run."""
        raise NotImplementedError

    def run_passive(self):
        """Run passively (the default): record until cancelled (or ``passive_duration_s``)."""
        t_stop = self.passive_stop_ns()
        self.progress.set(0, 0, 'passive recording')
        self.wait_for(lambda: True if t_stop is not None
                      and self.latest().stamp_ns >= t_stop else None)

    def finish_info(self, info):
        """Add run statistics to the sidecar ``info`` at the end of a run."""


__all__ = ['RecorderBase']
