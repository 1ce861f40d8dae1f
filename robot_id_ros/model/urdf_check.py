# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Checks of a URDF's numbers before Pinocchio reads it.

urdfdom (inside Pinocchio) reports a malformed number on its console and goes on with a zero, so a
URDF with ``mass="abc"`` or a negative mass would silently give a model. Here every such value is
an error that names the link and the attribute.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from robot_id_ros.errors import InputError

INERTIA_KEYS = ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')
# a principal moment more negative than this (kg m^2) is an error, not rounding in the file
NEGATIVE_INERTIA_TOLERANCE_KG_M2 = 1e-12


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

    That is: XML that does not parse, a mass that is not a finite number >= 0, an inertia entry
    that is not finite, a negative moment of inertia, or a malformed origin.

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
        for limit in joint.findall('limit'):
            for key in ('lower', 'upper', 'effort', 'velocity'):
                if limit.get(key) is not None:
                    _number(limit.get(key), f'{where} limit {key}')


def _check_origin(origin, where):
    for key in ('xyz', 'rpy'):
        if origin.get(key) is not None:
            _numbers(origin.get(key), 3, f'{where} origin {key}')


def _check_inertial(inertial, where):
    mass = inertial.find('mass')
    if mass is not None:
        m = _number(mass.get('value'), f'{where} mass')
        if m < 0:
            raise URDFError(f'{where} mass = {m:g} kg is negative')
    for origin in inertial.findall('origin'):
        _check_origin(origin, f'{where} inertial')
    inertia = inertial.find('inertia')
    if inertia is None:
        return
    v = {k: _number(inertia.get(k, '0'), f'{where} inertia {k}') for k in INERTIA_KEYS}
    for k in ('ixx', 'iyy', 'izz'):
        if v[k] < -NEGATIVE_INERTIA_TOLERANCE_KG_M2:
            raise URDFError(f'{where} inertia {k} = {v[k]:g} kg m^2 is negative')
