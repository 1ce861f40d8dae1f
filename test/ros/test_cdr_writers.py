# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The estimator's serialized outputs are rclpy's own serialisation of the same message.

``wrench_stamped_writer`` and ``joint_state_writer`` pack the bytes the node publishes (raw) for
``~/wrench``, ``~/wrench_std`` and ``~/external_joint_torques``: for frame ids and joint names
of every length (every alignment of the doubles occurs), non-ASCII names and random values, the
bytes must equal ``serialize_message`` of the message built field by field outside the
alignment padding (which rclpy's serializer does not clear; the writers zero it), up to the
alignment bytes it reserves after the end (for an empty array of doubles: 8 uninitialised bytes,
ignored by every reader), and deserialise to that message.
"""
import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import WrenchStamped
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import JointState

from robot_id_ros.ros.conversions import (joint_state_writer, wrench_msg,
                                          wrench_stamped_writer)


def same_but_padding(buf, ref):
    """Assert ``buf`` equals ``ref`` wherever ``buf`` is not a zero (padding) byte; ``ref`` may
    have up to 8 bytes more at the end."""
    assert len(buf) <= len(ref) <= len(buf) + 8
    differ = [i for i, (a, b) in enumerate(zip(buf, ref)) if a != b]
    assert all(buf[i] == 0 for i in differ), differ


def test_wrench_stamped_bytes_equal_rclpy_serialisation():
    rng = np.random.default_rng(3)
    for frame_len in range(10):
        frame = ''.join('fé'[i % 2] for i in range(frame_len))
        pack = wrench_stamped_writer(frame)
        assert pack is not None
        for _ in range(5):
            sec, nanosec = int(rng.integers(1, 2 ** 31)), int(rng.integers(0, 10 ** 9))
            values = (rng.normal(size=6) * 10.0 ** rng.integers(-12, 12, size=6)).tolist()
            ref = wrench_msg(values, frame, Time(sec=sec, nanosec=nanosec))
            buf = pack(sec, nanosec, values)
            same_but_padding(buf, serialize_message(ref))
            assert deserialize_message(buf, WrenchStamped) == ref


def test_joint_state_bytes_equal_rclpy_serialisation():
    rng = np.random.default_rng(4)
    for n_joints in (1, 2, 5, 6, 7):
        for name_len in range(5):
            for frame in ('', 'b', 'base_link'):
                names = [('j' * name_len + f'_{i}' + ('ü' if i % 2 else ''))
                         for i in range(n_joints)]
                pack = joint_state_writer(names, frame)
                assert pack is not None
                sec, nanosec = int(rng.integers(1, 2 ** 31)), int(rng.integers(0, 10 ** 9))
                pos, eff = rng.normal(size=n_joints).tolist(), rng.normal(size=n_joints).tolist()
                ref = JointState(name=names, position=pos, effort=eff)
                ref.header.stamp, ref.header.frame_id = Time(sec=sec, nanosec=nanosec), frame
                buf = pack(sec, nanosec, pos, eff)
                same_but_padding(buf, serialize_message(ref))
                got = deserialize_message(buf, JointState)
                assert got == ref and list(got.velocity) == []
