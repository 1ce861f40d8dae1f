# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Static gravity model on held-out static poses of the simulated youBot.

Leave-one-pose-out: the static (gravity) fit on all other poses predicts the held-out pose; the
measurement is the mean of the pose's two holds (approached from opposite directions, as the static
recorder records them, so that stiction biases cancel). The error is divided by each joint's
stiction band (breakaway torque, from the simulator's truth file: used for evaluation only).
The true gravity, measured the same way, shows the floor.

    robot-id demo --out DIR          # records the bags (or use an existing demo folder)
    .venv/bin/python benchmarks/bench_static_gravity_sim.py DIR
"""
import argparse
import sys

import numpy as np

from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.identify import (IdentificationOptions, StaticPoses, identify_gravity,
                                   static_poses)
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.io.sidecar import find_sidecar
from robot_id_ros.sim.true_model import load_true_model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('demo_out',
                    help='a robot-id demo output folder (bags/static, truth/true_parameters.yaml)')
    a = ap.parse_args()
    robot = youbot_model()
    series = read_joint_states(f'{a.demo_out}/bags/static', robot.joint_names)
    sidecar = find_sidecar(f'{a.demo_out}/bags/static')
    opts = IdentificationOptions()
    P = static_poses(series, opts, sidecar, robot)
    pose_index = [s['pose_index'] for s in sidecar['segments'] if s['type'] == 'static_hold']
    truth = load_true_model(f'{a.demo_out}/truth/true_parameters.yaml')
    band = truth.friction.breakaway_nm
    groups = {}
    for i, k in enumerate(pose_index):
        groups.setdefault(k, []).append(i)
    fit, true, single = [], [], []
    for idx in groups.values():
        train = [i for i in range(len(P)) if i not in idx]
        sub = StaticPoses(P.q[train], P.tau[train], P.tau_std[train], P.samples[train],
                          P.approach[train])
        g = identify_gravity(robot, sub, opts)
        q = P.q[idx].mean(axis=0)
        meas = P.tau[idx].mean(axis=0)
        pred = g.predict(robot, q)[0]
        fit.append(np.abs(meas - pred) / band)
        true.append(np.abs(meas - truth.robot.gravity_torque(q)) / band)
        single += [np.abs(P.tau[i] - g.predict(robot, P.q[i])[0]) / band for i in idx]
    print(f'{len(groups)} poses, {len(P)} holds ({a.demo_out})')
    print('max |measured - predicted| / stiction band, per joint J1..J5:')
    print('  static fit, held-out pose (mean of both approaches): ' +
          ', '.join(f'{x:.2f}' for x in np.max(fit, 0)))
    print('  true gravity, same measurement:                      ' +
          ', '.join(f'{x:.2f}' for x in np.max(true, 0)))
    print('  static fit, single holds (one approach):             ' +
          ', '.join(f'{x:.2f}' for x in np.max(single, 0)))
    print(f'reproduce: .venv/bin/python benchmarks/bench_static_gravity_sim.py {a.demo_out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
