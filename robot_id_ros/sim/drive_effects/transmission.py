# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A compliant transmission: a spring between the motor (and its encoder) and the link.

The spring of stiffness K carries the link's torque, so the motor side leads the link by the
deflection: q_m = q + tau / K and qd_m = qd + (dtau/dt) / K. The motor side's own inertia is not
simulated (a rotor inertia acting at qdd_m instead of qdd, a term of size J (d2tau/dt2) / K).
"""
from __future__ import annotations

import numpy as np

# a deflection rate below this is rounding (np.gradient on a float time axis), not motion: an
# exact-sign friction law would read it as sliding at full Coulomb friction
RESTING_RATE_RAD_S = 1e-12


def compliant_motor_side(t_s, Q, QD, link_torque_nm, stiffness_nm_rad):
    """Return the motor side's position (N, n) rad and velocity (N, n) rad/s.

    Args:
        t_s: (N,) time, s (increasing).
        Q, QD: (N, n) the link's position (rad) and velocity (rad/s).
        link_torque_nm: (N, n) the torque the spring carries to the link, Nm.
        stiffness_nm_rad: K per joint (or one), Nm/rad, > 0.
    """
    K = np.asarray(stiffness_nm_rad, dtype=float)
    if not np.all(K > 0) or not np.all(np.isfinite(K)):
        raise ValueError(f'stiffness_nm_rad must be finite and > 0, got {K}')
    tau = np.asarray(link_torque_nm, dtype=float)
    rate = np.gradient(tau, np.asarray(t_s, dtype=float), axis=0) / K
    rate[np.abs(rate) < RESTING_RATE_RAD_S] = 0.0
    return np.asarray(Q, dtype=float) + tau / K, np.asarray(QD, dtype=float) + rate
