# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Excitation trajectories for dynamic identification: finite Fourier series, optimised.

Trajectory (Swevers et al., "Optimal robot excitation and identification", IEEE Trans.
Robotics and Automation 13(5), 1997, eq. 30), per joint j, w_f = 2 pi / period_s:

    q_j(t)   = q0_j + sum_{l=1..N} a_jl / (w_f l) sin(w_f l t) - b_jl / (w_f l) cos(w_f l t)
    qd_j(t)  = sum_l a_jl cos(w_f l t) + b_jl sin(w_f l t)
    qdd_j(t) = sum_l -a_jl w_f l sin(w_f l t) + b_jl w_f l cos(w_f l t)

a, b in rad/s (velocity amplitudes), q0 in rad. The trajectory is periodic, so it ends where it
starts. ``design_excitation`` makes it start (and end) at rest at a given pose ``q_start``:
qd(0) = sum_l a_jl = 0, qdd(0) = sum_l l b_jl = 0, q(0) = q0 - sum_l b_jl / (w_f l) = q_start;
these fix a_jN, b_jN and q0, the other 2 (N - 1) coefficients per joint are optimised.

Design criterion: the condition number of the base-parameter observation matrix W_b (the stacked
regressor of samples over one period, base columns only, unscaled, as in Swevers et al.), or
``criterion='logdet'``: maximise log det(W_b^T W_b) (D-optimality). Friction / rotor-inertia /
offset columns are included when the ``RegressorOptions`` ask for them.

Constraints, on a grid of ``constraint_samples`` points per period during the optimisation and then
verified on a dense grid (``DENSE_SAMPLES_PER_HARMONIC`` x N points); if the dense check finds a
violation the trajectory is scaled about q_start until it passes:

* position within ``position_fraction`` (default 0.8) of each joint's range, centred in the range;
* velocity within ``velocity_fraction`` (0.7) of the URDF velocity limit;
* acceleration within ``acceleration_fraction`` (0.7) of the acceleration limit. URDFs carry no
  acceleration limits: give them, or the default is ``DEFAULT_ACCELERATION_PER_VELOCITY_S`` x the
  velocity limit (an assumption: full speed in 0.5 s);
* the tool frame origin at least ``floor_z_m`` high (z of the URDF root frame; None: no floor).

Trajectory file (YAML, ``FourierTrajectory.save`` / ``load``), schema ``robot_id_ros/excitation``:

    schema: robot_id_ros/excitation
    schema_version: 1
    robot_name: str                    # URDF robot name (informative)
    joint_names: [str, ...]            # n joints, the order of every per-joint list below
    period_s: float                    # T
    base_frequency_hz: float           # 1 / T
    harmonics: int                     # N
    bandwidth_hz: float                # N / T, highest frequency in q
    q0_rad: [float] * n                # offsets
    coefficients:                      # eq. 30 above, n rows of N values, rad/s
      a: [[float] * N] * n
      b: [[float] * N] * n
    q_start_rad: [float] * n           # q(0) = q(T); qd = qdd = 0 there
    formula: str                       # eq. 30 in words
    design: {...}                      # how it was made: criterion, cond, logdet, limits, options
    samples:                           # one period, t = 0 .. T - 1/rate (the table repeats)
      rate_hz: float
      t_s: [float] * M
      q_rad: [[float] * n] * M         # one row per sample
      qd_rad_s: [[float] * n] * M
      qdd_rad_s2: [[float] * n] * M

A player loops the table (or evaluates the series) for as many periods as it records, starting
from rest at q_start_rad.

Modules: ``fourier`` (the series and its file), ``excitation_limits`` (bounds and their dense
check), ``excitation_problem`` (parametrisation, criterion, constraints), ``excitation_band`` (a
smaller band around a low-gravity pose, for arms whose drives barely hold them),
``excitation_torque`` (the drives' torque check, time scaling, the smaller band's search) and this
one (the optimisation, the design's measures, the plot), which re-exports the names of the first
three.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from robot_id_ros.model.base_parameters import compute_base_parameters
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.record.excitation_limits import (DEFAULT_ACCELERATION_PER_VELOCITY_S,
                                                   DENSE_SAMPLES_PER_HARMONIC, ExcitationLimits,
                                                   constraint_report, tool_heights)
from robot_id_ros.record.excitation_limits import per_joint as per_joint_values
from robot_id_ros.record.excitation_problem import ExcitationProblem, default_observation_samples
from robot_id_ros.record.fourier import (SCHEMA, SCHEMA_VERSION, TABLE_RATE_HZ_DEFAULT,
                                         ExcitationError, FourierTrajectory)

__all__ = [
    'DEFAULT_ACCELERATION_PER_VELOCITY_S', 'DENSE_SAMPLES_PER_HARMONIC', 'FLOOR_MARGIN_M',
    'MAX_USABLE_COND', 'OPTIMISATION_MARGIN', 'SCHEMA', 'SCHEMA_VERSION', 'TABLE_RATE_HZ_DEFAULT',
    'ExcitationError', 'ExcitationLimits', 'ExcitationProblem', 'ExcitationResult',
    'FourierTrajectory', 'constraint_report', 'design_excitation', 'plot_trajectory',
    'tool_heights', 'trajectory_measures',
]

OPTIMISATION_MARGIN = 0.015                 # limits tightened by 1.5 % during the optimisation
FLOOR_MARGIN_M = 0.01                       # and the floor raised by 1 cm
MAX_USABLE_COND = 1e6                       # a design worse than this is reported as an error
# SLSQP runs in chunks of min(max(5, iterations), 20) iterations; a chunk that improves the
# objective by less than CHUNK_MIN_PROGRESS ends the start
SLSQP_MIN_CHUNK = 5
SLSQP_MAX_CHUNK = 20
SLSQP_FTOL = 1e-7
CHUNK_MIN_PROGRESS = 1e-4
REPAIR_BISECTIONS = 10                      # steps of the line search back to the feasible set
FIGURE_SIZE_IN = (10, 9)                    # plot_trajectory
FIGURE_DPI = 100


@dataclass
class ExcitationResult:
    """An optimised excitation and how it was found."""

    trajectory: FourierTrajectory
    cond: float                 # condition number of the base observation matrix
    logdet: float               # log det(W_b^T W_b)
    initial_cond: float         # of the (feasible, random) starting trajectory
    criterion: str
    iterations: int
    evaluations: int
    time_s: float
    n_base: int
    observation_samples: int
    constraints: dict           # dense-grid constraint_report of the result
    message: str = ''


class _Search:
    """SLSQP from random feasible starts, keeping the best design that passes the dense check.

    SLSQP sees the limits on the coarser constraint grid, tightened so that its final iterates
    (which may violate constraints slightly) pass the dense check without being scaled down.
    SLSQP may leave the feasible set (and can get trapped against the floor at a joint-limit
    corner). It runs in chunks; each chunk restarts from the best design that passes the dense
    check, found among the iterates or by a line search back from the last iterate.
    """

    def __init__(self, prob: ExcitationProblem, max_iterations, progress, t0):
        self.prob = prob
        self.max_iterations = max_iterations
        self.progress = progress
        self.t0 = t0
        self.chunk = max(SLSQP_MIN_CHUNK, min(SLSQP_MAX_CHUNK, int(max_iterations)))
        A, c = prob.linear_constraints(OPTIMISATION_MARGIN)
        self.constraints = [{'type': 'ineq', 'fun': lambda x: A @ x + c, 'jac': lambda x: A}]
        if prob.limits.floor_z_m is not None:
            self.constraints.append({'type': 'ineq',
                                     'fun': lambda x: prob.floor_clearance(x, FLOOR_MARGIN_M),
                                     'jac': prob.floor_jacobian})
        self.evaluations = 0
        self.iterations = 0
        self.best_x, self.best_val, self.message = None, np.inf, ''
        self.initial_cond = None

    def emit(self, stage, start, it, x):
        """Call ``progress`` (when given) with the measures of x."""
        if self.progress is not None:
            cond, logdet = self.prob.measures(x)
            self.progress({'stage': stage, 'start': start, 'iteration': it, 'cond': cond,
                           'logdet': logdet, 'elapsed_s': time.monotonic() - self.t0})

    def feasible(self, x):
        return self.prob.report(x)['ok']

    def repair(self, x_good, x_bad, steps=REPAIR_BISECTIONS):
        """Bisect for the largest feasible step from x_good towards x_bad.

        Largest step from the feasible x_good towards x_bad that is feasible on the dense grid
        (bisection).
        """
        lo, hi = 0.0, 1.0
        for _ in range(steps):
            mid = 0.5 * (lo + hi)
            if self.feasible(x_good + mid * (x_bad - x_good)):
                lo = mid
            else:
                hi = mid
        return x_good + lo * (x_bad - x_good)

    def _fun(self, x):
        self.evaluations += 1
        return self.prob.objective(x)

    def run_start(self, r, rng):
        """Optimise from the random start number ``r``; keep it when it beats the best so far."""
        prob = self.prob
        x0 = prob.random_x(rng)
        if not np.any(x0):
            raise ExcitationError('no trajectory fits the limits: even a small motion from the '
                                  'start pose violates them; widen the fractions, lower --floor-z '
                                  'or move the start pose')
        c0 = prob.measures(x0)[0]
        if self.initial_cond is None:
            self.initial_cond = c0
        start = {'x': x0, 'val': prob.objective(x0)}
        self.emit('start', r, 0, x0)
        it = {'k': 0}

        def cb(xk):
            it['k'] += 1
            self.iterations += 1
            val = prob.objective(xk)
            if val < start['val'] and self.feasible(xk):
                start['x'], start['val'] = xk.copy(), val
            self.emit('optimise', r, it['k'], xk)

        import scipy.optimize   # here, not at import: the youbot_sim node imports record
        while it['k'] < self.max_iterations:
            before = start['val']
            res = scipy.optimize.minimize(
                self._fun, start['x'], method='SLSQP', constraints=self.constraints, callback=cb,
                options={'maxiter': min(self.chunk, int(self.max_iterations) - it['k']),
                         'ftol': SLSQP_FTOL})
            self.message = res.message
            if not self.feasible(res.x):
                xr = self.repair(start['x'], res.x)
                vr = prob.objective(xr)
                if vr < start['val']:
                    start['x'], start['val'] = xr, vr
            elif prob.objective(res.x) < start['val']:
                start['x'], start['val'] = res.x.copy(), prob.objective(res.x)
            if res.success or start['val'] > before - CHUNK_MIN_PROGRESS:
                break   # converged, or a chunk brought no progress
        if start['val'] < self.best_val:
            self.best_x, self.best_val = start['x'], start['val']


def design_limits(robot, position_fraction, velocity_fraction, acceleration_fraction,
                  acceleration_limits_rad_s2, velocity_limits_rad_s, floor_z_m,
                  position_band_rad):
    """Return ``design_excitation``'s ``ExcitationLimits`` (its arguments of the same names)."""
    limits = ExcitationLimits.from_robot(robot, position_fraction, velocity_fraction,
                                         acceleration_fraction, acceleration_limits_rad_s2,
                                         velocity_limits_rad_s, floor_z_m)
    if position_band_rad is not None:
        lower, upper = (per_joint_values(v, robot.n, 'position band') for v in position_band_rad)
        if not np.all(lower < upper):
            raise ExcitationError('the position band is empty for some joint')
        limits = dataclasses.replace(limits, q_lower=lower, q_upper=upper)
    return limits


def _checked_best(prob: ExcitationProblem, x, max_cond):
    """Return (dense-grid report, cond, logdet) of the best design ``x``; raise when unusable."""
    rep = prob.report(x)
    cond, logdet = prob.measures(x)
    if not np.isfinite(cond) or cond > max_cond:
        raise ExcitationError(f'the limits allow no trajectory that excites all '
                              f'{prob.base.n_base} base parameters (best condition number '
                              f'{cond:.3g} > {max_cond:.3g}); widen the position, velocity or '
                              'acceleration limits, or add harmonics')
    if not rep['ok']:
        raise ExcitationError(f'no trajectory satisfying every limit was found ({rep}); widen the '
                              'limits')
    return rep, cond, logdet


def design_excitation(robot: RobotModel, regressor_options=RegressorOptions(), period_s=10.0,
                      harmonics=5, *, q_start=None, position_fraction=0.8, velocity_fraction=0.7,
                      acceleration_fraction=0.7, acceleration_limits_rad_s2=None,
                      velocity_limits_rad_s=None, floor_z_m=0.0, criterion='cond',
                      max_iterations=100, restarts=1, observation_samples=None,
                      constraint_samples=None, progress=None, seed=0,
                      max_cond=MAX_USABLE_COND, position_band_rad=None) -> ExcitationResult:
    """Optimise a finite-Fourier-series excitation (see ``robot_id_ros.record.excitation``).

    Args:
        robot: the arm.
        regressor_options: which friction / rotor / offset columns are identified with the
            inertia (their columns enter the observation matrix).
        period_s: T, s.
        harmonics: N.
        q_start: start/end pose, rad (default the middle of each joint's range).
        position_fraction: share of each joint's position range.
        velocity_fraction: share of the velocity limits.
        acceleration_fraction: share of the acceleration limits.
        acceleration_limits_rad_s2: acceleration limits, rad/s^2 (see ExcitationLimits).
        velocity_limits_rad_s: velocity limits, rad/s (default: URDF).
        floor_z_m: lowest tool height (m) in the root frame, None for no floor.
        criterion: 'cond' (minimise the condition number) or 'logdet' (maximise
            log det W_b^T W_b).
        max_iterations: SLSQP iterations per start.
        restarts: random starts (the best is kept).
        observation_samples: observation grid points per period.
        constraint_samples: constraint grid points per period.
        progress: callable(dict) with keys stage, start, iteration, cond, logdet, elapsed_s,
            called at every iteration.
        seed: random seed of the starting points.
        max_cond: a best design whose condition number is above this is an error (the limits
            leave too little motion to identify the base parameters).
        position_band_rad: (lower, upper) per joint, rad: the position band, in place of
            ``position_fraction`` of each range centred in it (``design_within_torque``'s
            smaller band around a low-gravity pose).

    Returns:
        An ExcitationResult whose trajectory satisfies every limit on the dense grid.

    Raises:
        ExcitationError: bad input, or limits that allow no usable design.
    """
    t0 = time.monotonic()
    limits = design_limits(robot, position_fraction, velocity_fraction, acceleration_fraction,
                           acceleration_limits_rad_s2, velocity_limits_rad_s, floor_z_m,
                           position_band_rad)
    prob = ExcitationProblem(robot, regressor_options, period_s, harmonics, limits, q_start,
                             criterion, observation_samples, constraint_samples)
    rng = np.random.default_rng(seed)
    search = _Search(prob, max_iterations, progress, t0)
    restarts = max(1, int(restarts))
    for r in range(restarts):
        search.run_start(r, rng)
    x = search.best_x
    rep, cond, logdet = _checked_best(prob, x, max_cond)
    elapsed = time.monotonic() - t0
    design = {
        'criterion': criterion, 'cond': cond, 'logdet': logdet,
        'initial_cond': search.initial_cond,
        'n_base': prob.base.n_base, 'observation_samples': len(prob.t_obs),
        'regressor_options': regressor_options.to_dict(), 'tool_frame': robot.tool_frame,
        'position_fraction': position_fraction, 'velocity_fraction': velocity_fraction,
        'acceleration_fraction': acceleration_fraction,
        'acceleration_limits_default': acceleration_limits_rad_s2 is None,
        'limits': limits.to_dict(), 'constraints_dense_grid': rep, 'optimisation_time_s': elapsed,
        'seed': seed, 'restarts': restarts, 'urdf_sha256': robot.urdf_sha256,
    }
    if prob.start_note:
        design['start_pose_note'] = prob.start_note
    traj = prob.trajectory(x, design)
    search.emit('done', restarts - 1, search.iterations, x)
    return ExcitationResult(traj, cond, logdet, search.initial_cond, criterion, search.iterations,
                            search.evaluations, elapsed, prob.base.n_base, len(prob.t_obs), rep,
                            str(search.message))


def trajectory_measures(robot: RobotModel, traj: FourierTrajectory,
                        regressor_options=RegressorOptions(), observation_samples=None):
    """(cond, logdet) of the base observation matrix of ``traj`` over one period.

    Args:
        robot: the arm (its joints must be the trajectory's).
        traj: the trajectory.
        regressor_options: columns of the observation matrix.
        observation_samples: samples per period (default as ``design_excitation``:
            max(8 N, 3 n_base / n, 40)).

    Returns:
        (cond, logdet); (inf, -inf) for a rank-deficient matrix.
    """
    reg = Regressor(robot, regressor_options)
    base = compute_base_parameters(reg)
    if tuple(traj.joint_names) != tuple(robot.joint_names):
        raise ExcitationError(f'trajectory joints {traj.joint_names} do not match the model '
                              f'{robot.joint_names}')
    if observation_samples is None:
        observation_samples = default_observation_samples(traj.harmonics, base.n_base, robot.n)
    t = np.arange(int(observation_samples)) * traj.period_s / int(observation_samples)
    W = base.base_regressor(reg.stack(*traj.evaluate(t)))
    s = np.linalg.svd(W, compute_uv=False)
    if s[-1] <= 0:
        return np.inf, -np.inf
    return float(s[0] / s[-1]), float(2 * np.sum(np.log(s)))


def plot_trajectory(traj: FourierTrajectory, path, limits: ExcitationLimits = None, title=None):
    """PNG of q, qd, qdd over one period (dashed: limits when given).

    Args:
        traj: the trajectory.
        path: the PNG file written.
        limits: bounds drawn as dashed lines, or None.
        title: figure title (default: period, harmonics and condition number).
    """
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    t = np.linspace(0, traj.period_s, DENSE_SAMPLES_PER_HARMONIC * traj.harmonics + 1)
    q, qd, qdd = traj.evaluate(t)
    fig, axes = plt.subplots(3, 1, figsize=FIGURE_SIZE_IN, sharex=True)
    labels = ('position (rad)', 'velocity (rad/s)', 'acceleration (rad/s$^2$)')
    for ax, Y, lab in zip(axes, (q, qd, qdd), labels):
        for j in range(traj.n):
            ax.plot(t, Y[:, j], label=traj.joint_names[j], color=f'C{j}')
        ax.set_ylabel(lab)
        ax.grid(alpha=0.3)
    if limits is not None:
        for j in range(traj.n):
            col = f'C{j}'
            if np.isfinite(limits.q_lower[j]):
                axes[0].axhline(limits.q_lower[j], color=col, ls='--', lw=0.8)
                axes[0].axhline(limits.q_upper[j], color=col, ls='--', lw=0.8)
            for ax, m in ((axes[1], limits.qd_max[j]), (axes[2], limits.qdd_max[j])):
                ax.axhline(m, color=col, ls='--', lw=0.8)
                ax.axhline(-m, color=col, ls='--', lw=0.8)
    axes[0].legend(loc='upper right', fontsize=8, ncol=min(traj.n, 4))
    axes[-1].set_xlabel('time (s)')
    cond = traj.design.get('cond')
    axes[0].set_title(title or (f'excitation: T = {traj.period_s:g} s, N = {traj.harmonics}'
                                + (f', cond = {cond:.4g}' if cond is not None else '')))
    fig.tight_layout()
    fig.savefig(path, dpi=FIGURE_DPI)
    plt.close(fig)
