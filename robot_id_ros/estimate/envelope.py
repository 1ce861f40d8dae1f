# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Decaying envelopes of a variance: the largest recent value, forgotten at a known rate.

``decaying_max`` solves v_k = max(a_k^2 v_{k-1}, s_k) over arrays (the lag's variance in
``uncertainty.LagVariance`` and the damping bias's ``BiasEnvelope`` use it).
"""
from __future__ import annotations

import numpy as np


def decaying_max(seen, log_a2, fresh):
    """Return v (N, m): v_k = max(a_k^2 v_{k-1}, seen_k), restarted (v = seen) where ``fresh``.

    With L_k = sum_{j <= k} log a_j^2 (restarted at each fresh sample),
    v_k = exp(L_k + max_{j <= k} (log seen_j - L_j)) within a segment.

    Args:
        seen: (N, m) >= 0.
        log_a2: (N, 1) or (N, m), log of the decay a^2 of each sample's step (<= 0).
        fresh: (N,) bool, restarts (the first sample is one).
    """
    N = len(seen)
    seg = np.cumsum(fresh) - 1
    L = np.cumsum(np.broadcast_to(log_a2, (N, np.shape(log_a2)[1])), axis=0)
    L = np.broadcast_to(L - L[np.flatnonzero(fresh)][seg], seen.shape)
    with np.errstate(divide='ignore'):
        x = np.log(seen) - L
    out = np.empty_like(seen)
    for s0, s1 in zip(np.flatnonzero(fresh).tolist(), np.r_[np.flatnonzero(fresh)[1:], N]):
        out[s0:s1] = np.exp(L[s0:s1] + np.maximum.accumulate(x[s0:s1], axis=0))
    return out


class BiasEnvelope:
    """Variance of the damping bias near a singular pose: the largest recent one, decaying.

    ``damping_bias`` is computed from one sample's torque, and the plain least squares it compares
    with amplifies that sample's noise along the weak direction by 1 / sigma_min: its square
    swings from sample to sample while the bias itself changes only as the pose does. The
    published variance per axis is therefore the largest recent d^2, decaying with the covariance
    period T (the interval over which the rest of the covariance is held):
    ``e_k = max(exp(-2 dt / T) e_{k-1}, d_k^2)`` (0 after a reset and on undamped samples' own
    d = 0). ``batch`` takes arrays (``decaying_max``); update's compiled step (``sample_step``) one
    sample.

    Args:
        period_s: T, s (``covariance_period_s``).
    """

    def __init__(self, period_s):
        self.period_s = float(period_s)

    def batch(self, dt_s, bias, starts):
        """Return the envelope (N, 6) over N samples from a reset state.

        Args:
            dt_s: (N,) s, the interval before each sample.
            bias: (N, 6) ``damping_bias`` (0 on undamped samples).
            starts: (N,) bool, restarts.
        """
        dt = np.asarray(dt_s, float)
        fresh = np.asarray(starts, bool) | (dt <= 0)
        fresh[:1] = True
        log_a2 = np.where(fresh, 0.0, -2.0 * dt / self.period_s)[:, None]
        return decaying_max(np.asarray(bias, float) ** 2, log_a2, fresh)
