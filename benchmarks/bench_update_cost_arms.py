# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""CPU time of ``WrenchEstimator.update`` per sample on a 6-axis arm, by pose and settings.

The UR5 of example-robot-data (or the Panda) with ``bench_node_cpu``'s model and motion (0.05 rad
sinusoids, 1 kHz, efforts from the inverse dynamics) about three poses:

  well      the best-conditioned pose of 200 within the limits (the estimator's usual case)
  mid       half way from the zero pose to it (the map damped on part of the samples)
  singular  the UR5's zero pose, stretched out (the damped map on every sample; UR5 only)

with the core defaults and with ``friction_tracking`` on. Each figure is the CPU time of this
process (time.process_time) per sample, the best of --rounds rounds of --samples samples, after
a warm-up; the share of samples mapped with damping is printed beside it.

Reproduce:
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_update_cost_arms.py [--arm ur5]
        [--samples 4000] [--rounds 3]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'benchmarks'))
sys.path.insert(0, str(ROOT / 'test'))

from bench_node_cpu import arm_model, trajectory  # noqa: E402

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator  # noqa: E402

RATE_HZ = 1000.0


def cost_ms(model, samples, config, n, rounds):
    """Return (best CPU ms per update over ``rounds`` rounds of ``n`` samples, damped share)."""
    est = WrenchEstimator(model, config)
    arrays = [tuple(np.array(x) for x in s) for s in samples]
    k = 0

    def run(count):
        nonlocal k
        damped = 0
        for _ in range(count):
            q, qd, tau = arrays[k % len(arrays)]
            damped += est.update(10 ** 18 + k * 10 ** 6, q, qd, tau).damped
            k += 1
        return damped

    run(500)
    best, share = np.inf, 0.0
    for _ in range(rounds):
        t0 = time.process_time()
        damped = run(n)
        best = min(best, (time.process_time() - t0) / n * 1e3)
        share = damped / n
    return best, share


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--arm', choices=['ur5', 'panda'], default='ur5')
    ap.add_argument('--samples', type=int, default=4000)
    ap.add_argument('--rounds', type=int, default=3)
    a = ap.parse_args()
    model, well, extra = arm_model(a.arm)
    poses = {'well': well, 'mid': 0.5 * well}
    if a.arm == 'ur5':
        poses['singular'] = np.zeros(model.n)
    configs = {'defaults': EstimatorConfig(),
               'friction_tracking': EstimatorConfig(friction_tracking=True)}
    print(f'WrenchEstimator.update on the {a.arm} model, CPU ms per sample (damped share)')
    print('| pose | ' + ' | '.join(configs) + ' |')
    print('|---|' + '---|' * len(configs))
    for name, centre in poses.items():
        samples = trajectory(model, centre, extra, RATE_HZ)
        cells = []
        for config in configs.values():
            ms, share = cost_ms(model, samples, config, a.samples, a.rounds)
            cells.append(f'{ms:.4f} ({share:.2f})')
        print(f'| {name} | ' + ' | '.join(cells) + ' |', flush=True)
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python '
          'benchmarks/bench_update_cost_arms.py '
          f'--arm {a.arm} --samples {a.samples} --rounds {a.rounds}')


if __name__ == '__main__':
    main()
