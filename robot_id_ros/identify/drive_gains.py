# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Drive gains (Nm/A per joint) identified jointly with the dynamics from motor currents.

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

Those white-noise deviations understate the uncertainty where model error, not noise, dominates:
a joint whose torque is mostly friction has its gain nearly collinear with its own friction
parameters, and a friction law a little off the model's moves the gain far more than the noise
does. So each run is also cut into ``BLOCKS`` time blocks and the fit repeated with one block
left out (delete-one-block jackknife; the statistics are sums, so each repeat costs one solve):
the spread of the gain over those repeats holds the model error that varies along the recording.
A friction law that misses the same way in every block (a Stribeck term the model lacks) moves
no block's gain against the others: the statistics also hold a Stribeck column per joint, and
the shift of each gain when the fit uses it is a third deviation. The reported deviation is the
largest of the three; a gain whose 95 % interval (1.96 deviations) stays within
``GAIN_TOLERANCE`` of it is identifiable up to the common scale (``ratio_identifiable``), and
flagged identifiable when the scale comes from a payload run or a known parameter. On the URDF's
scale no gain is flagged: its error is the URDF's common mass error, which the data cannot see
(the gravity of the dominant joints fixes it; synthetic youBot and UR5 with masses 20 % off:
every gain 6.6-11 % off with deviations of 0.01-0.9 %, the per-joint gravity ratios within 2-4 %
of each other).

The static payload experiment (``payload.estimate_drive_gains``) is the case with no unknown
dynamics: paired differences, beta empty, b = the known payload's torque.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import pinocchio as pin
import scipy.linalg

from robot_id_ros.identify.least_squares import free_columns, regressor_chunks, structural_base
from robot_id_ros.identify.options import IdentificationError, IdentificationOptions
from robot_id_ros.identify.trajectories import fit_mask, prepare_trajectory
from robot_id_ros.io.model_file import Payload
from robot_id_ros.model.regressor import Regressor
from robot_id_ros.model.robot import RobotModel

SCALE_SOURCES = ('payload', 'known', 'urdf')
# a joint whose predicted torque has an RMS below this has no identified gain
MIN_TORQUE_NM = 0.02
_MAX_ITERATIONS = 200
_TOLERANCE = 1e-10
# samples of the gravity match (URDF scale): at most this many, evenly spread
_GRAVITY_SAMPLES = 2000
# known torque that the free columns reproduce to within this fraction fixes no scale
_MIN_SCALE_INFORMATION = 1e-6
# time blocks per run of the delete-one-block jackknife of the gains
BLOCKS = 8
# a gain is identifiable when its 95 % interval half-width is within this fraction of it
GAIN_TOLERANCE = 0.05
_Z95 = 1.96


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


@dataclass
class DriveGainsResult:
    """Identified drive gains.

    gains_nm_per_a and std (n,), NaN where not identified; scale_source in ``SCALE_SOURCES``;
    note: one line saying how the scale was fixed; beta: the base parameters of the fit;
    residual_rms_a (n,) current residual; iterations of the alternating fit. std is the largest of
    std_noise (white-noise Fisher information), std_blocks (delete-one-block jackknife over
    time blocks, NaN when not computed) and std_structure (the shift with a Stribeck column,
    None when not computed); ratio_identifiable (n,) bool: 1.96 std within ``GAIN_TOLERANCE`` of
    the gain, whichever deviations std holds (the gain up to the common scale); identifiable
    (n,) bool: the same where the scale is the data's (payload, known), all False on the URDF's.
    """

    gains_nm_per_a: np.ndarray
    std: np.ndarray
    scale_source: str
    note: str
    beta: np.ndarray
    residual_rms_a: np.ndarray
    iterations: int
    samples: int = 0
    std_noise: np.ndarray | None = None
    std_blocks: np.ndarray | None = None
    blocks: int = 0
    std_structure: np.ndarray | None = None

    @property
    def ratio_identifiable(self):
        """(n,) bool: the gain's 95 % interval is within ``GAIN_TOLERANCE`` of it.

        The gain up to the common scale, which the interval leaves out on the URDF's scale.
        """
        return np.isfinite(self.std) & (_Z95 * self.std
                                        <= GAIN_TOLERANCE * np.abs(self.gains_nm_per_a))

    @property
    def identifiable(self):
        """(n,) bool: the gain itself is known within ``GAIN_TOLERANCE`` (95 %).

        ``ratio_identifiable`` where the scale comes from the data (a payload run, a known
        parameter); all False on the URDF's scale, whose error the intervals cannot hold.
        """
        if self.scale_source == 'urdf':
            return np.zeros(len(self.std), dtype=bool)
        return self.ratio_identifiable

    def advice(self, joint_names):
        """One line on the gains that are not identifiable and the fix; '' when all are."""
        bad = [n for n, ok in zip(joint_names, self.ratio_identifiable) if not ok]
        lines = []
        if self.scale_source == 'urdf':
            good = [n for n in joint_names if n not in bad]
            lines.append('drive gains rest on the URDF\'s mass scale: identifiable only up to '
                         f'that common scale ({", ".join(good) or "none"} within '
                         f'+-{100 * GAIN_TOLERANCE:g} % of each other); for the gains themselves '
                         'record a payload run (--gains-payload-data) or give a known parameter '
                         '(--known)')
        if bad:
            lines.append(f'drive gain(s) of {", ".join(bad)} not identifiable (95 % interval '
                         f'wider than +-{100 * GAIN_TOLERANCE:g} %: their torque is mostly '
                         'friction or too small): record a payload run that loads them '
                         '(--gains-payload-data), or give the gains with --drive-gains')
        return '; '.join(lines)

    @property
    def poses(self):
        """Rows per joint (poses of a static experiment)."""
        return self.samples

    def to_dict(self, joint_names):
        """Return the model file's ``identification.drive_gains`` entry (NaN as None)."""
        def plain(v):
            return {n: (float(x) if np.isfinite(x) else None) for n, x in zip(joint_names, v)}
        d = {'scale_source': self.scale_source, 'note': self.note,
             'gains_nm_per_a': plain(self.gains_nm_per_a), 'std_nm_per_a': plain(self.std),
             'residual_rms_a': plain(self.residual_rms_a), 'iterations': int(self.iterations),
             'identifiable': {n: bool(x) for n, x in zip(joint_names, self.identifiable)},
             'ratio_identifiable': {
                 n: bool(x) for n, x in zip(joint_names, self.ratio_identifiable)},
             'tolerance': GAIN_TOLERANCE}
        if self.std_noise is not None:
            d['std_noise_nm_per_a'] = plain(self.std_noise)
        if self.std_blocks is not None:
            d['std_blocks_nm_per_a'] = plain(self.std_blocks)
            d['blocks'] = int(self.blocks)
        if self.std_structure is not None:
            d['shift_stribeck_nm_per_a'] = plain(self.std_structure)
        return d


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


def with_block_spread(result: DriveGainsResult, blocks, scale_source,
                      min_torque_nm=MIN_TORQUE_NM):
    """Return ``result`` with the delete-one-block jackknife spread of its gains folded into std.

    Args:
        result: the fit on all blocks (``solve_drive_gains`` of their total).
        blocks: ``GainStatistics`` of each time block (at least 2).
        scale_source: as for ``solve_drive_gains``.
        min_torque_nm: as for ``solve_drive_gains``.

    Returns:
        The result with std_blocks set and std = max(std_noise, std_blocks); a joint whose gain
        a repeat cannot fit (too little torque, a negative gain) gets an infinite spread. With
        the URDF scale each repeat keeps the whole recording's gravity match: the URDF's scale
        is not a noise (and is left out of the intervals, as from the Fisher information).
    """
    total = GainStatistics.total(blocks)
    K = len(blocks)
    gains = np.full((K, len(result.gains_nm_per_a)), np.inf)
    for b, part in enumerate(blocks):
        rest = total.without(part)
        if scale_source == 'urdf':
            rest = dataclasses.replace(rest, GG=total.GG, Gg=total.Gg, gg=total.gg)
        try:
            gains[b] = solve_drive_gains(rest, scale_source, min_torque_nm).gains_nm_per_a
        except IdentificationError:
            continue
    ok = np.all(np.isfinite(gains), axis=0)
    spread = np.full(gains.shape[1], np.inf)
    spread[ok] = np.sqrt((K - 1) / K * np.sum(
        (gains[:, ok] - gains[:, ok].mean(axis=0)) ** 2, axis=0))
    spread[~np.isfinite(result.gains_nm_per_a)] = np.nan
    return dataclasses.replace(result, std=np.fmax(result.std_noise, spread), std_blocks=spread,
                               blocks=K)


def payload_parameters(robot: RobotModel, payload: Payload):
    """(10,) standard parameters (last joint's frame, Pinocchio order) of a point payload."""
    tool = robot.model.frames[robot.tool_frame_id].placement
    com = tool.act(np.asarray(payload.com_m, float))
    return pin.Inertia(float(payload.mass_kg), com, np.zeros((3, 3))).toDynamicParameters()


def _unexplained_fraction(stats: GainStatistics):
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


def _scale_source(options: IdentificationOptions, loaded):
    """('payload' | 'known' | 'urdf', note) by preference."""
    if loaded:
        return 'payload', (f'scale from {len(loaded)} run(s) with a known payload '
                           f'({", ".join(f"{p.mass_kg:g} kg" for _, p in loaded)})')
    if options.known_parameters:
        return 'known', ('scale from the known parameter(s) '
                         + ', '.join(f'{k}={v:g}' for k, v in options.known_parameters.items()))
    return 'urdf', ('scale from the URDF gravity (no payload run, no known parameter): the gains '
                    "are as accurate as the URDF's masses; intervals leave that error out, and "
                    'no gain is flagged identifiable')


def identify_drive_gains(robot: RobotModel, trajectories, options: IdentificationOptions,
                         loaded=(), min_torque_nm=MIN_TORQUE_NM) -> DriveGainsResult:
    """Drive gains jointly with the dynamics, on processed trajectories holding currents (A).

    Args:
        robot: the model (URDF values start the fit and, without anything else, fix the scale).
        trajectories: processed ``Trajectory`` list whose ``tau`` is the motor current, A.
        options: regressor structure, known parameters, row selection (``min_velocity_rad_s``).
        loaded: ``(Trajectory, Payload)`` pairs: runs with a known payload at the tool.
        min_torque_nm: joints whose predicted torque RMS is below this get NaN.

    Returns:
        The ``DriveGainsResult``; the scale source as in the module docstring.
    """
    plain = Regressor(robot, options.regressor_options())
    base = structural_base(plain, free_columns(plain, options.known_parameters)[0])
    # the statistics also hold a Stribeck column per joint (the friction law's likeliest miss):
    # the fit with it tells how far the model's own friction structure moves the gains
    richer = options.friction and not options.stribeck_column
    reg = Regressor(robot, dataclasses.replace(options, stribeck_column=True).regressor_options()
                    ) if richer else plain
    cols = [reg.names.index(plain.names[i]) for i in base.independent]
    nb = len(cols)
    cols += [i for i, nm in enumerate(reg.names) if nm not in plain.names]
    cols = np.array(cols, dtype=int)
    known_idx = free_columns(reg, options.known_parameters)[1]
    theta_ref = reg.reference_parameters()
    for k, v in options.known_parameters.items():
        theta_ref[reg.names.index(k)] = v
    source, note = _scale_source(options, loaded)
    blocks = [GainStatistics.zeros(robot.n, len(cols)) for _ in range(BLOCKS)]
    inertial = cols < reg.n_inertial
    last = slice(reg.n_inertial - 10, reg.n_inertial)
    runs = [(tr, None) for tr in trajectories] + list(loaded)
    total = sum(len(tr) for tr, _ in runs)
    for tr, payload in runs:
        mask = fit_mask(tr, options)
        x_pay = None if payload is None else payload_parameters(robot, payload)
        every = max(1, total // _GRAVITY_SAMPLES)
        block_of = np.arange(len(tr)) * BLOCKS // max(len(tr), 1)
        for s, e, W in regressor_chunks(
                reg, tr.q, tr.qd, tr.qdd, options.chunk_samples,
                tr.regressor_filter):
            B = (W[:, known_idx] @ theta_ref[known_idx]).reshape(e - s, robot.n)
            if x_pay is not None:
                B = B + (W[:, last] @ x_pay).reshape(e - s, robot.n)
            Wb = W[:, cols].reshape(e - s, robot.n, -1)
            for b in np.unique(block_of[s:e]):
                rows = np.flatnonzero(block_of[s:e] == b)
                blocks[b].add(Wb[rows].reshape(-1, Wb.shape[2]), B[rows], tr.tau[s:e][rows],
                              mask[s:e][rows])
            for i in range(s, e, every):
                G = reg.static(tr.q[i][None])[:, cols] * inertial
                g = robot.gravity_torque(tr.q[i])
                part = blocks[block_of[i]]
                part.GG += G.T @ G
                part.Gg += G.T @ g
                part.gg += float(g @ g)
    rich = GainStatistics.total(blocks)
    blocks = [b.columns(nb) for b in blocks]
    stats = GainStatistics.total(blocks)
    if source != 'urdf' and _unexplained_fraction(stats) < _MIN_SCALE_INFORMATION:
        what = ('the payload torque' if source == 'payload' else
                'the known parameters (regrouped with others: not identifiable alone)')
        source, note = 'urdf', f'{what} fix(es) no scale: ' + _scale_source(
            dataclasses.replace(options, known_parameters={}), ())[1]
    result = with_block_spread(solve_drive_gains(stats, source, min_torque_nm, note), blocks,
                               source, min_torque_nm)
    if not richer:
        return result
    try:
        shift = np.abs(solve_drive_gains(rich, source, min_torque_nm).gains_nm_per_a
                       - result.gains_nm_per_a)
    except IdentificationError:
        shift = np.full(robot.n, np.inf)
    shift = np.where(np.isfinite(result.gains_nm_per_a), np.nan_to_num(shift, nan=np.inf),
                     np.nan)
    return dataclasses.replace(result, std=np.fmax(result.std, shift), std_structure=shift)


def drive_gains_from_recordings(robot: RobotModel, data, options: IdentificationOptions,
                                loaded=()):
    """Drive gains from recorded runs whose effort is motor current (the pipeline's step).

    Args:
        robot: the model.
        data: ``(series, sidecar)`` pairs of the excitation runs.
        options: the identification options (effort_unit 'current', no gains).
        loaded: ``(series, sidecar, Payload)`` runs with a known payload at the tool.

    Returns:
        (``DriveGainsResult``, the options with ``drive_gains_nm_per_a`` set). Raises
        ``IdentificationError`` when a joint's gain is not identified.
    """
    if not data:
        raise IdentificationError('effort_unit "current" without drive gains: the gains are '
                                  'identified from trajectories (--data); give --data or '
                                  '--drive-gains')
    unit = dataclasses.replace(options, drive_gains_nm_per_a=[1.0] * robot.n)
    trs = [prepare_trajectory(s, unit, sc, robot).decimated(options.max_samples)
           for s, sc in data]
    lds = [(prepare_trajectory(s, unit, sc, robot).decimated(options.max_samples), p)
           for s, sc, p in loaded]
    r = identify_drive_gains(robot, trs, options, lds)
    missing = [robot.joint_names[j] for j in np.flatnonzero(~np.isfinite(r.gains_nm_per_a))]
    if missing:
        raise IdentificationError(f'the data do not identify the drive gain of '
                                  f'{", ".join(missing)} (too little torque): move those joints '
                                  'more, or give --drive-gains')
    return r, dataclasses.replace(options, drive_gains_nm_per_a=list(r.gains_nm_per_a))


def drive_gains_step(robot: RobotModel, data, options: IdentificationOptions, loaded, res):
    """Run the identification pipeline's drive-gain step (``identify.pipeline.identify``).

    Args:
        robot: the model.
        data: ``(series, sidecar)`` pairs of the excitation runs.
        options: the options (effort_unit 'current', no gains).
        loaded: ``(series, sidecar, Payload)`` runs with a known payload.
        res: the ``IdentificationResult``: gets the summary lines and the step time.

    Returns:
        (``DriveGainsResult``, the options with the identified gains).
    """
    t0 = time.perf_counter()
    r, options = drive_gains_from_recordings(robot, data, options, loaded)
    res.timings_s['drive_gains'] = time.perf_counter() - t0
    res.summary_lines.append(
        'drive gains (Nm/A) identified with the dynamics: ' + ', '.join(
            f'{g:.4g} +- {s:.2g}' for g, s in zip(r.gains_nm_per_a, r.std)))
    res.summary_lines.append(f'  {r.note}')
    res.summary_lines.append(
        f'  deviations: the largest of the white-noise one, the {r.blocks}-block jackknife and '
        'the shift with a Stribeck column (model error); identifiable (95 % interval within '
        f'+-{100 * GAIN_TOLERANCE:g} %'
        + (', up to the URDF\'s common scale' if r.scale_source == 'urdf' else '') + '): '
        + ', '.join(f'{n} {"yes" if ok else "NO"}'
                    for n, ok in zip(robot.joint_names, r.ratio_identifiable)))
    advice = r.advice(robot.joint_names)
    if advice:
        res.summary_lines.append(f'  {advice}')
    return r, options
