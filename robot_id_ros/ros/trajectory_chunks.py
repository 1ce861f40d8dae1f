# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A planned motion as JointTrajectory messages: one stamped message, or chunks on receipt.

``points_msg`` samples a motion (``record.sample_for_command``) into one message;
``stream_chunks`` sends it as the chunks of 'trajectory_stream': ``chunk_s`` each, sent ``lead_s``
before they begin and stamped 0 (start on receipt), for controllers that take no future start
times. Both serve ``ArmCommander``.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.ros.conversions import trajectory_msg


def points_msg(commander, motion, t0_s, t1_s, stamp: int, shift_s: float = 0.0):
    """Build ``motion`` on [t0_s, t1_s] (motion time, s) as one JointTrajectory.

    The message is stamped ``stamp`` (ns, 0: on receipt); the point of motion time ``t`` comes
    ``t + shift_s`` after it. None when no point is left.
    """
    s = commander.settings
    rel, q, qd = rec.sample_for_command(motion, t0_s, t1_s, s.point_period_s)
    t = rel + (t0_s + shift_s)
    keep = t >= 0 if s.send_start_point else t > 0
    if not np.any(keep):
        return None
    return trajectory_msg(commander.joint_names, t[keep], q[keep], qd[keep], start_ns=stamp)


def stream_chunks(commander, motion, start_ns: int) -> None:
    """Send ``motion`` (starting at ``start_ns``, ns) in chunks relative to receipt.

    Blocks until the last chunk is sent; the commander's waits raise on a cancel or failure.
    """
    s = commander.settings
    k = 0
    while k * s.chunk_s < motion.duration_s:
        t0 = k * s.chunk_s
        commander.wait_until_time(start_ns + int((t0 - s.lead_s) * 1e9))
        now = commander.time_ref_ns()
        # points relative to now (receipt): they cover [t0, t0 + chunk + lead] of the motion, the
        # point of motion time t comes t - (now - start) after receipt
        t_first = max(0.0, (now - start_ns) * 1e-9)
        t_last = min(motion.duration_s, t0 + s.chunk_s + s.lead_s)
        msg = points_msg(commander, motion, t_first, t_last, 0, (start_ns - now) * 1e-9)
        if msg is not None:
            commander.publisher.publish(msg)
        k += 1


__all__ = ['points_msg', 'stream_chunks']
