# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identification on the simulated youBot, ROS-free.

Data made like the recorders make them (see test/identify/test_identification_sim.py): one
excitation run and a held-out run of a second designed excitation (``--periods`` periods of 8 s,
200 Hz), and static poses each approached from both directions. Or, with ``--bags DIR``, the bags
of a ``robot-id demo`` run (DIR/bags/{excitation,validation,static}, truth
DIR/truth/true_parameters.yaml).

Prints, per joint, the held-out torque RMSE / sensing noise floor (sqrt(10 mA^2 + 1 mA^2/12)
Kt N): over all samples of the excitation periods, and in motion (joint j's samples with processed
|qd_j| >= 0.05 rad/s), for the demo's former options, the new options and the simulator's true
parameters processed alike (the floor); and static holds: measured minus predicted / breakaway
torque (the stiction band), for the static-gravity fit predicting each pose from the others
(leave-pose-out) and for the dynamic model (fitted on the excitation only), with the gravity error
against the true gravity (evaluation only).

Reproduce:
    .venv/bin/python benchmarks/bench_identification_sim.py [--seed 3] [--periods 4] [--poses 12]
    .venv/bin/python benchmarks/bench_identification_sim.py --bags /tmp/demo1
"""
import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'identify'))

from robot_id_ros.identify import (  # noqa: E402
    IdentificationOptions, identify, static_poses, validate)
from robot_id_ros.sim.config import SimConfig  # noqa: E402
from test_identification_sim import (  # noqa: E402
    MIN_VELOCITY_RAD_S,
    SIM_OPTIONS,
    make_data,
    noise_floor_nm,
    static_leave_pose_out)

FORMER = dict(friction=True, offset=False, rotor_inertia=True, coulomb_asymmetric=False)


def fmt(x):
    return ' '.join(f'{v:5.2f}' for v in x)


def load_bags(d):
    import yaml

    from robot_id_ros.io.bags import read_joint_states
    from robot_id_ros.model.robot import youbot_model
    from robot_id_ros.io.sidecar import find_sidecar
    from robot_id_ros.sim.true_model import true_model_from_dict
    d = Path(d)
    robot = youbot_model()
    j = robot.joint_names

    def bag(name):
        return read_joint_states(d / 'bags' / name, j), find_sidecar(d / 'bags' / name)

    truth = yaml.safe_load((d / 'truth' / 'true_parameters.yaml').read_text())
    cfg = SimConfig.from_dict(truth['config'])
    f = truth['friction']
    bp = np.array([f[x]['breakaway_pos_nm'] for x in j])
    bn = np.array([f[x]['breakaway_neg_nm'] for x in j])
    tm = true_model_from_dict(truth)
    return (robot, cfg, tm, bp, bn, lambda q: tm.robot.gravity_torque(q), bag('excitation'),
            bag('validation'), bag('static'))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=3)
    ap.add_argument('--periods', type=int, default=4)
    ap.add_argument('--poses', type=int, default=12)
    ap.add_argument('--bags', default=None, metavar='DIR',
                    help='a robot-id demo output folder instead of the sim')
    a = ap.parse_args()
    t0 = time.perf_counter()
    if a.bags:
        robot, cfg, tm, bp, bn, g_true, ident, held, static = load_bags(a.bags)
        print(f'data: bags of {a.bags} (truth seed {cfg.seed})')
    else:
        from robot_id_ros.sim.true_model import true_model_of
        robot, cfg, arm, ident, held, static = make_data(a.seed, a.periods, 8.0, a.poses)
        tm, bp, bn, g_true = true_model_of(
            arm), arm.breakaway_pos, arm.breakaway_neg, arm.true_gravity_torque
        print(
            f'data: ROS-free SimulatedArm seed {a.seed}, {a.periods} periods of 8 s per run, '
            f'{a.poses} static poses '
            f'x 2 directions ({time.perf_counter() - t0:.1f} s to simulate)')
    noise = noise_floor_nm(cfg)
    print('noise floor (Nm): ' + ' '.join(f'{v:.4f}' for v in noise))
    print(
        '\nheld-out excitation: RMSE / noise floor per joint '
        f'(in motion: |qd_j| >= {MIN_VELOCITY_RAD_S:g} rad/s)')
    print(f'{"model":44s} {"all samples":30s}  {"in motion":30s}  in-motion fraction')
    models = {}
    for name, kw in (('former demo options (periodic, sym. Coulomb)', FORMER), ('new demo options',
                                                                                SIM_OPTIONS)):
        t1 = time.perf_counter()
        res = identify(robot, data=[ident], options=IdentificationOptions(**kw))
        dt = time.perf_counter() - t1
        models[name] = res.model
        v = validate(res.model, held[0], None, held[1], min_velocity_rad_s=MIN_VELOCITY_RAD_S)
        m = v.metrics
        every, motion = np.array(m['rmse_nm']) / noise, np.array(m['rmse_in_motion_nm']) / noise
        print(
            f'{name:44s} {fmt(every):30s}  {fmt(motion):30s}  '
            f'{fmt(m["in_motion_fraction"])}   ({dt:.2f} s)')
    for name, kw in (('true parameters, former processing', FORMER),
                     ('true parameters, new processing', SIM_OPTIONS)):
        tm.identification = {'options': dataclasses.asdict(IdentificationOptions(**kw))}
        m = validate(tm, held[0], None, held[1], min_velocity_rad_s=MIN_VELOCITY_RAD_S).metrics
        every, motion = np.array(m['rmse_nm']) / noise, np.array(m['rmse_in_motion_nm']) / noise
        print(f'{name:44s} {fmt(every):30s}  {fmt(motion):30s}')
    new = models['new demo options']
    print(
        '  new: Stribeck velocity chosen by the fit '
        f'{new.regressor_options.stribeck_velocity_rad_s:g} rad/s; '
        f'fit residual RMS (in motion) {fmt(new.residual_std_nm)} Nm')

    opts = IdentificationOptions()
    poses = static_poses(static[0], opts, static[1], robot)
    pose_index = np.array(
        [s['pose_index'] for s in static[1]['segments'] if s.get('type') == 'static_hold'])
    gt = np.array([g_true(q) for q in poses.q])
    band = np.minimum(bp, bn)

    def ratio(e):
        return np.where(e > 0, e / bp, -e / bn)

    print(
        f'\nstatic holds: {len(poses)} ({len(set(pose_index))} poses); '
        f'breakaway +/- (Nm): {fmt(bp)} / {fmt(bn)}')
    print(
        '  max over holds of (measured - predicted) / breakaway in that direction; '
        'inside the band: <= 1')
    lpo = static_leave_pose_out(robot, poses, pose_index, opts)
    dyn = np.array([new.robot.gravity_torque(q) for q in poses.q])
    for name, pred in (('true gravity (the floor)', gt), ('static gravity fit, leave-pose-out',
                                                          lpo), ('dynamic model (excitation only)',
                                                                 dyn)):
        r = ratio(poses.tau - pred)
        inside = (r <= 1.0).mean(axis=0)
        print(f'  {name:36s} max {fmt(r.max(axis=0))}  inside {fmt(inside)}  '
              f'|g_true - g_pred| max / band {fmt(np.abs(gt - pred).max(axis=0) / band)}')
    print(f'\ntotal {time.perf_counter() - t0:.1f} s')
    print('reproduce: .venv/bin/python benchmarks/bench_identification_sim.py ' +
          (f'--bags {a.bags}' if a.
           bags else f'--seed {a.seed} --periods {a.periods} --poses {a.poses}'))


if __name__ == '__main__':
    main()
