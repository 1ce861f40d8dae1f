# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction that drifts in the simulated youBot: joint temperatures and the friction they give."""
import math

import numpy as np
import pytest
import yaml

from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.friction_drift import FrictionDriftLaw, JointThermalState
from robot_id_ros.sim.true_model import load_true_model, true_model_of
from robot_id_ros.sim.youbot_arm import SimulatedArm

BENT = np.array([2.9496, 1.6, -2.0, 2.2, 2.9])     # forward-leaning: large gravity torques
# from the candle pose every joint moves to this one
AWAY = np.array([3.55, 1.6, -2.0, 2.2, 3.4])
EXACT = dict(quantize=False, current_noise_a=0.0)  # the drives' truth, no sensor effects


def law_of(**changes):
    cfg = SimConfig(friction_drift=True, **changes)
    return cfg, FrictionDriftLaw.from_config(cfg)


def test_temperature_rises_to_ambient_plus_r_th_times_the_power_with_the_time_constant():
    cfg, law = law_of(thermal_time_constant_s=20.0, thermal_resistance_k_w=8.0)
    state = JointThermalState(law, [0.5] * 5, [0.5] * 5, [0.1] * 5, 0.01)
    power = [0.0, 0.5, 1.0, 2.0, 0.0]
    for _ in range(2000):                       # one time constant
        state.heat(power, [0.0] * 5)
    rise = np.array(state.temperature_c) - cfg.ambient_temperature_c
    target = 8.0 * np.array(power)
    assert rise == pytest.approx(target * (1 - math.exp(-1.0)), rel=1e-9, abs=1e-12)
    for _ in range(20000):                      # ten more
        state.heat(power, [0.0] * 5)
    assert np.array(state.temperature_c) - cfg.ambient_temperature_c == pytest.approx(
        target, rel=1e-4, abs=1e-9)


def test_copper_losses_heat_a_joint_that_holds_a_torque():
    cfg, law = law_of(thermal_time_constant_s=10.0, thermal_resistance_k_w=5.0,
                      winding_resistance_ohm=2.0)
    state = JointThermalState(law, [0.5] * 5, [0.5] * 5, [0.1] * 5, 0.01)
    current = np.array([1.0, 0.5, 0.0, 0.2, 0.0])
    tau = current * np.asarray(cfg.drive_gains_nm_a)
    for _ in range(10000):
        state.heat([0.0] * 5, tau.tolist())
    assert state.power_w == pytest.approx(2.0 * current ** 2, rel=1e-12)
    assert np.array(state.temperature_c) - cfg.ambient_temperature_c == pytest.approx(
        5.0 * 2.0 * current ** 2, rel=1e-3, abs=1e-9)


def test_the_friction_at_a_temperature_and_a_load_is_the_declared_law():
    cfg, law = law_of(coulomb_temperature_coefficient_per_k=0.02,
                      viscous_temperature_coefficient_per_k=0.04, load_coulomb_per_nm=0.05)
    fc, fv = np.array([0.8, 0.6, 0.5, 0.2, 0.15]), np.array([1.0, 0.8, 0.6, 0.1, 0.1])
    state = JointThermalState(law, fc, fc, fv, 0.001)
    temps = np.array([25.0, 35.0, 45.0, 55.0, 5.0])
    state.set_temperature(temps)
    load = np.array([0.0, 2.0, -4.0, 1.0, 0.5])
    fcp, fcn, fv_now = state.friction(load.tolist())
    dT = temps - cfg.ambient_temperature_c
    assert fcp == pytest.approx(fc * np.exp(-0.02 * dT) + 0.05 * np.abs(load), rel=1e-12)
    assert fcn == pytest.approx(fcp, rel=1e-12)
    assert fv_now == pytest.approx(fv * np.exp(-0.04 * dT), rel=1e-12)
    # warmer: less friction; colder than ambient: more
    assert fcp[3] < fc[3] and fcp[4] > fc[4]
    # the Coulomb friction grows with the load the gear carries, in either direction
    more = state.friction((2 * load).tolist())[0]
    assert np.all(np.diff([fcp, more], axis=0)[0][np.abs(load) > 0] > 0)
    assert more[0] == fcp[0]


def _slipping_friction(arm):
    """Step once; return (friction torque [Nm], the load, temperatures) if every joint slips.

    The load is the torque the gears passed to the links at the step before; the step's own
    is checked to be the motor torque less the friction and the rotor's inertia.
    """
    q, qd = arm.q.copy(), arm.qd.copy()
    temps = np.array(arm.friction_drift.temperature_c)
    load = arm.link_torque_nm.copy()
    arm.step()
    if not np.all(arm.dir != 0) or np.any(np.sign(arm.qd) != np.sign(qd)) or not np.all(qd):
        return None
    tau = arm.tau_motor.copy()
    friction = tau - arm.model.inverse_dynamics(q, qd, arm.qdd)
    rotor = arm.true.rotor_inertia_kg_m2 * arm.qdd
    np.testing.assert_allclose(arm.link_torque_nm, tau - friction - rotor, atol=1e-9)
    return friction, load, temps, qd


def test_the_arm_slides_with_the_friction_of_its_temperature_and_load():
    cfg = SimConfig(seed=2, friction_drift=True, load_coulomb_per_nm=0.05, **EXACT)
    arm = SimulatedArm(cfg)
    arm.friction_drift.set_temperature([45.0, 35.0, 55.0, 30.0, 40.0])
    arm.move_to(AWAY, 2.0)
    arm.advance(0.6)
    fr = arm.true.friction
    r, vs = cfg.breakaway_ratio, cfg.stribeck_velocity_rad_s
    checked = 0
    for _ in range(200):
        got = _slipping_friction(arm)
        if got is None:
            continue
        f, load, temps, qd = got
        dT = temps - cfg.ambient_temperature_c
        fc_dir = np.where(qd > 0, fr.coulomb_pos_nm, fr.coulomb_neg_nm)
        fc = fc_dir * np.exp(-cfg.coulomb_temperature_coefficient_per_k * dT) \
            + 0.05 * np.abs(load)
        want = (np.sign(qd) * fc * (1 + (r - 1) * np.exp(-(qd / vs) ** 2))
                + fr.viscous_nm_s_rad * np.exp(-cfg.viscous_temperature_coefficient_per_k * dT)
                * qd)
        np.testing.assert_allclose(f, want, rtol=1e-7, atol=1e-9)
        checked += 1
    assert checked > 50


def test_a_working_arm_warms_and_a_resting_one_cools_to_ambient_with_the_time_constant():
    cfg = SimConfig(seed=1, friction_drift=True, thermal_time_constant_s=2.0,
                    thermal_resistance_k_w=20.0, winding_resistance_ohm=0.0)
    arm = SimulatedArm(cfg)
    q0 = arm.q.copy()
    arm.move_to(AWAY, 1.5)
    arm.advance(1.5)
    arm.move_to(q0, 1.5)
    arm.advance(1.5)
    warm = arm.measure().true_joint_temperature_c - cfg.ambient_temperature_c
    assert np.all(warm > 0.05)                 # every joint dissipated friction power
    # at rest (stuck) nothing is dissipated without copper losses: the excess decays
    arm.reset(q0)
    start = arm.measure().true_joint_temperature_c - cfg.ambient_temperature_c
    assert np.array_equal(start, warm)          # a reset moves the arm, not its heat
    for _ in range(20):
        arm.advance(0.1)
        assert np.all(arm.dir == 0)
    after = arm.measure().true_joint_temperature_c - cfg.ambient_temperature_c
    assert after == pytest.approx(start * math.exp(-1.0), rel=1e-6)


def test_with_the_drift_off_the_arm_is_unchanged():
    # the drift's hook with no effect steps the very same floats as the arm without it
    still = dict(coulomb_temperature_coefficient_per_k=0.0,
                 viscous_temperature_coefficient_per_k=0.0, load_coulomb_per_nm=0.0)
    arms = [SimulatedArm(SimConfig(seed=3)), SimulatedArm(SimConfig(seed=3, friction_drift=True,
                                                                    **still))]
    for arm in arms:
        arm.move_to(BENT, 1.0)
        arm.apply_wrench([3.0, 0.0, -4.0, 0.0, 0.0, 0.0])
    for _ in range(300):
        ms = []
        for arm in arms:
            arm.advance(0.005)
            ms.append(arm.measure())
        a, b = ms
        assert np.array_equal(a.true_position_rad, b.true_position_rad)
        assert np.array_equal(a.true_velocity_rad_s, b.true_velocity_rad_s)
        assert np.array_equal(a.true_motor_torque_nm, b.true_motor_torque_nm)
        assert np.array_equal(a.effort_nm, b.effort_nm)
    assert arms[0].friction_drift is None and a.true_joint_temperature_c is None
    assert 'friction_drift' not in arms[0].true_parameters_dict()
    assert arms[1].true_parameters_dict()['friction_drift']['joints']['arm_joint_1'][
        'temperature_c'] > arms[1].config.ambient_temperature_c


def test_the_truth_tells_the_friction_of_the_present_temperatures(tmp_path):
    arm = SimulatedArm(SimConfig(seed=4, friction_drift=True))
    arm.friction_drift.set_temperature([30.0, 40.0, 50.0, 35.0, 28.0])
    cold, now = true_model_of(arm), true_model_of(arm, friction_now=True)
    law = arm.true.friction_drift
    want = law.friction_at(cold.friction, arm.friction_drift.temperature_c)
    for name in ('coulomb_pos_nm', 'coulomb_neg_nm', 'viscous_nm_s_rad', 'breakaway_nm',
                 'stribeck_nm'):
        np.testing.assert_allclose(getattr(now.friction, name), getattr(want, name), rtol=1e-12)
    assert np.all(now.friction.coulomb_pos_nm < cold.friction.coulomb_pos_nm)
    np.testing.assert_array_equal(now.friction.load_coulomb_per_nm, law.load_coulomb_per_nm)
    assert not cold.friction.has_load_coulomb
    np.testing.assert_allclose(cold.friction.coulomb_pos_nm, arm.true.friction.coulomb_pos_nm)
    joints = arm.true_parameters_dict()['friction_drift']['joints']
    assert [joints[n]['temperature_c'] for n in arm.joint_names] == [30.0, 40.0, 50.0, 35.0,
                                                                     28.0]
    # the truth file carries it
    written = yaml.safe_load(arm.write_true_parameters(tmp_path / 'truth.yaml').read_text())
    assert written['friction_drift']['joints'] == joints
    # and reads back as the friction of that moment, or as the cold arm's
    back = load_true_model(tmp_path / 'truth.yaml', friction_now=True)
    back_cold = load_true_model(tmp_path / 'truth.yaml')
    for name in ('coulomb_pos_nm', 'coulomb_neg_nm', 'viscous_nm_s_rad', 'breakaway_nm',
                 'stribeck_nm'):
        np.testing.assert_allclose(getattr(back.friction, name), getattr(want, name), rtol=1e-12)
        np.testing.assert_allclose(getattr(back_cold.friction, name),
                                   getattr(cold.friction, name), rtol=1e-12)
    np.testing.assert_array_equal(back.friction.load_coulomb_per_nm, law.load_coulomb_per_nm)
    assert written['friction_drift']['law']['coulomb_per_k'] == law.coulomb_per_k
