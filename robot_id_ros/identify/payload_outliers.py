# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Samples of a loaded run that no model of the arm and payload explains, left out of the fit.

A joint that strikes its hard stop, a drive at its torque limit or a knock on the arm puts torques
of several newton-metres into a handful of samples; least squares, weighted per joint by the
residual variance, lets those few samples pull the payload's columns far off. A sample is left
out when some
joint's residual after a first fit exceeds ``OUTLIER_SIGMAS`` times that joint's robust standard
deviation (1.4826 times the median absolute deviation of its residuals): every joint of it, as a
stop's impulse reaches the others through the coupling.
"""
from __future__ import annotations

import numpy as np

# residuals beyond this many robust standard deviations are not the fit's model or noise
OUTLIER_SIGMAS = 6.0


def outlier_samples(residual_nm, keep):
    """(N,) bool: the samples with some joint's residual beyond ``OUTLIER_SIGMAS`` robust stds.

    Args:
        residual_nm: (N, n) residual of a first fit, Nm.
        keep: (N, n) bool, the rows that fit used (the others are not judged).
    """
    r = np.asarray(residual_nm, dtype=float)
    keep = np.asarray(keep, dtype=bool)
    out = np.zeros(len(r), dtype=bool)
    for j in range(r.shape[1]):
        rj = r[keep[:, j], j]
        if rj.size < 10:
            continue
        sigma = 1.4826 * np.median(np.abs(rj - np.median(rj)))
        if sigma > 0:
            out |= keep[:, j] & (np.abs(r[:, j] - np.median(rj)) > OUTLIER_SIGMAS * sigma)
    return out
