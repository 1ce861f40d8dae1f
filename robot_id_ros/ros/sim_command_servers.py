# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The real youBot driver's command interfaces on the simulated driver (youbot_sim).

- ``FollowJointTrajectoryServer``: a ``control_msgs/action/FollowJointTrajectory`` server. A goal's
  trajectory is followed like a JointTrajectory command (``header.stamp`` = start time); feedback
  (desired, actual, error) every ``FEEDBACK_EVERY`` joint states; path tolerances are checked on
  every joint state and goal tolerances at the end (plus the goal's ``goal_time_tolerance``),
  with upstream's error codes; a cancelled goal holds the arm at once; a new goal preempts the
  running one (aborted, 'preempted').
- ``position_command_subscription``: ``brics_actuator/msg/JointPositions`` set points followed by
  ``SimDriver.position_setpoint`` (unit 'rad' checked, unknown joint URIs rejected with a
  warning).

Both import their message packages lazily: without them the simulator runs, logs which interface
it does not offer and how to get it, and still follows JointTrajectory commands.
"""
from __future__ import annotations

import numpy as np
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.task import Future
from std_msgs.msg import Header
from trajectory_msgs.msg import JointTrajectoryPoint

from robot_id_ros.ros.command_adapters import (InterfacePackageMissing, import_brics,
                                               import_follow_joint_trajectory)
from robot_id_ros.ros.conversions import stamp_ns, time_msg
from robot_id_ros.ros.msg_helpers import duration_s, message_taker, trajectory_points

SETPOINT_QUEUE_DEPTH = 10     # set points queued between two physics steps
FEEDBACK_EVERY = 5            # one feedback per this many joint states (10 Hz at 50 Hz)
SUCCESSFUL, INVALID_GOAL, INVALID_JOINTS = 0, -1, -2
PATH_TOLERANCE_VIOLATED, GOAL_TOLERANCE_VIOLATED = -4, -5


def _tolerances(entries, names):
    """Per-joint tolerances (rad; inf where none) from a goal's JointTolerance list."""
    tol = np.full(len(names), np.inf)
    for e in entries:
        if e.name in names and e.position > 0:
            tol[names.index(e.name)] = e.position
    return tol


class _Goal:
    """A running goal: its handle, plan, tolerances and the future its execution awaits."""

    def __init__(self, handle, plan, names, joint_idx):
        request = handle.request
        self.handle, self.plan, self.names, self.idx = handle, plan, names, joint_idx
        self.path_tol = _tolerances(request.path_tolerance, names)
        self.goal_tol = _tolerances(request.goal_tolerance, names)
        self.time_tol_s = duration_s(request.goal_time_tolerance)
        self.done = Future()
        self.ticks = 0


class FollowJointTrajectoryServer:
    """The simulated driver's FollowJointTrajectory action (see the module doc)."""

    def __init__(self, node, driver, name):
        """Create the action server ``name`` on ``node`` for ``driver`` (a ``SimDriver``).

        Raises:
            InterfacePackageMissing: control_msgs is not installed.
        """
        self.action_type = import_follow_joint_trajectory()
        self.node, self.driver = node, driver
        self.log = node.get_logger()
        self.active: _Goal | None = None
        self.server = ActionServer(node, self.action_type, name, execute_callback=self._execute,
                                   goal_callback=self._on_goal,
                                   cancel_callback=self._on_cancel)

    def _result(self, code, text):
        result = self.action_type.Result()
        result.error_code, result.error_string = code, text
        return result

    def _on_goal(self, request):
        names = list(request.trajectory.joint_names)
        unknown = [n for n in names if n not in self.driver.arm.joint_names]
        if unknown or not names:
            self.log.warning(f'FollowJointTrajectory goal rejected: unknown joints {unknown}')
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _on_cancel(self, handle):
        goal = self.active
        if goal is not None and goal.handle is handle:
            self.driver.hold()           # stop at once; the next joint state ends the goal
        return CancelResponse.ACCEPT

    async def _execute(self, handle):
        traj = handle.request.trajectory
        names = list(traj.joint_names)
        ok, text = self.driver.command(names, trajectory_points(traj), stamp_ns(traj.header.stamp))
        if not ok:
            self.log.error(text)
            handle.abort()
            return self._result(INVALID_GOAL, text)
        previous = self.active
        if previous is not None:
            self._finish(previous, 'abort', self._result(INVALID_GOAL, 'preempted by a new goal'))
        arm = self.driver.arm
        goal = self.active = _Goal(handle, arm.plan, names,
                                   [arm.joint_names.index(n) for n in names])
        return await goal.done

    def _finish(self, goal, how, result):
        getattr(goal.handle, how)()
        if self.active is goal:
            self.active = None
        goal.done.set_result(result)

    def tick(self, m) -> None:
        """Advance the running goal with the measurement ``m`` (after each joint state)."""
        goal = self.active
        if goal is None:
            return
        t = self.driver.arm.t
        if not self.driver.motors_on:
            self._finish(goal, 'abort', self._result(INVALID_GOAL, (
                f'the arm motors were switched off at sim time {t:.3f} s; call switchOnMotors')))
            return
        if goal.handle.is_cancel_requested:
            self._finish(goal, 'canceled', self._result(SUCCESSFUL, 'cancelled: holding'))
            return
        desired = goal.plan.sample(t)[0][goal.idx]
        actual = np.asarray(m.position_rad)[goal.idx]
        error = desired - actual
        goal.ticks += 1
        if goal.ticks % FEEDBACK_EVERY == 0:
            self._feedback(goal, desired, actual, error, np.asarray(m.velocity_rad_s)[goal.idx])
        end = goal.plan.end_time
        over = np.abs(error) > goal.path_tol
        if t <= end and np.any(over):
            j = int(np.flatnonzero(over)[0])
            self.driver.hold()
            self._finish(goal, 'abort', self._result(PATH_TOLERANCE_VIOLATED, (
                f'{goal.names[j]} is {abs(error[j]):.4f} rad off its path (tolerance '
                f'{goal.path_tol[j]:g} rad) at sim time {t:.3f} s')))
        elif t >= end:
            final = goal.plan.P[-1][goal.idx] - actual
            miss = np.abs(final) > goal.goal_tol
            if not np.any(miss):
                self._finish(goal, 'succeed', self._result(SUCCESSFUL, 'goal reached'))
            elif t > end + goal.time_tol_s:
                j = int(np.flatnonzero(miss)[0])
                self._finish(goal, 'abort', self._result(GOAL_TOLERANCE_VIOLATED, (
                    f'{goal.names[j]} ended {abs(final[j]):.4f} rad from its goal (tolerance '
                    f'{goal.goal_tol[j]:g} rad) {goal.time_tol_s:g} s after the end')))

    def _feedback(self, goal, desired, actual, error, velocity):
        fb = self.action_type.Feedback()
        fb.header = Header(stamp=time_msg(self.driver.realtime.stamp_ns(self.driver.arm.t)))
        fb.joint_names = goal.names
        fb.desired = JointTrajectoryPoint(positions=desired.tolist())
        fb.actual = JointTrajectoryPoint(positions=actual.tolist(), velocities=velocity.tolist())
        fb.error = JointTrajectoryPoint(positions=error.tolist())
        goal.handle.publish_feedback(fb)


def position_command_subscription(node, driver, topic, on_reject):
    """Subscribe ``driver.position_setpoint`` to brics JointPositions on ``topic``.

    The executor delivers set points between physics ticks; ``take_pending()`` (returned) takes
    those queued meanwhile, in order, and the node calls it before every physics step, so a tick
    that catches up several publish periods follows a stream of set points as the real driver
    does in its control loop (one thread; no set point waits for the tick's end).

    Args:
        node: the sim node.
        driver: the ``SimDriver``.
        topic: the position command topic.
        on_reject: called with the text of a rejected set point.

    Returns:
        ``take_pending()``: follows every queued set point; a no-op where this rclpy has no
        ``take_message`` (the executor then delivers each).

    Raises:
        InterfacePackageMissing: brics_actuator is not installed.
    """
    joint_positions = import_brics()[0]

    def on_set_point(msg):
        values = msg.positions
        ok, text = driver.position_setpoint([v.joint_uri for v in values],
                                            [v.unit for v in values],
                                            [v.value for v in values],
                                            [stamp_ns(v.timestamp) for v in values])
        if not ok:
            on_reject(text)
    sub = node.create_subscription(joint_positions, topic, on_set_point, SETPOINT_QUEUE_DEPTH)
    take = message_taker(sub, joint_positions)
    if take is None:
        return lambda: None

    def take_pending():
        for _ in range(SETPOINT_QUEUE_DEPTH):
            msg = take()
            if msg is None:
                return
            on_set_point(msg)
    return take_pending


__all__ = ['FollowJointTrajectoryServer', 'InterfacePackageMissing',
           'position_command_subscription']
