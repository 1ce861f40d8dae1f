# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Stage 3, using the model online (ROS-free).

Residual observers, stiction handling, the wrench mapping, contact detection and uncertainty,
chained by ``WrenchEstimator``.

Modules: ``config`` (EstimatorConfig), ``samples`` (stamp rules, tare average, input checks),
``stiction``, ``residuals``, ``mapping``, ``contact``, ``uncertainty``, ``estimator``, ``batch``
(``process``'s arrays), ``sample_step`` (update's compiled one-sample step). Import the public
names from here. A wrench_estimator parameters file is read by
``robot_id_ros.ros.parameter_files.estimator_settings`` (ROS syntax, kept out of this package).
"""
from robot_id_ros.estimate.config import (CONTACT_TESTS, FRAMES, METHODS, STICTION_MODES,
                                          WRENCH_MODES, EstimatorConfig, check_choice)
from robot_id_ros.estimate.contact import (COLLISION, CONTACT, CONTACT_NONE, CONTACT_STATE_NAMES,
                                           ContactDetector, ContactState)
from robot_id_ros.estimate.batch import BatchResult
from robot_id_ros.estimate.estimator import EstimateResult, WrenchEstimator
from robot_id_ros.estimate.mapping import (Mapping, WrenchMapper, gram3_min_eig_inverse,
                                           wrench_rows)
from robot_id_ros.estimate.residuals import (CausalDifferentiator, DirectResidual,
                                             MomentumObserver, momentum_observer_batch)
from robot_id_ros.estimate.samples import (EstimatorInputError, StampGate, check_sample,
                                           effort_scale, tare_average)
from robot_id_ros.estimate.stiction import (BAND_ZERO_NM, StictionFriction, deadzone, hold_band,
                                            stiction_hold_batch)
from robot_id_ros.estimate.uncertainty import CovarianceSchedule, TorqueUncertainty

__all__ = [
    # config
    'CONTACT_TESTS', 'FRAMES', 'METHODS', 'STICTION_MODES', 'WRENCH_MODES', 'EstimatorConfig',
    'check_choice',
    # samples
    'EstimatorInputError', 'StampGate', 'check_sample', 'effort_scale', 'tare_average',
    # stiction
    'BAND_ZERO_NM', 'StictionFriction', 'deadzone', 'hold_band', 'stiction_hold_batch',
    # residuals
    'CausalDifferentiator', 'DirectResidual', 'MomentumObserver', 'momentum_observer_batch',
    # mapping
    'Mapping', 'WrenchMapper', 'gram3_min_eig_inverse', 'wrench_rows',
    # contact
    'COLLISION', 'CONTACT', 'CONTACT_NONE', 'CONTACT_STATE_NAMES', 'ContactDetector',
    'ContactState',
    # uncertainty
    'CovarianceSchedule', 'TorqueUncertainty',
    # estimator
    'BatchResult', 'EstimateResult', 'WrenchEstimator',
]
