# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Safety limits of every commanded motion: joint-limit margin, maximum velocity, acceleration."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.settings import setting

# Conservative defaults for a real youBot (data sheet: 90 deg/s per axis; URDF velocity pi/2):
YOUBOT_SAFE_MARGIN_RAD = 0.10         # 5.7 deg inside every mechanical limit
YOUBOT_SAFE_VELOCITY_RAD_S = 0.5      # about a third of the 1.57 rad/s drive limit
YOUBOT_SAFE_ACCELERATION_RAD_S2 = 1.0


class SafetyLimitsError(InputError):
    """Safety limits that cannot be used.

    A limit <= 0 or not finite, a negative margin, a per-joint list of the wrong length; the
    message names the value.
    """

    kind = 'safety_limits'


@dataclass
class SafetyLimits:
    """Limits of every commanded motion; checked on construction (``validate``).

    Each field declares its doc, unit and node range once (``robot_id_ros.settings``); the
    recorders' parameters and the comments of config/*_recorder.yaml are generated from them.
    ``validate`` accepts any positive finite limit (a per-joint list too); the ranges bound what
    a recorder node accepts.

    Attributes:
        margin_rad: distance kept inside every joint's URDF position limits, rad (>= 0).
        max_velocity_rad_s: per-joint (or one for all) velocity limit, rad/s (> 0).
        max_acceleration_rad_s2: per-joint (or one for all) acceleration limit, rad/s^2 (> 0).
    """

    margin_rad: float = setting(
        YOUBOT_SAFE_MARGIN_RAD, 'every commanded position stays this far inside the URDF joint '
        'limits', unit='rad', lo=0.0, hi=1.0, param='joint_limit_margin_rad')
    max_velocity_rad_s: np.ndarray | float = setting(
        YOUBOT_SAFE_VELOCITY_RAD_S, 'largest commanded joint speed (youBot drives: 1.57 rad/s)',
        unit='rad/s', lo=0.01, hi=3.0)
    max_acceleration_rad_s2: np.ndarray | float = setting(
        YOUBOT_SAFE_ACCELERATION_RAD_S2, 'largest commanded joint acceleration', unit='rad/s^2',
        lo=0.01, hi=20.0)

    def __post_init__(self):
        self.validated()

    def validated(self) -> SafetyLimits:
        """Check the limits.

        Returns:
            self, so that ``limits.validated().per_joint(n)`` reads as one step.

        Raises:
            SafetyLimitsError: a velocity or acceleration limit that is not positive and finite,
                or a negative margin.
        """
        v = np.asarray(self.max_velocity_rad_s, float)
        a = np.asarray(self.max_acceleration_rad_s2, float)
        if not (np.all(v > 0) and np.all(a > 0) and np.all(np.isfinite(v))
                and np.all(np.isfinite(a))):
            raise SafetyLimitsError(f'velocity and acceleration limits must be positive and '
                                    f'finite, got {v}, {a}')
        if not self.margin_rad >= 0:
            raise SafetyLimitsError(f'joint limit margin must be >= 0, got {self.margin_rad}')
        return self

    def per_joint(self, n):
        """Per-joint limits of ``n`` joints (no checks of the values: see ``validated``).

        Args:
            n: number of joints.

        Returns:
            (velocity limits rad/s, acceleration limits rad/s^2), two new (n,) arrays.

        Raises:
            SafetyLimitsError: a per-joint list whose length is neither 1 nor n.
        """
        try:
            v = np.broadcast_to(np.asarray(self.max_velocity_rad_s, float), (n,)).copy()
            a = np.broadcast_to(np.asarray(self.max_acceleration_rad_s2, float), (n,)).copy()
        except ValueError as exc:
            raise SafetyLimitsError(f'velocity and acceleration limits need 1 or {n} values, got '
                                    f'{self.max_velocity_rad_s}, {self.max_acceleration_rad_s2}',
                                    'safety_limits_shape') from exc
        return v, a

    def bounds(self, robot: RobotModel):
        """Joint position bounds with the margin: (lower, upper) in rad, +-pi where unlimited.

        Args:
            robot: the arm (its URDF limits).

        Returns:
            (lower, upper), two (n,) arrays in rad.
        """
        lo = robot.limits.lower_rad + self.margin_rad
        hi = robot.limits.upper_rad - self.margin_rad
        return np.where(np.isfinite(lo), lo, -np.pi), np.where(np.isfinite(hi), hi, np.pi)
