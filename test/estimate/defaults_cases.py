# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Cases of the estimator-defaults tests and benchmark: arms with a known friction law and wrench.

An arm (a 6-axis example-robot-data arm, or the youBot) follows a two-sine motion per joint (its
velocity passes through zero slowly and quickly) while a known wrench acts on the tool in smooth
bursts. The drives measure

    tau_m = ID(q, qd, qdd) + f(qd) - J^T F + noise,

with f the true friction law: ``'smooth'`` (tanh sign with its velocity scale and a Stribeck
bump) or ``'exact'`` (exact sign: full Coulomb friction as soon as the joint moves). The
measured velocity carries noise. The true model is written to a model file (its residual std the
torque noise std, as identification of a perfect model would state it) and loaded back, so the
estimator sees what the file records.

The floor is a plain momentum-observer residual fed the true model and the true friction law at
the measured velocity (the same observer bandwidth as the estimator), mapped by the same least
squares: what any estimator with this observer can reach.
"""
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from robot_id_ros.estimate import WrenchEstimator
from robot_id_ros.estimate.mapping import WrenchMapper
from robot_id_ros.estimate.residuals import MomentumObserver
from robot_id_ros.io.model_file import load_model, nominal_model
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import RobotModel

RATE_HZ = 200.0
WARMUP_S = 1.0           # the error is measured after the observer has settled


@dataclass
class Arm:
    """What a case needs of one arm: its model, a pose, the motion and the wrench sizes."""

    robot: RobotModel
    q0: np.ndarray           # rad, centre of the motion (away from singularities)
    amp_rad: np.ndarray      # per joint, of each of the two sines
    coulomb_nm: np.ndarray   # per joint
    wrench_scale: np.ndarray  # (6,) N and Nm, peak wrench of a burst


def ur5_arm(urdf, joints):
    """The UR5 (6 joints) with gearbox-sized friction and a wrench of up to 30 N / 3 Nm."""
    return Arm(RobotModel(urdf, joints), np.array([0.0, -1.2, 1.5, -1.0, -1.4, 0.3]),
               np.array([0.4, 0.3, 0.35, 0.5, 0.5, 0.6]),
               np.array([6.0, 6.0, 4.0, 1.5, 1.5, 1.2]),
               np.array([30.0, 30.0, 30.0, 3.0, 3.0, 3.0]))


def panda_arm(urdf, joints):
    """The Panda (7 joints) with harmonic-drive-sized friction and up to 20 N / 2 Nm."""
    return Arm(RobotModel(urdf, joints), np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8]),
               np.array([0.4, 0.3, 0.4, 0.35, 0.5, 0.4, 0.6]),
               np.array([2.0, 2.0, 1.5, 1.5, 0.8, 0.8, 0.5]),
               np.array([20.0, 20.0, 20.0, 2.0, 2.0, 2.0]))


def youbot_arm():
    """The youBot (5 joints, force at the tool point) with its test friction sizes."""
    from robot_id_ros.model.robot import youbot_model
    return Arm(youbot_model(), np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234]),
               np.array([0.4, 0.25, 0.3, 0.4, 0.5]), np.array([0.5, 0.5, 0.4, 0.2, 0.1]),
               np.array([10.0, 10.0, 10.0, 0.0, 0.0, 0.0]))


def friction_law(arm: Arm, law: str) -> FrictionModel:
    """Return the true friction of ``arm``: law 'smooth' (tanh, 0.05 rad/s, Stribeck) or 'exact'.

    For 'exact' the returned model states the identification default sign velocity (0.01 rad/s):
    that is what a model file made from such an arm records; the truth uses ``sliding_torque``.
    """
    fc = arm.coulomb_nm
    if law == 'smooth':
        return FrictionModel(fc, fc, 0.5 * fc, 0.05 * fc, stribeck_nm=0.3 * fc,
                             stribeck_velocity_rad_s=0.1, sign_velocity_rad_s=0.05)
    return FrictionModel(fc, fc, 0.5 * fc, 0.05 * fc, breakaway_nm=1.3 * fc)


def motion(arm: Arm, seconds, seed):
    """Return t (N,) s and Q, QD, QDD (N, n): two sines per joint (0.1-0.45 Hz)."""
    rng = np.random.default_rng(seed)
    n = arm.robot.n
    t = np.arange(int(seconds * RATE_HZ)) / RATE_HZ
    Q, QD, QDD = (np.tile(arm.q0, (len(t), 1)) * (k == 0) for k in range(3))
    for f_lo, f_hi in ((0.1, 0.2), (0.25, 0.45)):
        w = 2 * np.pi * rng.uniform(f_lo, f_hi, n)
        ph = rng.uniform(0, 2 * np.pi, n)
        arg = w * t[:, None] + ph
        Q = Q + arm.amp_rad * (np.sin(arg) - np.sin(ph))
        QD = QD + arm.amp_rad * w * np.cos(arg)
        QDD = QDD - arm.amp_rad * w ** 2 * np.sin(arg)
    return t, Q, QD, QDD


def wrench(arm: Arm, t, seed):
    """Return the true wrench (N, 6): raised-cosine bursts of 2 s every 3 s, random directions."""
    return wrench_bursts(t, arm.wrench_scale, seed + 100)


def wrench_bursts(t, scale, seed, start_s=0.5, end_margin_s=2.0):
    """Return a wrench (N, 6): raised-cosine bursts of 2 s every 3 s from ``start_s`` on.

    Each burst has a random direction (``seed``), its peak per component up to ``scale`` (6,)
    N and Nm; the last starts ``end_margin_s`` before ``t[-1]`` at the latest.
    """
    rng = np.random.default_rng(seed)
    F = np.zeros((len(t), 6))
    for t0 in np.arange(start_s, t[-1] - end_margin_s, 3.0):
        m = (t >= t0) & (t < t0 + 2.0)
        shape = 0.5 * (1 - np.cos(np.pi * (t[m] - t0)))     # 0 -> 1 -> 0 over 2 s
        F[m] = shape[:, None] * np.asarray(scale) * rng.uniform(-1, 1, 6)
    return F


@dataclass
class Case:
    """One simulated run: samples, the truth and the model file the estimator reads."""

    stamp_ns: np.ndarray
    Q: np.ndarray
    QD: np.ndarray           # measured (noisy) velocity
    E: np.ndarray            # measured torque
    F: np.ndarray            # true wrench
    truth: object            # the true IdentifiedModel
    true_friction: object    # callable qd -> Nm, the true law
    model_path: object       # the true model written as a model file


def make_case(arm: Arm, law, tmp_dir, seconds=20.0, torque_noise_nm=0.05,
              velocity_noise_rad_s=0.002, seed=0) -> Case:
    """Simulate ``arm`` with friction ``law`` and write its true model file into ``tmp_dir``."""
    fr = friction_law(arm, law)
    truth = nominal_model(arm.robot, fr)
    true_f = fr.torque if law == 'smooth' else fr.sliding_torque
    t, Q, QD, QDD = motion(arm, seconds, seed)
    F = wrench(arm, t, seed)
    rng = np.random.default_rng(seed + 1)
    E = np.empty_like(Q)
    for k in range(len(t)):
        J = truth.robot.tool_jacobian(Q[k], 'base')
        E[k] = truth.rigid_body_torque(Q[k], QD[k], QDD[k]) + true_f(QD[k]) - J.T @ F[k]
    E += rng.normal(0.0, torque_noise_nm, E.shape)
    QDm = QD + rng.normal(0.0, velocity_noise_rad_s, QD.shape)
    truth.residual_std_nm = np.full(arm.robot.n, torque_noise_nm)
    path = tmp_dir / f'{arm.robot.robot_name}_{law}_model.yaml'
    truth.save(path)
    stamps = (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)
    return Case(stamps, Q, QDm, E, F, truth, true_f, path)


def force_rms(case: Case, W):
    """RMS of the force error, N, after the warm-up."""
    k0 = int(WARMUP_S * RATE_HZ)
    return float(np.sqrt(np.mean(np.sum((W[k0:, :3] - case.F[k0:, :3]) ** 2, axis=1))))


def estimator_force_rms(case: Case, config):
    """Force RMS error, N, of ``WrenchEstimator`` with ``config`` on the case's model file."""
    res = WrenchEstimator(load_model(case.model_path), config).process(
        case.stamp_ns, case.Q, case.QD, case.E)
    assert len(res.index) == len(case.Q), res.rejected[:3]
    return force_rms(case, res.wrench)


def floor_force_rms(case: Case, friction=None, observer_gain_hz=10.0, sigma_guard=0.02,
                    damping=0.02):
    """Force RMS error, N, of the plain residual with the true model.

    With the true friction law, or ``friction`` (a callable qd -> Nm, e.g. the model file's law).
    """
    robot = case.truth.robot
    m, d = robot.model, robot.data
    N, n = case.Q.shape
    Ms, H, Js = np.empty((N, n, n)), np.empty((N, n)), np.empty((N, 6, n))
    fid = robot.tool_frame_id
    for k in range(N):
        qp = robot.q_pin(case.Q[k])
        Ms[k] = pin.crba(m, d, qp, pin.Convention.WORLD)
        H[k] = pin.nonLinearEffects(m, d, qp, case.QD[k])
        Js[k] = pin.getFrameJacobian(m, d, fid, pin.LOCAL_WORLD_ALIGNED)
    dt = np.r_[0.0, np.diff(case.stamp_ns) * 1e-9]
    U = H + (friction or case.true_friction)(case.QD) - case.E
    R = MomentumObserver(n, observer_gain_hz).batch(dt, Ms, case.QD, U)
    A = WrenchMapper(n, 'auto', sigma_guard, damping).matrices(Js)[0]
    return force_rms(case, np.einsum('kij,kj->ki', A, R))
