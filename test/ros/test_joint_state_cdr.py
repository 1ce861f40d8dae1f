# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``joint_state_fields`` reads a serialized JointState exactly as rclpy deserialises it.

Messages serialized by rclpy (the rmw's own CDR) with frame ids and joint names of every length
(so every alignment of the arrays occurs), non-ASCII names and random values: the stamp, names
and the three arrays read must equal the deserialised message's, bit for bit; a message with an
empty array is left to rclpy (None).
"""
import numpy as np
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import JointState

from robot_id_ros.ros.conversions import joint_state_fields


def message(rng, n_joints, frame_len, name_len):
    msg = JointState()
    msg.header.stamp.sec = int(rng.integers(0, 2 ** 31))
    msg.header.stamp.nanosec = int(rng.integers(0, 10 ** 9))
    msg.header.frame_id = 'f' * frame_len
    msg.name = [('j' * name_len + f'_{i}' + ('é' if i % 3 == 0 else '')) for i in range(n_joints)]
    msg.position, msg.velocity, msg.effort = (rng.normal(size=n_joints).tolist()
                                              for _ in range(3))
    return msg


def test_fields_equal_rclpy_deserialisation():
    rng = np.random.default_rng(5)
    cache = {}
    n = 0
    for n_joints in (1, 2, 5, 7):
        for frame_len in range(8):
            for name_len in range(4):
                buf = serialize_message(message(rng, n_joints, frame_len, name_len))
                ref = deserialize_message(buf, JointState)
                got = joint_state_fields(buf, cache)
                assert got is not None
                sec, nanosec, names, pos, vel, eff = got
                assert (sec, nanosec) == (ref.header.stamp.sec, ref.header.stamp.nanosec)
                assert list(names) == list(ref.name)
                for a, b in ((pos, ref.position), (vel, ref.velocity), (eff, ref.effort)):
                    assert a.tolist() == list(b)
                n += 1
    assert n == 128
    assert len(cache) == 2              # the last name list only


def test_empty_array_is_left_to_rclpy():
    msg = JointState(name=['a', 'b'], position=[1.0, 2.0], velocity=[], effort=[3.0, 4.0])
    assert joint_state_fields(serialize_message(msg), {}) is None
