# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot_id_ros.settings: one declaration per setting."""
from dataclasses import dataclass

import pytest

from robot_id_ros.errors import InputError
from robot_id_ros.settings import (Setting, SettingError, flag_of, replace_settings,
                                   setting, settings_of, validated_settings, yaml_comment)


@dataclass
class Example:
    cutoff_hz: float = setting(10.0, 'low-pass cut-off', unit='Hz', lo=0.1, hi=500.0)
    mode: str = setting('zero_phase', 'filter kind', choices=('zero_phase', 'causal'))
    gains: list = setting([1.0, 2.0], 'gains', unit='Nm/A', lo=0.0)
    plain: int = 3


def test_only_setting_fields_are_settings_and_carry_their_metadata():
    s = settings_of(Example)
    assert list(s) == ['cutoff_hz', 'mode', 'gains']
    assert s['cutoff_hz'][1] == Setting('low-pass cut-off', unit='Hz', lo=0.1, hi=500.0)
    assert Example().gains == [1.0, 2.0] and Example().gains is not Example().gains


def test_check_names_the_setting_and_its_range():
    assert validated_settings(Example()).cutoff_hz == 10.0
    with pytest.raises(SettingError, match=r'cutoff_hz = 0\.0: must be within \[0\.1, 500\] Hz'):
        validated_settings(Example(cutoff_hz=0.0))
    with pytest.raises(SettingError, match="mode = 'fast': must be one of 'zero_phase', 'causal'"):
        validated_settings(Example(mode='fast'))
    with pytest.raises(SettingError, match='gains = -1.0'):
        validated_settings(Example(gains=[1.0, -1.0]))
    with pytest.raises(SettingError, match='finite'):
        validated_settings(Example(cutoff_hz=float('nan')))
    assert issubclass(SettingError, InputError) and issubclass(SettingError, ValueError)


def test_replace_refuses_unknown_names_and_bad_values():
    assert replace_settings(Example(), {'cutoff_hz': 20.0}).cutoff_hz == 20.0
    with pytest.raises(SettingError, match='unknown setting.*cutof_hz.*known: cutoff_hz'):
        replace_settings(Example(), {'cutof_hz': 20.0})
    with pytest.raises(SettingError):
        replace_settings(Example(), {'cutoff_hz': 1e9})


def test_flags_descriptions_and_yaml_comments_come_from_the_declaration():
    spec = settings_of(Example)['cutoff_hz'][1]
    assert flag_of('cutoff_hz', spec) == '--cutoff-hz'
    assert flag_of('x', Setting('d', flag='--old')) == '--old'
    assert spec.description() == 'low-pass cut-off [Hz]'
    mode = settings_of(Example)['mode'][1]
    assert mode.description() == "filter kind (one of: 'zero_phase', 'causal')"
    lines = yaml_comment(Setting('word ' * 40), width=40)
    assert all(line.startswith('    # ') and len(line) <= 40 for line in lines) and len(lines) > 3


def test_a_node_config_is_checked_once_on_its_way_to_the_estimator(monkeypatch):
    """A config read from plain values is checked when built, and not again by its user."""
    from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
    from robot_id_ros.io.model_file import nominal_model
    from robot_id_ros.model.robot import youbot_model
    from robot_id_ros.settings import from_plain

    calls = []
    original = EstimatorConfig.validated
    monkeypatch.setattr(EstimatorConfig, 'validated',
                        lambda self: calls.append(id(self)) or original(self))
    config = from_plain(EstimatorConfig, {'observer_gain_hz': 20.0})
    WrenchEstimator(nominal_model(youbot_model()), config)
    assert calls.count(id(config)) == 1
    with pytest.raises(InputError, match='observer_gain_hz'):
        from_plain(EstimatorConfig, {'observer_gain_hz': -1.0})
