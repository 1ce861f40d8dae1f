# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The contact rule, one sample at a time (compiled): the test statistic and its hysteresis.

``contact_scores`` is the test (``contact.ContactDetector`` says why it has this form),
``unexplained_band`` what a joint's external torque may hold without contact besides its noise
(the stiction band and the model's own error), ``contact_level`` the hysteresis. ``update`` runs
them each sample (``sample_step``), ``process`` over its samples (``over_samples``): to change the
rule, change it here.
"""
from __future__ import annotations

import math

from robot_id_ros.estimate.compiled import compiled


@compiled
def contact_level(level, s_contact, s_collision, release):
    """One step of the contact hysteresis: the next level (``contact.ContactState`` value)."""
    if s_collision >= 1.0:
        level = 2
    elif level == 2 and s_collision < release:
        level = 1 if s_contact >= release else 0
    if level == 0 and s_contact >= 1.0:
        level = 1
    elif level == 1 and s_contact < release:
        level = 0
    return level


@compiled
def contact_scores(tau, band, contact_nm, collision_nm, contact_k2, collision_k2, combined):
    """Return the contact and collision scores of one sample: 1 = at the threshold.

    The contact test (``contact.ContactDetector`` says why): 'combined' (``combined`` True)
    sqrt(sum_j tau_j^2 / (threshold_j^2 + k^2 band_j^2)), else the largest
    max(|tau_j| - band_j, 0) / threshold_j.

    Args:
        tau: (n,) Nm, tau_ext; band: (n,) Nm, the stiction band.
        contact_nm, collision_nm: (n,) Nm, the thresholds.
        contact_k2, collision_k2: the thresholds' k^2 (k in residual standard deviations).
        combined: the 'combined' test.
    """
    sc = sk = 0.0
    if combined:
        for j in range(tau.shape[0]):
            t2, b2 = tau[j] * tau[j], band[j] * band[j]
            sc += t2 / (contact_nm[j] * contact_nm[j] + contact_k2 * b2)
            sk += t2 / (collision_nm[j] * collision_nm[j] + collision_k2 * b2)
        return math.sqrt(sc), math.sqrt(sk)
    for j in range(tau.shape[0]):
        e = abs(tau[j]) - band[j]
        if e > 0.0:
            c, k = e / contact_nm[j], e / collision_nm[j]
            sc = c if c > sc else sc
            sk = k if k > sk else sk
        elif e != e:
            return math.nan, math.nan
    return sc, sk


@compiled
def unexplained_band(band, model_nm, velocity_rad_s, relative_error, speed_error):
    """Return the torque (Nm) a joint's tau_ext may hold without contact, besides its noise.

    The stiction band and the model's error, which grows with the torque the model predicts and
    with the joint's speed (``statistics.ResidualStatistics``), combined as independent errors.
    """
    m, v = relative_error * model_nm, speed_error * velocity_rad_s
    return math.sqrt(band * band + m * m + v * v)
