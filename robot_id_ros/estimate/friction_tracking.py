# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction that follows the arm while it works (``FrictionTracker``).

A gear's friction changes during work: it falls as the gear warms and its Coulomb part grows with
the load it carries. A model identified once then reads the change as an external torque. While
the arm moves without contact the residual is the model's friction error, so the tracker follows
each joint's friction terms from it: Coulomb in either direction, viscous and offset, the terms
of the model's law (its Stribeck term and stiction band are kept).

Per joint a Kalman filter over theta = (Coulomb +, Coulomb -, viscous, offset):

- **change:** a random walk; a term may drift by its own size (plus the residual std) in
  ``friction_tracking_time_s``, so the filter's confidence fades at that pace when it learns
  nothing, never beyond that size;
- **measurement:** the residual is a first-order low-pass (the residual's bandwidth) of the
  model's friction minus the true one. The model's friction under the same filter minus the
  residual is then the true friction under that filter, linear in theta with the filtered
  regressors (sign+, sign-, qd, 1): that is the measurement, its noise the residual variance
  counted once per independent sample of the filtered residual;
- **when it learns:** only with no contact flagged, the contact statistic below the release level
  for ``friction_tracking_holdoff_s`` (a push held, or one released a moment ago, is never
  learned), after the residual has settled from a restart, and per joint only while it moves
  faster than its stiction velocity (at rest its friction is anywhere in its stiction band).

The estimator writes the tracked terms into its step every ``apply_period_s``; the variance the
tracked terms still carry at the current regressors widens the published sigma.
"""
from __future__ import annotations

import math

import numpy as np

from robot_id_ros.estimate.calibration import settle_s

# the tracked terms, in the order of the filter's state and of ``friction_regressors``
TERMS = ('coulomb_pos_nm', 'coulomb_neg_nm', 'viscous_nm_s_rad', 'offset_nm')


def friction_regressors(qd, sign_velocity_rad_s):
    """Return the regressors (n, 4) of the tracked terms at joint velocities ``qd`` (rad/s).

    The model's law: Coulomb + times the smooth sign where it is positive, Coulomb - where it is
    negative, viscous times qd, and the offset (``sign_velocity_rad_s`` 0: the exact sign).
    """
    qd = np.asarray(qd, dtype=float)
    sign = np.tanh(qd / sign_velocity_rad_s) if sign_velocity_rad_s > 0 else np.sign(qd)
    return np.stack([np.maximum(sign, 0.0), np.minimum(sign, 0.0), qd, np.ones_like(qd)], -1)


class FrictionTracker:
    """Follow each joint's friction terms from the residual while the arm moves freely.

    Args:
        friction: the model's ``FrictionModel`` (the start, and the size of each term).
        residual_std_nm: (n,) Nm, the residual std the estimator runs on.
        bandwidth_hz: the residual's bandwidth, Hz.
        learn_speed_rad_s: (n,) rad/s, a joint learns only faster than this.
        time_s: a term may drift by its own size in this time, s.
        holdoff_s: no learning for this long after the contact statistic was at its release
            level, s.
        release_score: the contact statistic's release level (1 = the contact threshold).
    """

    def __init__(self, friction, residual_std_nm, bandwidth_hz, learn_speed_rad_s, time_s,
                 holdoff_s, release_score):
        self.sign_velocity_rad_s = float(friction.sign_velocity_rad_s)
        self.start = np.stack([np.asarray(getattr(friction, t), float) for t in TERMS], -1)
        self.n = self.start.shape[0]
        var = np.asarray(residual_std_nm, float) ** 2
        size = np.abs(self.start) + np.sqrt(var)[:, None]
        self.walk_var_per_s = size ** 2 / float(time_s)        # (n, 4) Nm^2 / s (per unit)
        self.max_var = size ** 2
        self.bandwidth_rad_s = 2.0 * math.pi * float(bandwidth_hz)
        self.settle_s = settle_s(bandwidth_hz)
        self.residual_var_nm2 = var
        self.learn_speed_rad_s = np.broadcast_to(np.asarray(learn_speed_rad_s, float), (self.n,))
        self.holdoff_s = float(holdoff_s)
        self.release_score = float(release_score)
        self.theta = self.start.copy()
        self.cov = np.zeros((self.n, 4, 4))
        self.samples_used = np.zeros(self.n, dtype=np.int64)
        self.restart()

    def restart(self):
        """Forget the filters' state (the residual restarted); keep what was learnt."""
        self._phi_f = None            # the filtered regressors (n, 4)
        self._model_f = None          # the model's tracked friction, filtered (n,)
        self._last = None             # (regressors, model friction) of the previous sample
        self._quiet_s = -self.settle_s      # the residual settles after a restart

    def observe(self, dt_s, qd, applied, tau_ext_nm, free):
        """Take one sample.

        Args:
            dt_s: s since the previous sample (0 after a restart).
            qd: (n,) rad/s.
            applied: (n, 4) the terms the estimator's step ran this sample with.
            tau_ext_nm: (n,) Nm, the residual as the contact test sees it.
            free: no contact flagged and the contact statistic below its release level.
        """
        phi = friction_regressors(qd, self.sign_velocity_rad_s)
        model = np.einsum('ij,ij->i', phi, applied)
        if dt_s <= 0.0 or self._phi_f is None:
            self._phi_f, self._model_f = phi.copy(), model.copy()
        else:
            # the residual's own discrete filter (the momentum observer's trapezoidal input)
            a = math.exp(-self.bandwidth_rad_s * dt_s)
            last_phi, last_model = self._last
            self._phi_f = a * self._phi_f + (1.0 - a) * 0.5 * (phi + last_phi)
            self._model_f = a * self._model_f + (1.0 - a) * 0.5 * (model + last_model)
        self._last = (phi, model)
        self._drift(dt_s)
        self._quiet_s = self._quiet_s + dt_s if free else -self.holdoff_s
        if self._quiet_s < 0.0 or dt_s <= 0.0:
            return
        learning = np.abs(qd) > self.learn_speed_rad_s
        if learning.any():
            self._measure(learning, self._model_f - np.asarray(tau_ext_nm, float), dt_s)

    def _drift(self, dt_s):
        """Let each term's variance grow by its random walk, up to the term's size squared."""
        if dt_s > 0.0:
            diag = np.einsum('jii->ji', self.cov)
            diag += np.minimum(self.walk_var_per_s * dt_s,
                               np.maximum(self.max_var - diag, 0.0))

    def _measure(self, rows, friction_f, dt_s):
        """Update the terms of the joints ``rows`` (bool (n,)) from the filtered friction."""
        H = self._phi_f[rows]                                   # (m, 4)
        P = self.cov[rows]                                      # (m, 4, 4)
        # a filtered residual has about bandwidth / pi independent samples a second
        r = self.residual_var_nm2[rows] * max(1.0, math.pi / (self.bandwidth_rad_s * dt_s))
        PH = np.einsum('jab,jb->ja', P, H)
        s = np.einsum('ja,ja->j', H, PH) + r
        gain = PH / s[:, None]
        innovation = friction_f[rows] - np.einsum('ja,ja->j', H, self.theta[rows])
        theta = self.theta[rows] + gain * innovation[:, None]
        theta[:, :3] = np.maximum(theta[:, :3], 0.0)   # Coulomb and viscous friction resist
        self.theta[rows] = theta
        self.cov[rows] = P - np.einsum('ja,jb->jab', gain, PH)
        self.samples_used[rows] += 1

    def variance_nm2(self, qd):
        """Return the variance (n,) Nm^2 the tracked terms carry at joint velocities ``qd``."""
        phi = friction_regressors(qd, self.sign_velocity_rad_s)
        return np.einsum('ja,jab,jb->j', phi, self.cov, phi)

    def terms(self):
        """Return {term name: (n,) values} of the tracked terms."""
        return {name: self.theta[:, k].copy() for k, name in enumerate(TERMS)}

    def term_std(self):
        """Return {term name: (n,) standard deviations} of the tracked terms."""
        diag = np.sqrt(np.maximum(np.einsum('jii->ji', self.cov), 0.0))
        return {name: diag[:, k].copy() for k, name in enumerate(TERMS)}
