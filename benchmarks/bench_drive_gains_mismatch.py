# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Arms seen only through motor currents, drive gains unknown: held-out current error over noise.

6-axis arms of the mismatch bench (test/identify/mismatch_cases.py: hidden truth, the arm's own
friction law, noise 1 % of the peak torque), their efforts recorded as motor currents (drive
gains: each joint's peak motor torque at 10 A) under ``--effects``: 'ideal' (an exact current
sensor, nothing else: the truth in the model family), 'current' (the sensor's gain error up to
+-5 % and offset up to +-0.15 A) and 'all' (every drive effect). Trained on one periodic
excitation, with ``robot-id identify --effort-unit current`` and no gains (they are identified
with the dynamics, the scale from the URDF), then ``robot-id validate`` on the judged motions
(point-to-point, slow, another excitation). Printed per joint: the held-out current RMSE over
the current noise (torque noise std times (1 + gain error) over the true gain), worst joint per
run; beside it the same with the true gains told (``--drive-gains``), the true model's (the
truth's rigid body and friction law, the true gains), and the worst joint's ratio of the RMSE
with the gains identified to that with the gains told (what not knowing the gains costs: on an
exact-sign friction law (UR5) or with every effect the noise is far below any model's error).

Reproduce:
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_drive_gains_mismatch.py
        [--arms ur5 kinova] [--effects ideal current all] [--seeds 0] [--train-periods 3]
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'test'))
sys.path.insert(0, str(ROOT / 'test' / 'identify'))
sys.path.insert(0, str(ROOT / 'benchmarks'))

from bench_mismatch import robot_id  # noqa: E402
from bench_synthetic_arms import ARMS, write_bag  # noqa: E402
from mismatch_cases import JUDGED, drive_gains, effects_for, mismatch_arm  # noqa: E402

from robot_id_ros.io.model_file import load_model, nominal_model  # noqa: E402
from robot_id_ros.sim.drive_effects import CurrentSensor, record_drives  # noqa: E402

EFFECTS = ('ideal', 'current', 'all')
MODELS = ('gains identified', 'gains told', 'true model')


def current_effects(name, arm):
    """Return the ``DriveEffects`` of ``name``: 'ideal' is an exact current sensor alone."""
    if name == 'ideal':
        fx = effects_for('none', arm)
        fx.current_sensor = CurrentSensor(drive_gains(arm))
        return fx
    return effects_for(name, arm)


def gains_text(g):
    return ','.join(f'{x:g}' for x in g)


def run_case(arm, effect, tmp):
    """Return {model: {judged motion: (n,) RMSE / current noise}} and the identified gains."""
    fx = current_effects(effect, arm)
    rng = np.random.default_rng(2000 + arm.seed)
    d = tmp / f'{arm.case.name}_{effect}_s{arm.seed}'
    d.mkdir()
    for k, m in arm.motions.items():
        r = record_drives(arm.truth, arm.law, *m, fx, arm.sigma, rng, arm.exact_sign, source=k)
        write_bag(d / k, r.series, arm.case.extra_joints)
    gains = drive_gains(arm)
    sensor = fx.current_sensor
    noise_a = arm.sigma * (1 + sensor.gain_error) / gains
    true_model = nominal_model(arm.truth, arm.law)
    true_model.residual_std_nm = arm.sigma
    true_model.save(d / 'true.yaml')
    paths = {'gains identified': (d / 'identified.yaml', []),
             'gains told': (d / 'told.yaml', ['--drive-gains', gains_text(gains)]),
             'true model': (d / 'true.yaml', ['--drive-gains', gains_text(gains)])}
    out, identified = {}, None
    for m, (path, extra) in paths.items():
        if m != 'true model':
            rc, _, err = robot_id('identify', '--urdf', arm.urdf, '--data', d / 'train',
                                  '--out', path, '--effort-unit', 'current', *extra)
            if rc != 0:
                print(f'  {effect} {m}: robot-id identify FAILED: {err.strip()[-300:]}')
                continue
        k = np.asarray(load_model(path).drive_gains_nm_per_a, float) if not extra else gains
        if m == 'gains identified':
            identified = k
        out[m] = {}
        for motion in JUDGED:
            rc, text, err = robot_id('validate', '--model', path, '--data', d / motion, '--json',
                                     '--effort-unit', 'current', *extra)
            if rc != 0:
                print(f'  {effect} {m} {motion}: robot-id validate FAILED: {err.strip()[-300:]}')
                continue
            rmse_a = np.asarray(json.loads(text)['rmse_nm']) / k
            out[m][motion] = rmse_a / noise_a
    return out, identified, gains


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--arms', nargs='+', default=['ur5', 'kinova'])
    ap.add_argument('--effects', nargs='+', default=list(EFFECTS), choices=EFFECTS)
    ap.add_argument('--seeds', nargs='+', type=int, default=[0])
    ap.add_argument('--train-periods', type=int, default=3)
    a = ap.parse_args()
    t0 = time.perf_counter()
    worst = {m: 0.0 for m in MODELS + ('identified / told',)}
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.arms:
            for seed in a.seeds:
                arm = mismatch_arm(ARMS[name], seed, a.train_periods)
                for effect in a.effects:
                    res, k, k_true = run_case(arm, effect, Path(tmp))
                    if k is not None:
                        print(f'{name} seed {seed} {effect}: identified gains / true - 1: '
                              + ' '.join(f'{100 * (x / y - 1):+.1f}' for x, y in zip(k, k_true))
                              + ' %', flush=True)
                    for motion in JUDGED:
                        cells = []
                        for m in MODELS:
                            r = res.get(m, {}).get(motion)
                            if r is None:
                                cells.append(f'{m} failed')
                                continue
                            worst[m] = max(worst[m], float(np.max(r)))
                            cells.append(f'{m} ' + ' '.join(f'{x:.2f}' for x in r)
                                         + f' (worst {np.max(r):.2f})')
                        told = res.get('gains told', {}).get(motion)
                        ident = res.get('gains identified', {}).get(motion)
                        if told is not None and ident is not None:
                            worst['identified / told'] = max(worst['identified / told'],
                                                             float(np.max(ident / told)))
                            cells.append(f'identified / told worst {np.max(ident / told):.3f}')
                        print(f'  {motion}: ' + '; '.join(cells), flush=True)
    print('worst joint over every run, held-out current RMSE / noise (and identified / told): '
          + ', '.join(f'{m} {v:.3f}' for m, v in worst.items()))
    print(f'{time.perf_counter() - t0:.0f} s')
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python '
          f'benchmarks/bench_drive_gains_mismatch.py --arms {" ".join(a.arms)} --effects '
          f'{" ".join(a.effects)} --seeds {" ".join(map(str, a.seeds))} --train-periods '
          f'{a.train_periods}')


if __name__ == '__main__':
    main()
