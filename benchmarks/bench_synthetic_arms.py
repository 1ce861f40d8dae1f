# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Arms of our own making with a hidden truth: the commands with defaults, end to end.

For each arm of example-robot-data (SO-100 with its gripper, UR5, Panda with its fingers, Kinova
Jaco), a truth unknown to the commands: the URDF's masses, COMs and inertias perturbed
(``perturbed`` of test/identify/test_identification.py, still physically valid) and a friction law
of the arm's own (tanh-smooth with a Stribeck bump, exact-sign with asymmetric Coulomb, or
viscous-dominated), torque noise of known std (1 % of each joint's peak torque), positions
quantised by a 19-bit encoder and velocities taken as encoder differences (a few mrad/s of
noise at rest), 2 s rests at both ends of each run, gripper joints in the joint states, no
sidecar. Then, with only ``--urdf``, ``--data`` and ``--out``:

1. ``robot-id identify`` on a training run (8 periods of a 10 s Fourier excitation), then
   ``robot-id validate --json`` on a held-out run of another trajectory: RMSE per joint against
   its floor, the true model's own held-out RMSE on the same processed run, or the noise std
   where that is lower (target <= 1.05); beside it RMSE / noise std over all samples and in
   motion (|qd_j| >= ``IN_MOTION_RAD_S``), for the defaults and the true model, and the same
   held-out error of a plain Butterworth + OLS fit (positions low-passed at 10 Hz, central
   differences, OLS: ``bench_identification_defaults.VARIANTS``).

   Why the floor is the true model's error and not the noise: with an exact-sign friction law
   (UR5) the truth's friction jumps by fc+ + fc- at each reversal and is the full Coulomb level
   at any velocity above 0, also in the first samples leaving a rest; no model evaluated at the
   velocity estimated from quantised positions can place those steps (the true model with a
   sharper sign, 1e-6 rad/s, is worse: 3.3 1.3 2.0 5.2 5.0 36x the noise on seed 0). The true
   model is then 1.1-14x the noise over the run, 92-99.8 % of its error energy is in the rows
   below 0.05 rad/s, and in motion it is at 1.01-1.07x the noise. Scoring the defaults against
   the noise there counted the truth's own unpredictable part as identification error.
   The option search tells an offset from an asymmetric Coulomb pair by the static holds
   (identify/selection.py), and a resting joint's velocity is 0 up to its first move
   (identify/trajectories.py), so the defaults are below that floor on the exact-sign arms
   (0.76-0.95x on seeds 0-2) and at it in motion on the big joints.
2. The estimator with its defaults (``EstimatorConfig()``, what ``robot-id estimate`` uses
   without a params file) on the identified model, over a third run with known wrench bursts at
   the tool: force RMS error against the floor of a plain momentum observer on the true model
   and true friction law (``test/estimate/defaults_cases.floor_force_rms``); target <= 1.10.

Reproduce:
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_synthetic_arms.py [--arms so100 ...]
"""
import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'test'))
sys.path.insert(0, str(ROOT / 'test' / 'identify'))
sys.path.insert(0, str(ROOT / 'test' / 'estimate'))
sys.path.insert(0, str(ROOT / 'benchmarks'))

from bench_identification_defaults import VARIANTS  # noqa: E402
from defaults_cases import Case, floor_force_rms, force_rms, wrench_bursts  # noqa: E402
from robots import example_robot_data_dir  # noqa: E402
from test_identification import fourier_trajectory, perturbed  # noqa: E402

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator  # noqa: E402
from robot_id_ros.identify import identify, validate  # noqa: E402
from robot_id_ros.io.bags import BagWriter, JointStateSeries  # noqa: E402
from robot_id_ros.io.model_file import load_model, nominal_model  # noqa: E402
from robot_id_ros.model.friction import FrictionModel  # noqa: E402
from robot_id_ros.model.robot import RobotModel  # noqa: E402

RATE_HZ = 200.0
REST_S = 2.0
ENCODER_RAD = 2 * np.pi / 2 ** 19
STAMP0_NS = 1_700_000_000 * 10 ** 9
# joint speed (rad/s) from which a joint's held-out rows count as in motion (the in-motion figures)
IN_MOTION_RAD_S = 0.05


@dataclasses.dataclass
class ArmCase:
    """One arm: URDF, extra joints its joint states carry, friction law, wrench size."""

    name: str
    urdf: str                 # relative to example-robot-data's robots/
    extra_joints: tuple       # in the joint states, not in the arm (gripper, fingers)
    law: str                  # 'smooth', 'exact' or 'viscous'
    coulomb_nm: tuple
    wrench_scale: tuple       # (6,) N and Nm peaks of the bursts


ARMS = {
    'so100': ArmCase('so100', 'so_arm_description/urdf/so100.urdf', ('gripper',), 'smooth',
                     (0.15, 0.2, 0.15, 0.08, 0.05), (3.0, 3.0, 3.0, 0.0, 0.0, 0.0)),
    'ur5': ArmCase('ur5', 'ur_description/urdf/ur5_robot.urdf', (), 'exact',
                   (6.0, 6.0, 4.0, 1.5, 1.5, 1.2), (30.0, 30.0, 30.0, 3.0, 3.0, 3.0)),
    'panda': ArmCase('panda', 'panda_description/urdf/panda.urdf',
                     ('panda_finger_joint1', 'panda_finger_joint2'), 'smooth',
                     (2.0, 2.0, 1.5, 1.5, 0.8, 0.8, 0.5), (20.0, 20.0, 20.0, 2.0, 2.0, 2.0)),
    'kinova': ArmCase('kinova', 'kinova_description/robots/kinova.urdf', (), 'viscous',
                      (1.0, 1.0, 0.8, 0.4, 0.4, 0.3), (10.0, 10.0, 10.0, 1.0, 1.0, 1.0)),
    # not in the default set (the suite's four above): run with --arms
    'xarm7': ArmCase('xarm7', 'xarm_description/urdf/xarm7.urdf', (), 'smooth',
                     (1.5, 1.5, 1.0, 1.0, 0.8, 0.5, 0.5), (15.0, 15.0, 15.0, 1.5, 1.5, 1.5)),
    'z1': ArmCase('z1', 'z1_description/urdf/z1.urdf', ('jointGripper',), 'exact',
                  (0.8, 1.5, 0.8, 0.5, 0.5, 0.3), (8.0, 8.0, 8.0, 0.8, 0.8, 0.8)),
}


def true_friction(case: ArmCase):
    """Return (the truth's friction torque, callable qd -> Nm, its FrictionModel)."""
    fc = np.asarray(case.coulomb_nm)
    if case.law == 'smooth':
        fr = FrictionModel(fc, fc, 0.5 * fc, 0.05 * fc, stribeck_nm=0.3 * fc,
                           stribeck_velocity_rad_s=0.1, sign_velocity_rad_s=0.05)
        return fr.torque, fr
    if case.law == 'exact':      # asymmetric: 20 % more in the negative direction
        fr = FrictionModel(fc, 1.2 * fc, 0.5 * fc, 0.05 * fc, breakaway_nm=1.3 * fc)
        return fr.sliding_torque, fr
    fr = FrictionModel(0.3 * fc, 0.3 * fc, 3.0 * fc, 0.0 * fc, sign_velocity_rad_s=0.02)
    return fr.torque, fr


def windowed(t, Q, QD, QDD, q_rest):
    """Return the motion faded in and out from rest at ``q_rest`` over 2 s, with ``REST_S`` rests.

    Q = q_rest + w(t) (Q - q_rest), w a raised-cosine window: velocities and accelerations follow
    by the product rule, so the rests are exact.
    """
    T, ramp = t[-1], 2.0
    tt = np.concatenate([np.arange(int(REST_S * RATE_HZ)) / RATE_HZ - REST_S, t,
                         T + (1 + np.arange(int(REST_S * RATE_HZ))) / RATE_HZ])
    inside = (tt >= 0) & (tt <= T)
    D, DD, DDD = (np.zeros((len(tt), Q.shape[1])) for _ in range(3))
    D[inside], DD[inside], DDD[inside] = Q - q_rest, QD, QDD
    x = np.clip(np.minimum(tt, T - tt) / ramp, 0.0, 1.0)
    w = 0.5 * (1 - np.cos(np.pi * x))
    dx = np.where((tt > 0) & (tt < ramp), 1 / ramp, 0.0) - np.where(
        (tt > T - ramp) & (tt < T), 1 / ramp, 0.0)
    dw = 0.5 * np.pi * np.sin(np.pi * x) * dx
    ddw = 0.5 * np.pi ** 2 * np.cos(np.pi * x) * dx ** 2
    w, dw, ddw = w[:, None], dw[:, None], ddw[:, None]
    return (tt - tt[0], q_rest + w * D, dw * D + w * DD, ddw * D + 2 * dw * DD + w * DDD)


def measured(robot, truth, friction, t, Q, QD, QDD, sigma, rng, F=None):
    """Return (JointStateSeries as the drives report it, true effort before noise)."""
    tau = np.array([truth.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    tau += friction(QD)
    if F is not None:
        tau -= np.array([truth.tool_jacobian(q, 'base').T @ f for q, f in zip(Q, F)])
    eff = tau + rng.normal(size=tau.shape) * sigma
    Qm = np.round(Q / ENCODER_RAD) * ENCODER_RAD
    QDm = np.vstack([np.zeros((1, Q.shape[1])), np.diff(Qm, axis=0) * RATE_HZ])
    stamps = STAMP0_NS + np.round(t * 1e9).astype(np.int64)
    return JointStateSeries(robot.joint_names, stamps, Qm, QDm, eff, 'synthetic'), tau


def write_bag(path, series, extra):
    """Write ``series`` to a bag with ``extra`` joints (at 0) after the arm's."""
    names = list(series.joint_names) + list(extra)
    z = [0.0] * len(extra)
    with BagWriter(path) as w:
        for k in range(len(series)):
            w.write('/joint_states', series.stamp_ns[k], w.joint_state(
                series.stamp_ns[k], names, list(series.q[k]) + z, list(series.qd[k]) + z,
                list(series.effort[k]) + z))


def robot_id(*args):
    """Run the ``robot-id`` command of this venv; return (exit code, stdout, stderr, s)."""
    exe = Path(sys.executable).parent / 'robot-id'
    t0 = time.perf_counter()
    p = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr, time.perf_counter() - t0


def bounded_limits(robot):
    """Return ``robot``'s n and limits for an excitation: continuous joints (Kinova's) +-pi."""
    lim = robot.limits
    return SimpleNamespace(n=robot.n, limits=SimpleNamespace(
        lower_rad=np.where(np.isfinite(lim.lower_rad), lim.lower_rad, -np.pi),
        upper_rad=np.where(np.isfinite(lim.upper_rad), lim.upper_rad, np.pi),
        velocity_rad_s=lim.velocity_rad_s))


def arm_runs(case: ArmCase, seed=0):
    """Return one arm's truth and recordings (no commands run).

    Returns:
        SimpleNamespace: urdf (path), robot (nominal ``RobotModel``), truth (perturbed
        ``RobotModel``), friction (the truth's law, qd -> Nm), fr_model (its ``FrictionModel``),
        runs {'train', 'held_out', 'contact': (t, Q, QD, QDD)}, sigma ((n,) torque noise std,
        Nm), series {name: (JointStateSeries as recorded, true effort, wrench or None)}.
    """
    urdf = example_robot_data_dir() / case.urdf
    robot = RobotModel(urdf)
    rng = np.random.default_rng(seed)
    truth = perturbed(robot, rng)
    friction, fr_model = true_friction(case)
    bounded = bounded_limits(robot)
    runs = {}
    for name, periods, traj_seed in (('train', 8, seed + 1), ('held_out', 2, seed + 7),
                                     ('contact', 2, seed + 11)):
        traj = fourier_trajectory(bounded, np.random.default_rng(traj_seed), periods=periods)
        runs[name] = windowed(*traj, traj[1].mean(axis=0))
    peak = np.abs(np.array([truth.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(
        *runs['train'][1:])])).max(axis=0)
    sigma = 0.01 * peak + 0.002
    series = {}
    for name, (t, Q, QD, QDD) in runs.items():
        F = (wrench_bursts(t, case.wrench_scale, seed + 3, REST_S + 0.5, REST_S + 2.0)
             if name == 'contact' else None)
        series[name] = measured(robot, truth, friction, t, Q, QD, QDD, sigma, rng, F) + (F,)
    return SimpleNamespace(urdf=urdf, robot=robot, truth=truth, friction=friction,
                           fr_model=fr_model, runs=runs, sigma=sigma, series=series)


def run_arm(case: ArmCase, tmp: Path, seed=0):
    """Print the figures of one arm; return True when they meet the targets."""
    a = arm_runs(case, seed)
    urdf, robot, truth, friction, fr_model = a.urdf, a.robot, a.truth, a.friction, a.fr_model
    runs, sigma, series = a.runs, a.sigma, a.series
    for name in ('train', 'held_out'):
        write_bag(tmp / f'{case.name}_{name}', series[name][0], case.extra_joints)
    model_path = tmp / f'{case.name}_model.yaml'
    rc, out, err, dt = robot_id('identify', '--urdf', urdf, '--data', tmp / f'{case.name}_train',
                                '--out', model_path)
    if rc != 0:
        print(f'{case.name}: robot-id identify FAILED (exit {rc}): {err.strip()[-400:]}')
        return False
    rc, out, err, _ = robot_id('validate', '--model', model_path, '--data',
                               tmp / f'{case.name}_held_out', '--json')
    if rc != 0:
        print(f'{case.name}: robot-id validate FAILED (exit {rc}): {err.strip()[-400:]}')
        return False
    rmse = np.asarray(json.loads(out)['rmse_nm'])
    ratio = rmse / sigma
    held = series['held_out'][0]
    base = identify(robot, [series['train'][0]], options=dataclasses.replace(VARIANTS[2][1]))
    ratio_base = np.asarray(validate(base.model, held).metrics['rmse_nm']) / sigma
    true_model = nominal_model(truth, fr_model)
    true_model.residual_std_nm = sigma
    ident = load_model(model_path)
    moving = {k: validate(m, held, min_velocity_rad_s=IN_MOTION_RAD_S).metrics
              for k, m in (('defaults', ident), ('true', true_model))}
    rmse_true = np.asarray(moving['true']['rmse_nm'])
    ratio_true = rmse_true / sigma
    # the floor: what the true model itself reaches on this processed run (see the docstring)
    to_floor = rmse / np.maximum(rmse_true, sigma)
    ok_id = bool(np.all(to_floor <= 1.05))

    def row(x):
        return f'{" ".join(f"{v:.3f}" for v in x)}  (max {np.max(x):.3f})'

    print(f'{case.name} ({robot.n} joints, {case.law} friction, extra joints '
          f'{", ".join(case.extra_joints) or "none"}): identify {dt:.0f} s')
    print(f'  held-out RMSE / floor (true model), defaults: {row(to_floor)}, target <= 1.05: '
          f'{"pass" if ok_id else "FAIL"}')
    print(f'  held-out RMSE / noise, defaults:        {row(ratio)}')
    print(f'  held-out RMSE / noise, the true model:  {row(ratio_true)}; its friction law as a '
          f'model file states it')
    for k in ('defaults', 'true'):
        x = np.asarray(moving[k]['rmse_in_motion_nm']) / sigma
        print(f'  in motion (|qd_j| >= {IN_MOTION_RAD_S:g} rad/s) RMSE / noise, '
              f'{"defaults:  " if k == "defaults" else "true model:"} {row(x)}')
    print(f'  held-out RMSE / noise, Butterworth+OLS: {row(ratio_base)}')
    s, _, F = series['contact']
    t = runs['contact'][0]
    res = WrenchEstimator(ident, EstimatorConfig()).process(s.stamp_ns, s.q, s.qd, s.effort)
    c = Case(s.stamp_ns, s.q, s.qd, s.effort, F, true_model, friction, None)
    if len(res.index) != len(s.q):
        print(f'  estimator rejected {len(s.q) - len(res.index)} samples: {res.rejected[:3]}')
        return False
    est, floor = force_rms(c, res.wrench), floor_force_rms(c)
    ok_est = est <= 1.10 * floor
    print(f'  force RMS, estimator defaults on the identified model {est:.3f} N, true-model '
          f'floor {floor:.3f} N: {est / floor:.2f}x (target <= 1.10: '
          f'{"pass" if ok_est else "FAIL"}); peak force {np.abs(F[:, :3]).max():.1f} N over '
          f'{t[-1]:.0f} s', flush=True)
    return ok_id and ok_est


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--arms', nargs='+', default=['so100', 'ur5', 'panda', 'kinova'],
                    choices=list(ARMS))
    ap.add_argument('--seed', type=int, default=0)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {name: run_arm(ARMS[name], Path(tmp), a.seed) for name in a.arms}
    print('all targets met' if all(results.values()) else
          f'targets missed on: {", ".join(k for k, v in results.items() if not v)}')
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_synthetic_arms.py '
          f'--arms {" ".join(a.arms)} --seed {a.seed}')


if __name__ == '__main__':
    main()
