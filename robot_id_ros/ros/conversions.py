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


class _CdrLayout:
    """A struct format for plain little-endian CDR (XCDR1, as ``joint_state_fields`` reads).

    Positions are counted from the payload start (after the 4-byte encapsulation), where CDR
    aligns every primitive to its size. Constant parts (strings, counts) are packed as one
    ``s`` field each, the numbers as ``i``/``I``/``d`` fields.
    """

    def __init__(self):
        self.fmt, self.const, self.pos = ['<4s'], [CDR_LE + b'\x00\x00'], 0
        self._pending = b''

    def _align(self, size):
        pad = (-self.pos) % size
        self._pending += b'\x00' * pad
        self.pos += pad

    def constant(self, size, data: bytes):
        """Append constant bytes that start aligned to ``size``."""
        self._align(size)
        self._pending += data
        self.pos += len(data)

    def string(self, text: str):
        data = text.encode() + b'\x00'
        self.constant(4, struct.pack('<I', len(data)) + data)

    def numbers(self, code: str, count: int, size: int):
        """Append ``count`` numbers of struct code ``code`` (``size`` bytes each), aligned."""
        self._align(size)
        self._flush()
        self.fmt.append(f'{count}{code}')
        self.pos += count * size

    def _flush(self):
        if self._pending:
            self.fmt.append(f'{len(self._pending)}s')
            self.const.append(self._pending)
            self._pending = b''

    def done(self) -> struct.Struct:
        self._flush()
        return struct.Struct(''.join(self.fmt))


def _checked(pack, msg_type, example, fields) -> bool:
    """Return True when ``pack`` serializes ``example`` as rclpy deserialises it back."""
    from rclpy.serialization import deserialize_message, serialize_message
    try:
        return deserialize_message(pack(*fields), msg_type) == deserialize_message(
            serialize_message(example), msg_type)
    except Exception:  # noqa: BLE001 - any failure: publish message objects instead
        return False


def wrench_stamped_writer(frame_id: str):
    """Return ``pack(sec, nanosec, values)``: a serialized ``geometry_msgs/WrenchStamped``.

    ``values`` are six floats (force x y z [N], torque x y z [Nm]) and the frame is fixed;
    ``Publisher.publish`` sends the bytes as they are (``publish_raw``), which saves building and
    converting a message object per sample. The writer is checked once against rclpy's own
    serialisation (round trip through ``deserialize_message``); None when they differ (then
    publish message objects).
    """
    lay = _CdrLayout()
    lay.numbers('i', 1, 4)
    lay.numbers('I', 1, 4)
    lay.string(frame_id)
    lay.numbers('d', 6, 8)
    st = lay.done()
    head, mid = lay.const
    _pack = st.pack

    def pack(sec, nanosec, values):
        return _pack(head, sec, nanosec, mid, *values)

    example = wrench_msg([1.5, -2.25, 3.0, 0.125, -0.5, 7.0], frame_id,
                         TimeMsg(sec=1_700_000_001, nanosec=123_456_789))
    ok = _checked(pack, WrenchStamped, example,
                  (1_700_000_001, 123_456_789, [1.5, -2.25, 3.0, 0.125, -0.5, 7.0]))
    return pack if ok else None


def joint_state_writer(names, frame_id: str = ''):
    """Return ``pack(sec, nanosec, position, effort)``: a serialized ``sensor_msgs/JointState``.

    The joint ``names`` and ``frame_id`` are fixed, position and effort hold one float per name
    and velocity is empty (the estimator's ``~/external_joint_torques``). Checked once against
    rclpy's serialisation like ``wrench_stamped_writer``; None when they differ.
    """
    from sensor_msgs.msg import JointState
    names = [str(n) for n in names]
    n = len(names)
    lay = _CdrLayout()
    lay.numbers('i', 1, 4)
    lay.numbers('I', 1, 4)
    lay.string(frame_id)
    lay.constant(4, struct.pack('<I', n))
    for name in names:
        lay.string(name)
    lay.constant(4, struct.pack('<I', n))              # position
    lay.numbers('d', n, 8)
    lay.constant(4, struct.pack('<I', 0))              # velocity: empty
    lay.constant(4, struct.pack('<I', n))              # effort
    lay.numbers('d', n, 8)
    st = lay.done()
    head, mid, mid2 = lay.const
    _pack = st.pack

    def pack(sec, nanosec, position, effort):
        return _pack(head, sec, nanosec, mid, *position, mid2, *effort)

    pos, eff = [0.1 * (i + 1) for i in range(n)], [-0.7 * (i + 1) for i in range(n)]
    example = JointState(name=names, position=pos, effort=eff)
    example.header.stamp, example.header.frame_id = TimeMsg(sec=5, nanosec=6), frame_id
    ok = _checked(pack, JointState, example, (5, 6, pos, eff))
    return pack if ok else None
