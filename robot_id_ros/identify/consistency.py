# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Physically consistent standard parameters close to a least-squares fit (LMI, cvxpy).

Each link's 10 parameters (m, h = m c, inertia I about the joint frame origin) are physically
realisable exactly when its pseudo-inertia matrix is positive semidefinite (Wensing, Kim, Slotine
2017; ``robot_id_ros.model.pseudo_inertia``). We ask J >= eps 1 (a margin, so the body has some
extent) and, where identified, rotor inertia >= 0, viscous and Coulomb friction >= 0, and minimise

    (B theta - beta_ls)' A (B theta - beta_ls) + mu ||D (theta - theta_ref)||^2

with A the (weighted) normal matrix of the fit: the first term is exactly the increase of the
weighted residual sum of squares over the least-squares optimum; the small second term picks,
among the torque-equivalent parameter sets, the one closest to the URDF (the unidentifiable
directions). The result is reported with its cost in fit error and its run time.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from robot_id_ros.identify.dynamics import DynamicsResult
from robot_id_ros.identify.options import IdentificationError
from robot_id_ros.model.pseudo_inertia import (PSEUDO_INERTIA_BASIS, is_physically_consistent,
                                               pseudo_inertia)

# export_urdf lived here before it moved to the model layer; kept for one release
from robot_id_ros.model.urdf_export import export_urdf  # noqa: E402,F401

__all__ = ['ConsistencyResult', 'NON_NEGATIVE_KINDS', 'PSEUDO_INERTIA_MARGIN',
           'URDF_PULL_WEIGHT', 'is_physically_consistent', 'physically_consistent_fit',
           'pseudo_inertia', 'typical_parameter_size']

# eps of J >= eps 1: the smallest eigenvalue each link's pseudo-inertia must keep
PSEUDO_INERTIA_MARGIN = 1e-7
# mu: weight of the pull toward the URDF values, small beside the fit term
URDF_PULL_WEIGHT = 1e-4
# D of the regulariser: the typical size of each standard parameter. A link's mass scale is its
# URDF mass, at least _MIN_MASS_SCALE_KG; first moments m c scale as m times _LENGTH_SCALE_M,
# second moments as m times _SECOND_MOMENT_SCALE_M2 (a 0.1 m body); rotor inertia, friction and
# offsets as _JOINT_PARAMETER_SCALE.
_MIN_MASS_SCALE_KG = 0.1
_LENGTH_SCALE_M = 0.1
_SECOND_MOMENT_SCALE_M2 = 0.01
_JOINT_PARAMETER_SCALE = 0.1
# per-joint parameters kept non-negative: rotor inertia, viscous and Coulomb friction
NON_NEGATIVE_KINDS = ('Ia', 'fv', 'fc', 'fcp', 'fcn', 'fcl')
_SOLVERS = ('CLARABEL', 'SCS')


@dataclass
class ConsistencyResult:
    """The physically consistent fit.

    theta (standard), beta (base), the pseudo-inertias' smallest eigenvalues after (>= margin) and
    for the least-squares set, the relative fit error and per-joint residual RMS (Nm) before and
    after, the time (s) against the least-squares step's, and the solver's status.
    """

    theta: np.ndarray
    beta: np.ndarray
    min_eigenvalues: np.ndarray          # of each link's pseudo-inertia (>= margin)
    ls_consistent: bool                  # was the least-squares standard vector already consistent
    ls_min_eigenvalues: np.ndarray
    relative_error_ls: float
    relative_error: float                # on the fit data, after
    residual_rms_ls_nm: np.ndarray
    residual_rms_nm: np.ndarray
    time_s: float
    ls_time_s: float
    status: str
    solver: str

    @property
    def time_ratio(self):
        """Time of this step over the least-squares step's."""
        return self.time_s / max(self.ls_time_s, 1e-9)

    @property
    def cost_relative(self):
        """Increase of the relative fit error, as a fraction of the least-squares one."""
        return self.relative_error / max(self.relative_error_ls, 1e-300) - 1.0

    def summary(self):
        """One line for the identification summary."""
        return (f'physical consistency (LMI, {self.solver}, {self.status}): relative fit error '
                f'{100 * self.relative_error_ls:.4g} % -> {100 * self.relative_error:.4g} % '
                f'(+{100 * self.cost_relative:.3g} % of it); least-squares set was '
                f'{"already" if self.ls_consistent else "not"} consistent; '
                f'{self.time_s:.3g} s = {self.time_ratio:.3g} x the least-squares step')

    def to_dict(self):
        """Return the figures as plain data."""
        return {'relative_error_ls': self.relative_error_ls, 'relative_error': self.relative_error,
                'cost_relative': self.cost_relative, 'time_s': self.time_s,
                'ls_time_s': self.ls_time_s, 'time_ratio': self.time_ratio,
                'status': self.status, 'solver': self.solver,
                'ls_consistent': self.ls_consistent,
                'min_eigenvalues': self.min_eigenvalues.tolist(),
                'residual_rms_nm': self.residual_rms_nm.tolist()}


def typical_parameter_size(theta_ref, n, p, n_inertial):
    """Return D of the regulariser: the typical size of each of the p standard parameters.

    From the reference (URDF) link masses and body-size scales (see the module's constants).
    """
    scale = np.ones(p)
    for i in range(n):
        m = max(abs(theta_ref[10 * i]), _MIN_MASS_SCALE_KG)
        scale[10 * i] = m
        scale[10 * i + 1:10 * i + 4] = m * _LENGTH_SCALE_M
        scale[10 * i + 4:10 * i + 10] = m * _SECOND_MOMENT_SCALE_M2
    scale[n_inertial:] = _JOINT_PARAMETER_SCALE
    return scale


def _solve(prob, th, solver):
    """Solve ``prob`` with ``solver``, else the first of ``_SOLVERS`` that succeeds.

    Returns:
        (status, solver used).
    """
    status, used = 'not solved', ''
    for s in [solver] if solver else _SOLVERS:
        try:
            prob.solve(solver=s)
            status, used = prob.status, s
            if th.value is not None and prob.status in ('optimal', 'optimal_inaccurate'):
                break
        except Exception as exc:  # noqa: BLE001 - a solver failing: try the next
            status = f'{s} failed: {exc}'
    return status, used


# compiled problems, by structure (cvxpy parameters: one canonicalisation per structure)
_PROBLEMS = {}
_MAX_CACHED_PROBLEMS = 16


def _problem(reg, b, known_idx, margin, bounded=False, fixed_rows=0):
    """Return the compiled LMI problem of this structure: (problem, theta, parameters).

    The parameters (cvxpy, DPP): ``M`` (b, p) and ``v`` (b,) of the fit term ||M theta - v||^2,
    ``w`` and ``c`` (p,) of the pull ||w * theta - c||^2, ``known`` the fixed values; with
    ``bounded``, ``offset_max`` (n,) bounds each torque offset's magnitude; with ``fixed_rows``,
    ``F`` (fixed_rows, p) theta = ``f`` holds those base parameters at given values.
    """
    import cvxpy as cp

    n, p = reg.n, reg.p
    key = (n, p, b, reg.n_inertial, tuple(reg.joint_kinds), tuple(int(i) for i in known_idx),
           float(margin), bool(bounded), int(fixed_rows))
    if key in _PROBLEMS:
        return _PROBLEMS[key]
    th = cp.Variable(p)
    par = {'M': cp.Parameter((b, p)), 'v': cp.Parameter(b), 'w': cp.Parameter(p),
           'c': cp.Parameter(p)}
    obj = cp.sum_squares(par['M'] @ th - par['v']) + cp.sum_squares(
        cp.multiply(par['w'], th) - par['c'])
    cons = []
    for i in range(n):
        Ji = sum(th[10 * i + k] * PSEUDO_INERTIA_BASIS[k] for k in range(10))
        cons.append(Ji >> margin * np.eye(4))
    nk = len(reg.joint_kinds)
    for k, kind in enumerate(reg.joint_kinds):
        idx = [reg.n_inertial + j * nk + k for j in range(n)]
        if kind in NON_NEGATIVE_KINDS:
            cons.append(th[idx] >= 0)
        if kind == 'fo' and bounded:
            par['offset_max'] = cp.Parameter(n, nonneg=True)
            cons.append(cp.abs(th[idx]) <= par['offset_max'])
    if fixed_rows:
        par['F'], par['f'] = cp.Parameter((fixed_rows, p)), cp.Parameter(fixed_rows)
        cons.append(par['F'] @ th == par['f'])
    if len(known_idx):
        par['known'] = cp.Parameter(len(known_idx))
        cons.append(th[[int(i) for i in known_idx]] == par['known'])
    if len(_PROBLEMS) >= _MAX_CACHED_PROBLEMS:
        _PROBLEMS.pop(next(iter(_PROBLEMS)))
    _PROBLEMS[key] = (cp.Problem(cp.Minimize(obj), cons), th, par)
    return _PROBLEMS[key]


def physically_consistent_fit(dyn: DynamicsResult, margin=PSEUDO_INERTIA_MARGIN,
                              mu=URDF_PULL_WEIGHT, solver=None, offset_max_nm=None,
                              fixed_base=()) -> ConsistencyResult:
    """Physically consistent standard parameters closest (in fit error) to the fit ``dyn``.

    The problem is compiled once per structure (robot, regressor columns, known parameters,
    bounds) and solved again with new data, so that cross-validation can afford one per fold.

    Args:
        dyn: the least-squares dynamic fit.
        margin: eps of J >= eps 1 for every link.
        mu: weight of the pull toward the reference (URDF) parameters.
        solver: a cvxpy solver name; default CLARABEL, then SCS.
        offset_max_nm: (n,) largest torque offset magnitude per joint (Nm), or None: unbounded.
        fixed_base: indices of base parameters held at the reference's values.

    Returns:
        The ``ConsistencyResult``. Raises ``IdentificationError`` when no solver solves it.
    """
    t0 = time.perf_counter()
    reg, base, ls, neq = dyn.regressor, dyn.base, dyn.ls, dyn.neq
    n, p = reg.n, reg.p
    B = base.matrix(p)
    A = np.einsum('j,jik->ik', ls.weights, neq.A)
    d = np.sqrt(np.clip(np.diag(A), 1e-300, None))
    As = A / d[:, None] / d[None, :]
    w, V = np.linalg.eigh(0.5 * (As + As.T))
    w = np.clip(w, 0, None)
    Ls = (V * np.sqrt(w)).T                      # Ls' Ls = As
    theta_ref = dyn.theta_reference
    scale = typical_parameter_size(theta_ref, n, p, reg.n_inertial)
    fixed_base = [int(i) for i in fixed_base]
    prob, th, par = _problem(reg, B.shape[0], dyn.known_idx, margin,
                             offset_max_nm is not None and 'fo' in reg.joint_kinds,
                             len(fixed_base))
    if 'offset_max' in par:
        par['offset_max'].value = np.asarray(offset_max_nm, float)
    if fixed_base:
        par['F'].value = B[fixed_base]
        par['f'].value = B[fixed_base] @ theta_ref
    M = Ls * d[None, :]                          # Ls diag(d)
    par['M'].value = M @ B
    par['v'].value = M @ ls.beta
    par['w'].value = np.sqrt(mu) / scale
    par['c'].value = np.sqrt(mu) / scale * theta_ref
    if len(dyn.known_idx):
        par['known'].value = theta_ref[np.asarray(dyn.known_idx, dtype=int)]
    status, used = _solve(prob, th, solver)
    if th.value is None:
        raise IdentificationError(f'physical consistency: the LMI problem was not solved '
                                  f'({status})')
    theta = np.array(th.value)
    beta = B @ theta
    t1 = time.perf_counter()
    ss_ls = neq.residual_ss(ls.beta)
    ss = neq.residual_ss(beta)
    yy = max(neq.yy.sum(), 1e-300)
    ok_ls, mins_ls = is_physically_consistent(dyn.theta, n)
    _, mins = is_physically_consistent(theta, n)
    cnt = np.maximum(neq.count, 1)
    return ConsistencyResult(theta, beta, mins, ok_ls, mins_ls, float(np.sqrt(ss_ls.sum() / yy)),
                             float(np.sqrt(ss.sum() / yy)), np.sqrt(ss_ls / cnt),
                             np.sqrt(ss / cnt), t1 - t0,
                             dyn.time_s.get('least_squares_total', 0.0), str(status), used)
