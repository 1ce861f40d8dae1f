# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Joint velocity from positions, for joint states that carry none (``PositionVelocity``).

A driver that publishes no ``JointState.velocity`` still gives positions; the estimator then
takes the derivative of the positions through a ``CausalDifferentiator`` (a critically damped
second-order filter: each velocity depends only on the current and past positions). It is
causal because the node must run it live; ``robot-id estimate`` runs the same rule sample by
sample over a bag, so a replay gives the velocities, and so the wrench, the node gives live.
Identification, which sees a whole recording, differentiates zero-phase instead
(``robot_id_ros.signals``): no lag, but it needs the samples after each one.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.estimate.residuals import CausalDifferentiator

# the differentiator is this many times faster than the residual's bandwidth, so that its lag
# (about 2 / (2 pi f)) is a small part of the residual's own while its noise stays filtered
VELOCITY_BANDWIDTH_FACTOR = 5.0


def velocity_bandwidth_hz(config) -> float:
    """Return the derived velocity's bandwidth (Hz) for an ``EstimatorConfig``."""
    return VELOCITY_BANDWIDTH_FACTOR * config.residual_bandwidth_hz


class PositionVelocity:
    """Joint velocities (rad/s) from joint positions (rad), one sample at a time, causally.

    A gap longer than ``max_gap_s`` or a stamp further back than ``time_jump_s`` (a looped bag)
    restarts it: the first velocity after a restart is zero. A stamp not after the last one but
    within ``time_jump_s`` (a message out of order, which the estimator rejects) leaves the state
    unchanged.

    Args:
        n: number of joints.
        bandwidth_hz: the differentiator's bandwidth, Hz (``velocity_bandwidth_hz``).
        max_gap_s: the estimator's ``max_gap_s``.
        time_jump_s: the estimator's ``time_jump_s``.
    """

    def __init__(self, n, bandwidth_hz, max_gap_s, time_jump_s):
        self.bandwidth_hz = float(bandwidth_hz)
        self.diff = CausalDifferentiator(n, bandwidth_hz)
        self.max_gap_s = float(max_gap_s)
        self.time_jump_s = float(time_jump_s)
        self.last_stamp_ns = None

    @classmethod
    def for_config(cls, n, config):
        """Build it with the bandwidth and the gap rules of an ``EstimatorConfig``."""
        return cls(n, velocity_bandwidth_hz(config), config.max_gap_s, config.time_jump_s)

    def reset(self):
        """Forget the state: the next sample starts afresh."""
        self.diff.reset()
        self.last_stamp_ns = None

    def describe(self) -> str:
        """Return one line saying how the velocity is derived (for a start-up log)."""
        return ('joint states carry no velocity: it is derived from the positions by a causal '
                f'filtered differentiator ({self.bandwidth_hz:g} Hz), the same live and offline')

    def step(self, stamp_ns, q):
        """Return the velocity (n,) rad/s at this sample from its stamp (ns) and positions (n,)."""
        last = self.last_stamp_ns
        dt = 0.0 if last is None else (int(stamp_ns) - last) * 1e-9
        if last is not None and -self.time_jump_s <= dt <= 0.0:
            return self.diff.x2.copy()           # out of order: rejected downstream
        if dt > self.max_gap_s:
            dt = 0.0                             # a restart, as the estimator's
        self.last_stamp_ns = int(stamp_ns)
        _, qd = self.diff.step(q, dt)
        return qd.copy()

    def series(self, stamp_ns, Q):
        """Return the velocities (N, n) of N samples in order, sample by sample (``step``)."""
        QD = np.zeros_like(np.asarray(Q, dtype=float))
        for k, (s, q) in enumerate(zip(np.asarray(stamp_ns).tolist(), Q)):
            QD[k] = self.step(s, q)
        return QD
