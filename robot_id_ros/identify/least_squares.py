# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Least squares on base parameters (ROS-free).

The free columns once known parameters are taken out, per-joint normal equations accumulated in
chunks (memory does not grow with the record), and their OLS / WLS solution with column scaling,
a damped prior and confidence intervals (Swevers et al. 1997, eq. 20-29).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.stats

from robot_id_ros.identify.options import IdentificationError
from robot_id_ros.model.base_parameters import BaseParameters, compute_base_parameters
from robot_id_ros.model.friction import smooth_sign, stribeck_shape
from robot_id_ros.model.regressor import Regressor

# a scaled column whose norm is below this fraction of the largest is not excited at all
_UNEXCITED_COLUMN = 1e-12
# a weak direction names the parameters whose component exceeds this fraction of its largest
_WEAK_COMPONENT_FRACTION = 0.3


def free_columns(regressor: Regressor, known: dict):
    """Return the columns left to fit once the ``known`` parameters are fixed.

    Args:
        regressor: the regressor (names its standard parameters).
        known: {standard parameter name: value}.

    Returns:
        (free column indices, known column indices), both sorted int arrays.
    """
    idx = {nm: i for i, nm in enumerate(regressor.names)}
    unknown = [k for k in known if k not in idx]
    if unknown:
        raise IdentificationError(f'known parameter(s) {", ".join(unknown)} are not parameters of '
                                  'this model (names like m3, mx2, ZZ1, fv2: see robot-id '
                                  'describe)')
    known_idx = np.array(sorted(idx[k] for k in known), dtype=int)
    free = np.array([i for i in range(regressor.p) if i not in set(known_idx)], dtype=int)
    return free, known_idx


def structural_base(regressor: Regressor, free, static=False, seed=0) -> BaseParameters:
    """Return base parameters of the free columns (index space of the full standard vector).

    Args:
        regressor: the regressor.
        free: indices of the columns to fit (``free_columns``).
        static: of the static (gravity-only) regressor.
        seed: seed of the random states.

    Returns:
        The ``BaseParameters`` (``compute_base_parameters`` on those columns).
    """
    return compute_base_parameters(regressor, static=static, seed=seed, columns=free)


@dataclass
class NormalEquations:
    """Per-joint normal equations of y_j = W_j beta over all samples.

    A[j] = W_j' W_j, c[j] = W_j' y_j, yy[j] = y_j' y_j, count[j] rows.
    """

    A: np.ndarray
    c: np.ndarray
    yy: np.ndarray
    count: np.ndarray

    @classmethod
    def zeros(cls, n, b):
        """Empty normal equations of ``n`` joints and ``b`` parameters."""
        return cls(np.zeros((n, b, b)), np.zeros((n, b)), np.zeros(n), np.zeros(n, dtype=int))

    def add(self, Wb, Y, mask=None):
        """Wb (N*n, b) sample-major, Y (N, n); ``mask`` (N, n) bool: only rows where True."""
        n = self.A.shape[0]
        W3 = Wb.reshape(-1, n, Wb.shape[1])
        for j in range(n):
            Wj = W3[:, j, :]
            yj = Y[:, j]
            if mask is not None:
                Wj, yj = Wj[mask[:, j]], yj[mask[:, j]]
            self.A[j] += Wj.T @ Wj
            self.c[j] += Wj.T @ yj
            self.yy[j] += yj @ yj
            self.count[j] += len(yj)

    def residual_ss(self, beta):
        """Per-joint residual sum of squares at beta (exact up to round-off)."""
        return np.maximum(self.yy - 2 * self.c @ beta
                          + np.einsum('i,jik,k->j', beta, self.A, beta), 0.0)

    def __iadd__(self, other):
        self.A += other.A
        self.c += other.c
        self.yy += other.yy
        self.count += other.count
        return self


def regressor_chunks(regressor: Regressor, Q, QD, QDD, chunk=4000, column_filter=None,
                     drift=None):
    """Yield (start, end, W) over the run: the regressor of samples start..end-1, sample-major.

    ``drift`` (N,): the drift columns' input (``Regressor.stack``).

    ``column_filter`` ((N, m) -> (N, m), the filter the torque went through): every column
    passes it over the whole run (parallel filtering); the regressor is then held whole
    (N * n * p floats) and handed out by chunk.
    """
    N = Q.shape[0]
    z = regressor.presliding_state(Q)   # the Dahl state runs along the whole run

    def part(s, e):
        return regressor.stack(Q[s:e], QD[s:e], QDD[s:e], None if z is None else z[s:e],
                               None, None if drift is None else drift[s:e])

    if column_filter is None:
        for s in range(0, N, chunk):
            e = min(N, s + chunk)
            yield s, e, part(s, e)
        return
    n, p = regressor.n, regressor.p
    whole = np.vstack([part(s, min(N, s + chunk)) for s in range(0, N, chunk)])
    whole = column_filter(whole.reshape(N, n * p)).reshape(N * n, p)
    for s in range(0, N, chunk):
        e = min(N, s + chunk)
        yield s, e, whole[s * n:e * n].copy()


def accumulate(regressor: Regressor, columns, Q, QD, QDD, TAU, known_idx=(), known_values=(),
               chunk=4000, neq=None, progress=None, mask=None, stribeck_velocities=None,
               column_filter=None, drift=None):
    """Accumulate the normal equations of TAU - W[:, known] theta_known = W[:, columns] beta.

    Args:
        regressor: the regressor W.
        columns: the fitted columns (the base parameters' independent columns).
        Q, QD, QDD: (N, n) states, rad, rad/s, rad/s^2.
        TAU: (N, n) torque, Nm.
        known_idx, known_values: columns fixed at known values, subtracted from TAU.
        chunk: samples per regressor evaluation (bounds the memory).
        neq: normal equations to add to (a list with ``stribeck_velocities``); default new ones.
        progress: called as ``progress(samples done, N)`` after each chunk.
        mask: (N, n) bool, only the rows where True (``motion_mask``); all when None.
        stribeck_velocities: Stribeck velocities (rad/s); then one set of normal equations per
            velocity, the Stribeck columns ``fs`` recomputed for each (the rigid-body regressor
            is computed once).
        column_filter: (N, m) -> (N, m), the filter TAU went through (parallel filtering,
            ``Trajectory.lowpassed_like_torque``), applied to every regressor column
            (``regressor_chunks``).
        drift: (N,) the run's drift coordinate (``Regressor.run_drift`` of the whole run, or
            its rows), for the drift columns.

    Returns:
        The ``NormalEquations`` (a list of them with ``stribeck_velocities``).
    """
    known_idx = np.asarray(known_idx, dtype=int)
    multi = stribeck_velocities is not None
    if multi:
        neqs = neq if neq is not None else [NormalEquations.zeros(regressor.n, len(columns))
                                            for _ in stribeck_velocities]
        kinds = regressor.joint_kinds
        nk = len(kinds)
        fs_cols = regressor.n_inertial + kinds.index('fs') + nk * np.arange(regressor.n)
        sv = regressor.options.sign_velocity_rad_s
    else:
        neq = neq if neq is not None else NormalEquations.zeros(regressor.n, len(columns))
    n, p = regressor.n, regressor.p

    def stribeck_columns(qd, vs):
        return smooth_sign(qd, sv) * stribeck_shape(qd, vs)

    fs_whole = ({vs: column_filter(stribeck_columns(QD, vs)) for vs in stribeck_velocities}
                if multi and column_filter is not None else None)
    for s, e, W in regressor_chunks(regressor, Q, QD, QDD, chunk, column_filter, drift):
        m = None if mask is None else mask[s:e]
        variants = [(neq, None)] if not multi else list(zip(neqs, stribeck_velocities))
        for target, vs in variants:
            if vs is not None:
                W3 = W.reshape(e - s, n, p)
                W3[:, np.arange(n), fs_cols] = (stribeck_columns(QD[s:e], vs) if fs_whole is None
                                                else fs_whole[vs][s:e])
            Y = TAU[s:e]
            if len(known_idx):
                Y = Y - (W[:, known_idx] @ np.asarray(known_values, float)).reshape(Y.shape)
            target.add(W[:, columns], Y, m)
        if progress is not None:
            progress(e, Q.shape[0])
    return neqs if multi else neq


@dataclass
class LeastSquaresResult:
    """A (weighted, scaled, possibly damped) least-squares fit of base parameters."""

    beta: np.ndarray
    covariance: np.ndarray
    std: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    sigma_nm: np.ndarray             # per-joint residual std used as noise std
    residual_rms_nm: np.ndarray      # per-joint RMS residual at beta
    weights: np.ndarray              # per-joint weights 1/sigma^2 (ones for OLS)
    condition_number: float          # of the (weighted) base regressor, unscaled
    condition_number_scaled: float   # with unit-norm columns (eq. 25-26)
    dof: int
    method: str
    relative_error: float            # ||y - W beta|| / ||y|| over the fit data
    weak_directions: list = field(default_factory=list)

    def to_dict(self, names=None):
        """Return the fit's figures as plain data (``names`` is unused, kept for callers)."""
        d = {'method': self.method, 'condition_number': self.condition_number,
             'condition_number_scaled': self.condition_number_scaled, 'dof': self.dof,
             'relative_error': self.relative_error,
             'residual_rms_nm': self.residual_rms_nm.tolist(),
             'sigma_nm': self.sigma_nm.tolist()}
        return d


def _cond_from_normal(A):
    """Condition number of W from its normal matrix A = W'W."""
    w = np.linalg.eigvalsh(A)
    w = np.clip(w, 0, None)
    return float(np.sqrt(w[-1] / w[0])) if w[0] > 0 else float('inf')


@dataclass
class _Solution:
    """One solve of the normal equations.

    beta, the weighted normal matrix A, its scaled form As (and As_p with the prior), the inverse
    of As_p, the column scales S.
    """

    beta: np.ndarray
    A: np.ndarray
    As: np.ndarray
    inv: np.ndarray
    S: np.ndarray


def _solve_weighted(neq: NormalEquations, weights, column_scaling, prior, prior_weight, names):
    """Solve the normal equations with per-joint ``weights`` (see ``solve_least_squares``)."""
    b = neq.c.shape[1]
    with_prior = prior is not None and prior_weight > 0
    A = np.einsum('j,jik->ik', weights, neq.A)
    c = weights @ neq.c
    d = np.sqrt(np.clip(np.diag(A), 0, None))
    zero = d <= _UNEXCITED_COLUMN * max(d.max(), 1e-300)
    if zero.any() and not with_prior:
        bad = [names[i] if names else str(i) for i in np.flatnonzero(zero)]
        listed = ', '.join(bad[:8]) + (f' and {len(bad) - 8} more' if len(bad) > 8 else '')
        raise IdentificationError(
            f'the data do not excite parameter(s) {listed} at all (a joint that never '
            'moves or never accelerates in the fitted samples): record motion of every joint '
            '(robot-id design-excitation), or fix them with --known NAME=VALUE, or give a prior '
            'toward the URDF (--prior-weight 1)')
    S = np.where(zero, 1.0, 1.0 / np.where(zero, 1.0, d)) if column_scaling else np.ones(b)
    As = A * S[:, None] * S[None, :]
    cs = c * S
    if with_prior:
        lam2 = prior_weight ** 2 * (np.trace(As) / b)
        As_p = As + lam2 * np.eye(b)
        cs = cs + lam2 * (np.asarray(prior) / S)
    else:
        As_p = As
    if not (np.all(np.isfinite(As_p)) and np.all(np.isfinite(cs))):
        raise IdentificationError('the normal equations are not finite (a torque or state too '
                                  'large to square): check the effort unit and the recording')
    try:
        L = np.linalg.cholesky(As_p)
        bs = np.linalg.solve(L.T, np.linalg.solve(L, cs))
        inv = np.linalg.inv(As_p)
    except np.linalg.LinAlgError:
        bs = np.linalg.lstsq(As_p, cs, rcond=None)[0]
        inv = np.linalg.pinv(As_p)
    return _Solution(bs * S, A, As, inv, S)


def _joint_weights(s2, count):
    """Return the WLS weights 1 / s2 of the joints (their noise variances ``s2``, Nm^2).

    A variance is floored at 1e-12 of the largest. A joint without rows weighs like the
    noisiest (it adds nothing either way); without any residual to weigh by, every joint weighs
    1 (ordinary least squares).
    """
    rows = count > 0
    top = float(np.max(s2[rows])) if rows.any() else 0.0
    if not (np.isfinite(top) and top > 0):
        return np.ones(len(s2))
    return 1.0 / np.where(rows, np.maximum(s2, 1e-12 * top), top)


def _weak_directions(As, max_condition, names):
    """Return the parameter groups along weak eigenvectors of the scaled normal matrix.

    Weak: the eigenvalue is below the largest over ``max_condition``^2.
    """
    weak = []
    ev, V = np.linalg.eigh(As)
    lim = ev[-1] / max_condition ** 2
    for k in np.flatnonzero(ev < lim):
        comp = np.abs(V[:, k])
        idx = np.flatnonzero(comp > _WEAK_COMPONENT_FRACTION * comp.max())
        weak.append([names[i] if names else str(i) for i in idx])
    return weak


def solve_least_squares(neq: NormalEquations, weighting='wls', column_scaling=True, prior=None,
                        prior_weight=0.0, confidence=0.95, sigma_nm=None, names=None,
                        max_condition=np.inf) -> LeastSquaresResult:
    """OLS / WLS on accumulated normal equations.

    Args:
        neq: the normal equations.
        weighting: 'ols', or 'wls': per-joint noise variance from the OLS residual (or
            ``sigma_nm``), weights 1/sigma_j^2, re-solved (Swevers eq. 23-24).
        column_scaling: unit-norm columns (eq. 25-26); the condition number is reported both
            ways.
        prior, prior_weight: damped least squares toward ``prior`` (eq. 27-29), the penalty
            lambda^2 ||S^-1 (beta - prior)||^2 in scaled units (a weight of 1 weighs the prior
            like one unit-norm column).
        confidence: level of the intervals (Student's t).
        sigma_nm: per-joint noise std (Nm) for WLS; default from the OLS residual.
        names: base parameter names, for messages.
        max_condition: scaled condition number beyond which a direction is reported weak.

    Returns:
        The ``LeastSquaresResult``. Covariance (eq. 20-22): sigma^2 (W'W)^-1 for OLS,
        (sum_j W_j'W_j / sigma_j^2)^-1 for WLS (the posterior with a prior).
    """
    n, b = neq.c.shape
    N_rows = int(neq.count.sum())
    if N_rows == 0:
        raise IdentificationError('no sample left to fit: every row was left out (joints slower '
                                  'than min_velocity_rad_s); lower --min-velocity-rad-s or '
                                  'record motion')
    dof = max(N_rows - b, 1)
    w = np.ones(n)
    sol = _solve_weighted(neq, w, column_scaling, prior, prior_weight, names)
    ss = neq.residual_ss(sol.beta)
    sigma2 = ss / np.maximum(neq.count - b / n, 1)
    method = 'ols'
    if weighting == 'wls':
        w = _joint_weights((np.asarray(sigma_nm, float) ** 2) if sigma_nm is not None
                           else sigma2, neq.count)
        sol = _solve_weighted(neq, w, column_scaling, prior, prior_weight, names)
        ss = neq.residual_ss(sol.beta)
        method = 'wls'
    # condition numbers (of the weighted regressor W' = diag(sqrt w) W)
    cond = _cond_from_normal(sol.A)
    cond_s = _cond_from_normal(sol.As)
    weak = _weak_directions(sol.As, max_condition, names)
    S = sol.S
    if weighting == 'wls':
        cov = (sol.inv * S[:, None] * S[None, :])
        sigma_used = np.sqrt(1.0 / w)
        # rescale by the WLS goodness of fit (chi2 / dof), close to 1 when the weights are right
        chi2 = float(w @ ss) / dof
        cov = cov * chi2
    else:
        s2_all = float(ss.sum()) / dof
        cov = s2_all * (sol.inv * S[:, None] * S[None, :])
        sigma_used = np.full(n, np.sqrt(s2_all))
    std = np.sqrt(np.clip(np.diag(cov), 0, None))
    tq = scipy.stats.t.ppf(0.5 + confidence / 2, dof)
    rms = np.sqrt(ss / np.maximum(neq.count, 1))
    rel = float(np.sqrt(ss.sum() / max(neq.yy.sum(), 1e-300)))
    if prior is not None and prior_weight > 0:
        method += f' + prior (weight {prior_weight:g})'
    beta = sol.beta
    return LeastSquaresResult(beta, cov, std, beta - tq * std, beta + tq * std, sigma_used, rms, w,
                              cond, cond_s, dof, method, rel, weak)
