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

    The eigenvalue by the trigonometric method, the inverse by cofactors (the arithmetic of
    ``WrenchMapper.map_one``, vectorised).

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
        self._lam_min = (self.sigma_guard * 1.01) ** 2   # no damping above (map_one, matrices)
        rows = self.rows.tolist()   # map_one's closed form: three consecutive rows
        self._block = slice(rows[0], rows[0] + 3) if rows == list(range(rows[0], rows[0] + 3)) \
            else None
        # map_one's work array [J_s; tau] and its views (made once: a view costs a numpy call)
        self._buf = np.empty((4, n))
        self._buf_js, self._buf_tau, self._buf_t = self._buf[:3], self._buf[3], self._buf.T

    def matrices(self, J):
        """Return the mapping matrices of one or many Jacobians.

        Away from a singularity (sigma_min clearly above ``sigma_guard``: no damping) the damped
        least squares is the plain pseudo-inverse ``A_s = (J_s J_s^T)^-1 J_s``, solved through the
        m x m Gram matrix, whose smallest eigenvalue is sigma_min^2 (for m = 3 in closed form, as
        in ``map_one``: ``gram3_min_eig_inverse``); near one (and for a single matrix) through the
        SVD of J_s^T. Both give the same numbers to rounding.

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
                ok = (lam > self._lam_min) & np.isfinite(Ginv).all(axis=(1, 2))
                As = Ginv @ Js                                        # not used where not ok
            else:
                lam = np.linalg.eigvalsh(G)[:, 0]
                ok = np.isfinite(lam) & (lam > self._lam_min)
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

    def map_one(self, J, tau, weight=None):
        """Return the wrench of one sample, without forming A when it can.

        For 3 mapped rows away from a singularity the 3 x 3 Gram system is solved in closed form
        (``_gram3``) on the entries of one small matrix product (G and J_s tau together);
        otherwise through ``matrices``. Same numbers as
        ``matrices(J * weight)[0] @ (tau * weight)`` to rounding.

        Args:
            J: (6, n) tool Jacobian in the wrench's frame.
            tau: n floats, Nm.
            weight: n floats (a list or an (n,) array: an array saves a conversion) scaling
                each joint (its column of J and its entry of tau), or None.

        Returns:
            (wrench (6,) N and Nm, sigma_min, damped).
        """
        if self._block is not None:
            buf = self._buf                  # [J_s; tau], joints weighted
            self._buf_js[...] = J[self._block]
            self._buf_tau[...] = tau
            if weight is not None:
                buf *= weight                # each joint's column
            # rows (G_i0, G_i1, G_i2, (J_s tau)_i): G and J_s tau in one product
            rows = np.dot(self._buf_js, self._buf_t).tolist()
            (a, d, f, y0), (_, b, e, y1), (_, _, c, y2) = rows
            g = self._gram3(a, d, f, b, e, c)
            if g is not None:
                (c00, c01, c02, c11, c12, c22), det, smin = g
                w = [0.0] * 6
                k0 = self._block.start
                w[k0] = (c00 * y0 + c01 * y1 + c02 * y2) / det
                w[k0 + 1] = (c01 * y0 + c11 * y1 + c12 * y2) / det
                w[k0 + 2] = (c02 * y0 + c12 * y1 + c22 * y2) / det
                return np.array(w), smin, False
        if weight is not None:
            J, tau = J * np.asarray(weight), np.multiply(tau, weight)
        A, smin, damped = self._svd_matrices(J)
        return A @ np.asarray(tau, dtype=float), float(smin), bool(damped)

    def matrix_one(self, J, weight=None):
        """Return A (6, n) of one sample, ``wrench = A tau`` (``map_one``'s mapping as a matrix).

        Args:
            J: (6, n) tool Jacobian in the wrench's frame.
            weight: n floats scaling each joint, or None (as in ``map_one``).

        Returns:
            (6, n): ``matrices(J * weight)[0] * weight`` to rounding.
        """
        if self._block is not None:
            Js = J[self._block] if weight is None else J[self._block] * np.asarray(weight)
            (a, d, f), (_, b, e), (_, _, c) = np.dot(Js, Js.T).tolist()
            g = self._gram3(a, d, f, b, e, c)
            if g is not None:
                (c00, c01, c02, c11, c12, c22), det, _ = g
                A = np.zeros(J.shape)
                A[self._block] = np.array([[c00, c01, c02], [c01, c11, c12],
                                           [c02, c12, c22]]) @ Js / det
                return A if weight is None else A * np.asarray(weight)
        if weight is None:
            return self.matrices(J)[0]
        weight = np.asarray(weight)
        return self.matrices(J * weight)[0] * weight

    def _gram3(self, a, d, f, b, e, c):
        """Cofactors and determinant of G = J_s J_s^T (entries a d f / b e / c), and sigma_min.

        The closed form of ``gram3_min_eig_inverse`` on one matrix, in plain float arithmetic:
        G = [[a, d, f], [d, b, e], [f, e, c]].

        Returns:
            ((c00, c01, c02, c11, c12, c22), det, sigma_min), or None near a singularity (the
            damped least squares is needed) or where G is not positive definite.
        """
        p1 = d * d + e * e + f * f
        q = (a + b + c) / 3.0
        aq, bq, cq = a - q, b - q, c - q
        p2 = aq * aq + bq * bq + cq * cq + 2.0 * p1
        if p2 > 0.0:
            p = math.sqrt(p2 / 6.0)
            ip = 1.0 / p
            ba, bb, bc, bd, be, bf = aq * ip, bq * ip, cq * ip, d * ip, e * ip, f * ip
            r = 0.5 * (ba * (bb * bc - be * be) - bd * (bd * bc - be * bf)
                       + bf * (bd * be - bb * bf))
            r = -1.0 if r < -1.0 else (1.0 if r > 1.0 else r)
            lam = q + 2.0 * p * math.cos(math.acos(r) / 3.0 + 2.0 * math.pi / 3.0)
        else:
            lam = q
        if not lam > self._lam_min:
            return None
        c00, c01, c02 = b * c - e * e, f * e - d * c, d * e - f * b
        c11, c12, c22 = a * c - f * f, d * f - a * e, a * b - d * d
        det = a * c00 + d * c01 + f * c02
        if not det > 0.0:
            return None
        return (c00, c01, c02, c11, c12, c22), det, math.sqrt(lam)

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
