# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Wrench mapping: tau_ext (Nm) -> the wrench at the tool frame origin.

By damped least squares on J^T (``WrenchMapper``), with the matrix A (``wrench = A tau``) for
covariance propagation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np
import pinocchio as pin

from robot_id_ros.estimate.sample_step import gram3

_ROWS = {'full': np.arange(6), 'force': np.arange(3), 'torque': np.arange(3, 6)}


@dataclass
class Mapping:
    """The wrench rows a mapper estimates."""

    rows: np.ndarray          # which of the 6 wrench rows (fx, fy, fz, mx, my, mz) are estimated
    label: str                # 'full', 'force' or 'torque'


def wrench_rows(mode, n):
    """Return the rows estimated in a wrench mode.

    Args:
        mode: 'auto' (all six rows with n >= 6 joints, else the force), 'full', 'force' or
            'torque'.
        n: number of joints.

    Returns:
        ``Mapping``.
    """
    if mode == 'auto':
        mode = 'full' if n >= 6 else 'force'
    return Mapping(_ROWS[mode], mode)


def gram3_min_eig_inverse(G):
    """Smallest eigenvalue and inverse of symmetric 3 x 3 matrices, in closed form.

    The eigenvalue by the trigonometric method, the inverse by cofactors (``sample_step.gram3``,
    vectorised).

    Args:
        G: (N, 3, 3) symmetric matrices.

    Returns:
        (smallest eigenvalue (N,), inverse (N, 3, 3)); the inverse is NaN/inf where det <= 0.
    """
    a, d, f = G[:, 0, 0], G[:, 0, 1], G[:, 0, 2]
    b, e, c = G[:, 1, 1], G[:, 1, 2], G[:, 2, 2]
    p1 = d * d + e * e + f * f
    q = (a + b + c) / 3.0
    aq, bq, cq = a - q, b - q, c - q
    p2 = aq * aq + bq * bq + cq * cq + 2.0 * p1
    p = np.sqrt(p2 / 6.0)
    ip = np.divide(1.0, p, out=np.zeros_like(p), where=p2 > 0.0)   # p2 = 0 (G = q I): lam = q
    ba, bb, bc, bd, be, bf = aq * ip, bq * ip, cq * ip, d * ip, e * ip, f * ip
    r = 0.5 * (ba * (bb * bc - be * be) - bd * (bd * bc - be * bf) + bf * (bd * be - bb * bf))
    np.clip(r, -1.0, 1.0, out=r)
    lam = q + 2.0 * p * np.cos(np.arccos(r) / 3.0 + 2.0 * math.pi / 3.0)
    c00, c01, c02 = b * c - e * e, f * e - d * c, d * e - f * b
    c11, c12, c22 = a * c - f * f, d * f - a * e, a * b - d * d
    det = a * c00 + d * c01 + f * c02
    with np.errstate(divide='ignore', invalid='ignore'):
        idet = np.where(det > 0.0, 1.0 / det, np.nan)
    inv = np.stack([c00, c01, c02, c01, c11, c12, c02, c12, c22], axis=-1).reshape(-1, 3, 3)
    inv *= idet[:, None, None]
    return lam, inv


class WrenchMapper:
    """tau_ext -> wrench at the tool frame origin by damped least squares on J^T.

    Solves ``min |J_s^T F_s - tau|^2 + lambda^2 |F_s|^2`` for the selected rows ``s`` of the
    wrench (all six, the force, or the moment) with the SVD of ``J_s^T``. Damping is zero while
    the smallest singular value is above ``sigma_guard`` and grows to ``damping`` as it reaches
    zero. ``matrices`` gives the matrix A with ``F_s = A tau`` for covariance propagation.

    Args:
        n: number of joints.
        mode: wrench mode (see ``wrench_rows``).
        sigma_guard: smallest singular value of J_s^T below which damping starts (m or 1).
        damping: damping at zero singular value (same unit).
    """

    def __init__(self, n, mode='auto', sigma_guard=0.02, damping=0.02):
        self.mapping = wrench_rows(mode, n)
        self.rows = self.mapping.rows
        self.sigma_guard = float(sigma_guard)
        self.damping = float(damping)
        self.lam_min = (self.sigma_guard * 1.01) ** 2    # no damping above this Gram eigenvalue
        rows = self.rows.tolist()   # the closed form (sample_step.gram3): three consecutive rows
        self.block_start = rows[0] if rows == list(range(rows[0], rows[0] + 3)) else -1

    def matrices(self, J):
        """Return the mapping matrices of one or many Jacobians.

        Away from a singularity (sigma_min clearly above ``sigma_guard``: no damping) the damped
        least squares is the plain pseudo-inverse ``A_s = (J_s J_s^T)^-1 J_s``, solved through the
        m x m Gram matrix, whose smallest eigenvalue is sigma_min^2 (for m = 3 in closed form, as
        in update's step: ``gram3_min_eig_inverse``); near one (and for a single matrix) through
        the SVD of J_s^T. Both give the same numbers to rounding.

        Args:
            J: (6, n) or (N, 6, n) tool Jacobian(s) in the wrench's frame.

        Returns:
            (A, sigma_min, damped): A (..., 6, n) with wrench = A tau (rows not estimated are
            zero), the smallest singular value of J_s^T (...,) and whether damping is on (...,).
        """
        J = np.asarray(J)
        if J.ndim != 3 or len(J) < 2:
            return self._svd_matrices(J)
        Js = J[:, self.rows, :]
        G = np.einsum('kij,klj->kil', Js, Js)                         # (N, m, m)
        with np.errstate(invalid='ignore'):
            if len(self.rows) == 3:
                lam, Ginv = gram3_min_eig_inverse(G)
                ok = (lam > self.lam_min) & np.isfinite(Ginv).all(axis=(1, 2))
                As = Ginv @ Js                                        # not used where not ok
            else:
                lam = np.linalg.eigvalsh(G)[:, 0]
                ok = np.isfinite(lam) & (lam > self.lam_min)
                As = np.zeros_like(Js)
                As[ok] = np.linalg.solve(G[ok], Js[ok])
            smin = np.sqrt(lam)
        A = np.zeros(J.shape[:-2] + (6, J.shape[-1]))
        A[:, self.rows] = As
        damped = np.zeros(len(J), dtype=bool)
        bad = ~ok
        if bad.any():
            A[bad], smin[bad], damped[bad] = self._svd_matrices(J[bad])
        return A, smin, damped

    def matrix_one(self, J, weight=None):
        """Return A (6, n) of one sample, ``wrench = A tau`` (update's covariance).

        Args:
            J: (6, n) tool Jacobian in the wrench's frame.
            weight: n floats scaling each joint, or None.

        Returns:
            (6, n): ``matrices(J * weight)[0] * weight`` to rounding.
        """
        k0 = self.block_start
        if k0 >= 0:
            Js = J[k0:k0 + 3] if weight is None else J[k0:k0 + 3] * np.asarray(weight)
            (a, d, f), (_, b, e), (_, _, c) = np.dot(Js, Js.T).tolist()
            ok, c00, c01, c02, c11, c12, c22, det, _ = gram3(a, d, f, b, e, c, self.lam_min)
            if ok:
                A = np.zeros(J.shape)
                A[k0:k0 + 3] = np.array([[c00, c01, c02], [c01, c11, c12],
                                         [c02, c12, c22]]) @ Js / det
                return A if weight is None else A * np.asarray(weight)
        if weight is None:
            return self.matrices(J)[0]
        weight = np.asarray(weight)
        return self.matrices(J * weight)[0] * weight

    def _svd_matrices(self, J):
        """``matrices`` through the SVD of J_s^T, damped near a singularity."""
        Js = J[..., self.rows, :]                        # (..., m, n)
        U, s, Vt = np.linalg.svd(np.swapaxes(Js, -1, -2), full_matrices=False)  # J_s^T = U S Vt
        smin = s[..., -1]
        ratio = np.clip(smin / self.sigma_guard, 0.0, 1.0)
        lam2 = (self.damping ** 2) * (1.0 - ratio ** 2)
        gain = s / (s * s + lam2[..., None])
        As = np.einsum('...ji,...j,...kj->...ik', Vt, gain, U)   # V diag(gain) U^T: (..., m, n)
        A = np.zeros(J.shape[:-2] + (6, J.shape[-1]))
        A[..., self.rows, :] = As
        return A, smin, lam2 > 0


def root_frame_name(model) -> str:
    """Return the URDF root link of a Pinocchio ``model``: its first BODY frame, else frame 0."""
    for f in model.frames:
        if f.type == pin.FrameType.BODY:
            return f.name
    return model.frames[0].name
