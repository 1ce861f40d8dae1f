"""Settings of the wrench estimator (``EstimatorConfig``) and their validation.

The node's parameters, the ``robot-id estimate`` flags and a wrench_estimator parameters file
(``robot_id_ros.ros.params_file``) all map onto these fields.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from robot_id_ros.errors import InputError

Method = Literal['momentum', 'direct']
Frame = Literal['base', 'tool']
WrenchMode = Literal['auto', 'force', 'full', 'torque']
StictionMode = Literal['none', 'deadzone', 'hold']
ContactTest = Literal['combined', 'joint']

METHODS = get_args(Method)
FRAMES = get_args(Frame)
WRENCH_MODES = get_args(WrenchMode)
STICTION_MODES = get_args(StictionMode)
CONTACT_TESTS = get_args(ContactTest)

# the string fields of EstimatorConfig and their choices, in the order they are checked
_CHOICES = {'stiction_mode': STICTION_MODES, 'method': METHODS, 'frame': FRAMES,
            'wrench_mode': WRENCH_MODES, 'contact_test': CONTACT_TESTS}
_POSITIVE = ('observer_gain_hz', 'direct_filter_hz', 'sigma_guard', 'contact_threshold_sigma',
             'collision_threshold_sigma', 'default_residual_std_nm', 'time_jump_s', 'max_gap_s',
             'covariance_period_s')


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
    """Settings of ``WrenchEstimator`` (the node's parameters and the command's flags map here)."""

    method: Method = 'momentum'           # 'momentum' | 'direct'
    frame: Frame = 'base'                 # wrench expressed in 'base' (URDF root) or 'tool' frame
    wrench_mode: WrenchMode = 'auto'      # 'auto' | 'force' | 'full' | 'torque'
    observer_gain_hz: float = 10.0        # momentum observer bandwidth K / (2 pi)
    direct_filter_hz: float = 10.0        # direct method: differentiator / torque filter bandwidth
    stiction_velocity_rad_s: float = 0.02  # |qd| below: friction unknown within its bounds
    sigma_guard: float = 0.02             # smallest singular value of J^T below which damping
    #                                       starts
    damping: float = 0.02                 # damping at zero singular value (same unit as sigma)
    contact_test: ContactTest = 'combined'  # 'combined': one statistic over all joints, each
    #   weighted by 1 / (residual variance + band^2); 'joint': |tau_ext| - band per joint (see
    #   ContactDetector)
    contact_threshold_sigma: float = 5.0  # contact when the test statistic exceeds k residual std
    collision_threshold_sigma: float = 12.0
    contact_release_ratio: float = 0.5    # hysteresis: leave a state below this fraction of its
    #                                       threshold
    contact_threshold_nm: tuple | None = None    # per-joint override of the contact threshold
    collision_threshold_nm: tuple | None = None  # per-joint override of the collision threshold
    default_residual_std_nm: float = 0.1  # used when the model file has no residual statistics
    time_jump_s: float = 0.2              # a stamp this far behind the last: reset (bag looped)
    max_gap_s: float = 0.5                # a gap longer than this between samples: reset
    covariance_period_s: float = 0.05     # how often the wrench covariance is recomputed
    tare_window_s: float = 0.1            # tare averages tau_ext over this much recent data
    band_weighting: bool = False          # weight each joint in the wrench least squares by
    #   1 / (residual variance + band^2 / 3): a joint in its stiction band counts little
    stiction_mode: StictionMode = 'none'  # what a resting joint (friction unknown within its band)
    #   gives the wrench: 'none' its tau_ext as is; 'deadzone' only the part outside the band (the
    #   smallest consistent external torque); 'hold' the external torque it had when it stopped,
    #   moved only as far as the band requires (see stiction_hold). With 'deadzone' or 'hold' a
    #   tare removes only the part of a resting joint's residual its static friction cannot
    #   explain.

    def validated(self) -> EstimatorConfig:
        """Check every field.

        Returns:
            ``self``, when valid.

        Raises:
            InputError: (kind 'config') the first field out of its range or choices.
        """
        for name, choices in _CHOICES.items():
            check_choice(name, getattr(self, name), choices)
        for name in _POSITIVE:
            if not getattr(self, name) > 0:
                raise InputError(f'{name} must be > 0, got {getattr(self, name)!r}', 'config')
        if not 0 < self.contact_release_ratio < 1:
            raise InputError('contact_release_ratio must be in (0, 1)', 'config')
        if self.collision_threshold_sigma < self.contact_threshold_sigma:
            raise InputError('collision_threshold_sigma must be >= contact_threshold_sigma',
                             'config')
        if self.damping < 0 or self.stiction_velocity_rad_s < 0 or self.tare_window_s < 0:
            raise InputError('damping, stiction_velocity_rad_s and tare_window_s must be >= 0',
                             'config')
        return self
