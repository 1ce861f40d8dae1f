# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the contact itself says about the pressing force: force against tool position.

In ``force_hold`` the tool presses into a surface that does not move: the pressing force is a
function of how far the tool is along the pressing direction d, ``f = k (s - s0)`` with
``s = d . p`` (p the measured tool position) near the working point. The wrench estimate is
good while the joints move and frozen within the stiction band while they stick (the
estimator's sigma says which). ``ContactModel`` fits the line through the estimates of the
moving phases (weighted by their variance, forgetting old ones) and, from the measured
position, predicts the force while the joints stick; ``fuse`` combines both by their variances.
A surface that moves, or a contact that is not a line, shows as the fit's scatter: the model's
own variance grows and the estimate dominates.
"""
from __future__ import annotations

import math

import numpy as np

FIT_SIGMA_N = 0.6          # estimates with a larger sigma along d are not fitted
MIN_SAMPLES = 20           # the model predicts from this many fitted samples on
MIN_SPAN_M = 5e-4          # ... spread over this much of s at least
MIN_STIFFNESS_N_M = 50.0   # a slope below this is no contact: the model does not predict
# an estimate this many combined standard deviations off the line is not fitted, because the
# estimator's sigma misses a frozen estimate for a few samples as the joints stop; MIN_SAMPLES of
# them in a row are a contact that changed: the line is refitted from them on
GATE_SIGMA = 4.0


class ContactModel:
    """Weighted least-squares line ``f = a + b s`` with exponential forgetting.

    The old samples are forgotten when a new one is fitted, by the time since the last fitted
    one: estimates that are not fitted (the joints stick) bring no information, so they keep the
    line as it is (forgotten with time alone, a hold that kept the joints resting would lose its
    line and fall back on the frozen estimate).

    Args:
        memory_s: time constant of the forgetting, s.
    """

    def __init__(self, memory_s: float = 5.0):
        self.memory_s = float(memory_s)
        self.reset()

    def reset(self):
        """Forget every sample (a new contact)."""
        self._S = np.zeros((2, 2))     # sum w [1 s; s s^2]
        self._r = np.zeros(2)          # sum w [f; s f]
        self._ff = 0.0                 # sum w f^2
        self._wn = 0.0                 # sum of the weights w = 1 / sigma^2 (forgotten)
        self._n = 0.0                  # count (forgotten)
        self._s_ref = None             # s of the first sample (keeps the sums well scaled)
        self._s_lo = self._s_hi = None
        self._t = None
        self._rejected = 0             # estimates off the line in a row

    def add(self, t_s: float, s_m: float, force_n: float, sigma_n: float,
            min_force_n: float = 0.0):
        """Fit one estimate when it is informative (sigma small, the tool pressing, on the line).

        Args:
            t_s: its time, s.
            s_m: the measured tool position along the pressing direction, m.
            force_n: the estimated pressing force, N.
            sigma_n: the estimate's standard deviation along the pressing direction, N.
            min_force_n: estimates below this are not fitted either (in free space a moving
                arm's estimate can read a steady bias beyond 3 sigma: fitted, those samples at
                no contact flatten the line).
        """
        if not (sigma_n <= FIT_SIGMA_N and force_n > max(3.0 * sigma_n, min_force_n)):
            return
        line = self.predict(s_m)
        if line is not None and abs(force_n - line[0]) > GATE_SIGMA * math.hypot(sigma_n, line[1]):
            self._rejected += 1
            if self._rejected < MIN_SAMPLES:
                return
            self.reset()
        self._rejected = 0
        if self._t is not None and t_s > self._t:
            keep = math.exp(-(t_s - self._t) / self.memory_s)
            self._S *= keep
            self._r *= keep
            self._ff *= keep
            self._wn *= keep
            self._n *= keep
        self._t = t_s
        if self._s_ref is None:
            self._s_ref = s_m
        x = s_m - self._s_ref
        w = 1.0 / max(sigma_n, 0.05) ** 2
        self._S += w * np.array([[1.0, x], [x, x * x]])
        self._r += w * np.array([force_n, x * force_n])
        self._ff += w * force_n * force_n
        self._wn += w
        self._n += 1.0
        self._s_lo = s_m if self._s_lo is None else min(self._s_lo, s_m)
        self._s_hi = s_m if self._s_hi is None else max(self._s_hi, s_m)

    def predict(self, s_m: float):
        """Return (force N, its standard deviation N) at ``s_m``, or None without a model.

        The variance is the fit's weighted scatter per sample plus the line's own variance at
        ``s_m`` (its covariance scaled by the reduced chi-square).
        """
        if (self._n < MIN_SAMPLES or self._s_ref is None or
                self._s_hi - self._s_lo < MIN_SPAN_M):
            return None
        det = float(np.linalg.det(self._S))
        if not det > 0.0:
            return None
        cov = np.linalg.inv(self._S)
        a, b = cov @ self._r
        if b < MIN_STIFFNESS_N_M:
            return None
        # weighted residual sum: sum w (f - a - b x)^2, per unit weight
        chi2 = max(self._ff - float(np.array([a, b]) @ self._r), 0.0)
        dof = max(self._n - 2.0, 1.0)
        scatter2 = chi2 / self._wn * (self._n / dof)
        x = s_m - self._s_ref
        g = np.array([1.0, x])
        var = scatter2 + chi2 / dof * float(g @ cov @ g)
        return float(a + b * x), math.sqrt(max(var, 1e-6))

    @property
    def stiffness_n_m(self) -> float | None:
        """Return the fitted slope df/ds, N/m (None without a model)."""
        if self._n < MIN_SAMPLES or not float(np.linalg.det(self._S)) > 0.0:
            return None
        return float((np.linalg.inv(self._S) @ self._r)[1])


def fuse(force_n: float, sigma_n: float, model) -> tuple:
    """Return the force and its standard deviation from the estimate and a model prediction.

    Args:
        force_n: the estimate, N.
        sigma_n: its standard deviation, N.
        model: ``ContactModel.predict``'s (force, sigma) or None.

    Returns:
        (force N, sigma N): inverse-variance weighted.
    """
    if model is None:
        return force_n, sigma_n
    fm, sm = model
    we, wm = 1.0 / max(sigma_n, 1e-6) ** 2, 1.0 / max(sm, 1e-6) ** 2
    return (we * force_n + wm * fm) / (we + wm), math.sqrt(1.0 / (we + wm))
