# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: optimised excitation vs random trajectories of the same bandwidth and limits.

For each arm (the youBot and the UR5 from example-robot-data): design an excitation (T = 10 s,
N = 5 harmonics, default fractions 0.8 / 0.7 / 0.7, floor at z = 0 for the youBot; the UR5 gets no
floor because its URDF root sits at its base and the middle-of-range start pose is the reference),
then draw random Fourier coefficients on the same N harmonics, scale each to the largest size that
satisfies the same limits on the same dense grid, and compare condition numbers of the base
observation matrix. Prints the optimised cond, the median of the random ones, their ratio and the
optimisation time.

Reproduce:
    .venv/bin/python benchmarks/bench_excitation.py [--random 20] [--iterations 100] [--friction]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robot_id_ros.record import excitation as E  # noqa: E402
from robot_id_ros.model.robot import RobotModel, youbot_model  # noqa: E402
from robot_id_ros.model.regressor import RegressorOptions  # noqa: E402


def ur5_model():
    import pinocchio

    share = Path(pinocchio.__file__).resolve()
    for parent in share.parents:
        cand = parent / ('cmeel.prefix/share/example-robot-data/robots/ur_description/urdf/'
                         'ur5_robot.urdf')
        if cand.is_file():
            return RobotModel(cand)
    raise SystemExit('UR5 URDF (example-robot-data) not found')


def bench(name, robot, floor, args):
    opts = RegressorOptions(friction=args.friction)
    lines = []
    res = E.design_excitation(robot, opts, args.period, args.harmonics, floor_z_m=floor,
                              max_iterations=args.iterations, seed=args.seed)
    limits = E.ExcitationLimits.from_robot(robot, floor_z_m=floor)
    prob = E.ExcitationProblem(robot, opts, args.period, args.harmonics, limits)
    rng = np.random.default_rng(1000 + args.seed)
    conds = []
    for _ in range(args.random):
        x = prob.random_x(rng)
        assert prob.report(x)['ok']
        conds.append(prob.measures(x)[0])
    med = float(np.median(conds))
    lines.append(
        f'{name:8s} n={robot.n} base={res.n_base:3d}  optimised cond {res.cond:9.4g}  '
        f'random median {med:9.4g} (min {min(conds):.4g}, {len(conds)} trajectories)  '
        f'ratio {res.cond / med:.3f}  optimisation {res.time_s:.1f} s '
        f'({res.iterations} iterations)  '
        f'limits used: pos {res.constraints["position_ratio"]:.2f} '
        f'vel {res.constraints["velocity_ratio"]:.2f} '
        f'acc {res.constraints["acceleration_ratio"]:.2f}')
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--random', type=int, default=20, help='random trajectories per arm (>= 20)')
    p.add_argument('--iterations', type=int, default=100)
    p.add_argument('--period', type=float, default=10.0)
    p.add_argument('--harmonics', type=int, default=5)
    p.add_argument('--friction', action='store_true', help='include friction columns')
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args(argv)
    if args.random < 20:
        p.error('--random must be at least 20')
    print(
        f'excitation benchmark: T = {args.period:g} s, N = {args.harmonics}, '
        f'friction {args.friction}, '
        f'{args.iterations} iterations, seed {args.seed}')
    t0 = time.monotonic()
    for name, robot, floor in (('youBot', youbot_model(), 0.0), ('UR5', ur5_model(), None)):
        for line in bench(name, robot, floor, args):
            print(line, flush=True)
    print(f'total {time.monotonic() - t0:.1f} s')
    print('reproduce: .venv/bin/python benchmarks/bench_excitation.py ' +
          ' '.join(sys.argv[1:] if argv is None else argv))


if __name__ == '__main__':
    main()
