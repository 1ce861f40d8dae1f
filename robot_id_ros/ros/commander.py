# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""ArmCommander: drive an arm through its joint trajectory controller and wait on its joint states.

In the manner of a navigation "simple commander": a plain object on a node the caller spins, with
blocking calls meant for a worker thread (``send_motion``, ``move_to``, ``hold_position``,
``wait_until_stamp``, ``wait_until_time``, ``sleep``) and the newest joint state (``latest``).

- It subscribes to the driver's ``sensor_msgs/JointState`` best effort (it matches reliable and
  best-effort publishers, and a reliable reader can make a loaded simulator's writes fail) and
  publishes ``trajectory_msgs/JointTrajectory`` commands.
- Set points cannot jump (``ros.setpoint_guard``): a joint state that moved farther than the
  drives could since the last accepted one is bad input (counted in ``rejected_states``, logged,
  and neither ``latest()`` nor a listener's sample); a hold or stop goes to the commanded pose
  (``path``, every motion sent), rate-limited and within the joint limits, never to a measured one.
- Waits are event-driven: every joint state (and a subscriber matching the command topic)
  notifies a ``threading.Condition``; a waiting thread wakes on it, never on a sleep loop. Times
  are ROS time (``use_sim_time`` honoured), so a simulation faster than real time is followed.
- Every wait raises ``Cancelled`` after ``cancel()``, the error given to ``fail()`` (from any
  thread: a callback that found a problem), or ``DriverError`` when the driver has been silent
  for ``driver_timeout_s`` (wall clock).
- ``add_listener(fn)`` has ``fn(stamp_ns, msg, sample)`` called for every joint state, in the
  subscription's callback and before the waiters wake (a recorder writes its bag there).

Commands: ``'trajectory'`` sends a motion as one message whose ``header.stamp`` is its start
time; ``'trajectory_stream'`` sends it in chunks of ``chunk_s``, each ``lead_s`` before it begins
and stamped 0 (start on receipt), for controllers that take no future start times. The real youBot
driver's own interfaces are thin adapters (``ros.command_adapters``): ``'follow_joint_trajectory'``
(one action goal per motion, cancelled on ``cancel()``) and ``'brics_position'`` (JointPositions
set points streamed at ``stream_rate_hz``, stopped on ``cancel()``).
"""
from __future__ import annotations

import threading
import time

import numpy as np
from rclpy.clock import JumpThreshold
from rclpy.duration import Duration
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory

from robot_id_ros import record as rec
from robot_id_ros.errors import OperationError
from robot_id_ros.io.joint_state import JointIndexer, JointStateError
from robot_id_ros.record.session import StampedSample
from robot_id_ros.record.setpoints import CommandedPath
from robot_id_ros.ros.command_adapters import (  # noqa: F401 - re-exported
    DEFAULT_ACTION, DEFAULT_POSITION_COMMAND_TOPIC, CommandSettings, make_adapter)
from robot_id_ros.ros.conversions import stamp_ns, time_msg
from robot_id_ros.ros.events import publisher_matched_callbacks
from robot_id_ros.ros.msg_helpers import draining_subscription
from robot_id_ros.ros.setpoint_guard import JointStateGate, send_hold
from robot_id_ros.ros.trajectory_chunks import points_msg, stream_chunks

INTERFACES = ('trajectory', 'trajectory_stream', 'follow_joint_trajectory', 'brics_position')
DEFAULT_COMMAND_TOPIC = 'joint_trajectory_controller/joint_trajectory'
# joint states queued by the subscription (keep-last: a queue that overflows drops the oldest):
# 10 s of a 1 kHz driver, 12.5 s of the simulator at 200 Hz and 4x real time, so that a recorder
# starved of CPU for seconds loses nothing (Fast DDS does not preallocate the queue)
JOINT_STATE_QUEUE_DEPTH = 10000
COMMAND_QUEUE_DEPTH = 10
HOLD_TIME_S = 0.2            # hold_position reaches its target this long after receipt at least
MOVE_MIN_DURATION_S = 0.2    # shortest point-to-point move of move_to
# a motion is sent at least this long (wall clock) before it starts, whatever the lead asked in
# ROS time: a simulation running 4x faster than real time turns a 0.3 s lead into 75 ms of wall
# time, less than a long trajectory takes to reach a driver on a loaded machine (it then starts
# late, jumps and trips the tracking check)
MIN_COMMAND_LEAD_WALL_S = 0.5
STREAM_JOIN_TIMEOUT_S = 2.0  # wall time a hold waits for a cancelled stream to end
RATE_WINDOW_S = 1.0          # wall time over which the ROS clock's rate is measured


class Cancelled(Exception):
    """The commander was cancelled (``cancel()``: a cancel request or a shutdown)."""


class DriverError(rec.RecordingError):
    """The driver does not publish, stopped publishing, or does not take commands.

    ``kind``: 'no_driver', 'driver_silent' or 'no_subscriber'.
    """

    kind = 'driver'


class ArmCommander:
    """Commands and event-driven waits for one arm (see the module doc)."""

    def __init__(self, node, joint_names, *, joint_states_topic='joint_states',
                 command_topic=DEFAULT_COMMAND_TOPIC, settings: CommandSettings | None = None,
                 limits=None, position_limits=None, passive=False, driver_timeout_s=None,
                 queue_depth=JOINT_STATE_QUEUE_DEPTH, wake_on_clock=True, speed_limit_rad_s=None):
        """Subscribe to the joint states and create the command publisher.

        Args:
            node: the rclpy node to create the subscription and publisher on (spun elsewhere).
            joint_names: commanded joints, base to tip (the order of every array here).
            joint_states_topic: the driver's JointState topic.
            command_topic: the JointTrajectory topic the driver follows.
            settings: ``CommandSettings`` (default: one stamped message, 0.3 s lead).
            limits: ``SafetyLimits`` of ``move_to`` (velocity, acceleration), or None.
            position_limits: (lower, upper) joint positions (rad) ``hold_position`` clips to.
            speed_limit_rad_s: per-joint speed the drives can reach (rad/s): joint states that
                moved faster are refused; default ``limits``' velocity (None: accept all).
            passive: never command (``send_motion`` raises, ``hold_position`` does nothing).
            driver_timeout_s: wall seconds without a joint state after which waits raise
                ``DriverError``; None: no check.
            queue_depth: joint states the subscription queues.
            wake_on_clock: wake the waiters on every step of the ROS clock too (needed only when
                the clock may run while the driver is silent).
        """
        if settings is None:
            settings = CommandSettings()
        if settings.interface not in INTERFACES:
            raise OperationError(f'unknown command interface {settings.interface!r}')
        self.node = node
        self.joint_names = tuple(joint_names)
        self.settings = settings
        self.limits = limits
        self.position_limits = position_limits
        self.passive = bool(passive)
        self.driver_timeout_s = driver_timeout_s
        self.joint_states_topic = joint_states_topic
        self._log = node.get_logger()
        self.indexer = JointIndexer(self.joint_names, notice=self._log.warning)
        self.bad_messages = 0
        self.last_bad: str | None = None
        if speed_limit_rad_s is None and limits is not None:
            speed_limit_rad_s = limits.per_joint(len(self.joint_names))[0]
        self._speed_limit_rad_s = speed_limit_rad_s
        self.gate = JointStateGate(speed_limit_rad_s, self._log, joint_states_topic)
        self.path = CommandedPath()          # every motion sent, the reference of a hold
        self._cond = threading.Condition()
        self._seq = 0                      # bumped on every event a waiter may wait for
        self._latest: StampedSample | None = None
        self._last_wall: float | None = None   # time.monotonic() of the last joint state
        self._cancel = threading.Event()
        self._error: BaseException | None = None
        self._listeners: list = []
        self._stream_thread: threading.Thread | None = None
        # (wall s, stamp ns) the clock rate is measured from
        self._rate_anchor: tuple | None = None
        self.clock_rate = 1.0                    # ROS seconds per wall second (>1: sim is faster)
        qos = QoSProfile(depth=queue_depth, reliability=ReliabilityPolicy.BEST_EFFORT,
                         durability=DurabilityPolicy.VOLATILE)
        # one executor pass works off the queued joint states (a recorder starved of CPU
        # would otherwise fall behind the driver for good)
        self.subscription = draining_subscription(node, JointState, joint_states_topic,
                                                  self._on_joint_state, qos)
        self.publisher = None
        self.adapter = None if passive else make_adapter(self, settings)
        if self.adapter is None:
            self.publisher = node.create_publisher(
                JointTrajectory, command_topic, COMMAND_QUEUE_DEPTH,
                event_callbacks=publisher_matched_callbacks(self._on_matched))
        # every step of the ROS clock (a /clock message with use_sim_time) wakes the waiters too,
        # for waits on the clock while the driver is silent; a caller whose driver publishes
        # joint states all along saves those callbacks (wake_on_clock=False)
        self._clock_jumps = node.get_clock().create_jump_callback(
            JumpThreshold(min_forward=Duration(nanoseconds=1), min_backward=None,
                          on_clock_change=True),
            post_callback=self._on_matched) if wake_on_clock else None

    # ------------------------------------------------------------------ callbacks
    def _on_joint_state(self, msg: JointState) -> None:
        self._last_wall = time.monotonic()     # the driver is alive, however long we take here
        stamp = stamp_ns(msg.header.stamp) or self.now_ns()
        sample = self._convert(msg, stamp)
        if sample is not None:
            if self.gate.accept(sample, self._last_wall, self.clock_rate):
                self._measure_rate(self._last_wall, stamp)
            else:
                sample = None                  # bad input: neither a target nor data
        for listener in tuple(self._listeners):
            listener(stamp, msg, sample)
        with self._cond:
            if sample is not None:
                self._latest = sample
            self._seq += 1
            self._cond.notify_all()

    def _measure_rate(self, wall_s: float, stamp: int) -> None:
        """Update ``clock_rate`` from the joint states' stamps against the wall clock."""
        anchor = self._rate_anchor
        if anchor is None or stamp < anchor[1]:
            self._rate_anchor = (wall_s, stamp)
            return
        if wall_s - anchor[0] >= RATE_WINDOW_S:
            rate = (stamp - anchor[1]) * 1e-9 / (wall_s - anchor[0])
            self.clock_rate = min(max(rate, 0.1), 100.0)
            self._rate_anchor = (wall_s, stamp)

    def lead_ns(self, lead_s: float | None = None) -> int:
        """Return the lead of a command, ns of ROS time.

        That is ``lead_s`` (default the settings') but at least ``MIN_COMMAND_LEAD_WALL_S`` of
        wall time at the clock's measured rate.
        """
        lead_s = self.settings.lead_s if lead_s is None else lead_s
        return int(max(lead_s, MIN_COMMAND_LEAD_WALL_S * self.clock_rate) * 1e9)

    def _convert(self, msg: JointState, stamp: int) -> StampedSample | None:
        try:
            s = self.indexer.convert(msg.name, msg.position, msg.velocity, msg.effort,
                                     require_velocity=False, require_effort=False)
        except JointStateError as exc:
            self.bad_messages += 1
            if self.last_bad != str(exc):
                self.last_bad = str(exc)
                self._log.error(f'unusable joint state on {self.joint_states_topic}: {exc}')
            return None
        return StampedSample(stamp, s.q, s.qd, s.effort)

    def _on_matched(self, _info) -> None:
        """Wake the waiters: a subscriber matched the command topic, or the clock moved."""
        self._notify()

    def _notify(self) -> None:
        with self._cond:
            self._seq += 1
            self._cond.notify_all()

    def add_listener(self, fn) -> None:
        """Call ``fn(stamp_ns, msg, sample)`` for every joint state.

        ``sample``: a ``StampedSample``, or None when the message is unusable.
        """
        self._listeners.append(fn)

    def remove_listener(self, fn) -> None:
        """Stop calling ``fn``."""
        self._listeners.remove(fn)

    # ------------------------------------------------------------------ state and control
    def latest(self) -> StampedSample | None:
        """Return the newest usable joint state (continuous with the arm), or None."""
        return self._latest

    @property
    def rejected_states(self) -> int:
        """Joint states refused as bad input (they moved farther than the drives could)."""
        return self.gate.rejected

    def speed_limit_rad_s(self):
        """Return the per-joint speed limit (rad/s) of holds: the drives', else ``limits``'."""
        if self._speed_limit_rad_s is not None:
            return self._speed_limit_rad_s
        return np.full(len(self.joint_names), rec.YOUBOT_SAFE_VELOCITY_RAD_S)

    def now_ns(self) -> int:
        """Return the node's clock (ROS time), ns."""
        return self.node.get_clock().now().nanoseconds

    def time_ref_ns(self) -> int:
        """Return the present in ROS time (ns).

        That is the node clock, never behind the newest joint state stamp (the clock may lag, or
        be zero before the first /clock message with sim time).
        """
        last = self._latest
        return max(self.now_ns(), last.stamp_ns if last is not None else 0)

    @property
    def error(self) -> BaseException | None:
        """The error given to ``fail()``, or None."""
        return self._error

    @property
    def cancelled(self) -> bool:
        """True after ``cancel()`` (until ``reset()``)."""
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Make every wait (now and later) raise ``Cancelled``; thread-safe.

        An adapter's goal is cancelled (or its stream stopped) at once.
        """
        self._cancel.set()
        if self.adapter is not None:
            self.adapter.stop()
        self._notify()

    def fail(self, exc: BaseException) -> None:
        """Make every wait raise ``exc`` (the first error given wins); thread-safe."""
        if self._error is None:
            self._error = exc
        self._notify()

    def reset(self) -> None:
        """Forget a cancel and an error (before a new run)."""
        self._cancel.clear()
        self._error = None

    def check(self) -> None:
        """Raise the pending error, if any.

        That is the error given to ``fail()``, ``Cancelled``, or ``DriverError`` when the driver
        has been silent longer than ``driver_timeout_s``.
        """
        if self._error is not None:
            raise self._error
        if self._cancel.is_set():
            raise Cancelled()
        last = self._last_wall
        if last is not None and self.driver_timeout_s is not None:
            silent_s = time.monotonic() - last
            if silent_s > self.driver_timeout_s:
                raise DriverError(f'the driver stopped publishing on {self.joint_states_topic}: '
                                  f'no joint state for {silent_s:.1f} s (driver_timeout_s = '
                                  f'{self.driver_timeout_s})', 'driver_silent')

    # ------------------------------------------------------------------ waiting
    def wait_for(self, ready, timeout_s=None, max_wait_s=None, idle=None):
        """Block until ``ready()`` returns something other than None, and return that.

        ``ready`` is checked on every joint state and event; ``check()`` runs before each try.

        Args:
            ready: callable without arguments.
            timeout_s: give up after this many wall seconds (return None); None: never.
            max_wait_s: callable giving the longest wall wait (s) before trying again without
                an event (a deadline on a clock that runs without joint states), or None.
            idle: callable run between tries (outside the lock), or None.

        Returns:
            The first non-None value of ``ready()``, or None on timeout.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            seq = self._seq
            self.check()
            result = ready()
            if result is not None:
                return result
            if idle is not None:
                idle()
            waits = [] if max_wait_s is None else [max(0.0, max_wait_s())]
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                waits.append(left)
            if self._last_wall is not None and self.driver_timeout_s is not None:
                waits.append(max(0.0, self._last_wall + self.driver_timeout_s
                                 - time.monotonic()) + 1e-3)
            with self._cond:
                if self._seq == seq:
                    self._cond.wait(min(waits) if waits else None)

    def wait_for_state(self, timeout_s: float) -> StampedSample:
        """Return the first usable joint state, waiting up to ``timeout_s`` wall seconds for it.

        Raises:
            DriverError: none came (the message names the topic and any unusable messages).
        """
        got = self.wait_for(self.latest, timeout_s)
        if got is None:
            bad = (f'; {self.bad_messages} message(s) arrived but were unusable: {self.last_bad}'
                   if self.bad_messages else '')
            raise DriverError(
                f'no joint state from the driver on {self.subscription.topic_name} within '
                f'{timeout_s:g} s (is the driver running, on this ROS domain, with these joint '
                f'names: {", ".join(self.joint_names)}?){bad}', 'no_driver')
        return got

    def wait_for_subscriber(self, timeout_s: float, hint: str = '') -> None:
        """Wait until the driver subscribes to the command topic.

        Commands published before are lost. ``hint`` ends the error message.

        Raises:
            DriverError: nothing subscribed within ``timeout_s`` wall seconds.
        """
        a = self.adapter
        ready = a.ready if a else lambda: self.publisher.get_subscription_count() > 0
        if self.wait_for(lambda: ready() or None, timeout_s) is None:
            what = a.missing if a else 'nothing subscribes to the command topic'
            name = a.name if a else self.publisher.topic_name
            raise DriverError(f"{what} {name} after {timeout_s:g} s: is the driver's "
                              f'{"arm" if a else "trajectory"} controller running?{hint}',
                              'no_subscriber')

    def wait_until_stamp(self, t_ns: int, idle=None) -> StampedSample:
        """Block until a joint state stamped at or after ``t_ns`` arrived; return it.

        ``t_ns`` is in ns, driver time. ``idle``: see ``wait_for``.
        """
        def ready():
            last = self._latest
            return last if last is not None and last.stamp_ns >= t_ns else None
        return self.wait_for(ready, idle=idle)

    def wait_until_time(self, t_ns: int, idle=None, clock_only: bool = False) -> None:
        """Block until ``time_ref_ns()`` reaches ``t_ns`` (ns, ROS time).

        With ``clock_only``, until the node clock (``now_ns()``) does. ``idle``: see ``wait_for``.
        """
        now = self.now_ns if clock_only else self.time_ref_ns
        self.wait_for(lambda: True if now() >= t_ns else None,
                      max_wait_s=lambda: (t_ns - now()) * 1e-9, idle=idle)

    def sleep(self, seconds: float, idle=None) -> StampedSample:
        """Wait ``seconds`` of driver time from the newest joint state; return the state then."""
        return self.wait_until_stamp(self._latest.stamp_ns + int(seconds * 1e9), idle=idle)

    # ------------------------------------------------------------------ commanding
    def send_motion(self, motion, start_ns: int | None = None, background: bool = False,
                    lead_s: float | None = None) -> int:
        """Command ``motion`` (a ``record.Motion``) to start at ``start_ns``.

        Args:
            motion: the planned motion (positions rad, velocities rad/s).
            start_ns: start time (ROS time, ns); default: now + ``lead_ns(lead_s)``, taken after
                the message is built, so building it does not eat into the lead.
            background: with 'trajectory_stream' or 'brics_position', stream from a thread and
                return at once (a streaming failure then reaches the waits through ``fail()``).
            lead_s: the lead when ``start_ns`` is not given (default the settings').

        Returns:
            The start time, ns.
        """
        if self.passive:
            raise OperationError('a passive commander never commands the arm')
        if self.settings.interface == 'trajectory':
            msg = points_msg(self, motion, 0.0, motion.duration_s, 0)
            if start_ns is None:
                start_ns = self.time_ref_ns() + self.lead_ns(lead_s)
            self.path.add(start_ns, motion)
            if msg is not None:
                msg.header.stamp = time_msg(start_ns)
                self.publisher.publish(msg)
            return start_ns
        if start_ns is None:
            start_ns = self.time_ref_ns() + self.lead_ns(lead_s)
        self.path.add(start_ns, motion)
        if self.settings.interface == 'follow_joint_trajectory':
            self.adapter.send(motion, start_ns)
            return start_ns
        if background:
            self._stream_thread = threading.Thread(target=self._stream_reporting,
                                                   args=(motion, start_ns), daemon=True)
            self._stream_thread.start()
        else:
            self._stream(motion, start_ns)
        return start_ns

    def _stream(self, motion, start_ns: int) -> None:
        """Stream ``motion``: the chunks of 'trajectory_stream', or the adapter's set points."""
        if self.adapter is not None:
            self.adapter.stream(motion, start_ns)
        else:
            stream_chunks(self, motion, start_ns)

    def _stream_reporting(self, motion, start_ns: int) -> None:
        try:
            self._stream(motion, start_ns)
        except Exception as exc:  # noqa: BLE001 - reported to the waiting thread
            if self._error is None and not self._cancel.is_set():
                self.fail(rec.RecordingError(f'streaming the trajectory failed: {exc}'))

    def hold_position(self) -> np.ndarray | None:
        """Stop the arm at the pose last commanded; return the target (rad) or None.

        See ``ros.setpoint_guard.send_hold``: a one-point trajectory reached ``HOLD_TIME_S``
        (or, rate-limited, later) after receipt, 'brics_position' its last set point again,
        'follow_joint_trajectory' cancels its goals; nothing when nothing was commanded.
        """
        thread = self._stream_thread
        if (thread is not None and thread is not threading.current_thread()
                and (self.cancelled or self._error is not None)):
            thread.join(STREAM_JOIN_TIMEOUT_S)     # its waits raise: no set point after the hold
        return send_hold(self, HOLD_TIME_S)

    def move_to(self, q_target, min_duration_s: float = MOVE_MIN_DURATION_S, idle=None):
        """Move point-to-point to ``q_target`` (rad) and return the motion.

        A quintic from the measured pose within ``limits``; returns the motion once its time has
        passed (driver time).
        """
        if self.limits is None:
            raise OperationError('move_to needs the commander to have SafetyLimits')
        m = rec.plan_point_to_point(self._latest.q, q_target, self.limits,
                                    min_duration_s=min_duration_s)
        start = self.send_motion(m)
        self.wait_until_stamp(start + int(m.duration_s * 1e9), idle=idle)
        return m


__all__ = ['COMMAND_QUEUE_DEPTH', 'DEFAULT_ACTION', 'DEFAULT_COMMAND_TOPIC',
           'DEFAULT_POSITION_COMMAND_TOPIC', 'HOLD_TIME_S', 'INTERFACES',
           'JOINT_STATE_QUEUE_DEPTH', 'MOVE_MIN_DURATION_S', 'ArmCommander', 'Cancelled',
           'CommandSettings', 'DriverError']
