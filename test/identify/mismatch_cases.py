# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Synthetic arms whose drives do what the models do not say; motions of several kinds.

An arm of ``bench_synthetic_arms.ARMS`` keeps its hidden truth (perturbed rigid body, its own
friction law, torque noise 1 % of its peak torque) and gets the effects of
``robot_id_ros.sim.drive_effects`` (``EFFECTS``), sized from its own friction and torques:

- ``position``: sliding friction +-30 % over a 0.5 rad position period, cogging of 20 % of the
  Coulomb friction with a period of 3.6 degrees (random phases per joint);
- ``load``: Coulomb friction 0.1 Nm higher per Nm of link torque (a gear of 90 % efficiency);
- ``compliance``: a spring between motor encoder and link, 3 mrad of deflection at each
  joint's peak motor torque of the training run;
- ``drift``: the sliding friction falls by 30 % with a 30 s time constant from each run's start;
- ``current``: efforts recorded as motor currents (drive gains: each joint's peak motor torque
  at 10 A, told to the commands), read with a gain error of up to +-5 % and an offset of up to
  +-0.15 A (1.5 % of that peak) per joint;
- ``quantization``: a 14-bit joint encoder (2 pi / 16384 rad) instead of 19 bits;
- ``all``: every one of them at once; ``none``: the arm as it is (in the model family).

Motions (``motions``): the training run, one periodic excitation (``TRAIN_PERIODS`` periods of a
10 s Fourier series, faded in and out between rests), and the judged runs: ``point-to-point``
(quintic moves between random poses, rests between), ``slow`` (the same at <= 0.1 rad/s) and
``excitation`` (another Fourier series, 7 s period, 4 periods). Steps of at most 0.4 rad keep
the slow run short.
"""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'benchmarks'))

from bench_synthetic_arms import (RATE_HZ, REST_S, ArmCase, bounded_limits,  # noqa: E402
                                  true_friction, windowed)
from robots import example_robot_data_dir  # noqa: E402
from test_identification import fourier_trajectory, perturbed  # noqa: E402

from robot_id_ros.model.robot import RobotModel  # noqa: E402
from robot_id_ros.record.motions import QuinticMove, Sequence, point_to_point_duration  # noqa
from robot_id_ros.sim.drive_effects import (CurrentSensor, DriveEffects,  # noqa: E402
                                            FrictionEffects, joint_friction,
                                            record_drives)

EFFECTS = ('none', 'position', 'load', 'compliance', 'drift', 'current', 'quantization', 'all')
EFFECT_LABELS = {
    'none': 'none (truth in the model family)',
    'position': 'position-dependent friction + cogging',
    'load': 'load-dependent Coulomb friction',
    'compliance': 'compliant transmission',
    'drift': 'friction drift in the run',
    'current': 'current sensor gain error + offset',
    'quantization': '14-bit encoder',
    'all': 'all together',
}
JUDGED = ('point-to-point', 'slow', 'excitation')
TRAIN_PERIODS = 8
COARSE_ENCODER_RAD = 2 * np.pi / 2 ** 14
PEAK_CURRENT_A = 10.0          # the drive gains put each joint's peak torque at this current
DEFLECTION_AT_PEAK_RAD = 0.003


def point_to_point(bounded, rng, moves, max_velocity_rad_s, max_acceleration_rad_s2,
                   min_move_s=1.5, rest_between_s=1.0, frac=0.35, max_step_rad=np.inf):
    """Return (t, Q, QD, QDD): ``moves`` quintic moves between random poses, rests between.

    Poses within ``frac`` of each joint's half range about its centre, each at most
    ``max_step_rad`` from the one before; every joint within the velocity and acceleration limits
    (rad/s, rad/s^2, per joint or one); ``REST_S`` at both ends.
    """
    lo, hi = bounded.limits.lower_rad, bounded.limits.upper_rad
    c, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    q = c.copy()
    parts = [QuinticMove(q, q, REST_S)]
    for _ in range(moves):
        q1 = np.clip(c + frac * half * rng.uniform(-1, 1, bounded.n), q - max_step_rad,
                     q + max_step_rad)
        T = point_to_point_duration(q, q1, max_velocity_rad_s, max_acceleration_rad_s2,
                                    min_move_s)
        parts += [QuinticMove(q, q1, T), QuinticMove(q1, q1, rest_between_s)]
        q = q1
    parts.append(QuinticMove(q, q, REST_S))
    path = Sequence(parts)
    t = np.arange(int(path.duration_s * RATE_HZ)) / RATE_HZ
    Q, QD, QDD = (np.array(x) for x in zip(*(path.evaluate(tk) for tk in t)))
    return t, Q, QD, QDD


def motions(robot, seed, train_periods=TRAIN_PERIODS):
    """Return {name: (t, Q, QD, QDD)}: 'train' and each of ``JUDGED``."""
    b = bounded_limits(robot)
    vmax = np.minimum(0.6 * b.limits.velocity_rad_s, 1.0)
    out = {}
    traj = fourier_trajectory(b, np.random.default_rng(seed + 1), periods=train_periods)
    out['train'] = windowed(*traj, traj[1].mean(axis=0))
    out['point-to-point'] = point_to_point(b, np.random.default_rng(seed + 21), 8, vmax, 2.0)
    out['slow'] = point_to_point(b, np.random.default_rng(seed + 22), 4, 0.1, 0.5,
                                 max_step_rad=0.4)
    traj = fourier_trajectory(b, np.random.default_rng(seed + 23), period_s=7.0, periods=4)
    out['excitation'] = windowed(*traj, traj[1].mean(axis=0))
    return out


def mismatch_arm(case: ArmCase, seed=0, train_periods=TRAIN_PERIODS):
    """Return one arm's truth and motions (nothing recorded yet).

    Returns:
        SimpleNamespace: urdf, robot (nominal), truth (perturbed ``RobotModel``), law (its
        ``FrictionModel``), exact_sign (the law's exact sign), motions, peak_nm ((n,) peak
        rigid-body torque of the training run), peak_motor_nm (with the friction law: what the
        drives are sized for), sigma ((n,) torque noise std, Nm), seed.
    """
    urdf = example_robot_data_dir() / case.urdf
    robot = RobotModel(urdf)
    truth = perturbed(robot, np.random.default_rng(seed))
    law = true_friction(case)[1]
    runs = motions(robot, seed, train_periods)
    t, Q, QD, QDD = runs['train']
    tau = np.array([truth.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    exact = case.law == 'exact'
    motor = tau + joint_friction(law, Q, QD, t, exact_sign=exact)
    peak = np.abs(tau).max(axis=0)
    return SimpleNamespace(case=case, urdf=urdf, robot=robot, truth=truth, law=law,
                           exact_sign=exact, motions=runs, peak_nm=peak,
                           peak_motor_nm=np.abs(motor).max(axis=0),
                           sigma=0.01 * peak + 0.002, seed=seed)


def drive_gains(arm):
    """Return the drive gains, Nm/A, the commands are told: peak motor torque per 10 A."""
    return np.round(arm.peak_motor_nm / PEAK_CURRENT_A, 3)


def effects_for(name, arm):
    """Return the ``DriveEffects`` of effect ``name`` (one of ``EFFECTS``) on ``arm``."""
    if name not in EFFECTS:
        raise ValueError(f'unknown effect {name!r}; one of {", ".join(EFFECTS)}')
    # every random size drawn for every effect: 'all' is exactly the union of the single ones
    rng = np.random.default_rng(1000 + arm.seed)
    n, fc = arm.robot.n, np.asarray(arm.case.coulomb_nm)
    ripple_phase, cogging_phase = rng.uniform(0, 2 * np.pi, (2, n))
    gain_error, offset_a = rng.uniform(-0.05, 0.05, n), rng.uniform(-0.15, 0.15, n)
    every = name == 'all'
    friction = {}
    if name == 'position' or every:
        friction.update(ripple_fraction=0.3, ripple_period_rad=0.5,
                        ripple_phase_rad=ripple_phase, cogging_nm=0.2 * fc,
                        cogging_period_rad=2 * np.pi / 100, cogging_phase_rad=cogging_phase)
    if name == 'load' or every:
        friction.update(load_coulomb_per_nm=0.1)
    if name == 'drift' or every:
        friction.update(drift_fraction=0.3, drift_time_constant_s=30.0)
    fx = DriveEffects(friction=FrictionEffects(**friction) if friction else None)
    if name == 'compliance' or every:
        fx.stiffness_nm_rad = arm.peak_motor_nm / DEFLECTION_AT_PEAK_RAD
    if name == 'current' or every:
        fx.current_sensor = CurrentSensor(drive_gains(arm), gain_error, offset_a)
    if name == 'quantization' or every:
        fx.encoder_resolution_rad = COARSE_ENCODER_RAD
    return fx


def recorded_runs(arm, name):
    """Return {run name: ``DriveRun``} of every motion of ``arm`` under effect ``name``."""
    fx = effects_for(name, arm)
    rng = np.random.default_rng(2000 + arm.seed)
    return {k: record_drives(arm.truth, arm.law, *m, fx, arm.sigma, rng, arm.exact_sign,
                             source=k) for k, m in arm.motions.items()}
