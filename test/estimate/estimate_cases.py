# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Shared cases of the estimation tests: the youBot with a known friction model, poses, motions and
measured torques generated with the model.

Measured torque is generated as tau_m = ID(q, qd, qdd) + friction(qd) - J^T F (the wrench F
applied to the tool), plus noise where stated; the estimator must return F.
"""
import numpy as np

from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.friction import FrictionModel

CANDLE = np.array([2.9496, 1.1344, -2.5482, 1.789, 2.9234])
BENT = CANDLE + np.array([0.0, 0.5, 0.9, 0.4, 0.0])       # tool 0.47 m out, away from singularity
RATE = 200.0


def youbot_friction():
    return FrictionModel(coulomb_pos_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
                         coulomb_neg_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
                         viscous_nm_s_rad=[0.5, 0.4, 0.3, 0.1, 0.05], offset_nm=0.0,
                         breakaway_nm=[0.8, 0.8, 0.6, 0.3, 0.15])


def trajectory(q0, seconds, amp, freq_hz, rate=RATE):
    t = np.arange(int(seconds * rate)) / rate
    w = 2 * np.pi * np.asarray(freq_hz)
    Q = q0 + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    return t, Q, QD, QDD


def measured(model, Q, QD, QDD, F, frame='base', noise_nm=0.0, seed=0, payload=None):
    """Torque the drives produce when the wrench F (N, 6) in ``frame`` acts on the tool."""
    truth = model
    if payload is not None:
        truth = nominal_model(model.robot, model.friction)
        truth.set_payload(payload)
    E = np.empty_like(Q)
    for k in range(len(Q)):
        J = truth.robot.tool_jacobian(Q[k], frame)
        E[k] = truth.torque(Q[k], QD[k], QDD[k]) - J.T @ F[k]
    return E + np.random.default_rng(seed).normal(0.0, noise_nm, E.shape)


def stamps(t):
    return (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)
