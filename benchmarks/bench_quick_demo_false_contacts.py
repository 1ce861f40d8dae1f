# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""False contacts of the quick demo, run after run: `robot-id demo --quick` N times in a row.

The demo's recordings differ from run to run (the simulator runs against the wall clock), and so
do the identified models. Each run prints the false contact samples in its contact-free motion
(the demo's figure: the core replayed with the identified model, the live node, the true
parameters with the same thresholds), its contact delays, and how far the identified friction
at zero speed (Coulomb + Stribeck amplitude, per direction) is from the simulator's, the
largest over the joints and directions in units of the joint's residual std (the contact test's
unit; its threshold is config/wrench_estimator.yaml's contact_threshold_sigma). Then the counts
of every run and the command that reproduces one.

    .venv/bin/python benchmarks/bench_quick_demo_false_contacts.py [--runs 10] [--seed 7]
        [--out DIR]

One demo at a time (each starts the simulator and the nodes as processes): about 3 minutes each
on an idle 2-core machine. Run k is on ROS domain 221 + (k - 1) mod 12 (``--first-domain-id``),
above the domains the test suite (1-200), the other benchmarks (up to 220) and the demo's default
(120-219) take: a test suite running beside it must not publish joint states into a run.
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from robot_id_ros.demo.report import IDENTIFIED, LIVE, TRUTH
from robot_id_ros.io.model_file import load_model

ROOT = Path(__file__).resolve().parents[1]
# the ROS domains of the runs: 221-232, the top of the range ROS 2 allows
FIRST_DOMAIN_ID, DOMAIN_IDS = 221, 12


def zero_speed_friction_error(run_dir):
    """Return the identified friction at zero speed minus the simulator's, over residual std.

    Per joint and direction (n, 2): Coulomb + Stribeck amplitude (+- offset) of the model file
    against the simulator's breakaway torque (true_parameters.yaml), divided by the model's
    residual std.
    """
    model = load_model(Path(run_dir) / 'youbot_model.yaml')
    truth = yaml.safe_load((Path(run_dir) / 'truth' / 'true_parameters.yaml').read_text())
    f = model.friction
    true_pos = np.array([truth['friction'][n]['breakaway_pos_nm'] for n in model.joint_names])
    true_neg = np.array([truth['friction'][n]['breakaway_neg_nm'] for n in model.joint_names])
    pos = f.coulomb_pos_nm + f.stribeck_nm + f.offset_nm
    neg = f.coulomb_neg_nm + f.stribeck_nm - f.offset_nm
    return np.stack([pos - true_pos, neg - true_neg], axis=1) / model.residual_std_nm[:, None]


def run_once(run_dir, seed, domain_id):
    """Run one quick demo into ``run_dir``; return (results.json or None, wall s, command)."""
    cmd = [sys.executable, '-m', 'robot_id_ros.cli', 'demo', '--quick', '--seed', str(seed),
           '--out', str(run_dir), '--domain-id', str(domain_id)]
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    (Path(run_dir).parent / f'{Path(run_dir).name}.log').write_text(r.stdout + r.stderr)
    shown = f'robot-id demo --quick --seed {seed} --out {run_dir} --domain-id {domain_id}'
    if r.returncode != 0:
        print(f'  demo failed (exit {r.returncode}): {(r.stdout + r.stderr).strip()[-400:]}')
        return None, wall, shown
    return json.loads((Path(run_dir) / 'results.json').read_text()), wall, shown


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--runs', type=int, default=10, help='quick demos in a row (default 10)')
    ap.add_argument('--seed', type=int, default=7, help="the simulated youBot's seed (the "
                    "demo's default 7)")
    ap.add_argument('--out', default=None, help='folder of the runs (default: a new temporary '
                    'one); run_K/ holds each demo\'s report, bags and model')
    ap.add_argument('--first-domain-id', type=int, default=FIRST_DOMAIN_ID,
                    help=f'ROS domain of the first run; run k takes the k-th of {DOMAIN_IDS} from '
                    f'it (default {FIRST_DOMAIN_ID})')
    a = ap.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix='bench_quick_demo_false_contacts_'))
    out.mkdir(parents=True, exist_ok=True)
    print(f'{a.runs} quick demos of seed {a.seed}, one at a time, into {out}')
    print(f'{"run":>4} {"identified":>10} {"live node":>9} {"truth":>5} '
          f'{"delays [ms]":>12} {"friction at rest, worst [std]":>29} {"wall [s]":>8}')
    counts, commands = [], []
    for k in range(1, a.runs + 1):
        run_dir = out / f'run_{k:02d}'
        domain = a.first_domain_id + (k - 1) % DOMAIN_IDS
        res, wall, shown = run_once(run_dir, a.seed, domain)
        commands.append(shown)
        if res is None:
            counts.append(None)
            print(f'{k:>4} {"failed":>10}{"":>66} {wall:8.0f}')
            continue
        est = res['force']['estimators']
        ident, live, truth = (est[name]['false_contact_samples'] for name in
                              (IDENTIFIED, LIVE, TRUTH))
        delays = ', '.join(f'{1000 * d:.0f}' for d in est[IDENTIFIED]['detection_delay_s'])
        err = zero_speed_friction_error(run_dir)
        j, d = np.unravel_index(np.argmax(np.abs(err)), err.shape)
        worst = f'{err[j, d]:+.2f} (J{j + 1} {"+-"[d]})'
        counts.append(ident)
        print(f'{k:>4} {ident:>10} {live:>9} {truth:>5} {delays:>12} {worst:>29} {wall:8.0f}',
              flush=True)
    done = [c for c in counts if c is not None]
    print('\n==== bench_quick_demo_false_contacts ====')
    print('false contact samples in contact-free motion (identified model, per run): '
          + ', '.join('failed' if c is None else str(c) for c in counts))
    print(f'runs with none: {sum(c == 0 for c in done)} of {len(counts)} '
          f'({len(counts) - len(done)} failed)')
    print(f'reproduce one run: {commands[-1]}')
    print(f'reproduce: .venv/bin/python benchmarks/bench_quick_demo_false_contacts.py '
          f'--runs {a.runs} --seed {a.seed}')
    return 0 if len(done) == len(counts) else 1


if __name__ == '__main__':
    sys.exit(main())
