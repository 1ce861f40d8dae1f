# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The stiction breakaway measured where the joints break free (identify/breakaway.py).

On the ROS-free simulated youBot (seed 4: stiction with breakaway 1.3 x the direction's Coulomb,
reached through a Stribeck bump at 0.05 rad/s): two periods of a designed excitation and four
static poses, each approached from both directions, as the recorders make them
(test/core/test_identification_sim.py), identified with the demo's options. The simulator's
breakaway torques are read only to judge the result.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'core'))

from robot_id_ros.identify import IdentificationOptions, identify  # noqa: E402
from robot_id_ros.identify.breakaway import MIN_EVENTS  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from robot_id_ros.record import recording as rec  # noqa: E402
from robot_id_ros.sim.config import SimConfig  # noqa: E402
from robot_id_ros.sim.youbot_arm import SimulatedArm  # noqa: E402
from test_identification_sim import (SIM_OPTIONS, design, run_excitation,  # noqa: E402
                                     run_static)

SEED = 4


@pytest.fixture(scope='module')
def fitted():
    robot = youbot_model()
    arm = SimulatedArm(SimConfig(seed=SEED))
    ident = run_excitation(arm, design(robot, 100 * SEED + 1, 8.0), 2)
    poses = rec.generate_poses(robot, 4, 0.1, 0.0, 0.05, seed=SEED).poses
    static = run_static(arm, poses)
    res = identify(robot, data=[ident], static=[static],
                   options=IdentificationOptions(**SIM_OPTIONS, auto_options=False))
    return arm, res


def test_breakaway_is_the_torque_where_the_joints_break_free(fitted):
    arm, res = fitted
    est, f = res.breakaway, res.model.friction
    assert np.all(est.events >= MIN_EVENTS), est.events
    # the band offset +- b of the model holds both directions' breakaway (offset 0 here)
    truth = np.maximum(arm.breakaway_pos, arm.breakaway_neg)
    # achieved: -1.9 -2.3 +1.5 -2.4 -2.8 % (numpy 2.3 era); -0.7 -1.1 +0.8 -5.7 -3.2 % with
    # numpy 2.4.6, pin 4.1, clarabel 0.11 (J4: 19 negative events whose median is 5.7 % low,
    # its 95 % interval 0.238-0.268 Nm holding the truth 0.2675). The band is the larger
    # direction, so its error is within the directions' (6 %, below)
    assert np.all(np.abs(f.breakaway_nm / truth - 1) < 0.06), f.breakaway_nm / truth
    assert np.allclose(f.breakaway_nm, est.breakaway_nm)
    # each direction on its own: the edges of the band [-b-, b+]
    assert np.all(np.abs(est.direction_nm[:, 0] / arm.breakaway_pos - 1) < 0.06), est.direction_nm
    assert np.all(np.abs(est.direction_nm[:, 1] / arm.breakaway_neg - 1) < 0.06), est.direction_nm
    lo, hi = est.interval_nm.T
    assert np.all((lo <= est.breakaway_nm) & (est.breakaway_nm <= hi))
    assert np.sum((lo <= truth) & (truth <= hi)) >= 4, (est.interval_nm, truth)


def test_friction_law_extrapolated_to_rest_misses_the_breakaway(fitted):
    """The check above can fail: the former rule, Coulomb + the fitted Stribeck amplitude (the
    law at zero speed), is 6.7 % and 15 % off on joints 1 and 5 of the same fit."""
    arm, res = fitted
    f = res.model.friction
    law = np.maximum(f.coulomb_pos_nm, f.coulomb_neg_nm) + f.stribeck_nm
    truth = np.maximum(arm.breakaway_pos, arm.breakaway_neg)
    assert np.max(np.abs(law / truth - 1)) > 0.05, law / truth
