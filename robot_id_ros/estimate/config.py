# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Settings of the wrench estimator (``EstimatorConfig``) and their validation.

The node's parameters, the ``robot-id estimate`` flags and a wrench_estimator parameters file
(``robot_id_ros.ros.parameter_files``) all map onto these fields.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from robot_id_ros.errors import InputError
from robot_id_ros.settings import setting, settings_of, validated_settings

Method = Literal['momentum', 'direct']
Frame = Literal['base', 'tool']
WrenchMode = Literal['auto', 'force', 'full', 'torque']
StictionMode = Literal['none', 'deadzone', 'hold']
ContactTest = Literal['combined', 'joint']
FrictionSign = Literal['model', 'exact']

METHODS = get_args(Method)
FRAMES = get_args(Frame)
WRENCH_MODES = get_args(WrenchMode)
STICTION_MODES = get_args(StictionMode)
CONTACT_TESTS = get_args(ContactTest)
FRICTION_SIGNS = get_args(FrictionSign)


def check_choice(name: str, value, choices: tuple, kind: str = 'config') -> str:
    """Check a string setting against its choices.

    Args:
        name: the setting's name, for the message.
        value: the value given.
        choices: the allowed values.
        kind: the ``InputError.kind`` raised.

    Returns:
        ``value`` when it is one of ``choices``.

    Raises:
        InputError: ``value`` is not one of ``choices``; the message names them.
    """
    if value not in choices:
        raise InputError(f'{name} must be one of {choices}, got {value!r}', kind)
    return value


@dataclass
class EstimatorConfig:
    """Settings of ``WrenchEstimator``.

    Each field declares its doc, unit and range once (``robot_id_ros.settings``); the node's
    parameters, the ``robot-id estimate`` flags and the comments of config/wrench_estimator.yaml
    are generated from them.
    """

    method: Method = setting(
        'momentum', "'momentum' (generalized momentum observer) or 'direct' (residual with a "
        'causal filtered differentiator)', choices=METHODS)
    frame: Frame = setting(
        'base', "express the wrench in 'base' (URDF root) or 'tool' axes; either way it acts at "
        "the tool frame's origin", choices=FRAMES)
    wrench_mode: WrenchMode = setting(
        'auto', "'auto': full wrench for >= 6 joints, force at the tool point for fewer; 'force', "
        "'full' or 'torque'", choices=WRENCH_MODES, flag='--wrench-mode', aliases=('--wrench',))
    observer_gain_hz: float = setting(
        10.0, 'momentum observer bandwidth K / (2 pi): higher reacts faster, passes more noise',
        unit='Hz', lo=0.1, hi=500.0)
    direct_filter_hz: float = setting(
        10.0, 'direct method: bandwidth of the causal differentiator and of the torque filter',
        unit='Hz', lo=0.1, hi=500.0, aliases=('--filter-hz',))
    friction_sign: FrictionSign = setting(
        'model', "the friction law near zero velocity: 'model' the model file's (its smooth "
        'sign tanh(qd / sign_velocity_rad_s) and its Stribeck term, the law identification '
        "fitted); 'exact' the exact sign of the measured velocity (a joint measured moving "
        'slides with its full Coulomb friction: drives whose velocity reads exactly zero at '
        'rest and whose friction is not smooth near zero)', choices=FRICTION_SIGNS)
    stiction_velocity_rad_s: float | None = setting(
        None, 'below this |joint velocity| a resting joint\'s friction torque is anywhere within '
        'offset +- breakaway, an interval carried on tau_ext (the stiction band; released by '
        "twice it). -1 (none) = from the model, per joint: half the velocity above which the "
        "model's friction law and the exact sign differ by at most the identification residual "
        'std; 0 = no band', unit='rad/s', lo=0.0, hi=1.0, unset=-1.0,
        aliases=('--stiction-velocity',))
    sigma_guard: float = setting(
        0.02, 'smallest singular value of the mapped J^T below which damping starts',
        unit='m for a force', lo=1e-6, hi=10.0)
    damping: float = setting(
        0.02, 'damping of the least squares at a singularity (same unit as sigma_guard)',
        lo=0.0, hi=10.0)
    contact_test: ContactTest = setting(
        'combined', "'combined': one statistic over all joints, sqrt(sum tau_ext^2 / (residual "
        'std^2 + stiction band^2)) (joints outside their stiction band carry the detection while '
        "others pass through it); 'joint': |tau_ext| - stiction band on any one joint",
        choices=CONTACT_TESTS)
    contact_threshold_sigma: float = setting(
        5.0, 'contact when the contact test statistic exceeds this many identification residual '
        'std', lo=0.5, hi=1000.0)
    collision_threshold_sigma: float = setting(
        12.0, 'collision threshold, same unit (>= contact threshold)', lo=0.5, hi=1000.0)
    contact_release_ratio: float = setting(
        0.5, 'hysteresis: a state is left below this fraction of its threshold', lo=0.01,
        hi=0.99)
    contact_threshold_nm: tuple | None = setting(
        None, 'per-joint contact threshold replacing contact_threshold_sigma (none: [0.0])',
        unit='Nm', lo=0.0, unset=(0.0,))
    collision_threshold_nm: tuple | None = setting(
        None, 'per-joint collision threshold replacing collision_threshold_sigma (none: [0.0])',
        unit='Nm', lo=0.0, unset=(0.0,))
    default_residual_std_nm: float = setting(
        0.1, 'residual std used when the model file has no residual statistics', unit='Nm',
        lo=1e-9, hi=1e3)
    default_model_relative_error: float = setting(
        0.2, 'without residual statistics: the share of the model torque the model may miss '
        '(a URDF\'s masses and inertias, drives it does not describe); it widens the contact '
        'thresholds and the sigma as the predicted torque grows', lo=0.0, hi=10.0)
    default_effort_relative_error: float = setting(
        0.2, 'without residual statistics: the share of the measured torque its scale may be '
        'off (motor current times a nominal torque constant); it widens the published sigma as '
        'the measured torque grows', lo=0.0, hi=10.0)
    time_jump_s: float = setting(
        0.2, 'a stamp this far behind the last one resets the observer (a looped bag)', unit='s',
        lo=0.001, hi=3600.0)
    max_gap_s: float = setting(
        0.5, 'a gap longer than this between samples resets the observer', unit='s', lo=0.001,
        hi=3600.0)
    covariance_period_s: float = setting(
        0.05, 'how often the wrench covariance is recomputed', unit='s', lo=1e-4, hi=60.0)
    tare_window_s: float = setting(
        0.1, 'a tare averages the external torque over this much recent data', unit='s', lo=0.0,
        hi=60.0)
    band_weighting: bool = setting(
        False, 'weight each joint in the wrench least squares by 1 / (residual variance + '
        'stiction band^2 / 3): joints inside their stiction band (friction unknown) count little')
    stiction_mode: StictionMode = setting(
        'none', 'what a resting joint (friction unknown within its stiction band) gives the '
        "wrench: 'none' its external torque as is; 'deadzone' only the part outside the band; "
        "'hold' the external torque it had when it stopped, moved only as far as the band "
        "requires. With 'deadzone' or 'hold', a tare removes only the part of a resting joint's "
        'residual that static friction cannot explain', choices=STICTION_MODES)

    friction_tracking: bool = setting(
        False, 'follow each joint\'s Coulomb (either direction) and viscous friction while the '
        'arm moves without contact (a gear that warms up or carries more load); nothing is learnt '
        'while a contact may be present')
    friction_tracking_time_s: float = setting(
        600.0, 'friction tracking: the time in which a friction term may change by its own size '
        '(shorter follows faster, trusts the model less)', unit='s', lo=1.0, hi=1e6)
    friction_tracking_holdoff_s: float = setting(
        1.0, 'friction tracking: nothing is learnt for this long after the contact statistic was '
        'at its release level', unit='s', lo=0.0, hi=3600.0)

    def __post_init__(self):
        self.validated()

    @property
    def residual_bandwidth_hz(self) -> float:
        """Return the bandwidth of the residual this config runs (its method's), Hz."""
        return self.observer_gain_hz if self.method == 'momentum' else self.direct_filter_hz

    def validated(self) -> EstimatorConfig:
        """Check every field.

        Returns:
            ``self``, when valid.

        Raises:
            InputError: (kind 'config') the first field out of its range or choices.
        """
        for name, (_, spec) in settings_of(self).items():
            if spec.choices:    # the message names the choices as check_choice words them
                check_choice(name, getattr(self, name), spec.choices)
        validated_settings(self)   # the declared ranges (every lower bound of a rate, gain,
        #                            threshold or period is > 0)
        if self.collision_threshold_sigma < self.contact_threshold_sigma:
            raise InputError('collision_threshold_sigma must be >= contact_threshold_sigma',
                             'config')
        return self
