# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Contact detection from the external joint torque, with hysteresis (``ContactDetector``)."""
from __future__ import annotations

from enum import IntEnum

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.estimate.config import CONTACT_TESTS, check_choice
from robot_id_ros.estimate.over_samples import contact_levels_over, contact_scores_over


class ContactState(IntEnum):
    """Contact state of one sample; its value is the level (0, 1, 2)."""

    NONE = 0
    CONTACT = 1
    COLLISION = 2


CONTACT_NONE, CONTACT, COLLISION = ContactState.NONE, ContactState.CONTACT, ContactState.COLLISION
CONTACT_STATE_NAMES = tuple(s.name.lower() for s in ContactState)   # ('none', 'contact', ...)


class ContactDetector:
    """Contact / collision from the residual with hysteresis; two tests.

    ``'joint'``: ``excess_j = max(|tau_ext_j| - band_j, 0)`` (band: the stiction interval); the
    score is the largest ``excess_j / threshold_j`` over the joints.  A joint inside its band is
    blind up to the band's edge, so a contact that loads mostly joints passing through zero
    velocity waits until they leave it.

    ``'combined'`` (the estimator's default): one statistic over all joints,

        chi = sqrt(sum_j tau_ext_j^2 / (sigma_j^2 + band_j^2)),   sigma_j = threshold_j / k,

    ``k`` the threshold in standard deviations (``contact_sigma``, ``collision_sigma``), so
    ``sigma_j`` is the model's residual std (or a per-joint Nm override divided by ``k``); the
    score is ``chi / k``.  Without bands it is the Mahalanobis norm of tau_ext under the model's
    residual statistics (chi^2 with n degrees of freedom for a Gaussian residual: false-alarm
    probability per sample ``chi2.sf(k^2, n)``; k = 5, n = 5: 1.4e-4 for an unfiltered residual,
    far less for the observer's, which is low-passed) and for one loaded joint it is that joint's
    |tau_ext| / sigma, like the 'joint' test.  A joint in its stiction band counts with the band
    as one more standard deviation: ``band^2`` is the largest variance an error bounded by the band
    can have (all of it at the edges: a joint about to break away holds its friction at the band's
    edge, and just after, the observer still carries it while the band is released), so the joints
    that are free of friction uncertainty carry the detection while the others are in their band.

    Either way the state rises to contact at ``score >= 1`` and to collision at ``collision
    score >= 1``; it falls back below a level only when that level's score is under
    ``release_ratio``.

    Args:
        contact_nm: (n,) Nm, contact threshold of each joint.
        collision_nm: (n,) Nm, collision threshold of each joint (>= contact_nm).
        release_ratio: hysteresis, in (0, 1).
        test: 'joint' or 'combined'.
        contact_sigma: k of the contact threshold, in residual standard deviations.
        collision_sigma: k of the collision threshold.

    Raises:
        InputError: a threshold, the test or a k out of range.
    """

    def __init__(self, contact_nm, collision_nm, release_ratio=0.5, test='joint',
                 contact_sigma=1.0, collision_sigma=1.0):
        self.contact_nm = np.asarray(contact_nm, dtype=float)
        self.collision_nm = np.asarray(collision_nm, dtype=float)
        if np.any(self.contact_nm <= 0) or np.any(self.collision_nm < self.contact_nm):
            raise InputError('contact thresholds must be > 0 and collision thresholds >= contact '
                             'thresholds', 'config')
        check_choice('contact test', test, CONTACT_TESTS)
        if not (contact_sigma > 0 and collision_sigma > 0):
            raise InputError('contact_sigma and collision_sigma must be > 0', 'config')
        self.test = test
        self.combined = test == 'combined'
        self.release_ratio = float(release_ratio)
        # combined score^2 = sum tau^2 / (threshold^2 + k^2 band^2)
        self.contact_sigma2 = float(contact_sigma) ** 2
        self.collision_sigma2 = float(collision_sigma) ** 2

    def scores(self, tau_ext, band):
        """Return the test statistics of tau_ext, each over its threshold (1 = at the threshold).

        The rule is ``contact_rule.contact_scores``, the one ``update`` takes each sample.

        Args:
            tau_ext: (n,) or (N, n) Nm.
            band: stiction band half-width, Nm, shaped as tau_ext.

        Returns:
            (contact score, collision score): floats for (n,), (N,) arrays for (N, n).
        """
        tau_ext = np.asarray(tau_ext, dtype=float)
        T = np.ascontiguousarray(np.atleast_2d(tau_ext))
        B = np.ascontiguousarray(np.broadcast_to(np.asarray(band, dtype=float), tau_ext.shape)
                                 ).reshape(T.shape)
        sc, sk = contact_scores_over(T, B, self.contact_nm, self.collision_nm,
                                     self.contact_sigma2, self.collision_sigma2, self.combined)
        return (float(sc[0]), float(sk[0])) if tau_ext.ndim == 1 else (sc, sk)

    def states(self, s_contact, s_collision, starts):
        """Return the contact states over N samples: the hysteresis, sample by sample.

        The rule is ``contact_rule.contact_level``, the one ``update`` takes each sample.

        Args:
            s_contact: (N,) contact scores.
            s_collision: (N,) collision scores.
            starts: (N,) bool, where the state restarts from CONTACT_NONE (besides sample 0).

        Returns:
            (N,) int64 ``ContactState`` values.
        """
        return contact_levels_over(np.asarray(s_contact, dtype=float),
                                   np.asarray(s_collision, dtype=float),
                                   np.asarray(starts, dtype=bool), self.release_ratio)
