"""Signal processing for identification data (ROS-free).

Conventions (every function here):

* time in seconds (``t_s``), rates and cut-offs in Hz, periods in seconds (``period_s``) or in
  samples (``samples_per_period``, a float: a period need not be a whole number of samples);
* data arrays ``X`` are ``(N,)`` or ``(N, m)``: N samples along axis 0, m channels (joints);
  results have the shape of the input;
* derivatives are per second: if X is in rad, ``Xd`` is in rad/s and ``Xdd`` in rad/s^2;
* every filter here is zero-phase (no delay): forward-backward Butterworth, symmetric
  Savitzky-Golay kernels, smoothing splines or exact band-limited Fourier series.

Bad input (non-monotonic time, NaN/inf, too few samples, a cut-off above Nyquist, fewer than the
needed number of cycles) raises ``SignalError`` (a ``ValueError``) whose message says what is wrong
and what to change.

Periodic data (an excitation trajectory played repeatedly, Swevers et al. 1997, "seed 001"):
``resample_uniform`` -> ``detect_period`` -> ``cycle_average`` (eq. 31-32: mean and variance over
cycles, first and last cycle discarded) -> ``periodic_derivatives`` (spectrum times jw and -w^2,
cut-off at the trajectory bandwidth for positions, twice it for torques via
``periodic_lowpass``).

Non-periodic data: ``lowpass_zero_phase`` (Butterworth, filtfilt), ``derivatives``
(Savitzky-Golay, smoothing spline or central differences, all zero-phase) and ``decimate``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.interpolate
import scipy.optimize
import scipy.signal
from robot_id_ros.errors import InputError


class SignalError(InputError):
    """Input a signal-processing step cannot use; the message says what to change."""


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _as_data(X, name='X'):
    """(array as float, was_1d). Rejects NaN/inf naming the first bad sample."""
    A = np.asarray(X, dtype=float)
    if A.ndim == 0 or A.ndim > 2:
        raise SignalError(f'{name} must be a 1-D (N,) or 2-D (N, m) array, got shape {A.shape}')
    bad = ~np.isfinite(A)
    if bad.any():
        idx = np.argwhere(bad)[0]
        where = f'sample {idx[0]}' + (f', column {idx[1]}' if A.ndim == 2 else '')
        raise SignalError(f'{name} has a non-finite value (NaN or inf) at {where}; '
                          f'drop or repair such samples before processing')
    return A, A.ndim == 1


def _check_rate(rate_hz):
    rate_hz = float(rate_hz)
    if not np.isfinite(rate_hz) or rate_hz <= 0:
        raise SignalError(f'rate_hz must be a positive number, got {rate_hz}')
    return rate_hz


def _check_cutoff(cutoff_hz, rate_hz, what='cutoff_hz'):
    cutoff_hz = float(cutoff_hz)
    nyq = 0.5 * rate_hz
    if not np.isfinite(cutoff_hz) or cutoff_hz <= 0:
        raise SignalError(f'{what} must be a positive number, got {cutoff_hz}')
    if cutoff_hz >= nyq:
        raise SignalError(f'{what} = {cutoff_hz:g} Hz is not below the Nyquist frequency '
                          f'{nyq:g} Hz of {rate_hz:g} Hz data; lower the cut-off or sample faster')
    return cutoff_hz


def _check_time(t_s):
    t = np.asarray(t_s, dtype=float)
    if t.ndim != 1:
        raise SignalError(f't_s must be 1-D, got shape {t.shape}')
    bad = ~np.isfinite(t)
    if bad.any():
        raise SignalError(f't_s has a non-finite time stamp at index {int(np.flatnonzero(bad)[0])}')
    if len(t) < 2:
        raise SignalError(f'need at least 2 samples, got {len(t)}')
    d = np.diff(t)
    if np.any(d <= 0):
        i = int(np.flatnonzero(d <= 0)[0]) + 1
        raise SignalError(f'time is not strictly increasing at index {i}: t[{i - 1}] = {t[i - 1]:.9g} s, '
                          f't[{i}] = {t[i]:.9g} s; sort the samples by time and drop duplicates')
    return t


# ---------------------------------------------------------------------------------------------
# resampling
# ---------------------------------------------------------------------------------------------
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
        s = (f'{len(self.t_s)} samples at {self.rate_hz:.6g} Hz (input median {self.input_rate_hz:.6g} Hz, '
             f'interval jitter {1e3 * self.jitter_s:.3g} ms)')
        if self.gaps:
            total = sum(b - a for a, b in self.gaps)
            s += f'; {len(self.gaps)} gap(s), {total:.3g} s in total, first at {self.gaps[0][0]:.6g} s'
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
    t = _check_time(t_s)
    A, one_d = _as_data(X)
    if A.shape[0] != len(t):
        raise SignalError(f't_s has {len(t)} stamps but X has {A.shape[0]} samples')
    dt = np.diff(t)
    med = float(np.median(dt))
    input_rate = 1.0 / med
    rate = input_rate if rate_hz is None else _check_rate(rate_hz)
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
            raise SignalError(f'cubic resampling needs at least 4 samples, got {len(t)}; use method="linear"')
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


# ---------------------------------------------------------------------------------------------
# non-periodic filtering and differentiation
# ---------------------------------------------------------------------------------------------
def lowpass_zero_phase(X, rate_hz, cutoff_hz, order=4):
    """Zero-phase Butterworth low-pass (second-order sections, forward-backward along axis 0).

    The forward-backward pass squares the magnitude: the -6 dB point is at ``cutoff_hz`` and the
    effective order is 2*order. Needs more than ~6*order samples (odd-extension padding).
    """
    A, _ = _as_data(X)
    rate = _check_rate(rate_hz)
    fc = _check_cutoff(cutoff_hz, rate)
    order = int(order)
    if order < 1:
        raise SignalError(f'filter order must be >= 1, got {order}')
    sos = scipy.signal.butter(order, fc, btype='low', fs=rate, output='sos')
    padlen = 3 * (2 * len(sos) + 1)
    if A.shape[0] <= padlen:
        raise SignalError(f'zero-phase filtering of order {order} needs more than {padlen} samples, '
                          f'got {A.shape[0]}; record longer or lower the order')
    return scipy.signal.sosfiltfilt(sos, A, axis=0)


def savgol_window_for_cutoff(rate_hz, cutoff_hz, polyorder=5):
    """Odd Savitzky-Golay window length whose smoothing response falls to -3 dB near ``cutoff_hz``.

    Computed from the actual frequency response of the kernel (not a rule of thumb): the largest
    window whose -3 dB point is still at or above the cut-off.
    """
    rate = _check_rate(rate_hz)
    fc = _check_cutoff(cutoff_hz, rate)
    best = polyorder + 2 if (polyorder + 2) % 2 == 1 else polyorder + 3
    w = best
    while True:
        c = scipy.signal.savgol_coeffs(w, polyorder)
        f, h = scipy.signal.freqz(c, worN=2048, fs=rate)
        below = np.flatnonzero(np.abs(h) < 10 ** (-3 / 20))
        f3 = f[below[0]] if len(below) else 0.5 * rate
        if f3 < fc:
            return best
        best = w
        w += 2
        if w > 100001:
            return best


def derivatives(X, rate_hz, cutoff_hz=None, method='savgol', polyorder=5, window=None):
    """Filtered signal and its first and second time derivatives, for non-periodic data.

    All methods are zero-phase (no delay) on uniform samples at ``rate_hz``:

    * 'savgol': Savitzky-Golay polynomial fit (``polyorder``) over a symmetric window; the window
      is chosen so the smoothing response has its -3 dB point near ``cutoff_hz`` (or given as
      ``window``, odd). Edges: polynomial fit of the first/last window (no padding delay).
    * 'spline': cubic smoothing spline (penalty on the second derivative) whose equivalent
      low-pass has its -3 dB point at ``cutoff_hz``; derivatives are the spline's.
    * 'central': zero-phase Butterworth at ``cutoff_hz`` (if given), then second-order central
      differences (one-sided second order at the ends).

    cutoff_hz=None: no smoothing beyond the method's minimum (noisy derivatives).
    Returns (X_filtered, Xd, Xdd) in units of X, X/s, X/s^2.
    """
    A, _ = _as_data(X)
    rate = _check_rate(rate_hz)
    h = 1.0 / rate
    N = A.shape[0]
    if method == 'savgol':
        if window is None:
            if cutoff_hz is None:
                window = polyorder + 2 if (polyorder + 2) % 2 == 1 else polyorder + 3
            else:
                window = savgol_window_for_cutoff(rate, cutoff_hz, polyorder)
        window = int(window)
        if window % 2 == 0 or window <= polyorder:
            raise SignalError(f'Savitzky-Golay window must be odd and > polyorder ({polyorder}), got {window}')
        if N < window:
            raise SignalError(f'Savitzky-Golay window of {window} samples needs at least that many samples, '
                              f'got {N}; raise the cut-off or record longer')
        kw = dict(window_length=window, polyorder=polyorder, axis=0, mode='interp')
        Xf = scipy.signal.savgol_filter(A, deriv=0, **kw)
        Xd = scipy.signal.savgol_filter(A, deriv=1, delta=h, **kw)
        Xdd = scipy.signal.savgol_filter(A, deriv=2, delta=h, **kw) if polyorder >= 2 else np.gradient(Xd, h, axis=0)
        return Xf, Xd, Xdd
    if method == 'spline':
        if N < 5:
            raise SignalError(f'spline differentiation needs at least 5 samples, got {N}')
        t = np.arange(N) * h
        if cutoff_hz is None:
            spl = scipy.interpolate.make_interp_spline(t, A, k=5, axis=0)
        else:
            fc = _check_cutoff(cutoff_hz, rate)
            # sum_k (y_k - f(t_k))^2 + lam int f"^2 dt ~ (1/h) int (y - f)^2 + lam int f"^2: low-pass
            # 1 / (1 + lam h w^4),
            # -6 dB (half amplitude) where lam h w^4 = 1
            lam = 1.0 / (h * (2 * np.pi * fc) ** 4)
            cols = A.reshape(N, -1)
            spls = [scipy.interpolate.make_smoothing_spline(t, cols[:, j], lam=lam) for j in range(cols.shape[1])]
            out = [np.column_stack([s.derivative(d)(t) if d else s(t) for s in spls]).reshape(A.shape)
                   for d in range(3)]
            return out[0], out[1], out[2]
        return spl(t), spl.derivative(1)(t), spl.derivative(2)(t)
    if method == 'central':
        Xf = lowpass_zero_phase(A, rate, cutoff_hz) if cutoff_hz is not None else A.copy()
        if N < 3:
            raise SignalError(f'central differences need at least 3 samples, got {N}')
        Xd = np.gradient(Xf, h, axis=0, edge_order=2)
        Xdd = np.gradient(Xd, h, axis=0, edge_order=2)
        return Xf, Xd, Xdd
    raise SignalError(f'unknown differentiation method {method!r}; use "savgol", "spline" or "central"')


def decimate(X, factor, rate_hz=None, order=8):
    """Keep every ``factor``-th sample after a zero-phase anti-alias low-pass at 0.8 x the new
    Nyquist frequency. Returns the decimated array (and nothing else; new rate = rate / factor)."""
    A, _ = _as_data(X)
    factor = int(factor)
    if factor < 1:
        raise SignalError(f'decimation factor must be a positive integer, got {factor}')
    if factor == 1:
        return A.copy()
    rate = 1.0 if rate_hz is None else _check_rate(rate_hz)
    Af = lowpass_zero_phase(A, rate, 0.8 * 0.5 * rate / factor, order=order // 2 or 1)
    return Af[::factor]


# ---------------------------------------------------------------------------------------------
# periodic data
# ---------------------------------------------------------------------------------------------
def _harmonic_count(period_s, cutoff_hz, N_per_period):
    K = int(np.floor(cutoff_hz * period_s + 1e-9))
    if K < 1:
        raise SignalError(f'cut-off {cutoff_hz:g} Hz is below the base frequency {1 / period_s:g} Hz of a '
                          f'{period_s:g} s period; raise the cut-off')
    if 2 * K + 1 > N_per_period:
        raise SignalError(f'{K} harmonics need more than {2 * K} samples per period, got {N_per_period:.1f}; '
                          f'lower the cut-off or sample faster')
    return K


def _harmonic_fit(A, t, period_s, K):
    """Least-squares coefficients of c0 + sum_k a_k cos(k w t) + b_k sin(k w t), k = 1..K."""
    w = 2 * np.pi / period_s
    kwt = np.outer(t, w * np.arange(1, K + 1))
    B = np.hstack([np.ones((len(t), 1)), np.cos(kwt), np.sin(kwt)])
    coef, *_ = np.linalg.lstsq(B, A.reshape(len(t), -1), rcond=None)
    return coef  # (1 + 2K, m)


def _harmonic_eval(coef, t, period_s, K):
    w = 2 * np.pi / period_s
    k = np.arange(1, K + 1)
    kwt = np.outer(t, w * k)
    c, s = np.cos(kwt), np.sin(kwt)
    a, b = coef[1:K + 1], coef[K + 1:]
    kw = (w * k)[:, None]
    X = coef[0] + c @ a + s @ b
    Xd = -s @ (a * kw) + c @ (b * kw)
    Xdd = -(c @ (a * kw ** 2) + s @ (b * kw ** 2))
    return X, Xd, Xdd


def periodic_derivatives(X, rate_hz, period_s, cutoff_hz):
    """Band-limited periodic signal and its derivatives: Fourier series of the data truncated at
    ``cutoff_hz`` (harmonics k/period_s <= cutoff), derivatives by multiplying the spectrum by jw and
    -w^2. Exact (no delay, no edge effect) for periodic data.

    When the data span a whole number of periods of an integer number of samples, this is the FFT
    of the whole record; otherwise the same harmonics are fitted by least squares over all samples
    (a period need not be a whole number of samples). Use the trajectory bandwidth as cut-off for
    positions (and ``periodic_lowpass`` at twice it for torques).
    Returns (X_filtered, Xd, Xdd) with the shape of X (units X, X/s, X/s^2).
    """
    A, _ = _as_data(X)
    rate = _check_rate(rate_hz)
    period_s = float(period_s)
    if not np.isfinite(period_s) or period_s <= 0:
        raise SignalError(f'period_s must be positive, got {period_s}')
    N = A.shape[0]
    P = period_s * rate
    if N < P * (1 - 1e-9):
        raise SignalError(f'need at least one whole period ({P:.1f} samples), got {N} samples')
    fc = _check_cutoff(cutoff_hz, rate)
    K = _harmonic_count(period_s, fc, P)
    Pi = int(round(P))
    cycles = N / P
    if abs(P - Pi) < 1e-6 and abs(cycles - round(cycles)) < 1e-6:
        Y = A.reshape(N, -1)
        F = np.fft.rfft(Y, axis=0)
        m = int(round(cycles))
        f_bins = np.arange(F.shape[0]) / (N / rate)  # Hz
        keep = np.zeros(F.shape[0], dtype=bool)
        keep[::m] = True  # only harmonics of the period
        keep &= f_bins <= K / period_s + 1e-9
        F = np.where(keep[:, None], F, 0)
        jw = 1j * 2 * np.pi * f_bins[:, None]
        Xf = np.fft.irfft(F, n=N, axis=0)
        Xd = np.fft.irfft(F * jw, n=N, axis=0)
        Xdd = np.fft.irfft(F * jw ** 2, n=N, axis=0)
    else:
        t = np.arange(N) / rate
        coef = _harmonic_fit(A, t, period_s, K)
        Xf, Xd, Xdd = _harmonic_eval(coef, t, period_s, K)
    return Xf.reshape(A.shape), Xd.reshape(A.shape), Xdd.reshape(A.shape)


def periodic_lowpass(X, rate_hz, period_s, cutoff_hz):
    """Periodic data low-passed by truncating its Fourier series at ``cutoff_hz`` (zero-phase)."""
    return periodic_derivatives(X, rate_hz, period_s, cutoff_hz)[0]


def detect_period(x, rate_hz, approx_period_s=None, search_fraction=0.2):
    """Period of repeated data, in samples (float, sub-sample accurate), by autocorrelation.

    x: (N,) or (N, m) (columns' normalised autocorrelations are summed). approx_period_s: the
    nominal period; the peak is searched within +-``search_fraction`` of it (use this when the
    commanded period is known, e.g. 500 samples nominal and 504 actual). Without it, the first
    autocorrelation peak reaching 80% of the highest one beyond the first zero crossing is used.
    The coarse estimate (parabolic interpolation of the autocorrelation peak) is refined by
    minimising the mean squared difference between the data and itself shifted by k periods
    (sub-sample shift by cubic interpolation, k up to 2/3 of the record).
    Needs at least two periods of data.
    """
    A, _ = _as_data(x, 'x')
    rate = _check_rate(rate_hz)
    Y = A.reshape(A.shape[0], -1)
    N = Y.shape[0]
    if N < 8:
        raise SignalError(f'period detection needs more samples, got {N}')
    Y = Y - Y.mean(axis=0)
    nfft = 1 << int(np.ceil(np.log2(2 * N)))
    F = np.fft.rfft(Y, n=nfft, axis=0)
    ac = np.fft.irfft(np.abs(F) ** 2, n=nfft, axis=0)[:N]
    energy = ac[0]
    live = energy > 1e-300
    if not live.any():
        raise SignalError('signal is constant: no period to detect')
    ac = (ac[:, live] / energy[live]).sum(axis=1) / live.sum()
    ac = ac / (N - np.arange(N)) * N  # unbiased: a lag-k peak is not shrunk by the overlap
    max_lag = N // 2
    if approx_period_s is not None:
        P0 = float(approx_period_s) * rate
        lo = max(2, int(np.floor(P0 * (1 - search_fraction))))
        hi = min(max_lag, int(np.ceil(P0 * (1 + search_fraction))))
        if hi <= lo + 1:
            raise SignalError(f'need at least two periods of data to detect a period of about {P0:.0f} samples, '
                              f'got {N} samples')
        k0 = lo + int(np.argmax(ac[lo:hi + 1]))
    else:
        neg = np.flatnonzero(ac[:max_lag] < 0)
        if len(neg) == 0:
            raise SignalError('no period found (autocorrelation never falls below zero within half the record); '
                              'record more cycles or give approx_period_s')
        start = int(neg[0])
        seg = ac[start:max_lag]
        if len(seg) < 3:
            raise SignalError('no period found: record at least two cycles')
        peaks, _ = scipy.signal.find_peaks(seg)
        if len(peaks) == 0:
            raise SignalError('no period found: record at least two cycles or give approx_period_s')
        top = seg[peaks].max()
        k0 = start + int(peaks[np.flatnonzero(seg[peaks] >= 0.8 * top)[0]])
    P = _parabolic_peak(ac, k0)
    # Refine on the signal itself: the lag L minimising the mean squared difference between x(i)
    # and x(i + L) (cubic interpolation) is exactly k periods for periodic data, whatever the
    # record length. Lags k P with k doubling up to ~2/3 of the record (best trade-off between the
    # lever arm k and the overlap N - k P), each searched within +-1 sample of the previous guess.
    spl = scipy.interpolate.CubicSpline(np.arange(N), Y, axis=0)
    k_target = max(1, int(round(2 * N / (3 * P))))

    def mismatch(L):
        i = np.arange(int(np.floor(N - 1 - L)) + 1)
        return float(np.mean((spl(i + L) - Y[i]) ** 2))

    k = 1
    while True:
        L0 = k * P
        res = scipy.optimize.minimize_scalar(mismatch, bounds=(L0 - 1.0, L0 + 1.0), method='bounded',
                                             options={'xatol': 1e-6})
        P = float(res.x) / k
        if k >= k_target:
            break
        k = min(2 * k, k_target)
    return float(P)


def _parabolic_peak(y, i):
    if i <= 0 or i >= len(y) - 1:
        return float(i)
    a, b, c = y[i - 1], y[i], y[i + 1]
    den = a - 2 * b + c
    return float(i) if den == 0 else float(i + 0.5 * (a - c) / den)


def cycle_offset(x, reference, rate_hz=None):
    """Shift (in samples, float) that best aligns the periodic data ``x`` with one cycle
    ``reference`` (e.g. the commanded trajectory sampled at the data rate): cycles of x start at
    offset + k * len(reference). By circular cross-correlation of the reference with the first
    whole cycle of x, refined by parabolic interpolation. Returns a value in [0, len(reference))."""
    A, _ = _as_data(x, 'x')
    R, _ = _as_data(reference, 'reference')
    A = A.reshape(A.shape[0], -1)
    R = R.reshape(R.shape[0], -1)
    P = R.shape[0]
    if A.shape[0] < P:
        raise SignalError(f'need at least one whole cycle ({P} samples) of data, got {A.shape[0]}')
    if A.shape[1] != R.shape[1]:
        raise SignalError(f'x has {A.shape[1]} columns, reference has {R.shape[1]}')
    a = A[:P] - A[:P].mean(axis=0)
    r = R - R.mean(axis=0)
    cc = np.fft.irfft(np.fft.rfft(a, axis=0) * np.conj(np.fft.rfft(r, axis=0)), n=P, axis=0).sum(axis=1)
    i = int(np.argmax(cc))
    y = np.array([cc[(i - 1) % P], cc[i], cc[(i + 1) % P]])
    den = y[0] - 2 * y[1] + y[2]
    d = 0.0 if den == 0 else 0.5 * (y[0] - y[2]) / den
    return float((i + d) % P)


@dataclass
class CycleAverage:
    """Average of repeated cycles (Swevers et al. 1997 eq. 31-32).

    mean: (P,) or (P, m) average cycle; variance: per-sample variance of one measurement across
    cycles (ddof=1); noise_variance: (m,) (or scalar for 1-D input) that variance averaged over the
    cycle, i.e. the measurement noise variance per column; mean_variance: variance of the averaged
    cycle (= variance / cycles); cycles: number of cycles averaged; samples_per_period: the
    (possibly fractional) period used; cycles_discarded: how many were dropped at each end.
    """

    mean: np.ndarray
    variance: np.ndarray
    noise_variance: np.ndarray
    mean_variance: np.ndarray
    cycles: int
    samples_per_period: float
    cycles_discarded: int

    def sample_rate_hz(self, input_rate_hz):
        """Rate of the samples of ``mean``: round(P) samples span one period of P input samples.
        Use it (and period_s = samples_per_period / input_rate_hz) with ``periodic_derivatives``."""
        return float(input_rate_hz) * self.mean.shape[0] / self.samples_per_period

    def period_s(self, input_rate_hz):
        return self.samples_per_period / float(input_rate_hz)


def cycle_average(X, samples_per_period, discard_first_last=True, start=0.0) -> CycleAverage:
    """Average the cycles of periodic data, with per-sample and per-column noise variance.

    Cycle c covers samples ``start + c * samples_per_period`` onwards. If the period is not a whole
    number of samples, each cycle is interpolated (cubic) at start + c*P + j*P/round(P),
    j = 0..round(P)-1, so cycles stay aligned over long records (e.g. 504.3 samples per cycle).
    With ``discard_first_last`` the first and the last whole cycle are dropped (transients).
    Needs at least 2 cycles after discarding.
    """
    A, one_d = _as_data(X)
    Y = A.reshape(A.shape[0], -1)
    N = Y.shape[0]
    P = float(samples_per_period)
    if not np.isfinite(P) or P < 2:
        raise SignalError(f'samples_per_period must be >= 2, got {samples_per_period}')
    start = float(start)
    if start < 0 or start >= N:
        raise SignalError(f'start = {start} is outside the data (0 .. {N - 1})')
    Pi = int(round(P))
    integer = abs(P - Pi) <= 1e-9 and start == int(start)
    if integer:
        n_cycles = (N - int(start)) // Pi
    else:  # cycle c needs samples up to start + (c + 1) P - P / Pi
        n_cycles = int(np.floor((N - 1 - start + P / Pi) / P + 1e-9))
    drop = 1 if discard_first_last else 0
    usable = n_cycles - 2 * drop
    if usable < 2:
        raise SignalError(f'{N} samples hold {n_cycles} whole cycle(s) of {P:.2f} samples; averaging needs at '
                          f'least {2 + 2 * drop} (2 after discarding the first and last); record more cycles')
    if integer:
        s = int(start)
        C = Y[s:s + n_cycles * Pi].reshape(n_cycles, Pi, -1)
    else:
        spl = scipy.interpolate.CubicSpline(np.arange(N), Y, axis=0)
        idx = start + np.arange(n_cycles)[:, None] * P + np.arange(Pi)[None, :] * (P / Pi)
        C = spl(idx)  # (cycles, Pi, m)
    C = C[drop:n_cycles - drop]
    M = C.shape[0]
    mean = C.mean(axis=0)
    var = C.var(axis=0, ddof=1)
    noise = var.mean(axis=0)
    mean_var = var / M
    if one_d:
        mean, var, noise, mean_var = mean[:, 0], var[:, 0], float(noise[0]), mean_var[:, 0]
    return CycleAverage(mean, var, noise, mean_var, M, P, drop)
