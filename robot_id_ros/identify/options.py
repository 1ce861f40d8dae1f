# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""How to identify (``IdentificationOptions``), the stage's error, checks (ROS-free).

The checks and unit conversion every data kind goes through.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.model.friction import SIGN_VELOCITY_RAD_S_DEFAULT
from robot_id_ros.model.regressor import RegressorOptions
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.settings import setting

DERIVATIVE_METHODS = ('auto', 'periodic', 'savgol', 'spline', 'central')
# Stribeck velocity (rad/s) of the regressor's Stribeck column while it is still to be chosen
_STRIBECK_VELOCITY_PLACEHOLDER_RAD_S = 0.1


# the fewest samples a recording of any kind must hold to be read for identification
MIN_SERIES_SAMPLES = 10


class IdentificationError(InputError):
    """Data or options that cannot give a model; the message says what is wrong and what to do."""


@dataclass
class IdentificationOptions:
    """How to identify. Defaults suit joint-torque data.

    Each field declares its doc, unit and range once (``robot_id_ros.settings``); the
    identification node's parameters, the ``robot-id identify`` flags and the comments of
    config/identification.yaml are generated from them. Fields with ``node=False, flag=''`` are
    internal: no node parameter and no flag sets them.
    """

    # options chosen from the data (identify/selection.py)
    auto_options: bool = setting(
        True, 'choose the processing options not given (slow rows, derivative method and '
        'cut-off, velocity source, weighting, friction structure, physical consistency) by '
        'cross-validation on the training data (whole runs held out when several are given, '
        'else velocity regions; the simpler within one standard error); the candidates, their '
        'held-out errors and the expected error on other motions are printed',
        read_only=False)
    # model structure
    friction: bool = setting(True, 'Coulomb and viscous friction per joint', read_only=False)
    coulomb_asymmetric: bool = setting(
        False, 'direction-dependent Coulomb friction (fc+ and fc- instead of one fc)',
        read_only=False, aliases=('--asymmetric-coulomb',))
    offset: bool = setting(True, 'a constant torque offset per joint', read_only=False)
    rotor_inertia: bool = setting(False, 'identify reflected rotor inertia per joint',
                                  read_only=False)
    sign_velocity_rad_s: float = setting(
        SIGN_VELOCITY_RAD_S_DEFAULT, 'velocity scale of the smoothed sign of the Coulomb term',
        unit='rad/s', node=False, flag='')
    presliding_rad: float = setting(
        0.0, "presliding (Dahl) Coulomb friction: the Coulomb term's sign builds up over this "
        'much travel after a reversal instead of with the speed (harmonic drives); 0 = the '
        'smooth sign of the velocity', unit='rad', lo=0.0, hi=0.1, node=False)
    stribeck_column: bool = setting(
        False, 'a Stribeck term fs * s * exp(-(qd/vs)^2) per joint in the trajectory fit '
        '(velocity from the sweeps, else chosen by the fit; amplitude from the break-free '
        'moments where they are measured)', read_only=False)
    load_coulomb: bool = setting(
        False, 'Coulomb friction that grows with the load: a column |tau| s(qd) per joint, tau '
        "the model's rigid-body torque (a gear carrying more torque rubs harder)",
        read_only=False)
    friction_drift: bool = setting(
        False, 'friction that drifts within each recording (a warm-up): the Coulomb and viscous '
        "columns times 1/2 - the run's elapsed fraction; the model keeps the recordings' mean "
        'friction and reports the drift', read_only=False)
    stribeck_velocity_rad_s: float | None = setting(
        None, "vs of the Stribeck column; none: from the sweeps' Stribeck fit when they have one, "
        'else the best of a grid by the fit residual', unit='rad/s', node=False, flag='')
    # rows left out of the fit (and of the in-motion validation metric)
    min_velocity_rad_s: float = setting(
        0.0, "leave a joint's samples out of the trajectory fit where its |velocity| is below "
        'this (stick-slip regime the friction model cannot represent); 0 = keep all',
        unit='rad/s', lo=0.0, hi=10.0, read_only=False, aliases=('--min-velocity',))
    min_velocity_scope: str = setting(
        'joint', "rows left out by min_velocity_rad_s: 'joint' (only joint j's own velocity) or "
        "'all' (any joint below it: a stuck joint's kink also corrupts the coupled joints' qdd)",
        choices=('joint', 'all'), node=False, flag='')
    min_velocity_margin_s: float = setting(
        0.0, 'also leave out rows within this time of a sample below min_velocity_rad_s',
        unit='s', node=False, flag='')
    # estimator
    weighting: str = setting(
        'wls', "'wls' (weighted by the per-joint noise variance) or 'ols' (ordinary least "
        'squares)', choices=('wls', 'ols'), read_only=False)
    column_scaling: bool = setting(
        True, 'scale the regressor columns in the least squares (eq. 25-26)', read_only=False)
    prior_weight: float = setting(
        0.0, 'damped least squares toward the URDF values (eq. 27-29), relative to a unit '
        'regressor column (dimensionless; 0 = none)', lo=0.0, hi=1.0e6, read_only=False)
    known_parameters: dict = setting(
        {}, 'known standard parameters {name: value}, subtracted before the fit (eq. 16-18; '
        'robot-id identify --known NAME=VALUE)', node=False, flag='')
    confidence: float = setting(0.95, 'confidence level of the parameter intervals', node=False,
                                flag='')
    max_condition: float = setting(
        1e5, 'scaled condition number above which the data are rank deficient', node=False,
        flag='')
    # signal processing
    derivative_method: str = setting(
        'auto', "positions to velocities and accelerations: 'auto' (periodic when the run "
        "repeats), 'periodic', 'savgol', 'spline' or 'central'", choices=DERIVATIVE_METHODS,
        read_only=False)
    cutoff_hz: float | None = setting(
        None, 'position band limit for the derivatives; 0 = from the spectrum (periodic) or '
        '10 Hz', unit='Hz', lo=0.0, hi=1000.0, unset=0.0, read_only=False)
    torque_cutoff_hz: float | None = setting(
        None, 'cut-off of the filtered validation metric; none: cutoff_hz', unit='Hz',
        node=False, flag='')
    period_s: float | None = setting(
        None, 'excitation period; 0 = from the sidecar or detected', unit='s', lo=0.0,
        hi=3600.0, unset=0.0, read_only=False, aliases=('--period',))
    sidecar_window: bool = setting(
        False, "fit only inside the sidecars' excitation periods (also for non-periodic "
        'derivative methods)', read_only=False)
    resample_hz: float | None = setting(None, 'resampling rate; none: the median input rate',
                                        unit='Hz', node=False, flag='')
    max_samples: int | None = setting(
        None, 'decimate each processed trajectory to at most this many samples; 0 = all',
        lo=0, hi=10 ** 9, unset=0, read_only=False)
    # no node parameter: 0 is a trim, and a node parameter cannot spell 'none'
    trim_s: float | None = setting(
        None, 'dropped at both ends of non-periodic runs; none: 1 / cutoff', unit='s',
        node=False, aliases=('--trim',))
    torque_filter: bool = setting(
        False, 'fit the torque and every regressor column low-passed at the position cut-off '
        '(parallel filtering)',
        read_only=False)
    velocity_source: str = setting(
        'position', "'position' (differentiate the positions) or 'measured' (filter and "
        'differentiate the recorded velocity)', choices=('position', 'measured'),
        read_only=False)
    effort_unit: str = setting(
        'torque', "effort in the recordings: 'torque' (Nm) or 'current' (motor current, A; "
        'drive_gains_nm_per_a, or identified with the dynamics)', choices=('torque', 'current'),
        read_only=False)
    drive_gains_nm_per_a: list | None = setting(
        None, 'drive gains per joint (joint torque per motor current), for effort_unit current; '
        '[0.0] = none given: identified from the data', unit='Nm/A', lo=0.0, hi=1.0e4,
        unset=(0.0,), read_only=False, flag='--drive-gains')
    # static poses
    static_min_duration_s: float = setting(
        0.5, 'a static pose lasts at least this long', unit='s', node=False, flag='')
    static_velocity_threshold_rad_s: float = setting(
        0.005, 'a static pose holds every |joint velocity| below this', unit='rad/s',
        node=False, flag='')
    static_offset: bool = setting(False, 'a torque offset per joint in the static fit',
                                  read_only=False)
    # sweeps
    stribeck: bool = setting(False, 'fit a Stribeck term to the friction sweeps',
                             read_only=False)
    # physical consistency
    physical_consistency: bool = setting(
        False, 'constrain the inertias to be physically valid (LMI); reports the cost in fit '
        'error', read_only=False)
    plausibility_fallback: bool = setting(
        True, 'replace a physically implausible fit (negative friction, an offset beyond the '
        'recorded torque, inertias no body has or the data cannot support) by the physically '
        'consistent fit with the URDF as prior; false: keep the fit as made and only report '
        'the findings (an ordinary least-squares baseline)', node=False)
    chunk_samples: int = setting(4000, 'samples per chunk of the normal equations', node=False,
                                 flag='')

    def __post_init__(self):
        # flags and parameters give the gains as a tuple or array; the model file holds a list
        if self.drive_gains_nm_per_a is not None:
            self.drive_gains_nm_per_a = [float(g) for g in self.drive_gains_nm_per_a]

    def regressor_options(self) -> RegressorOptions:
        """Return the regressor structure of the dynamic fit these options ask for."""
        vs = self.stribeck_velocity_rad_s
        vs = float(vs) if vs is not None else _STRIBECK_VELOCITY_PLACEHOLDER_RAD_S
        return RegressorOptions(friction=self.friction, coulomb_asymmetric=self.coulomb_asymmetric,
                                offset=self.offset, rotor_inertia=self.rotor_inertia,
                                sign_velocity_rad_s=self.sign_velocity_rad_s,
                                presliding_rad=float(self.presliding_rad) if self.friction
                                else 0.0,
                                stribeck=bool(self.stribeck_column and self.friction),
                                stribeck_velocity_rad_s=vs,
                                load_coulomb=bool(self.load_coulomb and self.friction),
                                friction_drift=bool(self.friction_drift and self.friction))

    def to_dict(self):
        """Every field, as plain data (the model file's ``identification.options``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        """Options from ``to_dict`` output; unknown keys are ignored, missing ones default."""
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})

    def validated(self) -> IdentificationOptions:
        """Return ``self`` when every field is valid.

        Raises:
            IdentificationError: naming the first invalid field.
        """
        if self.weighting not in ('ols', 'wls'):
            raise IdentificationError(f'weighting must be "ols" or "wls", got {self.weighting!r}')
        if self.derivative_method not in DERIVATIVE_METHODS:
            raise IdentificationError(f'unknown derivative method {self.derivative_method!r}; use '
                                      'auto, periodic, savgol, spline or central')
        if self.effort_unit not in ('torque', 'current'):
            raise IdentificationError(f'effort_unit must be "torque" or "current", got '
                                      f'{self.effort_unit!r}')
        if not 0 < self.confidence < 1:
            raise IdentificationError('confidence must be in (0, 1)')
        if self.prior_weight < 0:
            raise IdentificationError('prior_weight must be >= 0')
        check_motion_selection(self.min_velocity_rad_s, self.min_velocity_scope,
                               self.min_velocity_margin_s)
        for name in ('stribeck_column', 'load_coulomb', 'friction_drift'):
            if getattr(self, name) and not self.friction:
                raise IdentificationError(f'{name} needs friction (--friction)')
        if self.load_coulomb and self.effort_unit == 'current' and not self.drive_gains_nm_per_a:
            raise IdentificationError('load_coulomb needs the torque: with effort_unit current '
                                      'give the drive gains (--drive-gains), or leave '
                                      'load_coulomb off')
        if self.stribeck_velocity_rad_s is not None and not self.stribeck_velocity_rad_s > 0:
            raise IdentificationError('stribeck_velocity_rad_s must be > 0 (or None: from the '
                                      'sweeps or the fit)')
        return self


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
    if len(series) < MIN_SERIES_SAMPLES:
        raise IdentificationError(f'{what} {src} has only {len(series)} samples (at least '
                                  f'{MIN_SERIES_SAMPLES}): record a longer run')
    bad = robot.check_in_limits(np.median(series.q, axis=0), margin_rad=-0.5)
    if len(bad) == robot.n:
        raise IdentificationError(f'{what} {src}: positions are far outside the URDF limits of '
                                  f'every joint: is this the right URDF?')
