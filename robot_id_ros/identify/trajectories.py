# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Excitation runs made ready for the fit (ROS-free).

Positions resampled to a uniform grid and differentiated zero-phase (exact band-limited Fourier
series when the run is periodic, else Savitzky-Golay, spline or central differences), torque in Nm
as recorded; and the selection of the rows where the joints move (``motion_mask``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.ndimage
import scipy.optimize

import robot_id_ros.signals as signals
from robot_id_ros.identify.holds import _runs, find_holds
from robot_id_ros.identify.options import (IdentificationError, IdentificationOptions,
                                           check_series, effort_to_torque)
from robot_id_ros.identify.samples import usable_samples
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.model.robot import RobotModel

# a run is periodic when one cycle differs from the next by less than this fraction of its spread
PERIODIC_MISMATCH_FRACTION = 0.02
# default position cut-off of non-periodic data: this, at most NONPERIODIC_CUTOFF_RATE_FRACTION
# of the sample rate
NONPERIODIC_CUTOFF_HZ = 10.0
NONPERIODIC_CUTOFF_RATE_FRACTION = 0.2
# highest cut-off, as a fraction of the sample rate (below Nyquist, 0.5)
MAX_CUTOFF_RATE_FRACTION = 0.45
# periodic cut-off when the spectrum shows no harmonic above the noise, fraction of the rate
FALLBACK_CUTOFF_RATE_FRACTION = 0.1
# a leading cycle of a periodic run is a start-up transient (left out of the periodic path) when
# it differs from the last cycle by more than this multiple of the last two cycles' difference
SETTLING_MISMATCH_FACTOR = 3.0
# ... and by more than this (rad, RMS): below it the cycles repeat to numerical precision
SETTLING_MISMATCH_FLOOR_RAD = 1e-6
# cycles needed for the per-joint torque noise variance from cycle averaging (eq. 31-32)
NOISE_VARIANCE_MIN_CYCLES = 4


@dataclass
class Trajectory:
    """One processed trajectory on a uniform grid.

    t_s (N,) s; q, qd, qdd (N, n) in rad, rad/s, rad/s^2; tau (N, n) torque, Nm, as recorded,
    or low-passed at ``torque_filter_hz`` (the torque filter); rate_hz; derivative method;
    cutoff_hz.
    """

    t_s: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    rate_hz: float
    method: str
    cutoff_hz: float
    period_s: float | None = None
    source: str = ''
    cycles: int = 0
    noise_variance: np.ndarray | None = None   # per joint, from cycle averaging (eq. 31-32)
    notes: list = field(default_factory=list)
    stamp0_ns: int | None = None   # bag time of t_s = 0, ns
    torque_filter_hz: float | None = None   # tau low-passed at this cut-off; None: as recorded

    def __len__(self):
        return len(self.t_s)

    def lowpassed_like_torque(self, X):
        """Return (N, m) ``X`` through the filter ``tau`` went through, on the same samples.

        The fit passes every regressor column through it too (parallel filtering), so that the
        filtered torque and the filtered model stay one linear equation: a filtered effort
        against an unfiltered friction column would smooth the torque's step at each velocity
        reversal but not the model's, and bias the joints whose torque is mostly friction.
        Periodic runs: the Fourier series truncated at ``torque_filter_hz``; others: zero-phase
        Butterworth. ``X`` unchanged without a torque filter. On a ``decimated`` trajectory the
        filter runs at the decimated rate while ``tau`` was filtered at the full rate: the two
        agree only as far as the columns have no content above the decimated Nyquist (with
        ``max_samples`` unset, the default, nothing is decimated).
        """
        if self.torque_filter_hz is None:
            return X
        if self.method == 'periodic':
            return signals.periodic_lowpass(X, self.rate_hz, self.period_s, self.torque_filter_hz)
        return signals.lowpass_zero_phase(X, self.rate_hz, self.torque_filter_hz)

    @property
    def regressor_filter(self):
        """Return ``lowpassed_like_torque`` for the fit's regressor columns, None unfiltered."""
        return self.lowpassed_like_torque if self.torque_filter_hz is not None else None

    def decimated(self, max_samples):
        """Return this trajectory with every k-th sample, at most ``max_samples`` samples.

        k is the smallest giving <= ``max_samples``; itself when ``max_samples`` is None or not
        exceeded.
        """
        if max_samples is None or len(self) <= max_samples:
            return self
        k = int(np.ceil(len(self) / max_samples))
        s = slice(None, None, k)
        return Trajectory(self.t_s[s], self.q[s], self.qd[s], self.qdd[s], self.tau[s],
                          self.rate_hz / k, self.method, self.cutoff_hz, self.period_s,
                          self.source, self.cycles, self.noise_variance,
                          self.notes + [f'decimated by {k}'], self.stamp0_ns,
                          self.torque_filter_hz)


def motion_mask(qd, rate_hz, min_velocity_rad_s, scope='joint', margin_s=0.0):
    """Return the rows of the fit where the joints move.

    Args:
        qd: (N, n) joint velocities, rad/s.
        rate_hz: sample rate (for ``margin_s``).
        min_velocity_rad_s: a row is left out below this speed; 0: keep every row.
        scope: 'joint': joint j's row where |qd_j| is below it; 'all': every joint's row where
            any joint is below it.
        margin_s: also leave out rows within this time of such a slow sample.

    Returns:
        (N, n) bool, True where joint j's row of a sample is kept.
    """
    qd = np.atleast_2d(np.asarray(qd, float))
    if not min_velocity_rad_s > 0:
        return np.ones(qd.shape, dtype=bool)
    slow = np.abs(qd) < min_velocity_rad_s
    if scope == 'all':
        slow = np.repeat(slow.any(axis=1, keepdims=True), qd.shape[1], axis=1)
    k = int(round(margin_s * rate_hz)) if rate_hz else 0
    if k > 0 and slow.any():
        slow = scipy.ndimage.binary_dilation(slow, structure=np.ones((2 * k + 1, 1), dtype=bool))
    return ~slow


def fit_mask(tr, options):
    """Return the rows of trajectory ``tr`` the fit takes, (N, n) bool.

    ``motion_mask`` with the options' ``min_velocity_rad_s``, ``min_velocity_scope`` and
    ``min_velocity_margin_s``.
    """
    return motion_mask(tr.qd, tr.rate_hz, options.min_velocity_rad_s, options.min_velocity_scope,
                       options.min_velocity_margin_s)


def _periodic_window(sidecar):
    """(t0_ns, t1_ns, period_s) from the sidecar's excitation_period segments, or None."""
    if not sidecar:
        return None
    segs = [s for s in sidecar.get('segments', []) if s.get('type') == 'excitation_period']
    if not segs:
        return None
    segs.sort(key=lambda s: s['t_start_ns'])
    durations = np.array([(s['t_end_ns'] - s['t_start_ns']) * 1e-9 for s in segs])
    return segs[0]['t_start_ns'], segs[-1]['t_end_ns'], float(np.median(durations))


def excitation_window(sidecar, options: IdentificationOptions):
    """Return ``_periodic_window`` where the processing cuts a run to it, else None."""
    periodic = options.derivative_method in ('auto', 'periodic') or options.sidecar_window
    return _periodic_window(sidecar) if periodic else None


def _acceleration_bandwidth(q, rate, period_s, snr=30.0):
    """Cut-off (Hz) just above the highest harmonic of the period that stands out of the noise.

    Over the whole cycles of ``q``, the amplitude of every harmonic k/period is compared with the
    noise floor (median amplitude of the upper half of the harmonics, or of the bins between
    harmonics if larger); harmonics more than ``snr`` times the floor are signal.
    """
    P = period_s * rate
    m = int(np.floor(len(q) / P + 1e-9))
    if m < 1:
        return None
    L = int(round(m * P))
    F = np.abs(np.fft.rfft(q[:L] - q[:L].mean(axis=0), axis=0))
    bins = np.arange(F.shape[0])
    harm = bins[::m][1:]
    if len(harm) < 4:
        return None
    # periodic noise (e.g. encoder quantisation of an exactly repeated motion) sits on the
    # harmonics too: the floor is the larger of the between-harmonics median and the
    # upper-half-harmonics median
    floor = np.median(F[harm[len(harm) // 2:]], axis=0)
    if m >= 2:
        floor = np.maximum(floor, np.median(F[np.setdiff1d(bins[1:], harm)], axis=0))
    strong = (F[harm] > snr * np.maximum(floor, 1e-300)).any(axis=1)
    if not strong.any():
        return None
    K = int(harm[np.flatnonzero(strong)[-1]] // m)
    return (K + 0.5) / period_s


def _refine_period(Q, P0, harmonics=15, max_points=4000):
    """Return the period (samples) best fitted by a ``harmonics``-term Fourier series to Q.

    Searched within +-1 % of ``P0``: with few cycles the autocorrelation peak is not precise enough
    for exact periodic differentiation (a wrong period leaks into every harmonic).
    """
    N = Q.shape[0]
    step = max(1, N // max_points)
    idx = np.arange(0, N, step)
    Y = Q[idx] - Q[idx].mean(axis=0)
    k = np.arange(1, harmonics + 1)

    def misfit(P):
        ph = np.outer(idx * (2 * np.pi / P), k)
        B = np.hstack([np.ones((len(idx), 1)), np.cos(ph), np.sin(ph)])
        c, *_ = np.linalg.lstsq(B, Y, rcond=None)
        return float(np.sum((Y - B @ c) ** 2))

    r = scipy.optimize.minimize_scalar(misfit, bounds=(0.99 * P0, 1.01 * P0), method='bounded',
                                       options={'xatol': 1e-3})
    return float(r.x) if r.success and misfit(r.x) <= misfit(P0) else float(P0)


def _is_periodic(q, rate):
    """Return the period (s) when q repeats, else None.

    Repeats: >= 2 cycles, every whole cycle differing from the one before by less than
    ``PERIODIC_MISMATCH_FRACTION`` of the spread (a run that is periodic at first and then
    fades out to rest, or stops, is not: its Fourier derivatives would be wrong over the end).
    """
    try:
        P = signals.detect_period(q, rate)
    except (signals.SignalError, IndexError):  # IndexError: every autocorrelation peak negative
        return None
    if P < 10 or len(q) < 2 * P * 0.98:
        return None
    P = _refine_period(q, P)   # the autocorrelation's period drifts by samples over cycles
    starts, Pi = _cycle_starts(len(q), P)
    if len(starts) < 2:
        starts = [0, len(q) - Pi]
    spread = np.std(q, axis=0).max()
    mismatch = max(np.sqrt(np.mean((q[i:i + Pi] - q[j:j + Pi]) ** 2))
                   for j, i in zip(starts[:-1], starts[1:]))
    if spread <= 0 or mismatch > PERIODIC_MISMATCH_FRACTION * spread:
        return None
    return P / rate


def _cycle_starts(N, P):
    """Return (the first sample of each whole cycle of ``P`` samples in ``N``, ``P`` rounded)."""
    Pi = int(round(P))
    return [int(round(k * P)) for k in range(int(N // P) + 1) if int(round(k * P)) + Pi <= N], Pi


def _settled_cycle(Q, P) -> int:
    """Return how many leading cycles of ``Q`` (period ``P`` samples) are a start-up transient.

    The exact Fourier derivatives give every cycle the cycles' mean: a first cycle that differs
    (the arm starting from rest, its controller settling) gets wrong velocities, and even the
    true model's torque error then exceeds the noise in that cycle. A leading cycle is left out
    while it differs from the last cycle by
    more than ``SETTLING_MISMATCH_FACTOR`` times the last two cycles' difference (and more than
    ``SETTLING_MISMATCH_FLOOR_RAD``); at least two cycles stay.
    """
    starts, Pi = _cycle_starts(len(Q), P)
    if len(starts) < 3:
        return 0
    last = Q[starts[-1]:starts[-1] + Pi]

    def mismatch(s):
        return float(np.sqrt(np.mean((Q[s:s + Pi] - last) ** 2)))

    steady = mismatch(starts[-2])
    limit = max(SETTLING_MISMATCH_FACTOR * steady, SETTLING_MISMATCH_FLOOR_RAD)
    first = 0
    while first < len(starts) - 2 and mismatch(starts[first]) > limit:
        first += 1
    return first


@dataclass
class _Resampled:
    """A run on a uniform grid before differentiation.

    t (s from 0), Q (rad), TAU (Nm), V (rad/s, measured velocity or None), rate_hz, the sidecar's
    excitation window or None, notes.
    """

    t: np.ndarray
    Q: np.ndarray
    TAU: np.ndarray
    V: np.ndarray | None
    rate_hz: float
    window: tuple | None
    notes: list
    stamp0_ns: int = 0


def _resampled(series: JointStateSeries, options: IdentificationOptions, sidecar) -> _Resampled:
    """Cut to the sidecar's excitation periods (when used) and resample to a uniform grid."""
    n = len(series.joint_names)
    tau = effort_to_torque(series.effort, options, n)
    window = excitation_window(sidecar, options)
    notes = []
    if window is not None:
        t0, t1, period_from_sidecar = window
        series = series.slice_stamp(t0, t1)
        tau = effort_to_torque(series.effort, options, n)
        notes.append(f'excitation periods from the sidecar: {period_from_sidecar:.4g} s')
        if options.derivative_method not in ('auto', 'periodic'):
            window = None  # the window is applied; the periodic path does not follow
    use_v = options.velocity_source == 'measured'
    if use_v and series.qd is None:
        raise IdentificationError(f'trajectory {series.source} has no velocity: use '
                                  'velocity_source "position" (--velocity-source position, '
                                  'the default): the positions are differentiated')
    try:
        res = signals.resample_uniform(
            series.t_s, np.hstack([series.q, tau] + ([series.qd] if use_v else [])),
            options.resample_hz)
    except signals.SignalError as exc:
        raise IdentificationError(f'trajectory {series.source}: {exc}') from exc
    if res.gaps:
        notes.append(res.report())
    return _Resampled(res.t_s - res.t_s[0], res.X[:, :n], res.X[:, n:2 * n],
                      res.X[:, 2 * n:] if use_v else None, res.rate_hz, window, notes,
                      int(series.stamp_ns[0]))


def _periodic_method(r: _Resampled, options: IdentificationOptions, source):
    """Return (method, period_s) for derivative method 'auto' or 'periodic'.

    'periodic' with the period given, from the sidecar or detected, else 'savgol' (auto) or an
    error (periodic).
    """
    period = options.period_s
    if period is None and r.window is not None:
        period = r.window[2]
    if period is None:
        period = _is_periodic(r.Q, r.rate_hz)
    if period is not None:
        return 'periodic', period
    if options.derivative_method == 'periodic':
        raise IdentificationError(f'trajectory {source}: no period found; give period_s, or use '
                                  'a non-periodic derivative method (savgol)')
    return 'savgol', None


def _periodic_trajectory(r: _Resampled, options: IdentificationOptions, period, source):
    """Whole cycles differentiated by the exact band-limited Fourier series."""
    rate = r.rate_hz
    P = period * rate
    # a start-up transient first (it would also pull the period's refinement)
    first = _settled_cycle(r.Q, P)
    k0 = int(round(first * P))
    if first:
        r.notes.append(f'{first} leading cycle(s) left out: a start-up transient (the cycle '
                       'differs from the last one more than the last two differ)')
    Q, TAU, t = r.Q[k0:], r.TAU[k0:], r.t[k0:]
    V = r.V[k0:] if r.V is not None else None
    if r.window is None:
        # refine the period on the data and drop a partial cycle at the end
        try:
            P = signals.detect_period(Q, rate, approx_period_s=period, search_fraction=0.05)
        except (signals.SignalError, IndexError):
            pass
        P = _refine_period(Q, P)
        if abs(P - round(P)) < 0.02:   # a whole number of samples: the exact FFT path
            P = float(round(P))
        period = P / rate
    cycles = int(np.floor(len(t) / P + 1e-6))
    if cycles < 1:
        raise IdentificationError(f'trajectory {source}: shorter than one period ({period:.3g} s)')
    L = min(len(t), int(np.floor(cycles * P + 1e-6)))
    Q, TAU, t = Q[:L], TAU[:L], t[:L]
    V = V[:L] if V is not None else None
    cutoff = (options.cutoff_hz or _acceleration_bandwidth(Q, rate, period)
              or FALLBACK_CUTOFF_RATE_FRACTION * rate)
    cutoff = min(cutoff, MAX_CUTOFF_RATE_FRACTION * rate)
    try:
        Qf, QD, QDD = signals.periodic_derivatives(Q, rate, period, cutoff)
        if V is not None:
            QD, QDD, _ = signals.periodic_derivatives(V, rate, period, cutoff)
    except signals.SignalError as exc:
        raise IdentificationError(f'trajectory {source}: {exc}') from exc
    tr = Trajectory(t, Qf, QD, QDD, TAU, rate, 'periodic', float(cutoff), float(period), source,
                    cycles, None, r.notes)
    if options.torque_filter:
        tr.torque_filter_hz = float(min(2 * cutoff, MAX_CUTOFF_RATE_FRACTION * rate))
        tr.tau = TAU = tr.lowpassed_like_torque(TAU)
    noise = None
    if cycles >= NOISE_VARIANCE_MIN_CYCLES:
        try:
            noise = np.atleast_1d(signals.cycle_average(TAU, P).noise_variance)
        except signals.SignalError:
            noise = None
    tr.noise_variance = noise
    return tr


def _nonperiodic_trajectory(r: _Resampled, options: IdentificationOptions, method, source):
    """Differentiate zero-phase by ``method``; ``trim_s`` (default 1/cut-off) dropped at ends."""
    rate = r.rate_hz
    cutoff = options.cutoff_hz or min(NONPERIODIC_CUTOFF_HZ,
                                      NONPERIODIC_CUTOFF_RATE_FRACTION * rate)
    TAU = r.TAU
    try:
        Qf, QD, QDD = signals.derivatives(r.Q, rate, cutoff, method=method)
        if r.V is not None:
            QD, QDD, _ = signals.derivatives(r.V, rate, cutoff, method=method)
    except signals.SignalError as exc:
        raise IdentificationError(f'trajectory {source}: {exc}') from exc
    t = r.t
    trim_s = options.trim_s if options.trim_s is not None else 1.0 / cutoff
    k = min(int(round(trim_s * rate)), len(t) // 10)
    s = slice(k, len(t) - k if k else None)
    tr = Trajectory(t[s], Qf[s], QD[s], QDD[s], TAU[s], rate, method, float(cutoff), None,
                    source, 0, None, r.notes)
    if options.torque_filter:
        # after the trim: the regressor is filtered on these samples (lowpassed_like_torque)
        tr.torque_filter_hz = float(cutoff)
        tr.tau = tr.lowpassed_like_torque(tr.tau)
    return tr


def prepare_trajectory(series: JointStateSeries, options: IdentificationOptions, sidecar=None,
                       robot: RobotModel | None = None) -> Trajectory:
    """Uniform resampling, zero-phase derivatives, torque in Nm.

    Args:
        series: the recorded run (q in rad, effort in ``options.effort_unit``).
        options: derivative method, cut-offs, period, resampling rate, trimming.
        sidecar: the run's sidecar dict (its ``excitation_period`` segments), or None.
        robot: when given, the series is checked against it.

    Returns:
        The ``Trajectory`` (samples with NaN/inf or wrong array lengths left out and reported in
        its notes). Raises ``IdentificationError`` on unusable data.
    """
    series, left_out = usable_samples(series, 'trajectory')
    if robot is not None:
        check_series(series, robot, 'trajectory')
    r = _resampled(series, options, sidecar)
    r.notes[:0] = left_out
    method = options.derivative_method
    if method in ('auto', 'periodic'):
        method, period = _periodic_method(r, options, series.source)
    if method == 'periodic':
        tr = _periodic_trajectory(r, options, period, series.source)
    else:
        tr = _nonperiodic_trajectory(r, options, method, series.source)
    tr.stamp0_ns = r.stamp0_ns
    _at_rest_in_holds(tr, r, options)
    return tr


def _at_rest_in_holds(tr: Trajectory, r: _Resampled, options: IdentificationOptions):
    """Set velocity and acceleration to 0 in each static hold of ``tr``, to its last still sample.

    A zero-phase derivative sees the next motion before it starts (the filter's window reaches
    into it) and rings there; a friction law turns that into torque the resting joint does not
    have. The holds are found from the recorded positions (``holds.find_holds`` with the static
    poses' thresholds). In each, a joint whose positions do not drift (the mean of the last fifth
    of the hold's trimmed middle within half the middle's range of the first fifth's) is set to
    rest over the samples, both ways from the middle, whose recorded position stays within that
    range widened by half of it: up to the sample before the encoder moves. A joint creeping
    through a hold (slower than the rest speed) keeps its derivative.
    """
    if r.Q is None or len(tr) == 0:
        return
    k0 = int(round((tr.t_s[0] - r.t[0]) * r.rate_hz))
    Q = r.Q[k0:k0 + len(tr)]
    if len(Q) != len(tr):
        return
    found = find_holds(tr.t_s, Q, options.static_min_duration_s,
                       options.static_velocity_threshold_rad_s)
    for idx, _ in found.holds:
        mid = Q[idx]
        lo, hi = mid.min(axis=0), mid.max(axis=0)
        fifth = max(1, len(idx) // 5)
        drift = np.abs(mid[-fifth:].mean(axis=0) - mid[:fifth].mean(axis=0))
        tol = 0.5 * (hi - lo)
        inside = (Q >= lo - tol - 1e-12) & (Q <= hi + tol + 1e-12)
        for j in np.flatnonzero(drift <= tol + 1e-12):
            # the run of still samples holding the middle (all of it lies within its range)
            a, b = next((a, b) for a, b in _runs(inside[:, j]) if a <= idx[0] < b)
            tr.qd[a:b, j] = 0.0
            tr.qdd[a:b, j] = 0.0


def joined_trajectory(trajectories, notes=()) -> Trajectory:
    """Return the pieces of one run (cut at its pauses) as one trajectory, rows stacked.

    t_s is on the first piece's clock (``stamp0_ns``), the pauses jumps in it; rate, method and
    cut-off are the first piece's; ``notes`` come first, then each piece's. For row-wise uses
    (validation figures, the payload fit), not for filtering or differentiating across pieces.
    """
    trs = list(trajectories)
    t0 = trs[0].stamp0_ns
    rows = (np.vstack([getattr(x, f) for x in trs]) for f in ('q', 'qd', 'qdd', 'tau'))
    return Trajectory(np.concatenate([x.t_s + (x.stamp0_ns - t0) * 1e-9 for x in trs]), *rows,
                      trs[0].rate_hz, trs[0].method, trs[0].cutoff_hz, None, trs[0].source,
                      notes=list(notes) + [n for x in trs for n in x.notes], stamp0_ns=t0)
