# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Payload mass and COM on the simulated youBot (a 0.3 kg payload).

Acceptance: mass within 2 %, COM within 5 mm.

Data as in test/identify/test_payload_sim.py: default SimConfig (stiction, 10 mA noise, 1 mA
quantisation), ``--poses`` poses chosen for the payload (``payload_poses``), each approached from
both directions, settled ``--settle`` s, ``--window`` s averaged at 200 Hz, recorded without and
then with 0.3 kg at (10, -5, 30) mm in the tool frame. Per seed, ``identify_payload`` on:

  both     every hold paired with the same pose and approach of the other run (what robot-id
           payload does)
  +1 only  only the holds approached from below (half the holds)
  -1 only  only the holds approached from above
  avg+-    the two approaches of a pose averaged first, then paired (one row per pose)

and prints mass error (% of 0.3 kg) with the reported standard deviation, the COM error (mm) per
axis with its norm and the reported standard deviations.

Trajectory (skipped with --no-trajectory): per seed, the unloaded model is
identified on an excitation run without payload (the demo's options), then another excitation is
recorded with the payload and ``payload_from_trajectory`` fits it (``record_motion_runs`` of
test/identify/test_payload_motion_sim.py); the same figures plus the inertia status.

Reproduce:
    .venv/bin/python benchmarks/bench_payload_sim.py [--seeds 3 7 11] [--poses 12] [--window 1.5]
        [--settle 1.5] [--no-trajectory]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'identify'))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'identify'))

from robot_id_ros.identify import IdentificationError, StaticPoses  # noqa: E402
from robot_id_ros.identify.payload import identify_payload, payload_regressor  # noqa: E402
from test_payload_sim import COM_TOOL_M, MASS_KG, record_payload_runs  # noqa: E402
from test_payload_motion_sim import estimate, record_motion_runs  # noqa: E402


def subset(p: StaticPoses, keep):
    return StaticPoses(p.q[keep], p.tau[keep], p.tau_std[keep], p.samples[keep], p.approach[keep],
                       p.source)


def averaged(p: StaticPoses):
    """Average consecutive (+1, -1) holds of each pose."""
    assert np.all(p.approach[0::2] == 1) and np.all(p.approach[1::2] == -1)
    return StaticPoses(0.5 * (p.q[0::2] + p.q[1::2]), 0.5 * (p.tau[0::2] + p.tau[1::2]),
                       np.sqrt(0.5 * (p.tau_std[0::2] ** 2 + p.tau_std[1::2] ** 2)),
                       p.samples[0::2] + p.samples[1::2], np.zeros(len(p) // 2), p.source)


def row(label, robot, with_, without):
    try:
        r = identify_payload(robot, with_, without)
    except IdentificationError as exc:
        return f'  {label:8s} failed: {exc}', None
    return figures(label, r.poses, r.payload)


def figures(label, count, pl):
    """(one line of mass/COM error with the reported std, pass: within 2 % and 5 mm)."""
    dm = 100 * (pl.mass_kg - MASS_KG) / MASS_KG
    dc = 1000 * (pl.com_m - COM_TOOL_M)
    ok = abs(dm) < 2 and np.linalg.norm(dc) < 5
    return (
        f'  {label:8s} {count:3d}  mass {dm:+6.2f} % '
        f'(std {100 * pl.mass_std_kg / MASS_KG:4.2f} %)  '
        f'COM err {dc[0]:+5.2f} {dc[1]:+5.2f} {dc[2]:+5.2f} mm |{np.linalg.norm(dc):4.2f}| '
        f'(std {1000 * pl.com_std_m[0]:4.2f} {1000 * pl.com_std_m[1]:4.2f} '
        f'{1000 * pl.com_std_m[2]:4.2f})  '
        f'{"PASS" if ok else "FAIL"}'), ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seeds', type=int, nargs='+', default=[3, 7, 11])
    ap.add_argument('--poses', type=int, default=12)
    ap.add_argument('--window', type=float, default=1.5, help='averaging window per hold, s')
    ap.add_argument('--settle', type=float, default=1.5, help='wait after the approach, s')
    ap.add_argument('--no-trajectory', action='store_true', help='skip the trajectory case')
    a = ap.parse_args()
    print(
        f'payload {MASS_KG} kg at {1000 * COM_TOOL_M} mm (tool frame); '
        f'{a.poses} poses x 2 approaches, '
        f'settle {a.settle} s, window {a.window} s; pass = mass within 2 % and |COM error| < 5 mm')
    verdicts = []
    for seed in a.seeds:
        t0 = time.time()
        robot, arm, poses, without, with_ = record_payload_runs(seed, a.poses, a.window, a.settle)
        # evaluation only: paired error of the measured payload torque against the truth
        x = np.r_[MASS_KG, MASS_KG * COM_TOOL_M]
        true_dtau = (payload_regressor(robot, with_.q) @ x).reshape(-1, robot.n)
        err = with_.tau - without.tau - true_dtau
        band = 0.5 * (arm.breakaway_pos + arm.breakaway_neg)
        print(
            f'seed {seed} ({time.time() - t0:.0f} s to simulate); per joint: payload torque rms ' +
            ' '.join(f'{v:.3f}' for v in np.sqrt(np.mean(true_dtau**2, 0))) +
            ' Nm, paired-difference error rms ' + ' '.join(f'{v:.3f}'
                                                           for v in np.sqrt(np.mean(err**2, 0))) +
            ' Nm, stiction band ' + ' '.join(f'{v:.2f}' for v in band) + ' Nm')
        up, down = with_.approach == 1, without.approach == 1
        for label, w, o in (('both', with_, without),
                            ('+1 only', subset(with_, up), subset(without, down)),
                            ('-1 only', subset(with_, ~up), subset(without, ~down)),
                            ('avg+-', averaged(with_), averaged(without))):
            text, ok = row(label, robot, w, o)
            print(text)
            if label == 'both':
                verdicts.append(ok)
    print(
        f'both directions paired: {sum(bool(v) for v in verdicts)} of {len(verdicts)} seeds '
        'within 2 % / 5 mm')
    if not a.no_trajectory:
        trajectory(a.seeds)


def trajectory(seeds):
    """Print the payload from one excitation run with it, against a model identified without it."""
    print('trajectory: 3 periods of 8 s with the payload; model identified on another excitation '
          'without it; errors in units of the reported std in brackets')
    verdicts = []
    for seed in seeds:
        t0 = time.time()
        model, loaded = record_motion_runs(seed)
        r = estimate(model, loaded)
        pl = r.payload
        text, ok = figures('traj', 0, pl)
        z_m = (pl.mass_kg - MASS_KG) / pl.mass_std_kg
        z_c = (pl.com_m - COM_TOOL_M) / pl.com_std_m
        print(f'seed {seed} ({time.time() - t0:.0f} s), {r.samples} samples, inertia '
              f'{r.inertia_status}\n{text}  [mass {z_m:+.1f}, COM ' +
              ' '.join(f'{z:+.1f}' for z in z_c) + ' sigma]')
        verdicts.append(ok)
    print(f'trajectory: {sum(bool(v) for v in verdicts)} of {len(verdicts)} seeds '
          'within 2 % / 5 mm')


if __name__ == '__main__':
    main()
