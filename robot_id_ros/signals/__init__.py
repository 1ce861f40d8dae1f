# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Signal processing for recorded data (ROS-free), below both ``record`` and ``identify``.

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

Periodic data (an excitation trajectory played repeatedly, Swevers et al. 1997):
``resample_uniform`` -> ``detect_period`` -> ``cycle_average`` (eq. 31-32: mean and variance over
cycles, first and last cycle discarded) -> ``periodic_derivatives`` (spectrum times jw and -w^2,
cut-off at the trajectory bandwidth for positions, twice it for torques via
``periodic_lowpass``).

Non-periodic data: ``lowpass_zero_phase`` (Butterworth, filtfilt), ``derivatives``
(Savitzky-Golay, smoothing spline or central differences, all zero-phase) and ``decimate``.
"""
from robot_id_ros.signals.checks import SignalError
from robot_id_ros.signals.filters import (decimate, derivatives, lowpass_zero_phase,
                                          savgol_window_for_cutoff)
from robot_id_ros.signals.periodic import (CycleAverage, cycle_average, cycle_offset,
                                           detect_period, periodic_derivatives, periodic_lowpass)
from robot_id_ros.signals.resampling import (ResampleResult, resample_uniform,
                                             velocity_bandwidth_hz)

__all__ = ['CycleAverage', 'ResampleResult', 'SignalError', 'cycle_average', 'cycle_offset',
           'decimate', 'derivatives', 'detect_period', 'lowpass_zero_phase',
           'periodic_derivatives', 'periodic_lowpass', 'resample_uniform',
           'savgol_window_for_cutoff', 'velocity_bandwidth_hz']
