# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Variance of a resting joint's held external torque, from how the hold came about.

With ``stiction_mode`` 'hold' a resting joint's external torque is the one closest to what it
felt before, anywhere in [tau - band, tau + band] (``stiction.stiction_hold``). Without more
knowledge its error is uniform over the band (variance band^2 / 3). But the hold's history tells
more:

* pushed: when the hold moves (the measured torque pushed it to the end of the interval) while
  the joint is in its stiction band, the joint has just slid or is on the point of sliding, so
  its friction is at the band's edge: between the sliding (Coulomb) friction and the breakaway.
  The error is then within that gap: variance ``gap^2 / 3``, gap = breakaway - min(Coulomb+,
  Coulomb-) of the model's friction (capped at the band's variance). A joint coming to rest
  from motion counts as pushed as well (its hold follows the moving torque until it sticks).
* released: a later change of the external torque that this joint does not show may have been
  absorbed by its friction (a resting joint holds any change inside its band without a trace).
  When another joint's hold moves by more than ``K_SIGMA`` standard deviations of its filtered
  noise (a change of the external wrench is seen there) and this joint's does not, this joint's
  edge is no longer known: back to the uniform band.
* sole sensor: a joint that alone senses some wrench axis (without it the axis is weak,
  ``observability.weak_fraction``) can absorb a change along that axis that no other joint
  shows, so nothing would ever release its edge: it keeps the uniform band.
* a band being released (the held band decaying after breakaway, ``stiction.hold_band``) and a
  restart (reset, tare) keep the uniform band too.

``HoldVariance.step`` tracks the edges one sample at a time on plain floats, ``edges`` over N
samples in numpy (the same booleans: they compare the same held torques, which the two stiction
holds give bit for bit); ``variance`` turns them into the per-joint variance that replaces
band^2 / 3 in the torque covariance.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.estimate.observability import WEAK_SHARE, weak_fraction

K_SIGMA = 3.0    # a hold moving by more than this many noise std shows a change of the wrench


def sole_sensors(J, rows, guard):
    """Return (n,) bool: the joints without which some estimated wrench axis is weak.

    Args:
        J: (6, n) the tool Jacobian in the wrench's frame.
        rows: the estimated wrench rows.
        guard: the mapper's ``sigma_guard``.
    """
    Jt = np.asarray(J)[list(rows)].T                    # (n, m)
    n = Jt.shape[0]
    keep = ~np.eye(n, dtype=bool)
    return np.array([bool((weak_fraction(Jt[keep[j]], guard) > WEAK_SHARE).any())
                     for j in range(n)])


def hold_variance(friction, residual_std_nm, config, mapper):
    """Return a ``HoldVariance`` for ``config`` (an ``EstimatorConfig``), None unless 'hold'.

    Args:
        friction: the model's ``FrictionModel``.
        residual_std_nm: (n,) Nm, the identification residual std.
        config: the estimator's settings (its stiction mode and residual); None: no hold.
        mapper: the ``WrenchMapper`` (its rows and sigma guard).
    """
    if config is None or config.stiction_mode != 'hold':
        return None
    hold = HoldVariance(friction, residual_std_nm, mapper.rows, mapper.sigma_guard)
    hold.gain_args = (config.method, config.observer_gain_hz if config.method == 'momentum'
                      else config.direct_filter_hz)    # for white_noise_gain
    return hold


class HoldVariance:
    """Which resting joints' holds sit at their band's edge, and the variance that gives.

    Args:
        friction: the model's ``FrictionModel`` (Coulomb per direction and breakaway).
        residual_std_nm: (n,) Nm, the identification residual std (the measured torque's white
            noise).
        rows: the estimated wrench rows.
        guard: the mapper's ``sigma_guard``.
    """

    def __init__(self, friction, residual_std_nm, rows, guard):
        gap = np.maximum(np.asarray(friction.breakaway_nm, float) - np.minimum(
            friction.coulomb_pos_nm, friction.coulomb_neg_nm), 0.0)
        self.gap_var = gap ** 2 / 3.0
        self.res_var = np.asarray(residual_std_nm, float) ** 2
        self._lim_l = (K_SIGMA ** 2 * self.res_var).tolist()
        self.n = len(self.gap_var)
        self.rows, self.guard = list(rows), guard
        self.gain_args = None      # (method, bandwidth Hz) of the residual (``hold_variance``)
        self.reset()

    def reset(self):
        """Forget the edges (a restart: every hold starts from the uniform band)."""
        self.edge = [False] * self.n
        self._raw = self._J = None      # the last sample's band before the hold, tool Jacobian

    def step(self, held_prev, held, band, raw_band, noise_gain, J):
        """Take one sample: mark the pushed holds, release the others if a change was seen.

        Args:
            held_prev: n floats, Nm, the held torque at the previous sample; None at a restart.
            held: n floats, Nm, the held torque now.
            band: n floats, Nm, the (held) stiction band now.
            raw_band: n floats, Nm, the band before ``hold_band_step`` (differs while released).
            noise_gain: ``white_noise_gain`` at this sample.
            J: (6, n) the tool Jacobian now (kept for ``variance_one``).

        Returns:
            ``held`` itself.
        """
        self._raw, self._J = raw_band, J
        if held_prev is None:
            self.edge = [False] * self.n
            return held
        seen, pushed = [], []
        for h, hp, b, r, lim in zip(held, held_prev, band, raw_band, self._lim_l):
            d = h - hp
            seen.append(d * d > noise_gain * lim)
            pushed.append(d != 0.0 and b == r)
        n_seen = sum(seen)
        self.edge = [True if p else (e and n_seen - s == 0)
                     for p, s, e in zip(pushed, seen, self.edge)]
        return held

    def variance_one(self, band):
        """Return ``variance`` at the last sample ``step`` took, n floats (Nm^2).

        Args:
            band: n floats, Nm, the (held) stiction band at that sample.
        """
        return self.variance(self.edge, band, self._raw,
                             sole_sensors(self._J, self.rows, self.guard)).tolist()

    def batch(self, cov_idx, H, raw_band, restart, J, band, noise_gain):
        """Return ``variance`` (N, n) at the samples ``cov_idx`` (0 elsewhere), from a reset state.

        Args:
            cov_idx: (M,) the covariance recomputations.
            H: (N, n) Nm, the held torque.
            raw_band: (N, n) Nm, the band before ``hold_band``.
            restart: (N,) bool, where the hold restarted (a reset or a tare before the sample).
            J: (N, 6, n) the tool Jacobians.
            band: (N, n) Nm, the (held) stiction band.
            noise_gain: (N,) ``white_noise_gain``.
        """
        edge = self.edges(H, band, raw_band, restart, noise_gain)
        sole = np.array([sole_sensors(J[k], self.rows, self.guard) for k in cov_idx.tolist()])
        out = np.zeros(np.shape(band))
        out[cov_idx] = self.variance(edge[cov_idx], band[cov_idx], raw_band[cov_idx],
                                     sole.reshape(len(cov_idx), -1))
        return out

    def edges(self, H, band, raw_band, restart, noise_gain):
        """Return, over N samples from a reset state, the booleans ``step`` gives: (N, n).

        Args:
            H: (N, n) Nm, the held torque.
            band: (N, n) Nm, the (held) stiction band.
            raw_band: (N, n) Nm, the band before ``hold_band``.
            restart: (N,) bool, where the hold restarted (a reset or a tare before the sample).
            noise_gain: (N,) ``white_noise_gain``.
        """
        H = np.asarray(H, float)
        N, n = H.shape
        d = np.zeros((N, n))
        d[1:] = H[1:] - H[:-1]
        fresh = np.asarray(restart, bool).copy()
        fresh[:1] = True
        seen = d * d > np.asarray(noise_gain, float)[:, None] * np.array(self._lim_l)
        pushed = (d != 0.0) & (band == raw_band) & ~fresh[:, None]
        others = seen.sum(axis=1, keepdims=True) - seen > 0
        # the last event of each joint decides: 1 pushed, 0 released or restarted, -1 none
        code = np.where(pushed, 1, np.where(others | fresh[:, None], 0, -1))
        last = np.maximum.accumulate(np.where(code >= 0, np.arange(N)[:, None], 0), axis=0)
        return np.take_along_axis(code, last, axis=0) == 1

    def variance(self, edge, band, raw_band, sole):
        """Return the held torques' variance, Nm^2: band^2 / 3, or the edge's where known.

        Args:
            edge: (.., n) bool, ``step``'s or ``edges``' edges.
            band: (.., n) Nm, the (held) stiction band.
            raw_band: (.., n) Nm, the band before ``hold_band``.
            sole: (.., n) bool, ``sole_sensors``.
        """
        band = np.asarray(band, float)
        full = band ** 2 / 3.0
        known = np.asarray(edge, bool) & ~np.asarray(sole, bool) & (band == raw_band)
        return np.where(known, np.minimum(self.gap_var, full), full)
