# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Physical realisability of standard inertial parameters (Wensing, Kim, Slotine 2017).

Each link's 10 standard parameters (m, mx, my, mz, XX, XY, YY, XZ, YZ, ZZ: mass in kg, first
moments m c in kg m, inertia about the joint frame origin in kg m^2) are physically realisable
exactly when the link's pseudo-inertia matrix

    J = [[ (tr(I)/2) 1 - I , h ],
         [ h'              , m ]]

is positive semidefinite: positive mass, and second moments of mass (the diagonal of the upper
block) that satisfy the triangle inequalities. J is linear in the parameters,
J = sum_k theta_k E_k, with the basis ``PSEUDO_INERTIA_BASIS`` (10, 4, 4).
"""
from __future__ import annotations

import numpy as np

# E_k with J = sum_k theta_k E_k for one link
# (parameter order m, mx, my, mz, XX, XY, YY, XZ, YZ, ZZ)
PSEUDO_INERTIA_BASIS = np.zeros((10, 4, 4))
PSEUDO_INERTIA_BASIS[0][3, 3] = 1.0
for _k, _i in ((1, 0), (2, 1), (3, 2)):
    PSEUDO_INERTIA_BASIS[_k][_i, 3] = PSEUDO_INERTIA_BASIS[_k][3, _i] = 1.0
# Sigma = tr(I)/2 1 - I: XX -> diag(-1/2, 1/2, 1/2) ... products: -I_ij
PSEUDO_INERTIA_BASIS[4][:3, :3] = np.diag([-0.5, 0.5, 0.5])
PSEUDO_INERTIA_BASIS[6][:3, :3] = np.diag([0.5, -0.5, 0.5])
PSEUDO_INERTIA_BASIS[9][:3, :3] = np.diag([0.5, 0.5, -0.5])
PSEUDO_INERTIA_BASIS[5][0, 1] = PSEUDO_INERTIA_BASIS[5][1, 0] = -1.0
PSEUDO_INERTIA_BASIS[7][0, 2] = PSEUDO_INERTIA_BASIS[7][2, 0] = -1.0
PSEUDO_INERTIA_BASIS[8][1, 2] = PSEUDO_INERTIA_BASIS[8][2, 1] = -1.0


def pseudo_inertia(theta10):
    """Return the pseudo-inertia matrix of one link.

    Args:
        theta10: the link's 10 standard parameters (SI units, order as the module docstring).

    Returns:
        J, (4, 4).
    """
    return np.tensordot(np.asarray(theta10, float), PSEUDO_INERTIA_BASIS, axes=1)


def is_physically_consistent(theta, n, tol=0.0):
    """Whether the first ``n`` links of a standard vector are physically realisable.

    Args:
        theta: standard parameter vector (10 per link first; further entries are ignored).
        n: number of links.
        tol: smallest eigenvalue accepted is ``-tol``.

    Returns:
        (ok, min eigenvalue of each link's pseudo-inertia (n,)).
    """
    mins = np.array([np.linalg.eigvalsh(pseudo_inertia(theta[10 * i:10 * i + 10])).min()
                     for i in range(n)])
    return bool(np.all(mins >= -tol)), mins
