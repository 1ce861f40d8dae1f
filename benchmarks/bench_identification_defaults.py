# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identification with defaults (options chosen by cross-validation) on real data and the demo.

Only the URDF, joints and effort unit are given; every processing option is chosen by blocked
cross-validation on the training run (identify/selection.py), never from the held-out runs.
Beside it, today's fixed defaults (no selection), a plain Butterworth + OLS fit (positions
low-passed at 10 Hz, central differences, OLS, no selection, taken as fitted; and with the
recorded velocity low-passed at 8 Hz), and the first plain fit's options with identification's
plausibility check, which replaces an implausible fit by a physically consistent one drawn to
the URDF.

- Panda (Gaz 2019): in-sample relative error against the effort low-passed at the chosen
  cut-off (>= 5 Hz) and raw.
- LWR4+ (FloBaRoID): trained on run 1, validated on run 2 (same trajectory) and run 3 (another).
- youBot demo recording (optional, a folder with bags/): held-out in-motion RMSE / noise per
  joint with the former hand-tuned recipe (config/identification.yaml before the options were
  chosen from the data) and with no flags (today's config/identification.yaml).

Reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_identification_defaults.py
[DEMO_DIR]
"""
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'identify'))

from robot_id_ros.io.bags import read_joint_states  # noqa: E402
from robot_id_ros.identify import IdentificationOptions, identify, validate  # noqa: E402
from robot_id_ros.model.robot import RobotModel  # noqa: E402
from test_real_data import DATA, PLAIN_OPTIONS, _erd_panda  # noqa: E402

# the plain fit is ordinary least squares as it comes out; identification's plausibility check
# would replace an implausible one by a physically consistent fit, which is no longer plain, so
# that variant is printed on its own
VARIANTS = (('chosen by cross-validation', IdentificationOptions()),
            ('fixed defaults (no selection)', IdentificationOptions(auto_options=False)),
            ('plain Butterworth + OLS', IdentificationOptions(
                **PLAIN_OPTIONS, plausibility_fallback=False)),
            ('plain, measured velocity at 8 Hz', IdentificationOptions(
                **{**PLAIN_OPTIONS, 'cutoff_hz': 8.0}, velocity_source='measured',
                plausibility_fallback=False)),
            ('plain options, made plausible', IdentificationOptions(**PLAIN_OPTIONS)))
# the youBot recipe config/identification.yaml held before the options were chosen from the data
YOUBOT_RECIPE = IdentificationOptions(
    auto_options=False, rotor_inertia=True, coulomb_asymmetric=True, offset=False,
    stribeck_column=True, derivative_method='savgol', cutoff_hz=25.0, sidecar_window=True,
    min_velocity_rad_s=0.05)


def _fit(robot, data, opts, **kw):
    t0 = time.perf_counter()
    res = identify(robot, data, options=dataclasses.replace(opts), **kw)
    return res, time.perf_counter() - t0


def _chosen(res):
    if res.selection is None:
        return ''
    c = res.selection.chosen()
    return (f'; chosen {", ".join(f"{k}={v}" for k, v in c.items())}; selection '
            f'{res.selection.time_s:.1f} s')


def panda(variants=VARIANTS):
    """Print the Panda's in-sample errors of each (label, options) of ``variants``."""
    robot = RobotModel(_erd_panda(), [f'panda_joint{i}' for i in range(1, 8)])
    s = read_joint_states(DATA / 'panda_gaz2019' / 'excitation_trajectory_1', robot.joint_names)
    for label, opts in variants:
        # the figure's filter (10 Hz, as in test_real_data), not a processing option
        r, dt = _fit(robot, [s], dataclasses.replace(opts, torque_cutoff_hz=10.0))
        m = r.fit_metrics
        print(f'Panda [{label}]: {100 * m["relative_error_filtered"]:.2f} % vs effort low-passed '
              f'at {m["filter_hz"]:g} Hz, {100 * m["relative_error"]:.2f} % raw '
              f'(target <= 1.2 % / 2.9 %); {dt:.1f} s{_chosen(r)}', flush=True)


def lwr(variants=VARIANTS):
    """Print the LWR4+ errors on runs 2 and 3 of each (label, options) of ``variants``."""
    d = DATA / 'kuka_lwr4_flobaroid'
    robot = RobotModel(d / 'kuka_lwr4_gaz.urdf')
    runs = {i: read_joint_states(d / f'measurements_{i}', robot.joint_names) for i in (1, 2, 3)}
    for label, opts in variants:
        r, dt = _fit(robot, [runs[1]], opts)
        e2 = validate(r.model, runs[2]).metrics['relative_error']
        e3 = validate(r.model, runs[3]).metrics['relative_error']
        print(f'LWR4+ [{label}]: trained on run 1; run 2 {100 * e2:.2f} %, run 3 '
              f'{100 * e3:.2f} % (target <= 2.1 % / 6 %); {dt:.1f} s{_chosen(r)}', flush=True)


def youbot(folder, variants=None):
    """Print the youBot demo's held-out RMSE / noise (former recipe, no flags, ``variants``)."""
    from robot_id_ros.io.sidecar import find_sidecar
    from robot_id_ros.model.robot import youbot_model
    from robot_id_ros.sim.config import SimConfig
    bags = Path(folder) / 'bags'
    robot = youbot_model()

    def rd(k):
        return read_joint_states(bags / k, robot.joint_names), find_sidecar(bags / k)

    kinds = ('excitation', 'static', 'sweeps', 'validation')
    data, static, sweeps, (held, held_sc) = (rd(k) for k in kinds)
    sim = SimConfig()
    noise = (np.sqrt(sim.current_noise_a ** 2 + sim.current_resolution_a ** 2 / 12)
             * np.asarray(sim.drive_gains_nm_a))
    if variants is None:
        variants = (('former hand-tuned recipe', YOUBOT_RECIPE),
                    ('no flags', IdentificationOptions())) + tuple(VARIANTS[2:])
    for label, opts in variants:
        r, dt = _fit(robot, [data], opts, static=[static], sweeps=[sweeps])
        v = validate(r.model, held, None, held_sc, min_velocity_rad_s=0.05).metrics
        x = np.asarray(v['rmse_in_motion_nm']) / noise
        print(f'youBot demo [{label}]: held-out in-motion (|qd_j| >= 0.05 rad/s) RMSE/noise '
              f'{", ".join(f"{e:.3f}" for e in x)} (mean {x.mean():.3f}); {dt:.1f} s'
              f'{_chosen(r)}', flush=True)


def main():
    panda()
    lwr()
    if len(sys.argv) > 1:
        youbot(sys.argv[1])
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python '
          'benchmarks/bench_identification_defaults.py [DEMO_DIR, e.g. /tmp/demo2]')


if __name__ == '__main__':
    main()
