# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id estimate: offline external wrench estimation over a bag.

It writes /wrench, /external_joint_torques and /contact (and with --wrench-std /wrench_std) into
a new bag, each message stamped with its input sample's stamp. Optionally a CSV and a PNG plot of
the wrench.

Sign convention: /wrench is the wrench that the environment applies to the robot, acting at the
tool frame's origin (a push on the tool along +x reads +fx), in the base (URDF root) or tool
frame's axes (--frame); /external_joint_torques are model torque minus measured torque, J^T
times that wrench.

Joint states without velocity (a driver that publishes none) get it from their positions by
the wrench_estimator node's causal rule (docs/workflows.md), so a replay matches the node.

Defaults come from the model file: the friction near zero velocity follows the law it states
(smooth sign and Stribeck term; --friction-sign exact for drives that stick), and the stiction
band from its friction and residual std. --params-file config/wrench_estimator.yaml gives the
youBot's tuned values.

--out x.mcap (or x.db3) writes the single bag file x.mcap, any other name a bag folder (MCAP).
Every output is written under a temporary name and renamed when complete; the bag, the CSV and
the plot land together or not at all. The bag is marked in its metadata (custom_data
robot_id_ros.written_by: robot-id estimate); --overwrite replaces only a bag with that mark
(never a recording or any other bag), a wrench CSV or a plot image, never an input.
"""
from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

import numpy as np

from robot_id_ros.io.bag_marks import mark, marked_bag_output
from robot_id_ros.io.bags import BagWriter
from robot_id_ros.estimate import CONTACT_STATE_NAMES
from robot_id_ros.estimate.friction_change import friction_notes
from robot_id_ros.estimate.rejections import rejection_summary
from robot_id_ros.io.model_file import load_model
from robot_id_ros.io.files import PLOT_OUTPUT, Outputs, text_output
from robot_id_ros.cli.common import (CommandError, Progress, add_overwrite_argument,
                                     bag_inputs, check_plot_name, parse_floats)
from robot_id_ros.cli.estimator_input import (add_estimator_arguments, build_estimator,
                                              estimate_bag)


def add_parser(subparsers):
    p = subparsers.add_parser('estimate',
                              help='offline wrench estimation over a bag (bag in, bag out)',
                              description=__doc__)
    p.add_argument('--out', required=True,
                   help='output bag: a name ending in .mcap (or .db3) is a single bag file, any '
                        'other a bag folder (MCAP); a new path')
    p.add_argument('--calibration', default=None, metavar='YAML',
                   help='residual statistics learnt on contact-free data (robot-id calibrate) '
                        'for this model and these settings (default: the model file\'s)')
    p.add_argument('--tare-at', type=float, default=None, metavar='S',
                   help='tare (zero the current bias) S seconds after the first sample')
    p.add_argument('--payload-mass', type=float, default=None,
                   help='payload mass in kg (overrides the model)')
    p.add_argument('--payload-com', default=None, help='payload COM x,y,z in m in the tool frame')
    p.add_argument('--csv', default=None,
                   help='also write a CSV: stamp, wrench, std, contact, tau_ext')
    p.add_argument('--plot', default=None, help='also write a PNG plot of the wrench')
    p.add_argument('--wrench-std', action='store_true',
                   help='also write /wrench_std (1-sigma of each wrench component, WrenchStamped)')
    add_overwrite_argument(p, 'output bag written by robot-id estimate, CSV or plot')
    add_estimator_arguments(p, 'estimator settings (default: --params-file, else the core '
                            'defaults; --wrench, --filter-hz and --stiction-velocity are the '
                            'former names of three of them)')
    return p


def run(args) -> int:
    """Run ``robot-id estimate``; every error is raised.

    ``robot-id``'s main prints the package's errors (bad input, a failed step) in one line on
    stderr; any other exception is a bug and shows its traceback.
    """
    model = load_model(args.model)
    names = list(model.joint_names)
    if args.payload_mass is not None or args.payload_com is not None:
        mass = args.payload_mass if args.payload_mass is not None else (
            model.payload.mass_kg if model.payload else 0)
        com = np.array(parse_floats(args.payload_com, 3, '--payload-com')) if args.payload_com \
            else (model.payload.com_m if model.payload else np.zeros(3))
    outputs = Outputs(inputs=[args.model, args.params_file, args.calibration]
                      + bag_inputs(args.data), overwrite=args.overwrite)
    out = outputs.check(args.out, ESTIMATE_BAG)
    for path, kind in ((args.csv, CSV_OUTPUT), (args.plot, PLOT_OUTPUT)):
        if path:
            outputs.check(path, kind)
    check_plot_name(args.plot, '--plot')
    est = build_estimator(args, model, args.calibration)
    config = est.config
    if est.statistics.fallback or args.calibration:
        print(f'note: residual statistics: {est.statistics.source}', file=sys.stderr)
    if args.payload_mass is not None or args.payload_com is not None:
        est.set_payload(mass, com)
    t1 = time.monotonic()
    run = estimate_bag(args, est, args.tare_at)
    series, res = run.series, run.result
    t_est = time.monotonic() - t1
    check_rejected(args.data, res, len(series))
    t2 = time.monotonic()
    N = len(res.stamp_ns)
    with outputs:
        with BagWriter(out, outputs=outputs, custom_data=mark(COMMAND)) as bw:
            write_wrench_bag(bw, res, names, series.q[res.index], args.wrench_std)
        if args.csv:
            write_csv(outputs.temp(args.csv), res, names)
        if args.plot:
            plot_wrench(outputs.temp(args.plot), res)
    t_write = time.monotonic() - t2
    skipped = len(series.skipped) + len(res.rejected)
    n_contact = int(np.count_nonzero(res.contact_state))
    print(
        f'{N} samples -> {out} ({config.method}, frame {res.frame_id}, '
        f'wrench {est.mapper.mapping.label}); '
        f'{skipped} input samples skipped, {len(res.resets)} resets, '
        f'contact in {n_contact} samples'
    )
    print(
        f'time: read and estimate {t_est:.2f} s '
        f'({N / max(t_est, 1e-9):.0f} samples/s), write {t_write:.2f} s')
    for k, reason in (series.skipped + res.rejected)[:5]:
        print(f'  skipped sample {k}: {reason}')
    for k, reason in res.resets[:5]:
        print(f'  reset at sample {k}: {reason}')
    for line in friction_notes(est, res, run.qd[res.index]):
        print(f'note: {line}', file=sys.stderr)
    return 0


def check_rejected(data, res, total):
    """Refuse in one line a bag whose every sample was rejected; warn when most were.

    Args:
        data: the input bag, for the message.
        res: the estimator's ``process`` result.
        total: how many joint states it was given.
    """
    summary = rejection_summary(res.rejected, total)
    if len(res.stamp_ns) == 0:
        raise CommandError(f'{data}: {summary or "no joint state could be used"}')
    if 2 * len(res.rejected) > total:
        print(f'warning: {data}: {summary}', file=sys.stderr)


def write_wrench_bag(bw, res, names, q, wrench_std=False):
    """Write the estimate into an open bag.

    Topics /wrench, /external_joint_torques, /contact and (with ``wrench_std``) /wrench_std, one
    message per sample stamped with its input stamp.

    Args:
        bw: an open BagWriter.
        res: the estimator's ``process`` result.
        names: the model's joint names.
        q: (N, n) joint positions in rad of the estimated samples (for the JointState).
        wrench_std: also write /wrench_std.
    """
    prog = Progress('writing')
    N = len(res.stamp_ns)
    # serialise each topic for all samples at once (byte-identical to rosbags' serialiser),
    # then write in the same interleaved order as one message at a time
    S = res.stamp_ns
    raw_w = bw.cdr_wrench_stamped(S, res.frame_id, res.wrench)
    raw_sd = bw.cdr_wrench_stamped(S, res.frame_id, res.wrench_std) if wrench_std else None
    raw_tau = bw.cdr_joint_state(S, names, q, np.zeros((N, len(names))), res.tau_ext)
    raw_c = (bw.cdr_bool(False), bw.cdr_bool(True))
    contact = (res.contact_state != 0).tolist()
    stamps = S.tolist()
    wr = bw.write_raw
    T_W, T_J = 'geometry_msgs/msg/WrenchStamped', 'sensor_msgs/msg/JointState'
    T_B = 'std_msgs/msg/Bool'
    for k in range(N):
        s = stamps[k]
        wr('/wrench', T_W, s, raw_w[k])
        if raw_sd is not None:
            wr('/wrench_std', T_W, s, raw_sd[k])
        wr('/external_joint_torques', T_J, s, raw_tau[k])
        wr('/contact', T_B, s, raw_c[contact[k]])
        if k % 5000 == 0:
            prog(k, N)
    prog(N, N)


COMMAND = 'robot-id estimate'
# --overwrite replaces only a bag this command wrote (its mark), never a recording
ESTIMATE_BAG = marked_bag_output(COMMAND, 'choose another --out')
CSV_HEADER = ('stamp_ns', 'fx', 'fy', 'fz', 'mx', 'my', 'mz', 'fx_std', 'fy_std', 'fz_std',
              'mx_std', 'my_std', 'mz_std', 'contact', 'sigma_min')
# --overwrite replaces only an earlier wrench CSV
CSV_OUTPUT = text_output('wrench CSV', lambda line: line.startswith(','.join(CSV_HEADER)))


def write_csv(path, res, names):
    with open(path, 'w', newline='') as fh:
        w = csv.writer(fh)
        w.writerow(list(CSV_HEADER) + [f'tau_ext_{n}' for n in names])
        for k in range(len(res.stamp_ns)):
            w.writerow([int(res.stamp_ns[k])] + [f'{x:.6g}' for x in res.wrench[k]] +
                       [f'{x:.6g}' for x in res.wrench_std[k]] +
                       [CONTACT_STATE_NAMES[res.contact_state[k]], f'{res.sigma_min[k]:.6g}'] +
                       [f'{x:.6g}' for x in res.tau_ext[k]])


def plot_wrench(path, res):
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    t = (res.stamp_ns - res.stamp_ns[0]) * 1e-9
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(10, 8))
    for i, lab in enumerate(('fx', 'fy', 'fz')):
        axes[0].plot(t, res.wrench[:, i], label=lab)
        axes[0].fill_between(t, res.wrench[:, i] - res.wrench_std[:, i],
                             res.wrench[:, i] + res.wrench_std[:, i], alpha=0.15)
    axes[0].set_ylabel(f'force (N), {res.frame_id}')
    axes[0].legend(loc='upper right')
    for i, lab in enumerate(('mx', 'my', 'mz')):
        axes[1].plot(t, res.wrench[:, 3 + i], label=lab)
    axes[1].set_ylabel('moment (Nm)')
    axes[1].legend(loc='upper right')
    axes[2].plot(t, res.contact_state, drawstyle='steps-post')
    axes[2].set_yticks([0, 1, 2], CONTACT_STATE_NAMES)
    axes[2].set_xlabel('time (s)')
    fig.suptitle('estimated external wrench at the tool (band: 1 std)')
    fig.tight_layout()
    fig.savefig(path, dpi=100, format=Path(path).suffix[1:].lower() or 'png')
    plt.close(fig)
