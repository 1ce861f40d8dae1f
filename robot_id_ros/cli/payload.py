# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id payload: payload mass, centre of mass (tool frame) and, where excited, inertia.

The recording with the payload is static poses or a trajectory of any motion (--motion auto: the
sidecar's kind, else static when its holds cover most of it). Static poses: with --without (the
same poses recorded without the payload) the payload torque is the paired difference; otherwise
the model's static torque is subtracted. Trajectory: the model's torque (rigid body and friction,
the model identified without the payload) is subtracted along the run, processed as at
identification, and the payload's 10 parameters fitted; the inertia (about the centre of mass,
tool axes) is reported where the motion excites it. With --known-mass/--known-com and --without,
on bags whose effort is motor current, estimates the drive gains instead.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import yaml

from robot_id_ros.io.files import Outputs, yaml_output
from robot_id_ros.identify import (IdentificationOptions, prepare_trajectory, processing_options,
                                   static_poses)
from robot_id_ros.io.model_file import Payload, load_model
from robot_id_ros.identify.drive_gains import estimate_drive_gains
from robot_id_ros.identify.payload_outliers import OUTLIER_SIGMAS
from robot_id_ros.identify.payload import (identify_payload, payload_from_trajectory,
                                           recording_kind)
from robot_id_ros.identify.samples import split_at_gaps
from robot_id_ros.identify.trajectories import joined_trajectory
from robot_id_ros.io.sidecar import find_sidecar
from robot_id_ros.cli.common import CommandError, parse_floats, read_series
from robot_id_ros.cli.identify import add_bag_arguments, check_drive_gains

from robot_id_ros.cli.common import add_overwrite_argument, bag_inputs


def add_parser(subparsers):
    p = subparsers.add_parser('payload', help='payload mass, COM and inertia from static poses '
                              'or any motion', description=__doc__)
    p.add_argument('--model', required=True, metavar='MODEL.yaml',
                   help='model file (robot-id identify)')
    p.add_argument('--data', required=True, metavar='BAG',
                   help='recording with the payload: static poses or a trajectory')
    p.add_argument('--without', default=None, metavar='BAG',
                   help='static poses: the same poses held without the payload')
    p.add_argument('--motion', choices=('auto', 'static', 'trajectory'), default='auto',
                   help='how --data is used (default auto: its sidecar, else its holds)')
    p.add_argument('--inertia', choices=('auto', 'fit', 'none'), default='auto',
                   help='trajectory: fit the payload inertia where the motion excites it (auto), '
                   'always (fit) or treat the payload as a point mass (none)')
    p.add_argument('--out', required=True, metavar='PAYLOAD.yaml', help='file to write')
    add_bag_arguments(p)
    p.add_argument('--known-mass', type=float, default=None,
                   help='drive-gain mode: the known payload mass (kg)')
    p.add_argument('--known-com', default=None,
                   help='drive-gain mode: the known COM x,y,z in the tool frame (m)')
    p.add_argument('--json', action='store_true', help='print JSON')
    add_overwrite_argument(p, 'output file')
    return p


def _poses(path, model, args, opts):
    s = read_series(path, model.joint_names, args.topic, require_effort=True)
    return static_poses(s, opts, find_sidecar(path), model.robot)


def _estimate(model, args, opts):
    """Return the payload dict of a static or trajectory recording (``PayloadResult.to_dict``)."""
    s = read_series(args.data, model.joint_names, args.topic, require_effort=True)
    sidecar = find_sidecar(args.data)
    if args.motion == 'auto':
        kind, pw = recording_kind(s, opts, sidecar, model.robot)
    else:
        kind = args.motion
        pw = static_poses(s, opts, sidecar, model.robot) if kind == 'static' else None
    if kind == 'static':
        po = _poses(args.without, model, args, opts) if args.without else None
        d = identify_payload(model, pw, po).to_dict()
        d['notes'] = list(pw.notes) + (list(po.notes) if po is not None else [])
        return d
    if args.without:
        raise CommandError('--without is for static poses; --data is a trajectory (the model '
                           'identified without the payload is the reference)')
    # a run with pauses: each piece processed on its own, the fit over their rows
    pieces, gap_notes = split_at_gaps(s, 'trajectory')
    tr = joined_trajectory([prepare_trajectory(x, processing_options(model, opts), sidecar,
                                               model.robot) for x in pieces], gap_notes)
    d = payload_from_trajectory(model, tr, inertia=args.inertia).to_dict()
    d['notes'] = list(tr.notes)     # samples left out, gaps: never dropped silently
    if d['outlier_samples']:
        d['notes'].append(f'{d["outlier_samples"]} samples left out of the payload fit: a joint '
                          f'beyond {OUTLIER_SIGMAS:g} robust standard deviations of the fit (a '
                          'hard stop, a drive at its limit, a knock)')
    return d


def _print(d):
    """One line of mass and COM (and the inertia of a trajectory) with standard deviations."""
    what = (f'{d["samples"]} samples, trajectory' if d['method'] == 'trajectory'
            else f'{d["poses"]} poses, {d["method"]}')
    print(f'mass {d["mass_kg"]:.4g} +- {d["mass_std_kg"]:.2g} kg, COM (tool frame) ' +
          ', '.join(f'{c:.4g}' for c in d['com_m']) + ' m +- ' +
          ', '.join(f'{c:.2g}' for c in d['com_std_m']) + f' ({what})')
    if d['method'] == 'trajectory':
        inertia = d['inertia_com_kg_m2']
        std = d['inertia_com_std_kg_m2']
        text = d['inertia'] if d['inertia'] in ('not excited', 'not fitted') else ', '.join(
            f'{k} ' + ('not excited' if v is None else f'{v:.3g} +- {std[k]:.2g}')
            for k, v in inertia.items())
        print(f'inertia about the COM (tool axes, kg m^2): {text}')


# --overwrite replaces only an earlier payload (or drive-gain) result
PAYLOAD_OUTPUT = yaml_output('payload result', lambda d: {'mass_kg', 'com_m'} <= set(d)
                             or 'drive_gains_nm_per_a' in d)


def run(args) -> int:
    model = load_model(args.model)
    outputs = Outputs(inputs=[args.model] + bag_inputs(args.data, args.without),
                      overwrite=args.overwrite)
    out = outputs.check(args.out, PAYLOAD_OUTPUT)
    opts = IdentificationOptions()
    gains_mode = args.known_mass is not None
    if gains_mode:
        if args.without is None or args.known_com is None:
            raise CommandError(
                'drive-gain mode needs --without and --known-com as well as --known-mass')
        raw = IdentificationOptions()  # efforts as recorded (currents)
        pw, po = _poses(args.data, model, args, raw), _poses(args.without, model, args, raw)
        pl = Payload(args.known_mass, np.array(parse_floats(args.known_com, 3, '--known-com')))
        r = estimate_drive_gains(model.robot, pl, pw, po)
        d = {'drive_gains_nm_per_a': {n: (None if not np.isfinite(g) else float(g))
                                      for n, g in zip(model.joint_names, r.gains_nm_per_a)},
             'drive_gains_std': {n: (None if not np.isfinite(g) else float(g))
                                 for n, g in zip(model.joint_names, r.std)}, 'poses': r.poses}
    else:
        if args.effort_unit == 'current':
            opts.effort_unit = 'current'
            gains = (check_drive_gains(args.drive_gains_nm_per_a, model.n)
                     if args.drive_gains_nm_per_a else (
                         list(model.drive_gains_nm_per_a)
                         if model.drive_gains_nm_per_a is not None else None))
            if gains is None:
                raise CommandError(
                    '--effort-unit current needs drive gains (model or --drive-gains)')
            opts.drive_gains_nm_per_a = gains
        d = _estimate(model, args, opts)
    with outputs:
        Path(outputs.temp(out)).write_text(yaml.safe_dump(d, sort_keys=False))
    if args.json:
        print(json.dumps(d, indent=2))
    elif gains_mode:
        for n in model.joint_names:
            g, s = d['drive_gains_nm_per_a'][n], d['drive_gains_std'][n]
            print(f'{n:24s} ' +
                  ('not loaded by the payload' if g is None else f'{g:.4g} +- {s:.2g} Nm/A'))
    else:
        for note in d.get('notes', []):
            print(note)
        _print(d)
    return 0
