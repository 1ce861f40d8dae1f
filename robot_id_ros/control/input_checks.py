# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the force controller accepts from its inputs: joint states and estimates.

``JointStateCheck`` keeps the newest joint state that is continuous with the ones before it: a
measurement whose joints moved farther since the last accepted one than the drives can move
(the URDF joint speed limits times ``joint_state_speed_factor``, times the stamp difference,
plus ``joint_state_allowance_rad``), one stamped ahead of the clock, or one that is not finite,
is not used and is counted. A stream that is rejected for ``joint_state_timeout_s`` while
nothing is accepted (the arm moved while no joint state came, or the first message was the
wrong one) is taken as the new start; the joint states count as inconsistent for that long.

``estimate_problem`` says why an estimate cannot be used: not finite, stale, stamped ahead of
the clock, or in another frame than the base frame the controller works in.
"""
from __future__ import annotations

import numpy as np


class JointStateCheck:
    """The measured joints the controller may use; see the module docstring.

    Args:
        speed_rad_s: (n,) the fastest each joint can move, rad/s (limit times the factor).
        allowance_rad: what a joint may move on top of that between two samples (noise), rad.
        timeout_s: joint states older than this are stale; also the window a rejection or a new
            start makes them inconsistent for, s.
        ahead_s: a stamp this far ahead of the clock is rejected, s.
    """

    def __init__(self, speed_rad_s, allowance_rad: float, timeout_s: float, ahead_s: float):
        self.speed_rad_s = np.asarray(speed_rad_s, dtype=float)
        self.allowance_rad = float(allowance_rad)
        self.timeout_s = float(timeout_s)
        self.ahead_s = float(ahead_s)
        self.q = None                # (n,) the newest accepted joint angles, rad
        self.stamp_s = None          # ... their stamp, s
        self.rejected = 0            # how many joint states were not used
        self.last_problem = ''       # why the newest rejected one was not used
        self._rejected_at = None     # clock time of the newest rejection, s
        self._restart_at = None      # clock time of the newest new start, s
        self._candidate = None       # (q, stamp, since): a rejected stream continuous in itself

    def offer(self, q_rad, stamp_s: float, now_s: float | None = None) -> str | None:
        """Check one joint state; accept it or count it. Returns why it is not used, or None.

        Args:
            q_rad: (n,) joint angles, rad.
            stamp_s: its stamp, s.
            now_s: the receiver's clock, s (None: not running yet; the stamp is not judged).
        """
        q = np.asarray(q_rad, dtype=float)
        stamp_s = float(stamp_s)
        if self.q is not None and stamp_s == self.stamp_s and np.array_equal(q, self.q):
            return None                              # the accepted one, offered again
        now = stamp_s if now_s is None else float(now_s)
        problem = self._problem(q, stamp_s, now_s)
        jump = problem is None and self.q is not None
        if jump:
            problem = self._jump(q, stamp_s, self.q, self.stamp_s)
        if problem is None:
            self.q, self.stamp_s, self._candidate = q.copy(), stamp_s, None
            return None
        self.rejected += 1
        self.last_problem = problem
        self._rejected_at = now
        if jump and self._continues_candidate(q, stamp_s, now):
            self.q, self.stamp_s, self._candidate = q.copy(), stamp_s, None
            self._restart_at = now
            return problem + '; the rejected stream persisted: taken as the new start'
        return problem

    def _problem(self, q, stamp_s, now_s):
        if q.shape != self.speed_rad_s.shape or not np.all(np.isfinite(q)):
            return 'joint state not finite or of the wrong size'
        if now_s is not None and stamp_s - now_s > self.ahead_s:
            return f'joint state stamped {stamp_s - now_s:.3f} s ahead of the clock'
        return None

    def _jump(self, q, stamp_s, q_from, stamp_from):
        dt = max(stamp_s - stamp_from, 0.0)
        reach = self.speed_rad_s * dt + self.allowance_rad
        excess = np.abs(q - q_from) - reach
        j = int(np.argmax(excess))
        if excess[j] <= 0.0:
            return None
        return (f'joint {j + 1} moved {abs(q[j] - q_from[j]):.3f} rad in {dt:.3f} s (the drives '
                f'reach {reach[j]:.3f} rad)')

    def _continues_candidate(self, q, stamp_s, now_s) -> bool:
        """Track the rejected stream; True once it has been continuous for ``timeout_s``."""
        c = self._candidate
        if c is None or self._jump(q, stamp_s, c[0], c[1]) is not None:
            self._candidate = (q.copy(), stamp_s, now_s)
            return False
        self._candidate = (q.copy(), stamp_s, c[2])
        return now_s - c[2] >= self.timeout_s

    def problem(self, now_s: float, strict: bool = False) -> str | None:
        """Return why the joint states cannot be relied on now, or None.

        Absent, stale (the newest accepted older than ``timeout_s``), or taken as a new start
        within ``timeout_s``; with ``strict`` (enabling) also any rejection within it.
        """
        if self.q is None:
            return ('no joint states' if not self.rejected else
                    f'no usable joint states ({self.rejected} rejected: {self.last_problem})')
        if now_s - self.stamp_s > self.timeout_s:
            return f'joint states stale ({now_s - self.stamp_s:.3f} s old)'
        recent = (self._restart_at if not strict else
                  max(t for t in (self._restart_at, self._rejected_at, -np.inf) if t is not None))
        if recent is not None and now_s - recent < self.timeout_s:
            return f'joint states inconsistent ({self.rejected} rejected: {self.last_problem})'
        return None


def estimate_problem(inp, t_s: float, stale_s: float, ahead_s: float,
                     frame_id: str | None) -> str | None:
    """Return why the estimate ``inp`` (``ForceInput``) cannot be used at ``t_s``, or None.

    Args:
        inp: the estimate.
        t_s: now, s.
        stale_s: an estimate older than this is stale, s.
        ahead_s: one stamped more than this ahead of ``t_s`` is refused, s.
        frame_id: the frame the controller works in (None: not checked). An estimate whose
            ``frame_id`` differs, or is empty, is refused: its axes are not known to be these.
    """
    force = np.asarray(inp.force_n, dtype=float)
    sigma = np.asarray(inp.sigma_n, dtype=float)
    if force.shape != (3,) or not np.all(np.isfinite(force)):
        return 'estimate not finite'
    if sigma.shape != (3,) or not np.all(np.isfinite(sigma)) or np.any(sigma < 0.0):
        return 'estimate sigma not finite'
    if not np.isfinite(inp.stamp_s):
        return 'estimate stamp not finite'
    if inp.stamp_s - t_s > ahead_s:
        return 'estimate stamped ahead of the clock'
    if t_s - inp.stamp_s > stale_s:
        return 'stale estimate'
    got = getattr(inp, 'frame_id', None)
    if frame_id is not None and got is not None and got != frame_id:
        return (f'estimate in frame {got!r}, expected {frame_id!r}' if got else
                f'estimate without a frame_id, expected {frame_id!r}')
    return None
