# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Drive gains identified with the dynamics from motor currents: the error of each gain.

Synthetic arms (the youBot, UR5 of example-robot-data) perturbed from their URDF (masses +-20 %,
or +-3 % for 'close URDF'), friction, currents = torque / gain + noise, gains 0.3 ... 0.05 Nm/A
(``test/identify/test_drive_gains.py`` makes the data). For each arm and scale source it prints
the gain errors (%) and reported standard deviations (%) (NO: flagged not identifiable), and the
identified model's held-out torque RMSE over the torque noise.

    python benchmarks/bench_drive_gains.py [--arms youbot ur5] [--periods 4]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'test' / 'identify'))

from robot_id_ros.identify import IdentificationOptions, identify  # noqa: E402
from test_drive_gains import PAYLOAD, world  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--arms', nargs='+', default=['youbot', 'ur5'])
    ap.add_argument('--periods', type=int, default=4)
    ap.add_argument('--max-samples', type=int, default=8000)
    a = ap.parse_args()
    opts = IdentificationOptions(effort_unit='current', max_samples=a.max_samples)
    print(f'{"arm":7s} {"scale from":18s} gain error % (std %) per joint; held-out RMSE / noise')
    for name in a.arms:
        for label, rel, runs in (('payload run', 0.2, True), ('URDF (+-20 %)', 0.2, False),
                                 ('URDF (+-3 %)', 0.03, False)):
            w = world(name, mass_rel=rel, seed=1, periods=a.periods)
            t0 = time.perf_counter()
            res = identify(w['robot'], [w['train']], options=opts,
                           drive_gain_runs=[(w['loaded'], None, PAYLOAD)] if runs else ())
            m = res.model
            err = 100 * (m.drive_gains_nm_per_a / w['gains'] - 1)
            std = 100 * m.drive_gains_std_nm_per_a / w['gains']
            _, Q, QD, QDD = w['held']
            rmse = np.sqrt(np.mean((m.predict(Q, QD, QDD) - w['tau_held']) ** 2, axis=0))
            cells = ' '.join(f'{e:+.2f} ({s:.2f}{"" if ok else " NO"})' for e, s, ok in zip(
                err, std, m.identification['drive_gains']['identifiable'].values()))
            ratio = ' '.join(f'{x:.2f}' for x in rmse / w['sigma'])
            print(f'{name:7s} {label:18s} {cells}; {ratio}  [{time.perf_counter() - t0:.0f} s]')


if __name__ == '__main__':
    main()
