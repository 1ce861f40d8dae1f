# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Calibration of the published force sigma, replayed offline on recorded demo outputs.

Takes one or more folders written by ``robot-id demo`` (its ``bags/force_phase``,
``force_script_log.json``, ``youbot_model.yaml`` and ``truth/true_parameters.yaml``), replays
the force phase's joint states through the estimator core's ``update`` (the node's path) with the
demo's estimator settings (config/wrench_estimator.yaml, the youBot's) and the node's tares, as
the demo's report does (``demo.report.replay_force_phase``), and prints per phase and axis
x, y, z the 2-sigma coverage, the RMS and the 99th percentile of |error| / sigma, against the
targets (coverage >= 0.90, RMS 0.7-1.3, p99 <= 3.5). A folder takes seconds, not a demo
run, so each change of the uncertainty model is measured on every recording at once.

Reproduce:
    .venv/bin/python benchmarks/bench_sigma_calibration.py DEMO_OUT [DEMO_OUT ...]
        [--model identified|truth|both] [--set NAME=VALUE ...]

``--set`` overrides one ``EstimatorConfig`` field (a Python literal), e.g.
``--set observer_gain_hz=20``; ``--detail`` adds per phase and axis the RMS error and the RMS
sigma (N), which tell an over-wide sigma from a missed error; ``--segments`` splits each rest
phase where the scripted force changes and prints each stretch's mean error and mean sigma per
axis (N): the error a stuck joint hides is near 0 while nothing pushes and up to its whole band
while a push it absorbs lasts. The exit status is 1 if any phase misses a target.
"""
import argparse
import ast
import sys
import time
from pathlib import Path

import numpy as np

from robot_id_ros.demo import report
from robot_id_ros.demo.pipeline import demo_estimator_settings
from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.io.model_file import load_model
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.sim.true_model import load_true_model

COVERAGE_MIN, RMS_LO, RMS_HI, P99_MAX = 0.90, 0.7, 1.3, 3.5


def models(out, which):
    """Return [(name, model)] of the folder ``out``: identified, truth (floor) or both."""
    identified = load_model(out / 'youbot_model.yaml')
    rows = []
    if which in ('identified', 'both'):
        rows.append(('identified', identified))
    if which in ('truth', 'both'):
        truth = load_true_model(out / 'truth' / 'true_parameters.yaml')
        truth.residual_std_nm = identified.residual_std_nm   # as the demo's report does
        rows.append(('truth', truth))
    return rows


def misses(c):
    """Return the number of axes of one phase's calibration entry that miss a target."""
    return sum((cov < COVERAGE_MIN) + (not RMS_LO <= rms <= RMS_HI) + (p99 > P99_MAX)
               for cov, rms, p99 in zip(c['coverage_2sigma'], c['rms_z'], c['p99_z']))


def print_segments(t, err, sd, force, c):
    """Print the stretches of a phase ``c`` with a constant scripted force (N, 3): means."""
    w = np.flatnonzero((t >= c['t0_s']) & (t < c['t1_s']))
    if w.size == 0:
        return
    change = np.flatnonzero(np.any(np.abs(np.diff(force[w], axis=0)) > 1e-9, axis=1)) + 1
    for i0, i1 in zip([0, *change], [*change, w.size]):
        k = w[i0:i1]
        print(f"{'':8s}{t[k[0]] - c['t0_s']:5.1f}-{t[k[-1]] - c['t0_s']:5.1f} s  force "
              f"{' '.join(f'{x:5.1f}' for x in force[k[0]])} N  mean error "
              f"{' '.join(f'{x:5.2f}' for x in err[k].mean(0))} N  mean sigma "
              f"{' '.join(f'{x:4.2f}' for x in sd[k].mean(0))} N")


def main():
    """Print the calibration table of each folder; return 1 if a target is missed."""
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('outs', nargs='+', type=Path, help='demo output folders')
    ap.add_argument('--model', choices=('identified', 'truth', 'both'), default='identified')
    ap.add_argument('--set', action='append', default=[], metavar='NAME=VALUE')
    ap.add_argument('--detail', action='store_true', help='also RMS error and RMS sigma, N')
    ap.add_argument('--segments', action='store_true',
                    help='rest phases: mean error and sigma between force changes, N')
    a = ap.parse_args()
    settings = demo_estimator_settings()
    for kv in a.set:
        k, v = kv.split('=', 1)
        settings[k] = ast.literal_eval(v)
    robot = youbot_model()
    bad = 0

    def f(v):
        return ' '.join(f'{x:4.2f}' for x in v)

    print(f"{'folder / model':34s} {'phase':22s} {'2-sigma coverage':16s} | "
          f"{'RMS err/sigma':14s} | p99 err/sigma")
    for out in a.outs:
        log = report.load_director_log(out / 'force_script_log.json')
        sc = report.force_scenario(log)
        js = read_joint_states(out / 'bags' / 'force_phase', robot.joint_names,
                               require_velocity=True)
        tare_ns = [(int(t * 1e9), kind) for t, kind in log.tare_events]
        for name, model in models(out, a.model):
            t0 = time.process_time()
            st, F, sd, _ = report.replay_force_phase(model, js, tare_ns, settings)
            t = st * 1e-9
            cal = report.R.sigma_calibration(t, F, sd, sc.timeline, sc.all_phases)
            force = sc.timeline.at(t)
            err = F - force
            cpu = time.process_time() - t0
            for c in cal:
                m = misses(c)
                bad += m
                print(f"{out.name + ' / ' + name:34s} {c['phase']:22s} "
                      f"{f(c['coverage_2sigma']):16s} | {f(c['rms_z']):14s} | "
                      f"{f(c['p99_z'])}{'' if not m else f'  ({m} miss)'}")
                if a.detail:
                    w = (t >= c['t0_s']) & (t < c['t1_s'])
                    print(f"{'':57s}RMS error {f(np.sqrt(np.mean(err[w] ** 2, 0)))} N | "
                          f"RMS sigma {f(np.sqrt(np.mean(sd[w] ** 2, 0)))} N")
                if a.segments and c['phase'].startswith('rest'):
                    print_segments(t, err, sd, force, c)
            print(f'  ({len(t)} samples, {cpu:.1f} s CPU)')
    print(f'targets: coverage >= {COVERAGE_MIN}, RMS {RMS_LO}-{RMS_HI}, p99 <= {P99_MAX}; '
          f'{bad} axis-targets missed')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
