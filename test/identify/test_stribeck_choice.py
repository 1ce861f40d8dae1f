# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The Stribeck velocity the fit picks from its grid when the likelihoods are a near tie.

Each grid point is a least-squares problem of its own (the Stribeck column changes with the
velocity). Here three problems of one joint and two parameters with the same torque noise: one
ill-conditioned (nearly collinear columns) that fits the noise 0.05 % better, one well-conditioned,
and one well-conditioned that fits clearly worse. On the youBot demo a difference of a few 0.01 %
flipped between runs of one seed and doubled the condition number of the identified model.
"""
from types import SimpleNamespace

import numpy as np

from robot_id_ros.identify.dynamics import (STRIBECK_MIN_SLOW_ROWS, STRIBECK_TIE_CONDITION_RATIO,
                                            STRIBECK_TIE_RELATIVE_RMS, _best_stribeck_velocity)
from robot_id_ros.identify.least_squares import NormalEquations
from robot_id_ros.identify.options import IdentificationOptions

N = 20000
BASE = SimpleNamespace(names=['a', 'b'])


def _problem(rng, collinearity, noise_scale):
    """Normal equations of y = W beta + e; columns with correlation set by ``collinearity``."""
    x1 = rng.standard_normal(N)
    x2 = collinearity * x1 + np.sqrt(1 - collinearity ** 2) * rng.standard_normal(N)
    W = np.column_stack([x1, x2])
    e = noise_scale * np.random.default_rng(99).standard_normal(N)   # the same noise everywhere
    ne = NormalEquations.zeros(1, 2)
    ne.add(W, (W @ [1.0, 0.5] + e)[:, None])
    return ne


def _cond(ne):
    return np.sqrt(np.linalg.cond(ne.A[0]))


def test_near_tie_goes_to_the_better_conditioned_fit():
    rng = np.random.default_rng(1)
    neqs = [_problem(rng, 0.9995, 0.9995), _problem(rng, 0.3, 1.0), _problem(rng, 0.0, 1.2)]
    assert _cond(neqs[0]) > 30 * _cond(neqs[1])
    # the ill-conditioned problem is the most likely one, by less than the tie margin
    ss = [float(ne.residual_ss(np.linalg.solve(ne.A[0], ne.c[0]))[0]) for ne in neqs]
    assert ss[0] < ss[1] < ss[2]
    assert np.sqrt(ss[1] / ss[0]) - 1 < STRIBECK_TIE_RELATIVE_RMS
    assert _best_stribeck_velocity(neqs, [0.04, 0.05, 0.07], BASE, IdentificationOptions()) == 1


def test_a_clear_likelihood_difference_still_wins_over_conditioning():
    rng = np.random.default_rng(2)
    neqs = [_problem(rng, 0.9995, 0.95), _problem(rng, 0.3, 1.0)]
    ss = [float(ne.residual_ss(np.linalg.solve(ne.A[0], ne.c[0]))[0]) for ne in neqs]
    assert np.sqrt(ss[1] / ss[0]) - 1 > 2 * STRIBECK_TIE_RELATIVE_RMS
    assert _best_stribeck_velocity(neqs, [0.04, 0.05], BASE, IdentificationOptions()) == 0


def test_a_near_tie_of_similar_conditioning_keeps_the_most_likely_fit():
    rng = np.random.default_rng(3)
    neqs = [_problem(rng, 0.3, 1.0), _problem(rng, 0.25, 1.0005)]
    assert _cond(neqs[1]) < _cond(neqs[0]) < STRIBECK_TIE_CONDITION_RATIO * _cond(neqs[1])
    ss = [float(ne.residual_ss(np.linalg.solve(ne.A[0], ne.c[0]))[0]) for ne in neqs]
    assert ss[0] < ss[1] and np.sqrt(ss[1] / ss[0]) - 1 < STRIBECK_TIE_RELATIVE_RMS
    assert _best_stribeck_velocity(neqs, [0.05, 0.07], BASE, IdentificationOptions()) == 0


def _slow_rows(beta, columns_of):
    """The left-out slow rows' normal equations per candidate: y follows the first candidate's
    columns with ``beta``; ``columns_of(x1, x2)`` gives each candidate's columns there (as the
    Stribeck column changes with the grid's velocity)."""
    rng = np.random.default_rng(7)
    x1, x2 = rng.standard_normal(200), rng.standard_normal(200)
    y = np.column_stack(columns_of(x1, x2)[0]) @ beta + 0.01 * rng.standard_normal(200)
    out = []
    for cols in columns_of(x1, x2):
        ne = NormalEquations.zeros(1, 2)
        ne.add(np.column_stack(cols), y[:, None])
        out.append(ne)
    return out


def test_a_near_tie_is_judged_by_the_slow_rows_the_fit_left_out():
    """The ill-conditioned grid point of the first test predicts the left-out slow rows (there
    the candidates' columns differ, and the torque follows its law): it wins the tie that the
    condition rule gives to the better-conditioned one."""
    rng = np.random.default_rng(1)
    neqs = [_problem(rng, 0.9995, 0.9995), _problem(rng, 0.3, 1.0), _problem(rng, 0.0, 1.2)]
    beta0 = np.linalg.solve(neqs[0].A[0], neqs[0].c[0])

    def columns_of(x1, x2):
        return [(x1, x2), (x1, 0.3 * x2), (x1, 0.1 * x2)]
    slow = _slow_rows(beta0, columns_of)
    opts = IdentificationOptions()
    assert _best_stribeck_velocity(neqs, [0.04, 0.05, 0.07], BASE, opts, slow) == 0
    # the slow rows judge only a tie: the clearly worse fit does not win on them
    better_there = _slow_rows(np.linalg.solve(neqs[2].A[0], neqs[2].c[0]),
                              lambda x1, x2: columns_of(x1, x2)[::-1])[::-1]
    assert _best_stribeck_velocity(neqs, [0.04, 0.05, 0.07], BASE, opts, better_there) != 2


def test_too_few_slow_rows_leave_the_tie_to_the_condition_rule():
    rng = np.random.default_rng(1)
    neqs = [_problem(rng, 0.9995, 0.9995), _problem(rng, 0.3, 1.0), _problem(rng, 0.0, 1.2)]
    beta0 = np.linalg.solve(neqs[0].A[0], neqs[0].c[0])
    slow = _slow_rows(beta0, lambda x1, x2: [(x1, x2), (x1, 0.3 * x2), (x1, 0.1 * x2)])
    for ne in slow:
        ne.count[:] = STRIBECK_MIN_SLOW_ROWS - 1
    assert _best_stribeck_velocity(neqs, [0.04, 0.05, 0.07], BASE, IdentificationOptions(),
                                   slow) == 1
