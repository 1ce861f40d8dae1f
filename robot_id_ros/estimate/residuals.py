# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Residuals: two estimates of the external joint torque tau_ext from the joint states.

The arm obeys ``M(q) qdd + C(q, qd) qd + g(q) + f(qd) = tau_m + tau_ext``; both residuals take
``u = C qd + g + f - tau_m`` (Nm) per sample and return an estimate of tau_ext (Nm).

* ``MomentumObserver`` (default): the generalized momentum observer
  ``r = K (p - p0 - integral(tau_m + C^T qd - g - f + r) dt)``, ``p = M qd``; a first-order
  low-pass of tau_ext with bandwidth ``observer_gain_hz``, and no acceleration anywhere.
  Discretisation: ``C^T qd = Mdot qd - C qd``; ``C qd + g`` is Pinocchio's nonLinearEffects and
  the integral of ``Mdot qd`` is taken by the trapezoid rule on M, which makes
  ``p_k - p_{k-1} - integral(Mdot qd) = (M_k + M_{k-1})/2 (qd_k - qd_{k-1})`` exactly. The
  first-order update ``r_k = a r_{k-1} + (1 - a) delta_k / dt`` with ``a = exp(-K dt)`` is exact
  for a held input and stable for any sample interval (variable rates, gaps).
* ``DirectResidual``: ``tau_ext = M qdd + C qd + g + f - tau_m`` with the acceleration from
  ``CausalDifferentiator`` (see there why it is causal); the torque terms pass through the same
  filter so that both sides carry the same lag.
"""
from __future__ import annotations

import math

import numpy as np


class MomentumObserver:
    """Generalized momentum observer over arrays (see the module docstring).

    One sample at a time it runs in the wrench estimator's compiled step (``sample_step``).

    Args:
        n: number of joints.
        gain_hz: bandwidth K / (2 pi), Hz.
    """

    def __init__(self, n, gain_hz):
        self.n = n
        self.K = 2.0 * math.pi * float(gain_hz)

    def reset(self):
        """Nothing to forget: the one-sample observer is in update's step (``sample_step``)."""

    def batch(self, dt, M, QD, U):
        """Return the residual over one segment of N samples from a reset state.

        The one-sample recursion's numbers, to rounding.

        Args:
            dt: (N,) s, dt[k] the interval before sample k (dt[0] unused).
            M: (N, n, n) mass matrices.
            QD: (N, n) rad/s.
            U: (N, n) Nm, ``C qd + g + f - tau_m``.

        Returns:
            (N, n) Nm.
        """
        return momentum_observer_batch(self.K, dt, M, QD, U)


def momentum_observer_batch(K, dt, M, QD, U, r0=None):
    """Return the ``MomentumObserver`` recursion over N samples at once (same numbers, vectorised).

    The linear recursion ``r_k = a_k r_{k-1} + b_k x_k`` is solved with cumulative products in
    blocks small enough that the products stay far from under/overflow.

    Args:
        K: observer gain, 1/s.
        dt: (N,) s, dt[k] the interval before sample k (dt[0] unused).
        M: (N, n, n) mass matrices.
        QD: (N, n) rad/s.
        U: (N, n) Nm, ``C qd + g + f - tau_m``.
        r0: (n,) Nm, the residual at sample 0; None: U[0] (the acceleration-free residual).

    Returns:
        (N, n) Nm.
    """
    N = len(QD)
    out = np.empty_like(U)
    out[0] = U[0] if r0 is None else r0
    if N == 1:
        return out
    dtk = dt[1:]
    dQD = QD[1:] - QD[:-1]
    Mb = M[1:] + M[:-1]
    delta = 0.5 * np.einsum('kij,kj->ki', Mb, dQD) + (0.5 * dtk)[:, None] * (U[1:] + U[:-1])
    loga = -K * dtk
    a = np.exp(loga)
    x = ((1.0 - a) / dtk)[:, None] * delta
    L = np.cumsum(loga)
    block = np.floor(-L / 300.0).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
    ends = np.r_[starts[1:], len(dtk)]
    r_prev = out[0]
    for s, e in zip(starts, ends):
        Lb = L[s:e] - (L[s - 1] if s > 0 else 0.0)   # log prod a over the block up to k
        P = np.exp(Lb)[:, None]
        seg = P * (r_prev + np.cumsum(x[s:e] / P, axis=0))
        out[1 + s:1 + e] = seg
        r_prev = seg[-1]
    return out


class CausalDifferentiator:
    """Critically damped second-order state-variable filter: per channel.

        x1' = x2,   x2' = w^2 (u - x1) - 2 w x2,

    so x1 is u low-passed (unit DC gain) and x2 = d x1 / dt is a filtered derivative of u.  It is
    causal: each output depends only on the current and past samples (a recursive filter,
    discretised exactly for an input held over each interval, closed form for any dt); this is
    what an estimator running online can use, unlike the zero-phase filters of ``signals``.
    """

    def __init__(self, n, bandwidth_hz):
        self.w = 2.0 * math.pi * float(bandwidth_hz)
        self.n = n
        self.reset()

    def reset(self):
        """Forget the state: the next sample starts afresh."""
        self.x1 = None
        self.x2 = None

    def step(self, u, dt):
        """Take one sample.

        Args:
            u: (n,) input.
            dt: s since the previous sample; <= 0 restarts (x1 = u, x2 = 0).

        Returns:
            (x1, x2): u low-passed and its derivative (unit/s).
        """
        if self.x1 is None or dt <= 0:
            self.x1 = np.array(u, dtype=float)
            self.x2 = np.zeros(self.n)
            return self.x1, self.x2
        w = self.w
        e = math.exp(-w * dt)
        wt = w * dt
        # Phi = e [[1 + wt, dt], [-w^2 dt, 1 - wt]],  Gamma = [1 - e (1 + wt), w^2 dt e]
        d = self.x1 - u            # the input enters through (x1 - u)
        x1 = u + e * ((1.0 + wt) * d + dt * self.x2)
        x2 = e * (-w * w * dt * d + (1.0 - wt) * self.x2)
        self.x1, self.x2 = x1, x2
        return x1, x2


class DirectResidual:
    """tau_ext = M(q) qdd_f + LP[C qd + g + f - tau_m], qdd_f from a ``CausalDifferentiator``.

    Args:
        n: number of joints.
        bandwidth_hz: bandwidth of the differentiator and of the torque filter, Hz.
    """

    def __init__(self, n, bandwidth_hz):
        self.diff = CausalDifferentiator(n, bandwidth_hz)
        self.lp = CausalDifferentiator(n, bandwidth_hz)

    def reset(self):
        """Forget the state: the next sample starts afresh."""
        self.diff.reset()
        self.lp.reset()

    def step(self, dt, M, qd, u):
        """Take one sample.

        Args:
            dt: s since the previous sample; <= 0 restarts.
            M: (n, n) mass matrix.
            qd: (n,) rad/s.
            u: (n,) Nm, ``C qd + g + f - tau_m`` at this sample.

        Returns:
            list of n floats, Nm, r (an estimate of tau_ext).
        """
        _, qdd = self.diff.step(qd, dt)
        u_f, _ = self.lp.step(u, dt)
        return (np.asarray(M) @ qdd + u_f).tolist()

    def batch(self, dt, M, QD, U):
        """Return the residual over one segment from a reset state, sample by sample (``step``).

        Leaves the residual reset. Arguments and result as ``MomentumObserver.batch``.
        """
        self.reset()
        R = np.empty_like(U)
        for k in range(len(U)):
            R[k] = self.step(dt[k], M[k], QD[k], U[k])
        self.reset()
        return R
