# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""CDR bytes of many messages at once, laid out with numpy (the bag writer's fast path).

Every record of one call has the same size (same frame id, same names and array lengths), so the
records are one (N, size) byte array filled column by column; ``io.bags.BagWriter`` checks the
first record against the rosbags serialiser of the same message.
"""
from __future__ import annotations

import numpy as np


def wrench_stamped_records(stamps, frame_id, W):
    """Return CDR bytes of N ``WrenchStamped`` messages: stamps (N,) ns, W (N, 6) '<f8'."""
    fb = frame_id.encode()
    off = _align(16 + len(fb) + 1, 8)
    size = off + 48
    rec = np.zeros((len(stamps), size), dtype=np.uint8)
    rec[:, 1] = 1                                     # CDR little-endian encapsulation
    _put_stamps(rec, stamps)
    rec[:, 12:16] = np.frombuffer(np.uint32(len(fb) + 1).astype('<u4').tobytes(), np.uint8)
    rec[:, 16:16 + len(fb)] = np.frombuffer(fb, np.uint8)
    rec[:, off:off + 48] = np.ascontiguousarray(W).view(np.uint8).reshape(len(stamps), 48)
    return _rows(rec)


def joint_state_records(stamps, names, arrays):
    """Return CDR bytes of N ``JointState`` messages with the same names.

    stamps (N,) ns; arrays: position, velocity, effort, (N, n) '<f8' each.
    """
    N = len(stamps)
    head = bytearray(b'\x00\x01\x00\x00' + bytes(8) + (1).to_bytes(4, 'little') + b'\x00')
    head += bytes(_align(len(head), 4) - len(head))
    head += len(names).to_bytes(4, 'little')
    for nm in names:
        b = nm.encode()
        head += bytes(_align(len(head), 4) - len(head))
        head += (len(b) + 1).to_bytes(4, 'little') + b + b'\x00'
    parts, offsets = head, []
    for a in arrays:
        parts += bytes(_align(len(parts), 4) - len(parts))
        parts += a.shape[1].to_bytes(4, 'little')
        if a.shape[1]:
            parts += bytes(_align(len(parts), 8) - len(parts))
        offsets.append(len(parts))
        parts += bytes(8 * a.shape[1])
    rec = np.tile(np.frombuffer(bytes(parts), np.uint8), (N, 1))
    _put_stamps(rec, stamps)
    for o, a in zip(offsets, arrays):
        rec[:, o:o + 8 * a.shape[1]] = np.ascontiguousarray(a).view(np.uint8).reshape(N, -1)
    return _rows(rec)


def _align(pos, a):
    """Position ``pos`` in a CDR buffer (4-byte encapsulation header included) aligned to ``a``."""
    rel = pos - 4
    return 4 + (rel + a - 1) // a * a


def _put_stamps(rec, stamps):
    sec = (stamps // 1_000_000_000).astype('<i4')
    nsec = (stamps % 1_000_000_000).astype('<u4')
    rec[:, 4:8] = sec.view(np.uint8).reshape(-1, 4)
    rec[:, 8:12] = nsec.view(np.uint8).reshape(-1, 4)


def _rows(rec):
    """Return the rows of a (N, size) uint8 array as N bytes objects (one copy of the buffer)."""
    buf = rec.tobytes()
    size = rec.shape[1]
    return [buf[k:k + size] for k in range(0, len(buf), size)]
