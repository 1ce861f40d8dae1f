# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the drives' sensors make of the truth: a current sensor and an encoder.

- ``CurrentSensor``: the motor current is the motor torque over the drive gain (joint torque
  per ampere); the sensor reads it with a gain error and an offset,
  i_read = (1 + e) tau / k + i0.
- ``encoder_reading``: positions rounded to the encoder's resolution; ``encoder_velocity`` the
  velocity a drive reports from them, the difference of successive readings over the period.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class CurrentSensor:
    """Per joint: the true drive gains (Nm/A), the sensor's relative gain error e and offset i0."""

    drive_gains_nm_a: object
    gain_error: object = 0.0       # relative: the reading is (1 + e) times the current
    offset_a: object = 0.0         # A, added to the reading

    def __post_init__(self):
        self.drive_gains_nm_a = np.atleast_1d(np.asarray(self.drive_gains_nm_a, dtype=float))
        self.gain_error = np.atleast_1d(np.asarray(self.gain_error, dtype=float))
        self.offset_a = np.atleast_1d(np.asarray(self.offset_a, dtype=float))
        if not np.all(self.drive_gains_nm_a > 0):
            raise ValueError(f'drive_gains_nm_a must be > 0, got {self.drive_gains_nm_a}')
        if not np.all(self.gain_error > -1):
            raise ValueError(f'gain_error must be > -1, got {self.gain_error}')

    def current_a(self, motor_torque_nm):
        """Return the true motor current, A, of the motor torque (joint side), Nm."""
        return np.asarray(motor_torque_nm, dtype=float) / self.drive_gains_nm_a

    def reading_a(self, motor_torque_nm):
        """Return what the sensor reads, A: (1 + e) tau / k + i0."""
        return (1.0 + self.gain_error) * self.current_a(motor_torque_nm) + self.offset_a


def encoder_reading(Q, resolution_rad):
    """Return positions ``Q`` (N, n) rad rounded to multiples of ``resolution_rad`` (> 0)."""
    r = np.asarray(resolution_rad, dtype=float)
    if not np.all(r > 0):
        raise ValueError(f'resolution_rad must be > 0, got {r}')
    return np.round(np.asarray(Q, dtype=float) / r) * r


def encoder_velocity(Q_read, t_s):
    """Return the velocity (N, n) rad/s a drive reports: reading differences over the period.

    The first sample has no predecessor: 0.
    """
    Q_read = np.asarray(Q_read, dtype=float)
    dt = np.diff(np.asarray(t_s, dtype=float))[:, None]
    return np.vstack([np.zeros((1, Q_read.shape[1])), np.diff(Q_read, axis=0) / dt])
