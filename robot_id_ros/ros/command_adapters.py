# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The real youBot driver's command interfaces as thin adapters of ``ArmCommander``.

The same planned motion (``record.Motion``, sampled by ``record.sample_for_command``) goes out
through one of them:

- ``FollowJointTrajectoryAdapter``: a ``control_msgs/action/FollowJointTrajectory`` client. A
  motion is one goal whose trajectory's ``header.stamp`` is its start time; feedback is kept
  (``last_feedback``); a result other than success (tolerance violated, goal rejected or aborted)
  fails the commander with one line naming the error code and the driver's text; ``stop()``
  cancels every active goal (the driver then holds the arm).
- ``BricsPositionAdapter``: ``brics_actuator/msg/JointPositions`` set points streamed at
  ``rate_hz``, each sent ``lead_s`` before the time it is for (``STREAM_LEAD_S``), unit
  ``'rad'``, ``joint_uri`` = the joint name, ``timestamp`` = the time it is for; ``stop()`` ends
  the stream at its next set point, ``hold(q)`` sends one last set point at ``q``.

Their message packages are not dependencies of this package: they are imported when an adapter is
made, and a missing one raises ``InterfacePackageMissing`` with one line naming the package and how
to get it. ``command_interface`` 'trajectory' and 'trajectory_stream' need neither.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from rclpy.action import ActionClient

from robot_id_ros import record as rec
from robot_id_ros.errors import OperationError
from robot_id_ros.ros.conversions import duration_msg, time_msg, trajectory_msg
from robot_id_ros.ros.events import publisher_matched_callbacks

BRICS_POSITION_UNIT = 'rad'          # the unit string the youBot driver checks
STREAM_LEAD_S = 0.04                 # a set point is sent this long before its time (ROS), s
GOAL_TIME_TOLERANCE_S = 0.5          # a goal may end this late and still succeed
ORIGINATOR = 'robot_id_ros'
# the real youBot driver's names (ROS 2 port of youbot_driver_ros_interface)
DEFAULT_ACTION = 'arm_1/arm_controller/follow_joint_trajectory'
DEFAULT_POSITION_COMMAND_TOPIC = 'arm_1/arm_controller/position_command'
HOW_TO_GET = {
    'control_msgs': 'apt install ros-$ROS_DISTRO-control-msgs',
    'brics_actuator': "build the youBot driver's workspace (brics_actuator) and source it",
}
NEEDED_BY = {'control_msgs': 'follow_joint_trajectory', 'brics_actuator': 'brics_position'}
# FollowJointTrajectory result codes, by value (upstream control_msgs' names)
RESULT_CODES = {0: 'SUCCESSFUL', -1: 'INVALID_GOAL', -2: 'INVALID_JOINTS',
                -3: 'OLD_HEADER_TIMESTAMP', -4: 'PATH_TOLERANCE_VIOLATED',
                -5: 'GOAL_TOLERANCE_VIOLATED'}


@dataclass(frozen=True)
class CommandSettings:
    """How motions are sent.

    Attributes:
        interface: 'trajectory' (one stamped message) or 'trajectory_stream' (chunks).
        lead_s: a motion sent without a start time starts this long after now (ROS time), s.
        point_period_s: time between the points of a sent trajectory, s.
        chunk_s: length of one chunk of 'trajectory_stream', s.
        send_start_point: also send the point at time 0 (the controller then starts from it
            instead of from its current set point).
        action_name: the FollowJointTrajectory action of 'follow_joint_trajectory'.
        position_command_topic: the brics JointPositions topic of 'brics_position'.
        stream_rate_hz: set points per second (ROS time) of 'brics_position', Hz.
        stream_lead_s: a set point of 'brics_position' is sent this long before its time, s.
        path_tolerance_rad: per-joint path tolerance of a goal, rad (0: the driver's default).
        goal_tolerance_rad: per-joint goal tolerance of a goal, rad (0: the driver's default).
    """

    interface: str = 'trajectory'
    lead_s: float = 0.3
    point_period_s: float = 0.05
    chunk_s: float = 1.0
    send_start_point: bool = False
    action_name: str = DEFAULT_ACTION
    position_command_topic: str = DEFAULT_POSITION_COMMAND_TOPIC
    stream_rate_hz: float = 50.0
    stream_lead_s: float = STREAM_LEAD_S
    path_tolerance_rad: float = 0.0
    goal_tolerance_rad: float = 0.0


class InterfacePackageMissing(OperationError):
    """A command interface needs a message package that is not installed."""

    kind = 'missing_interface_package'


def missing_package_message(package: str) -> str:
    """Return the one line that says which package is missing and how to get it."""
    return (f"command_interface '{NEEDED_BY[package]}' needs the ROS 2 package {package}, which "
            f'is not installed: {HOW_TO_GET[package]}, or build it for tests with '
            'tools/build_interfaces.py')


def import_follow_joint_trajectory():
    """Return ``control_msgs.action.FollowJointTrajectory``.

    Raises:
        InterfacePackageMissing: control_msgs is not installed.
    """
    try:
        from control_msgs.action import FollowJointTrajectory
    except ImportError:
        raise InterfacePackageMissing(missing_package_message('control_msgs')) from None
    return FollowJointTrajectory


def import_brics():
    """Return ``(JointPositions, JointValue)`` of brics_actuator.

    Raises:
        InterfacePackageMissing: brics_actuator is not installed.
    """
    try:
        from brics_actuator.msg import JointPositions, JointValue
    except ImportError:
        raise InterfacePackageMissing(missing_package_message('brics_actuator')) from None
    return JointPositions, JointValue


def joint_positions_msg(types, joint_names, q_rad, stamp_ns: int):
    """Build a brics ``JointPositions`` of one set point.

    Args:
        types: ``(JointPositions, JointValue)`` from ``import_brics``.
        joint_names: joint URIs (the driver's joint names).
        q_rad: positions, rad.
        stamp_ns: the time the set point is for (ROS time, ns).

    Returns:
        The message (unit 'rad', poison_stamp.originator 'robot_id_ros').
    """
    JointPositions, JointValue = types
    msg = JointPositions()
    msg.poison_stamp.originator = ORIGINATOR
    stamp = time_msg(stamp_ns)
    msg.positions = [JointValue(timestamp=stamp, joint_uri=name, unit=BRICS_POSITION_UNIT,
                                value=float(v)) for name, v in zip(joint_names, q_rad)]
    return msg


class FollowJointTrajectoryAdapter:
    """Motions as FollowJointTrajectory goals (see the module doc)."""

    missing = 'no FollowJointTrajectory action server on'
    timed_setpoints = False          # one goal: a late one delays the whole motion

    def __init__(self, commander, action_name, path_tolerance_rad=0.0,
                 goal_tolerance_rad=0.0):
        """Create the action client.

        Args:
            commander: the ``ArmCommander`` (node, joint names, settings, ``fail``).
            action_name: the driver's action.
            path_tolerance_rad: per-joint path tolerance sent with every goal (0: the driver's).
            goal_tolerance_rad: per-joint goal tolerance sent with every goal (0: the driver's).
        """
        self.action_type = import_follow_joint_trajectory()
        self.commander = commander
        self.client = ActionClient(commander.node, self.action_type, action_name)
        self.name = action_name
        self.path_tolerance_rad = float(path_tolerance_rad)
        self.goal_tolerance_rad = float(goal_tolerance_rad)
        self.last_feedback = None
        self.feedback_count = 0
        self._lock = threading.Lock()
        self._active = {}            # id -> accepted goal handle without a result yet
        self._stopped = False
        self._sent = 0                 # goals sent; a result of an older one is not an error

    def ready(self) -> bool:
        """Return True when the driver's action server is up."""
        return self.client.server_is_ready()

    def _tolerances(self, value):
        if value <= 0:
            return []
        from control_msgs.msg import JointTolerance
        return [JointTolerance(name=n, position=float(value)) for n in self.commander.joint_names]

    def goal(self, motion, start_ns: int):
        """Build the goal of ``motion`` starting at ``start_ns`` (ROS time, ns)."""
        c = self.commander
        rel, q, qd = rec.sample_for_command(motion, 0.0, motion.duration_s,
                                            c.settings.point_period_s)
        keep = rel >= 0 if c.settings.send_start_point else rel > 0
        goal = self.action_type.Goal()
        goal.trajectory = trajectory_msg(c.joint_names, rel[keep], q[keep], qd[keep],
                                         start_ns=start_ns)
        goal.path_tolerance = self._tolerances(self.path_tolerance_rad)
        goal.goal_tolerance = self._tolerances(self.goal_tolerance_rad)
        goal.goal_time_tolerance = duration_msg(int(GOAL_TIME_TOLERANCE_S * 1e9))
        return goal

    def send(self, motion, start_ns: int) -> None:
        """Send ``motion`` as one goal starting at ``start_ns`` (ns); returns at once."""
        self._stopped = False
        self._sent += 1
        number = self._sent
        future = self.client.send_goal_async(self.goal(motion, start_ns),
                                             feedback_callback=self._on_feedback)
        future.add_done_callback(lambda f: self._on_goal_response(f, number))

    def _on_feedback(self, msg):
        self.last_feedback = msg.feedback
        self.feedback_count += 1

    def _on_goal_response(self, future, number):
        handle = future.result()
        if not handle.accepted:
            self.commander.fail(rec.RecordingError(
                f'the driver rejected the FollowJointTrajectory goal on {self.name}',
                'goal_rejected'))
            return
        with self._lock:
            self._active[id(handle)] = handle
            stopped = self._stopped
        handle.get_result_async().add_done_callback(
            lambda f: self._on_result(handle, f, number))
        if stopped:                    # stopped while the goal was on its way
            handle.cancel_goal_async()

    def _on_result(self, handle, future, number):
        from action_msgs.msg import GoalStatus

        with self._lock:
            self._active.pop(id(handle), None)
        response = future.result()
        status, result = response.status, response.result
        if status == GoalStatus.STATUS_CANCELED or (
                status == GoalStatus.STATUS_SUCCEEDED and result.error_code == 0):
            return
        if number != self._sent:       # preempted by our own newer goal
            self.commander.node.get_logger().info(
                f'an earlier goal on {self.name} ended: {result.error_string}')
            return
        code = result.error_code
        self.commander.fail(rec.RecordingError(
            f'the driver ended the motion on {self.name} with '
            f'{RESULT_CODES.get(code, "error")} ({code}): {result.error_string or "no text"}',
            'goal_failed'))

    def stop(self) -> None:
        """Cancel every active goal (the driver holds the arm where it is)."""
        with self._lock:
            self._stopped = True
            active = list(self._active.values())
        for handle in active:
            handle.cancel_goal_async()

    def hold(self, _q) -> None:
        """Stop the arm: cancel the active goals (the driver then holds its set point)."""
        self.stop()


class StreamTiming:
    """How late a set point stream's sends were (ROS time) and its longest wall pause.

    ``late_s`` of a send: ROS time at the send minus the time it was planned for (``lead_s``
    before the set point's time); one later than ``lead_s`` reached the driver after its time.
    """

    def __init__(self, lead_s: float):
        """Start empty; ``lead_s``: the stream's lead (ROS time), s."""
        self.lead_s = lead_s
        self.sends = 0
        self.late_max_s = 0.0
        self.past_their_time = 0          # sends later than the lead
        self.wall_gap_max_s = 0.0         # longest wall time between two sends
        self._last_wall_s = None

    def add(self, late_ns: int, wall_s: float) -> None:
        """Count one send ``late_ns`` (ROS ns) after its plan, at ``wall_s`` (monotonic s)."""
        late_s = late_ns * 1e-9
        self.sends += 1
        self.late_max_s = max(self.late_max_s, late_s)
        self.past_their_time += late_s > self.lead_s
        if self._last_wall_s is not None:
            self.wall_gap_max_s = max(self.wall_gap_max_s, wall_s - self._last_wall_s)
        self._last_wall_s = wall_s

    def report(self) -> dict:
        """Return the figures as a dict (seconds)."""
        return {'sends': self.sends, 'lead_s': self.lead_s, 'late_max_s': self.late_max_s,
                'past_their_time': self.past_their_time, 'wall_gap_max_s': self.wall_gap_max_s}


class BricsPositionAdapter:
    """Motions as streamed brics JointPositions set points (see the module doc)."""

    missing = 'nothing subscribes to the position command topic'
    # each set point carries the time it is for: a late one delays none of the later ones
    timed_setpoints = True

    def __init__(self, commander, topic, rate_hz, lead_s=STREAM_LEAD_S, queue_depth=10):
        """Create the JointPositions publisher.

        Args:
            commander: the ``ArmCommander``.
            topic: the driver's position command topic.
            rate_hz: set points per second of ROS time.
            lead_s: each set point is sent this long before its time (ROS time), s.
            queue_depth: publisher queue depth.
        """
        self.types = import_brics()
        self.commander = commander
        self.rate_hz = float(rate_hz)
        self.lead_s = float(lead_s)
        self.publisher = commander.node.create_publisher(
            self.types[0], topic, queue_depth,
            event_callbacks=publisher_matched_callbacks(commander._on_matched))
        self.name = self.publisher.topic_name
        self._generation = 0
        self.timing = StreamTiming(self.lead_s)
        self.last_setpoint_ns: int | None = None   # the time the last set point sent is for

    def ready(self) -> bool:
        """Return True when the driver subscribes to the position command topic."""
        return self.publisher.get_subscription_count() > 0

    def publish(self, q_rad, stamp_ns: int) -> None:
        """Publish one set point ``q_rad`` (rad) meant for ``stamp_ns`` (ns)."""
        self.last_setpoint_ns = int(stamp_ns)
        self.publisher.publish(joint_positions_msg(self.types, self.commander.joint_names,
                                                   q_rad, stamp_ns))

    def stream(self, motion, start_ns: int) -> None:
        """Send the set points of ``motion`` starting at ``start_ns``; returns after the last.

        Each set point is for ``start_ns + k / rate_hz`` (the last one at the motion's end) and
        is sent ``lead_s`` before. A newer stream or ``stop()`` ends this
        one; a cancelled commander raises ``Cancelled`` from the wait.
        """
        self._generation += 1
        generation = self._generation
        period_s = 1.0 / self.rate_hz
        count = int(math.ceil(motion.duration_s * self.rate_hz - 1e-9))
        for k in range(1, count + 1):
            t_s = min(k * period_s, motion.duration_s)
            send_ns = start_ns + int((t_s - self.lead_s) * 1e9)
            self.commander.wait_until_time(send_ns)
            if generation != self._generation:
                return
            self.timing.add(self.commander.time_ref_ns() - send_ns, time.monotonic())
            self.publish(motion.evaluate(t_s)[0], start_ns + int(t_s * 1e9))

    def stop(self) -> None:
        """End the running stream before its next set point."""
        self._generation += 1

    def hold(self, q_rad) -> None:
        """End the stream and send ``q_rad`` (rad) as the set point for now.

        ``q_rad`` continues the stream (``ros.setpoint_guard.send_hold``: its last set point).
        """
        self.stop()
        self.publish(q_rad, self.commander.time_ref_ns())


def make_adapter(commander, settings):
    """Return the adapter of ``settings.interface`` (None for the JointTrajectory ones).

    Args:
        commander: the ``ArmCommander``.
        settings: its ``CommandSettings``.

    Returns:
        A ``FollowJointTrajectoryAdapter``, a ``BricsPositionAdapter`` or None.

    Raises:
        InterfacePackageMissing: the interface's message package is not installed.
    """
    if settings.interface == 'follow_joint_trajectory':
        return FollowJointTrajectoryAdapter(commander, settings.action_name,
                                            settings.path_tolerance_rad,
                                            settings.goal_tolerance_rad)
    if settings.interface == 'brics_position':
        return BricsPositionAdapter(commander, settings.position_command_topic,
                                    settings.stream_rate_hz, settings.stream_lead_s)
    return None


__all__ = ['BRICS_POSITION_UNIT', 'BricsPositionAdapter', 'CommandSettings', 'DEFAULT_ACTION',
           'DEFAULT_POSITION_COMMAND_TOPIC', 'FollowJointTrajectoryAdapter',
           'InterfacePackageMissing', 'RESULT_CODES', 'STREAM_LEAD_S', 'import_brics',
           'import_follow_joint_trajectory', 'joint_positions_msg', 'make_adapter',
           'missing_package_message']
