# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Configuration of the simulated youBot arm: one dataclass with the project's youBot defaults.

Every number here is either a youBot fact (shared/youbot_facts.md: gear ratios, torque constants,
encoder resolution) or a stated simulation choice (friction magnitudes of the order measured on
real youBots, perturbation bounds of the true parameters, controller gains).  ``SimConfig()`` is
the configuration the benchmarks and the demo use; tests may change any field.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np
from robot_id_ros.errors import InputError

YOUBOT_GEAR_RATIOS = (156.0, 156.0, 100.0, 71.0, 71.0)
YOUBOT_TORQUE_CONSTANTS_NM_A = (0.0335, 0.0335, 0.0335, 0.051, 0.049)
YOUBOT_ENCODER_TICKS_PER_MOTOR_REV = 4000
# the straight-up "candle" pose (youbot_facts.md)
YOUBOT_CANDLE_RAD = (2.9496, 1.1344, -2.5482, 1.789, 2.9234)
YOUBOT_GRIPPER_JOINTS = ('gripper_finger_joint_l', 'gripper_finger_joint_r')
# what a driver's joint_states effort is: joint torque (Nm) or motor current (A)
EFFORT_UNITS = ('torque', 'current')


class SimConfigError(InputError):
    """A simulator configuration value that cannot work; the message names the field."""


def _t(values):
    return tuple(float(v) for v in values)


@dataclass
class SimConfig:
    """Simulated youBot arm: physics, true-parameter perturbation, friction, drives, controller.

    Arrays are per joint, J1..J5 (model order).
    """

    seed: int = 0
    # --- integration -------------------------------------------------------------------------
    physics_rate_hz: float = 1000.0        # semi-implicit Euler step 1/physics_rate_hz
    # --- true parameters: perturbation of the URDF (uniform, deterministic per seed) ---------
    mass_rel_bound: float = 0.20           # each link mass scaled by U[1 - b, 1 + b]
    com_abs_bound_m: float = 0.010         # each COM coordinate shifted by U[-b, b] (m)
    inertia_rel_bound: float = 0.30        # each principal second moment scaled by U[1 - b, 1 + b]
    inertia_rotation_bound_rad: float = 0.15  # principal axes rotated by up to this angle
    # --- rotor inertia: J_m * N^2 at the joint -------------------------------------------------
    rotor_inertia_motor_kg_m2: float = 2.0e-6
    rotor_inertia_rel_bound: float = 0.20  # J_m per joint scaled by U[1 - b, 1 + b]
    # --- friction (true values, per joint) ------------------------------------------------------
    coulomb_nm: tuple = (0.8, 0.6, 0.5, 0.2, 0.15)
    coulomb_asymmetry_bound: float = 0.15  # |fc+ - fc-| / fc <= bound, drawn per seed
    viscous_nm_s_rad: tuple = (1.0, 0.8, 0.6, 0.1, 0.1)
    breakaway_ratio: float = 1.3           # stiction breakaway = ratio * Coulomb (per direction)
    # friction falls from breakaway to Coulomb over this speed
    stribeck_velocity_rad_s: float = 0.05
    # --- drives (youbot_facts.md) -----------------------------------------------------------
    gear_ratios: tuple = YOUBOT_GEAR_RATIOS
    torque_constants_nm_a: tuple = YOUBOT_TORQUE_CONSTANTS_NM_A
    encoder_ticks_per_motor_rev: int = YOUBOT_ENCODER_TICKS_PER_MOTOR_REV
    current_resolution_a: float = 0.001    # the driver reads an integer number of mA
    current_noise_a: float = 0.010         # white noise, standard deviation (A)
    quantize: bool = True                  # encoder ticks, integer rpm, integer mA
    torque_limit_nm: tuple = None          # drive saturation; None: the URDF effort limits
    # --- joint position controller of the drives (PID on position error -> torque) ------------
    kp_nm_rad: tuple = (250.0, 250.0, 150.0, 60.0, 25.0)
    kd_nm_s_rad: tuple = (12.0, 12.0, 6.0, 1.5, 0.6)
    ki_nm_rad_s: tuple = (600.0, 600.0, 400.0, 150.0, 60.0)
    # integrate only outside this error (no stick-slip hunting)
    integral_deadband_rad: float = 1.0e-3
    # --- start -------------------------------------------------------------------------------
    initial_positions_rad: tuple = YOUBOT_CANDLE_RAD
    # --- end stops -------------------------------------------------------------------------
    end_stop_restitution: float = 0.0      # 0: a joint hitting its stop stops dead

    def __post_init__(self):
        self.validate()

    def per_joint(self, name, n=5):
        a = np.asarray(getattr(self, name), dtype=float)
        if a.shape != (n,):
            raise SimConfigError(
                f'SimConfig.{name} must have {n} values (one per joint), got {a.tolist()}')
        return a

    def validate(self, n=5):
        for name in ('coulomb_nm', 'viscous_nm_s_rad', 'gear_ratios', 'torque_constants_nm_a',
                     'kp_nm_rad', 'kd_nm_s_rad', 'ki_nm_rad_s', 'initial_positions_rad'):
            a = self.per_joint(name, n)
            if not np.all(np.isfinite(a)):
                raise SimConfigError(f'SimConfig.{name} has a non-finite value: {a.tolist()}')
            setattr(self, name, _t(a))
        for name in ('coulomb_nm', 'viscous_nm_s_rad', 'kp_nm_rad', 'kd_nm_s_rad', 'ki_nm_rad_s'):
            if np.any(np.asarray(getattr(self, name)) < 0):
                raise SimConfigError(f'SimConfig.{name} must be >= 0, got {getattr(self, name)}')
        for name in ('gear_ratios', 'torque_constants_nm_a'):
            if np.any(np.asarray(getattr(self, name)) <= 0):
                raise SimConfigError(f'SimConfig.{name} must be > 0, got {getattr(self, name)}')
        if self.torque_limit_nm is not None:
            a = self.per_joint('torque_limit_nm', n)
            if np.any(~(a > 0)):
                raise SimConfigError(f'SimConfig.torque_limit_nm must be > 0, got {a.tolist()}')
            self.torque_limit_nm = _t(a)
        checks = {
            'physics_rate_hz': (100.0, 100000.0),
            'mass_rel_bound': (0.0, 0.9),
            'com_abs_bound_m': (0.0, 0.1),
            'inertia_rel_bound': (0.0, 0.9),
            'inertia_rotation_bound_rad': (0.0, np.pi),
            'rotor_inertia_motor_kg_m2': (0.0, 1e-3),
            'rotor_inertia_rel_bound': (0.0, 0.9),
            'coulomb_asymmetry_bound': (0.0, 1.0),
            'breakaway_ratio': (1.0, 10.0),
            'stribeck_velocity_rad_s': (1e-4, 10.0),
            'current_resolution_a': (0.0, 1.0),
            'current_noise_a': (0.0, 10.0),
            'integral_deadband_rad': (0.0, 1.0),
            'end_stop_restitution': (0.0, 1.0),
        }
        for name, (lo, hi) in checks.items():
            v = float(getattr(self, name))
            if not (lo <= v <= hi):
                raise SimConfigError(f'SimConfig.{name} = {v} is outside [{lo}, {hi}]')
            setattr(self, name, v)
        if int(self.encoder_ticks_per_motor_rev) < 0:
            raise SimConfigError(
                'SimConfig.encoder_ticks_per_motor_rev must be >= 0 (0: no quantisation)')
        self.seed = int(self.seed)
        if self.seed < 0:
            raise SimConfigError(f'SimConfig.seed must be >= 0, got {self.seed}')

    @property
    def dt(self):
        return 1.0 / self.physics_rate_hz

    @property
    def drive_gains_nm_a(self):
        """Kt * N per joint: joint torque per motor ampere.

        The driver's effort = current * Kt * N.
        """
        return np.asarray(self.torque_constants_nm_a) * np.asarray(self.gear_ratios)

    def to_dict(self):
        d = asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    @classmethod
    def from_dict(cls, d):
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise SimConfigError(f'unknown SimConfig field(s): {", ".join(unknown)}')
        return cls(**d)


__all__ = [
    'EFFORT_UNITS', 'SimConfig', 'SimConfigError', 'YOUBOT_CANDLE_RAD', 'YOUBOT_GEAR_RATIOS',
    'YOUBOT_TORQUE_CONSTANTS_NM_A', 'YOUBOT_GRIPPER_JOINTS'
]
