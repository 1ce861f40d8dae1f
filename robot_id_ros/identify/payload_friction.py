# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The friction a payload changes: columns a trajectory's payload fit carries beside the payload.

A gear's Coulomb friction grows with the torque it transmits (tooth forces: an efficiency below
one), so per joint j the motor torque holds

    tau_f,j = fc_j sgn(qd_j) + mu_j |tau_l,j| sgn(qd_j),

tau_l the link torque. A model identified without the payload has no mu term: its Coulomb,
viscous and rigid-body parameters took what they could of it at the unloaded loads, and along
another motion with more load the rest is left in the payload torque, where it is not zero-mean
against the payload's gravity columns (driving and braking a joint see its load at different
poses). The payload fit therefore carries, per joint, the load column |tau_l,j| sgn(qd_j) and a
Coulomb column sgn(qd_j) for the change of the constant level, with tau_l the unloaded model's
rigid-body torque plus the payload's at the current estimate (iterated a few times: the payload
is a small part of tau_l). Their coefficients are not reported: they hold whatever else of the
friction differs between the model's run and this one, not only the load term.
"""
from __future__ import annotations

import numpy as np

# fits of (payload, friction change) with the load column from the previous payload estimate
LOAD_ITERATIONS = 3


def unloaded_rigid_torque(model, Q, QD, QDD):
    """(N, n) rigid-body torque of the ``IdentifiedModel`` without its payload, Nm."""
    saved = model.payload
    model.set_payload(None)
    try:
        return np.array([model.rigid_body_torque(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    finally:
        model.set_payload(saved)


def friction_change_columns(link_torque_nm, qd_rad_s):
    """(N*n, 2n) columns, rows sample-major and joint-minor: per joint |tau_l| sgn(qd), sgn(qd).

    Args:
        link_torque_nm: (N, n) link torque, Nm.
        qd_rad_s: (N, n) joint velocity, rad/s.
    """
    N, n = qd_rad_s.shape
    s = np.sign(qd_rad_s)
    E = np.zeros((N, n, 2 * n))
    joints = np.arange(n)
    E[:, joints, joints] = np.abs(link_torque_nm) * s
    E[:, joints, n + joints] = s
    return E.reshape(N * n, 2 * n)


def fit_with_friction_change(fit, Y, y, n, rigid_nm, qd_rad_s):
    """Fit the payload with the friction-change columns; return the fit's tuple for Y's columns.

    Args:
        fit: the weighted fit, ``fit(A, y) -> (x, cov, rms, cond, row weights)``.
        Y: (N*n, p) payload regressor whose first 4 columns are (m, m c).
        y: (N*n,) payload torque, Nm.
        n: joints.
        rigid_nm: (N, n) the unloaded model's rigid-body torque along the run, Nm.
        qd_rad_s: (N, n) the run's velocity, rad/s.

    Returns:
        (x, covariance, residual rms per joint, condition number, row weights, augmented
        regressor): x and covariance of Y's p columns, the condition number of Y's own columns
        (what the payload's identifiability is judged on), the others of the augmented fit.
    """
    p = Y.shape[1]
    x, _, _, cond, _ = fit(Y, y)
    for _ in range(LOAD_ITERATIONS):
        link = rigid_nm + (Y @ x).reshape(rigid_nm.shape)
        A = np.hstack([Y, friction_change_columns(link, qd_rad_s)])
        xa, cov, rms, _, rw = fit(A, y)
        x = xa[:p]
    return x, cov[:p, :p], rms, cond, rw, A
