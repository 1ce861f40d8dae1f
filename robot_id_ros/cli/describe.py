# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id describe: the model summary (joints, tool frame, parameter counts, base parameters)."""
from __future__ import annotations

import json

from robot_id_ros.model.base_parameters import compute_base_parameters
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.cli.common import add_robot_arguments, robot_from_args


def add_parser(subparsers):
    p = subparsers.add_parser(
        'describe', help='model summary: joints, tool frame, standard and base parameters',
        description=__doc__)
    add_robot_arguments(p)
    p.add_argument('--friction', action='store_true',
                   help='add Coulomb + viscous friction per joint')
    p.add_argument('--offset', action='store_true', help='add a torque offset per joint')
    p.add_argument('--rotor-inertia', action='store_true',
                   help='add reflected rotor inertia per joint')
    p.add_argument('--json', action='store_true', help='print JSON')
    return p


def describe(robot, options: RegressorOptions):
    reg = Regressor(robot, options)
    base = compute_base_parameters(reg)
    return {
        'robot_name': robot.robot_name,
        'urdf': str(robot.urdf_path),
        'joint_names': list(robot.joint_names),
        'tool_frame': robot.tool_frame,
        'n_standard': reg.p,
        'n_base': base.n_base,
        'base_parameters': base.expressions(),
        'base_parameter_names': list(base.names),
        'unidentifiable': base.unidentifiable(),
        'base_tolerance': base.tolerance,
        'options': options.to_dict(),
        'limits': {
            n: {
                'lower_rad': float(lo),
                'upper_rad': float(hi),
                'velocity_rad_s': float(v),
                'effort_nm': float(e)
            }
            for n, lo, hi, v, e in
            zip(robot.joint_names, robot.limits.lower_rad, robot.limits.upper_rad,
                robot.limits.velocity_rad_s, robot.limits.effort_nm)
        },
    }


def run(args) -> int:
    robot = robot_from_args(args)
    info = describe(robot, RegressorOptions(friction=args.friction, offset=args.offset,
                                            rotor_inertia=args.rotor_inertia))
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f'robot       {info["robot_name"]} ({info["urdf"]})')
    print(f'joints      {", ".join(info["joint_names"])}')
    print(f'tool frame  {info["tool_frame"]}')
    print(f'parameters  {info["n_standard"]} standard, {info["n_base"]} base '
          f'(QR tolerance {info["base_tolerance"]:g})')
    for name, lim in info['limits'].items():
        print(f'  {name:24s} [{lim["lower_rad"]:+.3f}, {lim["upper_rad"]:+.3f}] rad  '
              f'{lim["velocity_rad_s"]:.2f} rad/s  {lim["effort_nm"]:.1f} Nm')
    print('base parameters:')
    for i, (n, e) in enumerate(zip(info['base_parameter_names'], info['base_parameters']), 1):
        print(f'  b{i:<3d} {n:8s} = {e}')
    if info['unidentifiable']:
        print(f'no effect on torque (unidentifiable): {", ".join(info["unidentifiable"])}')
    return 0
