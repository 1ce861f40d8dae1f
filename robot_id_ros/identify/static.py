# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Gravity from static poses (ROS-free).

Efforts averaged over static holds, fitted with the static (gravity) regressor truncated to the
combinations the poses identify (combinations the poses do not excite are kept at the URDF value
and reported), and a point-mass baseline (weightless rods, one point mass per body, the potential
energy differentiated).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin
import scipy.linalg
import scipy.optimize

from robot_id_ros.identify.holds import find_holds
from robot_id_ros.identify.least_squares import (LeastSquaresResult, NormalEquations, free_columns,
                                                 solve_least_squares, structural_base)
from robot_id_ros.identify.options import (IdentificationError, IdentificationOptions,
                                           check_series, effort_to_torque)
from robot_id_ros.identify.samples import usable_samples
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.model.base_parameters import BaseParameters
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.model.robot import RobotModel

# a hold shorter than this many samples is not used
STATIC_MIN_SAMPLES = 3
# a column of the poses' base regressor below this fraction of the largest is not excited at all
_UNEXCITED_COLUMN = 1e-12
# a body's point mass is fitted only when its gravity column is above this norm (Nm/kg)
_POINT_MASS_ACTIVE_NORM = 1e-9


@dataclass
class StaticPoses:
    """Averaged static holds.

    q (P, n) rad, tau (P, n) Nm, tau_std (P, n) Nm, samples (P,), approach (P,) direction of the
    motion before the hold (-1, 0, 1).
    """

    q: np.ndarray
    tau: np.ndarray
    tau_std: np.ndarray
    samples: np.ndarray
    approach: np.ndarray
    source: str = ''
    notes: list = field(default_factory=list)   # how the holds were found, what was rejected

    def __len__(self):
        return len(self.q)

    @classmethod
    def concatenate(cls, items):
        """Return the poses of several ``StaticPoses`` together (sources joined)."""
        items = list(items)
        if not items:
            raise IdentificationError('no static poses')
        return cls(*(np.concatenate([getattr(p, f) for p in items]) for f in
                     ('q', 'tau', 'tau_std', 'samples', 'approach')),
                   source=', '.join(p.source for p in items),
                   notes=[x for p in items for x in p.notes])


def _holds_from_sidecar(series: JointStateSeries, sidecar):
    """[(sample indices, approach)] of the sidecar's ``static_hold`` segments."""
    windows = []
    for s in sidecar.get('segments', []):
        if s.get('type') == 'static_hold':
            m = (series.stamp_ns >= s['t_start_ns']) & (series.stamp_ns <= s['t_end_ns'])
            windows.append((np.flatnonzero(m), int(s.get('approach', 0) or 0)))
    return windows


def _sidecar_holds(series: JointStateSeries, sidecar, source):
    """Return (windows, notes) of the sidecar's holds (each averaged over its whole segment)."""
    windows = _holds_from_sidecar(series, sidecar)
    return windows, [f'static bag {source}: {len(windows)} hold(s) from the sidecar']


def _found_holds(series: JointStateSeries, options: IdentificationOptions, source):
    """Return (windows, notes, search) of the holds found from the positions (no sidecar)."""
    search = find_holds(series.t_s, series.q, options.static_min_duration_s,
                        options.static_velocity_threshold_rad_s, series.joint_names)
    notes = [f'static bag {source}: {len(search.holds)} hold(s) found without a sidecar '
             f'({search.criterion()}, for >= {options.static_min_duration_s:g} s); '
             f'{search.rejected_text()}']
    return search.holds, notes, search


def static_poses(series: JointStateSeries, options: IdentificationOptions, sidecar=None,
                 robot: RobotModel | None = None) -> StaticPoses:
    """Return the static holds of a bag, averaged.

    The holds are the sidecar's ``static_hold`` segments (averaged over their window) or, without
    a sidecar, found from the positions (``robot_id_ros.identify.holds``: low-passed velocity and
    position stability, robust to velocity noise, encoder quantisation and slow drift). Samples
    with NaN/inf or wrong array lengths are left out and reported in ``notes``, as are the
    stretches rejected as holds.

    Args:
        series: the recorded joint states (effort in ``options.effort_unit``).
        options: thresholds and the effort unit.
        sidecar: the bag's sidecar dict, or None.
        robot: when given, the series is checked against it.

    Returns:
        The ``StaticPoses``. Raises ``IdentificationError`` when no hold is found (the message
        says what was rejected and why).
    """
    series, notes = usable_samples(series, 'static bag')
    if robot is not None:
        check_series(series, robot, 'static bag')
    source = series.source or '(memory)'
    n = len(series.joint_names)
    tau = effort_to_torque(series.effort, options, n)
    search = None
    if sidecar:
        windows, more = _sidecar_holds(series, sidecar, source)
    else:
        windows, more, search = _found_holds(series, options, source)
    notes += more
    rows = [(series.q[i].mean(0), tau[i].mean(0), tau[i].std(0), len(i), a) for i, a in windows
            if len(i) >= STATIC_MIN_SAMPLES]
    if not rows:
        why = (f'need {search.criterion()} for {options.static_min_duration_s:g} s; '
               f'{search.rejected_text()}' if search is not None else
               'its sidecar has no static_hold segment with samples')
        raise IdentificationError(f'static bag {source}: no static hold found ({why}); record '
                                  'holds of a few seconds, or give a sidecar with static_hold '
                                  'segments')
    q, tm, ts, cnt, ap = (np.array(x) for x in zip(*rows))
    return StaticPoses(q, tm, ts, cnt, ap, series.source, notes)


@dataclass
class GravityResult:
    """The static (gravity) fit.

    base (identified static combinations, structurally identifiable AND excited), their values,
    the least squares, theta (standard vector: URDF inertias, dropped combinations at the URDF),
    offsets_nm (per joint, zeros unless static_offset), dropped
    ([{'name', 'expression', 'reason'}]), structural (expressions of the structural static base),
    the poses and residual_nm (P, n), measured - model at the poses.
    """

    base: BaseParameters
    values: np.ndarray
    ls: LeastSquaresResult
    theta: np.ndarray
    offsets_nm: np.ndarray
    dropped: list
    structural: list
    poses: StaticPoses
    residual_nm: np.ndarray

    def predict(self, robot: RobotModel, Q):
        """Gravity torque (Nm) of the fit at the configurations ``Q`` (P, n) rad."""
        r = robot.copy()
        r.set_standard_parameters(self.theta[:10 * r.n])
        return np.array([r.gravity_torque(q) for q in np.atleast_2d(Q)]) + self.offsets_nm


def _excited_combinations(Wb, max_condition, names, exprs):
    """Return (kept, dropped local indices, norms, dropped reasons) of the poses' combinations.

    By a pivoted QR of the scaled base regressor of the poses, rank tolerance 1/``max_condition``.
    """
    norms = np.linalg.norm(Wb, axis=0)
    scale = np.where(norms > 0, norms, 1.0)
    _, R, piv = scipy.linalg.qr(Wb / scale, mode='economic', pivoting=True)
    diag = np.abs(np.diag(R))
    tol = diag.max() / max_condition if diag.size else 0.0
    rank = int(np.sum(diag > tol))
    keep_local = np.sort(piv[:rank])
    drop_local = np.sort(piv[rank:])
    dropped = []
    for i in drop_local:
        reason = ('no pose excites it (its column is zero)'
                  if norms[i] <= _UNEXCITED_COLUMN * max(norms.max(), 1e-300) else
                  'its effect over these poses is a combination of the kept ones (rank '
                  'deficiency); add poses that move the joints it depends on')
        dropped.append({'name': names[i], 'expression': exprs[i], 'reason': reason})
    return keep_local, drop_local, dropped


def identify_gravity(robot: RobotModel, poses: StaticPoses,
                     options: IdentificationOptions) -> GravityResult:
    """Gravity parameters from averaged static efforts.

    The static regressor has only the m, mx, my, mz columns; its structural base (random poses)
    is further truncated to what these poses identify: a pivoted QR of the scaled base regressor
    of the actual poses drops combinations whose column is (near) a combination of the others
    (rank tolerance 1/max_condition), keeping them at the URDF value; each dropped one is reported
    with the reason.

    Args:
        robot: the model (URDF values are the reference).
        poses: the averaged holds.
        options: static offset, known parameters, weighting, scaling, confidence, max_condition.

    Returns:
        The ``GravityResult``. Raises ``IdentificationError`` on too few or too similar poses.
    """
    n = robot.n
    if len(poses) < 2:
        raise IdentificationError(f'only {len(poses)} static pose(s): record at least a few poses '
                                  'spread over the workspace')
    reg = Regressor(robot, RegressorOptions(offset=options.static_offset))
    known = {k: v for k, v in options.known_parameters.items() if k in reg.names}
    free, known_idx = free_columns(reg, known)
    base_s = structural_base(reg, free, static=True)
    structural = base_s.expressions()
    W = reg.static(poses.q)
    Wb = W[:, base_s.independent]
    theta_ref = reg.reference_parameters()
    for k, v in known.items():
        theta_ref[reg.names.index(k)] = v
    Y = poses.tau.copy()
    if len(known_idx):
        Y = Y - (W[:, known_idx] @ theta_ref[known_idx]).reshape(Y.shape)
    names_b = base_s.names
    keep_local, drop_local, dropped = _excited_combinations(Wb, options.max_condition, names_b,
                                                            base_s.expressions())
    rank = len(keep_local)
    if rank == 0 or len(dropped) > len(names_b) / 2:
        raise IdentificationError(
            f'too few or too similar static poses: {len(poses)} pose(s) identify {rank} of '
            f'{len(names_b)} gravity combinations; unidentifiable: '
            f'{"; ".join(d["expression"] for d in dropped[:6])}. Record more poses, spread over '
            'every joint range')
    # dropped combinations: fixed at their URDF (reference) value, subtracted
    beta_ref = base_s.to_base(theta_ref)
    Yk = Y - (Wb[:, drop_local] @ beta_ref[drop_local]).reshape(Y.shape)
    neq = NormalEquations.zeros(n, rank)
    neq.add(Wb[:, keep_local], Yk)
    ls = solve_least_squares(neq, options.weighting if len(poses) * n > 2 * rank else 'ols',
                             options.column_scaling, confidence=options.confidence,
                             names=[names_b[i] for i in keep_local])
    beta = beta_ref.copy()
    beta[keep_local] = ls.beta
    theta = base_s.to_standard(beta, theta_ref)
    kept = BaseParameters(reg.names, base_s.independent[keep_local], base_s.dependent,
                          base_s.K[keep_local], base_s.tolerance)
    offsets = np.zeros(n)
    if options.static_offset:
        k = reg.joint_kinds.index('fo')
        offsets = theta[reg.n_inertial + k::len(reg.joint_kinds)]
    pred = (W[:, base_s.independent] @ beta).reshape(-1, n)
    if len(known_idx):
        pred = pred + (W[:, known_idx] @ theta_ref[known_idx]).reshape(pred.shape)
    return GravityResult(kept, ls.beta, ls, theta, offsets, dropped, structural, poses,
                         poses.tau - pred)


@dataclass
class PointMassResult:
    """The point-mass gravity model.

    Weightless rods, one point mass (kg) per body at the URDF centre of mass; points per body (m,
    in the body's joint frame); residual_nm (P, n).
    """

    masses_kg: np.ndarray
    points: list
    residual_nm: np.ndarray

    def predict(self, robot: RobotModel, Q):
        """Gravity torque (Nm) of the point masses at the configurations ``Q`` (P, n) rad."""
        return np.array([_point_mass_gravity_columns(robot, self.points, q) @ self.masses_kg
                         for q in np.atleast_2d(Q)])


def _point_mass_gravity_columns(robot: RobotModel, points, q, h=1e-6):
    """Return dV/dq for unit point masses (n x bodies).

    The potential energy V = -m g.p(q) differentiated by central differences of step ``h`` rad.
    """
    m, d = robot.model, robot.data
    g = robot.gravity_m_s2

    def V(qq):
        pin.forwardKinematics(m, d, robot.q_pin(qq))
        return np.array([-g @ d.oMi[i + 1].act(points[i]) for i in range(robot.n)])

    cols = np.zeros((robot.n, robot.n))
    for j in range(robot.n):
        e = np.zeros(robot.n)
        e[j] = h
        cols[j] = (V(q + e) - V(q - e)) / (2 * h)
    return cols


def point_mass_gravity(robot: RobotModel, poses: StaticPoses) -> PointMassResult:
    """Fit the point masses (non-negative least squares) to the averaged static efforts.

    Args:
        robot: the model (URDF centres of mass).
        poses: the averaged holds.

    Returns:
        The ``PointMassResult``.
    """
    points = [np.array(robot.model.inertias[i + 1].lever) for i in range(robot.n)]
    G = np.vstack([_point_mass_gravity_columns(robot, points, q) for q in poses.q])
    y = poses.tau.reshape(-1)
    active = np.linalg.norm(G, axis=0) > _POINT_MASS_ACTIVE_NORM
    masses = np.zeros(robot.n)
    if active.any():
        masses[active] = scipy.optimize.nnls(G[:, active], y)[0]
    res = (y - G @ masses).reshape(-1, robot.n)
    return PointMassResult(masses, points, res)
