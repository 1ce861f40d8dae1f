# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id design-excitation: an optimised periodic excitation trajectory within the limits.

Writes the trajectory file (YAML, schema in ``robot_id_ros.record.excitation``) that the trajectory
recorder plays, prints progress and the condition number achieved, and optionally a PNG plot of
positions, velocities and accelerations.
"""
from __future__ import annotations

import sys

import numpy as np

from robot_id_ros.record import (DEFAULT_ACCELERATION_PER_VELOCITY_S, TABLE_RATE_HZ_DEFAULT,
                                 ExcitationLimits, design_within_torque, plot_trajectory)
from robot_id_ros.model.regressor import RegressorOptions
from robot_id_ros.cli.common import (CommandError, add_robot_arguments, parse_floats,
                                     robot_from_args)

from robot_id_ros.io.files import PLOT_OUTPUT, Outputs, yaml_output
from robot_id_ros.record.excitation_torque import TIME_SCALE_FACTORS
from robot_id_ros.record.fourier import SCHEMA
from robot_id_ros.cli.common import add_overwrite_argument, check_plot_name


def add_parser(subparsers):
    p = subparsers.add_parser('design-excitation',
                              help='optimised periodic excitation trajectory (Fourier series)',
                              description=__doc__)
    add_robot_arguments(p)
    p.add_argument('--out', required=True, help='trajectory file to write (YAML)')
    p.add_argument('--period', type=float, default=10.0, help='period T in s (default 10)')
    p.add_argument('--harmonics', type=int, default=5, help='harmonics N per joint (default 5)')
    p.add_argument(
        '--friction', action='store_true',
        help='identify Coulomb + viscous friction with the inertia (adds their columns)')
    p.add_argument('--offset', action='store_true', help='identify a torque offset per joint too')
    p.add_argument('--rotor-inertia', action='store_true',
                   help='identify reflected rotor inertia too')
    p.add_argument('--position-fraction', type=float, default=0.8,
                   help='use this fraction of each joint range, centred (default 0.8)')
    p.add_argument('--velocity-fraction', type=float, default=0.7,
                   help='fraction of the velocity limit (0.7)')
    p.add_argument('--acceleration-fraction', type=float, default=0.7,
                   help='fraction of the acceleration limit (0.7)')
    p.add_argument('--velocity-limits', default=None,
                   help='rad/s, one value or one per joint, comma-separated (default: the URDF)')
    p.add_argument(
        '--acceleration-limits', default=None,
        help='rad/s^2, one value or one per joint (default '
        f'{DEFAULT_ACCELERATION_PER_VELOCITY_S:g}/s x the velocity limit; URDFs carry none)')
    p.add_argument(
        '--floor-z', default='0.0',
        help='lowest tool-frame height in m, in the URDF root frame (default 0; "none" for no '
        'floor)')
    p.add_argument(
        '--start-pose', default=None,
        help='start/end pose in rad, comma-separated per joint (default: middle of each range)')
    p.add_argument(
        '--criterion', choices=('cond', 'logdet'), default='cond',
        help='minimise the condition number (default) or maximise log det (D-optimality)')
    p.add_argument('--iterations', type=int, default=100,
                   help='optimiser iterations per start (default 100)')
    p.add_argument('--restarts', type=int, default=1,
                   help='random starts, the best is kept (default 1)')
    p.add_argument('--seed', type=int, default=0, help='random seed of the starting trajectory')
    p.add_argument(
        '--max-torque-fraction', type=float, default=0.8,
        help='redesign (next seed) while the trajectory needs more than this fraction of a '
        'drive\'s torque limit with the URDF dynamics, then slow the best design, then shrink the '
        'position band around a low-gravity pose (said in a note, with the weaker condition '
        'number) (default 0.8; friction comes on top on a real arm)')
    p.add_argument('--attempts', type=int, default=8,
                   help='designs tried for the torque limit (default 8)')
    p.add_argument(
        '--table-rate', type=float, default=TABLE_RATE_HZ_DEFAULT,
        help=f'rate of the sample table in the file, Hz (default {TABLE_RATE_HZ_DEFAULT:g})')
    p.add_argument('--plot', default=None, help='write a PNG of q, qd, qdd')
    add_overwrite_argument(p, 'trajectory file or plot')
    return p


# --overwrite replaces only an earlier trajectory file
EXCITATION_OUTPUT = yaml_output('trajectory file', lambda d: d.get('schema') == SCHEMA)


def run(args) -> int:
    if args.period <= 0 or not np.isfinite(args.period):
        raise CommandError(f'--period must be a positive number of seconds, got {args.period}')
    if args.harmonics < 2:
        raise CommandError(
            f'--harmonics must be at least 2 (rest at the start needs two), got {args.harmonics}')
    outputs = Outputs(inputs=[args.urdf], overwrite=args.overwrite)
    out = outputs.check(args.out, EXCITATION_OUTPUT)
    if args.plot:
        check_plot_name(args.plot, '--plot')
        outputs.check(args.plot, PLOT_OUTPUT)
    robot = robot_from_args(args)
    floor = None if str(args.floor_z).strip().lower() == 'none' else parse_floats(
        args.floor_z, what='--floor-z')[0]
    options = RegressorOptions(friction=args.friction, offset=args.offset,
                               rotor_inertia=args.rotor_inertia)
    print(
        f'designing excitation for {robot.robot_name}: {robot.n} joints '
        f'({", ".join(robot.joint_names)}), '
        f'T = {args.period:g} s, N = {args.harmonics}, criterion {args.criterion}',
        file=sys.stderr, flush=True)

    def progress(info):
        if info['stage'] == 'optimise' and info['iteration'] % 5:
            return
        print(f'  {info["stage"]:8s} start {info["start"] + 1} iteration {info["iteration"]:3d}: '
              f'cond {info["cond"]:.5g}, log det {info["logdet"]:.4g} ({info["elapsed_s"]:.1f} s)',
              file=sys.stderr, flush=True)

    if not 0 < args.max_torque_fraction <= 10 or args.attempts < 1:
        raise CommandError('--max-torque-fraction must be in (0, 10] and --attempts >= 1')

    def rejected(seed, peak):
        print(
            f'  seed {seed}: needs {100 * peak:.0f} % of a drive\'s torque limit '
            f'(> {100 * args.max_torque_fraction:.0f} %): redesigning with the next seed',
            file=sys.stderr, flush=True)

    def band_rejected(fraction, peak):
        print(f'  band of {100 * fraction:.0f} % of each range around a low-gravity pose: needs '
              f'{100 * peak:.0f} % even slowed {TIME_SCALE_FACTORS[-1]:g}x: shrinking it',
              file=sys.stderr, flush=True)

    start_pose = parse_floats(args.start_pose, what='--start-pose')
    acceleration_limits = parse_floats(args.acceleration_limits, what='--acceleration-limits')
    velocity_limits = parse_floats(args.velocity_limits, what='--velocity-limits')
    res, peak, per_joint, seed = design_within_torque(
        robot, options, max_torque_fraction=args.max_torque_fraction, attempts=args.attempts,
        report=rejected, report_band=band_rejected, period_s=args.period, harmonics=args.harmonics,
        q_start=start_pose, position_fraction=args.position_fraction,
        velocity_fraction=args.velocity_fraction, acceleration_fraction=args.acceleration_fraction,
        acceleration_limits_rad_s2=acceleration_limits,
        velocity_limits_rad_s=velocity_limits, floor_z_m=floor,
        criterion=args.criterion, max_iterations=args.iterations, restarts=args.restarts,
        progress=progress, seed=args.seed)
    limits = None
    if args.plot:
        limits = ExcitationLimits.from_robot(
            robot, args.position_fraction, args.velocity_fraction, args.acceleration_fraction,
            acceleration_limits, velocity_limits, floor)
    with outputs:
        res.trajectory.save(outputs.temp(out), args.table_rate)
        if args.plot:
            plot_trajectory(res.trajectory, outputs.temp(args.plot), limits)
    _print_design(args, robot, res, per_joint, seed, out)
    if args.plot:
        print(f'wrote {args.plot}')
    return 0


def _print_design(args, robot, res, per_joint, seed, out):
    """Print what the design needed (band, slowing), its measures, limits used and peak torque."""
    c = res.constraints
    d = res.trajectory.design
    if d.get('start_pose_note'):
        print(d['start_pose_note'])
    if d.get('band_note'):
        print(d['band_note'])
    elif d.get('time_scale'):
        print(f'no design of period {d["period_designed_s"]:g} s stayed within '
              f'{100 * args.max_torque_fraction:.0f} % of the torque limits: the best one '
              f'(seed {seed}) is slowed {d["time_scale"]:g}x, period '
              f'{res.trajectory.period_s:g} s')
    print(f'wrote {out}')
    print(
        f'condition number {res.cond:.5g} (random start {res.initial_cond:.5g}), '
        f'log det {res.logdet:.5g}, '
        f'{res.n_base} base parameters, {res.iterations} iterations, {res.time_s:.1f} s')
    floor_txt = '' if c[
        'floor_clearance_m'] is None else f', floor clearance {c["floor_clearance_m"]:.3f} m'
    print(
        f'limits used (dense grid of {c["samples"]} points): '
        f'position {100 * c["position_ratio"]:.1f} %, '
        f'velocity {100 * c["velocity_ratio"]:.1f} %, '
        f'acceleration {100 * c["acceleration_ratio"]:.1f} %'
        f'{floor_txt}')
    print('peak torque (URDF dynamics, no friction): '
          + ', '.join(f'{n} {100 * f:.0f} %' for n, f in zip(robot.joint_names, per_joint))
          + f' of the effort limits (seed {seed})')
