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
        self._gains = self.drive_gains_nm_a.tolist()
        self._pos_res = (self.position_resolution_rad.tolist()
                         if self.position_resolution_rad is not None else None)
        self._vel_res = self.velocity_resolution_rad_s.tolist()

    # --- individual channels (on floats: numpy's overhead dominates on 5 values) -------------
    def measure_position(self, q):
        """Return the encoder position [rad]: ``q`` quantised to the encoder resolution."""
        if not self.quantize or self.position_resolution_rad is None:
            return np.array(q, dtype=float)
        return np.array(quantised(np.asarray(q, dtype=float).tolist(), self._pos_res))

    def measure_velocity(self, qd):
        """Return the drive's velocity [rad/s]: ``qd`` quantised to 1 motor rpm."""
        if not self.quantize:
            return np.array(qd, dtype=float)
        return np.array(quantised(np.asarray(qd, dtype=float).tolist(), self._vel_res))

    def measure_current(self, tau_motor_nm):
        """Motor current (A) the drive reads for joint torque tau_motor: noisy, then quantised."""
        i = [t / g for t, g in zip(np.asarray(tau_motor_nm, dtype=float).tolist(), self._gains)]
        if self.current_noise_a > 0:
            noise = self.current_noise_a
            i = [x + noise * z for x, z in zip(i, self.rng.standard_normal(len(i)).tolist())]
        if self.quantize and self.current_resolution_a > 0:
            i = quantised(i, [self.current_resolution_a] * len(i))
        return np.array(i)

    def current_to_torque(self, current_a):
        """Return the driver's effort: current * Kt * N (Nm at the joint)."""
        return np.asarray(current_a, dtype=float) * self.drive_gains_nm_a


def quantised(values, resolution):
    """Return ``values`` rounded to multiples of ``resolution`` (lists of floats; half to even).

    Args:
        values: the values (list of floats).
        resolution: one resolution per value (list of floats > 0).

    Returns:
        list of floats, as ``np.round(values / resolution) * resolution``.
    """
    try:
        return [round(v / r) * r for v, r in zip(values, resolution)]
    except (ValueError, OverflowError):     # a non-finite value: numpy keeps nan / inf
        return (np.round(np.divide(values, resolution)) * resolution).tolist()
