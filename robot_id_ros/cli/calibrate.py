# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id calibrate: the estimator's residual statistics from a contact-free stretch of a bag.

A model without residual statistics (robot-id model, from a URDF) runs on fallback statistics;
another robot of the same type or a new payload makes a model's statistics wrong. This command
runs the estimator as robot-id estimate would (same model, settings and flags) over the bag and
learns, on the stretch --stretch S0,S1 (seconds from the bag's first joint state) that you
declare free of contact, each joint's mean external torque (subtracted from then on, as a tare),
its spread, and how the spread grows with the torque the model predicts and with the joint's
speed. The file it writes is given to robot-id estimate --calibration, or to the
wrench_estimator node as calibration_file. The stretch is refused when it looks like it holds a
contact (its external torque beyond the contact threshold on more than 1 % of it, or a mean
beyond the threshold the estimator has without calibration): calibrating on a push would raise
the thresholds and hide contacts.
"""
from __future__ import annotations


from robot_id_ros.cli.common import (CommandError, add_overwrite_argument, bag_inputs,
                                     parse_floats)
from robot_id_ros.cli.estimator_input import (add_estimator_arguments, build_estimator,
                                              estimate_bag)
from robot_id_ros.estimate.calibration import calibrate_estimator
from robot_id_ros.io.calibration_file import CALIBRATION_OUTPUT
from robot_id_ros.io.files import Outputs
from robot_id_ros.io.model_file import load_model


def add_parser(subparsers):
    p = subparsers.add_parser('calibrate', help='residual statistics from a contact-free stretch',
                              description=__doc__)
    p.add_argument('--stretch', required=True, metavar='S0,S1',
                   help='the contact-free stretch: seconds from the bag\'s first joint state')
    p.add_argument('--out', required=True, help='the calibration file to write (YAML)')
    add_overwrite_argument(p, 'calibration file')
    add_estimator_arguments(p, 'estimator settings: the same as robot-id estimate will run '
                            '(default: --params-file, else the core defaults)')
    return p


def run(args) -> int:
    """Run ``robot-id calibrate``; every error is raised."""
    s0, s1 = parse_floats(args.stretch, 2, '--stretch')
    if not 0.0 <= s0 < s1:
        raise CommandError(f'--stretch {args.stretch}: give S0,S1 with 0 <= S0 < S1 (seconds '
                           'from the first joint state)')
    model = load_model(args.model)
    outputs = Outputs(inputs=[args.model, args.params_file] + bag_inputs(args.data),
                      overwrite=args.overwrite)
    out = outputs.check(args.out, CALIBRATION_OUTPUT)
    est = build_estimator(args, model)
    run_ = estimate_bag(args, est)
    res, stamps = run_.result, run_.result.stamp_ns
    t = (stamps - run_.series.stamp_ns[0]) * 1e-9
    inside = (t >= s0) & (t <= s1)
    if t[-1] < s1:
        raise CommandError(f'--stretch {args.stretch}: the bag holds {t[-1]:.2f} s of joint '
                           'states; give a stretch within it')
    k = res.index[inside]
    cal = calibrate_estimator(est, stamps[inside], res.tau_ext[inside],
                              res.tau_ext[inside] + run_.torque[k], run_.qd[k],
                              f'{args.data} {s0:g}-{s1:g} s')
    with outputs:
        cal.save(outputs.temp(out))
    print(f'wrote {out}: {cal.samples} samples over {cal.duration_s:.2f} s; {cal.describe()}')
    for note in cal.notes:
        print(f'note: {note}')
    k_sigma = est.config.contact_threshold_sigma
    before, after = k_sigma * est.statistics.std_nm, k_sigma * cal.std_nm
    print('contact thresholds at rest (Nm): ' + ', '.join(
        f'{n} {a:.3f} (was {b:.3f}, {est.statistics.source.split(":")[0]})'
        for n, a, b in zip(model.joint_names, after, before)))
    return 0
