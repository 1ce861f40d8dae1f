# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id validate: prediction error of a model file on held-out data (RMSE, relative errors)."""
from __future__ import annotations

import json

from robot_id_ros.identify import IdentificationOptions, validate
from robot_id_ros.io.model_file import load_model
from robot_id_ros.io.sidecar import find_sidecar
from robot_id_ros.cli.common import Progress, read_series
from robot_id_ros.cli.identify import add_bag_arguments, check_drive_gains

from robot_id_ros.io.files import PLOT_OUTPUT, Outputs
from robot_id_ros.cli.common import CommandError, add_overwrite_argument, bag_inputs


def add_parser(subparsers):
    p = subparsers.add_parser('validate', help='prediction error of a model on held-out data',
                              description=__doc__)
    p.add_argument('--model', required=True, metavar='MODEL.yaml',
                   help='model file (robot-id identify)')
    p.add_argument('--data', required=True, metavar='BAG', help='held-out bag')
    add_bag_arguments(p)
    p.add_argument('--filter-hz', type=float, default=None,
                   help="low-pass (zero phase) of the measured effort for relative_error_filtered "
                        "(default: the identification's torque cut-off)")
    p.add_argument('--min-velocity', type=float, default=None, metavar='RAD_S',
                   help='also report the RMSE "in motion": joint j\'s samples with |qd_j| >= this '
                        '(default: the threshold the model was identified with, if any; 0: none)')
    p.add_argument(
        '--min-velocity-scope', choices=('joint', 'all'), default=None,
        help="in-motion rows: 'joint' (the joint's own velocity) or 'all' (every joint's); "
        'default: as identified')
    p.add_argument(
        '--min-velocity-margin', type=float, default=None, metavar='S',
        help='also leave out samples within this time of a slower one (default: as identified)')
    p.add_argument('--report', default=None, metavar='DIR',
                   help='write a plot of measured vs predicted torque here')
    p.add_argument('--json', action='store_true', help='print JSON')
    add_overwrite_argument(p, 'plot in --report')
    return p


VALIDATION_PLOT = 'validation.png'   # in --report DIR


def run(args) -> int:
    """Run ``robot-id validate``; every error is raised (main prints it in one line)."""
    model = load_model(args.model)
    outputs = Outputs(inputs=[args.model] + bag_inputs(args.data), overwrite=args.overwrite)
    if args.report:
        outputs.check_folder(args.report, [VALIDATION_PLOT], PLOT_OUTPUT)
    series = read_series(args.data, model.joint_names, args.topic, require_effort=True,
                         progress=Progress('reading'))
    base = IdentificationOptions()
    # the effort flags given override the model's own, even at their core default (a model
    # identified from currents validated on a torque recording: --effort-unit torque)
    given = {k for k in ('effort_unit', 'drive_gains_nm_per_a') if getattr(args, k)}
    if args.effort_unit:
        base.effort_unit = args.effort_unit
    if args.drive_gains_nm_per_a:
        base.drive_gains_nm_per_a = check_drive_gains(args.drive_gains_nm_per_a, model.n)
    if base.effort_unit == 'current' and base.drive_gains_nm_per_a is None:
        if model.drive_gains_nm_per_a is None:
            raise CommandError('--effort-unit current needs drive gains: the model has none, give '
                               '--drive-gains')
        base.drive_gains_nm_per_a = list(model.drive_gains_nm_per_a)
    v = validate(model, series, base, find_sidecar(args.data), args.filter_hz, args.min_velocity,
                 args.min_velocity_scope, args.min_velocity_margin, given)
    m = v.metrics
    if args.report:
        from robot_id_ros.identify.report import plot_torques
        with outputs:
            plot_torques(outputs.temp(args.report, merge=True) / VALIDATION_PLOT, v.recorded_t_s,
                         v.recorded_tau, v.recorded_predicted, list(model.joint_names),
                         f'validation: {args.data}')
    if args.json:
        print(json.dumps(m, indent=2))
        return 0
    for note in v.trajectory.notes:
        print(note)
    print(f'{m["samples"]} recorded samples compared ({m["derivative_method"]} derivatives, '
          f'effort as {m["effort_unit"]})')
    print(
        f'relative error {100 * m["relative_error"]:.4g} % as recorded, '
        f'{100 * m["relative_error_filtered"]:.4g} % '
        f'against the effort low-passed at {m["filter_hz"]:g} Hz')
    for nm, r, e in zip(m['joint_names'], m['rmse_nm'], m['per_joint_relative_error']):
        print(f'  {nm:24s} RMSE {r:.4g} Nm  relative {100 * e:.3g} %')
    if 'rmse_in_motion_nm' in m:
        print(
            f'in motion (joint rows with |qd| >= {m["min_velocity_rad_s"]:g} rad/s, '
            f'scope {m["min_velocity_scope"]}, margin {m["min_velocity_margin_s"]:g} s): '
            f'relative error {100 * m["relative_error_in_motion"]:.4g} %')
        for nm, r, fr in zip(m['joint_names'], m['rmse_in_motion_nm'], m['in_motion_fraction']):
            print(f'  {nm:24s} RMSE {r:.4g} Nm  over {100 * fr:.3g} % of the samples')
    return 0
