# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The last limit on every new reference of the force controller (``limit_reference``).

Whatever path made it (running, a stop, the relaxing hold, a joint that gave way), a new
reference moves each joint at most ``max_joint_speed_rad_s`` x the step from the previous one,
or lies within reach of where the arm was measured (accepted joint states: moving the set
point onto the arm moves the arm nowhere). Its tool stays in the workspace box, or no farther
outside it than the previous reference's. A reference that is not finite is refused: the
previous one is kept.
"""
from __future__ import annotations

import numpy as np

BOX_TOLERANCE_M = 1e-5       # how much farther outside the box a new reference may be (rounding)
BISECTIONS = 20              # steps of the search for the part of a move that stays in the box


def box_excess_m(p_m, lower_m, upper_m) -> np.ndarray:
    """Return how far (3,) the point ``p_m`` lies outside the box per axis (0 inside), m."""
    p = np.asarray(p_m, dtype=float)
    return np.maximum(np.maximum(np.asarray(lower_m) - p, p - np.asarray(upper_m)), 0.0)


def limit_reference(q_prev, q_new, dt_s: float, speed_rad_s: float, tool_position, box,
                    q_arm=None, arm_age_s: float = 0.0) -> np.ndarray:
    """Return ``q_new`` within the joint speed limit (or the arm's reach) and the box.

    Args:
        q_prev: (n,) the previous reference, rad.
        q_new: (n,) the new one, rad.
        dt_s: the step, s.
        speed_rad_s: the largest commanded joint speed, rad/s.
        tool_position: callable q -> (3,) tool position, base frame, m.
        box: (lower (3,), upper (3,)) of the workspace box, m.
        q_arm: (n,) the newest accepted measured joints, rad (None: not trusted now).
        arm_age_s: their age, s: the arm may have moved on by the speed limit times it.

    Returns:
        (n,) the reference to use.
    """
    prev = np.asarray(q_prev, dtype=float)
    new = np.asarray(q_new, dtype=float)
    if not np.all(np.isfinite(new)):
        return prev.copy()
    step = speed_rad_s * max(dt_s, 0.0) + 1e-12
    lo, hi = prev - step, prev + step
    if q_arm is not None:
        reach = speed_rad_s * (max(dt_s, 0.0) + max(arm_age_s, 0.0)) + 1e-12
        arm = np.asarray(q_arm, dtype=float)
        lo, hi = np.minimum(lo, arm - reach), np.maximum(hi, arm + reach)
    out = np.clip(new, lo, hi)
    lower, upper = box
    allowed = box_excess_m(tool_position(prev), lower, upper) + BOX_TOLERANCE_M
    if np.all(box_excess_m(tool_position(out), lower, upper) <= allowed):
        return out
    inside, outside = 0.0, 1.0               # the largest part of the move that keeps the box
    for _ in range(BISECTIONS):
        mid = 0.5 * (inside + outside)
        if np.all(box_excess_m(tool_position(prev + mid * (out - prev)), lower,
                               upper) <= allowed):
            inside = mid
        else:
            outside = mid
    return prev + inside * (out - prev)
