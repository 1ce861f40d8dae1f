# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's configuration (robot_id_ros.demo.pipeline): one source for each recipe, read
lazily."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from robot_id_ros.demo import pipeline
from robot_id_ros.errors import InputError
from robot_id_ros.ros.parameter_files import estimator_settings
from robot_id_ros.identify import IdentificationOptions

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_demo_reads_no_file():
    code = ('import pathlib, builtins\n'
            'seen = []\n'
            'rt, op = pathlib.Path.read_text, builtins.open\n'
            'pathlib.Path.read_text = lambda self, *a, **k: '
            '(seen.append(str(self)), rt(self, *a, **k))[1]\n'
            'builtins.open = lambda f, *a, **k: (seen.append(str(f)), op(f, *a, **k))[1]\n'
            'import robot_id_ros.demo.pipeline, robot_id_ros.demo.report\n'
            'import robot_id_ros.demo.processes\n'
            'print([s for s in seen if s.endswith((".yaml", ".yml"))])\n')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == '[]'


def test_demo_estimator_is_config_wrench_estimator_yaml():
    want = estimator_settings(ROOT / 'config' / 'wrench_estimator.yaml')
    assert pipeline.demo_estimator_settings() == want
    assert pipeline.DEMO_ESTIMATOR == want
    with pytest.raises(AttributeError):
        pipeline.NOT_A_SETTING  # noqa: B018


def test_demo_identification_recipe_is_config_identification_yaml():
    """Every fit option of config/identification.yaml reaches the demo's options (0 = none given
    for cutoff_hz and drive gains, as in the node); bags, paths and the robot do not."""
    section = yaml.safe_load((ROOT / 'config' / 'identification.yaml').read_text())
    section = section['/**']['ros__parameters']
    opts = pipeline.demo_identification_options()
    fields = set(vars(IdentificationOptions()))
    used = [k for k in section if k in fields]
    assert {'rotor_inertia', 'coulomb_asymmetric', 'offset', 'stribeck_column',
            'derivative_method', 'cutoff_hz', 'sidecar_window', 'min_velocity_rad_s'} <= set(used)
    for k in used:
        want = None if k in ('cutoff_hz', 'drive_gains_nm_per_a') and not any(
            section[k] if isinstance(section[k], list) else [section[k]]) else section[k]
        assert getattr(opts, k) == want, k
    # no expert flags: every searched option at its default, chosen from the bags
    assert opts == IdentificationOptions()
    assert opts.auto_options


def test_identification_options_reads_a_node_section_and_names_a_bad_file(tmp_path):
    f = tmp_path / 'p.yaml'
    f.write_text(yaml.safe_dump({'/**': {'ros__parameters': {
        'cutoff_hz': 0.0, 'drive_gains_nm_per_a': [0.0], 'weighting': 'ols',
        'data_bags': ['x']}}}))
    opts = pipeline.identification_options(f)
    assert opts.cutoff_hz is None and opts.drive_gains_nm_per_a is None and opts.weighting == 'ols'
    f.write_text(yaml.safe_dump({'other': {'ros__parameters': {}}}))
    with pytest.raises(InputError, match='identification: ros__parameters'):
        pipeline.identification_options(f)
    with pytest.raises(InputError, match='cannot read'):
        pipeline.identification_options(tmp_path / 'missing.yaml')


@pytest.mark.parametrize('interface', pipeline.COMMAND_INTERFACES)
def test_demo_recorders_move_the_arm_through_the_chosen_interface(tmp_path, interface):
    from types import SimpleNamespace

    from robot_id_ros.ros.recorders.parameter_tables import common_parameters

    demo = SimpleNamespace(cfg=pipeline.DemoConfig(tmp_path, command_interface=interface))
    moving = pipeline.Demo.recorder_params(demo, tmp_path / 'bag')
    passive = pipeline.Demo.recorder_params(demo, tmp_path / 'bag', passive=True)
    assert moving['command_interface'] == interface
    assert set(moving) - {'use_sim_time'} <= set(common_parameters())   # the recorders' own
    assert 'command_interface' not in passive                       # the force phase: unchanged


def test_demo_names_a_missing_interface_package_in_one_line(tmp_path, monkeypatch):
    from robot_id_ros.demo import processes

    monkeypatch.setattr(processes.importlib.util, 'find_spec', lambda name: None)
    monkeypatch.setattr(processes, 'BUILD_TOOL', tmp_path / 'no_such_tool.py')
    env = {'A': '1'}
    assert processes.interface_environment(env, 'trajectory') is env
    with pytest.raises(processes.DemoError) as err:
        processes.interface_environment(env, 'brics_position')
    assert 'brics_actuator' in str(err.value) and '\n' not in str(err.value)
    with pytest.raises(pipeline.DemoError, match='choose one of'):
        pipeline.DemoConfig(tmp_path, command_interface='velocity')


def test_brics_lead_is_within_what_the_simulator_honours():
    """A set point sent further ahead than SETPOINT_MAX_S loses its stamp in the simulator (it is
    then reached one interval after arrival: the arm would run ahead of the reference)."""
    from robot_id_ros.demo.pipeline import DEMO_STREAM_LEAD_S
    from robot_id_ros.sim.driver import SETPOINT_MAX_S
    assert 0 < DEMO_STREAM_LEAD_S < SETPOINT_MAX_S


@pytest.mark.parametrize('drift', [False, True])
def test_demo_friction_drift_reaches_the_simulator(tmp_path, drift):
    """``robot-id demo --friction-drift`` starts the simulator with its friction drifting."""
    from types import SimpleNamespace

    from robot_id_ros.cli.main import build_parser
    from robot_id_ros.sim.config import SimConfig

    args = build_parser().parse_args(['demo', '--out', str(tmp_path)]
                                     + (['--friction-drift'] if drift else []))
    assert args.friction_drift is drift
    started = {}

    def start(executable, name, params):
        started.update(params)
        return SimpleNamespace(alive=lambda: True, log_path=tmp_path / 'sim.log')

    (tmp_path / 'truth').mkdir()
    (tmp_path / 'truth' / 'true_parameters.yaml').write_text('{}')
    demo = SimpleNamespace(cfg=pipeline.DemoConfig(tmp_path, friction_drift=args.friction_drift),
                           out=tmp_path, nodes=SimpleNamespace(start=start))
    pipeline.Demo._start_simulator(demo)
    assert started['friction_drift'] is drift
    assert 'friction_drift' in SimConfig.__dataclass_fields__     # a simulator setting
