# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id identify: fit the dynamic model from recorded bags; write the model file and a report.

Trajectories (--data) give the full dynamic model (base parameters, friction, intervals); static
poses (--static) the gravity model (alone, or reported next to the dynamic fit); friction sweeps
(--sweeps) the friction curves. Nothing is written unless the fit succeeds.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from robot_id_ros.identify import IdentificationOptions, identify, validate
from robot_id_ros.identify.samples import split_at_gaps
from robot_id_ros.identify.selection import SEARCHED
from robot_id_ros.io.sidecar import find_sidecar
from robot_id_ros.cli.common import (CommandError, Progress, add_robot_arguments,
                                     add_setting_flags, parse_floats, read_series,
                                     robot_from_args, settings_from_args)

# outputs: checked first, written together
from robot_id_ros.io.files import PLOT_OUTPUT, OutputKind, Outputs, file_head, text_output
from robot_id_ros.cli.common import MODEL_OUTPUT, add_overwrite_argument, bag_inputs

REPORT_FILE = 'report.md'   # the report's main file in --report DIR
# --overwrite replaces only an earlier report (and its plots) and an exported URDF
REPORT_OUTPUT = text_output('identification report',
                            lambda line: line == '# Identification report')
URDF_OUTPUT = OutputKind('URDF', lambda p: b'<robot' in file_head(p))


def add_bag_arguments(p, effort=True):
    """--topic, and with ``effort`` the effort settings --effort-unit and --drive-gains.

    The effort flags are generated from their ``IdentificationOptions`` declarations.
    """
    p.add_argument('--topic', default='/joint_states',
                   help='JointState topic (default /joint_states, or the bag\'s only '
                        'namespaced one, e.g. /arm/joint_states)')
    if effort:
        add_setting_flags(p, IdentificationOptions, 'effort',
                          names=('effort_unit', 'drive_gains_nm_per_a'))


def check_drive_gains(gains, n):
    """Raise CommandError unless ``gains`` (from --drive-gains, or None) holds ``n`` values.

    Returns:
        The gains as a list of floats in Nm/A, or None when none were given.
    """
    if gains is None:
        return None
    if len(gains) != n:
        raise CommandError(f'--drive-gains needs {n} values, got {len(gains)}')
    return [float(g) for g in gains]


def read_bags(paths, joint_names, topic, label, split=False):
    """Return [(series, sidecar)] of the bags; ``split``: runs cut at their long gaps."""
    out = []
    for p in paths or []:
        prog = Progress(f'reading {Path(p).name}')
        s = read_series(p, joint_names, topic, require_effort=True,
                        progress=lambda k, total: prog(k, total) if k else None)
        sc = find_sidecar(p)
        pieces, lines = split_at_gaps(s) if split else ([s], [])
        for line in lines:
            print(f'note: {line}', file=sys.stderr)
        out += [(x, sc) for x in pieces]
    return out


def add_parser(subparsers):
    p = subparsers.add_parser('identify',
                              help='identify the dynamic model from bags; writes the model file',
                              description=__doc__)
    add_robot_arguments(p)
    p.add_argument('--data', nargs='+', default=[], metavar='BAG',
                   help='excitation trajectory bag(s)')
    p.add_argument('--static', nargs='+', default=[], metavar='BAG', help='static pose bag(s)')
    p.add_argument('--sweeps', nargs='+', default=[], metavar='BAG',
                   help='friction sweep bag(s) (with sidecar)')
    p.add_argument('--out', required=True, metavar='MODEL.yaml', help='model file to write')
    p.add_argument('--report', default=None, metavar='DIR',
                   help='write report.md and PNG plots here')
    p.add_argument('--validate', nargs='+', default=[], metavar='BAG',
                   help='held-out bag(s) for the report')
    add_bag_arguments(p, effort=False)
    p.add_argument(
        '--known', action='append', default=[], metavar='NAME=VALUE',
        help='a known standard parameter (e.g. m5=0.25), subtracted before the fit; repeatable')
    p.add_argument(
        '--gains-payload-data', nargs='+', default=[], metavar='BAG',
        help='with --effort-unit current and no --drive-gains: run(s) of the same kind with a '
             'payload of known mass and COM (--gains-payload); they fix the drive gains scale')
    p.add_argument(
        '--gains-payload', default=None, metavar='KG,X,Y,Z',
        help='the known payload of --gains-payload-data: mass (kg), COM in the tool frame (m)')
    p.add_argument(
        '--export-urdf', default=None, metavar='URDF',
        help='with --physical-consistency: write a URDF carrying the identified inertias')
    add_setting_flags(p, IdentificationOptions, 'fit options (a processing option not given is '
                      'chosen from the training data by cross-validation; a flag fixes it)')
    p.add_argument('--json', action='store_true', help='print the summary as JSON')
    add_overwrite_argument(p, 'model file, exported URDF or report files (a model file only by '
                              'a model file)')
    return p


def options_from_args(args, n) -> IdentificationOptions:
    """Return the fit options of ``robot-id identify``: the setting flags given and --known.

    Args:
        args: the parsed arguments.
        n: number of joints (the count --drive-gains must give).

    Returns:
        The options, checked; a bad value is a CommandError naming the setting.
    """
    known = {}
    for kv in args.known:
        if '=' not in kv:
            raise CommandError(f'--known takes NAME=VALUE, got {kv!r}')
        k, v = kv.split('=', 1)
        known[k.strip()] = parse_floats(v, 1, f'--known {k}')[0]
    check_drive_gains(args.drive_gains_nm_per_a, n)
    return settings_from_args(args, IdentificationOptions, {'known_parameters': known})


def _drive_gain_runs(args, robot):
    """(series, sidecar, Payload) of --gains-payload-data with --gains-payload."""
    if bool(args.gains_payload_data) != bool(args.gains_payload):
        raise CommandError('--gains-payload-data and --gains-payload go together')
    if not args.gains_payload:
        return []
    if args.effort_unit != 'current' or args.drive_gains_nm_per_a:
        raise CommandError('--gains-payload-data is for --effort-unit current without '
                           '--drive-gains (it fixes the identified gains\' scale)')
    from robot_id_ros.io.model_file import Payload
    v = parse_floats(args.gains_payload, 4, '--gains-payload')
    if not v[0] > 0:
        raise CommandError(f'--gains-payload: the mass must be > 0 kg, got {v[0]:g}')
    pl = Payload(v[0], np.array(v[1:]))
    runs = read_bags(args.gains_payload_data, robot.joint_names, args.topic, 'gains payload',
                     split=True)
    return [(s, sc, pl) for s, sc in runs]


def _check_outputs(args):
    """Return the outputs of identify, checked before any work (``io.files.Outputs``)."""
    outputs = Outputs(inputs=[args.urdf] + bag_inputs(args.data, args.static, args.sweeps,
                                                      args.validate, args.gains_payload_data),
                      overwrite=args.overwrite)
    outputs.check(args.out, MODEL_OUTPUT)
    if args.export_urdf:
        outputs.check(args.export_urdf, URDF_OUTPUT)
    if args.report:
        outputs.check_folder(args.report, [REPORT_FILE], REPORT_OUTPUT, other=PLOT_OUTPUT)
    return outputs


def _write_outputs(args, outputs, res, vals):
    """Write the model, the exported URDF and the report: all land together or none does."""
    with outputs:
        res.model.save(outputs.temp(args.out))
        if args.export_urdf:
            from robot_id_ros.model.urdf_export import export_urdf
            export_urdf(res.model.robot, res.model.parameters, outputs.temp(args.export_urdf))
        if args.report:
            from robot_id_ros.identify.report import write_report
            write_report(res, outputs.temp(args.report, merge=True), vals)


def run(args) -> int:
    """Run ``robot-id identify``; every error is raised (main prints it in one line)."""
    if not args.data and not args.static:
        raise CommandError('give --data (trajectories) and/or --static (static poses)')
    if args.export_urdf and not args.physical_consistency:
        raise CommandError(
            '--export-urdf needs --physical-consistency (a URDF must hold valid inertias)')
    outputs = _check_outputs(args)
    out = Path(args.out)
    robot = robot_from_args(args)
    opts = options_from_args(args, robot.n)
    data = read_bags(args.data, robot.joint_names, args.topic, 'data', split=True)
    gain_runs = _drive_gain_runs(args, robot)
    static = read_bags(args.static, robot.joint_names, args.topic, 'static')
    sweeps = read_bags(args.sweeps, robot.joint_names, args.topic, 'sweeps')
    # a processing flag given fixes that option; the others are chosen from the data
    given = [k for k in SEARCHED if getattr(args, k, None) is not None]
    res = identify(robot, data, static, sweeps, options=opts, progress=Progress('regressor'),
                   drive_gain_runs=gain_runs, given=given)
    vals = []
    for p in args.validate:
        s, sc = read_bags([p], robot.joint_names, args.topic, 'validate')[0]
        v = validate(res.model, s, opts, sc)
        vals.append(v)
    if vals:
        res.model.validation = {'held_out': [{k: v for k, v in x.metrics.items()} for x in vals]}
    _write_outputs(args, outputs, res, vals)
    if args.json:
        print(
            json.dumps(
                {
                    'model': str(out),
                    'summary': res.summary_lines,
                    'identification': {
                        k: v
                        for k, v in res.model.identification.items() if k != 'options'
                    },
                    'validation': [x.metrics for x in vals]
                }, indent=2, default=float))
    else:
        print(res.summary())
        for x in vals:
            m = x.metrics
            print(
                f'validation {m["source"]}: relative error {100 * m["relative_error"]:.4g} % '
                f'(filtered at {m["filter_hz"]:g} Hz: '
                f'{100 * m["relative_error_filtered"]:.4g} %), RMSE '
                + ', '.join(f'{e:.4g}' for e in m['rmse_nm']) + ' Nm')
        print(f'model written to {out}' +
              (f'; report in {args.report}/report.md' if args.report else ''))
    return 0
