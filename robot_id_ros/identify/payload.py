# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Payload mass, centre of mass and inertia from any motion; drive gains from a known payload.

A rigid payload fixed to the tool is a 10-parameter body pi = (m, m c, I_O): mass, first moment
and rotational inertia about the tool frame origin, all in tool axes (Pinocchio's order m, mx, my,
mz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz). Its joint torque along any motion is linear in pi,

    tau_p(q, qd, qdd) = Y_p(q, qd, qdd) pi,

Y_p being the last joint's columns of Pinocchio's joint torque regressor times the (constant,
linear) map of a tool-frame body into the last joint's frame (``payload_motion_regressor``). At
rest (qd = qdd = 0) only (m, m c) remain: the static case is the same fit on 4 columns.

The payload torque is measured either as the difference of static poses held with and without the
payload (paired by pose: model errors and most of the stiction cancel), or as the recorded torque
minus the unloaded model's torque (rigid body and friction, ``IdentifiedModel.predict``) at the
same samples: static holds with qd = qdd = 0, or a processed trajectory of any motion (velocity
and acceleration by the zero-phase derivatives of identification, ``prepare_trajectory``; rows of
joints slower than the model's ``min_velocity_rad_s``, where friction is anywhere in the stiction
band, left out, and samples no model explains, ``payload_outliers``; along a trajectory the fit
also carries the friction the payload changes, ``payload_friction``). Weighted least squares
(per-joint weights iterated from the residual) gives pi
and its covariance scaled by the residual variance; c = (m c) / m and the inertia about the centre
of mass follow by first-order propagation. The inertia is fitted only when the motion excites it
(column-scaled regressor well conditioned) and each element is reported only where its standard
deviation is below ``INERTIA_MAX_RELATIVE_STD`` of the largest principal moment; otherwise it is
'not excited' (the fit then holds the payload's own inertia at zero).

Drive gains: with a known payload, the current change between paired poses times the gain is
the payload torque (``identify.drive_gains.estimate_drive_gains``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from robot_id_ros.identify.options import IdentificationError, IdentificationOptions
from robot_id_ros.identify.payload_friction import fit_with_friction_change, unloaded_rigid_torque
from robot_id_ros.identify.payload_outliers import outlier_samples
from robot_id_ros.identify.static import StaticPoses, static_poses
from robot_id_ros.identify.trajectories import Trajectory, motion_mask
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.io.model_file import IdentifiedModel, Payload

# an inertia element (about the COM) is reported when its standard deviation is below this
# fraction of the largest estimated principal moment; else 'not excited'
INERTIA_MAX_RELATIVE_STD = 0.3
# the 10-parameter fit is used when the column-scaled payload regressor's condition number is
# below this; above it the motion does not separate the inertia and 4 parameters are fitted
MAX_CONDITION_WITH_INERTIA = 1e3
# trajectory rows of a joint slower than this are left out when the model names no threshold
DEFAULT_MIN_VELOCITY_RAD_S = 0.02
# without a sidecar, a recording whose static holds average at least this fraction of its samples
# is taken as static poses, else as a trajectory
STATIC_SAMPLE_FRACTION = 0.1
# ... and its holds are at this many distinct poses at least (a pose differs from another by more
# than DISTINCT_POSE_RAD on some joint): fewer cannot separate the payload's mass and COM, and a
# trajectory that starts and ends at rest has its holds at one or two poses
STATIC_MIN_POSES = 3
DISTINCT_POSE_RAD = 0.05
INERTIA_NAMES = ('ixx', 'ixy', 'iyy', 'ixz', 'iyz', 'izz')


def _skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def _sym(i6):
    xx, xy, yy, xz, yz, zz = i6
    return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])


def _six(Im):
    return np.array([Im[0, 0], Im[0, 1], Im[1, 1], Im[0, 2], Im[1, 2], Im[2, 2]])


def tool_to_joint_parameters(placement: pin.SE3):
    """(10, 10) map of a body's parameters from the tool frame to the last joint's frame.

    Args:
        placement: the tool frame in the last joint's frame (rotation R, translation p).

    Returns:
        T with pi_joint = T pi_tool, both in Pinocchio's order (m, h, inertia about the origin):
        m' = m, h' = R h + m p, I' = R I R' + S(R h)' S(p) + S(p)' S(R h) + m S(p)' S(p).
    """
    R, p = placement.rotation, placement.translation
    Sp = _skew(p)
    T = np.zeros((10, 10))
    for k in range(10):
        e = np.zeros(10)
        e[k] = 1.0
        m, h, Io = e[0], e[1:4], _sym(e[4:])
        Srh = _skew(R @ h)
        T[0, k] = m
        T[1:4, k] = R @ h + m * p
        T[4:, k] = _six(R @ Io @ R.T + Srh.T @ Sp + Sp.T @ Srh + m * Sp.T @ Sp)
    return T


def payload_motion_regressor(robot: RobotModel, Q, QD=None, QDD=None):
    """(N*n, 10) regressor of a payload rigidly fixed at the tool frame, N samples.

    Args:
        robot: the arm (gravity and tool frame).
        Q: (N, n) joint angles, rad.
        QD: (N, n) velocities, rad/s (None: at rest).
        QDD: (N, n) accelerations, rad/s^2 (None: zero).

    Returns:
        Rows sample-major, joint-minor; columns m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz
        (tool frame; inertia about the tool origin): the last joint's columns of Pinocchio's joint
        torque regressor mapped by ``tool_to_joint_parameters``.
    """
    Q = np.atleast_2d(np.asarray(Q, float))
    Z = np.zeros_like(Q)
    QD = Z if QD is None else np.atleast_2d(np.asarray(QD, float))
    QDD = Z if QDD is None else np.atleast_2d(np.asarray(QDD, float))
    m, d = robot.model, robot.data
    T = tool_to_joint_parameters(m.frames[robot.tool_frame_id].placement)
    out = np.empty((len(Q), robot.n, 10))
    for k, (q, qd, qdd) in enumerate(zip(Q, QD, QDD)):
        Y = pin.computeJointTorqueRegressor(m, d, robot.q_pin(q), qd, qdd)
        out[k] = Y[:, -10:]
    return out.reshape(-1, 10) @ T


def payload_regressor(robot: RobotModel, Q):
    """(P*n, 4) payload regressor of P static poses: columns m, m cx, m cy, m cz (tool frame)."""
    return payload_motion_regressor(robot, Q)[:, :4]


def _weighted_fit(Y, y, n, keep=None, weighting='wls'):
    """Weighted least squares with per-joint weights from the residual.

    Args:
        Y: (R*n, p) regressor, rows sample-major, joint-minor.
        y: (R*n,) measured payload torque, Nm.
        n: joints.
        keep: (R*n,) bool, rows used (None: all).
        weighting: 'wls' (weights 1 / residual variance per joint, iterated once) or 'ols'.

    Returns:
        (x, covariance scaled by the weighted residual variance, residual rms per joint Nm,
        condition number of the column-scaled weighted regressor, (R*n,) row weights).
    """
    keep = np.ones(len(y), bool) if keep is None else np.asarray(keep, bool)
    joint = np.arange(len(y)) % n
    count = np.bincount(joint[keep], minlength=n)
    K, p = int(keep.sum()), Y.shape[1]
    w = (count > 0).astype(float)
    for _ in range(2 if weighting == 'wls' else 1):
        sw = np.sqrt(w[joint] * keep)
        A = Y * sw[:, None]
        s = np.maximum(np.linalg.norm(A, axis=0), 1e-300)
        x = np.linalg.lstsq(A / s, y * sw, rcond=None)[0] / s
        r = np.where(keep, y - Y @ x, 0.0)
        ss = np.bincount(joint, r ** 2, minlength=n)
        s2 = ss / np.maximum(count * (K - p) / max(K, 1), 1)
        w_new = np.where(count > 0, 1.0 / np.maximum(s2, 1e-12 * max(s2.max(), 1e-300)), 0.0)
        if weighting == 'wls':
            w = w_new
    sw = np.sqrt(w[joint] * keep)
    A = Y * sw[:, None]
    s = np.maximum(np.linalg.norm(A, axis=0), 1e-300)
    x = np.linalg.lstsq(A / s, y * sw, rcond=None)[0] / s
    r = np.where(keep, y - Y @ x, 0.0)
    sv = np.linalg.svd(A / s, compute_uv=False)
    chi2 = float(np.sum(r ** 2 * w[joint])) / max(K - p, 1)
    cov = np.linalg.pinv((A / s).T @ (A / s)) / np.outer(s, s) * chi2
    rms = np.sqrt(np.bincount(joint, r ** 2, minlength=n) / np.maximum(count, 1))
    return x, cov, rms, float(sv[0] / max(sv[-1], 1e-300)), sw ** 2


def model_error_covariance(model: IdentifiedModel, Y, row_weights, Q, QD=None, QDD=None):
    """Covariance the unloaded model's own parameter uncertainty adds to a payload fit.

    The model's torque error along the samples is W_b d_beta with d_beta ~ (0, the model's base
    covariance); the weighted fit maps it to the payload parameters by L = (Y' D Y)^-1 Y' D W_b.

    Args:
        model: the unloaded model (its ``base`` and ``base_covariance``).
        Y: (R*n, p) payload regressor of the fit; row_weights: (R*n,) its row weights D.
        Q, QD, QDD: (R, n) the samples (None: at rest).

    Returns:
        (p, p) covariance, zero when the model file carries no base covariance.
    """
    if model.base is None or model.base_covariance is None:
        return np.zeros((Y.shape[1], Y.shape[1]))
    Q = np.atleast_2d(np.asarray(Q, float))
    Z = np.zeros_like(Q)
    Wb = model.base.base_regressor(model.regressor.stack(
        Q, Z if QD is None else QD, Z if QDD is None else QDD))
    A = Y * row_weights[:, None]
    s = np.maximum(np.linalg.norm(Y, axis=0), 1e-300)
    L = np.linalg.pinv((A / s).T @ (Y / s)) @ ((A / s).T @ Wb) / s[:, None]
    return L @ np.asarray(model.base_covariance, float) @ L.T


@dataclass
class PayloadResult:
    """A payload estimate.

    payload: mass and COM (tool frame) with standard deviations; covariance of (m, m c[, I_O]);
    residual_rms_nm per joint; poses (static holds used; 0 for a trajectory); method 'paired',
    'model' (static holds against the model) or 'trajectory'; samples used (trajectory);
    inertia_kg_m2 (6,) about the COM in tool axes (ixx, ixy, iyy, ixz, iyz, izz), NaN where not
    excited, with inertia_std_kg_m2; None when the inertia was not fitted; outlier_samples:
    trajectory samples left out as no model's (``identify.payload_outliers``).
    """

    payload: Payload
    covariance: np.ndarray
    residual_rms_nm: np.ndarray
    poses: int
    method: str
    samples: int = 0
    inertia_kg_m2: np.ndarray | None = None
    inertia_std_kg_m2: np.ndarray | None = None
    inertia_fitted: bool = True
    outlier_samples: int = 0

    @property
    def inertia_status(self):
        """'excited', 'partly excited', 'not excited' or 'not fitted' (point mass asked for)."""
        if not self.inertia_fitted:
            return 'not fitted'
        if self.inertia_kg_m2 is None or not np.isfinite(self.inertia_kg_m2).any():
            return 'not excited'
        return 'excited' if np.isfinite(self.inertia_kg_m2).all() else 'partly excited'

    def to_dict(self):
        """Plain dict (the command's JSON/YAML); inertia elements not excited are None."""
        d = {
            'mass_kg': float(self.payload.mass_kg),
            'com_m': [float(x) for x in self.payload.com_m],
            'mass_std_kg': float(self.payload.mass_std_kg),
            'com_std_m': [float(x) for x in self.payload.com_std_m],
            'poses': int(self.poses),
            'method': self.method,
            'residual_rms_nm': [float(x) for x in self.residual_rms_nm]
        }
        if self.method == 'trajectory':
            d['samples'] = int(self.samples)
            d['outlier_samples'] = int(self.outlier_samples)
            d['inertia'] = self.inertia_status
            for key, v in (('inertia_com_kg_m2', self.inertia_kg_m2),
                           ('inertia_com_std_kg_m2', self.inertia_std_kg_m2)):
                d[key] = {k: (float(x) if v is not None and np.isfinite(x) else None)
                          for k, x in zip(INERTIA_NAMES, v if v is not None else [np.nan] * 6)}
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


def unloaded_torque(model: IdentifiedModel, Q, QD=None, QDD=None):
    """(N, n) torque of ``model`` without its payload (rigid body + friction), Nm."""
    Q = np.atleast_2d(np.asarray(Q, float))
    Z = np.zeros_like(Q)
    saved = model.payload
    model.set_payload(None)
    try:
        return model.predict(Q, Z if QD is None else QD, Z if QDD is None else QDD,
                             run=QD is not None)
    finally:
        model.set_payload(saved)


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
    return with_poses.q, with_poses.tau - unloaded_torque(robot_or_model, with_poses.q), 'model'


def _mass_and_com(x, cov):
    """Payload (mass, COM and their std) from (m, m c, ...) and its covariance."""
    m = x[0]
    if m <= 3 * np.sqrt(cov[0, 0]):
        raise IdentificationError(
            f'the estimated payload mass {m:.3g} +- {np.sqrt(cov[0, 0]):.2g} kg is not '
            'significantly positive: is there a payload, and are the with/without runs the '
            'right way round (or the model the one without the payload)?')
    c = x[1:4] / m
    Jc = np.column_stack([-x[1:4] / m ** 2, np.eye(3) / m])   # d c / d (m, h)
    cov_c = Jc @ cov[:4, :4] @ Jc.T
    return Payload(float(m), c, float(np.sqrt(cov[0, 0])),
                   np.sqrt(np.clip(np.diag(cov_c), 0, None)))


def identify_payload(robot_or_model, with_poses: StaticPoses,
                     without_poses: StaticPoses | None = None, tolerance_rad=0.02,
                     weighting='wls') -> PayloadResult:
    """Payload mass and COM (tool frame) from static holds; see the module docstring.

    Args:
        robot_or_model: the arm (paired holds) or the unloaded ``IdentifiedModel``.
        with_poses: holds with the payload (torque in Nm).
        without_poses: the same poses held without it, or None (then the model's torque).
        tolerance_rad: pairing tolerance, max |dq|.
        weighting: 'wls' or 'ols'.

    Returns:
        The ``PayloadResult``. Raises ``IdentificationError`` when the holds do not identify it.
    """
    robot = robot_or_model.robot if isinstance(robot_or_model, IdentifiedModel) else robot_or_model
    Q, dtau, method = payload_torque(robot_or_model, with_poses, without_poses, tolerance_rad)
    n = robot.n
    if len(Q) * n < 8:
        raise IdentificationError(
            f'{len(Q)} static pose(s) are too few for a payload (4 parameters): record at '
            'least 4 poses that turn the tool')
    Y = payload_regressor(robot, Q)
    x, cov, rms, cond, rw = _weighted_fit(Y, dtau.reshape(-1), n, weighting=weighting)
    if method == 'model':
        cov = cov + model_error_covariance(robot_or_model, Y, rw, Q)
    if cond > 1e4:
        raise IdentificationError(
            'the poses do not identify the payload centre of mass (rank deficient): '
            'add poses with the tool turned about different axes')
    return PayloadResult(_mass_and_com(x, cov), cov, rms, len(Q), method)


def _physical(I6, std6):
    """Return whether the inertia I6 is physical within 3 standard deviations.

    Its principal moments >= 0 and the triangle inequality, each within 3 times the largest
    element's standard deviation.
    """
    w = np.linalg.eigvalsh(_sym(I6))
    tol = 3 * float(np.max(std6))
    return bool(w.min() >= -tol and w.sum() - 2 * w.max() >= -tol)


def _inertia_about_com(x, cov):
    """(I_c six values, their std) from (m, h, I_O) by first-order propagation."""
    def f(v):
        h = v[1:4]
        return _six(_sym(v[4:]) - (np.dot(h, h) * np.eye(3) - np.outer(h, h)) / v[0])
    J = np.zeros((6, 10))
    for k in range(10):
        step = 1e-6 * max(abs(x[k]), np.sqrt(max(cov[k, k], 0.0)), 1e-9)
        e = np.zeros(10)
        e[k] = step
        J[:, k] = (f(x + e) - f(x - e)) / (2 * step)
    return f(x), np.sqrt(np.clip(np.diag(J @ cov @ J.T), 0, None))


def payload_from_trajectory(model: IdentifiedModel, trajectory: Trajectory,
                            min_velocity_rad_s=None, weighting='wls',
                            inertia='auto', friction_change=True, outliers=True) -> PayloadResult:
    """Payload mass, COM and (where excited) inertia from a run of any motion with the payload.

    Args:
        model: the model identified without the payload.
        trajectory: the processed run with the payload (``prepare_trajectory``; torque in Nm).
        min_velocity_rad_s: joint j's rows slower than this are left out (stiction band); None:
            the model's identification threshold, else ``DEFAULT_MIN_VELOCITY_RAD_S``.
        weighting: 'wls' or 'ols'.
        inertia: 'auto' (fit it when the motion excites it), 'fit' or 'none' (point mass).
        friction_change: fit, per joint, the change of Coulomb friction with the load beside the
            payload (identify/payload_friction.py); False: the payload's columns alone.
        outliers: leave out the samples no model explains (identify/payload_outliers.py).

    Returns:
        The ``PayloadResult`` (method 'trajectory'); see the module docstring.
    """
    robot, n = model.robot, model.n
    if min_velocity_rad_s is None:
        opt = model.identification.get('options', {}).get('min_velocity_rad_s')
        min_velocity_rad_s = opt if opt else DEFAULT_MIN_VELOCITY_RAD_S
    tr = trajectory
    dtau = tr.tau - unloaded_torque(model, tr.q, tr.qd, tr.qdd)
    keep = motion_mask(tr.qd, tr.rate_hz, min_velocity_rad_s).reshape(-1)
    if keep.sum() < 20 * n:
        raise IdentificationError(
            f'trajectory {tr.source}: only {int(keep.sum())} joint samples move faster than '
            f'{min_velocity_rad_s:g} rad/s: record a run that moves the joints, or use static '
            'holds')
    Y = payload_motion_regressor(robot, tr.q, tr.qd, tr.qdd)
    y = dtau.reshape(-1)
    rigid = unloaded_rigid_torque(model, tr.q, tr.qd, tr.qdd) if friction_change else None

    def fit(cols):
        if rigid is None:
            x, cov, rms, cond, rw = _weighted_fit(cols, y, n, keep, weighting)
            A = cols
        else:
            x, cov, rms, cond, rw, A = fit_with_friction_change(
                lambda a, b: _weighted_fit(a, b, n, keep, weighting), cols, y, n, rigid, tr.qd)
        p = cols.shape[1]
        extra = model_error_covariance(model, A, rw, tr.q, tr.qd, tr.qdd)[:p, :p]
        return x, cov + extra, rms, cond

    x0 = fit(Y[:, :4])[0]
    dropped = outlier_samples((y - Y[:, :4] @ x0).reshape(-1, n), keep.reshape(-1, n)) & outliers
    keep &= np.repeat(~dropped, n)
    I_c = I_std = None
    if inertia in ('auto', 'fit'):
        x, cov, rms, cond = fit(Y)
        I_c, I_std = _inertia_about_com(x, cov)
        scale = np.abs(np.linalg.eigvalsh(_sym(I_c))).max()
        I_c = np.where((I_std < INERTIA_MAX_RELATIVE_STD * scale)
                       & (cond < MAX_CONDITION_WITH_INERTIA), I_c, np.nan)
        # 'auto': the inertia is kept only when the motion resolves its principal moments and
        # they are physical (not significantly negative): else model error fills those columns
        if inertia == 'auto' and not (np.isfinite(I_c[[0, 2, 5]]).all() and _physical(I_c, I_std)):
            I_c = I_std = None
    if I_c is None:
        x, cov, rms, cond = fit(Y[:, :4])
    if cond > 1e4 * MAX_CONDITION_WITH_INERTIA:
        raise IdentificationError(
            f'trajectory {tr.source} does not identify the payload centre of mass: move the '
            'wrist joints (turn the tool about different axes)')
    return PayloadResult(_mass_and_com(x, cov), cov, rms, 0, 'trajectory', len(tr), I_c, I_std,
                         inertia != 'none', int(dropped.sum()))


def recording_kind(series: JointStateSeries, options: IdentificationOptions, sidecar=None,
                   robot: RobotModel | None = None):
    """Return how a recording with the payload is used: ('static', holds) or ('trajectory', None).

    Args:
        series: the recording (effort in ``options.effort_unit``).
        options: static-hold thresholds and effort unit.
        sidecar: its sidecar dict or None; its ``kind`` decides when it says static/trajectory.
        robot: when given, the series is checked against it.

    Returns:
        The kind and, for 'static', the ``StaticPoses``. Without a sidecar the recording is static
        when its holds (``static_poses``) average ``STATIC_SAMPLE_FRACTION`` of its samples at
        ``STATIC_MIN_POSES`` distinct poses at least.
    """
    kind = (sidecar or {}).get('kind')
    if kind == 'trajectory':
        return 'trajectory', None
    if kind == 'static':
        return 'static', static_poses(series, options, sidecar, robot)
    try:
        holds = static_poses(series, options, None, robot)
    except IdentificationError:
        return 'trajectory', None
    averaged = holds.samples.sum() / max(len(series.t_s), 1)
    if averaged < STATIC_SAMPLE_FRACTION or _distinct_poses(holds.q) < STATIC_MIN_POSES:
        return 'trajectory', None     # e.g. a motion that starts and ends at rest at one pose
    return 'static', holds


def _distinct_poses(q_rad):
    """Return how many of the holds' poses (P, n) differ by ``DISTINCT_POSE_RAD`` on some joint."""
    kept = []
    for q in np.asarray(q_rad, dtype=float):
        if all(np.max(np.abs(q - k)) > DISTINCT_POSE_RAD for k in kept):
            kept.append(q)
    return len(kept)
