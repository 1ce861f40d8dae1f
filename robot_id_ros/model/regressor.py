# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The identification regressor: joint torque linear in the dynamic parameters.

    tau = Y(q, qd, qdd) theta

Columns, in this order:
1. inertial parameters, 10 per link in Pinocchio's order
   ``m, mx, my, mz, XX, XY, YY, XZ, YZ, ZZ`` (first moments and inertia about the joint frame
   origin; names carry the link number 1..n, e.g. ``mx3``);
2. per joint, when asked (see ``RegressorOptions``): rotor inertia ``Ia{j}``, viscous ``fv{j}``,
   Coulomb ``fc{j}`` (or ``fcp{j}`` / ``fcn{j}`` when direction-dependent), Stribeck ``fs{j}``
   (column s * exp(-(qd / vs)^2) with s the smooth sign and vs a given Stribeck velocity, so the
   column stays linear in fs), load-dependent Coulomb ``fcl{j}`` (column |tau_j| s, tau_j the
   rigid-body torque of ``Regressor.load_parameters``, the URDF's until a fit sets its own),
   drift ``fcd{j}`` / ``fvd{j}`` (the Coulomb and viscous columns times
   the run's drift coordinate, ``friction.drift_coordinate``: their coefficients are the
   friction at the run's start minus at its end, the law's own terms the run's mean), offset
   ``fo{j}``,
   drive-gain column ``kd{j}`` is not a column: drive gains are fitted separately.

The stacked regressor of N samples is sample-major: rows k*n .. k*n+n-1 are sample k.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pinocchio as pin

from robot_id_ros.model.friction import (SIGN_VELOCITY_RAD_S_DEFAULT, drift_coordinate,
                                         presliding_state, smooth_sign, stribeck_shape)
from robot_id_ros.model.robot import RobotModel

INERTIAL_NAMES = ('m', 'mx', 'my', 'mz', 'XX', 'XY', 'YY', 'XZ', 'YZ', 'ZZ')
INERTIAL_UNITS = ('kg', 'kg m', 'kg m', 'kg m', 'kg m^2', 'kg m^2', 'kg m^2', 'kg m^2', 'kg m^2',
                  'kg m^2')
# Khalil's order (XX XY XZ YY YZ ZZ MX MY MZ M), used to pick which parameters are regrouped:
# later parameters in this order are expressed through earlier ones, as in the seed papers.
GROUPING_ORDER = (4, 5, 7, 6, 8, 9, 1, 2, 3, 0)


@dataclass(frozen=True)
class RegressorOptions:
    """Which per-joint columns follow the inertial ones."""

    friction: bool = False            # Coulomb (smooth sign) + viscous per joint
    coulomb_asymmetric: bool = False  # fcp / fcn instead of fc
    offset: bool = False              # constant torque offset per joint
    rotor_inertia: bool = False       # reflected rotor inertia Ia per joint (qdd_j column)
    sign_velocity_rad_s: float = SIGN_VELOCITY_RAD_S_DEFAULT
    stribeck: bool = False            # Stribeck column fs per joint (needs friction)
    stribeck_velocity_rad_s: float = 0.1  # vs of the Stribeck column (given, not fitted)
    # q0 of the Coulomb term's presliding (Dahl) state, rad, every joint (given, not fitted);
    # 0: the smooth sign of qd (model/friction.py)
    presliding_rad: float = 0.0
    load_coulomb: bool = False        # Coulomb friction growing with |rigid-body torque| (fcl)
    friction_drift: bool = False      # Coulomb and viscous drift over each run (fcd, fvd)

    def to_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})

    def joint_column_kinds(self):
        kinds = []
        if self.rotor_inertia:
            kinds.append('Ia')
        if self.friction:
            kinds.append('fv')
            kinds.extend(('fcp', 'fcn') if self.coulomb_asymmetric else ('fc',))
            if self.stribeck:
                kinds.append('fs')
            if self.load_coulomb:
                kinds.append('fcl')
            if self.friction_drift:
                kinds.extend(('fcd', 'fvd'))
        if self.offset:
            kinds.append('fo')
        return kinds


_JOINT_UNITS = {
    'Ia': 'kg m^2',
    'fv': 'Nm s/rad',
    'fc': 'Nm',
    'fcp': 'Nm',
    'fcn': 'Nm',
    'fs': 'Nm',
    'fcl': 'Nm/Nm',
    'fcd': 'Nm',
    'fvd': 'Nm s/rad',
    'fo': 'Nm'
}


class Regressor:
    """Regressor of a ``RobotModel`` with the given options."""

    def __init__(self, robot: RobotModel, options: RegressorOptions = RegressorOptions()):
        self.robot = robot
        self.options = options
        n = robot.n
        self.n = n
        self.n_inertial = 10 * n
        self.joint_kinds = options.joint_column_kinds()
        names, units = [], []
        for i in range(1, n + 1):
            names += [f'{p}{i}' for p in INERTIAL_NAMES]
            units += list(INERTIAL_UNITS)
        for j in range(1, n + 1):
            for k in self.joint_kinds:
                names.append(f'{k}{j}')
                units.append(_JOINT_UNITS[k])
        self.names = tuple(names)
        self.units = tuple(units)
        self.p = len(names)
        # inertial parameters (10 n) of the load columns' rigid-body torque; None: no such column
        self.load_parameters = None
        if 'fcl' in self.joint_kinds:
            self.load_parameters = robot.standard_parameters()

    def grouping_order(self):
        """Column order for choosing base parameters (earlier columns are kept)."""
        order = []
        for i in range(self.n):
            order += [10 * i + k for k in GROUPING_ORDER]
        order += list(range(self.n_inertial, self.p))
        return np.array(order)

    def reference_parameters(self):
        """Return the URDF's inertial parameters, zeros for the per-joint columns."""
        theta = np.zeros(self.p)
        theta[:self.n_inertial] = self.robot.standard_parameters()
        if self.options.rotor_inertia:
            k = self.joint_kinds.index('Ia')
            theta[self.n_inertial + k::len(self.joint_kinds)] = self.robot.model.armature
        return theta

    def presliding_state(self, Q):
        """Return the Dahl state (N, n) of the Coulomb columns along a run's positions.

        None when the options have no presliding.
        """
        if not self.options.presliding_rad:
            return None
        return presliding_state(Q, np.full(self.n, float(self.options.presliding_rad)))

    def _joint_columns(self, qd, qdd, z=None, load_nm=None, drift=None):
        """(N, n, kinds) per-joint columns; ``z`` the Coulomb term's presliding state.

        ``load_nm`` (N, n) and ``drift`` (N,): the inputs of the load and drift columns (None:
        those columns are zero).
        """
        cols = []
        s = smooth_sign(qd, self.options.sign_velocity_rad_s)
        sc = s if z is None else z
        for k in self.joint_kinds:
            if k in ('fcl', 'fcd', 'fvd'):
                cols.append(_run_column(k, qd, sc, load_nm, drift))
                continue
            if k == 'Ia':
                cols.append(qdd)
            elif k == 'fv':
                cols.append(qd)
            elif k == 'fc':
                cols.append(sc)
            elif k == 'fcp':
                cols.append(np.maximum(sc, 0.0))
            elif k == 'fcn':
                cols.append(np.minimum(sc, 0.0))
            elif k == 'fs':
                cols.append(s * stribeck_shape(qd, self.options.stribeck_velocity_rad_s))
            elif k == 'fo':
                cols.append(np.ones_like(qd))
        return np.stack(cols, axis=-1) if cols else np.zeros(qd.shape + (0,))

    def compute(self, q, qd, qdd):
        """Regressor of one sample, shape (n, p)."""
        return self.stack(np.atleast_2d(q), np.atleast_2d(qd), np.atleast_2d(qdd))

    def stack(self, Q, QD, QDD, presliding_state=None, load_nm=None, drift=None):
        """Stacked regressor of N samples, shape (N*n, p), sample-major.

        With presliding options, the Coulomb columns take ``presliding_state`` (N, n), the Dahl
        state of the run (``presliding_state(Q)`` of the whole run, or its slice); without it the
        smooth sign of ``QD`` stands in (samples with no history: poses, single samples), as in
        ``FrictionModel.torque``. The load columns take the rigid-body torque of
        ``load_parameters`` (or ``load_nm`` (N, n), Nm, when given); ``drift`` (N,), the run's
        drift coordinate (``run_drift``), feeds the drift columns, which are zero without it
        (poses, samples of no run).
        """
        Q, QD, QDD = (np.asarray(a, dtype=float) for a in (Q, QD, QDD))
        N, n = Q.shape
        if n != self.n or QD.shape != Q.shape or QDD.shape != Q.shape:
            raise ValueError(
                f'expected (N, {self.n}) arrays of equal shape, got {Q.shape}, {QD.shape}, '
                f'{QDD.shape}'
            )
        W = np.zeros((N, n, self.p))
        model, data, q_pin = self.robot.model, self.robot.data, self.robot.q_pin
        for k in range(N):
            W[k, :, :self.n_inertial] = pin.computeJointTorqueRegressor(
                model, data, q_pin(Q[k]), QD[k], QDD[k])
        nk = len(self.joint_kinds)
        if load_nm is None and self.load_parameters is not None:
            load_nm = W[:, :, :self.n_inertial] @ self.load_parameters
        if nk:
            jc = self._joint_columns(QD, QDD, presliding_state, load_nm, drift)  # (N, n, nk)
            for j in range(n):
                W[:, j, self.n_inertial + j * nk:self.n_inertial + (j + 1) * nk] = jc[:, j, :]
        return W.reshape(N * n, self.p)

    def run_drift(self, t_s):
        """Return the drift coordinate (N,) of a whole run at times ``t_s``, or None.

        None when the options have no drift columns.
        """
        return drift_coordinate(t_s) if self.options.friction_drift else None

    def stack_along(self, Q, QD, QDD, t_s=None):
        """``stack`` of one whole time-ordered run: the Dahl state run along ``Q``.

        ``t_s`` (N,): the run's times, for the drift columns.
        """
        return self.stack(Q, QD, QDD, self.presliding_state(Q), None,
                          None if t_s is None else self.run_drift(t_s))

    def static(self, Q):
        """Gravity-only regressor of N static poses, (N*n, p) (zero velocity and acceleration)."""
        Q = np.atleast_2d(np.asarray(Q, dtype=float))
        Z = np.zeros_like(Q)
        W = self.stack(Q, Z, Z)
        return W

    def static_columns(self):
        """Return the columns a static regressor excites: m, mx, my, mz per link (+ offsets)."""
        cols = [10 * i + k for i in range(self.n) for k in range(4)]
        if 'fo' in self.joint_kinds:
            nk = len(self.joint_kinds)
            k = self.joint_kinds.index('fo')
            cols += [self.n_inertial + j * nk + k for j in range(self.n)]
        return np.array(cols)


def _run_column(kind, qd, sc, load_nm, drift):
    """Return the (N, n) column of a run's load or drift kind (zeros without its input)."""
    if kind == 'fcl':
        return np.zeros_like(qd) if load_nm is None else np.abs(load_nm) * sc
    if drift is None:
        return np.zeros_like(qd)
    g = np.asarray(drift, dtype=float)[:, None]
    return g * sc if kind == 'fcd' else g * qd
