# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Tool velocity to joint velocity: damped least squares on the tool frame Jacobian.

The tool's linear velocity (base frame) is the primary task; keeping the tool's orientation is
the secondary one, in the null space of the first. An arm with fewer than six joints (the youBot
has five) cannot reach every tool velocity: the linear directions whose singular value of the
position Jacobian is below ``min_singular_value`` are dropped from the command explicitly (and
reported as ``unreachable_m_s``), the others are damped near a singularity. Orientation rates
the arm cannot hold (the youBot's yaw follows joint 1) are left free.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.model.robot import RobotModel


@dataclass
class JointVelocity:
    """A tool velocity mapped to the joints.

    Attributes:
        qd_rad_s: (n,) joint velocity.
        achieved_m_s: (3,) tool linear velocity that ``qd_rad_s`` gives (J qd).
        unreachable_m_s: (3,) part of the requested velocity along directions the arm cannot
            move in here (dropped).
        sigma_min_m: smallest singular value of the position Jacobian.
        orientation_rad_s: (n,) the part of ``qd_rad_s`` that holds the tool's orientation (in
            the null space of the position task: it does not change the tool's velocity).
    """

    qd_rad_s: np.ndarray
    achieved_m_s: np.ndarray
    unreachable_m_s: np.ndarray
    sigma_min_m: float
    orientation_rad_s: np.ndarray


def _damped_pinv(J, damping, cutoff):
    """Return (damped pseudo-inverse, undamped truncated pseudo-inverse, U, s, kept mask)."""
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    keep = s > cutoff
    inv_d = np.where(keep, s / (s ** 2 + damping ** 2), 0.0)
    inv_t = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    return (Vt.T * inv_d) @ U.T, (Vt.T * inv_t) @ U.T, U, s, keep


class ToolVelocityMap:
    """Joint velocity for a tool linear velocity, orientation held where the arm can.

    Args:
        robot: the arm (its tool frame's Jacobian by Pinocchio).
        damping_m: damping of the least squares (same unit as the singular values, m).
        min_singular_value_m: linear directions with a smaller singular value are unreachable.
    """

    def __init__(self, robot: RobotModel, damping_m: float, min_singular_value_m: float):
        self.robot = robot
        self.damping = float(damping_m)
        self.cutoff = float(min_singular_value_m)

    def tool_position_m(self, q) -> np.ndarray:
        """Return the tool frame origin (3,) in the base frame at joint angles ``q``, m."""
        return self.robot.tool_placement(q).translation.copy()

    def map(self, q, v_m_s, locked=None) -> JointVelocity:
        """Return the joint velocity that moves the tool at linear velocity ``v_m_s``.

        Args:
            q: (n,) joint angles, rad.
            v_m_s: (3,) requested tool linear velocity, base frame, m/s.
            locked: (n,) bool, joints that must not move (at a limit); the others make the
                velocity as far as they can.

        Returns:
            ``JointVelocity``.
        """
        J = self.robot.tool_jacobian(q, 'base')
        if locked is not None:
            J[:, np.asarray(locked, dtype=bool)] = 0.0
        Jp, Jw = J[:3], J[3:]
        v = np.asarray(v_m_s, dtype=float)
        pinv_d, pinv_t, U, s, keep = _damped_pinv(Jp, self.damping, self.cutoff)
        dropped = U[:, ~keep] @ (U[:, ~keep].T @ v) if (~keep).any() else np.zeros(3)
        qd = pinv_d @ (v - dropped)
        # secondary: no tool rotation, within the null space of the position task
        N = np.eye(J.shape[1]) - pinv_t @ Jp
        JwN = Jw @ N
        pw, _, _, _, _ = _damped_pinv(JwN, self.damping, self.cutoff)
        hold = N @ (pw @ (-Jw @ qd))
        qd = qd + hold
        return JointVelocity(qd, Jp @ qd, dropped, float(s.min()) if s.size else 0.0, hold)

    def position_jacobian(self, q) -> np.ndarray:
        """Return the (3, n) Jacobian of the tool position, base frame."""
        return self.robot.tool_jacobian(q, 'base')[:3]

    def null_space_direction(self, q, weights) -> np.ndarray:
        """Return ``weights`` (n,) projected onto the null space of the position Jacobian.

        Scaled so that its largest magnitude is that of ``weights``: a joint motion that leaves
        the tool position where it is (to first order). Zeros when the null space is empty.
        """
        w = np.asarray(weights, dtype=float)
        peak = float(np.max(np.abs(w))) if w.size else 0.0
        if peak == 0.0:
            return np.zeros_like(w)
        _, s, Vt = np.linalg.svd(self.position_jacobian(q))
        rank = int(np.sum(s > self.cutoff))
        N = Vt[rank:].T
        d = N @ (N.T @ w)
        size = float(np.max(np.abs(d))) if d.size else 0.0
        return d * (peak / size) if size > 1e-12 else np.zeros_like(w)
