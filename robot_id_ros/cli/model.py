# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id model: a model file from a URDF's own parameters, without identification.

The file holds the URDF's masses, centres of mass and inertias, plus what the user gives beyond
the URDF: rotor inertia and Coulomb / viscous friction per joint (zero when not given). It has no
residual statistics: the estimator runs on its fallback noise until a model is identified.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.cli.common import (MODEL_OUTPUT, CommandError, add_overwrite_argument,
                                     add_robot_arguments, parse_floats, robot_from_args)
from robot_id_ros.io.files import Outputs
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.regressor import RegressorOptions


def add_parser(subparsers):
    p = subparsers.add_parser(
        'model', help="model file from a URDF's own parameters (no identification)",
        description=__doc__)
    add_robot_arguments(p, urdf_required=True)
    p.add_argument('--out', required=True, help='the model file to write (YAML)')
    p.add_argument('--rotor-inertia', default=None, metavar='I1,I2,..',
                   help='reflected rotor inertia per joint, kg m^2 (default: the URDF\'s, none)')
    p.add_argument('--coulomb', default=None, metavar='F1,F2,..',
                   help='Coulomb friction per joint, Nm (default: 0)')
    p.add_argument('--viscous', default=None, metavar='D1,D2,..',
                   help='viscous friction per joint, Nm s/rad (default: 0)')
    add_overwrite_argument(p, 'model file')
    return p


def model_from_args(args):
    """Return the IdentifiedModel of the URDF with the per-joint values the flags give."""
    robot = robot_from_args(args)
    n = robot.n
    rotor = parse_floats(args.rotor_inertia, n, '--rotor-inertia')
    coulomb = parse_floats(args.coulomb, n, '--coulomb')
    viscous = parse_floats(args.viscous, n, '--viscous')
    for flag, values in (('--rotor-inertia', rotor), ('--coulomb', coulomb),
                         ('--viscous', viscous)):
        if values is not None and min(values) < 0:
            raise CommandError(f'{flag}: a value per joint, none negative, got {min(values):g}')
    zeros = np.zeros(n)
    coulomb = zeros if coulomb is None else np.asarray(coulomb)
    friction = FrictionModel(coulomb_pos_nm=coulomb, coulomb_neg_nm=coulomb.copy(),
                             viscous_nm_s_rad=zeros if viscous is None else viscous,
                             offset_nm=zeros)
    if rotor is not None:
        robot.set_rotor_inertia(rotor)
    return nominal_model(robot, friction, RegressorOptions(rotor_inertia=rotor is not None))


def run(args) -> int:
    """Run ``robot-id model``; every error is raised (main prints it in one line)."""
    outputs = Outputs(inputs=[args.urdf], overwrite=args.overwrite)
    outputs.check(args.out, MODEL_OUTPUT)
    model = model_from_args(args)
    with outputs:
        model.save(outputs.temp(args.out))
    masses = model.parameters[:model.regressor.n_inertial:10]
    print(f'wrote {args.out}: {model.robot.robot_name}, joints '
          f'{", ".join(model.joint_names)}, tool frame {model.robot.tool_frame}, '
          f'{float(np.sum(masses)):.3g} kg moving (the URDF\'s parameters, not identified)')
    return 0
