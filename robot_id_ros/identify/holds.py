# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Static holds of a recording without a sidecar, from the positions alone (ROS-free).

A recorded velocity at rest is often encoder differences: quantised positions differentiated,
several mrad/s of noise with spikes of one encoder step per sample period. The holds are found
from the positions instead, over a sliding window of half the minimum hold duration:

* low-passed velocity: the mean velocity over the window, (q(end) - q(start)) / its duration (the
  mean of the encoder differences inside it): quantisation costs one step over the window;
* position stability: the positions' spread over the window beyond what that mean velocity
  explains (peak-to-peak minus |velocity| x duration): zero for a hold that drifts slowly, the
  amplitude for a vibration, the noise for noisy positions.

A window rests when every joint's low-passed velocity is below the rest speed and its spread
beyond the drift below the rest band. Both thresholds have a floor from the data: the rest speed is
the declared threshold or, when the positions are noisier, their spread at rest per window
duration (the quietest tenth of the windows); the band is what the rest speed moves in half a
window, or twice the quiet spread when larger. A hold is a run of resting windows covering at
least the minimum duration. Stretches that are nearly at rest but fail are reported with the
reason (too short, moving slowly, unsteady positions).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.ndimage

# the window is this fraction of the minimum hold duration
WINDOW_FRACTION_OF_MIN_DURATION = 0.5
# at least this many samples on each side of the window's centre
MIN_HALF_WINDOW_SAMPLES = 2
# the quiet windows (the noise floor at rest): this quantile of the windows
QUIET_QUANTILE = 0.1
# the rest band is at least this many times the quiet windows' spread
BAND_OVER_QUIET_SPREAD = 2.0
# the data may raise the rest speed to at most this many times the declared threshold
MAX_SPEED_RAISE = 4.0
# a stretch slower than this many times the rest speed is "nearly at rest": when it holds no hold
# it is reported as rejected
NEAR_REST_FACTOR = 3.0
# this fraction of each hold is dropped at both ends (settling, the next move)
TRIM_FRACTION = 0.2


@dataclass
class Rejected:
    """A stretch nearly at rest that is not a hold: times (s from the first sample), reason."""

    t_start_s: float
    t_end_s: float
    reason: str


@dataclass
class HoldSearch:
    """The holds found in a recording and the stretches rejected.

    holds: [(sample indices averaged, approach direction -1/0/1)]; spans_s: [(start, end)] of
    each hold, s; rejected: ``Rejected`` stretches; rest_speed_rad_s, band_rad, window_s: the
    thresholds used; speed_raised: the data raised the rest speed above the declared one.
    """

    holds: list = field(default_factory=list)
    spans_s: list = field(default_factory=list)
    rejected: list = field(default_factory=list)
    rest_speed_rad_s: float = 0.0
    band_rad: float = 0.0
    window_s: float = 0.0
    speed_raised: bool = False
    slowest: str = ''   # where the recording is slowest, when no stretch is nearly at rest

    def criterion(self):
        """Return the rest criterion as text (for the report and the error messages)."""
        return (f'every joint\'s mean velocity over {self.window_s:.3g} s below '
                f'{self.rest_speed_rad_s:.3g} rad/s'
                + (' (raised to the position noise)' if self.speed_raised else '')
                + f' and its positions within {self.band_rad:.3g} rad of their drift')

    def rejected_text(self, limit=3):
        """Return the rejected stretches as text: count, then the first ``limit``."""
        if not self.rejected:
            return 'none rejected' + (f'; nothing nearly at rest: {self.slowest}'
                                      if self.slowest and not self.holds else '')
        items = '; '.join(f'{r.t_start_s:.4g}-{r.t_end_s:.4g} s: {r.reason}'
                          for r in self.rejected[:limit])
        more = (f'; and {len(self.rejected) - limit} more' if len(self.rejected) > limit else '')
        return f'{len(self.rejected)} rejected ({items}{more})'


def _window_stats(t, q, h):
    """Return (velocity (N, n) rad/s, spread beyond the drift (N, n) rad, span (N,) s).

    Over the window of samples i-h .. i+h (clipped at the ends).
    """
    N = len(t)
    i = np.arange(N)
    lo, hi = np.maximum(i - h, 0), np.minimum(i + h, N - 1)
    span = t[hi] - t[lo]
    span_safe = np.where(span > 0, span, np.inf)
    v = (q[hi] - q[lo]) / span_safe[:, None]
    size = 2 * h + 1
    qmax = scipy.ndimage.maximum_filter1d(q, size, axis=0, mode='nearest')
    qmin = scipy.ndimage.minimum_filter1d(q, size, axis=0, mode='nearest')
    excess = np.maximum(qmax - qmin - np.abs(v) * span[:, None], 0.0)
    return v, excess, span


def _runs(mask):
    """Return [(a, b)] of the runs of True in ``mask`` (b exclusive)."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    return list(zip(edges[::2], edges[1::2]))


def _approach(q, a, length):
    """Direction (-1, 0, 1) of the motion before sample ``a`` (largest joint motion)."""
    pre = q[a] - q[max(0, a - max(1, length // 4))]
    return int(np.sign(pre[np.argmax(np.abs(pre))])) if np.any(pre) else 0


def _reject_reason(sl, speed, excess, span, t, h, min_duration_s, search, joint_names):
    """Return why the nearly-resting windows ``sl`` hold no hold."""
    N = len(t)
    covered = t[min(sl.stop - 1 + h, N - 1)] - t[max(sl.start - h, 0)]
    if covered < min_duration_s:
        return f'too short ({covered:.3g} s < {min_duration_s:g} s)'
    v = np.median(speed[sl], axis=0)
    e = np.median(excess[sl], axis=0)
    jv, je = int(np.argmax(v)), int(np.argmax(e))
    if v[jv] >= search.rest_speed_rad_s:
        return (f'moving slowly: {joint_names[jv]} at {v[jv]:.3g} rad/s, above the rest speed '
                f'{search.rest_speed_rad_s:.3g} rad/s')
    if e[je] > search.band_rad:
        return (f'unsteady: {joint_names[je]} scatters {e[je]:.3g} rad beyond its drift, above '
                f'{search.band_rad:.3g} rad')
    return (f'rests only in stretches shorter than {min_duration_s:g} s (interrupted by '
            'moves or unsteady positions)')


def _thresholds(speed, excess, span, window_s, rest_speed_rad_s):
    """Return (rest speed, band, raised) from the declared speed and the quiet windows."""
    quiet = np.quantile(excess, QUIET_QUANTILE, axis=0).max()
    span_med = float(np.median(span[span > 0])) if np.any(span > 0) else window_s
    noise_speed = quiet / max(span_med, 1e-12)
    speed_rest = min(max(rest_speed_rad_s, noise_speed), MAX_SPEED_RAISE * rest_speed_rad_s)
    band = max(0.5 * speed_rest * span_med, BAND_OVER_QUIET_SPREAD * quiet)
    return speed_rest, band, speed_rest > rest_speed_rad_s


def find_holds(t_s, q_rad, min_duration_s, rest_speed_rad_s, joint_names=None) -> HoldSearch:
    """Find the static holds of a recording from its positions.

    Args:
        t_s: (N,) sample times, s, increasing.
        q_rad: (N, n) joint positions, rad.
        min_duration_s: a hold lasts at least this long.
        rest_speed_rad_s: declared rest speed: every joint's low-passed velocity is below it
            (raised by the data when the positions are noisier, see the module).
        joint_names: names for the rejection reasons (default 'joint k').

    Returns:
        The ``HoldSearch``: the holds (the middle of each, trimmed by ``TRIM_FRACTION`` at both
        ends), the rejected stretches with their reasons, the thresholds used.
    """
    t = np.asarray(t_s, dtype=float)
    q = np.asarray(q_rad, dtype=float).reshape(len(t), -1)
    names = list(joint_names) if joint_names is not None else [
        f'joint {j + 1}' for j in range(q.shape[1])]
    N = len(t)
    window_s = WINDOW_FRACTION_OF_MIN_DURATION * min_duration_s
    dt = float(np.median(np.diff(t))) if N > 1 else window_s
    h = max(MIN_HALF_WINDOW_SAMPLES, int(round(0.5 * window_s / max(dt, 1e-12))))
    v, excess, span = _window_stats(t, q, h)
    speed = np.abs(v)
    rest_speed, band, raised = _thresholds(speed, excess, span, window_s, rest_speed_rad_s)
    search = HoldSearch(rest_speed_rad_s=rest_speed, band_rad=band, window_s=window_s,
                        speed_raised=raised)
    near = speed.max(axis=1) < NEAR_REST_FACTOR * rest_speed
    rest = near & (speed.max(axis=1) < rest_speed) & (excess.max(axis=1) <= band)
    for a0, b0 in _runs(near):
        found = False
        for a, b in _runs(rest[a0:b0]):
            a, b = a + a0, b + a0
            first, last = max(a - h, 0), min(b - 1 + h, N - 1)
            if t[last] - t[first] < min_duration_s:
                continue
            L = last + 1 - first
            trim = int(TRIM_FRACTION * L)
            search.holds.append((np.arange(first + trim, last + 1 - trim),
                                 _approach(q, first, L)))
            search.spans_s.append((float(t[first]), float(t[last])))
            found = True
        if not found:
            reason = _reject_reason(slice(a0, b0), speed, excess, span, t, h, min_duration_s,
                                    search, names)
            search.rejected.append(Rejected(float(t[max(a0 - h, 0)]),
                                            float(t[min(b0 - 1 + h, N - 1)]), reason))
    if N:
        i = int(np.argmin(speed.max(axis=1)))
        j = int(np.argmax(speed[i]))
        search.slowest = (f'slowest at {t[i]:.4g} s, {names[j]} moving at {speed[i, j]:.3g} '
                          'rad/s')
    return search
