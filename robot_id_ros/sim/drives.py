# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the youBot drives measure: motor current, encoder ticks and integer motor rpm.

The youBot driver reports (youbot_facts.md):
- position from 4000 encoder ticks per motor revolution, i.e. 2 pi / (4000 N) rad at the joint;
- velocity from the drive's integer motor rpm, i.e. 2 pi / (60 N) rad/s at the joint;
- effort = current_A * Kt * N, with the current read as an integer number of mA.
The current is the motor torque divided by Kt * N (no gear efficiency, friction or rotor
inertia term: those are downstream of the motor torque).
"""
from __future__ import annotations

import numpy as np


class DriveModel:
    """Measurement model of n youBot drives."""

    def __init__(self, gear_ratios, torque_constants_nm_a, encoder_ticks_per_motor_rev=4000,
                 current_resolution_a=0.001, current_noise_a=0.010, quantize=True, rng=None):
        self.gear_ratios = np.asarray(gear_ratios, dtype=float)
        self.torque_constants_nm_a = np.asarray(torque_constants_nm_a, dtype=float)
        if self.gear_ratios.shape != self.torque_constants_nm_a.shape:
            raise ValueError('gear_ratios and torque_constants_nm_a must have one value per joint')
        self.drive_gains_nm_a = self.gear_ratios * self.torque_constants_nm_a
        self.quantize = bool(quantize)
        ticks = int(encoder_ticks_per_motor_rev)
        self.position_resolution_rad = (2 * np.pi /
                                        (ticks * self.gear_ratios)) if ticks > 0 else None
        self.velocity_resolution_rad_s = 2 * np.pi / (60.0 * self.gear_ratios)  # 1 motor rpm
        self.current_resolution_a = float(current_resolution_a)
        self.current_noise_a = float(current_noise_a)
        self.rng = rng if rng is not None else np.random.default_rng(0)

    # --- individual channels ---------------------------------------------------------------
    def measure_position(self, q):
        if not self.quantize or self.position_resolution_rad is None:
            return np.array(q, dtype=float)
        r = self.position_resolution_rad
        return np.round(np.asarray(q) / r) * r

    def measure_velocity(self, qd):
        if not self.quantize:
            return np.array(qd, dtype=float)
        r = self.velocity_resolution_rad_s
        return np.round(np.asarray(qd) / r) * r

    def measure_current(self, tau_motor_nm):
        """Motor current (A) the drive reads for joint torque tau_motor: noisy, then quantised."""
        i = np.asarray(tau_motor_nm, dtype=float) / self.drive_gains_nm_a
        if self.current_noise_a > 0:
            i = i + self.current_noise_a * self.rng.standard_normal(i.shape)
        if self.quantize and self.current_resolution_a > 0:
            r = self.current_resolution_a
            i = np.round(i / r) * r
        return i

    def current_to_torque(self, current_a):
        """Return the driver's effort: current * Kt * N (Nm at the joint)."""
        return np.asarray(current_a, dtype=float) * self.drive_gains_nm_a
