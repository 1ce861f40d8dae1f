# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""At rest, the published sigma covers forces that stiction absorbs (issue 16), simulated youBot.

A resting joint holds any change of its external torque inside its stiction band without a
trace, also right after a force pushed it to the band's edge: from the edge a change in the other
direction is absorbed up to twice the band. Here forces of 8 N are put on and taken off the tool
at rest (the arm's plane at BENT); the reverse force after a push is largely absorbed (several N
of error). The uniform band's variance covers it; a variance narrowed to the breakaway-Coulomb gap
after each push (tried in this issue: ``stiction hold at the edge``) covered 0.31 (x) and 0.00 (z)
of that window's samples. The estimator runs the simulator's true parameters with the youBot
settings (config/wrench_estimator.yaml), tared at rest as the demo does.
"""
import numpy as np
import pytest
from estimate_cases import BENT

from robot_id_ros.demo.pipeline import demo_estimator_settings
from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.true_model import load_true_model
from robot_id_ros.sim.youbot_arm import SimulatedArm

RATE_HZ = 200.0
# (from s, force N in base axes): on and off along x and z, the arm's plane at BENT
SCRIPT = [(1.5, (8.0, 0, 0)), (3.0, (0, 0, 0)), (4.5, (0, 0, 8.0)), (6.0, (0, 0, 0)),
          (7.5, (-8.0, 0, 0)), (9.0, (0, 0, 0))]
END_S, TARE_S, SETTLE_S = 10.5, 1.0, 0.25
IN_PLANE = (0, 2)


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    """Return (t s, force error (N, 3) N, published force std (N, 3) N) at 200 Hz."""
    arm = SimulatedArm(SimConfig(seed=11, initial_positions_rad=tuple(BENT)))
    path = tmp_path_factory.mktemp('truth') / 'true_parameters.yaml'
    arm.write_true_parameters(path)
    model = load_true_model(path)
    ms, script = [], list(SCRIPT)
    while arm.t < END_S:
        if script and arm.t >= script[0][0] - 1e-9:
            arm.apply_wrench(list(script.pop(0)[1]) + [0.0, 0.0, 0.0])
        arm.advance(1.0 / RATE_HZ)
        ms.append(arm.measure())
    t = np.array([m.t_s for m in ms])
    # the sensing noise as the identification would see it: the effort's std at rest
    model.residual_std_nm = np.maximum(np.array([m.effort_nm for m in ms])[t < TARE_S].std(0),
                                       0.01)
    est = WrenchEstimator(model, EstimatorConfig(**demo_estimator_settings()))
    err, sd, tared = [], [], False
    for m in ms:
        if not tared and m.t_s >= TARE_S:
            est.tare()
            tared = True
        r = est.update(int(round(m.t_s * 1e9)), m.position_rad, m.velocity_rad_s, m.effort_nm)
        err.append(r.wrench[:3] - m.true_wrench_base[:3])
        sd.append(np.sqrt(np.diag(r.wrench_covariance)[:3]))
    return t, np.array(err), np.array(sd)


def test_sigma_covers_forces_absorbed_by_stiction_at_rest(run):
    t, err, sd = run
    starts = np.array([TARE_S] + [c for c, _ in SCRIPT])
    since = t - np.array([starts[starts <= x].max(initial=-np.inf) for x in t])
    m = (t > TARE_S) & (since > SETTLE_S)
    reverse = m & (t >= 7.5) & (t < 9.0)
    # the scenario holds an absorbed force: the reverse push is mostly not seen
    assert np.sqrt(np.mean(err[reverse, 0] ** 2)) > 1.5
    for ax in IN_PLANE:
        z = np.abs(err[m, ax]) / sd[m, ax]
        assert np.mean(z <= 2.0) >= 0.9, (ax, np.mean(z <= 2.0))
        assert np.percentile(z, 99) <= 3.5, (ax, np.percentile(z, 99))
        assert np.mean(np.abs(err[reverse, ax]) <= 2.0 * sd[reverse, ax]) >= 0.9, ax
