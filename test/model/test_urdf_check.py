# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A URDF's numbers are checked before Pinocchio reads them (urdfdom would read 'abc' as 0)."""
from pathlib import Path

import pytest

from robot_id_ros.model.robot import ModelError, RobotModel, default_urdf_path
from robot_id_ros.model.urdf_check import URDFError, check_urdf_text

LINK = ('<robot name="r"><link name="base"/><link name="l1"><inertial>{inertial}</inertial></link>'
        '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')
GOOD_INERTIA = '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'


@pytest.mark.parametrize('inertial, match', [
    ('<mass value="abc"/>' + GOOD_INERTIA, "link 'l1' mass = 'abc' is not a number"),
    ('<mass value="-1"/>' + GOOD_INERTIA, "link 'l1' mass = -1 kg is negative"),
    ('<mass value="nan"/>' + GOOD_INERTIA, 'not finite'),
    ('<mass value="1"/><inertia ixx="-1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>', 'ixx = -1'),
    ('<mass value="1"/><inertia ixx="x" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>', 'ixx'),
    ('<mass value="1"/><origin xyz="0 0"/>' + GOOD_INERTIA, 'needs 3 numbers'),
])
def test_bad_urdf_numbers_are_errors_naming_the_link(tmp_path, inertial, match):
    path = tmp_path / 'bad.urdf'
    path.write_text(LINK.format(inertial=inertial))
    with pytest.raises(ModelError, match=match):
        RobotModel(path)


def test_a_good_urdf_and_the_bundled_youbot_pass():
    check_urdf_text(LINK.format(inertial='<mass value="1"/>' + GOOD_INERTIA))
    check_urdf_text(Path(default_urdf_path()).read_text())
    with pytest.raises(URDFError, match='not valid XML'):
        check_urdf_text('<robot>')
