# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Input checks shared by the signal-processing functions, and their error."""
from __future__ import annotations

import numpy as np

from robot_id_ros.errors import InputError


class SignalError(InputError):
    """Input a signal-processing step cannot use; the message says what to change."""


def as_data(X, name='X'):
    """(array as float, was_1d). Rejects NaN/inf naming the first bad sample."""
    A = np.asarray(X, dtype=float)
    if A.ndim == 0 or A.ndim > 2:
        raise SignalError(f'{name} must be a 1-D (N,) or 2-D (N, m) array, got shape {A.shape}')
    bad = ~np.isfinite(A)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1) if A.ndim == 2 else bad)
        cols = np.flatnonzero(bad.any(axis=0)) if A.ndim == 2 else []
        where = f'sample{"s" if len(rows) > 1 else ""} {format_runs(rows)}' + (
            f', column{"s" if len(cols) > 1 else ""} {format_runs(cols)}' if A.ndim == 2 else '')
        raise SignalError(f'{name} has a non-finite value (NaN or inf) in {len(rows)} sample(s), '
                          f'at {where}; drop or repair such samples before processing')
    return A, A.ndim == 1


def index_runs(indices):
    """Return the runs of consecutive integers in ``indices`` as [(first, last)], sorted."""
    idx = np.unique(np.asarray(indices, dtype=np.int64))
    if idx.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(idx) != 1)
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [idx.size - 1]])
    return [(int(idx[a]), int(idx[b])) for a, b in zip(starts, ends)]


def format_runs(indices, limit=3):
    """Return the runs of ``indices`` as text ('3-7, 12, 40-41 and 2 more runs').

    Args:
        indices: integer indices (any order, repeats allowed).
        limit: at most this many runs are written out.

    Returns:
        The text; 'none' when there is no index.
    """
    runs = index_runs(indices)
    if not runs:
        return 'none'
    text = ', '.join(f'{a}' if a == b else f'{a}-{b}' for a, b in runs[:limit])
    if len(runs) > limit:
        text += f' and {len(runs) - limit} more run(s)'
    return text


def check_rate(rate_hz):
    rate_hz = float(rate_hz)
    if not np.isfinite(rate_hz) or rate_hz <= 0:
        raise SignalError(f'rate_hz must be a positive number, got {rate_hz}')
    return rate_hz


def check_cutoff(cutoff_hz, rate_hz, what='cutoff_hz'):
    cutoff_hz = float(cutoff_hz)
    nyq = 0.5 * rate_hz
    if not np.isfinite(cutoff_hz) or cutoff_hz <= 0:
        raise SignalError(f'{what} must be a positive number, got {cutoff_hz}')
    if cutoff_hz >= nyq:
        raise SignalError(f'{what} = {cutoff_hz:g} Hz is not below the Nyquist frequency '
                          f'{nyq:g} Hz of {rate_hz:g} Hz data; lower the cut-off or sample faster')
    return cutoff_hz


def check_time(t_s):
    t = np.asarray(t_s, dtype=float)
    if t.ndim != 1:
        raise SignalError(f't_s must be 1-D, got shape {t.shape}')
    bad = ~np.isfinite(t)
    if bad.any():
        raise SignalError(f't_s has a non-finite time stamp at index '
                          f'{int(np.flatnonzero(bad)[0])}')
    if len(t) < 2:
        raise SignalError(f'need at least 2 samples, got {len(t)}')
    d = np.diff(t)
    if np.any(d <= 0):
        i = int(np.flatnonzero(d <= 0)[0]) + 1
        raise SignalError(f'time is not strictly increasing at index {i}: t[{i - 1}] = '
                          f'{t[i - 1]:.9g} s, t[{i}] = {t[i]:.9g} s; sort the samples by time and '
                          'drop duplicates')
    return t
