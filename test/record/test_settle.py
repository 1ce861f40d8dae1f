# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Holding still: settle detection and window averaging (robot_id_ros.record.settle)."""
import numpy as np
import pytest

from robot_id_ros import record as R


def test_settle_detector_dwell_and_timeout():
    d = R.SettleDetector(0.01, 0.5, 3.0)
    d.start(0.0)
    states = [d.update(t, [0.0], [0.1 if t < 1.0 else 0.001]) for t in np.arange(0, 2, 0.01)]
    first = states.index('settled')
    assert 1.49 <= first * 0.01 <= 1.52
    d2 = R.SettleDetector(0.01, 0.5, 1.0)
    d2.start(0.0)
    assert [d2.update(t, [0.0], [0.1]) for t in np.arange(0, 1.2, 0.1)][-1] == 'timeout'
    # without velocity: from position differences
    d3 = R.SettleDetector(0.01, 0.2, 5.0)
    d3.start(0.0)
    out = [d3.update(t, [min(t, 1.0) * 0.5]) for t in np.arange(0, 2, 0.01)]
    assert out[50] == 'settling' and out[-1] == 'settled'


def test_average_window_mean_std_and_too_short():
    rng = np.random.default_rng(1)
    N = 400
    stamps = (np.arange(N) * 5e6).astype(np.int64)
    true = np.array([1.0, -2.0])
    E = true + 0.05 * rng.standard_normal((N, 2))
    w = R.average_window(stamps, np.zeros((N, 2)), E, cutoff_hz=2.0)
    assert np.allclose(w.effort_mean, true, atol=0.02)
    assert np.allclose(w.effort_std, 0.05, rtol=0.15)
    assert np.all(w.effort_std_filtered < w.effort_std)
    assert w.samples == N and w.rate_hz == pytest.approx(200.0)
    with pytest.raises(R.RecordingError, match='at least 20'):
        R.average_window(stamps[:10], np.zeros((10, 2)), E[:10])
