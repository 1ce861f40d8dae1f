# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""JointState <-> arrays, by joint name. Shared by the nodes, the bag reader and the CLI.

Joints are matched by name: any order, extra joints (the youBot's gripper fingers) and empty
names (the same fingers before the driver first reads them) ignored. A
missing joint, arrays shorter than the names, NaN/inf, or a missing velocity/effort array is an
error that names it. An array LONGER than the names is the real youBot driver's layout (its
``arm_1/joint_states`` without a gripper names 5 joints and sends 7 efforts, the last two being
the fingers'): its first ``len(name)`` values belong to the names, the rest are ignored, and
``JointIndexer.notices`` says so once per layout. Nothing here knows of rclpy: it takes plain
sequences.
"""
from __future__ import annotations

import math
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
    """Maps a message's name list onto the model's joint order; caches the last name list.

    Args:
        joint_names: the model's joints, in its order.
        notice: called once per new layout with a one-line text when a message carries more
            values than names in an array (the extra trailing values are ignored); the same
            texts are kept in ``notices``.
    """

    def __init__(self, joint_names, notice=None):
        self.joint_names = tuple(joint_names)
        self._last_names = None
        self._index = None
        self.notice = notice
        self.notices = []
        self._noticed = set()

    def index(self, names):
        names = tuple(names)
        if names != self._last_names:
            # an empty name is no joint: the youBot driver sends its fingers as '' until it
            # first reads them
            pos = {n: i for i, n in enumerate(names) if n}
            if len(pos) != len(names) - names.count(''):
                dup = sorted({n for n in names if n and names.count(n) > 1})
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
        """Return the sample in model joint order; raise ``JointStateError`` if unusable.

        The common case (three arrays of one length, at least the names', all finite) takes a
        handful of numpy calls (its rows are views of one (3, n) array); anything else goes the
        way that checks each array and names what is wrong.
        """
        idx = self.index(names)
        n_msg = len(names)
        try:
            a = np.array((position, velocity, effort), dtype=float)
        except (ValueError, TypeError):          # arrays of different lengths, or None
            a = None
        if a is not None and a.ndim == 2 and a.shape[1] >= n_msg:
            vals = a[:, idx]
            # a sum is finite only when every value is (an overflow checks the slow way)
            if math.isfinite(sum(vals.ravel().tolist())):
                if a.shape[1] > n_msg:
                    for field in ('position', 'velocity', 'effort'):
                        self._note_extra(field, a.shape[1], n_msg)
                return JointSample(vals[0], vals[1], vals[2])
        return self._convert_checked(names, idx, position, velocity, effort, require_velocity,
                                     require_effort)

    def _convert_checked(self, names, idx, position, velocity, effort, require_velocity,
                         require_effort) -> JointSample:
        """``convert`` array by array, naming the first problem."""
        n_msg = len(names)
        if _empty(position) and _empty(velocity):
            raise JointStateError('joint state has neither position nor velocity (the driver '
                                  'must publish joint positions)', 'no_position')
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
            if arr.ndim != 1 or arr.size < n_msg:
                raise JointStateError(
                    f'joint state {field} has {arr.size} values for {n_msg} names', 'shape')
            if arr.size > n_msg:
                self._note_extra(field, arr.size, n_msg)
            vals = arr[idx]
            bad = ~np.isfinite(vals)
            if bad.any():
                which = ', '.join(self.joint_names[i] for i in np.flatnonzero(bad))
                raise JointStateError(f'joint state {field} is NaN or inf for {which}',
                                      'nonfinite')
            out.append(vals)
        return JointSample(*out)

    def _note_extra(self, field, size, n_msg):
        key = (field, size, n_msg)
        if key in self._noticed:
            return
        self._noticed.add(key)
        text = (f'joint state {field} has {size} values for {n_msg} names: the first {n_msg} '
                f'are taken as the named joints and the last {size - n_msg} ignored (the youBot '
                'driver appends its gripper fingers this way)')
        self.notices.append(text)
        if self.notice is not None:
            self.notice(text)


def _empty(arr):
    """Return True when a message array is absent or has no value."""
    return arr is None or len(arr) == 0


def to_message_arrays(joint_names, q, qd=None, effort=None, extra_names=(), extra_values=0.0):
    """(names, position, velocity, effort) lists for a JointState, model joints then extras."""
    names = list(joint_names) + list(extra_names)
    pad = [float(extra_values)] * len(extra_names)

    def lst(a):
        return [] if a is None else [float(x) for x in a] + pad

    return names, lst(q), lst(qd), lst(effort)
