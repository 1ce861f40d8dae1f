# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""One declaration per setting: the node parameters, the robot-id flags and the parameters files
agree with the settings dataclasses' declarations (robot_id_ros.settings)."""
import sys
from pathlib import Path

import pytest
import yaml

from robot_id_ros.estimate import EstimatorConfig
from robot_id_ros.record import SafetyLimits
from robot_id_ros.settings import default_of, param_of, settings_by_param, settings_of
from robot_id_ros.sim.config import SimConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'tools'))
import update_docs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# (settings dataclass, executable of the node that declares them)
NODE_SETTINGS = [(EstimatorConfig, 'wrench_estimator'), (SimConfig, 'youbot_sim'),
                 *[(SafetyLimits, f'{kind}_recorder')
                   for kind in ('static_pose', 'trajectory', 'friction_sweep')]]


@pytest.mark.parametrize('cls, executable', NODE_SETTINGS)
def test_node_parameters_are_the_declared_settings(cls, executable, node_infos):
    info = next(d for d in node_infos if d.executable == executable)
    declared = {p.name: p for p in info.parameters}
    for name, (field, spec) in settings_by_param(cls).items():
        if not spec.node:
            continue
        assert name in declared, f'{executable} does not declare setting {name}'
        p = declared[name]
        assert p.description == spec.description(), name
        assert p.read_only == spec.read_only, name
        default = default_of(field)
        want = list(spec.unset) if default is None else default
        assert p.default == (list(want) if isinstance(want, tuple) else want), name
        if spec.lo is not None and not isinstance(p.default, list):  # ranges of scalars
            assert f'{spec.lo:g}'.rstrip('.') in p.constraints or str(float(spec.lo)) in \
                p.constraints, (name, p.constraints)


@pytest.mark.parametrize('path, cls', update_docs.settings_files())
def test_parameters_file_comments_are_generated_from_the_declarations(path, cls):
    from robot_id_ros.ros.params_file import annotate_params_file
    text = path.read_text()
    assert annotate_params_file(text, cls) == text, (
        f'{path.name}: comments differ from the declarations; run python tools/update_docs.py')
    section = next(iter(yaml.safe_load(text).values()))['ros__parameters']
    known = settings_by_param(cls)
    for name in section:
        if name in known:
            assert known[name][1].node, name


def test_the_generator_rewrites_a_stale_comment_and_keeps_the_youbot_note():
    from robot_id_ros.ros.params_file import annotate_params_file
    text = ('n:\n  ros__parameters:\n    # an old description\n    # youBot: 12 because\n'
            '    #   measured\n    observer_gain_hz: 12.0\n')
    new = annotate_params_file(text, EstimatorConfig)
    assert 'an old description' not in new
    assert '    # momentum observer bandwidth' in new
    assert '# youBot: 12 because\n    #   measured\n    observer_gain_hz: 12.0' in new
    assert annotate_params_file(new, EstimatorConfig) == new


def test_a_setting_keeps_its_node_parameter_name():
    from robot_id_ros.ros.params import settings_from_params, settings_table
    spec = settings_of(SimConfig)['initial_positions_rad'][1]
    assert param_of('initial_positions_rad', spec) == 'initial_positions'
    assert 'initial_positions' in settings_table(SimConfig)
    assert 'initial_positions_rad' not in settings_table(SimConfig)
    cfg = settings_from_params(SimConfig, {'initial_positions': [0.0] * 5, 'seed': 4,
                                           'publish_rate_hz': 50.0})
    assert cfg.initial_positions_rad == (0.0,) * 5 and cfg.seed == 4
    limits = settings_from_params(SafetyLimits, {'joint_limit_margin_rad': 0.2,
                                                 'max_velocity_rad_s': 0.4,
                                                 'max_acceleration_rad_s2': 0.8})
    assert (limits.margin_rad, limits.max_velocity_rad_s) == (0.2, 0.4)


def test_simconfig_checks_its_declared_ranges():
    from robot_id_ros.sim.config import SimConfigError
    for name, (field, spec) in settings_of(SimConfig).items():
        if spec.hi is not None and not isinstance(default_of(field), tuple):
            with pytest.raises(SimConfigError, match=name):
                SimConfig(**{name: spec.hi * 2 + 1})
    with pytest.raises(SimConfigError, match='kp_nm_rad must be >= 0'):
        SimConfig(kp_nm_rad=(-1.0, 0.0, 0.0, 0.0, 0.0))


# (settings dataclass, robot-id subcommand module that takes them as flags)
CLI_SETTINGS = [(EstimatorConfig, 'estimate')]


@pytest.mark.parametrize('cls, command', CLI_SETTINGS)
def test_cli_flags_are_the_declared_settings(cls, command):
    import argparse
    import importlib

    from robot_id_ros.settings import flag_of
    module = importlib.import_module(f'robot_id_ros.cli.{command}')
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    module.add_parser(sub)
    actions = {a.dest: a for a in sub.choices[command.replace('_', '-')]._actions}
    for name, (_, spec) in settings_of(cls).items():
        assert name in actions, f'robot-id {command} has no flag for setting {name}'
        action = actions[name]
        assert flag_of(name, spec) in action.option_strings, name
        assert set(spec.aliases) <= set(action.option_strings), name
        assert action.help.startswith(spec.description().replace('%', '%%')), name
        assert action.default is None, name
        if spec.choices:
            assert tuple(action.choices) == tuple(spec.choices), name
