# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A smaller position band around a low-gravity pose, for arms whose drives barely hold them.

When no design in the full band stays within the drives' torque fraction, even slowed
(``design_within_torque``), the torque left is mostly gravity along the path: a joint such as the
Talos arm's shoulder needs 97 % of its limit to hold the arm at the middle of the ranges and
123 % at the worst pose of the band. A smaller band around a pose where gravity loads the drives
least keeps the whole path where the drives can hold the arm. The excitation is weaker (a higher
condition number), and the design says so.

The pose: among ``CANDIDATES`` poses drawn uniformly in the band (a fixed seed: the same pose
every time) and moved inside it so that the smaller band fits, with the tool above the floor
(``START_CLEARANCE_FRACTION`` of the tool's height range over them), the one whose largest
|gravity torque| / effort limit over the joints, at the pose and at both ends of the smaller band
along each joint, is smallest.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from robot_id_ros.model.robot import RobotModel
from robot_id_ros.record.excitation_limits import ExcitationLimits, tool_heights
from robot_id_ros.record.excitation_problem import START_CLEARANCE_FRACTION

CANDIDATES = 2000
# widths of the smaller band, fractions of each joint's range (continuous joints: of 2 pi),
# taken in turn below the design's position fraction
BAND_FRACTIONS = (0.6, 0.45, 0.3, 0.2, 0.15)
CONTINUOUS_RANGE_RAD = 2 * np.pi


@dataclasses.dataclass
class LowGravityBand:
    """A smaller band around a low-gravity pose."""

    limits: ExcitationLimits    # the design's limits with the smaller position band
    centre: np.ndarray          # the start pose, rad
    fraction: float             # band width / joint range
    gravity_ratio: float        # largest |g_j| / effort_j at the pose and the band's ends
    joint: int                  # the joint of that ratio


def joint_ranges(limits: ExcitationLimits):
    """Width of each joint's band in ``limits`` (``CONTINUOUS_RANGE_RAD`` when unlimited)."""
    width = limits.q_upper - limits.q_lower
    return np.where(np.isfinite(width), width, CONTINUOUS_RANGE_RAD)


def gravity_ratios(robot: RobotModel, Q):
    """|g(q)| / effort limit per joint, one row per pose of Q."""
    return np.abs(np.array([robot.gravity_torque(q) for q in Q])) / robot.limits.effort_nm


def candidate_poses(robot: RobotModel, limits: ExcitationLimits, count=CANDIDATES):
    """Poses drawn uniformly in the band (seed 0), continuous joints within +-pi of 0."""
    finite = np.isfinite(limits.q_lower + limits.q_upper)
    lo = np.where(finite, limits.q_lower, -np.pi)
    hi = np.where(finite, limits.q_upper, np.pi)
    return np.random.default_rng(0).uniform(lo, hi, (int(count), robot.n))


def least_gravity(robot: RobotModel, limits: ExcitationLimits, count=CANDIDATES):
    """Return the smallest largest-gravity ratio over the band's candidate poses, and its joint.

    Returns:
        (ratio, joint index, pose): at no candidate does gravity alone need less than ``ratio``
        of ``joint``'s limit (or of another joint's).
    """
    Q = candidate_poses(robot, limits, count)
    G = gravity_ratios(robot, Q)
    k = int(np.argmin(G.max(axis=1)))
    return float(G[k].max()), int(np.argmax(G[k])), Q[k]


def low_gravity_band(robot: RobotModel, limits: ExcitationLimits, fraction, centre=None,
                     count=CANDIDATES):
    """Return a band of ``fraction`` of each range around a low-gravity pose (or ``centre``).

    Args:
        robot: the arm.
        limits: the design's limits (their band contains the smaller one).
        fraction: width of the smaller band, fraction of each joint's range.
        centre: its start pose (rad); None: the low-gravity pose (module docstring).
        count: candidate poses.

    Returns:
        LowGravityBand, or None when no candidate keeps the tool above the floor.
    """
    width = joint_ranges(limits)
    half = 0.5 * fraction * width
    finite = np.isfinite(limits.q_lower + limits.q_upper)
    if centre is None:
        Q = candidate_poses(robot, limits, count)
        Q = np.where(finite, np.clip(Q, limits.q_lower + half, limits.q_upper - half), Q)
        if limits.floor_z_m is not None:
            z = tool_heights(robot, Q)
            reach = float(np.ptp(z))
            Q = Q[z >= limits.floor_z_m + START_CLEARANCE_FRACTION * reach]
            if not len(Q):
                return None
    else:
        Q = np.asarray(centre, dtype=float)[None]
    worst = gravity_ratios(robot, Q)
    for j in range(robot.n):                      # the band's ends along each joint
        for s in (-1.0, 1.0):
            E = Q.copy()
            E[:, j] += s * half[j]
            if finite[j]:
                E[:, j] = np.clip(E[:, j], limits.q_lower[j], limits.q_upper[j])
            worst = np.maximum(worst, gravity_ratios(robot, E))
    k = int(np.argmin(worst.max(axis=1)))
    c = Q[k]
    lower = np.where(finite, np.maximum(limits.q_lower, c - half), c - half)
    upper = np.where(finite, np.minimum(limits.q_upper, c + half), c + half)
    band = dataclasses.replace(limits, q_lower=lower, q_upper=upper)
    return LowGravityBand(band, c, float(fraction), float(worst[k].max()),
                          int(np.argmax(worst[k])))
