# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Zero-phase filtering and differentiation of uniformly sampled, non-periodic data.

Butterworth (forward-backward), Savitzky-Golay, smoothing splines, central differences; and
decimation.
"""
from __future__ import annotations

import numpy as np
import scipy.interpolate
import scipy.signal

from robot_id_ros.signals.checks import SignalError, as_data, check_cutoff, check_rate


def lowpass_zero_phase(X, rate_hz, cutoff_hz, order=4):
    """Zero-phase Butterworth low-pass (second-order sections, forward-backward along axis 0).

    The forward-backward pass squares the magnitude: the -6 dB point is at ``cutoff_hz`` and the
    effective order is 2*order. Needs more than ~6*order samples (odd-extension padding).
    """
    A, _ = as_data(X)
    rate = check_rate(rate_hz)
    fc = check_cutoff(cutoff_hz, rate)
    order = int(order)
    if order < 1:
        raise SignalError(f'filter order must be >= 1, got {order}')
    sos = scipy.signal.butter(order, fc, btype='low', fs=rate, output='sos')
    padlen = 3 * (2 * len(sos) + 1)
    if A.shape[0] <= padlen:
        raise SignalError(f'zero-phase filtering of order {order} needs more than {padlen} '
                          f'samples, got {A.shape[0]}; record longer or lower the order')
    return scipy.signal.sosfiltfilt(sos, A, axis=0)


def savgol_window_for_cutoff(rate_hz, cutoff_hz, polyorder=5):
    """Odd Savitzky-Golay window length whose smoothing response falls to -3 dB near ``cutoff_hz``.

    Computed from the actual frequency response of the kernel (not a rule of thumb): the largest
    window whose -3 dB point is still at or above the cut-off.
    """
    rate = check_rate(rate_hz)
    fc = check_cutoff(cutoff_hz, rate)
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
    """Filter a signal and return its first and second time derivatives, for non-periodic data.

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
    A, _ = as_data(X)
    rate = check_rate(rate_hz)
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
            raise SignalError(f'Savitzky-Golay window must be odd and > polyorder ({polyorder}), '
                              f'got {window}')
        if N < window:
            raise SignalError(f'Savitzky-Golay window of {window} samples needs at least that '
                              f'many samples, got {N}; raise the cut-off or record longer')
        kw = dict(window_length=window, polyorder=polyorder, axis=0, mode='interp')
        Xf = scipy.signal.savgol_filter(A, deriv=0, **kw)
        Xd = scipy.signal.savgol_filter(A, deriv=1, delta=h, **kw)
        Xdd = (scipy.signal.savgol_filter(A, deriv=2, delta=h, **kw) if polyorder >= 2
               else np.gradient(Xd, h, axis=0))
        return Xf, Xd, Xdd
    if method == 'spline':
        if N < 5:
            raise SignalError(f'spline differentiation needs at least 5 samples, got {N}')
        t = np.arange(N) * h
        if cutoff_hz is None:
            spl = scipy.interpolate.make_interp_spline(t, A, k=5, axis=0)
        else:
            fc = check_cutoff(cutoff_hz, rate)
            # sum_k (y_k - f(t_k))^2 + lam int f"^2 dt ~ (1/h) int (y - f)^2 + lam int f"^2:
            # low-pass 1 / (1 + lam h w^4), -6 dB (half amplitude) where lam h w^4 = 1
            lam = 1.0 / (h * (2 * np.pi * fc) ** 4)
            cols = A.reshape(N, -1)
            spls = [scipy.interpolate.make_smoothing_spline(t, cols[:, j], lam=lam)
                    for j in range(cols.shape[1])]
            out = [np.column_stack([s.derivative(d)(t) if d else s(t) for s in spls])
                   .reshape(A.shape) for d in range(3)]
            return out[0], out[1], out[2]
        return spl(t), spl.derivative(1)(t), spl.derivative(2)(t)
    if method == 'central':
        Xf = lowpass_zero_phase(A, rate, cutoff_hz) if cutoff_hz is not None else A.copy()
        if N < 3:
            raise SignalError(f'central differences need at least 3 samples, got {N}')
        Xd = np.gradient(Xf, h, axis=0, edge_order=2)
        Xdd = np.gradient(Xd, h, axis=0, edge_order=2)
        return Xf, Xd, Xdd
    raise SignalError(f'unknown differentiation method {method!r}; use "savgol", "spline" or '
                      '"central"')


def decimate(X, factor, rate_hz=None, order=8):
    """Keep every ``factor``-th sample after a zero-phase anti-alias low-pass.

    The low-pass is at 0.8 x the new Nyquist frequency. Returns the decimated array (and nothing
    else; new rate = rate / factor).
    """
    A, _ = as_data(X)
    factor = int(factor)
    if factor < 1:
        raise SignalError(f'decimation factor must be a positive integer, got {factor}')
    if factor == 1:
        return A.copy()
    rate = 1.0 if rate_hz is None else check_rate(rate_hz)
    Af = lowpass_zero_phase(A, rate, 0.8 * 0.5 * rate / factor, order=order // 2 or 1)
    return Af[::factor]
