# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Every YAML file a user gives is read within bounds: size, alias expansion, nesting."""
import pytest
import yaml

from robot_id_ros.errors import InputError
from robot_id_ros.io.sidecar import SidecarError, read_sidecar
from robot_id_ros.io.yaml_input import ALIAS_NODE_BUDGET, read_yaml
from robot_id_ros.record.fourier import ExcitationError, FourierTrajectory
from robot_id_ros.ros.parameter_files import ParamsFileError, estimator_settings

BOMB = ''.join(['a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n'] + [
    f'a{i}: &a{i} [{", ".join([f"*a{i - 1}"] * 10)}]\n' for i in range(1, 8)])


@pytest.mark.parametrize('reader, error', [
    (read_sidecar, SidecarError),
    (FourierTrajectory.load, ExcitationError),
    (estimator_settings, ParamsFileError),
    (read_yaml, InputError),
])
def test_an_alias_bomb_is_refused_by_every_reader_in_one_line(tmp_path, reader, error):
    path = tmp_path / 'input.yaml'
    path.write_text(BOMB)
    with pytest.raises(error) as err:
        reader(path)
    msg = str(err.value)
    assert '\n' not in msg and 'input.yaml' in msg and 'aliases expand it' in msg, msg


def test_anchors_that_add_little_are_read_as_safe_load_reads_them(tmp_path):
    """Aliases are refused only beyond the budget: a pose reused a few times is fine."""
    text = 'home: &home [0.1, 0.2, 0.3]\nposes: [*home, [0, 0, 0], *home]\nn: 1e3\nok: yes\n'
    path = tmp_path / 'poses.yaml'
    path.write_text(text)
    assert read_yaml(path) == yaml.safe_load(text)
    wide = '\n'.join(['a: &a [' + ', '.join(['1'] * 100) + ']',
                      'b: [' + ', '.join(['*a'] * (ALIAS_NODE_BUDGET // 101 - 1)) + ']']) + '\n'
    path.write_text(wide)
    assert len(read_yaml(path)['b']) == ALIAS_NODE_BUDGET // 101 - 1


def test_a_file_beyond_the_size_bound_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / 'huge.yaml'
    with open(path, 'wb') as f:
        f.truncate(100 * 1024 * 1024)       # sparse: nothing is written
    with pytest.raises(InputError) as err:
        read_yaml(path, 'sidecar')
    msg = str(err.value)
    assert '\n' not in msg and 'huge.yaml is 105 MB, larger than any sidecar' in msg, msg


def test_binary_and_broken_files_are_one_line(tmp_path):
    path = tmp_path / 'x.yaml'
    path.write_bytes(b'\xff\xfe\x00binary')
    with pytest.raises(InputError, match='x.yaml is not text'):
        read_yaml(path)
    path.write_text('a: [1, 2\n')
    with pytest.raises(InputError, match=r'x.yaml is not valid YAML at line \d+, column \d+'):
        read_yaml(path)


def test_a_device_or_folder_is_refused_without_reading_it(tmp_path):
    for path in ('/dev/zero', tmp_path):
        with pytest.raises(InputError, match='is not a regular file'):
            read_yaml(path, 'poses_file')
