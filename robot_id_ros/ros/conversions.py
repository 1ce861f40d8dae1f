# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Message <-> number conversions used by every node.

One place for stamps, durations, wrenches and trajectories (times in integer nanoseconds, arrays
in the model's joint order).
"""
from __future__ import annotations

import struct

import numpy as np
from builtin_interfaces.msg import Duration as DurationMsg
from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import WrenchStamped
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

NS_PER_S = 1_000_000_000
CDR_LE = b'\x00\x01'       # encapsulation of plain little-endian CDR (XCDR1), as ROS 2 sends
_STAMP_AND_LEN = struct.Struct('<iII')
_U32 = struct.Struct('<I').unpack_from


def stamp_ns(stamp) -> int:
    """Return a ``builtin_interfaces/Time`` (or Duration) as integer nanoseconds."""
    return stamp.sec * NS_PER_S + stamp.nanosec


def time_msg(ns: int) -> TimeMsg:
    """Integer nanoseconds (>= 0) as ``builtin_interfaces/Time``."""
    ns = int(ns)
    return TimeMsg(sec=ns // NS_PER_S, nanosec=ns % NS_PER_S)


def duration_msg(ns: int) -> DurationMsg:
    """Integer nanoseconds as ``builtin_interfaces/Duration`` (nanosec always in [0, 1e9))."""
    ns = int(ns)
    return DurationMsg(sec=ns // NS_PER_S, nanosec=ns % NS_PER_S)


def seconds_ns(t_s: float) -> int:
    """Seconds as integer nanoseconds, rounded to the nearest."""
    return int(round(t_s * NS_PER_S))


def fill_wrench(wrench, values) -> None:
    """Set a ``geometry_msgs/Wrench`` from six numbers: force x y z [N], torque x y z [Nm]."""
    f, t = wrench.force, wrench.torque
    f.x, f.y, f.z, t.x, t.y, t.z = (values.tolist() if hasattr(values, 'tolist')
                                    else (float(v) for v in values))


def wrench_msg(values, frame_id: str, stamp) -> WrenchStamped:
    """Return a ``WrenchStamped`` from six numbers, a frame and a Time message.

    The six numbers: force [N], torque [Nm].
    """
    msg = WrenchStamped()
    msg.header.stamp = stamp
    msg.header.frame_id = frame_id
    fill_wrench(msg.wrench, values)
    return msg


def wrench_values(wrench) -> list:
    """Return a ``geometry_msgs/Wrench`` as six floats: force x y z, torque x y z."""
    f, t = wrench.force, wrench.torque
    return [f.x, f.y, f.z, t.x, t.y, t.z]


def trajectory_msg(joint_names, times_s, positions, velocities=None,
                   start_ns: int = 0) -> JointTrajectory:
    """Build a ``JointTrajectory`` message.

    Points at ``times_s`` (seconds from the start, > 0) with positions [rad] and optional
    velocities [rad/s]; ``start_ns`` > 0 stamps the header (the start time), 0 leaves it zero
    (start on receipt).
    """
    msg = JointTrajectory()
    if start_ns:
        msg.header.stamp = time_msg(start_ns)
    msg.joint_names = list(joint_names)
    for i, t in enumerate(times_s):
        pt = JointTrajectoryPoint()
        pt.positions = [float(x) for x in positions[i]]
        if velocities is not None:
            pt.velocities = [float(x) for x in velocities[i]]
        pt.time_from_start = duration_msg(seconds_ns(t))
        msg.points.append(pt)
    return msg


def joint_state_fields(buf, names_cache: dict):
    """Read a serialized ``sensor_msgs/JointState`` without building the message object.

    Handles plain little-endian CDR (what rmw_fastrtps and rmw_cyclonedds send) with position,
    velocity and effort all non-empty; anything else returns None (deserialise it instead).

    Args:
        buf: the serialized message (bytes, with its 4-byte encapsulation header).
        names_cache: a dict the caller keeps between calls: the last name list read (a
            driver's name list does not change, so it is decoded again only when its bytes do).

    Returns:
        ``(stamp_sec, stamp_nanosec, names, position, velocity, effort)``, the arrays read-only
        float64 views of ``buf``; or None.
    """
    if buf[:2] != CDR_LE:
        return None
    sec, nanosec, n = _STAMP_AND_LEN.unpack_from(buf, 4)
    pos = (12 + n + 3) & ~3                  # offsets from the payload start (byte 4)
    count, = _U32(buf, 4 + pos)
    start = pos = pos + 4
    for _ in range(count):
        pos = (pos + 3) & ~3
        n, = _U32(buf, 4 + pos)
        pos += 4 + n
    key = buf[4 + start:4 + pos]           # with the padding bytes, which a writer may not clear
    if names_cache.get('key') != key:
        names_cache['key'], names_cache['names'] = key, _cdr_strings(buf, start, count)
    names = names_cache['names']
    arrays = []
    for _ in range(3):
        pos = (pos + 3) & ~3
        n, = _U32(buf, 4 + pos)
        pos = (pos + 4 + 7) & ~7
        if n == 0 or 4 + pos + 8 * n > len(buf):
            return None
        arrays.append(np.frombuffer(buf, '<f8', n, 4 + pos))
        pos += 8 * n
    return (sec, nanosec, names, *arrays)


def _cdr_strings(buf, start, count) -> tuple:
    """Decode ``count`` CDR strings from payload offset ``start`` of ``buf``."""
    out, pos = [], start
    for _ in range(count):
        pos = (pos + 3) & ~3
        n, = _U32(buf, 4 + pos)
        out.append(buf[4 + pos + 4:4 + pos + 3 + n].decode())
        pos += 4 + n
    return tuple(out)
