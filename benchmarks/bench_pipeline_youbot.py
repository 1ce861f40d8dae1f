# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The whole pipeline on the simulated youBot (the demo in its full configuration).

Identification quality against the sensing noise floor and force-estimation accuracy against the
true-parameter floor and seed 000's gravity-only baseline, with the wall time of every stage.

    .venv/bin/python benchmarks/bench_pipeline_youbot.py [--out DIR] [--seed N]

Same as `robot-id demo --out DIR` (default configuration): static poses from both directions,
friction sweeps, two optimised excitations (identification, held-out), identification, validation,
the wrench_estimator node under a scripted sequence of known forces at rest and in motion.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

from robot_id_ros.demo.pipeline import DemoConfig, results_table, run_demo


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=None)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix='bench_pipeline_'))
    t0 = time.monotonic()
    res = run_demo(DemoConfig(out / 'run', quick=a.quick, seed=a.seed))
    wall = time.monotonic() - t0
    print('\n==== bench_pipeline_youbot ====')
    print(results_table(res))
    print(
        f'\nwall time {wall:.0f} s (seed {a.seed}{", quick" if a.quick else ""}); '
        f'report in {out / "run"}')
    print('reproduce: .venv/bin/python benchmarks/bench_pipeline_youbot.py' +
          (' --quick' if a.quick else '') + f' --seed {a.seed}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
