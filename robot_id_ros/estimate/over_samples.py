# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``sample_step``'s one-sample rules run over N samples, compiled: ``process``'s forms of them.

Each loop calls the very function ``update`` runs each sample, so the rule has one place.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.estimate.compiled import compiled
from robot_id_ros.estimate.contact_rule import contact_level, contact_scores, unexplained_band
from robot_id_ros.estimate.sample_step import stiction_point_and_band


@compiled
def contact_scores_over(T, B, contact_nm, collision_nm, contact_k2, collision_k2, combined):
    """Return ``contact_scores`` of N samples (T, B (N, n) Nm): two (N,) arrays."""
    N = T.shape[0]
    sc, sk = np.empty(N), np.empty(N)
    for k in range(N):
        sc[k], sk[k] = contact_scores(T[k], B[k], contact_nm, collision_nm, contact_k2,
                                      collision_k2, combined)
    return sc, sk


@compiled
def contact_levels_over(s_contact, s_collision, starts, release):
    """Return the ``contact_level`` of N samples, restarting from 0 at sample 0 and ``starts``."""
    out = np.zeros(s_contact.shape[0], dtype=np.int64)
    level = 0
    for k in range(s_contact.shape[0]):
        if k == 0 or starts[k]:
            level = 0
        level = contact_level(level, s_contact[k], s_collision[k], release)
        out[k] = level
    return out


@compiled
def stiction_point_and_band_over(law_nm, qd, v_s, offset_nm, breakaway_nm, smooth):
    """Return ``stiction_point_and_band`` of N samples (law_nm, qd (N, n)): two (N, n) arrays."""
    point, band = np.empty_like(law_nm), np.empty_like(law_nm)
    for k in range(law_nm.shape[0]):
        for j in range(law_nm.shape[1]):
            point[k, j], band[k, j] = stiction_point_and_band(
                law_nm[k, j], qd[k, j], v_s[j], offset_nm[j], breakaway_nm[j], smooth)
    return point, band


@compiled
def unexplained_band_over(band, model_nm, velocity_rad_s, relative_error, speed_error):
    """Return ``unexplained_band`` of N samples (band, model_nm, velocity_rad_s (N, n))."""
    out = np.empty_like(band)
    for k in range(band.shape[0]):
        for j in range(band.shape[1]):
            out[k, j] = unexplained_band(band[k, j], model_nm[k, j], velocity_rad_s[k, j],
                                         relative_error[j], speed_error[j])
    return out
