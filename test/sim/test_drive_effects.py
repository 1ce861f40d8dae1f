# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Each drive effect does what it states: a UR5 moved along a short motion, one effect at a time.

Every recording uses the same noise (same seed), so the difference between a run with an effect
and the run without it is the effect alone.
"""
import numpy as np
import pytest

from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.sim.drive_effects import (CurrentSensor, DriveEffects, FrictionEffects,
                                            joint_friction, record_drives)
from robots import ur5

RATE_HZ = 200.0
COULOMB_NM = np.array([6.0, 6.0, 4.0, 1.5, 1.5, 1.2])
SIGMA_NM = 0.05


@pytest.fixture(scope='module')
def arm():
    return RobotModel(*ur5())


def law():
    fc = COULOMB_NM
    return FrictionModel(fc, 1.2 * fc, 0.5 * fc, 0.05 * fc)


def motion(n, seconds=3.0, rest_s=0.5):
    """(t, Q, QD, QDD): a rest of ``rest_s``, then one sine per joint (0.3-0.6 Hz) from rest."""
    t = np.arange(int(seconds * RATE_HZ)) / RATE_HZ
    q0 = np.array([0.0, -1.2, 1.5, -1.0, -1.4, 0.3])[:n]
    w = 2 * np.pi * np.linspace(0.3, 0.6, n)
    amp = np.full(n, 0.4)
    tm = np.maximum(t - rest_s, 0.0)[:, None]
    moving = (t >= rest_s)[:, None]
    # 1 - cos: starts at rest with zero velocity, moves both ways
    Q = q0 + amp * (1 - np.cos(w * tm))
    QD = moving * amp * w * np.sin(w * tm)
    QDD = moving * amp * w ** 2 * np.cos(w * tm)
    return t, Q, QD, QDD


def record(arm, effects, exact_sign=True, seed=0):
    t, Q, QD, QDD = motion(arm.n)
    return record_drives(arm, law(), t, Q, QD, QDD, effects, SIGMA_NM,
                         np.random.default_rng(seed), exact_sign=exact_sign), (t, Q, QD, QDD)


def test_encoder_readings_step_by_the_resolution(arm):
    res = 2 * np.pi / 2 ** 12
    run, (t, Q, _, _) = record(arm, DriveEffects(encoder_resolution_rad=res))
    q = run.series.q
    ticks = q / res
    np.testing.assert_allclose(ticks, np.round(ticks), atol=1e-9)
    assert np.abs(q - Q).max() <= res / 2 + 1e-12        # rounding, not truncation
    steps = np.abs(np.diff(q, axis=0))
    assert np.isclose(steps[steps > 0].min(), res)
    # the reported velocity is the difference of readings: a whole number of ticks per period
    v_ticks = run.series.qd / (res * RATE_HZ)
    np.testing.assert_allclose(v_ticks, np.round(v_ticks), atol=1e-6)
    assert np.all(run.series.qd[0] == 0.0)
    # the effort is untouched by the encoder: friction acts at the true velocity
    ref, _ = record(arm, DriveEffects())
    np.testing.assert_allclose(run.series.effort, ref.series.effort, atol=1e-12)


def test_current_sensor_reads_gain_error_and_offset(arm):
    gains = np.array([13.0, 13.0, 13.0, 9.0, 9.0, 9.0])
    error = np.array([0.05, -0.04, 0.03, -0.02, 0.01, 0.0])
    offset = np.array([0.02, -0.03, 0.0, 0.01, -0.01, 0.005])
    run, _ = record(arm, DriveEffects(current_sensor=CurrentSensor(gains, error, offset)))
    ref, _ = record(arm, DriveEffects())
    # the torque the motor makes is the same; only its reading changes
    np.testing.assert_allclose(run.motor_torque_nm, ref.motor_torque_nm, atol=1e-12)
    np.testing.assert_allclose(run.series.effort,
                               (1 + error) * ref.series.effort / gains + offset, atol=1e-12)
    # read back with the nominal gains: a torque scaled by 1 + e and shifted by k i0
    as_torque = run.series.effort * gains
    for j in range(arm.n):
        slope, intercept = np.polyfit(ref.series.effort[:, j], as_torque[:, j], 1)
        assert slope == pytest.approx(1 + error[j], abs=1e-9)
        assert intercept == pytest.approx(gains[j] * offset[j], abs=1e-9)


def test_compliant_transmission_deflects_by_torque_over_stiffness(arm):
    K = np.array([2e4, 2e4, 1e4, 3e3, 3e3, 3e3])
    run, (t, Q, QD, _) = record(arm, DriveEffects(stiffness_nm_rad=K))
    stiff, _ = record(arm, DriveEffects(stiffness_nm_rad=10 * K))
    ref, _ = record(arm, DriveEffects())
    # the spring carries the rigid body's torque, whatever its stiffness
    np.testing.assert_allclose(run.link_torque_nm, ref.link_torque_nm, atol=1e-12)
    k = len(t) // 2
    np.testing.assert_allclose(run.link_torque_nm[k], arm.inverse_dynamics(
        Q[k], QD[k], motion(arm.n)[3][k]), atol=1e-9)
    deflection = run.motor_position_rad - Q
    np.testing.assert_allclose(deflection, run.link_torque_nm / K, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(stiff.motor_position_rad - Q, deflection / 10, atol=1e-15)
    assert np.abs(deflection[:, 1]).max() > 1e-3    # gravity on the shoulder: over a mrad
    # the encoder reads the motor side (to its resolution), not the link
    res = DriveEffects().encoder_resolution_rad
    assert np.abs(run.series.q - run.motor_position_rad).max() <= res / 2 + 1e-12
    assert np.abs(run.series.q - Q).max() > 100 * res
    # the motor side's velocity is the derivative of its position (away from the start of the
    # motion, where the acceleration steps and so does the deflection's rate)
    dq = np.gradient(run.motor_position_rad, t, axis=0)
    smooth = (t > 0.55) & (t < t[-1])    # and not at the one-sided last difference
    np.testing.assert_allclose(run.motor_velocity_rad_s[smooth], dq[smooth], atol=1e-4)
    assert np.abs(run.motor_velocity_rad_s - QD).max() > 1e-3
    # a resting link's motor side rests too: no sliding friction there (exact-sign law); the
    # last resting sample's central difference reaches into the motion
    rest = t < 0.5 - 1 / RATE_HZ
    assert np.all(run.motor_velocity_rad_s[rest] == 0.0)
    np.testing.assert_allclose(run.friction_nm[rest],
                               np.broadcast_to(law().offset_nm, Q[rest].shape), atol=1e-12)


def test_load_dependent_coulomb_grows_with_the_load_torque(arm):
    mu = 0.1
    run, (_, _, QD, _) = record(arm, DriveEffects(friction=FrictionEffects(
        load_coulomb_per_nm=mu)))
    ref, _ = record(arm, DriveEffects())
    extra = run.series.effort - ref.series.effort
    np.testing.assert_allclose(extra, mu * np.abs(ref.link_torque_nm) * np.sign(QD),
                               atol=1e-12)
    # at rest it adds nothing; moving it opposes the motion
    assert np.all(extra[QD == 0] == 0)
    assert np.all(extra[QD != 0] * QD[QD != 0] > 0)
    with pytest.raises(ValueError, match='load torque'):
        joint_friction(law(), np.zeros((2, 6)), np.ones((2, 6)), [0.0, 0.1], None,
                       FrictionEffects(load_coulomb_per_nm=mu))


def test_position_friction_and_cogging(arm):
    fx = FrictionEffects(ripple_fraction=0.3, ripple_period_rad=0.5,
                         ripple_phase_rad=np.linspace(0, 2, arm.n), cogging_nm=0.2 * COULOMB_NM,
                         cogging_period_rad=2 * np.pi / 100)
    run, (t, Q, QD, _) = record(arm, DriveEffects(friction=fx))
    ref, _ = record(arm, DriveEffects())
    offset = law().offset_nm
    cog = run.friction_nm - offset - fx.ripple(Q) * (ref.friction_nm - offset)
    # cogging: c sin(2 pi q / P_c + phi), the same after one period, and there at rest
    np.testing.assert_allclose(
        cog, 0.2 * COULOMB_NM * np.sin(2 * np.pi * Q / fx.cogging_period_rad), atol=1e-12)
    rest = QD[:, 0] == 0
    assert rest.sum() > 50
    np.testing.assert_allclose(run.friction_nm[rest], offset + fx.cogging(Q[rest]), atol=1e-12)
    np.testing.assert_allclose(fx.cogging(Q + fx.cogging_period_rad), fx.cogging(Q), atol=1e-12)
    # sliding friction scaled by 1 +- 0.3 with position: the range the motion covers
    moving = np.abs(QD) > 0.05
    ratio = (run.friction_nm - offset - cog)[moving] / (ref.friction_nm - offset)[moving]
    assert ratio.min() >= 0.7 - 1e-9 and ratio.max() <= 1.3 + 1e-9
    assert ratio.max() - ratio.min() > 0.3


def test_friction_drift_falls_with_time_in_the_run(arm):
    fx = FrictionEffects(drift_fraction=0.3, drift_time_constant_s=1.0)
    run, (t, _, QD, _) = record(arm, DriveEffects(friction=fx))
    ref, _ = record(arm, DriveEffects())
    offset = law().offset_nm
    moving = np.abs(QD[:, 0]) > 0.05
    ratio = (run.friction_nm - offset)[moving, 0] / (ref.friction_nm - offset)[moving, 0]
    np.testing.assert_allclose(ratio, 1 - 0.3 * (1 - np.exp(-t[moving])), rtol=1e-12)
    assert ratio[-1] < 0.72       # 3 s = 3 time constants: 95 % of the fall
    # the drift counts from the run's start, not from the clock's zero
    late = joint_friction(law(), run.motor_position_rad, run.motor_velocity_rad_s, t + 100.0,
                          ref.link_torque_nm, fx, exact_sign=True)
    np.testing.assert_allclose(late, run.friction_nm, atol=1e-12)


def test_effects_refuse_impossible_values():
    with pytest.raises(ValueError, match='ripple_fraction'):
        FrictionEffects(ripple_fraction=1.2)
    with pytest.raises(ValueError, match='drift_fraction'):
        FrictionEffects(drift_fraction=-0.1)
    with pytest.raises(ValueError, match='drive_gains'):
        CurrentSensor([0.0, 1.0])
