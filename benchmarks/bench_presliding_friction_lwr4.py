# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Study: a presliding (Dahl) Coulomb column on the real KUKA LWR4+ (its run 2 error).

The shipped friction law is a function of velocity: fc * sign_s(qd) (smooth sign). Across a
velocity reversal the LWR4+'s recorded torque turns over later and more smoothly than that law.
A harmonic-drive joint shows presliding hysteresis: after a reversal the friction builds up
with the distance travelled, not with the speed. The Dahl model states it with one per-joint
state z in [-1, 1]:

    dz/dq = (1 - z sign(dq)) / q0,   friction = fc z,

whose exact step over a monotone increment dq is z' = s - (s - z) exp(-|dq| / q0), s = sign(dq).
It stays linear in fc, so the Coulomb column becomes z(t) and least squares is unchanged; q0
(rad, the presliding displacement) is given, like the sign velocity.

This script was the study behind the package's presliding friction (``FrictionModel``'s
``presliding_rad``, chosen by ``identify``'s cross-validation; the simulator has no Dahl law);
it fits the columns itself, apart from the pipeline. Trajectories (q, qd, qdd, tau) are the ones
``validate`` makes with
the model ``identify`` fits on run 1 with defaults (so the same derivative filter for every
variant); each variant is then fitted on run 1 by weighted least squares (per-joint weights
1 / residual std of an OLS fit) with every link's pseudo-inertia positive definite (cvxpy LMI,
the margin and a weak pull to the URDF as in identify/consistency.py), and scored as
||tau_hat - tau|| / ||tau|| on the processed rows of runs 1, 2 and 3. The sign-law row
reproduces the pipeline's figure on run 2 (2.22 % there).

Reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_presliding_friction_lwr4.py
(about 3 minutes)
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'test' / 'identify'))

from robot_id_ros.identify import IdentificationOptions, identify, validate  # noqa: E402
from robot_id_ros.identify.consistency import (PSEUDO_INERTIA_BASIS,  # noqa: E402
                                               PSEUDO_INERTIA_MARGIN)
from robot_id_ros.io.bags import read_joint_states  # noqa: E402
from robot_id_ros.model.regressor import Regressor, RegressorOptions  # noqa: E402
from robot_id_ros.model.robot import RobotModel  # noqa: E402
from test_real_data import DATA  # noqa: E402

SIGN_VELOCITY_RAD_S = 0.01      # the pipeline's choice on run 1 (cross-validated)
STRIBECK_VELOCITY_RAD_S = 0.1
PULL_TO_URDF = 1e-6


def dahl_state(Q, presliding_rad):
    """Return z (N, n) of the Dahl law along the positions ``Q`` (N, n) rad, from z = 0."""
    z = np.zeros_like(Q)
    zk = np.zeros(Q.shape[1])
    for k in range(1, len(Q)):
        dq = Q[k] - Q[k - 1]
        s = np.sign(dq)
        zk = np.where(dq != 0.0, s - (s - zk) * np.exp(-np.abs(dq) / presliding_rad), zk)
        z[k] = zk
    return z


def regressor_rows(reg, tr, presliding_rad):
    """Stacked regressor of one trajectory, the Coulomb column replaced by z with a q0."""
    W = reg.stack(tr.q, tr.qd, tr.qdd).reshape(len(tr.q), reg.n, reg.p)
    if presliding_rad:
        nk, fc = len(reg.joint_kinds), reg.joint_kinds.index('fc')
        z = dahl_state(tr.q, presliding_rad)
        for j in range(reg.n):
            W[:, j, reg.n_inertial + j * nk + fc] = z[:, j]
    return W.reshape(-1, reg.p)


def consistent_fit(reg, W, y):
    """Weighted LS with every link's pseudo-inertia >= margin; returns theta (p,)."""
    import cvxpy as cp
    x0 = np.linalg.lstsq(W, y, rcond=1e-10)[0]
    w = np.tile(1.0 / np.std((W @ x0 - y).reshape(-1, reg.n), axis=0), len(y) // reg.n)
    _, R = np.linalg.qr(W * w[:, None])
    Qt_b = np.linalg.lstsq(R.T, (W * w[:, None]).T @ (y * w), rcond=None)[0]
    th = cp.Variable(reg.p)
    cons = [sum(th[10 * i + k] * PSEUDO_INERTIA_BASIS[k] for k in range(10))
            >> PSEUDO_INERTIA_MARGIN * np.eye(4) for i in range(reg.n)]
    obj = cp.sum_squares(R @ th - Qt_b) + PULL_TO_URDF * cp.sum_squares(
        th - reg.reference_parameters())
    cp.Problem(cp.Minimize(obj), cons).solve(solver='CLARABEL')
    return th.value


def main():
    d = DATA / 'kuka_lwr4_flobaroid'
    robot = RobotModel(d / 'kuka_lwr4_gaz.urdf')
    runs = {i: read_joint_states(d / f'measurements_{i}', robot.joint_names) for i in (1, 2, 3)}
    model = identify(robot, [runs[1]], options=IdentificationOptions()).model
    tr = {i: validate(model, runs[i]).trajectory for i in runs}
    print('LWR4+, trained on run 1, consistent WLS fit; relative error % on runs 1 / 2 / 3 '
          '(targets on runs 2 / 3: 2.1 / 6)')
    for stribeck in (True, False):
        reg = Regressor(robot, RegressorOptions(
            friction=True, offset=True, sign_velocity_rad_s=SIGN_VELOCITY_RAD_S,
            stribeck=stribeck, stribeck_velocity_rad_s=STRIBECK_VELOCITY_RAD_S))
        for q0 in (None, 0.001, 0.002, 0.004):
            W = {i: regressor_rows(reg, tr[i], q0) for i in tr}
            theta = consistent_fit(reg, W[1], tr[1].tau.reshape(-1))
            err = [np.linalg.norm(W[i] @ theta - tr[i].tau.reshape(-1))
                   / np.linalg.norm(tr[i].tau) for i in (1, 2, 3)]
            law = 'sign' if q0 is None else f'Dahl q0 = {q0 * 1e3:g} mrad'
            print(f'  {law:20s} Stribeck column {"yes" if stribeck else "no ":3s}: '
                  + ' / '.join(f'{100 * e:.2f}' for e in err), flush=True)
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python '
          'benchmarks/bench_presliding_friction_lwr4.py')


if __name__ == '__main__':
    main()
