# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A joint at rest has zero velocity up to its first move (identify/trajectories.py).

A zero-phase derivative sees the motion before it starts and rings there; with a sharp friction
sign that ringing became friction torque the resting joint did not have (an exact-sign UR5's
wrist joint: 33x the noise at rest against 11.6x for the true model, whose sign is wider). The
holds are found from the recorded positions and their velocity and acceleration set to 0 up to
the last sample before the positions move.
"""
import numpy as np
import pytest

import robot_id_ros.signals as signals
from robot_id_ros.identify import IdentificationOptions
from robot_id_ros.identify.trajectories import prepare_trajectory
from robot_id_ros.io.bags import JointStateSeries

RATE_HZ = 200.0
ENCODER_RAD = 2 * np.pi / 2 ** 19
REST_S = 2.0
STAMP0_NS = 1_700_000_000 * 10 ** 9


def _run(rest_s=REST_S, move_s=4.0):
    """Return (t, true q, true qd, recorded series): a rest, then a move from zero velocity."""
    t = np.arange(int((rest_s + move_s) * RATE_HZ)) / RATE_HZ
    x = np.clip(t - rest_s, 0.0, None)
    amp = np.array([0.4, -0.25])
    w = 2 * np.pi * 0.5
    q = 0.1 + amp * (1 - np.cos(w * x))[:, None]
    qd = amp * (w * np.sin(w * x))[:, None]
    qm = np.round(q / ENCODER_RAD) * ENCODER_RAD
    qdm = np.vstack([np.zeros((1, 2)), np.diff(qm, axis=0) * RATE_HZ])
    stamps = STAMP0_NS + np.round(t * 1e9).astype(np.int64)
    series = JointStateSeries(('a', 'b'), stamps, qm, qdm, np.zeros_like(qm), 'rest_then_move')
    return t, q, qd, series


@pytest.mark.parametrize('method', ['savgol', 'central', 'spline'])
def test_velocity_is_zero_up_to_the_first_move_and_follows_it_after(method):
    t, q, qd, series = _run()
    opts = IdentificationOptions(derivative_method=method, cutoff_hz=5.0)
    tr = prepare_trajectory(series, opts)
    i0 = np.searchsorted(t, tr.t_s[0] - 1e-9)
    qm = series.q[i0:i0 + len(tr)]
    still = np.all(qm == qm[0], axis=1)
    last = int(np.argmin(still)) - 1          # the last sample before the encoder moves
    assert last > 0.5 * RATE_HZ
    # the premise: the derivative filter alone rings before the move
    _, ring, _ = signals.derivatives(series.q, RATE_HZ, 5.0, method=method)
    before = (t >= REST_S - 0.2) & (t < REST_S)
    assert np.abs(ring[before]).max() > 1e-4
    assert np.all(tr.qd[:last + 1] == 0.0) and np.all(tr.qdd[:last + 1] == 0.0)
    # after the move starts the derivative is the filter's: within 5 % of the true peak speed
    moving = tr.t_s > REST_S + 0.3
    err = tr.qd[moving] - qd[i0:i0 + len(tr)][moving]
    assert np.abs(err).max() < 0.05 * np.abs(qd).max(), np.abs(err).max()


def test_a_run_without_a_hold_is_not_touched():
    # a pause shorter than the static poses' minimum duration is not a hold
    t, q, qd, series = _run(rest_s=0.2, move_s=4.0)
    opts = IdentificationOptions(derivative_method='savgol', cutoff_hz=5.0, trim_s=0.0)
    tr = prepare_trajectory(series, opts)
    _, ref, ref2 = signals.derivatives(series.q, RATE_HZ, 5.0, method='savgol')
    # (the resampling to a uniform grid moves the samples by rounding only)
    np.testing.assert_allclose(tr.qd, ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(tr.qdd, ref2, rtol=0, atol=1e-7)
    assert np.abs(tr.qd[:int(0.2 * RATE_HZ)]).max() > 1e-4


def test_a_joint_creeping_through_a_hold_keeps_its_velocity():
    # joint b creeps at 3 mrad/s (below the rest speed, so the hold is found); joint a is still
    t, q, qd, series = _run()
    creep = 0.003 * t
    qm = series.q.copy()
    qm[:, 1] = np.round((q[:, 1] + creep) / ENCODER_RAD) * ENCODER_RAD
    series = JointStateSeries(series.joint_names, series.stamp_ns, qm, series.qd, series.effort,
                              'creep')
    tr = prepare_trajectory(series, IdentificationOptions(derivative_method='savgol',
                                                          cutoff_hz=5.0))
    rest = tr.t_s < REST_S - 0.3
    assert np.all(tr.qd[rest, 0] == 0.0)
    assert np.allclose(tr.qd[rest, 1], 0.003, atol=3e-4), tr.qd[rest, 1]
