# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Study: what the option search holds out of one run, judged on the real KUKA LWR4+.

With one training run the search holds out whole bands of each joint's speed
(identify/hold_out_folds.py). This script runs ``identify`` with its defaults on run 1 of the
FloBaRoID recordings under three hold-out designs and judges each chosen model on run 2 (the
same trajectory recorded again) and run 3 (another trajectory, about twice as fast):

- ``speed bands``: the package's design, 4 bands of each joint's speed, one held out at a time;
- ``comb of speeds``: 12 narrow bands, fold k holding out bands k, k + 4 and k + 8, so that every
  held-out row keeps fitted neighbours at nearby speeds;
- ``time blocks``: 4 contiguous blocks of the run (the periodic excitation revisits their states).

The comb and the time blocks are not in the package; the script swaps them in for the speed
bands (``held_out.velocity_folds``). Printed per design: the options chosen, the expected error
on other motions the search prints, the written model's errors on runs 2 and 3, and, where the
search chose an unconstrained fit, that fit as least squares made it (identification makes an
implausible one physically consistent afterwards, which the search did not score).

Reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_hold_out_designs.py
(about 1 minute)
"""
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'identify'))

from robot_id_ros.identify import IdentificationOptions, identify, validate  # noqa: E402
from robot_id_ros.identify import held_out  # noqa: E402
from robot_id_ros.identify.hold_out_folds import (STATE_FOLDS, time_folds,  # noqa: E402
                                                  velocity_folds)
from robot_id_ros.io.bags import read_joint_states  # noqa: E402
from robot_id_ros.model.robot import RobotModel  # noqa: E402
from test_real_data import DATA  # noqa: E402

# narrow bands per fold in the comb: each fold holds out this many bands, spread over the speeds
COMB_TEETH = 3


def comb_folds(reference_qd, k=STATE_FOLDS):
    """Return per run the (N, n) fold of each row: its narrow speed band modulo ``k``."""
    return [f % k for f in velocity_folds(reference_qd, COMB_TEETH * k)]


DESIGNS = (('speed bands', velocity_folds), ('comb of speeds', comb_folds),
           ('time blocks', time_folds))


def errors(model, runs):
    """Return the relative error (%) of ``model`` on runs 2 and 3."""
    return [100 * validate(model, runs[i]).metrics['relative_error'] for i in (2, 3)]


def judge(robot, runs, label, folds):
    """Print the model the defaults choose on run 1 with ``folds`` as the speed bands."""
    held_out.velocity_folds = folds
    try:
        res = identify(robot, [runs[1]])
    finally:
        held_out.velocity_folds = velocity_folds
    sel = res.selection
    chosen = {k: v for k, v in sel.chosen().items()
              if v != getattr(IdentificationOptions(), k)}
    e2, e3 = errors(res.model, runs)
    line = (f'{label}: expected {100 * sel.expected.relative_error:.2f} % on other motions; '
            f'model written: run 2 {e2:.2f} %, run 3 {e3:.2f} %')
    if not sel.options.physical_consistency:
        raw = identify(robot, [runs[1]], options=dataclasses.replace(
            sel.options, auto_options=False, plausibility_fallback=False)).model
        r2, r3 = errors(raw, runs)
        line += f'; the fit it scored: run 2 {r2:.2f} %, run 3 {r3:.2f} %'
    print(line)
    print(f'    chosen (beside the defaults): {chosen}', flush=True)


def main():
    d = DATA / 'kuka_lwr4_flobaroid'
    robot = RobotModel(d / 'kuka_lwr4_gaz.urdf')
    runs = {i: read_joint_states(d / f'measurements_{i}', robot.joint_names) for i in (1, 2, 3)}
    for label, folds in DESIGNS:
        judge(robot, runs, label, folds)
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python '
          'benchmarks/bench_hold_out_designs.py')


if __name__ == '__main__':
    main()
