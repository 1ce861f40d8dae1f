# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Payload mass and centre of mass from static poses; drive gains from a known payload (seed 003).

A payload of mass m with centre of mass c (in the tool frame) held at rest adds the joint torque

    tau_p(q) = -J_v(q)' g m + J_w(q)' [g]x R(q) (m c) = Y_p(q) [m, m c]

(J_v, J_w: tool-origin Jacobian in the root frame, R: tool orientation, g: gravity), linear in
the four parameters (m, m c). The payload torque is measured either as the difference of static
poses held with and without the payload (paired by pose: model errors and most of the stiction
cancel), or as the difference from the identified model's static torque. Least squares with
per-joint weights gives (m, m c) and their covariance; c = (m c) / m with its standard deviation
by first-order propagation.

Drive gains: with a known payload, the current change between paired poses times the gain is
the payload torque (``estimate_drive_gains``, the simplest case of ``identify.drive_gains``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.identify.drive_gains import (MIN_TORQUE_NM, DriveGainsResult,
                                               GainStatistics, solve_drive_gains)
from robot_id_ros.identify.options import IdentificationError
from robot_id_ros.identify.static import StaticPoses
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.io.model_file import IdentifiedModel, Payload


def _skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def payload_regressor(robot: RobotModel, Q):
    """(P*n, 4) payload regressor of P static poses: columns m, m cx, m cy, m cz (tool frame)."""
    g = robot.gravity_m_s2
    rows = []
    for q in np.atleast_2d(Q):
        J = robot.tool_jacobian(q, 'base')
        R = robot.tool_placement(q).rotation
        Jv, Jw = J[:3], J[3:]
        rows.append(np.column_stack([-Jv.T @ g, Jw.T @ _skew(g) @ R]))
    return np.vstack(rows)


@dataclass
class PayloadResult:
    payload: Payload
    covariance: np.ndarray          # of (m, m cx, m cy, m cz)
    residual_rms_nm: np.ndarray     # per joint
    poses: int
    method: str                     # 'paired' or 'model'

    def to_dict(self):
        d = {
            'mass_kg': float(self.payload.mass_kg),
            'com_m': [float(x) for x in self.payload.com_m],
            'mass_std_kg': float(self.payload.mass_std_kg),
            'com_std_m': [float(x) for x in self.payload.com_std_m],
            'poses': int(self.poses),
            'method': self.method,
            'residual_rms_nm': [float(x) for x in self.residual_rms_nm]
        }
        return d


def match_poses(with_q, without_q, tolerance_rad=0.02):
    """Return index pairs (i_with, i_without) of poses within ``tolerance_rad`` (max |dq|)."""
    pairs = []
    for i, q in enumerate(with_q):
        d = np.abs(without_q - q).max(axis=1)
        k = int(np.argmin(d))
        if d[k] <= tolerance_rad:
            pairs.append((i, k))
    return pairs


def payload_torque(robot_or_model, with_poses: StaticPoses,
                   without_poses: StaticPoses | None = None, tolerance_rad=0.02):
    """(Q, dtau, method): the payload's joint torque at each usable pose."""
    if without_poses is not None:
        pairs = match_poses(with_poses.q, without_poses.q, tolerance_rad)
        if len(pairs) < 2:
            raise IdentificationError(
                f'only {len(pairs)} pose(s) of the payload run match a pose of the run without '
                f'payload (within {tolerance_rad} rad): record the same poses in both')
        iw, io = (np.array(x) for x in zip(*pairs))
        return with_poses.q[iw], with_poses.tau[iw] - without_poses.tau[io], 'paired'
    if not isinstance(robot_or_model, IdentifiedModel):
        raise IdentificationError(
            'without poses recorded without the payload, an identified model is needed')
    model = robot_or_model
    saved = model.payload
    model.set_payload(None)
    try:
        Z = np.zeros(model.n)
        base = np.array([model.torque(q, Z, Z) for q in with_poses.q])
    finally:
        model.set_payload(saved)
    return with_poses.q, with_poses.tau - base, 'model'


def identify_payload(robot_or_model, with_poses: StaticPoses,
                     without_poses: StaticPoses | None = None, tolerance_rad=0.02,
                     weighting='wls') -> PayloadResult:
    """Payload mass and COM (tool frame) with standard deviations; see the module docstring."""
    robot = robot_or_model.robot if isinstance(robot_or_model, IdentifiedModel) else robot_or_model
    Q, dtau, method = payload_torque(robot_or_model, with_poses, without_poses, tolerance_rad)
    n = robot.n
    if len(Q) * n < 8:
        raise IdentificationError(
            f'{len(Q)} static pose(s) are too few for a payload (4 parameters): record at '
            'least 4 poses that turn the tool')
    Y = payload_regressor(robot, Q)
    y = dtau.reshape(-1)
    sv = np.linalg.svd(Y / np.maximum(np.linalg.norm(Y, axis=0), 1e-300), compute_uv=False)
    if sv[-1] < 1e-4 * sv[0]:
        raise IdentificationError(
            'the poses do not identify the payload centre of mass (rank deficient): '
            'add poses with the tool turned about different axes')
    w = np.ones(n)
    for _ in range(2 if weighting == 'wls' else 1):
        Wr = np.tile(w, len(Q))
        Yw = Y * np.sqrt(Wr)[:, None]
        x = np.linalg.lstsq(Yw, y * np.sqrt(Wr), rcond=None)[0]
        r = (y - Y @ x).reshape(-1, n)
        s2 = np.mean(r ** 2, axis=0) * len(Q) * n / max(len(Q) * n - 4, 1)
        w = 1.0 / np.maximum(s2, 1e-12 * max(s2.max(), 1e-300))
    Wr = np.tile(w, len(Q))
    cov = np.linalg.inv(Y.T @ (Y * Wr[:, None]))
    chi2 = float(np.sum(r ** 2 * w)) / max(len(Q) * n - 4, 1)
    cov = cov * chi2
    m = x[0]
    if m <= 3 * np.sqrt(cov[0, 0]):
        raise IdentificationError(
            f'the estimated payload mass {m:.3g} +- {np.sqrt(cov[0, 0]):.2g} kg is not '
            'significantly positive: is there a payload, and are the with/without runs the '
            'right way round?')
    c = x[1:] / m
    Jc = np.column_stack([-x[1:] / m ** 2, np.eye(3) / m])   # d c / d (m, h)
    cov_c = Jc @ cov @ Jc.T
    pl = Payload(float(m), c, float(np.sqrt(cov[0, 0])), np.sqrt(np.clip(np.diag(cov_c), 0, None)))
    return PayloadResult(pl, cov, np.sqrt(np.mean(r ** 2, axis=0)), len(Q), method)


def estimate_drive_gains(robot: RobotModel, payload: Payload, with_current: StaticPoses,
                         without_current: StaticPoses, tolerance_rad=0.02,
                         min_torque_nm=MIN_TORQUE_NM) -> DriveGainsResult:
    """Estimate each joint's current-to-torque gain (Nm/A) with and without a known payload.

    From static poses held with and without the payload, efforts recorded as motor current (A):
    the paired current change di times the gain is the payload torque dtau, i.e. the fit of
    ``identify.drive_gains`` with no unknown dynamics (di_j = dtau_j / k_j per joint, the error
    in the measured current). Joints the payload barely loads (RMS dtau below
    ``min_torque_nm``) get NaN: this experiment does not identify them.
    """
    pairs = match_poses(with_current.q, without_current.q, tolerance_rad)
    if len(pairs) < 2:
        raise IdentificationError(
            'need at least 2 poses recorded both with and without the payload')
    iw, io = (np.array(x) for x in zip(*pairs))
    Q = with_current.q[iw]
    di = with_current.tau[iw] - without_current.tau[io]
    x = np.concatenate([[payload.mass_kg], payload.mass_kg * np.asarray(payload.com_m, float)])
    dtau = (payload_regressor(robot, Q) @ x).reshape(-1, robot.n)
    stats = GainStatistics.zeros(robot.n, 0)
    stats.add(np.zeros((dtau.size, 0)), dtau, di)
    return solve_drive_gains(stats, 'payload', min_torque_nm,
                             f'scale from the known payload ({payload.mass_kg:g} kg), '
                             f'{len(Q)} paired static poses')
