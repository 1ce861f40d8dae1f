# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The friction-drift scenario: a 30-minute warm-up plan the simulator core plays."""
import numpy as np
import pytest

from robot_id_ros.demo.friction_drift import (PUSH_HOLD_S, PUSH_LABEL, PUSH_N, WARM_UP_S,
                                              scenario_sim_config, warm_up_scenario)
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.sim.trajectory import validate_command
from robot_id_ros.sim.youbot_arm import SimulatedArm


@pytest.fixture(scope='module')
def robot():
    return youbot_model()


@pytest.fixture(scope='module')
def scenario(robot):
    return warm_up_scenario(robot, seed=0)


def test_the_warm_up_lasts_half_an_hour_of_mixed_motion_with_force_steps_and_holds(scenario):
    assert WARM_UP_S - 60 <= scenario.duration_s <= WARM_UP_S + 120
    kinds = [p.kind for p in scenario.phases]
    for kind in ('motion_free', 'rest_free', 'motion', 'rest'):
        assert kind in kinds, kind
    # the phases tile the run, in time order
    for a, b in zip(scenario.phases, scenario.phases[1:]):
        assert a.t1_s == pytest.approx(b.t0_s)
    assert scenario.phases[-1].t1_s == pytest.approx(scenario.duration_s)
    moving = sum(p.t1_s - p.t0_s for p in scenario.phases if p.kind.startswith('motion'))
    assert moving > 0.6 * scenario.duration_s


def test_a_constant_10_n_push_is_held_10_s_at_the_start_and_at_the_end(scenario):
    pushes = [p for p in scenario.phases if p.label == PUSH_LABEL]
    assert len(pushes) == 2
    assert pushes[0].t0_s < 60 and pushes[1].t1_s > scenario.duration_s - 30
    line = scenario.timeline()
    for p in pushes:
        assert p.kind == 'rest' and p.t1_s - p.t0_s == pytest.approx(PUSH_HOLD_S)
        f = line.at(np.linspace(p.t0_s, p.t1_s - 1e-6, 50))
        assert np.all(f == f[0]) and np.linalg.norm(f[0]) == pytest.approx(PUSH_N)


def test_forces_act_only_in_their_phases(scenario):
    line = scenario.timeline()
    for p in scenario.phases:
        f = line.at(np.linspace(p.t0_s + 1e-6, p.t1_s - 1e-6, 20))
        loaded = np.linalg.norm(f, axis=1) > 0
        assert np.all(loaded) if p.kind in ('rest', 'motion') else not np.any(loaded), p


def test_the_trajectory_is_one_the_drives_accept(robot, scenario):
    lim = robot.limits
    validate_command(scenario.joint_names,
                     [(t, q, qd, []) for t, q, qd in scenario.waypoints], robot.joint_names,
                     lim.lower_rad, lim.upper_rad, lim.velocity_rad_s)


def test_the_simulator_plays_it_with_the_drift_on_and_applies_the_planned_force(scenario):
    arm = SimulatedArm(scenario_sim_config(
        0, initial_positions_rad=tuple(scenario.waypoints[0][1])))
    assert arm.friction_drift is not None
    t0 = arm.t
    seen = []
    scenario.play(arm, 50.0, seen.append, until_s=20.0)
    assert seen[-1].t_s == pytest.approx(t0 + 20.0)
    line = scenario.timeline(t0)
    applied = np.array([m.true_wrench_base[:3] for m in seen])
    np.testing.assert_allclose(applied, line.at(np.array([m.t_s for m in seen])), atol=1e-9)
    assert np.any(np.linalg.norm(applied, axis=1) > 0)
