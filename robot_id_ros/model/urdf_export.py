# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A copy of a robot's URDF carrying identified inertias (ROS-free)."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin

from robot_id_ros.errors import InputError
from robot_id_ros.model.pseudo_inertia import is_physically_consistent
from robot_id_ros.model.robot import RobotModel

# eigenvalue of a pseudo-inertia below which a body counts as physically invalid (round-off)
CONSISTENCY_TOLERANCE = 1e-12


class InconsistentInertiaError(InputError):
    """A parameter set that is not physically realisable, refused for export."""

    kind = 'inconsistent_inertia'


def export_urdf(robot: RobotModel, theta, path, require_consistent=True) -> Path:
    """Write a copy of ``robot``'s URDF whose links carry the identified inertias.

    Each selected joint's child link gets the whole identified body (which, in the model, also
    holds every link rigidly attached to it and every locked joint's links, e.g. gripper fingers);
    those attached links get zero mass so nothing is counted twice.

    Args:
        robot: the model whose URDF (``robot.urdf_path``) is copied.
        theta: standard parameter vector, 10 per joint first (kg, kg m, kg m^2 about the joint
            frame origin).
        path: where to write the URDF.
        require_consistent: refuse a physically inconsistent set (``InconsistentInertiaError``).

    Returns:
        ``path`` as a Path.
    """
    theta = np.asarray(theta, float)
    n = robot.n
    ok, mins = is_physically_consistent(theta, n, tol=CONSISTENCY_TOLERANCE)
    if require_consistent and not ok:
        bad = [robot.joint_names[i] for i in np.flatnonzero(mins < -CONSISTENCY_TOLERANCE)]
        raise InconsistentInertiaError(
            f'not exporting a URDF: the inertias of the bodies of {", ".join(bad)} are not '
            'physically valid; identify with physical consistency')
    tree = ET.parse(str(robot.urdf_path))
    root = tree.getroot()
    links = {link.get('name'): link for link in root.findall('link')}
    joints = {j.get('name'): j for j in root.findall('joint')}
    m = robot.model
    child_of = {name: joints[name].find('child').get('link') for name in robot.joint_names}
    # every link frame on body i (merged links)
    body_links = {i: [] for i in range(1, m.njoints)}
    for f in m.frames:
        if f.type == pin.FrameType.BODY and f.parentJoint > 0:
            body_links[f.parentJoint].append(f.name)
    for i, jn in enumerate(robot.joint_names, start=1):
        main = child_of[jn]
        inertia = pin.Inertia.FromDynamicParameters(theta[10 * (i - 1):10 * i])
        # the body frame of joint i is the child link frame of the URDF joint
        _set_inertial(links[main], inertia.mass, np.array(inertia.lever),
                      np.array(inertia.inertia))
        for name in body_links[i]:
            if name != main and name in links and links[name].find('inertial') is not None:
                _set_inertial(links[name], 0.0, np.zeros(3), np.zeros((3, 3)))
    ET.indent(tree)
    Path(path).write_text(ET.tostring(root, encoding='unicode'))
    return Path(path)


def _set_inertial(link, mass, com, I_c):
    """Replace a URDF link's inertial: mass (kg), centre of mass (m), inertia about it (kg m^2)."""
    inertial = link.find('inertial')
    if inertial is None:
        inertial = ET.SubElement(link, 'inertial')
    for tag in ('origin', 'mass', 'inertia'):
        for e in inertial.findall(tag):
            inertial.remove(e)
    ET.SubElement(inertial, 'origin', xyz=' '.join(f'{x:.10g}' for x in com), rpy='0 0 0')
    ET.SubElement(inertial, 'mass', value=f'{mass:.10g}')
    ET.SubElement(inertial, 'inertia', ixx=f'{I_c[0, 0]:.10g}', ixy=f'{I_c[0, 1]:.10g}',
                  ixz=f'{I_c[0, 2]:.10g}', iyy=f'{I_c[1, 1]:.10g}', iyz=f'{I_c[1, 2]:.10g}',
                  izz=f'{I_c[2, 2]:.10g}')
