# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Uncertainty of the estimate.

The covariance of the model torque (``TorqueUncertainty``) and how often the wrench covariance is
recomputed (``CovarianceSchedule``).
"""
from __future__ import annotations

import math

import numpy as np

from robot_id_ros.io.model_file import IdentifiedModel


class TorqueUncertainty:
    """Covariance of the model torque: parameters + identification residual + stiction band.

    The parameters' part is the base covariance of the identification, else the standard
    parameters' std.

    Args:
        model: the identified model (its ``base_covariance`` or ``parameter_std`` if any).
        residual_std_nm: (n,) Nm, the identification residual's std of each joint.
    """

    def __init__(self, model: IdentifiedModel, residual_std_nm):
        self.model = model
        self.res_var = np.asarray(residual_std_nm, dtype=float) ** 2
        self.kind = 'none'
        if model.base is not None and model.base_covariance is not None:
            self.kind = 'base'
            self.cov = np.asarray(model.base_covariance, dtype=float)
        elif model.parameter_std is not None:
            self.kind = 'standard'
            self.cov = np.diag(np.asarray(model.parameter_std, dtype=float) ** 2)

    def torque_covariance(self, q, qd, qdd, band):
        """Covariance of the model torque at N samples.

        Args:
            q: (N, n) rad.
            qd: (N, n) rad/s.
            qdd: (N, n) rad/s^2.
            band: (N, n) Nm, stiction band half-width (a uniform error: variance band^2 / 3).

        Returns:
            (N, n, n) Nm^2.
        """
        N, n = np.shape(q)
        C = np.zeros((N, n, n))
        if self.kind != 'none':
            W = self.model.regressor.stack(q, qd, qdd).reshape(N, n, -1)
            if self.kind == 'base':      # W theta = W_b beta with W_b = W[:, independent]
                W = W[..., self.model.base.independent]
            C += np.einsum('kip,pq,kjq->kij', W, self.cov, W)
        idx = np.arange(n)
        C[:, idx, idx] += self.res_var + np.asarray(band) ** 2 / 3.0
        return C


class CovarianceSchedule:
    """When the wrench covariance is recomputed.

    At the first sample after a reset, then at the first sample at least ``period_s`` after the
    last recomputation (held in between). ``due`` is the rule one sample at a time, ``samples``
    the same rule over arrays.

    Args:
        period_s: the period, s (> 0).
    """

    def __init__(self, period_s):
        # stamps are integers: d >= period_s * 1e9 <=> d >= ceil(period_s * 1e9)
        self.period_ns = math.ceil(period_s * 1e9)
        self.last_ns = None

    def reset(self):
        """Recompute at the next sample."""
        self.last_ns = None

    def due(self, stamp_ns: int) -> bool:
        """Whether to recompute at this sample (then it counts as recomputed).

        Args:
            stamp_ns: the sample's stamp, ns.

        Returns:
            True to recompute.
        """
        if self.last_ns is None or stamp_ns - self.last_ns >= self.period_ns:
            self.last_ns = stamp_ns
            return True
        return False

    def samples(self, stamp_ns, seg_start, seg_end):
        """Return the samples ``due`` picks over N accepted samples, reset at each segment start.

        Args:
            stamp_ns: (N,) int64 ns, increasing within each segment.
            seg_start: the first sample of each segment (a reset before it).
            seg_end: the end (exclusive) of each segment.

        Returns:
            (M,) int indices of the samples where the covariance is recomputed, increasing.
        """
        out = []
        for s0, s1 in zip(seg_start.tolist(), seg_end.tolist()):
            rel = stamp_ns[s0:s1] - stamp_ns[s0]                  # increasing within a segment
            nxt = np.searchsorted(rel, rel + self.period_ns).tolist()
            k = 0
            while k < s1 - s0:
                out.append(s0 + k)
                k = nxt[k]
        return np.array(out)
