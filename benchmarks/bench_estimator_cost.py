# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Cost of the estimation core per sample, as a ratio to Pinocchio's RNEA + frame Jacobian.

Same machine, same run, same samples (youBot, 200 Hz excitation-like motion with a known force):
  reference  pin.rnea + pin.computeFrameJacobian per sample (the floor any model-based
             estimator pays)
  floor      the Pinocchio calls update() makes per sample (crba + M copy, nonLinearEffects,
             getFrameJacobian; a q copy) in a Python loop and nothing else: what a one-sample
             Python path pays before any arithmetic of its own. The rest of update()'s cost is
             its arithmetic after the Pinocchio calls (friction law and stiction band, held band,
             presliding state, residual, tare, stiction hold, wrench map, contact scores, lag
             variance, bias envelope), compiled with numba (estimate/sample_step.py, tested equal
             to the vectorised process), the calls into it, the covariance recomputed every
             covariance period, and the result's numpy arrays
  update     WrenchEstimator.update, one sample at a time (the node's path)
  process    WrenchEstimator.process over the whole array (the offline path)
  offline    robot-id estimate end to end (read bag, estimate, write bag): samples/s
update and process are timed for the default EstimatorConfig and for the demo's
(robot_id_ros.demo.pipeline.DEMO_ESTIMATOR, read from config/wrench_estimator.yaml: the youBot's),
with --method.
Each time is the CPU time of this process (time.process_time: a shared machine's other jobs do
not count), the best of a few rounds; each round runs every item once, so the ratios compare
times taken under the same load.

Reproduce:
    .venv/bin/python benchmarks/bench_estimator_cost.py [--samples N] [--method momentum|direct]
        [--rounds R]
"""
import argparse
import functools
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robot_id_ros.io.bags import BagWriter  # noqa: E402
from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator  # noqa: E402
from robot_id_ros.model.friction import FrictionModel  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from robot_id_ros.io.model_file import nominal_model  # noqa: E402
from robot_id_ros.demo.pipeline import DEMO_ESTIMATOR  # noqa: E402

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])


def data(model, n, rate=200.0):
    t = np.arange(n) / rate
    amp, w = np.array([0.25, 0.2, 0.2, 0.2,
                       0.3]), 2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45])
    Q = BENT + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    F = np.where(t[:, None] > t[-1] / 2, [0.0, 3.0, -8.0], 0.0)
    E = np.array([model.torque(Q[k], QD[k], QDD[k]) - model.robot.tool_jacobian(Q[k])[:3].T @ F[k]
                  for k in range(n)])
    S = (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)
    return S, Q, QD, QDD, E


def best_of_rounds(items, rounds):
    """Return {name: best CPU time (s)} of ``items`` {name: fn}, run in turn ``rounds`` times."""
    best = dict.fromkeys(items, np.inf)
    for _ in range(rounds):
        for name, fn in items.items():
            t0 = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--samples', type=int, default=20000)
    ap.add_argument('--method', default='momentum', choices=('momentum', 'direct'))
    ap.add_argument('--rounds', type=int, default=3, help='rounds (each runs every item once)')
    a = ap.parse_args()
    fr = FrictionModel(coulomb_pos_nm=[0.5, 0.5, 0.4, 0.2,
                                       0.1], coulomb_neg_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
                       viscous_nm_s_rad=[0.5, 0.4, 0.3, 0.1, 0.05], offset_nm=0.0)
    model = nominal_model(youbot_model(), fr)
    model.residual_std_nm = np.full(5, 0.05)
    n = a.samples
    S, Q, QD, QDD, E = data(model, n)
    m, d, fid = model.robot.model, model.robot.data, model.robot.tool_frame_id

    def reference():
        for k in range(n):
            pin.rnea(m, d, Q[k], QD[k], QDD[k])
            pin.computeFrameJacobian(m, d, Q[k], fid, pin.LOCAL_WORLD_ALIGNED)

    def floor():
        crba, nle, gfj = pin.crba, pin.nonLinearEffects, pin.getFrameJacobian
        world, ref = pin.Convention.WORLD, pin.LOCAL_WORLD_ALIGNED
        for k in range(n):
            q = np.array(Q[k])
            crba(m, d, q, world)
            d.M.copy()
            nle(m, d, q, QD[k])
            gfj(m, d, fid, ref)

    configs = {'default': EstimatorConfig(method=a.method),
               'demo': EstimatorConfig(**{**DEMO_ESTIMATOR, 'method': a.method})}

    def per_sample(cfg):
        est = WrenchEstimator(model, cfg)
        for k in range(n):
            est.update(S[k], Q[k], QD[k], E[k])

    def batch(cfg):
        WrenchEstimator(model, cfg).process(S, Q, QD, E)

    items = {'reference': reference, 'floor': floor}
    items.update({('update', name): functools.partial(per_sample, cfg)
                  for name, cfg in configs.items()})
    items.update({('process', name): functools.partial(batch, cfg)
                  for name, cfg in configs.items()})
    best = {k: v / n for k, v in best_of_rounds(items, a.rounds).items()}
    t_ref, t_floor = best['reference'], best['floor']
    t_upd = {name: best['update', name] for name in configs}
    t_bat = {name: best['process', name] for name in configs}
    # offline end to end through the command
    from robot_id_ros.cli import estimate
    import argparse as _ap
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model.save(tmp / 'model.yaml')
        names = list(model.joint_names)
        with BagWriter(tmp / 'in.mcap') as bw:
            for k in range(n):
                bw.write('/joint_states', S[k], bw.joint_state(S[k], names, Q[k], QD[k], E[k]))
        p = _ap.ArgumentParser()
        estimate.add_parser(p.add_subparsers())
        args = p.parse_args([
            'estimate', '--model',
            str(tmp / 'model.yaml'), '--data',
            str(tmp / 'in.mcap'), '--out',
            str(tmp / 'out'), '--method', a.method
        ])
        import contextlib
        import io
        buf = io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            rc = estimate.run(args)
        t_off = time.perf_counter() - t0
        assert rc == 0, buf.getvalue()
    print(
        f'youBot, {n} samples, method {a.method}, numpy {np.__version__}, '
        f'pinocchio {pin.__version__}')
    print(f'reference  RNEA + frame Jacobian   {t_ref * 1e6:8.2f} us/sample')
    print(
        f'floor      Python per-sample floor {t_floor * 1e6:8.2f} us/sample   '
        f'ratio {t_floor / t_ref:6.1f}x   '
        '(update\'s Pinocchio calls alone)')
    for name in configs:
        print(f'update     {name:8s} (node path)   {t_upd[name] * 1e6:8.2f} us/sample   ratio '
              f'{t_upd[name] / t_ref:6.1f}x')
    for name in configs:
        print(f'process    {name:8s} (batch)       {t_bat[name] * 1e6:8.2f} us/sample   ratio '
              f'{t_bat[name] / t_ref:6.1f}x   {1 / t_bat[name]:,.0f} samples/s')
    print(
        f'offline    default, robot-id estimate, read+estimate+write bag: '
        f'{n / t_off:,.0f} samples/s '
        f'({t_off:.2f} s)')
    print('  ' + buf.getvalue().strip().splitlines()[-1] if buf.getvalue().strip() else '')
    print('reproduce: .venv/bin/python benchmarks/bench_estimator_cost.py '
          f'--samples {n} --method {a.method} --rounds {a.rounds}')


if __name__ == '__main__':
    main()
