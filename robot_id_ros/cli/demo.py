# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id demo: the whole pipeline on the simulated youBot over real DDS.

The simulator's true parameters are hidden. Static poses, friction sweeps, optimised excitation,
identification, held-out validation, then the wrench estimator under a scripted sequence of known
forces (and, with --force-control, the force controller guiding the arm and pressing on a
surface). Prints a results table and writes a report folder (model file, bags, plots,
results.json).
"""
from __future__ import annotations

from pathlib import Path

from robot_id_ros.cli.common import CommandError


def add_parser(subparsers):
    """Add ``robot-id demo`` to ``subparsers``; returns its parser."""
    p = subparsers.add_parser('demo', help='the whole pipeline on the simulated youBot',
                              description=__doc__)
    p.add_argument('--out', default='demo_out', help='report folder (default: demo_out)')
    p.add_argument('--quick', action='store_true',
                   help='short configuration (fewer poses and periods; CI)')
    p.add_argument('--seed', type=int, default=7,
                   help='seed of the simulated robot (its hidden parameters)')
    p.add_argument('--real-time-factor', type=float, default=4.0,
                   help='simulation speed during recording (default 4x real time)')
    p.add_argument('--force-real-time-factor', type=float, default=2.0,
                   help='simulation speed during the force phase (default 2x)')
    p.add_argument('--domain-id', type=int, default=None,
                   help='ROS domain (default: a private one per run)')
    p.add_argument('--command-interface', default='trajectory',
                   choices=('trajectory', 'follow_joint_trajectory', 'brics_position'),
                   help="how the recorders move the arm: 'trajectory' (JointTrajectory topic, "
                        "default) or the real youBot driver's FollowJointTrajectory action / "
                        'brics JointPositions stream (their message packages are built for the '
                        'demo with tools/build_interfaces.py when not installed)')
    p.add_argument('--force-control', action='store_true',
                   help='end with the force-control stage: hand guiding and force holding '
                        'closed on the estimate, on the identified model')
    p.add_argument('--friction-drift', action='store_true',
                   help='the simulated arm\'s friction drifts: joints that warm up from a cold '
                        'start, Coulomb friction that grows with the load (docs/theory.md); '
                        'its model starts benchmarks/bench_friction_drift.py --model')
    p.add_argument('--force-control-only', metavar='MODEL', default=None,
                   help='run only the force-control stage, on this identified model file of '
                        'the --seed simulated youBot (e.g. an earlier demo\'s youbot_model.yaml)')
    return p


def run(args) -> int:
    """Run the demo into an empty ``--out`` folder; returns the exit status (0)."""
    from robot_id_ros.demo.pipeline import DemoConfig, DemoError, run_demo

    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        raise CommandError(f'output folder {out} is not empty: choose another --out or remove it')
    if not 0.1 <= args.real_time_factor <= 50 or not 0.1 <= args.force_real_time_factor <= 50:
        raise CommandError('real-time factors must be within [0.1, 50]')
    if args.force_control_only:
        from robot_id_ros.demo.force_control_stage import run_alone
        run_alone(out, args.force_control_only, args.seed, args.quick)
        print(f'\nreport: {out}/ (results.md, results.json)')
        return 0
    try:
        run_demo(DemoConfig(out, quick=args.quick, seed=args.seed,
                            real_time_factor=args.real_time_factor,
                            force_real_time_factor=args.force_real_time_factor,
                            domain_id=args.domain_id,
                            command_interface=args.command_interface,
                            force_control=args.force_control,
                            friction_drift=args.friction_drift))
    except DemoError as exc:
        raise CommandError(str(exc)) from exc
    print(f'\nreport: {out}/ (results.md, results.json, youbot_model.yaml, report/, bags/, logs/)')
    return 0
