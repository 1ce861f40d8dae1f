# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""One declaration per setting: the node parameters, the robot-id flags and the parameters files
agree with the settings dataclasses' declarations (robot_id_ros.settings)."""
import sys
from pathlib import Path

import pytest
import yaml

from robot_id_ros.control import ControllerConfig
from robot_id_ros.estimate import EstimatorConfig
from robot_id_ros.identify import IdentificationOptions
from robot_id_ros.record import SafetyLimits
from robot_id_ros.settings import default_of, param_of, settings_by_param, settings_of
from robot_id_ros.sim.config import SimConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'tools'))
import update_docs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# (settings dataclass, executable of the node that declares them)
NODE_SETTINGS = [(EstimatorConfig, 'wrench_estimator'), (IdentificationOptions, 'identification'),
                 (SimConfig, 'youbot_sim'), (ControllerConfig, 'force_controller'),
                 *[(SafetyLimits, f'{kind}_recorder')
                   for kind in ('static_pose', 'trajectory', 'friction_sweep')]]


@pytest.mark.parametrize('cls, executable', NODE_SETTINGS)
def test_node_parameters_are_the_declared_settings(cls, executable, node_infos):
    info = next(d for d in node_infos if d.executable == executable)
    declared = {p.name: p for p in info.parameters}
    # a node with the switch declares every setting read-only unless the operator sets it
    fixed_by_default = 'allow_run_time_changes' in declared
    for name, (field, spec) in settings_by_param(cls).items():
        if not spec.node:
            continue
        assert name in declared, f'{executable} does not declare setting {name}'
        p = declared[name]
        assert p.description == spec.description(), name
        assert p.read_only == (spec.read_only or fixed_by_default), name
        default = default_of(field)
        want = spec.unset if default is None else default
        assert p.default == (list(want) if isinstance(want, tuple) else want), name
        if spec.lo is not None and not isinstance(p.default, list):  # ranges of scalars
            assert f'{spec.lo:g}'.rstrip('.') in p.constraints or str(float(spec.lo)) in \
                p.constraints, (name, p.constraints)


@pytest.mark.parametrize('path, cls', update_docs.settings_files())
def test_parameters_file_comments_are_generated_from_the_declarations(path, cls):
    from robot_id_ros.ros.parameter_files import annotate_params_file
    text = path.read_text()
    assert annotate_params_file(text, cls) == text, (
        f'{path.name}: comments differ from the declarations; run python tools/update_docs.py')
    section = next(iter(yaml.safe_load(text).values()))['ros__parameters']
    known = settings_by_param(cls)
    for name in section:
        if name in known:
            assert known[name][1].node, name


def test_the_generator_rewrites_a_stale_comment_and_keeps_the_youbot_note():
    from robot_id_ros.ros.parameter_files import annotate_params_file
    text = ('n:\n  ros__parameters:\n    # an old description\n    # youBot: 12 because\n'
            '    #   measured\n    observer_gain_hz: 12.0\n')
    new = annotate_params_file(text, EstimatorConfig)
    assert 'an old description' not in new
    assert '    # momentum observer bandwidth' in new
    assert '# youBot: 12 because\n    #   measured\n    observer_gain_hz: 12.0' in new
    assert annotate_params_file(new, EstimatorConfig) == new


def test_a_setting_keeps_its_node_parameter_name():
    from robot_id_ros.ros.node_parameters import settings_from_params, settings_table
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
CLI_SETTINGS = [(EstimatorConfig, 'estimate'), (IdentificationOptions, 'identify')]


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
        if not flag_of(name, spec):          # internal: no flag
            assert name not in actions, name
            continue
        assert name in actions, f'robot-id {command} has no flag for setting {name}'
        action = actions[name]
        assert flag_of(name, spec) in action.option_strings, name
        assert set(spec.aliases) <= set(action.option_strings), name
        assert action.help.startswith(spec.description().replace('%', '%%')), name
        assert action.default is None, name
        if spec.choices:
            assert tuple(action.choices) == tuple(spec.choices), name


def _identify_args(line):
    import argparse
    import shlex

    from robot_id_ros.cli import identify as cli_identify
    parser = argparse.ArgumentParser()
    cli_identify.add_parser(parser.add_subparsers())
    return parser.parse_args(['identify', '--out', 'm.yaml'] + shlex.split(line))


def test_every_former_identify_flag_keeps_its_meaning():
    """The flags robot-id identify had before its settings were declared set the same options."""
    from robot_id_ros.cli.identify import options_from_args
    line = ('--asymmetric-coulomb --no-offset --rotor-inertia --weighting ols '
            '--no-column-scaling --prior-weight 0.5 --known m5=0.25 --physical-consistency '
            '--derivative-method spline --velocity-source measured --cutoff-hz 12 '
            '--torque-filter --period 4 --trim 0.3 --max-samples 900 --stribeck-column '
            '--min-velocity 0.05 --sidecar-window --stribeck --static-offset '
            '--effort-unit current --drive-gains 1,2,3,4,5')
    got = options_from_args(_identify_args(line), 5)
    want = IdentificationOptions(
        coulomb_asymmetric=True, offset=False, rotor_inertia=True,
        weighting='ols', column_scaling=False, prior_weight=0.5, known_parameters={'m5': 0.25},
        physical_consistency=True, derivative_method='spline', velocity_source='measured',
        cutoff_hz=12.0, torque_filter=True, period_s=4.0, trim_s=0.3, max_samples=900,
        stribeck_column=True, min_velocity_rad_s=0.05, sidecar_window=True, stribeck=True,
        static_offset=True, effort_unit='current', drive_gains_nm_per_a=[1.0, 2.0, 3.0, 4.0, 5.0])
    assert got == want
    assert got.to_dict() == want.to_dict()
    assert options_from_args(_identify_args(''), 5) == IdentificationOptions()
    assert options_from_args(_identify_args('--no-friction'), 5).friction is False
    # the new spellings: --x / --no-x of every boolean, the settings' own names
    both = options_from_args(_identify_args('--no-coulomb-asymmetric --offset --period-s 2 '
                                            '--min-velocity-rad-s 0.1 --trim-s 0'), 5)
    assert (both.coulomb_asymmetric, both.offset, both.period_s, both.min_velocity_rad_s,
            both.trim_s) == (False, True, 2.0, 0.1, 0.0)


def test_identify_refuses_a_value_outside_its_declaration():
    from robot_id_ros.cli.common import CommandError
    from robot_id_ros.cli.identify import options_from_args
    for line, match in (('--min-velocity -1', 'min_velocity_rad_s'),
                        ('--drive-gains 1,2', '--drive-gains needs 5 values'),
                        ('--prior-weight -0.1', 'prior_weight')):
        with pytest.raises(CommandError, match=match):
            options_from_args(_identify_args(line), 5)


def test_internal_identification_options_are_neither_parameters_nor_flags():
    """Options no user sets today have no node parameter and no flag; to_dict keeps every field."""
    from robot_id_ros.settings import flag_of
    internal = {n for n, (_, s) in settings_of(IdentificationOptions).items()
                if not s.node and not flag_of(n, s)}
    assert internal == {'sign_velocity_rad_s', 'stribeck_velocity_rad_s', 'min_velocity_scope',
                        'min_velocity_margin_s', 'known_parameters', 'confidence',
                        'max_condition', 'torque_cutoff_hz', 'resample_hz',
                        'static_min_duration_s', 'static_velocity_threshold_rad_s',
                        'chunk_samples'}
    d = IdentificationOptions().to_dict()
    assert list(d) == list(IdentificationOptions.__dataclass_fields__)
    assert IdentificationOptions.from_dict(d) == IdentificationOptions()


@pytest.mark.parametrize('command', ['validate', 'payload'])
def test_validate_and_payload_take_the_declared_effort_flags(command):
    import argparse
    import importlib
    module = importlib.import_module(f'robot_id_ros.cli.{command}')
    parser = argparse.ArgumentParser()
    module.add_parser(parser.add_subparsers())
    args = parser.parse_args([command, '--model', 'm.yaml', '--data', 'b', '--out', 'o.yaml',
                              '--effort-unit', 'current', '--drive-gains', '1,2.5']
                             if command == 'payload' else
                             [command, '--model', 'm.yaml', '--data', 'b',
                              '--effort-unit', 'current', '--drive-gains', '1,2.5'])
    assert (args.effort_unit, args.drive_gains_nm_per_a) == ('current', (1.0, 2.5))
