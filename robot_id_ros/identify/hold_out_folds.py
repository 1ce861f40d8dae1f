# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the option search holds out: whole runs, or regions of the state space (ROS-free).

A model chosen for the motions it has not seen must be scored on data unlike what it was fitted
on. Blocks of time (or of phase) of one periodic run revisit the states the fit saw a moment
before, so they measure the noise, not what leaving the training motion costs. The folds here:

- ``runs``: with at least two training runs, each run is held out whole (leave-one-run-out; with
  more runs than ``MAX_RUN_FOLDS``, run i is in fold i mod ``MAX_RUN_FOLDS``): the fit is made
  on the other runs and scored on one it has not seen a sample of.
- ``velocity regions``: with one run, each joint's rows are cut into ``STATE_FOLDS`` bands of
  that joint's speed |qd| (equal counts, by quantile), slowest to fastest; a fold holds out one
  band of every joint. Every held-out band is a range of speeds the fit never saw in either
  direction: the slowest (the reversals, slow moves and rests) is predicted from faster rows, the
  fastest from slower ones, as another motion at other speeds is. A friction term that only
  bends to the training speeds (a Stribeck column, a smooth sign's scale) loses there. The
  static holds are held out by time block instead (``CandidateScorer.fold_rows``): they tell
  an offset from fc+ / fc-, the same columns in motion.

- ``time blocks``: only where the options cannot be fitted without a speed band (a Stribeck
  column the caller gives lives in the slowest rows), ``TIME_FOLDS`` contiguous blocks of each
  run; the summary says so, since these measure the noise more than other motions.

Every way, every row is held out exactly once, and a fold is a set of (sample, joint) rows:
``(N, n)`` fold indices per run, -1 for rows in no fold.
"""
from __future__ import annotations

import numpy as np

# at most this many folds of whole runs (runs beyond it share folds)
MAX_RUN_FOLDS = 10
# speed bands of each joint with one training run
STATE_FOLDS = 4
# contiguous blocks of each run, where the speed bands cannot be fitted
TIME_FOLDS = 5
HOLD_OUT_RUNS = 'runs'
HOLD_OUT_VELOCITY = 'velocity regions'
HOLD_OUT_TIME = 'time blocks'


def hold_out_kind(n_runs: int) -> str:
    """Return what is held out for ``n_runs`` training runs (``HOLD_OUT_RUNS`` from two)."""
    return HOLD_OUT_RUNS if n_runs >= 2 else HOLD_OUT_VELOCITY


def fold_count(kind: str, n_runs: int) -> int:
    """Return the number of folds of ``kind`` for ``n_runs`` training runs."""
    if kind == HOLD_OUT_RUNS:
        return min(n_runs, MAX_RUN_FOLDS)
    return TIME_FOLDS if kind == HOLD_OUT_TIME else STATE_FOLDS


def run_folds(reference_qd: list) -> list:
    """Return per run the (N, n) fold of each row: the run's index (mod ``MAX_RUN_FOLDS``).

    Args:
        reference_qd: per run the (N, n) velocity (rad/s); only its shape is used.
    """
    k = fold_count(HOLD_OUT_RUNS, len(reference_qd))
    return [np.full(qd.shape, i % k, dtype=int) for i, qd in enumerate(reference_qd)]


def velocity_folds(reference_qd: list, k: int = STATE_FOLDS) -> list:
    """Return per run the (N, n) fold of each row: its joint's speed band.

    The band edges are each joint's speed quantiles over every run, so that the ``k`` bands hold
    equal counts; band 0 is the slowest, band ``k - 1`` the fastest.

    Args:
        reference_qd: per run the (N, n) velocity (rad/s) that places the rows.
        k: the number of bands.
    """
    speed = np.abs(np.concatenate(reference_qd, axis=0))
    edges = np.quantile(speed, np.linspace(0.0, 1.0, k + 1)[1:-1], axis=0)   # (k - 1, n)
    out = []
    for v in reference_qd:
        fold = np.zeros(v.shape, dtype=int)
        for j in range(v.shape[1]):
            fold[:, j] = np.searchsorted(edges[:, j], np.abs(v[:, j]), side='right')
        out.append(fold)
    return out


def time_folds(reference_qd: list, k: int = TIME_FOLDS) -> list:
    """Return per run the (N, n) fold of each row: its contiguous time block (``k`` per run)."""
    out = []
    for v in reference_qd:
        block = np.minimum(np.arange(len(v)) * k // max(len(v), 1), k - 1)
        out.append(np.repeat(block[:, None], v.shape[1], axis=1))
    return out


def describe(kind: str, k: int) -> str:
    """Return how the held-out error was estimated, as the summary and the model file say it."""
    if kind == HOLD_OUT_RUNS:
        return f'leave-one-run-out over the training runs ({k} folds)'
    if kind == HOLD_OUT_TIME:
        return (f'{k} time blocks of each run (the options cannot be fitted without a speed '
                'band: an estimate of the noise more than of other motions)')
    return (f"{k} bands of each joint's speed held out in turn (one training run: fitted on the "
            'other speeds)')
