# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The friction law's plain-float form (``law_one``) gives the vectorised law's numbers.

On random values that reach every branch: zero and tiny velocities, both signs, Stribeck terms.
(The wrench estimator's ``update`` runs its own compiled step, ``estimate.onestep``, checked
against ``process`` in test_update_equals_process.py.)
"""
import numpy as np
import pytest

from robot_id_ros.model.friction import FrictionModel, law_one

N, n = 2000, 5


def friction(rng, stribeck=True):
    """A friction model with asymmetric Coulomb terms, offsets and (optionally) Stribeck terms."""
    return FrictionModel(rng.uniform(0.1, 2.0, n), rng.uniform(0.1, 2.0, n),
                         rng.uniform(0.0, 1.0, n), rng.uniform(-0.3, 0.3, n),
                         rng.uniform(0.0, 0.5, n) if stribeck else None,
                         rng.uniform(0.01, 0.2, n) if stribeck else None,
                         sign_velocity_rad_s=rng.uniform(0.001, 0.05))


def velocities(rng):
    """(N, n) rad/s: exact zeros, values around the stiction and sign velocities, and fast ones."""
    qd = rng.normal(size=(N, n)) * 10.0 ** rng.uniform(-5, 0.5, (N, n))
    qd[rng.uniform(size=(N, n)) < 0.1] = 0.0
    return qd


@pytest.mark.parametrize('seed', range(3))
@pytest.mark.parametrize('stribeck', [True, False])
def test_law_one_equals_the_vectorised_law(seed, stribeck):
    rng = np.random.default_rng(seed)
    fr = friction(rng, stribeck)
    QD = velocities(rng)
    terms = fr.joint_terms()
    smooth = np.array([law_one(terms, qd.tolist(), fr.sign_velocity_rad_s) for qd in QD])
    exact = np.array([law_one(terms, qd.tolist()) for qd in QD])
    np.testing.assert_allclose(smooth, fr.torque(QD), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(exact, fr.sliding_torque(QD), rtol=1e-13, atol=1e-15)
    assert not np.allclose(smooth, exact)       # the two laws differ: both branches were taken
