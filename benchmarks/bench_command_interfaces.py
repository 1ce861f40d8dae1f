# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo pipeline through each command interface, compared with 'trajectory' (issue 15).

Runs the demo (quick by default, ``--full`` for the full configuration) once per command
interface with the same seed: every recording stage (static poses, friction sweeps, both
excitation runs) moves the simulated youBot through that interface; identification, validation
and the force phase are the same code. Prints per interface

- identification: held-out in-motion RMSE over the noise floor, per joint;
- force: the live wrench_estimator node's force error RMS per axis (x, y, z, N), at rest and in
  motion (settled samples, as the demo's table), and the identified-model replay's |error| RMS;

and each figure's relative difference to 'trajectory', PASS when within 5 %.

    .venv/bin/python benchmarks/bench_command_interfaces.py [--full] [--seed N] [--out DIR]
        [--interfaces trajectory brics_position ...]

follow_joint_trajectory and brics_position need control_msgs and brics_actuator: the demo builds
them with tools/build_interfaces.py (cached in .cache/interfaces) when they are not installed.
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from robot_id_ros.demo import results as R
from robot_id_ros.demo.pipeline import COMMAND_INTERFACES, DemoConfig, run_demo
from robot_id_ros.demo.report import IDENTIFIED
from robot_id_ros.errors import RobotIdError

TOLERANCE = 0.05         # relative difference to 'trajectory' that passes
AXES = 'xyz'


def axis_rms(out_dir):
    """Return the live node's force error RMS per axis, at rest and in motion, N.

    From the director's log (force_script_log.json): settled samples only (``R.TRANSIENT_S``
    after each change of the applied force left out), as ``results.force_errors`` counts them.

    Returns:
        ``{'rest': [x, y, z], 'motion': [x, y, z]}``.
    """
    d = json.loads((Path(out_dir) / 'force_script_log.json').read_text())
    timeline = R.timeline_from_samples(d['true_t_s'], d['true_force_n'])
    t = np.asarray(d['est_t_s'], float)
    err = np.asarray(d['est_force_n'], float)[:, :3] - timeline.at(t)
    settled = timeline.settled_mask(t)
    out = {}
    for kind in ('rest', 'motion'):
        m = np.zeros(len(t), dtype=bool)
        for ph in d['phases']:
            if ph['kind'] == kind:
                m |= (t >= ph['t0_s']) & (t < ph['t1_s'])
        sel = m & settled
        out[kind] = np.sqrt(np.mean(err[sel] ** 2, axis=0)).tolist() if sel.any() else \
            [float('nan')] * 3
    return out


def figures(out_dir, res):
    """Return the compared figures of one run as ``{name: value}``."""
    idr = res['identification']
    fig = {f'ident in-motion RMSE/noise j{j + 1}': x
           for j, x in enumerate(idr['rmse_in_motion_over_noise'])}
    for kind, values in axis_rms(out_dir).items():
        fig.update({f'force RMS {kind} {a} (live) [N]': v for a, v in zip(AXES, values)})
    ident = res['force']['estimators'][IDENTIFIED]
    fig['force |err| RMS rest (replay) [N]'] = ident['rms_rest_n']
    fig['force |err| RMS motion (replay) [N]'] = ident['rms_motion_n']
    return fig


def compare(runs, reference='trajectory'):
    """Print the figures of every interface and their relative differences to ``reference``.

    Returns:
        True when every figure of every interface is within ``TOLERANCE`` of the reference's.
    """
    names = list(runs)
    ref = runs.get(reference)
    ok = ref is not None and all(r is not None for r in runs.values())
    print('| figure | ' + ' | '.join(names) + ' |')
    print('|---|' + '---|' * len(names))
    rows = next(r for r in runs.values() if r is not None).keys() if any(runs.values()) else []
    for key in rows:
        cells = []
        for name in names:
            r = runs[name]
            if r is None:
                cells.append('failed')
                continue
            cell = f'{r[key]:.3f}'
            if ref is not None and name != reference:
                rel = (r[key] - ref[key]) / ref[key]
                passed = abs(rel) <= TOLERANCE
                ok &= bool(passed)
                cell += f' ({100 * rel:+.1f} % {"pass" if passed else "FAIL"})'
            cells.append(cell)
        print(f'| {key} | ' + ' | '.join(cells) + ' |')
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=None)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--full', action='store_true', help='the full demo (default: --quick)')
    ap.add_argument('--interfaces', nargs='+', default=list(COMMAND_INTERFACES),
                    choices=COMMAND_INTERFACES)
    a = ap.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix='bench_command_interfaces_'))
    runs, walls = {}, {}
    for interface in a.interfaces:
        t0 = time.monotonic()
        run_dir = out / interface
        try:
            res = run_demo(DemoConfig(run_dir, quick=not a.full, seed=a.seed,
                                      command_interface=interface))
            runs[interface] = figures(run_dir, res)
        except RobotIdError as exc:      # a stage failed, or the director timed out
            print(f'{interface}: the demo failed: {exc}', flush=True)
            runs[interface] = None
        walls[interface] = time.monotonic() - t0
    print('\n==== bench_command_interfaces ====')
    ok = compare(runs)
    print('\nwall time ' + ', '.join(f'{k} {v:.0f} s' for k, v in walls.items()) +
          f' (seed {a.seed}, {"full" if a.full else "quick"}); runs in {out}')
    print(f'within {100 * TOLERANCE:g} % of trajectory: {"PASS" if ok else "FAIL"}')
    (out / 'bench_command_interfaces.json').write_text(json.dumps(runs, indent=1))
    print('reproduce: .venv/bin/python benchmarks/bench_command_interfaces.py' +
          (' --full' if a.full else '') + f' --seed {a.seed}' +
          ('' if a.interfaces == list(COMMAND_INTERFACES) else
           ' --interfaces ' + ' '.join(a.interfaces)))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
