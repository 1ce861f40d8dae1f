# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Configuration of the simulated youBot arm: one dataclass with the project's youBot defaults.

Every number here is either a youBot fact (the drives' gear ratios, torque constants and
encoder resolution: docs/youbot.md, docs/theory.md) or a stated simulation choice (friction
magnitudes of the order measured on real youBots, perturbation bounds of the true parameters,
controller gains). ``SimConfig()`` is the configuration the benchmarks and the demo use; tests
may change any field.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.settings import default_of, setting, settings_of

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

    Arrays are per joint, J1..J5 (model order). Each field declares its doc, unit and range once
    (``robot_id_ros.settings``); the youbot_sim node's parameters (``node`` settings) and the
    comments of config/youbot_sim.yaml are generated from them, ``validate`` checks the ranges.
    """

    seed: int = setting(0, 'seed of the true parameter perturbation and of the sensor noise',
                        lo=0, hi=2 ** 31 - 1)
    # --- integration -------------------------------------------------------------------------
    physics_rate_hz: float = setting(
        1000.0, 'physics integration rate (semi-implicit Euler step 1/physics_rate_hz)',
        unit='Hz', lo=200.0, hi=20000.0)
    # --- true parameters: perturbation of the URDF (uniform, deterministic per seed) ---------
    mass_rel_bound: float = setting(0.20, 'true link masses = URDF * U[1-b, 1+b]', lo=0.0, hi=0.9)
    com_abs_bound_m: float = setting(
        0.010, 'true centres of mass = URDF + U[-b, b] per coordinate', unit='m', lo=0.0, hi=0.1)
    inertia_rel_bound: float = setting(
        0.30, 'true principal second moments = URDF * U[1-b, 1+b]', lo=0.0, hi=0.9)
    inertia_rotation_bound_rad: float = setting(
        0.15, 'principal axes of the true inertias rotated by up to this angle', unit='rad',
        lo=0.0, hi=math.pi, node=False)
    # --- rotor inertia: J_m * N^2 at the joint -------------------------------------------------
    rotor_inertia_motor_kg_m2: float = setting(
        2.0e-6, 'motor rotor inertia J_m (reflected as J_m N^2)', unit='kg m^2', lo=0.0, hi=1e-3)
    rotor_inertia_rel_bound: float = setting(
        0.20, 'true J_m per joint = rotor_inertia_motor_kg_m2 * U[1-b, 1+b]', lo=0.0, hi=0.9,
        node=False)
    # --- friction (true values, per joint) ------------------------------------------------------
    coulomb_nm: tuple = setting((0.8, 0.6, 0.5, 0.2, 0.15),
                                'true Coulomb friction in motion per joint', unit='Nm', lo=0.0)
    coulomb_asymmetry_bound: float = setting(
        0.15, 'max |fc+ - fc-| / fc of the true Coulomb friction (drawn per seed)', lo=0.0,
        hi=1.0)
    viscous_nm_s_rad: tuple = setting((1.0, 0.8, 0.6, 0.1, 0.1), 'true viscous friction per joint',
                                      unit='Nm s/rad', lo=0.0)
    breakaway_ratio: float = setting(
        1.3, 'stiction breakaway torque / Coulomb friction (per direction)', lo=1.0, hi=10.0)
    stribeck_velocity_rad_s: float = setting(
        0.05, 'Stribeck velocity: friction decays from breakaway to Coulomb over this speed',
        unit='rad/s', lo=1e-4, hi=10.0)
    # --- friction that drifts: joint temperatures and load (sim/friction_drift.py) -----------
    friction_drift: bool = setting(
        False, 'joint friction follows each joint\'s temperature, which rises with the power it '
        'dissipates, and Coulomb friction grows with the load torque (off: constant friction)')
    ambient_temperature_c: float = setting(
        25.0, 'ambient temperature: the joints start at it, and coulomb_nm and viscous_nm_s_rad '
        'are the friction at it', unit='degC', lo=-40.0, hi=80.0)
    thermal_time_constant_s: float = setting(
        900.0, 'thermal time constant of a joint: its temperature relaxes towards ambient + '
        'thermal_resistance_k_w * power with it', unit='s', lo=1.0, hi=1.0e5)
    thermal_resistance_k_w: float = setting(
        25.0, 'steady temperature rise of a joint per watt it dissipates (friction power + '
        'copper losses)', unit='K/W', lo=0.0, hi=1000.0)
    coulomb_temperature_coefficient_per_k: float = setting(
        0.015, 'Coulomb friction = its ambient value * exp(-c (T - ambient))', unit='1/K', lo=0.0,
        hi=0.2)
    viscous_temperature_coefficient_per_k: float = setting(
        0.03, 'viscous friction = its ambient value * exp(-c (T - ambient))', unit='1/K', lo=0.0,
        hi=0.2)
    load_coulomb_per_nm: float = setting(
        0.02, 'Coulomb friction grows by this many Nm per Nm of torque the drive carries', lo=0.0,
        hi=1.0)
    winding_resistance_ohm: float = setting(
        1.0, 'motor winding resistance: copper losses R I^2 heat the joint', unit='Ohm', lo=0.0,
        hi=100.0, node=False)
    # --- drives (youbot_facts.md) -----------------------------------------------------------
    gear_ratios: tuple = setting(YOUBOT_GEAR_RATIOS, 'gear ratio N per joint (> 0)', node=False)
    torque_constants_nm_a: tuple = setting(
        YOUBOT_TORQUE_CONSTANTS_NM_A, 'motor torque constant Kt per joint (> 0)', unit='Nm/A',
        node=False)
    encoder_ticks_per_motor_rev: int = setting(
        YOUBOT_ENCODER_TICKS_PER_MOTOR_REV, 'encoder ticks per motor revolution (0: no '
        'quantisation)', lo=0, node=False)
    current_resolution_a: float = setting(
        0.001, 'step of the current the driver reads (the youBot: integer mA)', unit='A', lo=0.0,
        hi=1.0, node=False)
    current_noise_a: float = setting(
        0.010, 'white noise on the motor current, standard deviation', unit='A', lo=0.0, hi=1.0,
        read_only=False)
    quantize: bool = setting(
        True, 'quantise like the drives: encoder ticks, integer rpm, integer mA')
    torque_limit_nm: tuple = setting(
        None, 'drive saturation per joint (> 0); None: the URDF effort limits', unit='Nm',
        node=False)
    # --- joint position controller of the drives (PID on position error -> torque) ------------
    kp_nm_rad: tuple = setting((250.0, 250.0, 150.0, 60.0, 25.0),
                               'proportional gain of the drive position controller per joint',
                               unit='Nm/rad', lo=0.0, node=False)
    kd_nm_s_rad: tuple = setting((12.0, 12.0, 6.0, 1.5, 0.6),
                                 'derivative gain of the drive position controller per joint',
                                 unit='Nm s/rad', lo=0.0, node=False)
    ki_nm_rad_s: tuple = setting((600.0, 600.0, 400.0, 150.0, 60.0),
                                 'integral gain of the drive position controller per joint',
                                 unit='Nm/(rad s)', lo=0.0, node=False)
    integral_deadband_rad: float = setting(
        1.0e-3, 'the controller integrates only outside this position error (no stick-slip '
        'hunting)', unit='rad', lo=0.0, hi=1.0, node=False)
    # --- the real driver's twin: its joint state layout and calibration ----------------------
    # (config/youbot_driver_twin.yaml sets them as the ROS 2 youBot driver behaves)
    gripper: bool = setting(
        True, 'joint_states names the two gripper fingers after the arm joints (False: the arm '
        'joints only)')
    effort_length_quirk: bool = setting(
        False, "with gripper False, effort still carries the fingers' two zeros (the real "
        'driver: 5 names, 7 efforts)')
    finger_read_rate_hz: float = setting(
        0.0, "finger positions are read at this rate and held between reads, their names are '' "
        'before the first read (the real driver: youBotDriverGripperReadingsCycleFrequencyInHz); '
        '0 = fresh in every joint state', unit='Hz', lo=0.0, hi=1000.0)
    calibration_positions_rad: tuple = setting(
        (0.0, 0.0, 0.0, 0.0, 0.0), 'the calibrated pose the calibrate service moves to (J1..J5); '
        'the youBot: folded at its end stops', unit='rad', param='calibration_positions')
    calibration_speed_rad_s: float = setting(
        0.5, 'fastest joint speed of the move to the calibrated pose', unit='rad/s', lo=0.01,
        hi=10.0)
    motors_on_at_start: bool = setting(
        True, 'the arm motors are on at start (the real driver switches them on when it has '
        'initialised the arm); false: as after switchOffMotors (no motion, zero effort, commands '
        'refused) until switchOnMotors')
    # --- start -------------------------------------------------------------------------------
    initial_positions_rad: tuple = setting(
        YOUBOT_CANDLE_RAD, 'arm joint positions at start (J1..J5); default the candle pose',
        unit='rad', param='initial_positions')
    # --- end stops -------------------------------------------------------------------------
    end_stop_restitution: float = setting(
        0.0, 'restitution at a joint end stop (0: a joint hitting its stop stops dead)', lo=0.0,
        hi=1.0, node=False)
    # --- world: a contact plane pushing on the tool (sim/world.py ContactPlane) --------------
    contact_plane_enabled: bool = setting(
        False, 'a contact plane pushes on the tool point while the point is inside it')
    contact_plane_point_m: tuple = setting(
        (0.0, 0.0, 0.0), 'a point of the contact plane, base coordinates', unit='m')
    contact_plane_normal: tuple = setting(
        (0.0, 0.0, 1.0), 'outward normal of the contact plane (towards free space), base axes; '
        'normalised')
    contact_stiffness_n_m: float = setting(
        2000.0, 'normal stiffness of the contact plane', unit='N/m', lo=1.0, hi=1.0e6)
    contact_damping_n_s_m: float = setting(
        20.0, 'normal damping of the contact plane (the normal force never pulls)',
        unit='N s/m', lo=0.0, hi=1.0e4)
    contact_friction_coefficient: float = setting(
        0.3, 'Coulomb friction coefficient of the contact plane: |Ft| <= mu Fn', lo=0.0, hi=2.0)
    contact_friction_velocity_m_s: float = setting(
        0.005, 'friction regularisation: the tangential speed over which friction rises to '
        'mu Fn', unit='m/s', lo=1.0e-4, hi=1.0, node=False)
    contact_point_tool_m: tuple = setting(
        (0.0, 0.0, 0.0), 'the point that touches the plane: offset from the tool frame origin in '
        'tool axes', unit='m')

    def __post_init__(self):
        self.validated()

    def per_joint(self, name, n=5):
        a = np.asarray(getattr(self, name), dtype=float)
        if a.shape != (n,):
            raise SimConfigError(
                f'SimConfig.{name} must have {n} values (one per joint), got {a.tolist()}')
        return a

    def validated(self, n=5) -> SimConfig:
        """Return ``self`` checked for ``n`` joints (per-joint values made tuples).

        Raises:
            SimConfigError: naming the first invalid field.
        """
        for name in ('coulomb_nm', 'viscous_nm_s_rad', 'gear_ratios', 'torque_constants_nm_a',
                     'kp_nm_rad', 'kd_nm_s_rad', 'ki_nm_rad_s', 'initial_positions_rad'):
            a = self.per_joint(name, n)
            if not np.all(np.isfinite(a)):
                raise SimConfigError(f'SimConfig.{name} has a non-finite value: {a.tolist()}')
            setattr(self, name, _t(a))
        for name, (_, spec) in settings_of(self).items():     # per-joint lower bounds
            if isinstance(getattr(self, name), tuple) and spec.lo is not None and \
                    np.any(np.asarray(getattr(self, name)) < spec.lo):
                raise SimConfigError(
                    f'SimConfig.{name} must be >= {spec.lo:g}, got {getattr(self, name)}')
        for name in ('gear_ratios', 'torque_constants_nm_a'):
            if np.any(np.asarray(getattr(self, name)) <= 0):
                raise SimConfigError(f'SimConfig.{name} must be > 0, got {getattr(self, name)}')
        if self.torque_limit_nm is not None:
            a = self.per_joint('torque_limit_nm', n)
            if np.any(~(a > 0)):
                raise SimConfigError(f'SimConfig.torque_limit_nm must be > 0, got {a.tolist()}')
            self.torque_limit_nm = _t(a)
        self._check_ranges()
        return self

    def _check_ranges(self):
        """Check the scalar settings against their declared ranges (numbers made int or float)."""
        for name, (field, spec) in settings_of(self).items():
            kind = type(default_of(field))
            if kind not in (int, float) or (spec.lo is None and spec.hi is None):
                continue
            v = kind(getattr(self, name))
            lo = -math.inf if spec.lo is None else spec.lo
            hi = math.inf if spec.hi is None else spec.hi
            if not (lo <= v <= hi):
                raise SimConfigError(f'SimConfig.{name} = {v} is outside [{lo}, {hi}]')
            setattr(self, name, v)

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
