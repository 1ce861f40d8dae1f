# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Driver statistics while recording.

``timing_stats`` (rate, jitter, gaps) and ``TrackingMonitor`` (position tracking error with a
trip limit).
"""
from __future__ import annotations

import numpy as np

MIN_STAMPS_FOR_TIMING = 3         # timing_stats reports NaN rates for fewer stamps


def timing_stats(stamp_ns, gap_factor=3.0):
    """Rate, jitter and gaps of message stamps.

    Args:
        stamp_ns: message stamps, ns.
        gap_factor: an interval longer than this times the median interval is a gap.

    Returns:
        dict with messages, rate_hz, dt_median_s, jitter_std_s, dt_max_s, gaps (count of
        intervals > gap_factor * median), gap_total_s, non_increasing.
    """
    t = np.asarray(stamp_ns, dtype=np.int64)
    out = {'messages': int(len(t))}
    if len(t) < MIN_STAMPS_FOR_TIMING:
        out.update(rate_hz=float('nan'), dt_median_s=float('nan'), jitter_std_s=float('nan'),
                   dt_max_s=float('nan'), gaps=0, gap_total_s=0.0, non_increasing=0)
        return out
    dt = np.diff(t) * 1e-9
    med = float(np.median(dt))
    gaps = dt > gap_factor * med
    out.update(rate_hz=float(1.0 / med) if med > 0 else float('inf'), dt_median_s=med,
               jitter_std_s=float(np.std(dt)), dt_max_s=float(dt.max()), gaps=int(gaps.sum()),
               gap_total_s=float(dt[gaps].sum()), non_increasing=int(np.sum(dt <= 0)))
    return out


class TrackingMonitor:
    """Position tracking error per joint, with a trip limit.

    |q_measured - q_desired| per joint: RMS, max, and a limit check that trips after
    ``consecutive`` samples above the limit.

    Args:
        n: number of joints.
        limit_rad: largest tracking error tolerated, rad.
        consecutive: samples in a row above the limit that trip the monitor.
    """

    def __init__(self, n, limit_rad, consecutive=3):
        self.limit = float(limit_rad)
        self.consecutive = int(consecutive)
        self.sum_sq = np.zeros(n)
        self.max_abs = np.zeros(n)
        self.count = 0
        self._over = 0

    def update(self, q_meas, q_des):
        """Feed one sample (measured and desired positions, rad); returns |error| per joint."""
        e = np.abs(np.asarray(q_meas, float) - np.asarray(q_des, float))
        self.sum_sq += e ** 2
        self.max_abs = np.maximum(self.max_abs, e)
        self.count += 1
        self._over = self._over + 1 if np.max(e) > self.limit else 0
        return e

    @property
    def tripped(self):
        """True once ``consecutive`` samples in a row were above the limit."""
        return self._over >= self.consecutive

    @property
    def rms(self):
        """RMS tracking error per joint, rad."""
        return np.sqrt(self.sum_sq / max(self.count, 1))

    def report(self):
        """Return a dict with samples, rms_rad, max_rad, limit_rad."""
        return {'samples': self.count, 'rms_rad': self.rms.tolist(),
                'max_rad': self.max_abs.tolist(), 'limit_rad': self.limit}
