# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The Stribeck velocity of a near tie, judged by the slow rows the fit leaves out.

On the ROS-free simulated youBot of seed 4 (Stribeck bump to 1.3 x Coulomb at 0.05 rad/s), the
model the force-control tests and benchmark use (test/control/identified_model.py: two periods
of a designed excitation, the simulator identification's options, rows below 0.05 rad/s left
out). The fitted rows tie 0.05 and 0.07 rad/s; the condition rule took 0.07 and a bump a third of
the true one on joint 3, and the force controller's estimate read ~0.5 N high pressing in at
0.02-0.04 rad/s (issue 17's step 5 -> 10 N settled in 1.10 s). The simulator's friction law is
read only to judge the result.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from robot_id_ros.identify import IdentificationOptions, identify  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from robot_id_ros.sim.config import SimConfig  # noqa: E402
from robot_id_ros.sim.youbot_arm import SimulatedArm  # noqa: E402
from test_identification_sim import SIM_OPTIONS, design, run_excitation  # noqa: E402

SEED = 4


@pytest.fixture(scope='module')
def fitted():
    robot = youbot_model()
    arm = SimulatedArm(SimConfig(seed=SEED))
    ident = run_excitation(arm, design(robot, 100 * SEED + 1, 8.0), 2, 'excitation')
    return arm, identify(robot, data=[ident], options=IdentificationOptions(**SIM_OPTIONS))


def test_the_slow_rows_pick_the_simulators_stribeck_velocity(fitted):
    arm, res = fitted
    assert res.model.regressor_options.stribeck_velocity_rad_s == pytest.approx(
        arm.config.stribeck_velocity_rad_s)


def test_the_law_holds_where_the_joints_creep(fitted):
    """Sliding at 0.015-0.04 rad/s, below the fitted rows, joints 1-3 (the friction that the
    wrench feels most): RMS model - truth 0.013 0.023 0.036 Nm here, 0.083 0.070 0.073 Nm with
    0.07 rad/s (the identification residual std is 0.053 0.053 0.034 Nm)."""
    arm, res = fitted
    v = np.r_[np.linspace(0.015, 0.04, 6), -np.linspace(0.015, 0.04, 6)]
    law = res.model.friction.sliding_torque(np.repeat(v[:, None], arm.n, axis=1))
    truth = np.array([arm._stiction.slip([x] * arm.n, [int(np.sign(x))] * arm.n, range(arm.n))
                      for x in v])
    rms = np.sqrt(np.mean((law - truth) ** 2, axis=0))
    assert np.all(rms[:3] < 0.045), rms
