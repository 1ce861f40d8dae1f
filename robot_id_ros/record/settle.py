# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Holding still.

``SettleDetector`` (velocity below a threshold for a dwell time, with a timeout) and
``average_window`` (zero-phase low-pass then average; mean, standard deviation, count).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.io.parted_bag import RecordingError

MIN_WINDOW_SAMPLES = 20           # average_window needs at least this many samples
CUTOFF_MAX_FRACTION_OF_RATE = 0.45  # the low-pass cut-off stays below this fraction of the rate
# the zero-phase filter runs when the window holds more than this many samples per (2 order + 1)
FILTER_SAMPLES_PER_TAP = 12


class SettleDetector:
    """Detect that the arm holds still, with a timeout.

    Settled when every |velocity| stays below ``velocity_threshold`` for ``dwell_s``; timed out
    when that has not happened ``timeout_s`` after ``start``. Feed samples with ``update``.

    Velocity is the message's, or the position difference quotient when it has none.

    Args:
        velocity_threshold_rad_s: a joint faster than this is moving, rad/s.
        dwell_s: time every joint must stay below the threshold, s.
        timeout_s: time after ``start`` when the detector gives up, s.
    """

    def __init__(self, velocity_threshold_rad_s, dwell_s, timeout_s):
        self.threshold = float(velocity_threshold_rad_s)
        self.dwell_s = float(dwell_s)
        self.timeout_s = float(timeout_s)
        self.t_begin = None
        self.quiet_since = None
        self._last = None
        self.max_velocity = np.inf

    def start(self, t_s):
        """Begin waiting at time ``t_s`` (s)."""
        self.t_begin = float(t_s)
        self.quiet_since = None
        self._last = None

    def update(self, t_s, q, qd=None):
        """Feed one sample (time s, positions rad, velocities rad/s or None).

        Returns:
            'settling', 'settled' or 'timeout'.
        """
        if self.t_begin is None:
            self.start(t_s)
        q = np.asarray(q, float)
        if qd is None:
            if self._last is None or t_s <= self._last[0]:
                self._last = (t_s, q)
                return self._state(t_s)
            qd = (q - self._last[1]) / (t_s - self._last[0])
        self._last = (t_s, q)
        self.max_velocity = float(np.max(np.abs(qd)))
        if self.max_velocity < self.threshold:
            if self.quiet_since is None:
                self.quiet_since = t_s
        else:
            self.quiet_since = None
        return self._state(t_s)

    def _state(self, t_s):
        if self.quiet_since is not None and t_s - self.quiet_since >= self.dwell_s:
            return 'settled'
        if t_s - self.t_begin > self.timeout_s:
            return 'timeout'
        return 'settling'


@dataclass
class WindowStats:
    """Averages of one static window (``average_window``); effort in the recording's unit."""

    q_mean: np.ndarray             # rad
    effort_mean: np.ndarray        # of the low-pass filtered effort
    effort_std: np.ndarray         # of the raw effort samples (noise level)
    effort_std_filtered: np.ndarray
    samples: int
    rate_hz: float
    t_start_ns: int
    t_end_ns: int


def average_window(stamp_ns, q, effort, cutoff_hz=2.0, order=2):
    """Low-pass (zero phase, Butterworth) the efforts of a static window and average them.

    Falls back to the plain mean when the window is too short for the filter. The filter cut-off
    is capped below Nyquist.

    Args:
        stamp_ns: (N,) sample stamps, ns.
        q: (N, n) positions, rad.
        effort: (N, n) efforts (Nm or A).
        cutoff_hz: low-pass cut-off, Hz (0 or None: no filter).
        order: Butterworth order.

    Returns:
        WindowStats.

    Raises:
        RecordingError: fewer than 20 samples, or NaN/inf efforts.
        InputError: arrays of different lengths.
    """
    from robot_id_ros.signals import lowpass_zero_phase

    stamp_ns = np.asarray(stamp_ns, dtype=np.int64)
    q = np.asarray(q, float)
    E = np.asarray(effort, float)
    N = len(stamp_ns)
    if N < MIN_WINDOW_SAMPLES:
        raise RecordingError(f'averaging window holds {N} samples; at least '
                             f'{MIN_WINDOW_SAMPLES} are needed (record a longer window or check '
                             'the driver rate)')
    if E.shape[0] != N or q.shape[0] != N:
        raise InputError('stamp, position and effort arrays differ in length', 'shape')
    if not np.all(np.isfinite(E)):
        raise RecordingError('effort in the window is NaN/inf (does the driver publish effort?)')
    span = (stamp_ns[-1] - stamp_ns[0]) * 1e-9
    rate = (N - 1) / span if span > 0 else float('nan')
    if np.isfinite(rate) and cutoff_hz and cutoff_hz < CUTOFF_MAX_FRACTION_OF_RATE * rate \
            and N > FILTER_SAMPLES_PER_TAP * (2 * order + 1):
        F = lowpass_zero_phase(E, rate, cutoff_hz, order)
    else:
        F = E
    return WindowStats(q.mean(0), F.mean(0), E.std(0, ddof=1), F.std(0, ddof=1), N,
                       float(rate), int(stamp_ns[0]), int(stamp_ns[-1]))
