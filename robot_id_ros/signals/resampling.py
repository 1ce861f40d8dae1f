# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Samples with jittery or irregular stamps onto a uniform grid, with the gaps reported."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.interpolate

from robot_id_ros.signals.checks import SignalError, as_data, check_rate, check_time


@dataclass
class ResampleResult:
    """Data on a uniform grid.

    t_s: (M,) uniform times, s (starting at the first input stamp); X: (M,) or (M, m) resampled
    data; rate_hz: grid rate; gaps: list of (t_start_s, t_end_s) input intervals longer than
    ``max_gap_s`` (the data inside is interpolated, not measured); in_gap: (M,) bool, True for
    grid points strictly inside a gap; input_rate_hz: median input rate; jitter_s: standard
    deviation of the input sample intervals (gaps excluded).
    """

    t_s: np.ndarray
    X: np.ndarray
    rate_hz: float
    gaps: list = field(default_factory=list)
    in_gap: np.ndarray = None
    input_rate_hz: float = 0.0
    jitter_s: float = 0.0

    def report(self):
        """One-line human-readable summary."""
        s = (f'{len(self.t_s)} samples at {self.rate_hz:.6g} Hz (input median '
             f'{self.input_rate_hz:.6g} Hz, interval jitter {1e3 * self.jitter_s:.3g} ms)')
        if self.gaps:
            total = sum(b - a for a, b in self.gaps)
            s += (f'; {len(self.gaps)} gap(s), {total:.3g} s in total, first at '
                  f'{self.gaps[0][0]:.6g} s')
        return s


def resample_uniform(t_s, X, rate_hz=None, max_gap_s=None, method='cubic') -> ResampleResult:
    """Resample samples with jittery or irregular stamps onto a uniform grid.

    t_s: (N,) strictly increasing time stamps, s. X: (N,) or (N, m) values.
    rate_hz: output rate; default the median input rate (1 / median interval).
    max_gap_s: an input interval longer than this is reported as a gap; default 3 median
    intervals. Grid points inside gaps are interpolated anyway and flagged in ``in_gap``.
    method: 'cubic' (C2 cubic spline, error O(h^4) on smooth signals, default) or 'linear'.
    Raises SignalError on non-monotonic time, NaN, or fewer than 2 (cubic: 4) samples.
    """
    t = check_time(t_s)
    A, one_d = as_data(X)
    if A.shape[0] != len(t):
        raise SignalError(f't_s has {len(t)} stamps but X has {A.shape[0]} samples')
    dt = np.diff(t)
    med = float(np.median(dt))
    input_rate = 1.0 / med
    rate = input_rate if rate_hz is None else check_rate(rate_hz)
    if max_gap_s is None:
        max_gap_s = 3.0 * med
    max_gap_s = float(max_gap_s)
    if max_gap_s <= 0:
        raise SignalError(f'max_gap_s must be positive, got {max_gap_s}')
    gap_idx = np.flatnonzero(dt > max_gap_s)
    gaps = [(float(t[i]), float(t[i + 1])) for i in gap_idx]
    normal = dt[dt <= max_gap_s]
    jitter = float(np.std(normal)) if len(normal) > 1 else 0.0
    M = int(np.floor((t[-1] - t[0]) * rate * (1 + 1e-12) + 1e-9)) + 1
    grid = t[0] + np.arange(M) / rate
    grid[-1] = min(grid[-1], t[-1])
    if method == 'cubic':
        if len(t) < 4:
            raise SignalError(f'cubic resampling needs at least 4 samples, got {len(t)}; use '
                              'method="linear"')
        Y = scipy.interpolate.CubicSpline(t, A, axis=0, bc_type='not-a-knot')(grid)
    elif method == 'linear':
        if one_d:
            Y = np.interp(grid, t, A)
        else:
            Y = np.column_stack([np.interp(grid, t, A[:, j]) for j in range(A.shape[1])])
    else:
        raise SignalError(f'unknown resampling method {method!r}; use "cubic" or "linear"')
    in_gap = np.zeros(M, dtype=bool)
    for a, b in gaps:
        in_gap |= (grid > a) & (grid < b)
    return ResampleResult(grid, Y, float(rate), gaps, in_gap, float(input_rate), jitter)


def velocity_bandwidth_hz(t_s, X, energy_fraction=0.99):
    """Return the frequency (Hz) below which ``energy_fraction`` of the velocity energy lies.

    The samples (irregular stamps, gaps allowed) are interpolated linearly onto a grid at their
    median interval (coarser when a long gap would make it more than 4x the samples); the
    velocity is the grid's differences, its power spectrum (Hann window, mean removed) summed over
    the channels. A band-limited motion gives its highest harmonic (a 10 s Fourier excitation of
    5 harmonics: 0.5 Hz); noise spreads flat up to Nyquist and raises the figure.

    Args:
        t_s: (N,) strictly increasing stamps, s.
        X: (N,) or (N, m) positions (rad or m).
        energy_fraction: share of the velocity energy below the returned frequency, in (0, 1).

    Returns:
        float Hz, or None when X does not move or has fewer than 8 samples.
    """
    t = check_time(t_s)
    A, _ = as_data(X)
    if A.shape[0] != len(t):
        raise SignalError(f't_s has {len(t)} stamps but X has {A.shape[0]} samples')
    if not 0 < energy_fraction < 1:
        raise SignalError(f'energy_fraction must be in (0, 1), got {energy_fraction}')
    if len(t) < 8:
        return None
    step = max(float(np.median(np.diff(t))), (t[-1] - t[0]) / (4 * len(t)))
    grid = t[0] + np.arange(int(np.floor((t[-1] - t[0]) / step)) + 1) * step
    V = np.diff(np.column_stack([np.interp(grid, t, A[:, j]) for j in range(A.shape[1])]),
                axis=0) / step
    V -= V.mean(axis=0)
    P = (np.abs(np.fft.rfft(V * np.hanning(len(V))[:, None], axis=0)) ** 2).sum(axis=1)
    P[0] = 0.0
    energy = np.cumsum(P)
    if not energy[-1] > 0:
        return None
    k = int(np.searchsorted(energy, energy_fraction * energy[-1]))
    return float(np.fft.rfftfreq(len(V), step)[k])
