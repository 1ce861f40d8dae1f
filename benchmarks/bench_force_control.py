# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Issue 17's acceptance figures: force control closed on the estimate, simulated youBot.

The closed loop without ROS (``robot_id_ros.control.harness.ClosedLoop``): ``SimulatedArm``
(seed 3) -> ``WrenchEstimator.update`` (the model identified from that arm the way
test/core/test_identification_sim.py does it, cached under .cache/control/; the youBot settings
of config/wrench_estimator.yaml) -> ``ForceController`` (config/force_controller.yaml) -> the
arm, at 200 Hz. Scenarios and their definitions: robot_id_ros/demo/force_control_stage.py (the
demo's stage: force hold, hand guiding, drift) and test/control/scenarios.py (at rest, safety
stops). Prints each figure with its target and whether it passes.

Reproduce:
    PYTHONPATH=. .venv/bin/python benchmarks/bench_force_control.py [--quick]
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'control'))

import scenarios as sc  # noqa: E402
from cases import NORMAL_AXIS  # noqa: E402


def row(what, value, target, ok):
    """Print one figure."""
    print(f'{what:58s} {value:>16s}  {target:>12s}  {"pass" if ok else "FAIL"}', flush=True)


def force_rows():
    for dither, limit in ((False, 1.0), (True, 0.7)):
        r = sc.force_hold(dither=dither)
        name = 'with dither' if dither else 'no dither'
        row(f'force hold 5 N on 2 kN/m, settled RMS error ({name})',
            f'{r["rms_n"]:.2f} N', f'<= {limit} N', r['rms_n'] <= limit)
        row(f'  step 5 -> 10 N: settled (+-10 %) after ({name})', f'{r["settle_s"]:.2f} s',
            '<= 1 s', r['settle_s'] <= 1.0)
        row(f'  step: smallest contact force, overshoot ({name})',
            f'{r["min_after_step_n"]:.1f} / {r["overshoot_n"]:.1f} N', '> 0 N',
            r['min_after_step_n'] > 0.0)


def guiding_rows():
    names = {0: 'x', NORMAL_AXIS: 'y (normal)', 2: 'z'}
    for axis, sign in ((0, 1.0), (0, -1.0), (NORMAL_AXIS, 1.0), (NORMAL_AXIS, -1.0),
                       (2, 1.0), (2, -1.0)):
        r = sc.hand_guiding(axis, sign)
        row(f'hand guiding 10 N along {"+" if sign > 0 else "-"}{names[axis]}: speed / '
            'A (F - dead band)', f'{r["ratio"]:.2f} ({r["speed_m_s"] * 1e3:.1f} mm/s)',
            '0.8 - 1.2', abs(r['ratio'] - 1.0) <= 0.2)
        print(f'{"":4s}speed / (A F) {r["plain_ratio"]:.2f}; across the push '
              f'{r["across_m_s"] * 1e3:.2f} mm/s')
    d = sc.drift()
    row('no push, hand guiding: drift in 10 s', f'{d * 1e3:.2f} mm', '< 5 mm', d < 5e-3)


def rest_rows():
    for dither in (False, True):
        r = sc.at_rest(dither)
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


def safety_rows():
    for cause in ('stale', 'collision', 'disable'):
        r = sc.safety_stop(cause)
        row(f'safety stop on {cause}: tool below 1 mm/s (for 0.2 s) after',
            f'{r["stop_s"] * 1e3:.0f} ms', '<= 100 ms', r['stop_s'] <= 0.1 and r['held'])
        print(f'{"":4s}moving at {r["speed_before_m_s"] * 1e3:.1f} mm/s before; set point '
              f'held: {r["held"]}; later creep (drive integral vs the hand) up to '
              f'{r["creep_m_s"] * 1e3:.1f} mm/s within 0.5 s')


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='safety stops and drift only')
    a = ap.parse_args()
    t0 = time.perf_counter()
    print(f'{"figure":58s} {"measured":>16s}  {"target":>12s}')
    safety_rows()
    if not a.quick:
        rest_rows()
        guiding_rows()
        force_rows()
    print(f'({time.perf_counter() - t0:.0f} s)')


if __name__ == '__main__':
    main()
