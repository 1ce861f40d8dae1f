# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A model of the same joint names but another arm is refused against the URDF in use."""
from pathlib import Path

import pytest
import yaml

from robot_id_ros.io.model_file import ModelFileError, load_model, nominal_model
from robot_id_ros.model.robot import RobotModel, default_urdf_path, resolve_urdf_path
from robot_id_ros.model.robot import youbot_model

ROOT = Path(__file__).resolve().parents[2]
YOUBOT_JOINTS = [f'arm_joint_{i}' for i in range(1, 6)]


def _config(exe):
    """The model-check parameters of the shipped config/<exe>.yaml (keyed for any node name)."""
    doc = yaml.safe_load((ROOT / 'config' / f'{exe}.yaml').read_text())
    p = doc['/**']['ros__parameters']
    return p['urdf_path'], p['joint_names']


@pytest.fixture
def youbot_file(tmp_path):
    path = tmp_path / 'youbot.yaml'
    nominal_model(youbot_model()).save(path)
    return path


def _other_arm(tmp_path, old, new, name='other.yaml'):
    """A model file of the youBot's joint names whose URDF has ``old`` replaced by ``new``."""
    text = default_urdf_path().read_text()
    assert old in text
    urdf = tmp_path / 'other.urdf'
    urdf.write_text(text.replace(old, new))
    path = tmp_path / name
    nominal_model(RobotModel(urdf, YOUBOT_JOINTS, 'arm_link_5')).save(path)
    return path


@pytest.mark.parametrize('old, new, named', [
    ('xyz="0 0 0.155"', 'xyz="0 0 0.175"', 'arm_joint_3 lies 20 mm'),    # a longer link
    ('<axis xyz="0 1 0"/>\n    <limit lower="-5.183628"', '<axis xyz="0 -1 0"/>\n    <limit '
     'lower="-5.183628"', 'arm_joint_3 lies 0 mm and 2.62 rad'),          # a flipped axis
    ('lower="0.0" upper="2.705260"', 'lower="0.0" upper="2.0"',
     'arm_joint_2 upper limit is 2 in the model, 2.70526 in the URDF'),    # other limits
])
def test_another_geometry_is_refused_naming_the_difference(tmp_path, old, new, named):
    path = _other_arm(tmp_path, old, new)
    with pytest.raises(ModelFileError) as err:
        load_model(path, urdf_path=default_urdf_path(), joint_names=YOUBOT_JOINTS)
    msg = str(err.value)
    assert '\n' not in msg and named in msg and 'another geometry' in msg, msg
    assert 'identify again for youbot_arm.urdf' in msg and 'urdf_path' in msg, msg


def test_the_embedded_urdf_not_the_hash_label_is_compared(tmp_path, youbot_file):
    """A file keeping the youBot URDF's hash over another arm's URDF is still refused."""
    d = yaml.safe_load(youbot_file.read_text())
    d['robot']['urdf_xml'] = d['robot']['urdf_xml'].replace('xyz="0 0 0.155"',
                                                            'xyz="0 0 0.175"')
    forged = tmp_path / 'forged.yaml'
    forged.write_text(yaml.safe_dump(d, sort_keys=False))
    with pytest.raises(ModelFileError, match='another geometry'):
        load_model(forged, urdf_path=default_urdf_path())


def test_a_urdf_differing_only_where_the_model_does_not_look_passes(tmp_path, youbot_file):
    """Masses (the model's replace them), comments, a rounded last digit: the same arm."""
    text = default_urdf_path().read_text().replace('1.390', '1.391').replace(
        'xyz="0 0 0.155"', 'xyz="0 0 0.15500001"').replace('</robot>', '<!-- copy --></robot>')
    urdf = tmp_path / 'copy.urdf'
    urdf.write_text(text)
    assert load_model(youbot_file, urdf_path=urdf, joint_names=YOUBOT_JOINTS).n == 5


def test_a_missing_urdf_or_package_is_one_line(tmp_path, youbot_file):
    with pytest.raises(ModelFileError, match='URDF not found'):
        load_model(youbot_file, urdf_path=tmp_path / 'missing.urdf')
    with pytest.raises(ModelFileError, match="package 'no_such_package' is not installed"):
        load_model(youbot_file, urdf_path='package://no_such_package/urdf/arm.urdf')


def test_the_shipped_configs_name_the_bundled_youbot_arm():
    for exe in ('wrench_estimator', 'force_controller'):
        urdf, joints = _config(exe)
        assert resolve_urdf_path(urdf).read_bytes() == default_urdf_path().read_bytes(), exe
        assert joints == YOUBOT_JOINTS, exe


def _node_refuses(cls, context, model_path, exe):
    from rclpy.parameter import Parameter
    urdf, joints = _config(exe)
    with pytest.raises(ModelFileError) as err:
        cls(context=context, parameter_overrides=[
            Parameter('model_file', value=str(model_path)), Parameter('urdf_path', value=urdf),
            Parameter('joint_names', value=joints)])
    return str(err.value)


def test_the_nodes_with_the_shipped_config_refuse_another_geometry(
        rclpy_context, tmp_path, youbot_file):
    """The wrench_estimator and force_controller start only on a model of the arm in use."""
    from rclpy.parameter import Parameter

    from robot_id_ros.ros.nodes.force_controller import ForceControllerNode
    from robot_id_ros.ros.nodes.wrench_estimator import WrenchEstimatorNode
    other = _other_arm(tmp_path, 'xyz="0 0 0.155"', 'xyz="0 0 0.175"')
    for cls, exe in ((WrenchEstimatorNode, 'wrench_estimator'),
                     (ForceControllerNode, 'force_controller')):
        msg = _node_refuses(cls, rclpy_context, other, exe)
        assert 'another geometry' in msg and 'arm_joint_3 lies 20 mm' in msg, (exe, msg)
        urdf, joints = _config(exe)
        node = cls(context=rclpy_context, parameter_overrides=[
            Parameter('model_file', value=str(youbot_file)), Parameter('urdf_path', value=urdf),
            Parameter('joint_names', value=joints)])
        node.destroy_node()
