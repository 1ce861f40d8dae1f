# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Every figure of the any-arm claims (any arm, any recording) from one script.

Calls the benchmarks that measure each figure (no copy of their code):

1. identification with defaults (bench_identification_defaults.py): real Panda (<= 1.2 %
   against effort low-passed at >= 5 Hz, <= 2.9 % raw), real LWR4+ trained on run 1 (<= 2.1 %
   on run 2, <= 6 % on run 3), and with ``--demo DIR`` (a demo output folder with bags/) the
   youBot identify line without expert flags against the former hand-tuned recipe (held-out
   in-motion RMSE / noise within 3 %);
2. drive gains identified from motor currents (bench_drive_gains.py): gain errors (%), target
   within 5 % where identifiable;
3. estimator defaults from the model file (bench_estimator_defaults.py): force RMS over the
   true-model floor, target <= 1.10 where the friction is smooth near zero;
4. payload from static poses and from one trajectory (bench_payload_sim.py): mass within 2 %,
   COM within 5 mm.

``--quick`` runs each with less: only the options chosen by cross-validation (no comparison
fits) on Panda and LWR4+, the youBot only for the drive gains, the three smooth-friction
estimator cases at low velocity noise, one payload seed.

Reproduce:
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_any_arm.py [--quick] [--demo DIR]
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_drive_gains  # noqa: E402
import bench_estimator_defaults  # noqa: E402
import bench_identification_defaults  # noqa: E402
import bench_payload_sim  # noqa: E402

# the estimator cases of --quick: smooth friction, slow, low velocity noise
QUICK_ESTIMATOR_CASES = ('UR5 smooth, slow', 'Panda smooth, slow', 'youBot smooth, slow')


def _main_of(module, argv):
    """Run ``module.main()`` as if called with the command-line arguments ``argv``."""
    saved = sys.argv
    sys.argv = [module.__file__] + list(argv)
    try:
        module.main()
    finally:
        sys.argv = saved


def _section(title):
    """Print a section header with the time of day."""
    print(f'\n== {title} ({time.strftime("%H:%M:%S")})', flush=True)


def identification(quick, demo):
    """Print the identification figures: Panda, LWR4+ and, with ``demo``, the youBot."""
    b = bench_identification_defaults
    variants = b.VARIANTS[:1] if quick else b.VARIANTS
    b.panda(variants)
    b.lwr(variants)
    if demo:
        b.youbot(demo, variants=(('former hand-tuned recipe', b.YOUBOT_RECIPE),
                                 ('no flags', b.IdentificationOptions())))
    else:
        print('youBot demo: skipped (give --demo DIR, a demo output folder with bags/)')


def estimator(quick):
    """Print the estimator's force RMS over the true-model floor."""
    b = bench_estimator_defaults
    if not quick:
        _main_of(b, [])
        return
    print(f'{"case":30s} {"qd noise":>9s} {"floor N":>8s} {"defaults":>9s} (ratio to the floor)')
    with tempfile.TemporaryDirectory() as tmp:
        for label, arm_of, scale, law, noise, sv in b.CASES:
            if label in QUICK_ESTIMATOR_CASES:
                floor, ratio = b.run_case(Path(tmp), arm_of, scale, law, noise, sv)[:2]
                print(f'{label:30s} {noise:9.4f} {floor:8.3f} {ratio:9.3f}', flush=True)
    print('acceptance: defaults <= 1.10 where the friction is smooth near zero')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='fewer cases (see the docstring)')
    ap.add_argument('--demo', help='demo output folder with bags/ (the youBot identify line)')
    a = ap.parse_args()
    t0 = time.perf_counter()
    _section('identification with defaults (Panda, LWR4+, youBot)')
    identification(a.quick, a.demo)
    _section('drive gains from motor currents (target: within 5 % where identifiable)')
    _main_of(bench_drive_gains, ['--arms', 'youbot'] if a.quick else [])
    _section('estimator defaults: force RMS over the true-model floor (target <= 1.10)')
    estimator(a.quick)
    _section('payload (target: mass within 2 %, COM within 5 mm)')
    _main_of(bench_payload_sim, ['--seeds', '3'] if a.quick else [])
    print(f'\ntotal {time.perf_counter() - t0:.0f} s; reproduce: OPENBLAS_NUM_THREADS=1 '
          '.venv/bin/python benchmarks/bench_any_arm.py [--quick] [--demo DIR]')


if __name__ == '__main__':
    main()
