# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Drive gains (Nm/A per joint) fitted jointly with the dynamics from motor-current statistics.

With efforts recorded as motor current i (A) and tau_j = k_j i_j, the model is bilinear:

    i_j = c_j (W_j(q, qd, qdd) beta + b_j),    c_j = 1 / k_j

(W: base regressor with friction columns, beta: base parameters, b: torque known in advance,
from ``--known`` parameters and from a payload of known mass and COM on a loaded run). The fit is
the maximum-likelihood one for white current noise per joint: alternating least squares (beta
by weighted LS given c; each c_j by a scalar LS given beta; the weights 1/sigma_j^2 re-estimated
from the current residuals), on per-joint normal matrices of [W_j, b_j, i_j] accumulated once.

(beta, k) and (s beta, s k) fit equally well when b = 0: one common scale is not observable from
the currents. In order of preference it comes from a run with a known payload, from known
parameters (b != 0 in both cases: the scale is then fitted with the rest), or from the URDF: the
model's gravity torque along the data matches the URDF's gravity torque in least squares (the
scale's accuracy is then the URDF's). Standard deviations come from the Fisher information of the
fit (with the scale held by its constraint in the URDF case: they then leave out the URDF's own
error). A joint whose predicted torque stays below ``min_torque_nm`` RMS has no gain (NaN).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from robot_id_ros.identify.drive_gain_result import DriveGainsResult
from robot_id_ros.identify.options import IdentificationError

# a joint whose predicted torque has an RMS below this has no identified gain
MIN_TORQUE_NM = 0.02
_MAX_ITERATIONS = 200
_TOLERANCE = 1e-10


@dataclass
class GainStatistics:
    """Per-joint normal matrices of [W_j beta-columns, b_j, i_j] and the URDF gravity match.

    M (n, nb + 2, nb + 2); count (n,) rows; GG (nb, nb) and Gg (nb,): G' G and G' g_urdf of the
    gravity part G of the base regressor (inertial columns only) against the URDF's gravity
    torque g_urdf (Nm), over a subset of the samples; gg = g_urdf' g_urdf.
    """

    M: np.ndarray
    count: np.ndarray
    GG: np.ndarray
    Gg: np.ndarray
    gg: float = 0.0

    @classmethod
    def zeros(cls, n, nb):
        """Empty statistics of ``n`` joints and ``nb`` unknown base parameters."""
        return cls(np.zeros((n, nb + 2, nb + 2)), np.zeros(n, dtype=int), np.zeros((nb, nb)),
                   np.zeros(nb))

    @property
    def nb(self):
        """Number of unknown base parameters."""
        return self.M.shape[1] - 2

    @classmethod
    def total(cls, parts):
        """Return the statistics of all samples of ``parts`` (a list of ``GainStatistics``)."""
        return cls(sum(p.M for p in parts), sum(p.count for p in parts),
                   sum(p.GG for p in parts), sum(p.Gg for p in parts),
                   float(sum(p.gg for p in parts)))

    def columns(self, nb):
        """Return the statistics of the first ``nb`` unknown columns only (the others left out)."""
        keep = np.r_[np.arange(nb), self.nb, self.nb + 1]
        return GainStatistics(self.M[:, keep][:, :, keep], self.count.copy(),
                              self.GG[:nb, :nb].copy(), self.Gg[:nb].copy(), self.gg)

    def without(self, part):
        """Return the statistics with the samples of ``part`` (a subset of them) taken out."""
        return GainStatistics(self.M - part.M, self.count - part.count, self.GG - part.GG,
                              self.Gg - part.Gg, self.gg - part.gg)

    def add(self, Wb, B, current_a, mask=None):
        """Add samples.

        Args:
            Wb: (N*n, nb) base regressor, sample-major.
            B: (N, n) known torque, Nm.
            current_a: (N, n) motor current, A.
            mask: (N, n) bool rows to use; all when None.
        """
        n = self.M.shape[0]
        U = np.concatenate([Wb.reshape(len(B), n, self.nb), B[:, :, None],
                            current_a[:, :, None]], axis=2)
        for j in range(n):
            Uj = U[:, j, :] if mask is None else U[mask[:, j], j, :]
            self.M[j] += Uj.T @ Uj
            self.count[j] += len(Uj)


def _parts(M):
    """Return (A, wb, wi, bb, bi, ii) of per-joint normal matrices M (n, nb+2, nb+2)."""
    nb = M.shape[1] - 2
    return (M[:, :nb, :nb], M[:, :nb, nb], M[:, :nb, nb + 1], M[:, nb, nb], M[:, nb, nb + 1],
            M[:, nb + 1, nb + 1])


def _predicted(M, beta):
    """Per joint (p.i, p.p) of the predicted torque p = W beta + b against the current."""
    A, wb, wi, bb, bi, _ = _parts(M)
    pi = wi @ beta + bi
    pp = np.einsum('a,jab,b->j', beta, A, beta) + 2 * wb @ beta + bb
    return pi, np.maximum(pp, 0.0)


def _urdf_scale(stats: GainStatistics, beta):
    """Scale s with s G beta closest to the URDF gravity torque (least squares)."""
    den = float(beta @ stats.GG @ beta)
    if not den > 0:
        raise IdentificationError('the data hold no gravity torque: the drive gains scale cannot '
                                  'come from the URDF; give a known parameter or a payload run')
    return float(stats.Gg @ beta) / den


def _fisher(M, beta, c, w, active):
    """Fisher information of (beta, c) for currents i_j = c_j (W_j beta + b_j) + noise."""
    A, wb, _, _, _, _ = _parts(M)
    nb, n = len(beta), len(c)
    F = np.zeros((nb + n, nb + n))
    _, pp = _predicted(M, beta)
    for j in np.flatnonzero(active):
        F[:nb, :nb] += w[j] * c[j] ** 2 * A[j]
        cross = w[j] * c[j] * (A[j] @ beta + wb[j])
        F[:nb, nb + j] = cross
        F[nb + j, :nb] = cross
        F[nb + j, nb + j] = w[j] * pp[j]
    return F


def _covariance(F, constraint, keep):
    """Z (Z' F Z)^+ Z' on the kept coordinates, Z spanning the constraint's null space."""
    Fk = F[np.ix_(keep, keep)]
    Z = np.eye(len(keep)) if constraint is None else scipy.linalg.null_space(
        constraint[keep][None, :])
    cov = np.full(F.shape, np.nan)
    cov[np.ix_(keep, keep)] = Z @ np.linalg.pinv(Z.T @ Fk @ Z, rcond=1e-13) @ Z.T
    return cov


def _linear_start(stats: GainStatistics, scale_source):
    """(beta, k) of the linear form W_j beta + b_j - k_j i_j = 0 in least squares.

    Rows normalised by each joint's current power; with ``scale_source`` 'urdf' under the
    constraint G'g_urdf . beta = g_urdf'g_urdf (the model's gravity projected on the URDF's).
    """
    M, count = stats.M, np.maximum(stats.count, 1)
    A, wb, wi, _, bi, ii = _parts(M)
    n, nb = M.shape[0], stats.nb
    rows = ii > 0
    w = np.where(rows, count / np.maximum(ii, 1e-300), 0.0)
    H = np.zeros((nb + n, nb + n))
    r = np.zeros(nb + n)
    H[:nb, :nb] = np.einsum('j,jab->ab', w, A)
    r[:nb] = -np.einsum('j,ja->a', w, wb)
    for j in range(n):
        H[:nb, nb + j] = H[nb + j, :nb] = -w[j] * wi[j]
        H[nb + j, nb + j] = w[j] * ii[j] if rows[j] else 1.0
        r[nb + j] = w[j] * bi[j]
    if scale_source == 'urdf':
        a = np.r_[stats.Gg, np.zeros(n)]
        H = np.block([[H, a[:, None]], [a[None, :], np.zeros((1, 1))]])
        r = np.r_[r, stats.gg]
    s = np.sqrt(np.maximum(np.abs(np.diag(H)), 1e-300))
    s[np.diag(H) == 0] = 1.0
    z = np.linalg.lstsq(H / np.outer(s, s), r / s, rcond=1e-13)[0] / s
    return z[:nb], z[nb:nb + n]


def _rss(M, beta, c):
    """Per-joint residual sum of squares of the current, A^2, at (beta, c)."""
    pi, pp = _predicted(M, beta)
    return _parts(M)[5] - 2 * c * pi + c * c * pp


def _lm_step(M, beta, c, w, active, lam):
    """Levenberg-Marquardt step of (beta, log c) on sum_j w_j rss_j."""
    A, wb, wi, _, _, _ = _parts(M)
    nb = len(beta)
    pi, pp = _predicted(M, beta)
    cz = np.nan_to_num(c)
    g = np.zeros(nb + len(c))
    for j in np.flatnonzero(active):
        g[:nb] += w[j] * (-2 * cz[j] * wi[j] + 2 * cz[j] ** 2 * (A[j] @ beta + wb[j]))
        g[nb + j] = cz[j] * w[j] * (-2 * pi[j] + 2 * cz[j] * pp[j])
    D = np.r_[np.ones(nb), cz]
    F = 2 * _fisher(M, beta, cz, w, active) * np.outer(D, D)
    keep = np.r_[np.arange(nb), nb + np.flatnonzero(active)]
    Fk = F[np.ix_(keep, keep)]
    Fk = Fk + lam * np.diag(np.diag(Fk))
    s = np.sqrt(np.maximum(np.diag(Fk), 1e-300))
    step = np.zeros(len(g))
    H = Fk / np.outer(s, s)
    try:
        step[keep] = -np.linalg.solve(H, g[keep] / s) / s
    except np.linalg.LinAlgError:
        step[keep] = -np.linalg.lstsq(H, g[keep] / s, rcond=1e-15)[0] / s
    return beta + step[:nb], np.where(active, cz * np.exp(np.clip(step[nb:], -2, 2)), np.nan)


def _maximum_likelihood(stats: GainStatistics, beta, c, active, scale_source):
    """(beta, c, iterations) maximising the likelihood of the currents (Levenberg-Marquardt).

    The weights 1/sigma_j^2 follow the residuals; with 'urdf' the scale is put back on the
    gravity match after each step (the likelihood does not depend on it).
    """
    M, count = stats.M, np.maximum(stats.count, 1)

    def rescaled(b, cc):
        if scale_source == 'urdf':
            s = _urdf_scale(stats, b)
            return b * s, cc / s
        return b, cc

    beta, c = rescaled(beta, c)
    lam, it = 1e-3, 0
    for it in range(1, _MAX_ITERATIONS + 1):
        w = np.where(active, count / np.maximum(_rss(M, beta, c), 1e-300), 0.0)
        cost = float(np.nansum(w * _rss(M, beta, c)))
        while True:
            b2, c2 = rescaled(*_lm_step(M, beta, c, w, active, lam))
            cost2 = float(np.nansum(w * _rss(M, b2, c2)))
            if cost2 <= cost or lam > 1e12:
                break
            lam *= 10
        lam = max(lam / 10, 1e-12)
        change = np.nanmax(np.abs(np.log(c2[active] / c[active])))
        beta, c = b2, c2
        if change < _TOLERANCE or cost2 > cost:
            break
    return beta, c, it


def _without_known(M):
    """Return the normal matrices M with the known-torque column b set to zero."""
    M0 = M.copy()
    M0[:, -2, :] = 0.0
    M0[:, :, -2] = 0.0
    return M0


def solve_drive_gains(stats: GainStatistics, scale_source, min_torque_nm=MIN_TORQUE_NM,
                      note=''):
    """Alternating maximum-likelihood fit of (beta, gains) from ``GainStatistics``.

    Starts from the linear form (``_linear_start``), then alternates: beta by weighted least
    squares given c = 1 / k, each c_j by least squares given beta (the current is the noisy
    measurement: no errors-in-variables bias), weights from the current residuals.

    Args:
        stats: the accumulated statistics.
        scale_source: 'payload' or 'known' (b fixes the scale) or 'urdf' (gravity match).
        min_torque_nm: joints whose predicted torque RMS is below this get NaN.
        note: the line saying how the scale was fixed.

    Returns:
        The ``DriveGainsResult``.
    """
    M, count = stats.M, np.maximum(stats.count, 1)
    n, nb = M.shape[0], stats.nb
    ii = _parts(M)[5]
    A, _, _, bb, _, _ = _parts(M)
    energy = np.trace(A, axis1=1, axis2=2) + bb
    active = (ii > 0) & (energy > 1e-20 * max(energy.max(), 1e-300))
    # first the shape without the known torque, on the URDF scale (a start near the optimum:
    # the linear form alone shrinks the gains toward the trivial zero when b is small)
    first = scale_source if nb == 0 or not np.any(stats.GG) else 'urdf'
    st0 = stats if first == scale_source else dataclasses.replace(stats, M=_without_known(M))
    beta, _ = _linear_start(st0, first)
    pi, pp = _predicted(st0.M, beta)
    active &= pp > 0
    if not active.any():
        raise IdentificationError('no joint carries a torque the drive gains could be fitted to')
    c = np.where(active, np.abs(pi) / np.maximum(pp, 1e-300), np.nan)
    beta, c, it = _maximum_likelihood(st0, beta, c, active, first)
    if first != scale_source:
        beta, c, it2 = _maximum_likelihood(stats, beta, c, active, scale_source)
        it += it2
    pi, pp = _predicted(M, beta)
    weak = active & (np.sqrt(pp / count) < min_torque_nm)
    if weak.any():  # too little torque: no gain there, and the others fitted without them
        active &= ~weak
        if not active.any():
            raise IdentificationError('no joint carries a torque the drive gains could be '
                                      'fitted to')
        beta, c, it2 = _maximum_likelihood(stats, beta, np.where(active, c, np.nan), active,
                                           scale_source)
        it += it2
        pi, pp = _predicted(M, beta)
    if np.any(c[active] <= 0):
        bad = ', '.join(str(j + 1) for j in np.flatnonzero(active & (c <= 0)))
        raise IdentificationError(f'the drive gain of joint(s) {bad} came out negative: is the '
                                  'current sign the torque sign, and the right URDF given?')
    dof = np.maximum(count - (nb + active.sum()) / max(active.sum(), 1), 1)
    rss = np.where(active, ii - 2 * c * pi + c ** 2 * pp, np.nan)
    w = np.where(active, dof / np.maximum(rss, 1e-300), 0.0)
    keep = np.r_[np.arange(nb), nb + np.flatnonzero(active)]
    constraint = None
    if scale_source == 'urdf':  # d s / d beta at s = 1; the gains do not enter it
        den = float(beta @ stats.GG @ beta)
        constraint = np.r_[(stats.Gg - 2 * stats.GG @ beta) / den, np.zeros(n)]
    cov = _covariance(_fisher(M, beta, np.nan_to_num(c), w, active), constraint, keep)
    c_std = np.sqrt(np.clip(np.diag(cov)[nb:], 0, None))
    k = 1.0 / c
    std = np.where(active, c_std * k ** 2, np.nan)
    return DriveGainsResult(k, std, scale_source, note, beta,
                            np.sqrt(np.where(active, rss, np.nan) / count), it, int(count.max()),
                            std_noise=std.copy())


def unexplained_fraction(stats: GainStatistics):
    """Fraction of the known torque b that no base parameters reproduce.

    min over beta of sum_j ||W_j beta + b_j||^2, over sum_j ||b_j||^2: about 0 when b lies in the
    span of the free columns (then b fixes no scale), 1 when b is orthogonal to it.
    """
    A, wb, _, bb, _, _ = _parts(stats.M)
    total = float(bb.sum())
    if not total > 0:
        return 0.0
    H, r = A.sum(axis=0), wb.sum(axis=0)
    if len(r) == 0:
        return 1.0
    s = np.sqrt(np.maximum(np.diag(H), 1e-300))
    beta = -np.linalg.lstsq(H / np.outer(s, s), r / s, rcond=1e-12)[0] / s
    return max(float(total + 2 * r @ beta + beta @ H @ beta), 0.0) / total
