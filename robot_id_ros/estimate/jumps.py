# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A sample that jumps away from its neighbours (a glitch inside the bounds) is rejected.

One glitched sample can stay inside the input bounds (``samples.InputBounds``) and still be far
from what the drive can reach since the previous sample, e.g. one velocity of 7 rad/s among
samples at 0.3 rad/s: its momentum and gravity terms would give a wrench of hundreds of newtons
and a contact. ``JumpFilter`` compares each sample with the last one it accepted:

* velocity: a joint's velocity changes by at most its URDF velocity limit times
  ``1 + dt / VELOCITY_RAMP_S`` between two samples ``dt`` apart;
* position: a joint moves at most its plausible speed (the bound's velocity) times ``dt`` plus
  ``POSITION_STEP_RAD`` (a joint without position limits compared modulo one turn).

A sample beyond either is rejected (kind 'jump') and the state is not changed. A real step is
taken from its second sample on: a sample consistent with the rejected one before it is
accepted, and so is any sample after ``MAX_JUMP_RUN`` rejected in a row (the filter never locks
out the input). Samples more than ``max_gap_s`` apart, or not after the previous one in time,
are not compared (the stamp rules restart or reject them).
"""
from __future__ import annotations

import math
from operator import sub

import numpy as np

from robot_id_ros.estimate.rejections import Rejection

JUMP = 'jump'                  # the kind of a rejected jump (EstimatorInputError.kind)
VELOCITY_RAMP_S = 0.05         # the drive's velocity changes by its limit in no less than this
POSITION_STEP_RAD = 0.05       # position tolerance beyond speed x dt (encoder, stamp jitter)
MAX_JUMP_RUN = 2               # at most this many samples in a row are rejected as jumps
_SCREEN = 0.999                # the batch screen flags a little more than the rule rejects


class JumpFilter:
    """The jump rule of one run, one sample at a time (``check``) or over arrays (``scan``).

    Args:
        bounds: the run's ``samples.InputBounds``: its velocity bound, the URDF velocity
            limits and which joints have no position limits.
        max_gap_s: samples further apart are not compared, s.
    """

    def __init__(self, bounds, max_gap_s):
        self.qd_max = np.asarray(bounds.qd_max, dtype=float)
        self.qd_step = np.asarray(bounds.qd_limit, dtype=float)
        self.turn = np.asarray(bounds.unlimited, dtype=bool)
        self.gap_s = float(max_gap_s)
        self._lists = (self.qd_step.tolist(), self.qd_max.tolist(), self.turn.tolist())
        self._step_min = float(self.qd_step.min()) if len(self.qd_step) else 0.0
        self.reset()

    def reset(self):
        """Forget the previous samples: the next one is accepted."""
        self._ref = self._pending = None       # (stamp ns, q list, qd list)
        self._run = 0

    def problem(self, ref, stamp_ns, q, qd):
        """One line naming the first joint that jumped from ``ref`` (None: no jump)."""
        dt = (stamp_ns - ref[0]) * 1e-9
        if not 0.0 < dt <= self.gap_s:
            return None
        ramp = 1.0 + dt / VELOCITY_RAMP_S
        for j, (x, x0, v, v0, step, vmax, turn) in enumerate(
                zip(q, ref[1], qd, ref[2], *self._lists)):
            if abs(v - v0) > step * ramp:
                return (f'qd[{j}] = {v:.6g} rad/s jumped by {v - v0:.3g} rad/s in '
                        f'{dt * 1e3:.3g} ms (at most {step * ramp:.3g})')
            d = x - x0
            if turn:
                d = (d + math.pi) % (2 * math.pi) - math.pi
            if abs(d) > vmax * dt + POSITION_STEP_RAD:
                return (f'q[{j}] = {x:.6g} rad jumped by {d:.3g} rad in {dt * 1e3:.3g} ms (at '
                        f'most {vmax * dt + POSITION_STEP_RAD:.3g})')
        return None

    def _close(self, ref, sample):
        """Whether ``sample`` is obviously no jump from ``ref`` (the per-sample fast path)."""
        return (max(map(abs, map(sub, sample[2], ref[2]))) <= self._step_min
                and max(map(abs, map(sub, sample[1], ref[1]))) <= POSITION_STEP_RAD)

    def check(self, stamp_ns, q, qd):
        """Take one sample (already inside the bounds); return None or why it is rejected.

        Args:
            stamp_ns: int ns.
            q, qd: (n,) rad, rad/s.

        Returns:
            None (accepted: the next sample is compared with it) or a ``Rejection`` of kind
            'jump'.
        """
        sample = (stamp_ns, q.tolist(), qd.tolist())
        ref = self._ref
        if ref is None or self._close(ref, sample):
            why = None
        else:
            why = self.problem(ref, *sample)
        if why is not None and self._run < MAX_JUMP_RUN and (
                self._pending is None or self.problem(self._pending, *sample) is not None):
            self._pending, self._run = sample, self._run + 1
            return Rejection(JUMP, why)
        self._ref, self._pending, self._run = sample, None, 0
        return None

    def scan(self, stamp_ns, Q, QD, usable):
        """``check`` over N samples from a reset filter.

        Args:
            stamp_ns: (N,) int ns.
            Q, QD: (N, n) rad, rad/s.
            usable: (N,) bool, the samples inside the bounds (the others are skipped).

        Returns:
            ``{index: Rejection}`` of the samples rejected as jumps.
        """
        self.reset()
        idx = np.flatnonzero(usable)
        flagged = np.zeros(len(idx), dtype=bool)
        if len(idx) > 1:    # screen: a jump from the previous usable sample (a superset)
            s, q, qd = stamp_ns[idx], Q[idx], QD[idx]
            dt = (s[1:] - s[:-1]) * 1e-9
            d = q[1:] - q[:-1]
            d = np.where(self.turn, np.mod(d + math.pi, 2 * math.pi) - math.pi, d)
            step = self.qd_step * (1.0 + dt[:, None] / VELOCITY_RAMP_S)
            far = ((np.abs(qd[1:] - qd[:-1]) > _SCREEN * step)
                   | (np.abs(d) > _SCREEN * (self.qd_max * dt[:, None] + POSITION_STEP_RAD)))
            flagged[1:] = far.any(axis=1) & (dt > 0) & (dt <= self.gap_s)
        rejected, j = {}, 0
        todo = np.flatnonzero(flagged).tolist()[::-1]       # a stack, the next one on top
        while todo:
            j = todo.pop()
            if j > 0 and (idx[j - 1] not in rejected):      # the one before was accepted
                k = idx[j - 1]
                self._ref, self._pending, self._run = (int(stamp_ns[k]), Q[k].tolist(),
                                                       QD[k].tolist()), None, 0
            why = self.check(int(stamp_ns[idx[j]]), Q[idx[j]], QD[idx[j]])
            if why is not None:
                rejected[int(idx[j])] = why
                if j + 1 < len(idx) and not (todo and todo[-1] == j + 1):
                    todo.append(j + 1)
        self.reset()
        return rejected
