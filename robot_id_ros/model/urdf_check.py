# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Checks of a URDF's numbers before Pinocchio reads it.

urdfdom (inside Pinocchio) reports a malformed number on its console and goes on with a zero, so a
URDF with ``mass="abc"`` or a negative mass would silently give a model. Here every such value is
an error that names the link and the attribute. So are values no body or joint can have and no
published URDF has: an absurd mass, a zero joint axis, a joint range whose lower limit is above
its upper one, and an inertia tensor whose negative principal moment exceeds its trace (a slip in
a product of inertia: ixx = iyy = izz = 1 with ixy = 5 gives -4).

An inertia that is not positive semi-definite or whose principal moments break the triangle
inequality (one larger than the sum of the other two) is not realisable either, but published
URDFs have many: the KUKA LWR4+ URDF of the FloBaRoID recordings (lwr_1_link -0.0059 kg m^2,
27 % of its trace; lwr_5_link, lwr_6_link), romeo_laas_small and tiago of example-robot-data;
broken triangle inequalities in anymal, anymal_c, b1, go1, hyq (dummy bases of 1e-6 kg with
moments 0, 0, 3e-6), pr2 (0.001, 0.001, 0.01 on two sensor mounts), romeo, allegro and alex
hands, by 5 % to 100 % of the trace. Identification fits its own inertias, so these are logged
warnings naming the link, not errors.
"""
from __future__ import annotations

import logging
import math
import xml.etree.ElementTree as ET

import numpy as np

from robot_id_ros.errors import InputError

LOG = logging.getLogger(__name__)

INERTIA_KEYS = ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')
# a principal moment more negative than this (kg m^2) is an error, not rounding in the file
NEGATIVE_INERTIA_TOLERANCE_KG_M2 = 1e-12
# The heaviest links of the largest industrial arms weigh about a tonne (a whole KUKA KR 1000
# titan is 4.7 t), so a link above 10 t is a typo or a unit error (g for kg, a lost exponent
# sign); below it any robot this package can identify fits.
MAX_LINK_MASS_KG = 1e4
# rounding allowed (relative to the trace, and absolute) before a negative principal moment or a
# broken triangle inequality is warned about; point masses with zero inertia pass
ROUNDING_RELATIVE_TOLERANCE = 1e-9
ROUNDING_ABSOLUTE_TOLERANCE_KG_M2 = 1e-12
# joints whose <axis> is the direction of motion (a fixed or floating joint's axis is unused)
AXIS_JOINT_TYPES = ('revolute', 'continuous', 'prismatic')
# an axis shorter than this cannot be normalised to a direction
MIN_AXIS_NORM = 1e-9
# No arm has a joint or a centre of mass this far (m) from its parent frame; a larger origin is a
# unit error (mm for m) or a corrupted number, and the kinematics built on it overflow.
MAX_ORIGIN_M = 100.0
# An origin angle (rad) beyond a few turns is no URDF's way of writing a rotation.
MAX_ORIGIN_ANGLE_RAD = 100.0


class URDFError(InputError):
    """A URDF whose text or numbers cannot make a model; the message names the element."""

    kind = 'urdf'


def _number(text, where):
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise URDFError(f'{where} = {text!r} is not a number') from None
    if not math.isfinite(value):
        raise URDFError(f'{where} = {text!r} is not finite')
    return value


def _numbers(text, count, where):
    parts = (text or '').split()
    if len(parts) != count:
        raise URDFError(f'{where} = {text!r}: needs {count} numbers')
    return [_number(p, where) for p in parts]


def check_urdf_text(xml_text: str, source: str = 'URDF') -> None:
    """Raise URDFError for a URDF text that is not a valid model.

    That is: XML that does not parse, a mass that is not a finite number in [0, 1e4] kg, an
    inertia entry that is not finite, a negative moment of inertia or an inertia tensor with a
    negative principal moment beyond its trace, a malformed origin or one beyond
    ``MAX_ORIGIN_M`` / ``MAX_ORIGIN_ANGLE_RAD``, a zero or malformed axis of
    a moving joint, or a joint limit whose lower value is above its upper one. A smaller negative
    principal moment or a broken triangle inequality is logged as a warning (see the module's
    docstring).

    Args:
        xml_text: the URDF's text.
        source: how to name the URDF in the message (its path).
    """
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise URDFError(f'cannot parse URDF {source}: not valid XML: {exc}') from None
    if root.tag != 'robot':
        raise URDFError(f'{source}: the root element is <{root.tag}>, a URDF has <robot>')
    for link in root.iter('link'):
        name = link.get('name', '?')
        for inertial in link.findall('inertial'):
            _check_inertial(inertial, f'{source}: link {name!r}')
    for joint in root.iter('joint'):
        where = f'{source}: joint {joint.get("name", "?")!r}'
        for origin in joint.findall('origin'):
            _check_origin(origin, where)
        if joint.get('type') in AXIS_JOINT_TYPES:
            for axis in joint.findall('axis'):
                _check_axis(axis, where)
        for limit in joint.findall('limit'):
            _check_limit(limit, where)


def _check_axis(axis, where):
    text = axis.get('xyz', '1 0 0')  # the URDF default
    xyz = _numbers(text, 3, f'{where} axis xyz')
    if math.sqrt(sum(c * c for c in xyz)) < MIN_AXIS_NORM:
        raise URDFError(f'{where} axis xyz = {text!r} has zero length: give the direction of '
                        'motion, e.g. xyz="0 0 1"')


def _check_limit(limit, where):
    values = {}
    for key in ('lower', 'upper', 'effort', 'velocity'):
        if limit.get(key) is not None:
            values[key] = _number(limit.get(key), f'{where} limit {key}')
    if 'lower' in values and 'upper' in values and values['lower'] > values['upper']:
        raise URDFError(f'{where} limit lower = {values["lower"]:g} is above upper = '
                        f'{values["upper"]:g}: swap them (or fix the sign)')


def _check_origin(origin, where):
    for key, bound, unit in (('xyz', MAX_ORIGIN_M, 'm'), ('rpy', MAX_ORIGIN_ANGLE_RAD, 'rad')):
        if origin.get(key) is None:
            continue
        values = _numbers(origin.get(key), 3, f'{where} origin {key}')
        if max(abs(v) for v in values) > bound:
            raise URDFError(f'{where} origin {key} = {origin.get(key)!r} is implausible (a '
                            f'component beyond {bound:g} {unit}): give it in {unit}')


def _check_inertial(inertial, where):
    mass = inertial.find('mass')
    if mass is not None:
        m = _number(mass.get('value'), f'{where} mass')
        if m < 0:
            raise URDFError(f'{where} mass = {m:g} kg is negative')
        if m > MAX_LINK_MASS_KG:
            raise URDFError(f'{where} mass = {m:g} kg is implausible (above {MAX_LINK_MASS_KG:g} '
                            'kg): give the mass in kg')
    for origin in inertial.findall('origin'):
        _check_origin(origin, f'{where} inertial')
    inertia = inertial.find('inertia')
    if inertia is None:
        return
    v = {k: _number(inertia.get(k, '0'), f'{where} inertia {k}') for k in INERTIA_KEYS}
    for k in ('ixx', 'iyy', 'izz'):
        if v[k] < -NEGATIVE_INERTIA_TOLERANCE_KG_M2:
            raise URDFError(f'{where} inertia {k} = {v[k]:g} kg m^2 is negative')
    _check_inertia_tensor(v, where)


def _check_inertia_tensor(v, where):
    """Refuse a negative principal moment beyond the trace; warn of smaller faults.

    See the module's docstring.
    """
    tensor = np.array([[v['ixx'], v['ixy'], v['ixz']],
                       [v['ixy'], v['iyy'], v['iyz']],
                       [v['ixz'], v['iyz'], v['izz']]])
    moments = np.linalg.eigvalsh(tensor)  # ascending
    trace = abs(float(np.trace(tensor)))
    rounding = ROUNDING_RELATIVE_TOLERANCE * trace + ROUNDING_ABSOLUTE_TOLERANCE_KG_M2
    if moments[0] < -rounding:
        if moments[0] < -trace:
            raise URDFError(f'{where} inertia is not positive semi-definite: principal moment '
                            f'{moments[0]:.3g} kg m^2, beyond the trace {trace:.3g} (no body '
                            'has a negative one): check the products of inertia ixy, ixz, iyz '
                            'and their signs')
        LOG.warning('%s inertia is not positive semi-definite: principal moment %.3g kg m^2 '
                    '(trace %.3g): the URDF inertia is not physical; identification fits its '
                    'own', where, moments[0], trace)
        return
    excess = moments[2] - moments[0] - moments[1]
    if excess > rounding:
        shown = ', '.join(f'{m:.3g}' for m in moments)
        LOG.warning('%s inertia breaks the triangle inequality: principal moments %s kg m^2 (the '
                    'largest exceeds the sum of the other two, which no body can have): check '
                    'ixx, iyy, izz', where, shown)
