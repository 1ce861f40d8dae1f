# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Set points that cannot jump (ROS-free): the commanded path and the joint states trusted.

- ``CommandedPath`` keeps what a commander last sent (each motion with its start time) and gives
  the commanded pose at any time: the reference of a hold or stop, so that no measured message
  decides where the arm goes.
- ``ContinuityCheck`` accepts a measured joint state only when it is continuous with the last
  accepted one: no joint moved farther than the drives can (speed limit with a margin, times the
  time between the two, plus a small allowance). The time between two states is their stamp
  difference, but never more than their receipt times allow, so a forged stamp buys no distance.
  The first state is accepted only once the next one confirms it (a forged first state is
  replaced by the real ones that follow it).
- ``hold_motion`` plans the hold itself: from the commanded pose to its target within the joint
  limits, never faster than the speed limits.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.record.motions import QuinticMove

SPEED_MARGIN = 1.5               # a measured joint may move this factor faster than its limit
JUMP_ALLOWANCE_RAD = 0.05        # measurement noise and a controller's overshoot, rad
RECEIPT_SLACK_S = 0.02           # delivery jitter allowed on top of the receipt time difference
PATH_PIECES_KEPT = 4             # commanded motions remembered (the newest decide)


class CommandedPath:
    """The motions a commander sent, each from its start time (ROS time, ns)."""

    def __init__(self):
        """Start empty: nothing commanded yet."""
        self._pieces: list = []      # (start_ns, motion), oldest first

    @property
    def empty(self) -> bool:
        """True while nothing was commanded."""
        return not self._pieces

    def add(self, start_ns: int, motion) -> None:
        """Record ``motion`` (a ``Motion``) sent to start at ``start_ns`` (ns).

        It replaces the earlier motions from its start on (a controller does the same).
        """
        kept = [p for p in self._pieces if p[0] < start_ns]
        self._pieces = (kept + [(int(start_ns), motion)])[-PATH_PIECES_KEPT:]

    def at(self, t_ns: int):
        """Return the commanded pose (rad) at ``t_ns``, or None when nothing was commanded.

        Before the first start: that motion's start pose; after a motion's end: its end pose.
        """
        if not self._pieces:
            return None
        start, motion = self._pieces[0]
        for p in self._pieces:
            if p[0] <= t_ns:
                start, motion = p
        t_s = min(max((t_ns - start) * 1e-9, 0.0), motion.duration_s)
        return np.array(motion.evaluate(t_s)[0], dtype=float)


class ContinuityCheck:
    """Accepts joint states continuous with the last accepted one (see the module doc).

    Args:
        speed_limit_rad_s: per-joint speed the drives can reach, rad/s.
        margin: factor on the speed limit.
        allowance_rad: distance any state may move, rad.
    """

    def __init__(self, speed_limit_rad_s, margin: float = SPEED_MARGIN,
                 allowance_rad: float = JUMP_ALLOWANCE_RAD):
        self.speed_rad_s = np.asarray(speed_limit_rad_s, dtype=float) * margin
        self.allowance_rad = float(allowance_rad)
        self.rejected = 0                # states refused since the start
        self.last_reason: str | None = None
        self._ref = None                 # (stamp_ns, receipt_s, q) of the last accepted state
        self._first = None               # the first state, until the next one confirms it

    def allowed_rad(self, stamp_ns: int, receipt_s: float, clock_rate: float = 1.0):
        """Return how far (rad, per joint) a state stamped ``stamp_ns`` may be from the last one.

        Args:
            stamp_ns: the state's stamp, ns.
            receipt_s: when it arrived (a monotonic clock), s.
            clock_rate: seconds of stamp time per second of the receipt clock.
        """
        return self._allowed(self._ref, stamp_ns, receipt_s, clock_rate)

    def _allowed(self, ref, stamp_ns, receipt_s, clock_rate):
        ref_stamp, ref_receipt, _q = ref
        dt_s = min(max(stamp_ns - ref_stamp, 0) * 1e-9,
                   max(receipt_s - ref_receipt, 0.0) * max(clock_rate, 1.0) + RECEIPT_SLACK_S)
        return self.speed_rad_s * dt_s + self.allowance_rad

    def check(self, stamp_ns: int, q, receipt_s: float, clock_rate: float = 1.0) -> str | None:
        """Accept the state (return None) or return why it is bad input (it is then counted).

        Args:
            stamp_ns: the state's stamp, ns.
            q: its positions, rad.
            receipt_s: when it arrived (a monotonic clock), s.
            clock_rate: seconds of stamp time per second of the receipt clock.
        """
        state = (int(stamp_ns), float(receipt_s), np.asarray(q, dtype=float))
        ref = self._ref if self._ref is not None else self._first
        reason = None if ref is None else self._jump(ref, state, clock_rate)
        if self._ref is None:
            if ref is None or reason is not None:
                if reason is not None:
                    self.rejected += 1
                    self.last_reason = f'{reason} (the first state, refused)'
                self._first = state
                return 'the first joint state, waiting for the next to confirm it'
        elif reason is not None:
            self.rejected += 1
            self.last_reason = reason
            return reason
        self._ref = state
        return None

    def _jump(self, ref, state, clock_rate) -> str | None:
        """Why ``state`` is not continuous with ``ref`` (both (stamp, receipt, q)), or None."""
        step = np.abs(state[2] - ref[2])
        allowed = self._allowed(ref, state[0], state[1], clock_rate)
        if not np.any(step > allowed):
            return None
        j = int(np.argmax(step - allowed))
        return (f'joint {j + 1} moved {step[j]:.3f} rad since the last accepted state, more '
                f'than the drives can ({allowed[j]:.3f} rad)')


def hold_motion(q_from, q_target, speed_limit_rad_s, lower_rad, upper_rad, min_duration_s):
    """Return the hold from ``q_from`` to ``q_target`` (``QuinticMove``), rad.

    The target is clipped to [``lower_rad``, ``upper_rad``] (None: no limits); the move lasts at
    least ``min_duration_s`` and long enough that no joint's mean speed exceeds
    ``speed_limit_rad_s`` (the quintic's peak is 1.875 times its mean).
    """
    q_from = np.asarray(q_from, dtype=float)
    q_target = np.asarray(q_target, dtype=float)
    if lower_rad is not None:
        q_target = np.clip(q_target, lower_rad, upper_rad)
    duration_s = max(float(min_duration_s),
                     float(np.max(1.875 * np.abs(q_target - q_from)
                                  / np.asarray(speed_limit_rad_s, dtype=float))))
    return QuinticMove(q_from, q_target, duration_s)


__all__ = ['JUMP_ALLOWANCE_RAD', 'SPEED_MARGIN', 'CommandedPath', 'ContinuityCheck',
           'hold_motion']
