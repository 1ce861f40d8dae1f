# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Estimator settings: validation and the wrench_estimator parameters file."""
import pytest

from robot_id_ros.errors import InputError
from robot_id_ros.estimate import (FRAMES, METHODS, STICTION_MODES, EstimatorConfig,
                                   WrenchEstimator, check_choice)
from robot_id_ros.ros.parameter_files import estimator_settings, youbot_estimator_settings


def test_config_validation(youbot):
    with pytest.raises(ValueError, match='method'):
        WrenchEstimator(youbot, EstimatorConfig(method='kalman'))
    with pytest.raises(ValueError, match='collision'):
        WrenchEstimator(youbot,
                        EstimatorConfig(contact_threshold_sigma=5, collision_threshold_sigma=2))


def test_string_settings_are_checked_by_one_helper():
    assert check_choice('method', 'direct', METHODS) == 'direct'
    with pytest.raises(InputError, match=r"frame must be one of \('base', 'tool'\), got 'world'"):
        check_choice('frame', 'world', FRAMES)
    assert METHODS == ('momentum', 'direct') and FRAMES == ('base', 'tool')
    assert STICTION_MODES == ('none', 'deadzone', 'hold')
    for field, bad in (('method', 'kalman'), ('frame', 'world'), ('wrench_mode', 'all'),
                       ('stiction_mode', 'sometimes'), ('contact_test', 'any')):
        with pytest.raises(InputError, match=field) as exc:
            EstimatorConfig(**{field: bad}).validated()
        assert isinstance(exc.value, ValueError) and exc.value.kind == 'config'
    with pytest.raises(InputError, match='max_gap_s'):
        EstimatorConfig(max_gap_s=0.0).validated()


def test_estimator_settings_from_a_params_file(tmp_path):
    """The wrench_estimator section of a ROS 2 parameters file (by node name or /**), only the
    EstimatorConfig fields, validated; errors name the file."""
    youbot = youbot_estimator_settings()
    assert youbot['stiction_mode'] == 'hold' and 'model_file' not in youbot
    EstimatorConfig(**youbot).validated()
    f = tmp_path / 'p.yaml'
    f.write_text('/**:\n  ros__parameters:\n    method: direct\n    model_file: m.yaml\n')
    assert estimator_settings(f) == {'method': 'direct'}
    f.write_text('/wrench_estimator:\n  ros__parameters:\n    max_gap_s: 1.5\n')
    assert estimator_settings(f) == {'max_gap_s': 1.5}
    f.write_text('other:\n  ros__parameters:\n    method: direct\n')
    with pytest.raises(InputError, match='no "wrench_estimator: ros__parameters:"'):
        estimator_settings(f)
    f.write_text('wrench_estimator:\n  ros__parameters:\n    method: kalman\n')
    with pytest.raises(InputError, match='p.yaml: method'):
        estimator_settings(f)
    with pytest.raises(InputError, match='cannot read'):
        estimator_settings(tmp_path / 'missing.yaml')
