# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""One sample's wrench map near a singularity, compiled (``damped_map_one``).

Where the compiled step's closed form does not map a sample (the tool Jacobian near a
singularity), ``update`` maps it by the damped least squares of ``mapping.WrenchMapper`` and, when
damping is on, takes the damping's bias as ``uncertainty.damping_bias`` does. Both rest on the same
SVD of the joint-weighted J_s^T, so this kernel takes it once and gives the wrench, the smallest
singular value and the bias in one call, with the numbers of those two functions.
"""
from __future__ import annotations

import math

import numpy as np

from robot_id_ros.estimate.compiled import compiled


@compiled
def damped_map_one(J, tau_nm, weight, rows, sigma_guard, damping, prior, wrench, bias):
    """Map one sample near a singularity; fill ``wrench`` and ``bias`` in place.

    Args:
        J: (6, n) the tool Jacobian in the wrench's frame.
        tau_nm: (n,) Nm, the external torque to map.
        weight: (n,) the joints' weights (``WrenchEstimator.joint_scale``).
        rows: (m,) int, the estimated wrench rows.
        sigma_guard, damping: ``WrenchMapper``'s (damping starts below sigma_guard).
        prior: (6,) N and Nm, the cap of the bias (``uncertainty.wrench_prior``).
        wrench: (6,) out, the damped estimate.
        bias: (6,) out, the damped minus the plain least squares wrench, capped at the prior
            (0 without damping).

    Returns:
        (smallest singular value of the weighted J_s^T, whether damping is on).
    """
    n, m = J.shape[1], rows.shape[0]
    JsT = np.empty((n, m))
    tw = np.empty(n)
    for c in range(n):
        tw[c] = tau_nm[c] * weight[c]
        for i in range(m):
            JsT[c, i] = J[rows[i], c] * weight[c]
    U, s, Vt = np.linalg.svd(JsT, full_matrices=False)     # J_s^T = U diag(s) Vt
    smin = s[m - 1]
    ratio = min(max(smin / sigma_guard, 0.0), 1.0)
    lam2 = damping * damping * (1.0 - ratio * ratio)
    wrench[:] = 0.0
    bias[:] = 0.0
    size2 = 0.0
    for i in range(m):
        plain = 0.0
        for c in range(n):
            a = 0.0
            p = 0.0
            for k in range(m):
                a += Vt[k, i] * (s[k] / (s[k] * s[k] + lam2)) * U[c, k]
                if s[k] > 0.0:
                    p += Vt[k, i] / s[k] * U[c, k]
            wrench[rows[i]] += a * tw[c]
            plain += p * tw[c]
        bias[rows[i]] = wrench[rows[i]] - plain
        size2 += (bias[rows[i]] / prior[rows[i]]) ** 2
    damped = lam2 > 0.0
    if not damped:
        bias[:] = 0.0
    elif size2 > 1.0:            # scaled down as a whole beyond the prior
        scale = 1.0 / math.sqrt(size2)
        for i in range(m):
            bias[rows[i]] *= scale
    return smin, damped
