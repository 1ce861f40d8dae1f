# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The wrench, its sigma and the contact flag against a real force sensor (the hopper leg).

Data: ``shared/data/hopper_mim`` (an ODRI leg, two joints, 1 kHz, joint torques from motor
currents, an ATI sensor under the foot; its README gives frame, sign and the plain baselines).
The model is made from the URDF alone by ``robot-id model``; ``robot-id estimate`` runs with its
defaults (the bag has no velocities: they come from the positions). With ``--calibrate S0,S1``
the residual statistics are first learnt by ``robot-id calibrate`` on the stretch S0..S1 s.

Figures (contact = |F_xz of the sensor| > 2 N; bouts of contact of at least 50 ms):

  x / z RMSE       error of fx, fz during contact, N
  onset            delay from a bout's start to the first sample flagged, median / max, ms
  false            time flagged without contact, ms; of it, where the sensor reads below
                   QUIET_N (the rest of it, 0.5-2 N, is a real force under the contact line)
  missed           time of contact not flagged, ms
  coverage         share of samples whose |error| <= 2 published sigma (fx and fz pooled),
                   during contact / without

Reproduce:
    .venv/bin/python benchmarks/bench_hopper_force.py [--calibrate S0,S1] [--observer-gain-hz F]
"""
import argparse
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / 'shared' / 'data' / 'hopper_mim'
CONTACT_N = 2.0
QUIET_N = 0.5
MIN_BOUT_S = 0.05


def robot_id(*args):
    """Run the ``robot-id`` command of this checkout; raise with its output on failure."""
    cmd = [sys.executable, '-m', 'robot_id_ros.cli', *map(str, args)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f'{" ".join(cmd)} failed:\n{done.stdout}{done.stderr}')
    return done.stdout + done.stderr


def read_sensor():
    """(stamp_ns, force (n, 3) N) of the ATI sensor."""
    with open(DATA / 'hopper_run_1_ati_force.csv') as fh:
        rows = list(csv.DictReader(fh))
    stamp = np.array([int(r['stamp_ns']) for r in rows], np.int64)
    return stamp, np.array([[float(r[k]) for k in ('fx_n', 'fy_n', 'fz_n')] for r in rows])


def read_estimate(path):
    """(stamp_ns, force (n, 3) N, force std (n, 3) N, flagged (n,) bool) of an estimate CSV."""
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    stamp = np.array([int(r['stamp_ns']) for r in rows], np.int64)
    force = np.array([[float(r[k]) for k in ('fx', 'fy', 'fz')] for r in rows])
    std = np.array([[float(r[k]) for k in ('fx_std', 'fy_std', 'fz_std')] for r in rows])
    flagged = np.array([r['contact'] != 'none' for r in rows])
    return stamp, force, std, flagged


def bouts(mask, dt_s):
    """(start, end) index pairs of runs of True at least MIN_BOUT_S long."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return [(a, b) for a, b in zip(starts, ends) if (b - a) * dt_s >= MIN_BOUT_S]


def figures(stamp, force, std, flagged, sensor_force):
    """Return the table's figures for one estimate, aligned sample by sample with the sensor."""
    dt_s = float(np.median(np.diff(stamp))) * 1e-9
    magnitude = np.linalg.norm(sensor_force[:, [0, 2]], axis=1)
    contact = magnitude > CONTACT_N
    err = force - sensor_force
    onset = []
    for a, b in bouts(contact, dt_s):
        hit = np.flatnonzero(flagged[a:b])
        onset.append((hit[0] if len(hit) else b - a) * dt_s * 1e3)
    out = {'x': np.sqrt(np.mean(err[contact, 0] ** 2)),
           'z': np.sqrt(np.mean(err[contact, 2] ** 2)),
           'onset_median': float(np.median(onset)), 'onset_max': float(np.max(onset)),
           'false_ms': np.sum(flagged & ~contact) * dt_s * 1e3,
           'false_quiet_ms': np.sum(flagged & (magnitude < QUIET_N)) * dt_s * 1e3,
           'missed_ms': np.sum(~flagged & contact) * dt_s * 1e3}
    if std is not None:
        inside = np.abs(err[:, [0, 2]]) <= 2.0 * std[:, [0, 2]]
        out['cover_contact'] = float(np.mean(inside[contact]))
        out['cover_free'] = float(np.mean(inside[~contact]))
    return out


def pinv_baseline(sensor_stamp):
    """Return the source's own -pinv(J^T) tau, flag |F_xz| > 2 N: (force, flagged)."""
    import pinocchio as pin

    sys.path.insert(0, str(ROOT))
    from robot_id_ros.io.bags import read_joint_states

    series = read_joint_states(DATA / 'hopper_run_1', ['HFE', 'KFE'])
    model = pin.buildModelFromUrdf(str(DATA / 'teststand_fixed_hip.urdf'))
    data, fid = model.createData(), model.getFrameId('contact')
    force = np.zeros((len(series), 3))
    for k in range(len(series)):
        J = pin.computeFrameJacobian(model, data, series.q[k], fid,
                                     pin.LOCAL_WORLD_ALIGNED)[:3]
        force[k] = -np.linalg.pinv(J.T) @ series.effort[k]
    assert np.array_equal(series.stamp_ns, sensor_stamp)
    return force, np.linalg.norm(force[:, [0, 2]], axis=1) > CONTACT_N


def row(label, f):
    cover = (f'{f["cover_contact"]:.2f} / {f["cover_free"]:.2f}' if 'cover_contact' in f
             else '-')
    return (f'| {label} | {f["x"]:.2f} | {f["z"]:.2f} | {f["onset_median"]:.0f} / '
            f'{f["onset_max"]:.0f} | {f["false_ms"]:.0f} ({f["false_quiet_ms"]:.0f}) | '
            f'{f["missed_ms"]:.0f} | {cover} |')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--calibrate', default=None,
                    help='S0,S1: learn the residual statistics on this contact-free stretch, s')
    ap.add_argument('--observer-gain-hz', type=float, default=None,
                    help='the estimator\'s bandwidth (default: its default)')
    args = ap.parse_args()
    if not DATA.is_dir():
        raise SystemExit(f'{DATA} not found: this benchmark needs shared/data beside the checkout')
    stamp_s, sensor = read_sensor()
    print('| on hopper_run_1 | x RMSE [N] | z RMSE [N] | onset median / max [ms] | false '
          f'(sensor < {QUIET_N:g} N) [ms] | missed [ms] | 2-sigma coverage contact / free |')
    print('|---|---|---|---|---|---|---|')
    base_force, base_flag = pinv_baseline(stamp_s)
    print(row('-pinv(J^T) tau, flag |F| > 2 N', figures(stamp_s, base_force, None, base_flag,
                                                        sensor)))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model = tmp / 'hopper.yaml'
        robot_id('model', '--urdf', DATA / 'teststand_fixed_hip.urdf', '--tool-frame', 'contact',
                 '--out', model)
        label = 'robot-id, URDF-only model, defaults'
        flags = ([] if args.observer_gain_hz is None
                 else ['--observer-gain-hz', args.observer_gain_hz])
        if flags:
            label = f'robot-id, URDF-only model, observer {args.observer_gain_hz:g} Hz'
        calibration = []
        if args.calibrate:
            robot_id('calibrate', '--model', model, '--data', DATA / 'hopper_run_1',
                     '--stretch', args.calibrate, '--out', tmp / 'calibration.yaml', *flags)
            calibration = ['--calibration', tmp / 'calibration.yaml']
            label = f'{label}, calibrated on {args.calibrate} s'
        robot_id('estimate', '--model', model, '--data', DATA / 'hopper_run_1',
                 '--out', tmp / 'est.mcap', '--csv', tmp / 'est.csv', *calibration, *flags)
        stamp, force, std, flagged = read_estimate(tmp / 'est.csv')
        assert np.array_equal(stamp, stamp_s), 'estimate and sensor stamps differ'
        print(row(label, figures(stamp, force, std, flagged, sensor)))
    print('\nReproduce: .venv/bin/python benchmarks/bench_hopper_force.py'
          + (f' --calibrate {args.calibrate}' if args.calibrate else '')
          + (f' --observer-gain-hz {args.observer_gain_hz:g}' if flags else ''))


if __name__ == '__main__':
    main()
