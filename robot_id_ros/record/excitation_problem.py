# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The excitation design problem: parametrisation at rest at q_start, criterion, constraints."""
from __future__ import annotations

import numpy as np

from robot_id_ros.model.base_parameters import compute_base_parameters
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.record.excitation_limits import (DENSE_SAMPLES_PER_HARMONIC, ExcitationLimits,
                                                   constraint_report, per_joint, tool_heights)
from robot_id_ros.record.fourier import ExcitationError, FourierTrajectory

# default observation grid: max(8 N, 3 n_base / n, 40) samples per period
OBSERVATION_SAMPLES_PER_HARMONIC = 8
OBSERVATION_SAMPLES_PER_BASE_PARAMETER_JOINT = 3
MIN_OBSERVATION_SAMPLES = 40
# default constraint grid: max(24 N, 96) samples per period; at least 4 N
CONSTRAINT_SAMPLES_PER_HARMONIC = 24
MIN_CONSTRAINT_SAMPLES = 96
MIN_CONSTRAINT_SAMPLES_PER_HARMONIC = 4
FAILED_OBJECTIVE = 1e3            # objective of a design whose measures are not finite
START_POSE_CANDIDATES = 4000      # random poses searched for a default start above the floor
START_CLEARANCE_FRACTION = 0.15   # of the tool's height range over them: room to move
SCALE_BACKOFF = 1e-9              # max_feasible_scale keeps this relative distance from a limit
FLOOR_SCALE_STEP = 0.95           # and shrinks by this factor while the tool is below the floor,
FLOOR_SCALE_TRIES = 60            # at most this many times


def default_observation_samples(harmonics, n_base, n):
    """Return the observation samples per period ``design_excitation`` uses by default.

    max(8 N, 3 n_base / n, 40).
    """
    return max(OBSERVATION_SAMPLES_PER_HARMONIC * harmonics,
               int(np.ceil(OBSERVATION_SAMPLES_PER_BASE_PARAMETER_JOINT * n_base / n)),
               MIN_OBSERVATION_SAMPLES)


class ExcitationProblem:
    """Parametrisation (rest at q_start), bases on time grids, criterion and constraints.

    The decision vector x holds, per joint, a_j1..a_j(N-1) then b_j1..b_j(N-1) (rad/s); q(t) is
    q_start + B_q(t) x_j per joint (linear), likewise qd and qdd.

    Args:
        robot: the arm.
        regressor_options: columns identified with the inertia (friction, rotor, offset).
        period_s: T, s.
        harmonics: N (at least 2).
        limits: the bounds (default ``ExcitationLimits.from_robot(robot)``).
        q_start: start/end pose, rad (default: the middle of each joint's band).
        criterion: 'cond' or 'logdet'.
        observation_samples: observation grid points per period (default
            ``default_observation_samples``).
        constraint_samples: constraint grid points per period (default max(24 N, 96)).
    """

    def __init__(self, robot: RobotModel, regressor_options=RegressorOptions(), period_s=10.0,
                 harmonics=5, limits: ExcitationLimits = None, q_start=None, criterion='cond',
                 observation_samples=None, constraint_samples=None):
        self.robot = robot
        n = robot.n
        self.n = n
        period_s = float(period_s)
        if not (np.isfinite(period_s) and period_s > 0):
            raise ExcitationError(f'period must be a positive number of seconds, got {period_s}')
        harmonics = int(harmonics)
        if harmonics < 2:
            raise ExcitationError(f'need at least 2 harmonics to start and end at rest, got '
                                  f'{harmonics}')
        if criterion not in ('cond', 'logdet'):
            raise ExcitationError(f'unknown criterion {criterion!r}; use "cond" or "logdet"')
        self.period_s, self.N, self.criterion = period_s, harmonics, criterion
        self.w = 2 * np.pi / period_s
        self.limits = limits or ExcitationLimits.from_robot(robot)
        self.regressor = Regressor(robot, regressor_options)
        self.base = compute_base_parameters(self.regressor)
        observation_samples, constraint_samples = self._grid_sizes(observation_samples,
                                                                   constraint_samples)
        self.q_start = self._start_pose(q_start)
        self.t_obs = np.arange(observation_samples) * period_s / observation_samples
        self.t_con = np.arange(constraint_samples) * period_s / constraint_samples
        self.Bobs = self._bases(self.t_obs)
        self.Bcon = self._bases(self.t_con)
        self.nx_joint = 2 * (harmonics - 1)
        self.nx = n * self.nx_joint

    def _grid_sizes(self, observation_samples, constraint_samples):
        """(observation, constraint) samples per period, defaults filled in and checked."""
        harmonics, nb, n = self.N, self.base.n_base, self.n
        if observation_samples is None:
            observation_samples = default_observation_samples(harmonics, nb, n)
        observation_samples = int(observation_samples)
        need = max(2 * harmonics + 1, int(np.ceil(nb / n)))
        if observation_samples < need:
            raise ExcitationError(f'{observation_samples} observation samples per period are '
                                  f'too few for {harmonics} harmonics and {nb} base parameters; '
                                  f'use at least {need}')
        if constraint_samples is None:
            constraint_samples = max(CONSTRAINT_SAMPLES_PER_HARMONIC * harmonics,
                                     MIN_CONSTRAINT_SAMPLES)
        constraint_samples = int(constraint_samples)
        if constraint_samples < MIN_CONSTRAINT_SAMPLES_PER_HARMONIC * harmonics:
            raise ExcitationError(f'{constraint_samples} constraint samples per period are too '
                                  f'few for {harmonics} harmonics; use at least '
                                  f'{MIN_CONSTRAINT_SAMPLES_PER_HARMONIC * harmonics}')
        return observation_samples, constraint_samples

    def _start_pose(self, q_start):
        """Return the start pose (default the band's middle), checked against band and floor."""
        robot, lim, n = self.robot, self.limits, self.n
        self.start_note = ''
        if q_start is None:
            q_start = self._default_start_pose()
        q_start = per_joint(q_start, n, 'start pose')
        outside = [f'{robot.joint_names[i]} ({q_start[i]:.3f} not in [{lim.q_lower[i]:.3f}, '
                   f'{lim.q_upper[i]:.3f}])'
                   for i in range(n) if not lim.q_lower[i] <= q_start[i] <= lim.q_upper[i]]
        if outside:
            raise ExcitationError(f'start pose is outside the allowed position band for '
                                  f'{"; ".join(outside)}; choose another start pose or raise the '
                                  'position fraction')
        if lim.floor_z_m is not None:
            z0 = tool_heights(robot, q_start[None])[0]
            if z0 < lim.floor_z_m:
                raise ExcitationError(f'the tool is {z0:.3f} m high at the start pose, below the '
                                      f'floor at {lim.floor_z_m:.3f} m; lower --floor-z or choose '
                                      'another start pose')
        return q_start

    def _default_start_pose(self):
        """Return the middle of each joint's band, or the pose nearest it that clears the floor.

        An arm whose middle pose holds the tool below the floor (the UR5's zero pose is 5 mm
        below its base plane) starts instead from the pose, among ``START_POSE_CANDIDATES``
        drawn uniformly in the band (a fixed seed: the same pose every time), nearest the middle
        (distance in fractions of each band) with the tool ``START_CLEARANCE_FRACTION`` of the
        tool's height range over the candidates above the floor, room for the trajectory to
        move; ``start_note`` says so.
        """
        lim = self.limits
        finite = np.isfinite(lim.q_lower + lim.q_upper)
        middle = np.where(finite, 0.5 * (lim.q_lower + lim.q_upper), 0.0)
        if lim.floor_z_m is None:
            return middle
        z_middle = tool_heights(self.robot, middle[None])[0]
        if z_middle >= lim.floor_z_m:
            return middle
        lo = np.where(finite, lim.q_lower, middle - np.pi)
        hi = np.where(finite, lim.q_upper, middle + np.pi)
        Q = np.random.default_rng(0).uniform(lo, hi, (START_POSE_CANDIDATES, self.n))
        z = tool_heights(self.robot, Q)
        reach = float(np.max(np.abs(z - z_middle)))
        ok = z >= lim.floor_z_m + START_CLEARANCE_FRACTION * reach
        if not ok.any():
            return middle       # _start_pose names the problem and the fix
        dist = np.sum(((Q - middle) / np.maximum(hi - lo, 1e-9)) ** 2, axis=1)
        k = int(np.flatnonzero(ok)[np.argmin(dist[ok])])
        self.start_note = (
            f'start pose: the middle of the joint ranges puts the tool '
            f'{lim.floor_z_m - z_middle:.3f} m below the floor '
            f'at {lim.floor_z_m:.3f} m; starting from the nearest pose with the tool '
            f'{z[k] - lim.floor_z_m:.3f} m above it ('
            + ', '.join(f'{v:.3f}' for v in Q[k]) + ' rad; --start-pose to choose another)')
        return Q[k]

    # --- parametrisation ----------------------------------------------------------------
    def _bases(self, t):
        """Return the per-joint maps (Bq, Bqd, Bqdd) from the coefficients.

        Each (len(t), 2(N-1)): per-joint maps from [a_1..a_{N-1}, b_1..b_{N-1}].
        """
        N, w = self.N, self.w
        l = np.arange(1, N + 1)  # noqa: E741 - the harmonic index of the formula
        ph = np.outer(t, w * l)
        S, C = np.sin(ph), np.cos(ph)
        Ea = np.vstack([np.eye(N - 1), -np.ones((1, N - 1))])                 # a = Ea xa
        Eb = np.vstack([np.eye(N - 1), -(l[:-1] / N)[None, :]])                # b = Eb xb
        wl = w * l
        Bq = np.hstack([(S / wl) @ Ea, ((1 - C) / wl) @ Eb])
        Bqd = np.hstack([C @ Ea, S @ Eb])
        Bqdd = np.hstack([(-S * wl) @ Ea, (C * wl) @ Eb])
        return Bq, Bqd, Bqdd

    def coefficients(self, x):
        """Return (a, b, q0) of the trajectory of x."""
        X = np.asarray(x, dtype=float).reshape(self.n, self.nx_joint)
        N, w = self.N, self.w
        l = np.arange(1, N + 1)  # noqa: E741
        xa, xb = X[:, :N - 1], X[:, N - 1:]
        a = np.hstack([xa, -xa.sum(axis=1, keepdims=True)])
        b = np.hstack([xb, -(xb @ l[:-1])[:, None] / N])
        q0 = self.q_start + (b / (w * l)).sum(axis=1)
        return a, b, q0

    def trajectory(self, x, design=None):
        """Return the FourierTrajectory of x (with ``design`` as its design record)."""
        a, b, q0 = self.coefficients(x)
        return FourierTrajectory(self.robot.joint_names, self.period_s, a, b, q0,
                                 design=design or {}, robot_name=self.robot.robot_name)

    def states(self, x, bases):
        """(q, qd, qdd) of x on the grid of ``bases``."""
        X = np.asarray(x, dtype=float).reshape(self.n, self.nx_joint)
        Bq, Bqd, Bqdd = bases
        return self.q_start + Bq @ X.T, Bqd @ X.T, Bqdd @ X.T

    # --- criterion ----------------------------------------------------------------------
    def observation_matrix(self, x):
        """W_b: the stacked base regressor of x on the observation grid."""
        Q, QD, QDD = self.states(x, self.Bobs)
        return self.base.base_regressor(self.regressor.stack(Q, QD, QDD))

    def measures(self, x):
        """(cond, logdet) of the base observation matrix; logdet = log det(W_b^T W_b)."""
        s = np.linalg.svd(self.observation_matrix(x), compute_uv=False)
        if s[-1] <= 0 or not np.isfinite(s).all():
            return np.inf, -np.inf
        return float(s[0] / s[-1]), float(2 * np.sum(np.log(s)))

    def objective(self, x):
        """Log cond, or -logdet / n_base, of x (minimised)."""
        cond, logdet = self.measures(x)
        if self.criterion == 'cond':
            return np.log(cond) if np.isfinite(cond) else FAILED_OBJECTIVE
        return -logdet / self.base.n_base if np.isfinite(logdet) else FAILED_OBJECTIVE

    # --- constraints (>= 0 when satisfied), with exact Jacobians ------------------------
    def linear_constraints(self, margin):
        """Return the linear limit constraints (A, c) on the constraint grid.

        (A, c) with A x + c >= 0 for the position, velocity and acceleration limits on the
        constraint grid, each tightened by the fraction ``margin``.
        """
        lim = self.limits
        Bq, Bqd, Bqdd = self.Bcon
        n, k = self.n, self.nx_joint
        A_rows, b_rows = [], []
        fin = np.isfinite(lim.q_lower)
        for j in range(n):
            blocks = []
            if fin[j]:
                mid = 0.5 * (lim.q_lower[j] + lim.q_upper[j])
                half = 0.5 * (lim.q_upper[j] - lim.q_lower[j]) * (1 - margin)
                # mid - half <= q_start + Bq x <= mid + half
                blocks += [(-Bq, mid + half - self.q_start[j]),
                           (Bq, self.q_start[j] - (mid - half))]
            vm, am = lim.qd_max[j] * (1 - margin), lim.qdd_max[j] * (1 - margin)
            blocks += [(-Bqd, vm), (Bqd, vm), (-Bqdd, am), (Bqdd, am)]
            for B, c in blocks:
                A = np.zeros((B.shape[0], self.nx))
                A[:, j * k:(j + 1) * k] = B
                A_rows.append(A)
                b_rows.append(np.full(B.shape[0], c))
        return np.vstack(A_rows), np.concatenate(b_rows)

    def floor_clearance(self, x, margin_m=0.0):
        """Tool height above floor + ``margin_m`` (m) on the constraint grid (>= 0 satisfied)."""
        Q = self.states(x, self.Bcon)[0]
        return tool_heights(self.robot, Q) - self.limits.floor_z_m - margin_m

    def floor_jacobian(self, x):
        """D floor_clearance / dx, (constraint samples, nx)."""
        import pinocchio as pin

        robot = self.robot
        Q = self.states(x, self.Bcon)[0]
        Bq = self.Bcon[0]
        k = self.nx_joint
        J = np.zeros((len(Q), self.nx))
        for g, q in enumerate(Q):
            Jf = pin.computeFrameJacobian(robot.model, robot.data, robot.q_pin(q),
                                          robot.tool_frame_id, pin.LOCAL_WORLD_ALIGNED)
            for j in range(self.n):
                J[g, j * k:(j + 1) * k] = Jf[2, j] * Bq[g]
        return J

    def report(self, x, samples=None):
        """``constraint_report`` of the trajectory of x."""
        return constraint_report(self.robot, self.trajectory(x), self.limits, samples)

    # --- feasibility by scaling about q_start --------------------------------------------
    def max_feasible_scale(self, x, samples=None):
        """Return the largest feasible scale s of x on the dense grid.

        Largest s <= ~ the linear-limit bound such that s x satisfies every limit on the dense
        grid (0 when none does).
        """
        if samples is None:
            samples = DENSE_SAMPLES_PER_HARMONIC * self.N + 1
        t = np.linspace(0.0, self.period_s, int(samples), endpoint=False)
        B = self._bases(t)
        q, qd, qdd = self.states(x, B)
        dq = q - self.q_start
        lim = self.limits
        s = np.inf
        with np.errstate(divide='ignore', invalid='ignore'):
            up = np.where(dq > 0, (lim.q_upper - self.q_start) / dq, np.inf)
            dn = np.where(dq < 0, (lim.q_lower - self.q_start) / dq, np.inf)
            s = min(s, np.nanmin(up), np.nanmin(dn),
                    np.nanmin(lim.qd_max / np.abs(qd).max(axis=0)),
                    np.nanmin(lim.qdd_max / np.abs(qdd).max(axis=0)))
        if not np.isfinite(s):
            return 0.0
        s *= 1 - SCALE_BACKOFF
        if lim.floor_z_m is not None:
            for _ in range(FLOOR_SCALE_TRIES):
                qs = self.q_start + s * dq
                if np.min(tool_heights(self.robot, qs)) >= lim.floor_z_m:
                    break
                s *= FLOOR_SCALE_STEP
            else:
                return 0.0
        return float(s)

    def random_x(self, rng):
        """Random coefficients on every harmonic (uniform), scaled to the largest feasible size."""
        x = rng.uniform(-1.0, 1.0, self.nx)
        return x * self.max_feasible_scale(x)
