# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Unusable samples of a recording, left out and reported (ROS-free).

A sample with NaN/inf or arrays of the wrong length is never used, and never left out silently:
the bag reader lists the messages it skipped (``JointStateSeries.skipped``), and samples of an
in-memory series with a non-finite position, velocity or effort are taken out here. Either way
the caller gets one line per cause: how many samples, which field, where (sample index and time
ranges). The samples around them are kept: a few bad samples cost those samples, not the run or
a period (the resampling interpolates across the gap and reports it).
"""
from __future__ import annotations

import re

import numpy as np

import robot_id_ros.signals as signals
from robot_id_ros.identify.options import IdentificationError
from robot_id_ros.signals.checks import format_runs, index_runs
from robot_id_ros.io.bags import JointStateSeries

# at most this many causes are listed one per line (the rest are counted)
MAX_CAUSES_LISTED = 4
# the joint names in a reason are dropped to group the skipped messages by cause
_JOINT_LIST = re.compile(r' for [^;]*$')


def _time_range(t_s, first, last):
    """Return 't a-b s' for kept samples ``first`` .. ``last`` (clipped to the series)."""
    a = t_s[min(max(first, 0), len(t_s) - 1)]
    b = t_s[min(max(last, 0), len(t_s) - 1)]
    return f't {a:.6g} s' if a == b else f't {a:.6g}-{b:.6g} s'


def _skipped_lines(series: JointStateSeries):
    """One line per cause of the messages the bag reader skipped (count, messages, times)."""
    if not series.skipped:
        return []
    skipped = sorted(int(k) for k, _ in series.skipped)
    total = len(series) + len(skipped)
    kept = np.setdiff1d(np.arange(total), skipped)   # message index of each kept sample
    t = series.t_s
    causes = {}
    for k, reason in series.skipped:
        causes.setdefault(_JOINT_LIST.sub('', str(reason)), []).append((int(k), str(reason)))
    lines = []
    for cause, items in list(causes.items())[:MAX_CAUSES_LISTED]:
        ks = [k for k, _ in items]
        runs = index_runs(ks)
        # the time of a skipped run: between the kept samples just before and just after it
        before = int(np.searchsorted(kept, runs[0][0])) - 1
        after = int(np.searchsorted(kept, runs[-1][1]))
        detail = items[0][1] if len({r for _, r in items}) == 1 else cause
        lines.append(f'{len(ks)} message(s) left out ({detail}): messages {format_runs(ks)}, '
                     f'{_time_range(t, before, after)}')
    if len(causes) > MAX_CAUSES_LISTED:
        rest = sum(len(v) for v in list(causes.values())[MAX_CAUSES_LISTED:])
        lines.append(f'{rest} more message(s) left out for {len(causes) - MAX_CAUSES_LISTED} '
                     'other cause(s)')
    return lines


def _nonfinite_lines(series: JointStateSeries):
    """Return (rows to keep, lines): samples with a NaN/inf in q, qd or effort, per field."""
    keep = np.ones(len(series), dtype=bool)
    lines = []
    t = series.t_s
    for field, X in (('position', series.q), ('velocity', series.qd), ('effort', series.effort)):
        if X is None:
            continue
        bad = ~np.isfinite(np.asarray(X, dtype=float))
        rows = np.flatnonzero(bad.any(axis=1))
        if rows.size == 0:
            continue
        keep[rows] = False
        joints = ', '.join(series.joint_names[j] for j in np.flatnonzero(bad.any(axis=0)))
        lines.append(f'{rows.size} sample(s) left out ({field} is NaN or inf for {joints}): '
                     f'samples {format_runs(rows)}, {_time_range(t, rows[0], rows[-1])}')
    return keep, lines


def usable_samples(series: JointStateSeries, what='recording'):
    """Return the series without unusable samples, and the lines that report them.

    Args:
        series: the recorded joint states (``skipped`` from the bag reader, if any).
        what: what the series is, for the lines ('trajectory', 'static bag').

    Returns:
        (series, lines): the series with every sample finite (itself when nothing is left out),
        and one line per cause, each naming the source, count, field and where; [] when clean.
        Raises ``IdentificationError`` when no sample is left.
    """
    lines = _skipped_lines(series)
    keep, more = _nonfinite_lines(series)
    lines += more
    if not keep.all():
        if not keep.any():
            raise IdentificationError(f'{what} {series.source}: no usable sample; '
                                      + '; '.join(lines))
        skipped = series.skipped
        series = series.select(keep)
        series.skipped = skipped
    src = series.source or '(memory)'
    return series, [f'{what} {src}: {x}' for x in lines]


# a trajectory is cut where its stamps jump by more than the gap a cubic spline bridges: at
# least SPLIT_GAP_INTERVALS median intervals (a message or two lost), and on slow motion up to
# BRIDGE_PERIOD_FRACTION of the shortest period the motion holds (99 % of its velocity energy
# below it: across such a gap the spline's acceleration stays within about 1 % of that
# harmonic's), never more than SPLIT_GAP_MAX_S (a longer silence is a pause,
# whatever the motion looked like around it). A spline across a longer gap invents the motion,
# and its derivatives and torque would enter the fit.
SPLIT_GAP_INTERVALS = 3
BRIDGE_PERIOD_FRACTION = 0.05
SPLIT_GAP_MAX_S = 0.25
# a longer-than-SPLIT_GAP_INTERVALS gap is bridged only where the effort is one smooth curve across
# it: a cubic through EFFORT_CHECK_SAMPLES samples each side within its noise (chi-square of
# 2 x 5 - 4 = 6 degrees of freedom below EFFORT_CHECK_CHI2, its 0.999 quantile)
EFFORT_CHECK_SAMPLES = 5
EFFORT_CHECK_CHI2 = 22.46
# a piece between gaps shorter than this (s) is left out (too short to differentiate)
MIN_PIECE_S = 1.0


def bridgeable_gap_s(t_s, q, interval_s):
    """Return (the longest gap in s the resampling may interpolate across, why that length).

    ``SPLIT_GAP_INTERVALS`` sample intervals, or ``BRIDGE_PERIOD_FRACTION`` of the motion's
    shortest period (``signals.velocity_bandwidth_hz`` of q) where that is longer, capped at
    ``SPLIT_GAP_MAX_S``: a 50 Hz run of a 0.5 Hz-band excitation bridges 0.1 s (4 lost
    messages), a 200 Hz run of the same motion too, a 10 Hz-band motion 3 intervals.

    Args:
        t_s: (N,) stamps, s; q: (N, n) finite positions; interval_s: median sample interval, s.
    """
    by_rate = SPLIT_GAP_INTERVALS * interval_s
    band_hz = signals.velocity_bandwidth_hz(t_s, q)
    by_motion = (min(BRIDGE_PERIOD_FRACTION / band_hz, SPLIT_GAP_MAX_S) if band_hz
                 else SPLIT_GAP_MAX_S)
    if by_motion <= by_rate:
        return by_rate, f'{SPLIT_GAP_INTERVALS} sample intervals'
    if band_hz and BRIDGE_PERIOD_FRACTION / band_hz < SPLIT_GAP_MAX_S:
        return by_motion, (f'{BRIDGE_PERIOD_FRACTION:g} of the motion\'s shortest period, '
                           f'{1 / band_hz:.3g} s')
    return by_motion, f'the most bridged on motion this slow, {SPLIT_GAP_MAX_S:g} s'


def _gaps_to_cut(t_s, effort, interval_s, limit_s):
    """Return (N-1,) bool: the intervals a run is cut at.

    Longer than ``limit_s``; or longer than ``SPLIT_GAP_INTERVALS`` intervals where the effort is
    not one smooth curve across the gap: a cubic through the ``EFFORT_CHECK_SAMPLES`` samples on
    each side misses some joint's effort by more than its noise allows (chi-square,
    ``EFFORT_CHECK_CHI2`` for 2K - 4 degrees of freedom; noise std from the run's second
    differences). The effort steps with the friction near a joint's reversal (and at a contact),
    and no interpolation places that step inside a gap: bridged, it would be a torque error far
    beyond the noise.

    Args:
        t_s: (N,) stamps, s; effort: (N, n) finite efforts or None (then only ``limit_s``).
    """
    dt = np.diff(t_s)
    cut = dt > limit_s
    candidates = np.flatnonzero((dt > SPLIT_GAP_INTERVALS * interval_s) & ~cut)
    if effort is None or candidates.size == 0:
        return cut
    K = EFFORT_CHECK_SAMPLES
    E = np.asarray(effort, dtype=float)
    d2 = np.diff(E, n=2, axis=0)
    sigma = 1.4826 * np.median(np.abs(d2 - np.median(d2, axis=0)), axis=0) / np.sqrt(6.0)
    sigma = np.maximum(sigma, 1e-12 * np.maximum(np.abs(E).max(axis=0), 1.0))
    for i in candidates:
        if i + 1 < K or i + 1 + K > len(t_s):
            cut[i] = True          # too few samples on a side to tell: not bridged
            continue
        rows = np.arange(i + 1 - K, i + 1 + K)
        x = (t_s[rows] - 0.5 * (t_s[i] + t_s[i + 1])) / (t_s[rows[-1]] - t_s[rows[0]])
        V = np.vander(x, 4)
        coef, *_ = np.linalg.lstsq(V, E[rows], rcond=None)
        rss = (((E[rows] - V @ coef) / sigma) ** 2).sum(axis=0)
        cut[i] = bool(np.any(rss > EFFORT_CHECK_CHI2))
    return cut


def split_at_gaps(series: JointStateSeries, what='trajectory'):
    """Return the pieces of a run between its long gaps, and the lines that report them.

    A recording with a pause (a driver or bridge that stopped publishing for a while) is not one
    run: the resampling would interpolate across the pause. It is cut at each interval longer
    than the gap the spline bridges on this run's sample interval and motion
    (``bridgeable_gap_s``); each piece is a run of its own, pieces shorter than ``MIN_PIECE_S``
    are left out. The samples left out as unusable (``usable_samples``) are reported here, on
    the whole run.

    Args:
        series: the recorded run.
        what: what the series is, for the lines.

    Returns:
        (pieces, lines): ``[series]`` and [] when there is no long gap; else the pieces (sources
        '<source> part k of m') and one line per gap, piece left out and cause of unusable
        samples. Raises ``IdentificationError`` when no piece is long enough.
    """
    if len(series) < 2:
        return [series], []
    dt = np.diff(series.stamp_ns) * 1e-9
    interval_s = float(np.median(dt))
    if not np.any(dt > SPLIT_GAP_INTERVALS * interval_s):
        return [series], []
    finite = np.isfinite(series.q).all(axis=1)
    if series.effort is not None:
        finite &= np.isfinite(series.effort).all(axis=1)
    limit, why = bridgeable_gap_s(series.t_s[finite], series.q[finite], interval_s)
    if not np.any(_gaps_to_cut(series.t_s[finite], None if series.effort is None
                               else series.effort[finite], interval_s, limit)):
        return [series], []
    series, lines = usable_samples(series, what)
    t = series.t_s
    cut = _gaps_to_cut(t, series.effort, interval_s, limit)
    cuts = np.flatnonzero(cut) + 1
    stepping = int(np.sum(cut & (np.diff(t) <= limit)))
    src = series.source or '(memory)'
    lines.append(f'{what} {src}: cut at {len(cuts)} gap(s) longer than {limit:.3g} s ({why})'
                 + (f' or, {stepping} of them, longer than {SPLIT_GAP_INTERVALS} sample '
                    'intervals with the effort stepping across (a reversal or a contact)'
                    if stepping else '')
                 + '; no sample in between, nothing interpolated across: '
                 + ', '.join(f'{t[c - 1]:.6g}-{t[c]:.6g} s' for c in cuts[:MAX_CAUSES_LISTED])
                 + (f' and {len(cuts) - MAX_CAUSES_LISTED} more' if len(cuts) > MAX_CAUSES_LISTED
                    else ''))
    bounds = np.concatenate([[0], cuts, [len(t)]])
    spans = [(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    long_enough = [(a, b) for a, b in spans if t[b - 1] - t[a] >= MIN_PIECE_S]
    short = [(a, b) for a, b in spans if (a, b) not in long_enough]
    if short:
        lines.append(f'{what} {src}: {len(short)} piece(s) between gaps shorter than '
                     f'{MIN_PIECE_S:g} s left out ({sum(b - a for a, b in short)} samples, first '
                     f'at t {t[short[0][0]]:.6g} s)')
    if not long_enough:
        raise IdentificationError(f'{what} {src}: no piece between gaps is {MIN_PIECE_S:g} s '
                                  'long; ' + '; '.join(lines))
    pieces = []
    for k, (a, b) in enumerate(long_enough):
        p = series.select(np.arange(a, b))
        p.source = f'{src} part {k + 1} of {len(long_enough)}'
        pieces.append(p)
    return pieces, lines
