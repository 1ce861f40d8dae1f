# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What an ``ArmCommander`` trusts: joint states continuous with the arm, and its own commands.

- ``JointStateGate`` passes a measured joint state only when it is continuous with the last one
  passed (``record.setpoints.ContinuityCheck``); a state that moved farther than the drives could
  is bad input: refused, counted and logged (at most once a second), never a target.
- ``send_hold`` stops the arm at the pose the commander last commanded (``CommandedPath``): for
  the trajectory interfaces the commanded pose now, for 'brics_position' its last set point (the
  driver already has it), so the hold continues the commands and no message decides it. It is
  rate-limited (``record.setpoints.hold_motion``) and within the joint limits; 'follow_joint_
  trajectory' cancels its goals instead (the driver holds its own set point). Nothing commanded
  yet: nothing is sent (the driver holds where it is).
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.record.setpoints import ContinuityCheck, hold_motion
from robot_id_ros.ros.conversions import trajectory_msg

LOG_THROTTLE_S = 1.0                 # wall seconds between two log lines of refused states


class JointStateGate:
    """Measured joint states continuous with the last accepted one (see the module doc).

    Args:
        speed_limit_rad_s: per-joint speed the drives can reach (rad/s), or None to accept all.
        log: the node's logger.
        topic: the joint state topic (named in the log).
    """

    def __init__(self, speed_limit_rad_s, log, topic: str):
        self.check = None if speed_limit_rad_s is None else ContinuityCheck(speed_limit_rad_s)
        self._log = log
        self.topic = topic

    @property
    def rejected(self) -> int:
        """Joint states refused as bad input so far."""
        return 0 if self.check is None else self.check.rejected

    @property
    def last_reason(self) -> str | None:
        """Why the last refused state was refused, or None."""
        return None if self.check is None else self.check.last_reason

    def accept(self, sample, receipt_s: float, clock_rate: float) -> bool:
        """Return True when ``sample`` (``StampedSample``) is continuous with the accepted ones."""
        if self.check is None:
            return True
        rejected = self.check.rejected
        reason = self.check.check(sample.stamp_ns, sample.q, receipt_s, clock_rate)
        if reason is None:
            return True
        if self.check.rejected > rejected:      # not the first state waiting for its confirmation
            self._log.warning(f'joint state on {self.topic} refused as bad input: {reason} '
                              f'({self.check.rejected} refused so far)',
                              throttle_duration_sec=LOG_THROTTLE_S)
        return False

    def report(self) -> dict:
        """Return the refused states' count and the last reason (for a sidecar or diagnostics)."""
        return {'rejected': self.rejected, 'last_reason': self.last_reason}


def hold_target_time_ns(commander) -> int:
    """Return the time (ns) whose commanded pose the hold keeps.

    Now; for 'brics_position' the time of its last set point when that is later (set points are
    sent ahead of their time, and the driver already has it).
    """
    now = commander.time_ref_ns()
    last_setpoint = getattr(commander.adapter, 'last_setpoint_ns', None)
    return now if last_setpoint is None else max(now, last_setpoint)


def send_hold(commander, min_duration_s: float) -> np.ndarray | None:
    """Stop the arm at its commanded pose (see the module doc); return the target (rad) or None.

    Args:
        commander: the ``ArmCommander`` (its path, limits, adapter or publisher).
        min_duration_s: the hold reaches its target this long after receipt at the earliest, s.
    """
    if commander.passive or commander.path.empty:
        return None
    t_ns = hold_target_time_ns(commander)
    q_from = commander.path.at(t_ns)
    lower, upper = commander.position_limits or (None, None)
    hold = hold_motion(q_from, q_from, commander.speed_limit_rad_s(), lower, upper,
                       min_duration_s)
    commander.path.add(t_ns, hold)
    q = hold.q1
    if commander.adapter is not None:
        commander.adapter.hold(q)
    else:
        commander.publisher.publish(trajectory_msg(commander.joint_names, [hold.duration_s],
                                                   [q], [np.zeros(len(q))]))
    return q


__all__ = ['JointStateGate', 'hold_target_time_ns', 'send_hold']
