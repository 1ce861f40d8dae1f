# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""JointState <-> arrays, by joint name. Shared by the nodes, the bag reader and the CLI.

Joints are matched by name: any order, extra joints (the youBot's gripper fingers) ignored. A
missing joint, arrays of the wrong length, NaN/inf, or a missing velocity/effort array is an
error that names it. Nothing here knows of rclpy: it takes plain sequences.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from robot_id_ros.errors import InputError


class JointStateError(InputError):
    """A joint state that cannot be used; the message says what is wrong.

    ``kind``: 'duplicate_joint', 'missing_joint', 'no_position', 'no_velocity', 'no_effort',
    'shape' or 'nonfinite'.
    """

    kind = 'joint_state'


@dataclass
class JointSample:
    """One sample in model joint order: q (rad), qd (rad/s), effort (Nm or A); None if absent."""

    q: np.ndarray
    qd: np.ndarray | None
    effort: np.ndarray | None


class JointIndexer:
    """Maps a message's name list onto the model's joint order; caches the last name list."""

    def __init__(self, joint_names):
        self.joint_names = tuple(joint_names)
        self._last_names = None
        self._index = None

    def index(self, names):
        names = tuple(names)
        if names != self._last_names:
            pos = {n: i for i, n in enumerate(names)}
            if len(pos) != len(names):
                dup = sorted({n for n in names if names.count(n) > 1})
                raise JointStateError(f'joint state names a joint twice: {", ".join(dup)}',
                                      'duplicate_joint')
            missing = [n for n in self.joint_names if n not in pos]
            if missing:
                raise JointStateError(f'joint state has no joint(s) {", ".join(missing)} '
                                      f'(it has: {", ".join(names) or "none"})', 'missing_joint')
            self._index = np.array([pos[n] for n in self.joint_names], dtype=int)
            self._last_names = names
        return self._index

    def convert(self, names, position, velocity, effort, require_velocity=True,
                require_effort=True) -> JointSample:
        idx = self.index(names)
        n_msg = len(names)
        out = []
        for field, arr, required in (('position', position, True),
                                     ('velocity', velocity, require_velocity), ('effort', effort,
                                                                                require_effort)):
            arr = np.asarray(arr if arr is not None else (), dtype=float)
            if arr.size == 0:
                if required:
                    raise JointStateError(
                        f'joint state has no {field} (the driver must publish {field}' +
                        (' ; older youBot drivers publish no effort: update the driver'
                         if field == 'effort' else '') + ')', f'no_{field}')
                out.append(None)
                continue
            if arr.shape != (n_msg,):
                raise JointStateError(
                    f'joint state {field} has {arr.size} values for {n_msg} names', 'shape')
            vals = arr[idx]
            bad = ~np.isfinite(vals)
            if bad.any():
                which = ', '.join(self.joint_names[i] for i in np.flatnonzero(bad))
                raise JointStateError(f'joint state {field} is NaN or inf for {which}',
                                      'nonfinite')
            out.append(vals)
        return JointSample(*out)


def to_message_arrays(joint_names, q, qd=None, effort=None, extra_names=(), extra_values=0.0):
    """(names, position, velocity, effort) lists for a JointState, model joints then extras."""
    names = list(joint_names) + list(extra_names)
    pad = [float(extra_values)] * len(extra_names)

    def lst(a):
        return [] if a is None else [float(x) for x in a] + pad

    return names, lst(q), lst(qd), lst(effort)
