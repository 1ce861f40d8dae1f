# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The segment sidecar a recorder writes beside its bag (``<bag>.segments.yaml``).

Schema (version 1)::

    schema_version: 1
    kind: static | trajectory | friction_sweep | passive
    bag: run1                      # the bag's file or folder name
    joint_names: [...]
    effort_unit: torque | current  # Nm or motor current (A); formerly torque_nm | current_a
    complete: false                # true once the session ended normally
    info: {...}                    # free-form: recorder parameters, condition numbers, rates
    segments:
      - type: static_hold          # one pose, settled and averaged
        t_start_ns: ..., t_end_ns: ...   # header stamps (bag time) bounding the window
        pose_index: 3
        approach: 1 | -1           # direction the pose was approached from
        q_mean_rad: [...]
        effort_mean: [...]         # low-pass filtered then averaged, in effort_unit
        effort_std: [...]
        samples: 200
      - type: excitation_period
        t_start_ns, t_end_ns, period_index
      - type: constant_velocity
        t_start_ns, t_end_ns, joint: arm_joint_2, velocity_rad_s: 0.3, direction: 1 | -1,
        speed_index: 0

The file is rewritten atomically after every completed segment, so it is always valid.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from robot_id_ros.errors import InputError
from robot_id_ros.io.files import atomic_write_text
from robot_id_ros.io.yaml_input import read_yaml

SIDECAR_VERSION = 1
SEGMENT_TYPES = ('static_hold', 'excitation_period', 'constant_velocity')
# effort_unit as the recorders wrote it before the nodes shared the spelling 'torque' / 'current'
FORMER_EFFORT_UNITS = {'torque_nm': 'torque', 'current_a': 'current'}


SIDECAR_SUFFIX = '.segments.yaml'
BAG_FILE_SUFFIXES = ('.mcap', '.db3')   # a single-file bag; its sidecar drops the suffix


class SidecarError(InputError):
    """A sidecar that cannot be read or does not follow the schema; the message names the file."""


def sidecar_path(bag_path):
    """Return the segment sidecar of a bag: ``<bag without suffix>.segments.yaml`` beside it.

    Args:
        bag_path: a bag directory, or a single ``.mcap`` / ``.db3`` file.

    Returns:
        The sidecar's path (whether or not it exists).
    """
    p = Path(bag_path)
    base = p.with_suffix('') if p.suffix in BAG_FILE_SUFFIXES else p
    return base.parent / (base.name + SIDECAR_SUFFIX)


def write_sidecar(path, data):
    """Write a sidecar atomically (``schema_version`` added when absent).

    Args:
        path: the sidecar file (see ``sidecar_path``).
        data: the sidecar dict (schema in the module docstring).
    """
    path = Path(path)
    data = dict(data)
    data.setdefault('schema_version', SIDECAR_VERSION)
    atomic_write_text(path, yaml.safe_dump(data, sort_keys=False, width=120))


def read_sidecar(path):
    """Read a sidecar dict, checked against the schema; old ``effort_unit`` spellings as today's.

    Args:
        path: the sidecar file.

    Returns:
        The sidecar dict (``segments`` always present).

    Raises:
        SidecarError: unreadable file, other schema version, unknown segment type or bad window.
    """
    path = Path(path)
    d = read_yaml(path, 'sidecar', SidecarError)
    if not isinstance(d, dict) or d.get('schema_version') != SIDECAR_VERSION:
        raise SidecarError(f'{path} is not a version {SIDECAR_VERSION} segment sidecar')
    for i, s in enumerate(d.get('segments') or []):
        if s.get('type') not in SEGMENT_TYPES:
            raise SidecarError(f'{path}: segment {i} has unknown type {s.get("type")!r}')
        if not s.get('t_start_ns', 0) <= s.get('t_end_ns', -1):
            raise SidecarError(f'{path}: segment {i} has no valid time window')
    d.setdefault('segments', [])
    if d.get('effort_unit') in FORMER_EFFORT_UNITS:  # an older recording: today's spelling
        d['effort_unit'] = FORMER_EFFORT_UNITS[d['effort_unit']]
    return d


def find_sidecar(bag_path):
    """Return the sidecar dict of a bag, or None when the bag has none.

    Args:
        bag_path: a bag directory or file.

    Returns:
        ``read_sidecar(sidecar_path(bag_path))``, or None when that file does not exist.
    """
    p = sidecar_path(bag_path)
    return read_sidecar(p) if p.is_file() else None
