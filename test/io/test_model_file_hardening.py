# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A model file never decides where anything is written, and bad numbers or bytes are one line."""
import math

import pytest
import yaml

from robot_id_ros.io.model_file import (MAX_MODEL_FILE_BYTES, ModelFileError, load_model,
                                        nominal_model)
from robot_id_ros.model.robot import youbot_model


@pytest.fixture
def model_dict(tmp_path):
    path = tmp_path / 'm.yaml'
    nominal_model(youbot_model()).save(path)
    return yaml.safe_load(path.read_text())


def _write(tmp_path, d, name='m.yaml'):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(d, sort_keys=False))
    return path


@pytest.mark.parametrize('label', ['/PLACEHOLDER/evil.urdf', '../../evil.urdf', 'sub/evil.urdf'])
def test_the_urdf_label_is_never_a_place_to_write(tmp_path, model_dict, label):
    target = tmp_path / 'outside' / 'evil.urdf'
    target.parent.mkdir()
    model_dict['robot']['urdf_file'] = label.replace('/PLACEHOLDER', str(target.parent))
    work = tmp_path / 'a' / 'b'
    work.mkdir(parents=True)
    m = load_model(_write(work, model_dict))
    assert m.robot.n == 5
    assert not target.exists()
    assert not (work / 'sub').exists() and not (tmp_path / 'evil.urdf').exists()
    assert str(m.robot.urdf_path) == 'evil.urdf'


@pytest.mark.parametrize('value', [float('nan'), float('inf'), 1e300])
def test_a_non_finite_or_absurd_parameter_is_refused_by_name(tmp_path, model_dict, value):
    model_dict['parameters'][3]['value'] = value
    name = model_dict['parameters'][3]['name']
    with pytest.raises(ModelFileError) as err:
        load_model(_write(tmp_path, model_dict))
    msg = str(err.value)
    assert '\n' not in msg and name in msg and 'non-finite or absurd' in msg


def test_a_nan_friction_or_gain_is_refused(tmp_path, model_dict):
    joints = model_dict['friction']['joints']
    joints[next(iter(joints))]['coulomb_pos_nm'] = math.nan
    with pytest.raises(ModelFileError, match='friction'):
        load_model(_write(tmp_path, model_dict))


def test_binary_and_broken_yaml_files_are_one_line_naming_the_file(tmp_path):
    binary = tmp_path / 'model.bin'
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ModelFileError, match=r'model\.bin is not text'):
        load_model(binary)
    broken = tmp_path / 'broken.yaml'
    broken.write_text('kind: x\nrobot: [1, 2\nparameters: {\n')
    with pytest.raises(ModelFileError) as err:
        load_model(broken)
    assert 'broken.yaml' in str(err.value) and 'line' in str(err.value) and '\n' not in str(
        err.value)


def _alias_bomb(levels, width=10):
    """YAML whose ``levels`` nested lists of ``width`` aliases stand for width**levels nodes."""
    lines = [f'l0: &l0 [{", ".join(["lol"] * width)}]']
    for i in range(1, levels):
        lines.append(f'l{i}: &l{i} [{", ".join([f"*l{i - 1}"] * width)}]')
    return '\n'.join(lines) + '\n'


def _one_line_error(call):
    with pytest.raises(ModelFileError) as err:
        call()
    msg = str(err.value)
    assert '\n' not in msg, msg
    return msg


def test_an_alias_bomb_in_a_model_is_refused_without_expanding_it(tmp_path, model_dict):
    """Ten million nodes behind 300 bytes of aliases, where a model keeps any mapping."""
    path = tmp_path / 'm.yaml'
    path.write_text(yaml.safe_dump(model_dict, sort_keys=False)
                    + 'bomb:\n' + ''.join(f'  {x}\n' for x in _alias_bomb(7).splitlines()))
    msg = _one_line_error(lambda: load_model(path))
    assert 'm.yaml is refused: its aliases expand it' in msg, msg


def test_a_recursive_or_too_deep_model_is_refused_in_one_line(tmp_path, model_dict):
    recursive = tmp_path / 'recursive.yaml'
    recursive.write_text(yaml.safe_dump(model_dict, sort_keys=False) + 'loop: &a [1, *a]\n')
    assert 'recursive' in _one_line_error(lambda: load_model(recursive))
    deep = tmp_path / 'deep.yaml'
    deep.write_text(yaml.safe_dump(model_dict, sort_keys=False)
                    + 'deep: ' + '[' * 150 + ']' * 150 + '\n')
    assert 'deeper than' in _one_line_error(lambda: load_model(deep))


def test_a_file_larger_than_any_model_is_refused_from_its_size(tmp_path, model_dict):
    """A valid model padded past the bound: refused before it is parsed."""
    path = tmp_path / 'big.yaml'
    text = yaml.safe_dump(model_dict, sort_keys=False)
    padding = MAX_MODEL_FILE_BYTES + 1024 - len(text)
    path.write_text(text + ('#' + 'x' * 1023 + '\n') * (padding // 1024 + 1))
    msg = _one_line_error(lambda: load_model(path))
    assert 'big.yaml' in msg and 'larger than any model file' in msg, msg


@pytest.mark.parametrize('gravity,shown', [
    ([0.0, float('nan'), -9.81], 'nan'), ([0.0, 0.0, -98.1], '-98.1'),
    ([0.0, -9.81], '[0.0, -9.81]')])
def test_gravity_that_is_not_finite_plausible_or_three_numbers_is_named(
        tmp_path, model_dict, gravity, shown):
    model_dict['robot']['gravity_m_s2'] = gravity
    msg = _one_line_error(lambda: load_model(_write(tmp_path, model_dict)))
    assert 'robot.gravity_m_s2' in msg and shown in msg and '-9.81]' in msg, msg


def test_a_negative_link_mass_is_refused_by_name(tmp_path, model_dict):
    entry = next(p for p in model_dict['parameters'] if p['name'] == 'm2')
    entry['value'] = -50.0
    msg = _one_line_error(lambda: load_model(_write(tmp_path, model_dict)))
    assert 'm2 = -50 kg is negative' in msg and '--physical-consistency' in msg, msg


def test_a_negative_standard_deviation_is_refused(tmp_path, model_dict):
    model_dict['residual'] = {'std_nm': {n: -0.1 for n in model_dict['robot']['joint_names']}}
    msg = _one_line_error(lambda: load_model(_write(tmp_path, model_dict)))
    assert 'residual std of arm_joint_1 = -0.1' in msg, msg


def test_a_zero_smooth_sign_velocity_is_refused(tmp_path, model_dict):
    model_dict['regressor']['sign_velocity_rad_s'] = 0.0
    msg = _one_line_error(lambda: load_model(_write(tmp_path, model_dict)))
    assert 'regressor.sign_velocity_rad_s = 0 must be finite and positive' in msg, msg


def test_a_consistent_fit_with_an_impossible_inertia_is_refused(tmp_path, model_dict):
    """A file that says physical consistency while link 3 breaks the triangle inequality."""
    model_dict['identification'] = {'options': {'physical_consistency': True}}
    assert load_model(_write(tmp_path, model_dict, 'ok.yaml')).n == 5
    by_name = {p['name']: p for p in model_dict['parameters']}
    by_name['XX3']['value'] = by_name['YY3']['value'] + by_name['ZZ3']['value'] + 0.05
    msg = _one_line_error(lambda: load_model(_write(tmp_path, model_dict)))
    assert 'link 3' in msg and 'physical consistency' in msg, msg
    model_dict['identification'] = {}   # a least-squares fit: its inertias need not be a body's
    assert load_model(_write(tmp_path, model_dict, 'ls.yaml')).n == 5


def _bag(tmp_path, model):
    """A 0.5 s bag of the model's torques along a slow motion (the CLI's input)."""
    import numpy as np

    from robot_id_ros.io.bags import BagWriter
    t = np.arange(100) / 200.0
    q = np.array([2.9, 1.6, -1.6, 2.2, 2.9]) + 0.1 * np.sin(2 * np.pi * t[:, None])
    qd = 0.2 * np.pi * np.cos(2 * np.pi * t[:, None]) * np.ones(5)
    stamps = 1_700_000_000 * 10 ** 9 + np.round(t * 1e9).astype(np.int64)
    names = list(model.joint_names)
    with BagWriter(tmp_path / 'bag') as bw:
        for k, s in enumerate(stamps):
            effort = model.torque(q[k], qd[k], np.zeros(5))
            bw.write('/joint_states', s, bw.joint_state(s, names, q[k], qd[k], effort))
    return tmp_path / 'bag'


@pytest.mark.parametrize('field,value,named', [('gravity', float('nan'), 'robot.gravity_m_s2'),
                                               ('m2', -50.0, 'm2 = -50 kg')])
def test_estimate_and_validate_say_a_bad_model_field_in_one_line(tmp_path, capsys, model_dict,
                                                                 field, value, named):
    from robot_id_ros.cli.main import main
    bag = _bag(tmp_path, nominal_model(youbot_model()))
    if field == 'gravity':
        model_dict['robot']['gravity_m_s2'] = [0.0, 0.0, value]
    else:
        next(p for p in model_dict['parameters'] if p['name'] == field)['value'] = value
    model = _write(tmp_path, model_dict)
    for argv in (['estimate', '--model', str(model), '--data', str(bag), '--out',
                  str(tmp_path / 'out')],
                 ['validate', '--model', str(model), '--data', str(bag)]):
        rc = main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert rc == 2 and len(err) == 1, (argv, rc, err)
        assert err[0].startswith(f'robot-id {argv[0]}: error: model file') and named in err[0]
        assert not (tmp_path / 'out').exists()
