# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A URDF's numbers are checked before Pinocchio reads them (urdfdom would read 'abc' as 0)."""
import logging
from pathlib import Path

import pytest
from robots import example_robot_data_dir

from robot_id_ros.model.robot import ModelError, RobotModel, default_urdf_path
from robot_id_ros.model.urdf_check import URDFError, check_urdf_text

LINK = ('<robot name="r"><link name="base"/><link name="l1"><inertial>{inertial}</inertial></link>'
        '<joint name="j1" type="{type}"><parent link="base"/><child link="l1"/>'
        '<axis xyz="{axis}"/><limit lower="{lower}" upper="1" effort="1" velocity="1"/></joint>'
        '</robot>')
GOOD_INERTIA = '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'


def inertia(ixx=1, iyy=1, izz=1, ixy=0, ixz=0, iyz=0):
    return (f'<mass value="1"/><inertia ixx="{ixx}" ixy="{ixy}" ixz="{ixz}" iyy="{iyy}" '
            f'iyz="{iyz}" izz="{izz}"/>')


def urdf(inertial='<mass value="1"/>' + GOOD_INERTIA, type='revolute', axis='0 0 1', lower='-1'):
    return LINK.format(inertial=inertial, type=type, axis=axis, lower=lower)


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
    path.write_text(urdf(inertial))
    with pytest.raises(ModelError, match=match):
        RobotModel(path)


@pytest.mark.parametrize('kwargs, match', [
    # a negative principal moment (1 - 5 = -4): no mass distribution has it
    (dict(inertial=inertia(ixy=5)), "link 'l1' inertia is not positive semi-definite: principal "
     r'moment -4 kg m\^2'),
    (dict(inertial=inertia(ixx=0, iyy=0, izz=0, ixz=1e-3)), 'not positive semi-definite'),
    (dict(inertial='<mass value="1e300"/>' + GOOD_INERTIA),
     r"link 'l1' mass = 1e\+300 kg is implausible \(above 10000 kg\)"),
    (dict(inertial='<mass value="2e4"/>' + GOOD_INERTIA), 'mass = 20000 kg is implausible'),
    (dict(axis='0 0 0'), "joint 'j1' axis xyz = '0 0 0' has zero length"),
    (dict(axis='0 0 0', type='prismatic'), "joint 'j1' axis xyz = '0 0 0' has zero length"),
    (dict(axis='0 0 0', type='continuous'), "joint 'j1' axis xyz = '0 0 0' has zero length"),
    (dict(axis='0 0'), "joint 'j1' axis xyz = '0 0': needs 3 numbers"),
    (dict(lower='2'), "joint 'j1' limit lower = 2 is above upper = 1"),
])
def test_impossible_inertia_mass_axis_or_limits_are_errors(tmp_path, kwargs, match):
    path = tmp_path / 'bad.urdf'
    path.write_text(urdf(**kwargs))
    with pytest.raises(ModelError, match=match):
        RobotModel(path)


@pytest.mark.parametrize('kwargs', [
    dict(inertial='<mass value="0.5"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/>'),
    dict(inertial=inertia(ixx=1, iyy=1, izz=2)),  # a thin disc: izz = ixx + iyy exactly
    dict(inertial=inertia(ixx=1e-3, iyy=1e-3, izz=1e-3 * (1 - 1e-12))),  # rounding in the file
    dict(inertial=inertia(ixx=1, iyy=1, izz=1, ixy=1 + 1e-12)),  # PSD up to rounding
    dict(inertial=inertia(ixx=0, iyy=0, izz=0, ixz=1e-13)),  # a point mass, rounding noise
    dict(inertial='<mass value="9999"/>' + GOOD_INERTIA),
    dict(axis='0 0 0', type='fixed'),  # the axis of a fixed joint is not used
    dict(lower='1'),  # lower == upper: a joint that cannot move, still a valid URDF
])
def test_near_degenerate_but_valid_values_pass(kwargs):
    check_urdf_text(urdf(**kwargs))


def test_an_inertia_breaking_the_triangle_inequality_is_reported_not_refused(caplog):
    """No body has principal moments 1, 1, 5 (5 > 1 + 1); published URDFs have such links.

    Refusing them would refuse anymal, pr2, romeo, allegro, ... (see urdf_check), so it is a
    warning that names the link and the fix, not an error.
    """
    with caplog.at_level(logging.WARNING, logger='robot_id_ros.model.urdf_check'):
        check_urdf_text(urdf(inertia(izz=5)), 'r.urdf')
    assert ("r.urdf: link 'l1' inertia breaks the triangle inequality: principal moments 1, 1, "
            '5 kg m^2') in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger='robot_id_ros.model.urdf_check'):
        check_urdf_text(urdf(inertia(izz=2)))
    assert caplog.text == ''


def test_a_real_urdf_with_an_indefinite_inertia_loads_with_a_warning(caplog):
    """The real KUKA LWR4+ URDF (../shared/data) has lwr_1_link at -0.0059 kg m^2 (27 % of its
    trace): a warning naming the link, no error (the model is identified from data anyway)."""
    path = Path(__file__).resolve().parents[2].parent / 'shared' / 'data' / \
        'kuka_lwr4_flobaroid' / 'kuka_lwr4_gaz.urdf'
    if not path.is_file():
        pytest.skip(f'{path} not present')
    with caplog.at_level(logging.WARNING, logger='robot_id_ros.model.urdf_check'):
        check_urdf_text(path.read_text(), 'lwr.urdf')
    assert "lwr.urdf: link 'lwr_1_link' inertia is not positive semi-definite" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger='robot_id_ros.model.urdf_check'):
        check_urdf_text(urdf(inertia(ixy=0.5)))     # moments 0.5, 1, 1.5: physical
    assert caplog.text == ''


def test_every_urdf_of_example_robot_data_passes():
    """Real URDFs have near-degenerate inertias (point masses, rounding): none may be refused."""
    paths = sorted(example_robot_data_dir().rglob('*.urdf'))
    assert len(paths) > 20
    for path in paths:
        check_urdf_text(path.read_text(), str(path))


def test_a_good_urdf_and_the_bundled_youbot_pass():
    check_urdf_text(urdf())
    check_urdf_text(Path(default_urdf_path()).read_text())
    with pytest.raises(URDFError, match='not valid XML'):
        check_urdf_text('<robot>')


@pytest.mark.parametrize('old, new, match', [
    ('xyz="0 0 0.155"', 'xyz="0 0 1e200"',
     "joint 'arm_joint_3' origin xyz = '0 0 1e200' is implausible"),
    ('rpy="0 2.548180707911721 0"', 'rpy="0 1e200 0"',
     "joint 'arm_joint_3' origin rpy = '0 1e200 0' is implausible"),
])
def test_a_finite_absurd_origin_is_one_line_from_the_cli(tmp_path, capsys, old, new, match):
    """Beyond any arm (> 100 m, > 100 rad): the commands say so instead of a traceback."""
    from robot_id_ros.cli.main import main
    text = default_urdf_path().read_text()
    assert old in text
    path = tmp_path / 'absurd.urdf'
    path.write_text(text.replace(old, new))
    with pytest.raises(ModelError, match=match):
        RobotModel(path)
    rc = main(['design-excitation', '--urdf', str(path), '--out', str(tmp_path / 't.yaml')])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and match in err[0], err


def test_an_origin_of_an_arm_sized_robot_passes(tmp_path):
    text = default_urdf_path().read_text().replace('xyz="0 0 0.155"', 'xyz="0 0 99.9"')
    path = tmp_path / 'tall.urdf'
    path.write_text(text)
    assert RobotModel(path).n == 5
