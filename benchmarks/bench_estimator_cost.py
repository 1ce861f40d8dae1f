"""Cost of the estimation core per sample, as a ratio to Pinocchio's RNEA + frame Jacobian.

Same machine, same run, same samples (youBot, 200 Hz excitation-like motion with a known force):
  reference  pin.rnea + pin.computeFrameJacobian per sample (the floor any model-based estimator pays)
  update     WrenchEstimator.update, one sample at a time (the node's path)
  process    WrenchEstimator.process over the whole array (the offline path)
  offline    robot-id estimate end to end (read bag, estimate, write bag): samples/s

Reproduce: .venv/bin/python benchmarks/bench_estimator_cost.py [--samples N] [--method momentum|direct]
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robot_id_ros.core.bag_io import BagWriter  # noqa: E402
from robot_id_ros.core.estimation import EstimatorConfig, WrenchEstimator  # noqa: E402
from robot_id_ros.core.friction import FrictionModel  # noqa: E402
from robot_id_ros.core.model import youbot_model  # noqa: E402
from robot_id_ros.core.model_file import nominal_model  # noqa: E402

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])


def data(model, n, rate=200.0):
    t = np.arange(n) / rate
    amp, w = np.array([0.25, 0.2, 0.2, 0.2, 0.3]), 2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45])
    Q = BENT + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    F = np.where(t[:, None] > t[-1] / 2, [0.0, 3.0, -8.0], 0.0)
    E = np.array([model.torque(Q[k], QD[k], QDD[k]) - model.robot.tool_jacobian(Q[k])[:3].T @ F[k]
                  for k in range(n)])
    S = (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)
    return S, Q, QD, QDD, E


def best_of(fn, repeats=3):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--samples', type=int, default=20000)
    ap.add_argument('--method', default='momentum', choices=('momentum', 'direct'))
    a = ap.parse_args()
    fr = FrictionModel(coulomb_pos_nm=[0.5, 0.5, 0.4, 0.2, 0.1], coulomb_neg_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
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

    cfg = EstimatorConfig(method=a.method)

    def per_sample():
        est = WrenchEstimator(model, cfg)
        for k in range(n):
            est.update(S[k], Q[k], QD[k], E[k])

    def batch():
        WrenchEstimator(model, cfg).process(S, Q, QD, E)

    t_ref = best_of(reference) / n
    t_upd = best_of(per_sample, 2) / n
    t_bat = best_of(batch) / n
    # offline end to end through the command
    from robot_id_ros.commands import estimate
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
        args = p.parse_args(['estimate', '--model', str(tmp / 'model.yaml'), '--data', str(tmp / 'in.mcap'),
                             '--out', str(tmp / 'out'), '--method', a.method])
        import contextlib
        import io
        buf = io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            rc = estimate.run(args)
        t_off = time.perf_counter() - t0
        assert rc == 0, buf.getvalue()
    print(f'youBot, {n} samples, method {a.method}, numpy {np.__version__}, pinocchio {pin.__version__}')
    print(f'reference  RNEA + frame Jacobian   {t_ref * 1e6:8.2f} us/sample')
    print(f'update     per sample (node path)  {t_upd * 1e6:8.2f} us/sample   ratio {t_upd / t_ref:6.1f}x')
    print(f'process    batch (offline path)    {t_bat * 1e6:8.2f} us/sample   ratio {t_bat / t_ref:6.1f}x   '
          f'{1 / t_bat:,.0f} samples/s')
    print(f'offline    robot-id estimate, read+estimate+write bag: {n / t_off:,.0f} samples/s ({t_off:.2f} s)')
    print('  ' + buf.getvalue().strip().splitlines()[-1] if buf.getvalue().strip() else '')
    print('reproduce: .venv/bin/python benchmarks/bench_estimator_cost.py '
          f'--samples {n} --method {a.method}')


if __name__ == '__main__':
    main()
