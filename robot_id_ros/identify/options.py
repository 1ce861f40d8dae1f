# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""How to identify (``IdentificationOptions``), the stage's error, checks (ROS-free).

The checks and unit conversion every data kind goes through.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.model.friction import SIGN_VELOCITY_RAD_S_DEFAULT
from robot_id_ros.model.regressor import RegressorOptions
from robot_id_ros.model.robot import RobotModel

DERIVATIVE_METHODS = ('auto', 'periodic', 'savgol', 'spline', 'central')
# Stribeck velocity (rad/s) of the regressor's Stribeck column while it is still to be chosen
_STRIBECK_VELOCITY_PLACEHOLDER_RAD_S = 0.1


class IdentificationError(InputError):
    """Data or options that cannot give a model; the message says what is wrong and what to do."""


@dataclass
class IdentificationOptions:
    """How to identify. Defaults suit joint-torque data; see each field."""

    # model structure
    friction: bool = True                 # Coulomb + viscous per joint
    coulomb_asymmetric: bool = False      # fc+ / fc- instead of one fc
    offset: bool = True                   # constant torque offset per joint
    rotor_inertia: bool = False           # reflected rotor inertia per joint
    sign_velocity_rad_s: float = SIGN_VELOCITY_RAD_S_DEFAULT
    # a Stribeck column fs * s * exp(-(qd/vs)^2) per joint (linear in fs)
    stribeck_column: bool = False
    # vs of that column; None: from the sweeps' Stribeck fit when they have one, else the best of
    # a grid by the fit residual
    stribeck_velocity_rad_s: float | None = None
    # rows left out of the fit (and of the in-motion validation metric)
    # joint j's row of a sample is left out where |qd_j| < this (the stick / Stribeck regime the
    # friction model cannot represent); 0: none
    min_velocity_rad_s: float = 0.0
    # 'joint': only joint j's own velocity; 'all': any joint below it (a stuck joint's kink also
    # corrupts the coupled joints' qdd)
    min_velocity_scope: str = 'joint'
    min_velocity_margin_s: float = 0.0    # also leave out rows within this time of such a sample
    # estimator
    weighting: str = 'wls'                # 'ols' or 'wls' (per-joint noise variance)
    column_scaling: bool = True           # eq. 25-26
    # eq. 27-29: damping toward the URDF (0 = none); relative to a unit column
    prior_weight: float = 0.0
    known_parameters: dict = field(default_factory=dict)   # eq. 16-18: {standard name: value}
    confidence: float = 0.95
    # scaled condition number above which the data are rank deficient
    max_condition: float = 1e5
    # signal processing
    # 'auto' (periodic if periodic), 'periodic', 'savgol', 'spline', 'central'
    derivative_method: str = 'auto'
    # position band limit; None: from the spectrum (periodic) or 10 Hz
    cutoff_hz: float | None = None
    torque_cutoff_hz: float | None = None  # for the filtered validation metric; None: cutoff_hz
    period_s: float | None = None         # excitation period; None: sidecar or detected
    # non-periodic methods too: keep only the sidecar's excitation periods
    sidecar_window: bool = False
    resample_hz: float | None = None      # None: the median input rate
    max_samples: int | None = None        # decimate processed trajectories to at most this many
    # dropped at both ends of non-periodic data; None: 1/cutoff
    trim_s: float | None = None
    # fit the torque low-passed at the position cut-off (parallel filtering)
    torque_filter: bool = False
    # 'position' (differentiate q) or 'measured' (filter and differentiate qd)
    velocity_source: str = 'position'
    effort_unit: str = 'torque'           # 'torque' (Nm) or 'current' (A, needs drive_gains)
    drive_gains_nm_per_a: list | None = None
    # static poses
    static_min_duration_s: float = 0.5
    static_velocity_threshold_rad_s: float = 0.005
    static_offset: bool = False           # a torque offset per joint in the static fit
    # sweeps
    stribeck: bool = False
    # physical consistency
    physical_consistency: bool = False
    chunk_samples: int = 4000

    def regressor_options(self) -> RegressorOptions:
        """Return the regressor structure of the dynamic fit these options ask for."""
        vs = self.stribeck_velocity_rad_s
        vs = float(vs) if vs is not None else _STRIBECK_VELOCITY_PLACEHOLDER_RAD_S
        return RegressorOptions(friction=self.friction, coulomb_asymmetric=self.coulomb_asymmetric,
                                offset=self.offset, rotor_inertia=self.rotor_inertia,
                                sign_velocity_rad_s=self.sign_velocity_rad_s,
                                stribeck=bool(self.stribeck_column and self.friction),
                                stribeck_velocity_rad_s=vs)

    def to_dict(self):
        """Every field, as plain data (the model file's ``identification.options``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        """Options from ``to_dict`` output; unknown keys are ignored, missing ones default."""
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})

    def check(self):
        """Raise ``IdentificationError`` naming the first invalid field."""
        if self.weighting not in ('ols', 'wls'):
            raise IdentificationError(f'weighting must be "ols" or "wls", got {self.weighting!r}')
        if self.derivative_method not in DERIVATIVE_METHODS:
            raise IdentificationError(f'unknown derivative method {self.derivative_method!r}; use '
                                      'auto, periodic, savgol, spline or central')
        if self.effort_unit not in ('torque', 'current'):
            raise IdentificationError(f'effort_unit must be "torque" or "current", got '
                                      f'{self.effort_unit!r}')
        if self.effort_unit == 'current' and self.drive_gains_nm_per_a is None:
            raise IdentificationError('effort_unit "current" needs drive gains (Nm/A per joint): '
                                      'give --drive-gains or a model that has them')
        if not 0 < self.confidence < 1:
            raise IdentificationError('confidence must be in (0, 1)')
        if self.prior_weight < 0:
            raise IdentificationError('prior_weight must be >= 0')
        check_motion_selection(self.min_velocity_rad_s, self.min_velocity_scope,
                               self.min_velocity_margin_s)
        if self.stribeck_column and not self.friction:
            raise IdentificationError('stribeck_column needs friction')
        if self.stribeck_velocity_rad_s is not None and not self.stribeck_velocity_rad_s > 0:
            raise IdentificationError('stribeck_velocity_rad_s must be > 0 (or None: from the '
                                      'sweeps or the fit)')


def check_motion_selection(min_velocity_rad_s, scope, margin_s):
    """Raise ``IdentificationError`` unless the in-motion row selection is valid.

    Args:
        min_velocity_rad_s: velocity threshold, >= 0.
        scope: 'joint' or 'all'.
        margin_s: time margin, >= 0.
    """
    if not min_velocity_rad_s >= 0 or not margin_s >= 0:
        raise IdentificationError('min_velocity_rad_s and min_velocity_margin_s must be >= 0')
    if scope not in ('joint', 'all'):
        raise IdentificationError(f'min_velocity_scope must be "joint" or "all", got {scope!r}')


def effort_to_torque(effort, options: IdentificationOptions, n):
    """Effort as recorded -> joint torque.

    Args:
        effort: (N, n) efforts, Nm or A as ``options.effort_unit`` says.
        options: the effort unit and drive gains (Nm/A).
        n: number of joints.

    Returns:
        (N, n) torque in Nm (current times drive gain when in current).
    """
    if options.effort_unit == 'torque':
        return np.asarray(effort, dtype=float)
    g = np.asarray(options.drive_gains_nm_per_a, dtype=float)
    if g.shape != (n,):
        raise IdentificationError(f'need {n} drive gains, got {g.shape}')
    return np.asarray(effort, dtype=float) * g


def check_series(series: JointStateSeries, robot: RobotModel, what):
    """Raise ``IdentificationError`` when ``series`` cannot be used with ``robot``.

    Args:
        series: the recorded joint states.
        robot: the model (joint names and limits).
        what: what the series is, for the message ('trajectory', 'static bag').
    """
    src = series.source or ''
    if tuple(series.joint_names) != tuple(robot.joint_names):
        raise IdentificationError(f'{what} {src}: joints {", ".join(series.joint_names)} do not '
                                  f'match the model joints {", ".join(robot.joint_names)}')
    if series.effort is None:
        raise IdentificationError(f'{what} {src} has no effort: identification needs measured '
                                  'torque or current in JointState.effort')
    if len(series) < 10:
        raise IdentificationError(f'{what} {src} has only {len(series)} samples')
    bad = robot.check_in_limits(np.median(series.q, axis=0), margin_rad=-0.5)
    if len(bad) == robot.n:
        raise IdentificationError(f'{what} {src}: positions are far outside the URDF limits of '
                                  f'every joint: is this the right URDF?')
