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
smaller band around a low-gravity pose, for arms whose drives barely hold them) and this one
(the optimisation, the drives' torque check, time scaling, the plot), which re-exports the names
of the others.
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
    'FourierTrajectory', 'constraint_report', 'design_excitation', 'design_within_torque',
    'peak_torque_fraction', 'plot_trajectory', 'tool_heights', 'trajectory_measures',
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
PEAK_TORQUE_SAMPLES = 2000                  # peak_torque_fraction's grid over one period
FIGURE_SIZE_IN = (10, 9)                    # plot_trajectory
FIGURE_DPI = 100


# design_within_torque slows the best design by these factors when no seed is within the torque
TIME_SCALE_FACTORS = (1.25, 1.5, 2.0, 3.0)
BAND_ATTEMPTS = 2                           # seeds per smaller band (excitation_band)


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


def _design_limits(robot, position_fraction, velocity_fraction, acceleration_fraction,
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
    limits = _design_limits(robot, position_fraction, velocity_fraction, acceleration_fraction,
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


def peak_torque_fraction(robot: RobotModel, traj: FourierTrajectory, samples=PEAK_TORQUE_SAMPLES,
                         friction=None):
    """Largest |tau_j| / effort limit_j along one period, with the URDF's rigid-body model.

    A trajectory the drives cannot follow saturates them and its tracking error grows.
    tau is what the drives must deliver: the inverse dynamics plus the friction torque, with its
    sign (friction opposes the motion: it adds to |tau| where the joint moves in the direction of
    the torque, as when a joint is raised against gravity, and subtracts where it moves against
    the torque, as when the joint is lowered).

    Args:
        robot: the arm (its URDF dynamics and effort limits).
        traj: the trajectory.
        samples: grid points over one period.
        friction: a FrictionModel whose torque is added, or None.

    Returns:
        (overall max, per-joint max), as fractions of the effort limits.
    """
    t = np.linspace(0.0, traj.period_s, samples, endpoint=False)
    Q, QD, QDD = traj.evaluate(t)
    tau = np.array([robot.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    if friction is not None:
        tau = tau + friction.torque(QD)
    per_joint = np.abs(tau).max(axis=0) / robot.limits.effort_nm
    return float(per_joint.max()), per_joint


def design_within_torque(robot: RobotModel, regressor_options=RegressorOptions(), *,
                         max_torque_fraction=0.8, attempts=8, friction=None, seed=0, report=None,
                         report_band=None, **design_kwargs):
    """Design excitations until one stays within a fraction of the drives' torque limits.

    ``design_excitation`` until a design needs at most ``max_torque_fraction`` of every drive's
    torque limit. The design's constraints are kinematic, and a trajectory that saturates a drive
    is not followed. Tries the seeds seed, seed + 1, ...; then the best of them slowed by
    ``TIME_SCALE_FACTORS``; then, when the torque left is gravity along the path, designs in a
    smaller position band around a low-gravity pose (``excitation_band``), step by step
    (``BAND_FRACTIONS``, ``BAND_ATTEMPTS`` seeds each, slowed when needed). A design in a smaller
    band carries ``band_note`` (what was done, its condition number) and ``smaller_band`` in its
    ``design``.

    Args:
        robot: the arm.
        regressor_options: as for ``design_excitation``.
        max_torque_fraction: largest accepted ``peak_torque_fraction``.
        attempts: number of seeds tried.
        friction: a FrictionModel added to the torque check, or None.
        seed: the first seed.
        report: callable(seed, peak) called for every rejected design in the full band.
        report_band: callable(fraction of the range, peak) for every smaller band rejected.
        **design_kwargs: passed to ``design_excitation``.

    Returns:
        (ExcitationResult, peak fraction, per-joint fractions, seed used).

    Raises:
        ExcitationError: no design within the fraction, even in the smallest band (or gravity
            alone needs more than the fraction everywhere in the band); the message names the
            joint and the fix.
    """
    best = None
    for k in range(attempts):
        res = design_excitation(robot, regressor_options, seed=seed + k, **design_kwargs)
        peak, per_joint = peak_torque_fraction(robot, res.trajectory, friction=friction)
        if peak <= max_torque_fraction:
            return res, peak, per_joint, seed + k
        if report is not None:
            report(seed + k, peak)
        if best is None or peak < best[1]:
            best = (res, peak, seed + k)
    got, slowed = _slowed_within(robot, best[0], max_torque_fraction, friction, regressor_options)
    if got is not None:
        return got + (best[2],)
    head = (f'no design within {100 * max_torque_fraction:.0f} % of the drives\' torque limits '
            f'in {attempts} attempts (best {100 * best[1]:.0f} %), nor the best one slowed '
            f'{TIME_SCALE_FACTORS[-1]:g}x ({100 * slowed:.0f} %: at that speed the torque is '
            'mostly gravity along its path)')
    return _design_in_smaller_band(robot, regressor_options, max_torque_fraction, attempts,
                                   friction, seed, best, slowed, head, report_band, design_kwargs)


def _slowed_within(robot, res, max_torque_fraction, friction, regressor_options, factors=None):
    """``res`` slowed by the first of ``factors`` that brings it within the torque fraction.

    Returns:
        ((result, peak, per-joint), None) or (None, peak at the last factor).
    """
    for factor in TIME_SCALE_FACTORS if factors is None else factors:
        got = res if factor == 1 else time_scaled(robot, res, factor, regressor_options)
        peak, per_joint = peak_torque_fraction(robot, got.trajectory, friction=friction)
        if peak <= max_torque_fraction:
            return (got, peak, per_joint), None
    return None, peak


def _design_in_smaller_band(robot, options, max_torque_fraction, attempts, friction, seed,
                            full_best, full_slowed, head, report_band, kw):
    """Run the smaller-band stage of ``design_within_torque`` (the full band failed)."""
    import inspect

    from robot_id_ros.record.excitation_band import (BAND_FRACTIONS, least_gravity,
                                                     low_gravity_band)

    default = {n: p.default for n, p in inspect.signature(design_excitation).parameters.items()}
    arg = {n: kw.get(n, default[n]) for n in default}
    limits = _design_limits(robot, arg['position_fraction'], arg['velocity_fraction'],
                            arg['acceleration_fraction'], arg['acceleration_limits_rad_s2'],
                            arg['velocity_limits_rad_s'], arg['floor_z_m'],
                            arg['position_band_rad'])
    g, j, _ = least_gravity(robot, limits)
    name, effort = robot.joint_names[j], robot.limits.effort_nm[j]
    if g > max_torque_fraction:
        raise ExcitationError(
            f'{head}: gravity alone needs at least {100 * g:.0f} % of {name}\'s {effort:.3g} Nm '
            f'at every pose of the band, so no excitation fits; raise --max-torque-fraction, or '
            f'check the effort limit of {name} (and the masses) in the URDF')
    where = 'the start pose' if arg['q_start'] is not None else 'a low-gravity pose'
    tried = None
    for fraction in BAND_FRACTIONS:
        if fraction >= arg['position_fraction']:
            continue
        band = low_gravity_band(robot, limits, fraction, centre=arg['q_start'])
        if band is None:
            break
        bkw = dict(kw, q_start=band.centre,
                   position_band_rad=(band.limits.q_lower, band.limits.q_upper))
        best = None
        for k in range(min(attempts, BAND_ATTEMPTS)):
            try:
                res = design_excitation(robot, options, seed=seed + k, **bkw)
            except ExcitationError as exc:
                raise ExcitationError(
                    f'{head}, and in a band of {100 * fraction:.0f} % of the range around {where} '
                    f'(gravity alone {100 * band.gravity_ratio:.0f} % of '
                    f'{robot.joint_names[band.joint]}\'s limit there): {exc}') from exc
            peak = peak_torque_fraction(robot, res.trajectory, friction=friction)[0]
            if best is None or peak < best[1]:
                best = (res, peak, seed + k)
        res, _, used = best
        res.trajectory.design['smaller_band'] = {
            'fraction_of_range': fraction, 'centre_rad': band.centre.tolist(),
            'gravity_ratio': band.gravity_ratio,
            'gravity_joint': robot.joint_names[band.joint],
            'full_band_peak_fraction': full_best[1],
            'full_band_slowed_peak_fraction': full_slowed,
            'full_band_cond': full_best[0].cond}
        got, slowed = _slowed_within(robot, res, max_torque_fraction, friction, options,
                                     (1.0,) + TIME_SCALE_FACTORS)
        if got is not None:
            got[0].trajectory.design['band_note'] = _band_note(
                robot, got[0], got[1], band, where, arg['position_fraction'],
                max_torque_fraction, full_best)
            return got + (used,)
        tried = (fraction, slowed, band)
        if report_band is not None:
            report_band(fraction, slowed)
    if tried is None:
        raise ExcitationError(f'{head}; no smaller band around a pose with the tool above the '
                              'floor: choose --start-pose, lower --floor-z or raise '
                              '--max-torque-fraction')
    fraction, slowed, band = tried
    bj = robot.joint_names[band.joint]
    raise ExcitationError(
        f'{head}, nor in a band of {100 * fraction:.0f} % of the range around {where} '
        f'({100 * slowed:.0f} % slowed {TIME_SCALE_FACTORS[-1]:g}x; gravity alone '
        f'{100 * band.gravity_ratio:.0f} % of {bj}\'s {robot.limits.effort_nm[band.joint]:.3g} '
        f'Nm there): raise --max-torque-fraction, or give a --start-pose where {bj} carries '
        'less of the arm')


def _band_note(robot, res, peak, band, where, position_fraction, max_torque_fraction, full_best):
    """One line: the band, the pose, the slowing, the peak and the (weaker) condition number."""
    d = res.trajectory.design
    slow = (f', slowed {d["time_scale"]:g}x (period {res.trajectory.period_s:g} s)'
            if d.get('time_scale') else '')
    return (f'no design in {100 * position_fraction:.0f} % of the ranges stayed within '
            f'{100 * max_torque_fraction:.0f} % of the torque limits (best '
            f'{100 * full_best[1]:.0f} %): band shrunk to {100 * band.fraction:.0f} % of each '
            f'range around {where} ('
            + ', '.join(f'{v:.2f}' for v in band.centre)
            + f' rad; gravity {100 * band.gravity_ratio:.0f} % of '
            f'{robot.joint_names[band.joint]}\'s limit at worst){slow}; peak torque '
            f'{100 * peak:.0f} %, condition number {res.cond:.4g} (full band '
            f'{full_best[0].cond:.4g}): a weaker excitation')


def time_scaled(robot: RobotModel, res: ExcitationResult, factor,
                regressor_options=RegressorOptions()):
    """Return ``res`` run ``factor`` times slower: the same path, period x factor.

    q(t) keeps its values at t x factor (a / factor, b / factor), so the position band and the
    floor stay satisfied; velocities fall by ``factor`` and accelerations by its square, which
    lowers the inertial and Coriolis torque (not gravity). The condition number is recomputed;
    the design records the factor under ``time_scale``.
    """
    tr = res.trajectory
    design = dict(tr.design, time_scale=float(factor), period_designed_s=tr.period_s)
    traj = FourierTrajectory(tr.joint_names, tr.period_s * factor, tr.a / factor,
                             tr.b / factor, tr.q0, design, tr.robot_name)
    cond, logdet = trajectory_measures(robot, traj, regressor_options, res.observation_samples)
    c = dict(res.constraints, velocity_ratio=res.constraints['velocity_ratio'] / factor,
             acceleration_ratio=res.constraints['acceleration_ratio'] / factor ** 2)
    design.update(cond=cond, logdet=logdet, constraints_dense_grid=c)
    return dataclasses.replace(res, trajectory=traj, cond=cond, logdet=logdet, constraints=c)


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
