# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A prescribed link motion as drives with ``DriveEffects`` record it (a ``JointStateSeries``).

Per sample: the link torque tau_l = ID(q, qd, qdd) - J^T F (the truth's rigid body, an optional
wrench F at the tool); the motor side at q_m, qd_m (the link's own, or through the compliant
transmission); the motor torque tau_m = tau_l + friction(q_m, qd_m, tau_l, t) plus torque
noise; recorded are the encoder's reading of q_m, its differences as the velocity, and tau_m in
Nm, or the current sensor's reading of it in A when there is one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.sim.drive_effects.friction import FrictionEffects, joint_friction
from robot_id_ros.sim.drive_effects.sensors import (CurrentSensor, encoder_reading,
                                                    encoder_velocity)
from robot_id_ros.sim.drive_effects.transmission import compliant_motor_side

# a 19-bit encoder per turn at the joint: fine enough to be no effect of its own
FINE_ENCODER_RAD = 2 * np.pi / 2 ** 19
STAMP0_NS = 1_700_000_000 * 10 ** 9


@dataclass
class DriveEffects:
    """The effects on one arm's drives; None (or the fine encoder): the effect is absent."""

    friction: FrictionEffects | None = None
    stiffness_nm_rad: object = None                  # per joint, Nm/rad: compliant transmission
    current_sensor: CurrentSensor | None = None      # effort recorded as its reading, A
    encoder_resolution_rad: object = FINE_ENCODER_RAD


@dataclass
class DriveRun:
    """A recorded run and the truth behind it, (N, n) arrays."""

    series: JointStateSeries       # as recorded: encoder positions, their velocity, the effort
    link_torque_nm: np.ndarray     # what the rigid body needs (and the spring carries)
    motor_position_rad: np.ndarray
    motor_velocity_rad_s: np.ndarray
    friction_nm: np.ndarray        # at the motor side, with the effects
    motor_torque_nm: np.ndarray    # link torque + friction, before noise
    noise_nm: np.ndarray           # the torque noise added to the motor torque


def record_drives(truth, law: FrictionModel, t_s, Q, QD, QDD, effects: DriveEffects,
                  torque_noise_nm, rng, exact_sign=False, wrench=None, stamp0_ns=STAMP0_NS,
                  source='synthetic') -> DriveRun:
    """Return the ``DriveRun`` of the link motion ``Q, QD, QDD`` (N, n) at times ``t_s`` (N,).

    Args:
        truth: the ``RobotModel`` whose rigid body moves (``inverse_dynamics``).
        law: the friction law (``joint_friction``; ``exact_sign``: its exact sign).
        effects: the ``DriveEffects``.
        torque_noise_nm: std of the torque noise per joint (or one), Nm.
        rng: numpy Generator of the noise.
        wrench: (N, 6) wrench on the tool in the base frame (N, Nm), or None.
        stamp0_ns: the stamp of ``t_s`` = 0, ns.
    """
    t_s = np.asarray(t_s, dtype=float)
    tau_l = np.array([truth.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    if wrench is not None:
        tau_l -= np.array([truth.tool_jacobian(q, 'base').T @ f for q, f in zip(Q, wrench)])
    if effects.stiffness_nm_rad is None:
        Qm, QDm = np.array(Q, dtype=float), np.array(QD, dtype=float)
    else:
        Qm, QDm = compliant_motor_side(t_s, Q, QD, tau_l, effects.stiffness_nm_rad)
    fric = joint_friction(law, Qm, QDm, t_s, tau_l, effects.friction, exact_sign)
    tau_m = tau_l + fric
    noise = rng.normal(size=tau_m.shape) * np.asarray(torque_noise_nm, dtype=float)
    effort = tau_m + noise
    if effects.current_sensor is not None:
        effort = effects.current_sensor.reading_a(effort)
    q_read = encoder_reading(Qm, effects.encoder_resolution_rad)
    stamps = stamp0_ns + np.round(t_s * 1e9).astype(np.int64)
    series = JointStateSeries(tuple(truth.joint_names), stamps, q_read,
                              encoder_velocity(q_read, t_s), effort, source)
    return DriveRun(series, tau_l, Qm, QDm, fric, tau_m, noise)
