# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction sweeps: planning, pairing, Coulomb/viscous fit (robot_id_ros.record.sweeps)."""
import numpy as np
import pytest

from robot_id_ros import record as R

CANDLE = np.array((2.9496, 1.1344, -2.5482, 1.789, 2.9234))  # the youBot's candle pose, rad


def test_sweep_symmetric_about_gravity_extreme_and_zero(robot):
    lim = R.SafetyLimits()
    p = R.plan_friction_sweep(robot, CANDLE, 2, [0.1, 0.3], 0.6, lim, center_mode='extreme')
    q = CANDLE.copy()
    g = []
    for dq in (-1e-3, 0.0, 1e-3):
        q[2] = p.center_rad + dq
        g.append(robot.gravity_torque(q)[2])
    assert abs(g[1]) >= max(abs(g[0]), abs(g[2])) - 1e-9  # a local extreme
    assert len(p.passes) == 4 and [s.direction for s in p.passes] == [1, -1, 1, -1]
    fwd = p.passes[0].motion
    assert fwd.evaluate(0)[0][2] == pytest.approx(p.center_rad - p.amplitude_rad)
    assert fwd.evaluate(fwd.duration_s)[0][2] == pytest.approx(p.center_rad + p.amplitude_rad)
    t = 0.5 * sum(fwd.cruise)
    assert fwd.evaluate(t)[1][2] == pytest.approx(0.1)
    pz = R.plan_friction_sweep(robot, CANDLE, 1, [0.2], 0.6, lim, center_mode='zero')
    q = CANDLE.copy()
    q[1] = pz.center_rad
    assert abs(robot.gravity_torque(q)[1]) < 1e-3
    with pytest.raises(R.PoseError, match='exceeds the velocity limit'):
        R.plan_friction_sweep(robot, CANDLE, 1, [2.0], 0.6, lim)


def test_pairing_cancels_gravity_and_fit(robot):
    # synthetic: tau = g(q) + fc sign(v) + fv v, passes at three speeds
    fc, fv = 0.4, 0.9
    speeds = [0.1, 0.2, 0.4]
    fr = []
    for v in speeds:
        qf = np.linspace(0.5, 1.5, 200)
        qb = qf[::-1]
        g = 3.0 * np.cos(qf)
        fwd = g + fc + fv * v
        bwd = 3.0 * np.cos(qb) - fc - fv * v
        f, s, _, half_sum = R.pair_sweep_passes(qf, fwd, qb, bwd)
        assert f == pytest.approx(fc + fv * v, abs=1e-9)
        assert np.allclose(half_sum, 3.0 * np.cos(_), atol=0.02)
        fr.append(f)
    fc_hat, fv_hat = R.fit_coulomb_viscous(speeds, fr)
    assert fc_hat == pytest.approx(fc) and fv_hat == pytest.approx(fv)
