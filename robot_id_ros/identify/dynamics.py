# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The full dynamic fit (ROS-free).

Base parameters (``BaseParameters``) with friction and optionally rotor inertia and offsets, on
processed trajectories, by OLS or WLS (see ``least_squares``); known standard parameters
subtracted (Swevers eq. 16-18).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from robot_id_ros.identify.least_squares import (LeastSquaresResult, NormalEquations, accumulate,
                                                 free_columns, solve_least_squares,
                                                 structural_base)
from robot_id_ros.identify.options import IdentificationError, IdentificationOptions
from robot_id_ros.identify.payload_friction import LOAD_ITERATIONS
from robot_id_ros.identify.trajectories import fit_mask
from robot_id_ros.model.base_parameters import BaseParameters
from robot_id_ros.model.regressor import Regressor
from robot_id_ros.model.robot import RobotModel

# candidate Stribeck velocities (rad/s) when the Stribeck column's velocity is chosen by the fit
STRIBECK_VELOCITY_GRID_RAD_S = (0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3)


def stribeck_grid(options: IdentificationOptions):
    """Return the Stribeck velocities the fit chooses from: none below the slowest fitted row.

    With the rows below ``min_velocity_rad_s`` left out, a Stribeck velocity below it leaves a
    column of at most exp(-(v_min / v_s)^2) on the fitted rows (0.002 for 0.04 rad/s against
    0.1 rad/s): its coefficient is free, and the model's torque near rest is whatever it came
    to.
    """
    grid = [v for v in STRIBECK_VELOCITY_GRID_RAD_S if v >= options.min_velocity_rad_s]
    return grid or [STRIBECK_VELOCITY_GRID_RAD_S[-1]]


@dataclass
class DynamicsResult:
    """The dynamic fit and what it was made of.

    Regressor (with the chosen Stribeck velocity), base parameters, least squares, standard vector
    theta and its reference (URDF, known values), the known columns, the normal equations, the
    number of samples and the step times (s).
    """

    regressor: Regressor
    base: BaseParameters
    ls: LeastSquaresResult
    theta: np.ndarray
    theta_reference: np.ndarray
    known_idx: np.ndarray
    neq: NormalEquations
    samples: int
    time_s: dict


def _normal_equations(reg, base, trajectories, options, known_idx, theta_ref, grid, progress):
    """Return the normal equations over every trajectory and the total number of samples.

    With ``grid``, a list of normal equations, one per Stribeck velocity of ``grid``.
    """
    neq = NormalEquations.zeros(reg.n, base.n_base)
    neqs = [NormalEquations.zeros(reg.n, base.n_base) for _ in grid] if grid else None
    total = sum(len(tr) for tr in trajectories)
    done = [0]

    def prog(e, N):
        if progress is not None:
            progress(done[0] + e, total)

    for tr in trajectories:
        mask = None
        if options.min_velocity_rad_s > 0:
            mask = fit_mask(tr, options)
        accumulate(reg, base.independent, tr.q, tr.qd, tr.qdd, tr.tau, known_idx,
                   theta_ref[known_idx], options.chunk_samples, neqs if grid else neq, prog, mask,
                   grid if grid else None,
                   tr.regressor_filter, reg.run_drift(tr.t_s))
        done[0] += len(tr)
    return (neqs if grid else neq), total


def slow_equations(reg, base, trajectories, options, known_idx, theta_ref, grid):
    """Return the normal equations of the rows the fit leaves out, one set per ``grid`` point.

    The rows below ``min_velocity_rad_s`` (``motion_mask``) where the joint still slides at
    least at the smooth sign's velocity scale (its Coulomb term at full strength): the slow
    sliding of every reversal, where a Stribeck bump is and where the grid's candidates differ
    (``_best_stribeck_velocity``). None without ``min_velocity_rad_s`` (no rows left out).
    """
    if not options.min_velocity_rad_s > 0:
        return None
    neqs = [NormalEquations.zeros(reg.n, base.n_base) for _ in grid]
    floor = reg.options.sign_velocity_rad_s
    for tr in trajectories:
        fast = fit_mask(tr, options)
        slow = ~fast & (np.abs(tr.qd) >= floor)
        rows = np.flatnonzero(slow.any(axis=1))
        if not len(rows):
            continue
        drift = reg.run_drift(tr.t_s)
        if tr.regressor_filter is None and not reg.options.presliding_rad > 0:
            # only the samples that hold a slow row (a filter along time, or a Dahl state run
            # along the recording, needs the whole run)
            accumulate(reg, base.independent, tr.q[rows], tr.qd[rows], tr.qdd[rows],
                       tr.tau[rows], known_idx, theta_ref[known_idx], options.chunk_samples,
                       neqs, None, slow[rows], grid, None,
                       None if drift is None else drift[rows])
        else:
            accumulate(reg, base.independent, tr.q, tr.qd, tr.qdd, tr.tau, known_idx,
                       theta_ref[known_idx], options.chunk_samples, neqs, None, slow, grid,
                       tr.regressor_filter, drift)
    return neqs


# grid points whose fits explain the torque equally well, within this share of residual RMS (mean
# over the joints), are a tie, because the residual alone cannot separate neighbouring velocities
# and its pick would flip between recordings of one arm (docs/theory.md, "Friction")
STRIBECK_TIE_RELATIVE_RMS = 0.001
# among tied grid points the most likely one stays unless its unscaled condition number is more
# than this factor above the tie's smallest: a few % of conditioning is no reason to move
STRIBECK_TIE_CONDITION_RATIO = 1.5
# a tie is judged by the rows the fit leaves out (``slow_equations``: joints sliding below
# min_velocity_rad_s) where every joint judged has at least this many of them, because the
# candidates' Stribeck bumps differ there and nowhere else; with fewer, the condition rule
STRIBECK_MIN_SLOW_ROWS = 30


def _best_stribeck_velocity(neqs, grid, base, options, slow=None):
    """Return the index in ``grid`` of the Stribeck velocity of the fit.

    The most likely OLS fit (Gaussian, per-joint variances) wins, unless other grid points are
    within ``STRIBECK_TIE_RELATIVE_RMS`` of its residual RMS. Then, with ``slow`` (the left-out
    slow rows' normal equations per grid point, ``slow_equations``) holding at least
    ``STRIBECK_MIN_SLOW_ROWS`` rows of some joint, the one of the tie that predicts those rows
    best (mean over those joints of the log RMS): the fitted rows cannot tell the tie apart,
    the slow rows can. Otherwise the most likely of the tie whose condition number (unscaled)
    is within ``STRIBECK_TIE_CONDITION_RATIO`` of the tie's smallest, so that a difference
    below the noise cannot pick an ill-conditioned fit.
    """
    log_rms, cond, betas = [], [], []
    for ne in neqs:
        try:
            ols = solve_least_squares(ne, 'ols', options.column_scaling, names=list(base.names))
            ss = np.maximum(ne.residual_ss(ols.beta), 1e-300)
            log_rms.append(0.5 * np.log(ss / ne.count))
            cond.append(float(ols.condition_number))
            betas.append(ols.beta)
        except IdentificationError:
            log_rms.append(None)
            cond.append(np.inf)
            betas.append(None)
    counts = neqs[0].count
    scores = [np.inf if lr is None else float(np.sum(2 * counts * lr)) for lr in log_rms]
    best = int(np.argmin(scores))
    if not np.isfinite(scores[best]):
        return best
    ties = [k for k, lr in enumerate(log_rms) if lr is not None
            and float(np.mean(lr - log_rms[best])) <= np.log1p(STRIBECK_TIE_RELATIVE_RMS)]
    judged = None if slow is None else slow[0].count >= STRIBECK_MIN_SLOW_ROWS
    if len(ties) > 1 and judged is not None and judged.any():
        def slow_score(k):
            ss = np.maximum(slow[k].residual_ss(betas[k])[judged], 1e-300)
            return float(np.mean(0.5 * np.log(ss / slow[k].count[judged])))
        return min(ties, key=slow_score)
    well_conditioned = min(cond[k] for k in ties) * STRIBECK_TIE_CONDITION_RATIO
    return min((k for k in ties if cond[k] <= well_conditioned), key=lambda k: scores[k])


def _check_excitation(ls: LeastSquaresResult, base: BaseParameters, options):
    """Raise ``IdentificationError`` naming the unidentifiable groups (weak directions).

    Not when a prior regularises them.
    """
    if ls.weak_directions and not options.prior_weight > 0:
        exprs = dict(zip(base.names, base.expressions()))
        groups = ['{' + ', '.join(exprs[nm] for nm in g) + '}' for g in ls.weak_directions]
        raise IdentificationError(
            f'too little excitation: the data identify only {base.n_base - len(groups)} of '
            f'{base.n_base} base parameters (scaled condition number '
            f'{ls.condition_number_scaled:.3g} > {options.max_condition:g}); unidentifiable '
            f'groups: {"; ".join(groups[:8])}. Use a richer excitation (robot-id '
            'design-excitation; a joint that never moves leaves its friction unidentifiable), '
            'fix them with --known NAME=VALUE, or give a prior toward the URDF (--prior-weight '
            '1)')


def _refit_with_fitted_load(reg, base, trajectories, options, known_idx, theta_ref, theta,
                            prior):
    """Fit again with the load columns' rigid-body torque from the fit before.

    The load columns start from the URDF's rigid-body torque (``Regressor.load_parameters``);
    each refit takes the one fitted before (as the payload fit does, ``payload_friction``), so
    that the model's load coefficients go with its own rigid-body torque, which is what
    ``IdentifiedModel.predict`` gives the term. Returns (normal equations, least squares,
    theta) of the last fit; ``reg`` keeps the load parameters it was made with.
    """
    for _ in range(LOAD_ITERATIONS):
        reg.load_parameters = theta[:reg.n_inertial].copy()
        neq, _ = _normal_equations(reg, base, trajectories, options, known_idx, theta_ref,
                                   None, None)
        ls = solve_least_squares(neq, options.weighting, options.column_scaling, prior,
                                 options.prior_weight, options.confidence,
                                 names=list(base.names), max_condition=options.max_condition)
        _check_excitation(ls, base, options)
        theta = base.to_standard(ls.beta, theta_ref)
    return neq, ls, theta


def identify_dynamics(robot: RobotModel, trajectories, options: IdentificationOptions,
                      progress=None) -> DynamicsResult:
    """Base-parameter fit on processed trajectories (see ``solve_least_squares``).

    With ``options.min_velocity_rad_s`` the rows of slow joints are left out (``motion_mask``).
    With ``options.stribeck_column`` and no ``stribeck_velocity_rad_s``, the Stribeck velocity is
    the one of ``STRIBECK_VELOCITY_GRID_RAD_S`` whose OLS fit has the highest Gaussian likelihood
    (per-joint variances), a near tie judged by the slow rows the fit leaves out
    (``_best_stribeck_velocity``); the regressor of the result carries the chosen velocity.

    Args:
        robot: the model (URDF values are the reference).
        trajectories: the processed ``Trajectory`` list.
        options: structure, weighting, scaling, prior, known parameters, row selection.
        progress: called as ``progress(samples done, total)``.

    Returns:
        The ``DynamicsResult``. Raises ``IdentificationError`` on too little excitation.
    """
    t0 = time.perf_counter()
    reg = Regressor(robot, options.regressor_options())
    grid = None
    if reg.options.stribeck and options.stribeck_velocity_rad_s is None:
        grid = stribeck_grid(options)
    free, known_idx = free_columns(reg, options.known_parameters)
    base = structural_base(reg, free)
    theta_ref = reg.reference_parameters()
    for k, v in options.known_parameters.items():
        theta_ref[reg.names.index(k)] = v
    t1 = time.perf_counter()
    neq, total = _normal_equations(reg, base, trajectories, options, known_idx, theta_ref, grid,
                                   progress)
    c = (neq[0] if grid else neq).count
    if options.min_velocity_rad_s > 0 and c.min() <= base.n_base:
        raise IdentificationError(f'only {int(c.min())} rows left for joint '
                                  f'{int(np.argmin(c)) + 1} after leaving out |qd| < '
                                  f'{options.min_velocity_rad_s:g} rad/s: lower '
                                  'min_velocity_rad_s')
    if grid:
        slow = slow_equations(reg, base, trajectories, options, known_idx, theta_ref, grid)
        k = _best_stribeck_velocity(neq, grid, base, options, slow)
        neq = neq[k]
        reg = Regressor(robot, dataclasses.replace(reg.options,
                                                   stribeck_velocity_rad_s=float(grid[k])))
    t2 = time.perf_counter()
    prior = base.to_base(theta_ref) if options.prior_weight > 0 else None
    ls = solve_least_squares(neq, options.weighting, options.column_scaling, prior,
                             options.prior_weight, options.confidence, names=list(base.names),
                             max_condition=options.max_condition)
    _check_excitation(ls, base, options)
    theta = base.to_standard(ls.beta, theta_ref)
    if reg.load_parameters is not None:
        neq, ls, theta = _refit_with_fitted_load(reg, base, trajectories, options, known_idx,
                                                 theta_ref, theta, prior)
    t3 = time.perf_counter()
    return DynamicsResult(reg, base, ls, theta, theta_ref, known_idx, neq, total,
                          {'base': t1 - t0, 'regressor': t2 - t1, 'solve': t3 - t2,
                           'least_squares_total': t3 - t0})
