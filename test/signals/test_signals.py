# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Signal processing: known-derivative signals with known noise, jitter, period mismatch, bad
input."""
import numpy as np
import pytest

from robot_id_ros import signals as S
from robot_id_ros.signals import SignalError

RATE = 200.0
F1, F2 = 0.7, 1.9  # Hz


def two_tone(t):
    w1, w2 = 2 * np.pi * F1, 2 * np.pi * F2
    x = np.sin(w1 * t) + 0.5 * np.cos(w2 * t)
    xd = w1 * np.cos(w1 * t) - 0.5 * w2 * np.sin(w2 * t)
    xdd = -w1 ** 2 * np.sin(w1 * t) - 0.5 * w2 ** 2 * np.cos(w2 * t)
    return x, xd, xdd


# --- periodic test signal (seed 001 setting: 51.5 ms sampling, 504 samples per actual cycle) ---
DT_NOMINAL = 0.0515
P_TRUE = 504          # samples per cycle actually executed
P_NOMINAL = 500       # samples per cycle commanded
T_TRUE = P_TRUE * DT_NOMINAL
HARMONICS = 5


def periodic_signal(t, period_s=T_TRUE):
    w = 2 * np.pi / period_s
    a = np.array([[1.0, 0.3], [0.0, -0.2], [0.3, 0.0], [0.0, 0.1], [-0.2,
                                                                    0.05]])  # (harmonic, col)
    ph = np.array([0.0, 1.0, 2.0, 0.5, -1.0])
    x = np.zeros((len(t), 2))
    xd = np.zeros_like(x)
    xdd = np.zeros_like(x)
    for k in range(HARMONICS):
        kw = (k + 1) * w
        s, c = np.sin(kw * t[:, None] + ph[k]), np.cos(kw * t[:, None] + ph[k])
        x += a[k] * s
        xd += a[k] * kw * c
        xdd -= a[k] * kw ** 2 * s
    return x, xd, xdd


# ------------------------------------------------------------------------------------ derivatives
@pytest.mark.parametrize('method,bx,bxd,bxdd', [
    ('savgol', 0.005, 0.05, 3.0),
    ('spline', 0.02, 0.2, 3.0),
    ('central', 0.005, 0.05, 1.0),
])
def test_derivatives_known_signal_with_noise(method, bx, bxd, bxdd):
    rng = np.random.default_rng(0)
    t = np.arange(4000) / RATE
    x, xd, xdd = two_tone(t)
    noise_sd = 1e-3
    y = x + rng.normal(0, noise_sd, len(t))
    Xf, Xd, Xdd = S.derivatives(y, RATE, cutoff_hz=5.0, method=method)
    inner = slice(100, -100)  # 0.5 s from the ends
    # amplitude of xdd is ~90 rad/s^2: bounds are a few percent of it
    assert np.abs(Xf - x)[inner].max() < bx
    assert np.abs(Xd - xd)[inner].max() < bxd
    assert np.abs(Xdd - xdd)[inner].max() < bxdd
    # zero phase: no delay. A delay d would give an error ~ |xd| d ~ 9 d; check the fitted lag
    lag = np.dot(Xf[inner] - x[inner], xd[inner]) / np.dot(xd[inner], xd[inner])
    assert abs(lag) < 0.2 / RATE


def test_savgol_edges_are_delay_free():
    t = np.arange(2000) / RATE
    x, xd, xdd = two_tone(t)
    Xf, Xd, Xdd = S.derivatives(x, RATE, cutoff_hz=5.0, method='savgol')
    assert np.abs(Xd - xd).max() < 0.15   # including the first and last samples
    assert np.abs(Xdd - xdd).max() < 5.0


def test_derivatives_2d_columns_independent():
    t = np.arange(1000) / RATE
    x, xd, _ = two_tone(t)
    X = np.column_stack([x, 2 * x])
    _, Xd, _ = S.derivatives(X, RATE, cutoff_hz=5.0, method='spline')
    np.testing.assert_allclose(Xd[:, 1], 2 * Xd[:, 0], atol=1e-9)


def test_lowpass_removes_high_frequency_without_delay():
    t = np.arange(4000) / RATE
    x, _, _ = two_tone(t)
    y = x + 0.2 * np.sin(2 * np.pi * 40 * t)
    f = S.lowpass_zero_phase(y, RATE, 5.0)
    assert np.abs(f - x)[50:-50].max() < 5e-3


def test_savgol_window_matches_cutoff():
    w = S.savgol_window_for_cutoff(RATE, 5.0)
    import scipy.signal
    f, h = scipy.signal.freqz(scipy.signal.savgol_coeffs(w, 5), worN=4096, fs=RATE)
    f3 = f[np.flatnonzero(np.abs(h) < 10 ** (-3 / 20))[0]]
    assert 5.0 <= f3 < 6.0


def test_decimate():
    t = np.arange(4000) / RATE
    x, _, _ = two_tone(t)
    y = x + 0.3 * np.sin(2 * np.pi * 45 * t)  # would alias to 5 Hz at 20 Hz without filtering
    d = S.decimate(y, 10, RATE)
    assert d.shape == (400,)
    assert np.abs(d - x[::10])[10:-10].max() < 0.01


# ------------------------------------------------------------------------------------ resampling
def jittery_stamps(n, rng, dt=DT_NOMINAL, jitter=0.0005):
    return np.concatenate([[0.0], np.cumsum(dt + rng.uniform(-jitter, jitter, n - 1))])


def test_resample_jitter_51_5_ms():
    rng = np.random.default_rng(1)
    t = jittery_stamps(4 * P_TRUE, rng)
    x, _, _ = periodic_signal(t)
    r = S.resample_uniform(t, x)
    assert abs(r.rate_hz - 1 / DT_NOMINAL) < 0.05
    assert r.gaps == []
    assert 0.2e-3 < r.jitter_s < 0.4e-3   # uniform +-0.5 ms: sd 0.29 ms
    np.testing.assert_allclose(np.diff(r.t_s), 1 / r.rate_hz, rtol=1e-9)
    truth, _, _ = periodic_signal(r.t_s)
    err = np.abs(r.X - truth).max()
    naive = np.abs(x - periodic_signal(np.arange(len(t)) * DT_NOMINAL)[0]).max()
    assert err < 2e-4              # cubic interpolation of a smooth signal
    assert naive > 20 * err        # assuming uniform stamps would be far worse (accumulated drift)


def test_resample_reports_gaps():
    rng = np.random.default_rng(2)
    t = jittery_stamps(600, rng)
    keep = np.ones(len(t), bool)
    keep[200:230] = False  # 1.6 s hole
    t, x = t[keep], periodic_signal(t[keep])[0]
    r = S.resample_uniform(t, x, rate_hz=1 / DT_NOMINAL)
    assert len(r.gaps) == 1
    a, b = r.gaps[0]
    assert a == pytest.approx(t[199]) and b == pytest.approx(t[200])
    assert r.in_gap.sum() == pytest.approx((b - a) * r.rate_hz, abs=1.5)
    assert 'gap' in r.report()


@pytest.mark.parametrize('bad,match', [
    ('nonmono', 'not strictly increasing at index 5'),
    ('dup', 'not strictly increasing at index 5'),
    ('nan_x', 'sample 7, column 1'),
    ('nan_t', 'index 3'),
])
def test_resample_bad_input(bad, match):
    t = np.arange(20) * 0.01
    x = np.zeros((20, 2))
    if bad == 'nonmono':
        t[5] = t[3]
    elif bad == 'dup':
        t[5] = t[4]
    elif bad == 'nan_x':
        x[7, 1] = np.nan
    elif bad == 'nan_t':
        t[3] = np.nan
    with pytest.raises(SignalError, match=match):
        S.resample_uniform(t, x)


# ------------------------------------------------------------------------------------ periodic
def test_detect_period_504_vs_500():
    """The robot executed 504-sample cycles while 500 were commanded (seed 001)."""
    rng = np.random.default_rng(3)
    t = jittery_stamps(8 * P_TRUE, rng)
    x, _, _ = periodic_signal(t)
    x += rng.normal(0, 1e-3, x.shape)
    r = S.resample_uniform(t, x, rate_hz=1 / DT_NOMINAL)
    P = S.detect_period(r.X, r.rate_hz, approx_period_s=P_NOMINAL * DT_NOMINAL)
    assert abs(P - P_TRUE) < 0.1
    assert abs(S.detect_period(r.X, r.rate_hz) - P_TRUE) < 0.1  # without a hint as well


def test_detect_period_fractional():
    rate = 100.0
    P_true = 123.37
    t = np.arange(int(6 * P_true)) / rate
    x, _, _ = periodic_signal(t, period_s=P_true / rate)
    assert abs(S.detect_period(x, rate, approx_period_s=1.2) - P_true) < 0.05


def test_cycle_average_noise_variance_and_alignment():
    rng = np.random.default_rng(4)
    n_cycles = 10
    P = 503.6  # non-integer period: cycles must stay aligned
    rate = 1 / DT_NOMINAL
    t = np.arange(int(n_cycles * P)) / rate
    sd = np.array([2e-3, 5e-3])
    x, _, _ = periodic_signal(t, period_s=P / rate)
    y = x + rng.normal(0, 1, x.shape) * sd
    y[:400] += 0.5  # a transient in the first cycle that must be discarded
    ca = S.cycle_average(y, P)
    # 5036 samples: the 10th cycle would need sample 5035.003, so 9 whole cycles, 7 kept
    assert ca.cycles == 7 and ca.cycles_discarded == 1
    np.testing.assert_allclose(np.sqrt(ca.noise_variance), sd, rtol=0.1)
    tt = np.arange(ca.mean.shape[0]) * (P / ca.mean.shape[0]) / rate
    truth, truth_d, truth_dd = periodic_signal(tt, period_s=P / rate)
    # mean of M cycles: error ~ sd / sqrt(M); 5 sigma bound per sample, with interpolation error
    assert np.all(np.abs(ca.mean - truth) < 5 * sd / np.sqrt(ca.cycles) + 2e-4)
    # periodic derivatives of the averaged cycle
    Xf, Xd, Xdd = S.periodic_derivatives(ca.mean, ca.sample_rate_hz(rate), ca.period_s(rate),
                                         cutoff_hz=HARMONICS / ca.period_s(rate))
    amp_dd = np.abs(truth_dd).max()
    assert np.abs(Xf - truth).max() < 2e-3
    assert np.abs(Xd - truth_d).max() < 0.01 * np.abs(truth_d).max()
    assert np.abs(Xdd - truth_dd).max() < 0.02 * amp_dd


def test_cycle_average_integer_period_exact():
    base = np.sin(2 * np.pi * np.arange(50) / 50)
    X = np.tile(base, 6) + np.repeat(np.arange(6), 50) * 0.0  # exact repeats
    ca = S.cycle_average(X, 50)
    assert ca.cycles == 4 and ca.cycles_discarded == 1
    np.testing.assert_allclose(ca.mean, base, atol=1e-12)
    assert ca.noise_variance < 1e-20


def test_periodic_derivatives_fft_whole_record():
    rate = 1 / DT_NOMINAL
    t = np.arange(4 * P_TRUE) / rate
    x, xd, xdd = periodic_signal(t)
    rng = np.random.default_rng(5)
    sd = 1e-3
    y = x + rng.normal(0, sd, x.shape)
    Xf, Xd, Xdd = S.periodic_derivatives(y, rate, T_TRUE, cutoff_hz=HARMONICS / T_TRUE)
    # noise left after keeping 2*5+1 of 4*504 bins: sd*sqrt(11/2016) ~ 7e-5
    assert np.abs(Xf - x).max() < 6 * sd * np.sqrt(11 / len(t))
    assert np.abs(Xd - xd).max() < 0.01 * np.abs(xd).max()
    assert np.abs(Xdd - xdd).max() < 0.01 * np.abs(xdd).max()
    # the least-squares path (not a whole number of periods) agrees
    Xf2, Xd2, _ = S.periodic_derivatives(y[:-37], rate, T_TRUE, cutoff_hz=HARMONICS / T_TRUE)
    assert np.abs(Xd2 - xd[:-37]).max() < 0.01 * np.abs(xd).max()


def test_periodic_lowpass_torque_cutoff_twice_bandwidth():
    rate = 100.0
    T = 10.0
    t = np.arange(3000) / rate
    x = np.sin(2 * np.pi * 0.5 * t) + 0.2 * np.sin(2 * np.pi * 0.9 * t)
    y = x + 0.1 * np.sin(2 * np.pi * 3.0 * t)
    f = S.periodic_lowpass(y, rate, T, cutoff_hz=2 * 0.5)
    assert np.abs(f - x).max() < 1e-9


def test_cycle_offset_finds_start():
    P = 400
    t = np.arange(P) / 100.0
    ref, _, _ = periodic_signal(t, period_s=4.0)
    data = np.vstack([ref] * 4)[137:]  # starts 137 samples into a cycle
    off = S.cycle_offset(data, ref)
    assert abs(off - (P - 137)) < 0.05


# ------------------------------------------------------------------------------------ bad input
def test_bad_inputs_have_clear_messages():
    x = np.sin(np.arange(100) * 0.1)
    with pytest.raises(SignalError, match='Nyquist'):
        S.lowpass_zero_phase(x, 10.0, 6.0)
    with pytest.raises(SignalError, match='more than'):
        S.lowpass_zero_phase(x[:12], 10.0, 1.0)
    with pytest.raises(SignalError, match='record more cycles'):
        S.cycle_average(x, 40)
    with pytest.raises(SignalError, match='whole period'):
        S.periodic_derivatives(x[:15], 10.0, 2.0, cutoff_hz=1.0)
    with pytest.raises(SignalError, match='below the base frequency'):
        S.periodic_derivatives(x, 10.0, 2.0, cutoff_hz=0.3)
    with pytest.raises(SignalError, match='at least two periods'):
        S.detect_period(x[:60], 10.0, approx_period_s=4.0)
    with pytest.raises(SignalError, match='non-finite'):
        S.derivatives(np.array([0.0, 1.0, np.nan, 2.0, 3.0, 4.0, 5.0]), 10.0)
    with pytest.raises(SignalError, match='unknown differentiation method'):
        S.derivatives(x, 10.0, method='magic')
