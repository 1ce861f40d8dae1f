# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Force control closed on the estimate, simulated youBot: its figures.

The closed loop without ROS (``robot_id_ros.control.harness.ClosedLoop``): ``SimulatedArm``
(seed 3, or --seed) -> ``WrenchEstimator.update`` (the model identified from that arm the way
test/identify/test_identification_sim.py does it, cached under .cache/control/; the youBot settings
of config/wrench_estimator.yaml) -> ``ForceController`` (config/force_controller.yaml) -> the
arm, at 200 Hz. Scenarios and their definitions: robot_id_ros/demo/force_control_stage.py (the
demo's stage: force hold, hand guiding, drift) and test/control/scenarios.py (at rest, safety
stops). Prints each figure with its target and whether it passes.

Reproduce:
    PYTHONPATH=. .venv/bin/python benchmarks/bench_force_control.py [--quick] [--seed N]
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'control'))

import numpy as np  # noqa: E402
import scenarios as sc  # noqa: E402
from cases import NORMAL_AXIS, SEED, identified_model_path  # noqa: E402

GUIDE_WITHIN_LIMITS_N = 5.0   # a push along -x the youBot's wrist holds at the work pose


def row(what, value, target, ok):
    """Print one figure."""
    print(f'{what:58s} {value:>16s}  {target:>12s}  {"pass" if ok else "FAIL"}', flush=True)


def force_rows(seed):
    for dither, limit in ((False, 1.0), (True, 0.7)):
        r = sc.force_hold(dither=dither, seed=seed)
        name = 'with dither' if dither else 'no dither'
        row(f'force hold 5 N on 2 kN/m, settled RMS error ({name})',
            f'{r["rms_n"]:.2f} N', f'<= {limit} N', r['rms_n'] <= limit)
        row(f'  step 5 -> 10 N: settled (+-10 %) after ({name})', f'{r["settle_s"]:.2f} s',
            '<= 1 s', r['settle_s'] <= 1.0)
        row(f'  step: smallest contact force, overshoot ({name})',
            f'{r["min_after_step_n"]:.1f} / {r["overshoot_n"]:.1f} N', '> 0 N',
            r['min_after_step_n'] > 0.0)


def guiding_rows(seed):
    names = {0: 'x', NORMAL_AXIS: 'y (normal)', 2: 'z'}
    _, limits = sc.true_arm(seed)
    for axis, sign in ((0, 1.0), (0, -1.0), (NORMAL_AXIS, 1.0), (NORMAL_AXIS, -1.0),
                       (2, 1.0), (2, -1.0)):
        r = sc.hand_guiding(axis, sign, seed=seed)
        row(f'hand guiding 10 N along {"+" if sign > 0 else "-"}{names[axis]}: speed / '
            'A (F - dead band)', f'{r["ratio"]:.2f} ({r["speed_m_s"] * 1e3:.1f} mm/s)',
            '0.8 - 1.2', abs(r['ratio'] - 1.0) <= 0.2)
        force = np.zeros(3)
        force[axis] = sign * 10.0
        load = np.abs(sc.static_drive_torque_nm(force, seed=seed)) / limits
        j = int(np.argmax(load))
        band_n = r['dead_band_n']
        print(f'{"":4s}speed / (A F) {r["plain_ratio"]:.2f}; mean dead band {band_n:.1f} N'
              + (' (near the push: the ratio above is ill-conditioned)' if band_n > 5.0 else '')
              + '; across the push '
              f'{r["across_m_s"] * 1e3:.2f} mm/s; holding the push at the work pose takes '
              f'{load[j]:.2f} x joint {j + 1}\'s drive limit'
              + (' (beyond it)' if load[j] > 1.0 else '')
              + (f'; stopped: {r["stopped_for"]}' if r['stopped_for'] else ''))
    w = sc.wrist_torque_by_pitch(10.0, seed)
    i = int(np.argmin(w['worst_nm']))
    row('10 N along +-x and +-z: wrist torque at the best tool pitch (any pose)',
        f'{w["worst_nm"][i]:.2f} Nm', f'<= {w["limit_nm"]:.1f} Nm',
        w['worst_nm'][i] <= w['limit_nm'])
    print(f'{"":4s}gravity {w["gravity_nm"][i]:.2f} Nm + 10 N x {w["lever_m"][i] * 1e3:.0f} mm '
          f'(the tool from the wrist axis); the largest push the wrist holds along all four at '
          f'any pitch: {w["max_push_n"].max():.1f} N (before its Coulomb friction)')
    r = sc.hand_guiding(0, -1.0, GUIDE_WITHIN_LIMITS_N, seed=seed)
    load = np.abs(sc.static_drive_torque_nm([-GUIDE_WITHIN_LIMITS_N, 0, 0], seed=seed)) / limits
    row(f'hand guiding {GUIDE_WITHIN_LIMITS_N:.0f} N along -x (within the drive limits): speed '
        '/ A (F - dead band)', f'{r["ratio"]:.2f} ({r["speed_m_s"] * 1e3:.1f} mm/s)',
        '0.8 - 1.2', abs(r['ratio'] - 1.0) <= 0.2)
    print(f'{"":4s}holding it takes {load.max():.2f} x the largest drive limit used')
    pose = sc.TOOL_ALONG_X_POSE_RAD
    r = sc.hand_guiding(0, -1.0, seed=seed, pose=pose)
    load = np.abs(sc.static_drive_torque_nm([-10.0, 0, 0], pose=pose, seed=seed)) / limits
    row('hand guiding 10 N along -x from a pose with the tool along x (wrist turned -90 deg): '
        'speed / A (F - dead band)', f'{r["ratio"]:.2f} ({r["speed_m_s"] * 1e3:.1f} mm/s)',
        '0.8 - 1.2', abs(r['ratio'] - 1.0) <= 0.2 and not r['stopped_for'])
    print(f'{"":4s}holding it takes {load.max():.2f} x the largest drive limit used (wrist '
          f'{load[sc.WRIST]:.2f})'
          + (f'; stopped: {r["stopped_for"]}' if r['stopped_for'] else ''))
    d = sc.drift(seed=seed)
    row('no push, hand guiding: drift in 10 s', f'{d * 1e3:.2f} mm', '< 5 mm', d < 5e-3)


def rest_rows(seed):
    for dither in (False, True):
        r = sc.at_rest(dither, seed)
        name = 'with dither' if dither else 'no dither'
        limit = 1.0 if dither else float('inf')
        row(f'at rest, 5 N normal steps: estimate RMS error on the normal ({name})',
            f'{r["rms_normal_n"]:.2f} N', '<= 1.0 N' if dither else '(today 1.84)',
            r['rms_normal_n'] <= limit)
        if dither:
            row('  tool motion from the dither (largest distance from mean)',
                f'{r["dither_tool_m"] * 1e3:.2f} mm', '<= 2 mm', r['dither_tool_m'] <= 2e-3)
            print(f'{"":4s}linear prediction {r["dither_model_m"] * 1e3:.2f} mm; RMS error '
                  'x y z ' + ' '.join(f'{v:.2f}' for v in r['rms_n']) + ' N')


def safety_rows(seed):
    for cause in ('stale', 'collision', 'disable'):
        r = sc.safety_stop(cause, seed)
        row(f'safety stop on {cause}: below 1 mm/s (to {sc.WATCH_S:.0f} s) after',
            f'{r["stop_s"] * 1e3:.0f} ms', '<= 100 ms', r['stop_s'] <= 0.1 and r['held'])
        held = sc.safety_stop(cause, seed, stop_relax_s=0.0)
        print(f'{"":4s}moving at {r["speed_before_m_s"] * 1e3:.1f} mm/s before; from 0.1 s on '
              f'at most {r["late_m_s"] * 1e3:.2f} mm/s; set point relaxes to the resting arm: '
              f'{r["held"]} (offset {r["gap_rad"][0] * 1e3:.1f} -> {r["gap_rad"][1] * 1e3:.1f} '
              f'mrad); set point left where the stop put it (stop_relax_s 0): '
              f'up to {held["late_m_s"] * 1e3:.1f} mm/s, last at 1 mm/s or more '
              f'{held["stop_s"] * 1e3:.0f} ms after')


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='safety stops only')
    ap.add_argument('--seed', type=int, default=SEED,
                    help=f'the simulated youBot (its hidden true parameters; default {SEED}); '
                    'the model identified from it is fitted on first use and cached')
    a = ap.parse_args()
    t0 = time.perf_counter()
    path = identified_model_path(a.seed)
    created = next((ln.split(':', 1)[1].strip() for ln in path.read_text().splitlines()
                    if ln.startswith('created:')), '?').strip("'\"")
    print(f'simulated youBot seed {a.seed}; identified model {path} (fitted {created}; cached: '
          "delete it to refit with today's identification code)")
    print(f'{"figure":58s} {"measured":>16s}  {"target":>12s}')
    safety_rows(a.seed)
    if not a.quick:
        rest_rows(a.seed)
        guiding_rows(a.seed)
        force_rows(a.seed)
    print(f'({time.perf_counter() - t0:.0f} s)')


if __name__ == '__main__':
    main()
