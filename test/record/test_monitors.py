# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Driver statistics: timing and tracking (robot_id_ros.record.monitors)."""
import numpy as np
import pytest

from robot_id_ros import record as R


def test_timing_stats_and_tracking_monitor():
    t = np.arange(0, 1000) * 10_000_000
    t = np.delete(t, np.arange(500, 520))  # a 0.2 s gap
    s = R.timing_stats(t)
    assert s['rate_hz'] == pytest.approx(100.0) and s['gaps'] == 1
    assert s['dt_max_s'] == pytest.approx(0.21)
    m = R.TrackingMonitor(2, 0.05, consecutive=3)
    for e in (0.01, 0.06, 0.07):
        m.update([e, 0.0], [0.0, 0.0])
    assert not m.tripped
    m.update([0.08, 0], [0, 0])
    assert m.tripped and m.report()['max_rad'][0] == pytest.approx(0.08)
