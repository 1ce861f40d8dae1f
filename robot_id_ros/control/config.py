# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Settings of the force controller (``ControllerConfig``).

The node's parameters and the comments of config/force_controller.yaml are generated from these
declarations. The defaults here are generic and conservative (no dither, a 1 m workspace box);
the youBot's values live in config/force_controller.yaml.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.settings import setting, validated_settings

Mode = Literal['hold', 'hand_guiding', 'force_hold']
MODES = get_args(Mode)


@dataclass
class ControllerConfig:
    """Settings of ``ForceController``; forces and positions in the base (URDF root) frame."""

    mode: Mode = setting(
        'hold', "'hold' (stay), 'hand_guiding' (the tool moves with a push) or 'force_hold' "
        '(press along force_axis with force_setpoint_n)', choices=MODES, read_only=False)
    admittance_m_s_n: float = setting(
        0.004, 'hand guiding: tool speed per newton of force beyond the dead band',
        unit='m/(s N)', lo=0.0, hi=0.1, read_only=False)
    guide_axes: tuple = setting(
        (1.0, 1.0, 1.0), 'hand guiding: the base-frame directions x, y, z the tool may move in '
        '(1 enabled, 0 not)', lo=0.0, hi=1.0, read_only=False)
    dead_band_sigma: float = setting(
        3.0, "dead band per axis as a multiple of the estimate's own standard deviation on that "
        'axis (its covariance); forces inside it move nothing', lo=0.0, hi=20.0,
        read_only=False)
    force_axis: tuple = setting(
        (0.0, 0.0, -1.0), 'force_hold: the direction the tool presses in (base frame; '
        'normalised)', read_only=False)
    force_setpoint_n: float = setting(
        5.0, 'force_hold: the force the tool presses with along force_axis', unit='N', lo=0.0,
        hi=50.0, read_only=False)
    force_admittance_m_s_n: float = setting(
        0.002, 'force_hold: tool speed along force_axis per newton of force error (also the '
        'approach speed per newton of set force before contact)', unit='m/(s N)', lo=0.0,
        hi=0.1, read_only=False)
    force_contact_model: bool = setting(
        True, 'force_hold: fit the pressing force against the measured tool position along '
        'force_axis while the joints move (the estimate is good then) and, while they stick '
        '(the estimate frozen within the stiction band), weigh that line in by its scatter '
        '(robot_id_ros.control.contact_model; a moving surface makes the scatter large)',
        read_only=False)
    force_max_lead_m: float = setting(
        0.001, 'force_hold: the reference stops moving along force_axis while it is this far '
        'ahead of the measured tool, beyond 4 x the distance to the set force on the fitted '
        'contact line (the breakaway lead of sticking joints; a stuck arm does not wind it up); '
        'while the tool moves towards the reference this part is dropped (no overshoot when '
        'the joints break free)', unit='m', lo=1e-5, hi=0.1, read_only=False)
    max_speed_m_s: float = setting(
        0.05, 'largest commanded tool speed', unit='m/s', lo=0.001, hi=1.0)
    max_acceleration_m_s2: float = setting(
        0.5, 'largest commanded tool acceleration', unit='m/s^2', lo=0.01, hi=10.0)
    max_joint_speed_rad_s: float = setting(
        0.5, 'largest commanded joint speed', unit='rad/s', lo=0.01, hi=3.0)
    stop_time_s: float = setting(
        0.03, 'a safety stop brings the set point velocity to zero in this time', unit='s',
        lo=0.0, hi=1.0)
    stop_relax_s: float = setting(
        0.5, 'after a stop, once the arm rests, the held set point moves to where it rests with '
        "this time constant: the drives' integral takes over the torque their P term made "
        'against a sustained push (a hand) instead of pulling the arm back to the set point. '
        "Not below the drives' kp / ki (the youBot's ~0.4 s: faster, the arm yields to the "
        'push); 0: the set point stays where the stop left it', unit='s', lo=0.0, hi=10.0)
    workspace_min_m: tuple = setting(
        (-1.0, -1.0, -1.0), 'lower corner of the box the tool stays in (base frame)', unit='m')
    workspace_max_m: tuple = setting(
        (1.0, 1.0, 1.0), 'upper corner of the box the tool stays in (base frame)', unit='m')
    joint_limit_margin_rad: float = setting(
        0.05, 'set points stay this far inside the URDF joint limits', unit='rad', lo=0.0,
        hi=1.0)
    stale_timeout_s: float = setting(
        0.05, 'stop and hold when the newest estimate is older than this', unit='s', lo=0.001,
        hi=10.0)
    sigma_limit_n: float = setting(
        6.0, "stop and hold when the estimate's standard deviation on an axis the mode uses has "
        'exceeded this for stale_timeout_s', unit='N', lo=0.01, hi=1000.0)
    collision_force_n: float = setting(
        40.0, 'an estimated force above this is a collision: stop until re-enabled',
        unit='N', lo=1.0, hi=1000.0)
    estimator_collision: bool = setting(
        False, "also stop on the estimator's contact / collision flag (its threshold, a "
        'multiple of the residual std, is exceeded by any deliberate push: leave off for hand '
        'guiding and force holding)')
    max_joint_deviation_rad: float = setting(
        0.25, 'a joint this far from its reference (beyond its reference speed times the '
        "measurement's age) has been moved by a push its drive cannot hold: stop until "
        're-enabled, the set point where the arm is', unit='rad', lo=0.01, hi=3.0)
    max_stamp_ahead_s: float = setting(
        0.05, 'an estimate or a joint state stamped more than this ahead of the clock is not '
        'used (an estimate: stop and hold; a forged stamp would never go stale)', unit='s',
        lo=0.0, hi=10.0)
    joint_state_timeout_s: float = setting(
        0.1, 'stop and hold (braking from the reference) when the newest usable joint state is '
        'older than this, or when a rejected stream of them was taken as the new start within '
        'it; enabling is refused while the joint states are absent, stale or had a rejection '
        'within it', unit='s', lo=0.001, hi=10.0)
    joint_state_speed_factor: float = setting(
        2.0, "a joint state whose joints moved farther since the last usable one than this "
        "times the URDF joint speed limits times the stamp difference (plus "
        "joint_state_allowance_rad) is not used, and counted", lo=1.0, hi=100.0)
    joint_state_allowance_rad: float = setting(
        0.005, 'what a joint may move between two joint states on top of the speed limit '
        '(noise, stamp jitter)', unit='rad', lo=0.0, hi=1.0)
    time_jump_s: float = setting(
        0.2, 'a control step this long, or time going backwards, is a time jump: stop until '
        're-enabled', unit='s', lo=0.001, hi=60.0)
    ramp_s: float = setting(
        0.5, 'after enabling and after every mode change the commanded velocity (and the '
        'dither) ramps up over this time', unit='s', lo=0.0, hi=10.0)
    dither_amplitude_rad: tuple = setting(
        (0.0,), 'dither: amplitude of the sine superimposed on each joint set point ([0.0] or '
        'zeros: no dither)', unit='rad', lo=0.0, hi=0.05, read_only=False)
    dither_null_rad: tuple = setting(
        (0.0,), 'dither along the null space of the tool position Jacobian (the joints move, '
        "the tool position does not: the youBot's joints 2-4 about the tool's pitch): these "
        'per-joint amplitudes projected onto that null space, scaled to their largest ([0.0]: '
        'none)', unit='rad', lo=0.0, hi=0.05, read_only=False)
    dither_frequency_hz: float = setting(
        4.0, 'dither: frequency of the sine', unit='Hz', lo=0.1, hi=50.0, read_only=False)
    jacobian_damping: float = setting(
        0.005, 'damping of the least squares from tool velocity to joint velocity', unit='m',
        lo=0.0, hi=1.0)
    min_singular_value: float = setting(
        0.01, 'tool directions whose Jacobian singular value is below this are unreachable: '
        'their velocity is dropped and reported', unit='m', lo=0.0, hi=1.0)

    def __post_init__(self):
        self.validated()

    def validated(self) -> ControllerConfig:
        """Check every field.

        Returns:
            ``self``, when valid.

        Raises:
            InputError: (kind 'config') a field out of its range, a vector of the wrong length,
                a zero force axis or an empty workspace box.
        """
        validated_settings(self)
        for name in ('guide_axes', 'force_axis', 'workspace_min_m', 'workspace_max_m'):
            v = np.asarray(getattr(self, name), dtype=float)
            if v.shape != (3,) or not np.all(np.isfinite(v)):
                raise InputError(f'{name} must be 3 finite values (x, y, z), got '
                                 f'{list(getattr(self, name))}', 'config')
        if np.linalg.norm(self.force_axis) < 1e-9:
            raise InputError('force_axis must not be zero: give the pressing direction, e.g. '
                             '[0, 0, -1]', 'config')
        if np.any(np.asarray(self.workspace_min_m) >= np.asarray(self.workspace_max_m)):
            raise InputError(f'workspace_min_m {list(self.workspace_min_m)} must be below '
                             f'workspace_max_m {list(self.workspace_max_m)} on every axis',
                             'config')
        return self

    def dithers(self, n: int) -> bool:
        """Return whether a dither is set (a joint amplitude or a null-space amplitude)."""
        return bool(np.any(self.dither_rad(n) != 0.0) or
                    np.any(self.dither_rad(n, 'dither_null_rad') != 0.0))

    def dither_rad(self, n: int, name: str = 'dither_amplitude_rad') -> np.ndarray:
        """Return a dither amplitude setting per joint (n,), rad.

        Args:
            n: the number of joints.
            name: 'dither_amplitude_rad' or 'dither_null_rad'.

        Raises:
            InputError: a list that is neither one value nor n values.
        """
        a = np.asarray(getattr(self, name), dtype=float).ravel()
        if a.size == 1:
            return np.full(n, a[0]) if a[0] > 0 else np.zeros(n)
        if a.size != n:
            raise InputError(f'{name} has {a.size} values for {n} joints: give one value or '
                             f'{n}', 'config')
        return a
