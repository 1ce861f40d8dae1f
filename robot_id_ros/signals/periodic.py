# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Periodic data (an excitation played repeatedly).

Exact band-limited Fourier derivatives and low-pass, period detection, cycle alignment and cycle
averaging (Swevers et al. 1997, eq. 31-32).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.interpolate
import scipy.optimize
import scipy.signal

from robot_id_ros.signals.checks import SignalError, as_data, check_cutoff, check_rate


def _harmonic_count(period_s, cutoff_hz, N_per_period):
    K = int(np.floor(cutoff_hz * period_s + 1e-9))
    if K < 1:
        raise SignalError(f'cut-off {cutoff_hz:g} Hz is below the base frequency '
                          f'{1 / period_s:g} Hz of a {period_s:g} s period; raise the cut-off')
    if 2 * K + 1 > N_per_period:
        raise SignalError(f'{K} harmonics need more than {2 * K} samples per period, got '
                          f'{N_per_period:.1f}; lower the cut-off or sample faster')
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
    """Return the band-limited periodic signal and its derivatives.

    Fourier series of the data truncated at ``cutoff_hz`` (harmonics k/period_s <= cutoff),
    derivatives by multiplying the spectrum by jw and -w^2. Exact (no delay, no edge effect) for
    periodic data.

    When the data span a whole number of periods of an integer number of samples, this is the FFT
    of the whole record; otherwise the same harmonics are fitted by least squares over all samples
    (a period need not be a whole number of samples). Use the trajectory bandwidth as cut-off for
    positions (and ``periodic_lowpass`` at twice it for torques).
    Returns (X_filtered, Xd, Xdd) with the shape of X (units X, X/s, X/s^2).
    """
    A, _ = as_data(X)
    rate = check_rate(rate_hz)
    period_s = float(period_s)
    if not np.isfinite(period_s) or period_s <= 0:
        raise SignalError(f'period_s must be positive, got {period_s}')
    N = A.shape[0]
    P = period_s * rate
    if N < P * (1 - 1e-9):
        raise SignalError(f'need at least one whole period ({P:.1f} samples), got {N} samples')
    fc = check_cutoff(cutoff_hz, rate)
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
    A, _ = as_data(x, 'x')
    rate = check_rate(rate_hz)
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
            raise SignalError(f'need at least two periods of data to detect a period of about '
                              f'{P0:.0f} samples, got {N} samples')
        k0 = lo + int(np.argmax(ac[lo:hi + 1]))
    else:
        neg = np.flatnonzero(ac[:max_lag] < 0)
        if len(neg) == 0:
            raise SignalError('no period found (autocorrelation never falls below zero within '
                              'half the record); record more cycles or give approx_period_s')
        start = int(neg[0])
        seg = ac[start:max_lag]
        if len(seg) < 3:
            raise SignalError('no period found: record at least two cycles')
        peaks, _ = scipy.signal.find_peaks(seg)
        if len(peaks) == 0:
            raise SignalError('no period found: record at least two cycles or give '
                              'approx_period_s')
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
        res = scipy.optimize.minimize_scalar(mismatch, bounds=(L0 - 1.0, L0 + 1.0),
                                             method='bounded', options={'xatol': 1e-6})
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
    """Return the shift (samples, float) best aligning periodic data ``x`` with a cycle.

    ``reference`` is one cycle (e.g. the commanded trajectory sampled at the data rate): cycles of
    x start at offset + k * len(reference). By circular cross-correlation of the reference with
    the first whole cycle of x, refined by parabolic interpolation. Returns a value in
    [0, len(reference)).
    """
    A, _ = as_data(x, 'x')
    R, _ = as_data(reference, 'reference')
    A = A.reshape(A.shape[0], -1)
    R = R.reshape(R.shape[0], -1)
    P = R.shape[0]
    if A.shape[0] < P:
        raise SignalError(f'need at least one whole cycle ({P} samples) of data, got {A.shape[0]}')
    if A.shape[1] != R.shape[1]:
        raise SignalError(f'x has {A.shape[1]} columns, reference has {R.shape[1]}')
    a = A[:P] - A[:P].mean(axis=0)
    r = R - R.mean(axis=0)
    cc = np.fft.irfft(np.fft.rfft(a, axis=0) * np.conj(np.fft.rfft(r, axis=0)), n=P,
                      axis=0).sum(axis=1)
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

        Use it (and period_s = samples_per_period / input_rate_hz) with
        ``periodic_derivatives``.
        """
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
    A, one_d = as_data(X)
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
        raise SignalError(f'{N} samples hold {n_cycles} whole cycle(s) of {P:.2f} samples; '
                          f'averaging needs at least {2 + 2 * drop} (2 after discarding the first '
                          'and last); record more cycles')
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
