# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A model file never decides where anything is written, and bad numbers or bytes are one line."""
import math

import pytest
import yaml

from robot_id_ros.io.model_file import ModelFileError, load_model, nominal_model
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
