# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identification on synthetic truth (perturbed youBot, known noise), made with the core.

Prints: held-out torque RMSE / injected noise std per joint for this pipeline (periodic
band-limited derivatives + WLS) and for the baseline (Butterworth + central differences + OLS);
95 % interval coverage of the true base parameters; runtime of 1e5 samples x 5 joints; the
physical-consistency step's time as a ratio to the least-squares step.

Reproduce: .venv/bin/python benchmarks/bench_identification_synthetic.py
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'identify'))

from robot_id_ros import signals  # noqa: E402
from robot_id_ros.identify import IdentificationOptions, identify, validate  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from robot_id_ros.model.regressor import Regressor, RegressorOptions  # noqa: E402
from robot_id_ros.model.base_parameters import compute_base_parameters  # noqa: E402
from test_identification import (  # noqa: E402
    FRICTION,
    SIGMA,
    fourier_trajectory,
    synthetic_series,
    train_and_held_out,
    true_theta)


def baseline_predict(robot, train, test, cutoff_hz=2.0):
    """Butterworth low-pass (zero phase) + central differences + OLS on base parameters."""
    reg = Regressor(robot, RegressorOptions(friction=True, offset=True))
    base = compute_base_parameters(reg)

    def states(s):
        rate = 1.0 / np.median(np.diff(s.t_s))
        return signals.derivatives(s.q, rate, cutoff_hz, method='central')

    Q, QD, QDD = states(train)
    W = reg.stack(Q, QD, QDD)[:, base.independent]
    beta = np.linalg.lstsq(W, train.effort.reshape(-1), rcond=None)[0]
    Q2, QD2, QDD2 = states(test)
    pred = (reg.stack(Q2, QD2, QDD2)[:, base.independent] @ beta).reshape(-1, robot.n)
    return np.sqrt(np.mean((test.effort - pred) ** 2, axis=0))


def main():
    robot = youbot_model()
    truth, train, test, rng, (t, Q, QD, QDD) = train_and_held_out(robot)
    res = identify(robot, [train])
    ours = np.array(validate(res.model, test).metrics['rmse_nm']) / SIGMA
    print('held-out RMSE / noise std per joint (youBot, 16000 training samples, 200 Hz, noise',
          ', '.join(f'{s:g}' for s in SIGMA), 'Nm)')
    print('  this pipeline (periodic derivatives + WLS):', ' '.join(f'{x:.3f}' for x in ours),
          f' max {ours.max():.3f}')
    for fc in (1.0, 2.0, 5.0):
        base = baseline_predict(robot, train, test, fc) / SIGMA
        print(f'  baseline Butterworth {fc:g} Hz + central differences + OLS:',
              ' '.join(f'{x:.3f}' for x in base), f' max {base.max():.3f}')
    # coverage
    inside = total = 0
    for seed in range(10):
        r = np.random.default_rng(100 + seed)
        t, Q, QD, QDD = fourier_trajectory(robot, r, periods=4)
        s, _ = synthetic_series(truth, FRICTION, t, Q, QD, QDD, SIGMA, r)
        d = identify(robot, [s]).dynamics
        bt = d.base.to_base(true_theta(truth, d.regressor, FRICTION))
        ok = (bt >= d.ls.ci_low) & (bt <= d.ls.ci_high)
        inside += ok.sum()
        total += len(ok)
    print(
        '95 % interval coverage of the true base parameters: '
        f'{inside}/{total} = {inside / total:.3f} '
        '(10 noise realisations x 44 base parameters)')
    # runtime 1e5 x 5
    t, Q, QD, QDD = fourier_trajectory(robot, rng, period_s=10.0, rate_hz=1000.0, periods=10)
    s, _ = synthetic_series(truth, FRICTION, t, Q, QD, QDD, SIGMA, rng)
    t0 = time.perf_counter()
    r = identify(robot, [s])
    dt = time.perf_counter() - t0
    print(
        f'runtime: {len(s)} samples x {robot.n} joints identified in {dt:.2f} s (limit 10 s); '
        'steps: '
        + ', '.join(f'{k} {v:.2f} s' for k, v in r.timings_s.items()))
    t0 = time.perf_counter()
    r = identify(robot, [s], options=IdentificationOptions(physical_consistency=True))
    c = r.consistency
    print(f'physical consistency: {c.time_s:.3f} s = {c.time_ratio:.2f} x the least-squares step '
          f'({c.ls_time_s:.2f} s); relative fit error {100 * c.relative_error_ls:.4f} % -> '
          f'{100 * c.relative_error:.4f} %')
    print('reproduce: .venv/bin/python benchmarks/bench_identification_synthetic.py')


if __name__ == '__main__':
    main()
