# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Held-out error of one set of processing options on folds of the training runs (ROS-free).

The folds (identify/hold_out_folds.py) are whole runs when several are given, else regions of
each joint's velocity; the fit is made without one fold and scored on it, and the held-out error
``sqrt(sum ||tau - Y beta||^2 / sum ||tau||^2)`` over all folds compares the candidates of the
option search (identify/selection.py), which also weighs each fold's error on its own (the
search's one-standard-error rule).

Every candidate is scored in the same folds and on the same rows, picked by one reference velocity
(the positions' derivative with the options as given; ``CandidateScorer.reference``), those of
joints at least as fast as the stick-slip speed read from the runs (identify/stick_slip.py) where
a friction model can predict the torque, when that speed is above 0 and at most the largest cut
candidate (a slow-row misfit above that is taken for model error, not stick-slip), and the static
holds found in the runs (``_hold_rows``): a resting joint's torque is gravity and the friction
offset, and the rests tell apart what the fast rows cannot (under a sharp sign an offset and an
asymmetric Coulomb term are the same columns in motion; slow rows left out lose the rests with
them). The error is measured above the effort's noise floor (content above ``NOISE_CUTOFF_HZ``,
taken as white noise) so that noise does not hide differences.

The LMI problem of physical consistency is compiled once per structure and solved again per fold
(identify/consistency.py). The signals are prepared once per cut-off and velocity source and
decimated to at most ``SEARCH_MAX_SAMPLES`` samples; each candidate costs one regressor evaluation
and one small solve per fold (one LMI solve per fold for physical consistency).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

import robot_id_ros.signals as signals
from robot_id_ros.identify.consistency import physically_consistent_fit
from robot_id_ros.identify.dynamics import (DynamicsResult, _best_stribeck_velocity,
                                            _check_excitation, slow_equations, stribeck_grid)
from robot_id_ros.identify.holds import find_holds
from robot_id_ros.identify.least_squares import (NormalEquations, accumulate, free_columns,
                                                 solve_least_squares, structural_base)
from robot_id_ros.identify.hold_out_folds import (HOLD_OUT_RUNS, HOLD_OUT_TIME, fold_count,
                                                  hold_out_kind, run_folds, time_folds,
                                                  velocity_folds)
from robot_id_ros.identify.trajectories import fit_mask, motion_mask, prepare_trajectory
from robot_id_ros.model.regressor import Regressor

# the effort's noise floor is estimated from its content above this cut-off (Hz; at most
# NOISE_CUTOFF_RATE_FRACTION of the rate), taken as white noise, and subtracted from the held-out
# error: the noise no candidate predicts would else hide their differences from the search's
# MIN_IMPROVEMENT
NOISE_CUTOFF_HZ = 40.0
NOISE_CUTOFF_RATE_FRACTION = 0.25
# each run's scored rows of each fold are cut into this many time segments: the units whose
# spread gives the standard error of a difference between two candidates (identify/selection.py)
_UNIT_SEGMENTS = 4
# the search's trajectories are decimated to at most this many samples in all
SEARCH_MAX_SAMPLES = 6000


@dataclass
class _Signals:
    """The training runs prepared with one cut-off and velocity source, with their folds.

    trajectories (decimated ``Trajectory`` list, effort as recorded), folds (per run, (N, n)
    fold of each row, ``CandidateScorer.fold_rows``), the cut-off (Hz) each run got; per run
    the (N, n) noise energy of each sample (Nm^2, the noise floor), the (N,) samples of the
    static holds and the (N, n) reference velocity (rad/s) that pick the scored rows (both
    ``CandidateScorer.reference``).
    """

    trajectories: list
    folds: list
    cutoffs_hz: list
    noise_sq: list
    holds: list
    reference_qd: list


class CandidateScorer:
    """The training runs, the options being searched and the cache of prepared signals."""

    def __init__(self, robot, data, options, stribeck_velocity_rad_s, cutoffs):
        self.robot, self.data, self.base_options = robot, data, options
        self.sweep_vs = stribeck_velocity_rad_s
        low = min([c for c in cutoffs if c] + [options.cutoff_hz or 10.0])
        # what is held out (identify/hold_out_folds.py): whole runs when there are several
        self.hold_out = hold_out_kind(len(data))
        self.n_folds = fold_count(self.hold_out, len(data))
        # one trim for every candidate, so that all are scored on the same samples
        self.trim_s = options.trim_s if options.trim_s is not None else 1.0 / low
        self.cache = {}
        self.bases = {}       # structural base per regressor structure
        self.equations = {}   # per-block normal equations per (signals, structure)
        self.scores = {}      # held-out error per (signals, structure, weighting, consistency)
        self.samples = 0
        self.score_velocity_rad_s = None   # the rows scored: joints at least this fast
        self.pass_index = 1   # the greedy pass the candidates are scored in

    def signals(self, options) -> _Signals:
        """Return the runs prepared with ``options``' cut-off and velocity source (cached)."""
        key = _signal_key(options)
        if key not in self.cache:
            opts = dataclasses.replace(options, trim_s=self.trim_s, max_samples=None,
                                       torque_filter=False)
            trs = [_trimmed(prepare_trajectory(s, opts, sc, self.robot), self.trim_s)
                   for s, sc in self.data]
            total = sum(len(tr) for tr in trs)
            m = [max(int(SEARCH_MAX_SAMPLES * len(tr) / total), 100) for tr in trs]
            noise = [_noise_energy(tr).decimated(k).tau for tr, k in zip(trs, m)]
            trs = [tr.decimated(k) for tr, k in zip(trs, m)]
            self.samples = sum(len(tr) for tr in trs)
            folds, ref_qd, holds = self.reference(key, trs)
            self.cache[key] = _Signals(trs, folds, [tr.cutoff_hz for tr in trs], noise, holds,
                                       ref_qd)
        return self.cache[key]

    def reference(self, key, trs):
        """Return (the folds, the reference velocity, the hold rows) of each run of ``trs``.

        On the grid of ``trs``. All from the runs prepared as given (the options' derivative
        method and cut-off) with the velocity from the positions: every candidate is scored in
        the same folds, on the rows this velocity picks and the holds found in these positions
        (``_hold_rows``), not on its own: found in each candidate's own filtered positions the
        holds would differ between candidates, and picked by its own velocity a lagged candidate
        (encoder differences) would leave the rows where it errs most out of its own score, and
        placed by its own velocity each candidate would hold out other rows.

        Returns:
            (per run (N, n) fold index; per run (N, n) rad/s; per run (N,) bool).
        """
        ref = dataclasses.replace(self.base_options, velocity_source='position')
        if key == _signal_key(ref):
            qd = [tr.qd for tr in trs]
            holds = [_hold_rows(tr, ref) for tr in trs]
            return (self.fold_rows(qd, holds), qd, holds)
        r = self.signals(ref)
        return tuple([_on_grid(x.t_s, v, tr.t_s) for x, v, tr in zip(r.trajectories, col, trs)]
                     for col in (r.folds, [x.qd for x in r.trajectories], r.holds))

    def fold_rows(self, reference_qd, holds):
        """Return per run the (N, n) fold of each row, by ``self.hold_out``.

        Held out by speed, the static holds (``holds``: per run (N,) bool) are held out by time
        block instead: at rest a joint's torque is gravity and its offset, which tells the
        offset from fc+ / fc- (the same columns in motion); in the slowest band every fit would
        lose them.
        """
        if self.hold_out == HOLD_OUT_RUNS:
            return run_folds(reference_qd)
        times = time_folds(reference_qd, self.n_folds)
        if self.hold_out == HOLD_OUT_TIME:
            return times
        folds = velocity_folds(reference_qd, self.n_folds)
        for f, t, h in zip(folds, times, holds):
            f[h] = t[h]
        return folds

    def use_hold_out(self, kind):
        """Hold out ``kind`` (identify/hold_out_folds.py) instead: the folds could not be fitted.

        Forgets every prepared signal and score, which were made for the other folds.
        """
        self.hold_out, self.n_folds = kind, fold_count(kind, len(self.data))
        self.cache, self.equations, self.scores = {}, {}, {}

    def stribeck_velocity(self, options, reg, base, sig):
        """Return the Stribeck velocity (rad/s) of the column: given, the sweeps', else fitted."""
        if options.stribeck_velocity_rad_s is not None:
            return options.stribeck_velocity_rad_s
        if self.sweep_vs is not None:
            return self.sweep_vs
        grid = stribeck_grid(options)
        neqs = [NormalEquations.zeros(reg.n, base.n_base) for _ in grid]
        for tr in sig.trajectories:
            accumulate(reg, base.independent, tr.q, tr.qd, tr.qdd, tr.tau, chunk=4000, neq=neqs,
                       mask=fit_mask(tr, options), stribeck_velocities=grid,
                       drift=reg.run_drift(tr.t_s))
        # a near tie judged as the final fit judges it (by the slow rows the fit leaves out)
        none = np.zeros(0, dtype=int)
        slow = slow_equations(reg, base, sig.trajectories, options, none,
                              reg.reference_parameters(), grid)
        return float(grid[_best_stribeck_velocity(neqs, grid, base, options, slow)])

    def base(self, reg, options):
        """Return (base parameters, known column indices) of ``reg`` (cached per structure)."""
        key = (repr(reg.options), tuple(sorted(options.known_parameters)))
        if key not in self.bases:
            free, known_idx = free_columns(reg, options.known_parameters)
            self.bases[key] = (structural_base(reg, free), known_idx)
        return self.bases[key]

    def errors(self, options, weightings=None, consistent=None, score_velocity_rad_s=None,
               per_joint=False):
        """Held-out relative error of ``options`` for each weighting / consistency asked.

        Held-out rows: joints at least the search's, else the argument's, score velocity fast,
        else the fit's (``min_velocity_rad_s``).

        Returns:
            {(weighting, physical_consistency): error}; with ``per_joint`` the ``_HeldOut``
            sums in place of the error.
        """
        if self.score_velocity_rad_s is not None:
            score_velocity_rad_s = self.score_velocity_rad_s
        sig = self.signals(options)
        reg = Regressor(self.robot, options.regressor_options())
        key = (_signal_key(options), repr(reg.options), options.min_velocity_rad_s,
               score_velocity_rad_s)
        if key in self.equations:
            reg, folds = self.equations[key]
        else:
            if reg.options.stribeck:
                vs = self.stribeck_velocity(options, reg, self.base(reg, options)[0], sig)
                reg = Regressor(self.robot, dataclasses.replace(reg.options,
                                                                stribeck_velocity_rad_s=vs))
            folds = None
        base, known_idx = self.base(reg, options)
        theta_ref = reg.reference_parameters()
        for k, v in options.known_parameters.items():
            theta_ref[reg.names.index(k)] = v
        if folds is None:
            folds = _fold_equations(reg, base, sig, options, known_idx, theta_ref,
                                    self.n_folds, score_velocity_rad_s)
            self.equations[key] = (reg, folds)
        out = {}
        for w in weightings or (options.weighting,):
            for pc in consistent or (options.physical_consistency,):
                # the current choice is scored again as the first candidate of each dimension
                if key + (w, pc) not in self.scores:
                    self.scores[key + (w, pc)] = _held_out_error(
                        folds, reg, base, options, w, pc, known_idx, theta_ref)
                held = self.scores[key + (w, pc)]
                out[(w, pc)] = held if per_joint else held.error
        return out


def _signal_key(options):
    """Return the options that make the prepared signals."""
    return (options.derivative_method, options.sidecar_window, options.cutoff_hz,
            options.velocity_source)


def _on_grid(t_ref, x, t_s):
    """Return ``x`` (rows at times ``t_ref``) at the times ``t_s``: the nearest row's values."""
    if len(t_ref) == len(t_s) and np.allclose(t_ref, t_s):
        return x
    i = np.clip(np.searchsorted(t_ref, t_s), 1, len(t_ref) - 1)
    i -= (t_s - t_ref[i - 1]) < (t_ref[i] - t_s)
    return x[i]


def _noise_energy(tr):
    """Return ``tr`` with, in place of its effort, each sample's noise energy (Nm^2).

    The effort's content above ``NOISE_CUTOFF_HZ`` squared, scaled to the whole band as white
    noise.
    """
    fn = min(NOISE_CUTOFF_HZ, NOISE_CUTOFF_RATE_FRACTION * tr.rate_hz)
    hf = tr.tau - signals.lowpass_zero_phase(tr.tau, tr.rate_hz, fn)
    return dataclasses.replace(tr, tau=hf ** 2 / (1.0 - 2.0 * fn / tr.rate_hz))


def _trimmed(tr, trim_s):
    """Return a periodic ``tr`` without ``trim_s`` at both ends (as the other methods trim)."""
    k = min(int(round(trim_s * tr.rate_hz)), len(tr) // 10)
    if tr.method != 'periodic' or k == 0:
        return tr
    s = slice(k, len(tr) - k)
    return dataclasses.replace(tr, t_s=tr.t_s[s], q=tr.q[s], qd=tr.qd[s], qdd=tr.qdd[s],
                               tau=tr.tau[s])


def _fold_equations(reg, base, sig, options, known_idx, theta_ref, n_folds,
                    score_velocity_rad_s=None):
    """Return the normal equations of each fold, for the fit and for the score.

    The effort is as recorded (the torque filter is not searched). The regressor is evaluated
    once per run. Returns:
        (fit, score, noise, units): lists of ``n_folds`` normal equations, the (n_folds, n)
        noise energy (Nm^2) of the scored rows: those the reference velocity
        (``CandidateScorer.reference``) keeps at the fit's cut, or at ``score_velocity_rad_s``
        when given, and the static holds' (``_hold_rows``); and per fold the scored rows'
        equations per time segment (``_UNIT_SEGMENTS`` of each run), every joint together,
        plain and each joint weighed by its noise (the units of the search's standard error).
    """
    neqs = [NormalEquations.zeros(reg.n, base.n_base) for _ in range(n_folds)]
    score = [NormalEquations.zeros(reg.n, base.n_base) for _ in range(n_folds)]
    noise = np.zeros((n_folds, reg.n))
    runs = []
    for i, (tr, fold) in enumerate(zip(sig.trajectories, sig.folds)):
        W = reg.stack_along(tr.q, tr.qd, tr.qdd, tr.t_s)
        known = (W[:, known_idx] @ theta_ref[known_idx]).reshape(tr.tau.shape) if len(
            known_idx) else 0.0
        Y = tr.tau - known
        Wb = W[:, base.independent]
        keep = fit_mask(tr, options)
        # the scored rows by the reference velocity: the same rows for every candidate
        fast = motion_mask(sig.reference_qd[i], tr.rate_hz,
                           options.min_velocity_rad_s if score_velocity_rad_s is None
                           else score_velocity_rad_s, options.min_velocity_scope,
                           options.min_velocity_margin_s)
        fast = fast | sig.holds[i][:, None]
        for k in range(n_folds):
            neqs[k].add(Wb, Y, keep & (fold == k))
            held = fast & (fold == k)
            score[k].add(Wb, Y, held)
            noise[k] += np.where(held, sig.noise_sq[i], 0.0).sum(axis=0)
        runs.append((Wb, Y, fast, fold))
    total_noise = noise.sum(axis=0)
    weights = np.where(total_noise > 0, 1.0 / np.where(total_noise > 0, total_noise, 1.0), 0.0)
    units = [(_Units.zeros(base.n_base), _Units.zeros(base.n_base)) for _ in range(n_folds)]
    for Wb, Y, fast, fold in runs:
        segment = np.minimum(np.arange(len(Y)) * _UNIT_SEGMENTS // len(Y), _UNIT_SEGMENTS - 1)
        for k in range(n_folds):
            plain, weighted = units[k]
            plain.add(Wb, Y, fast & (fold == k), segment, np.ones(reg.n))
            weighted.add(Wb, Y, fast & (fold == k), segment, weights)
    return neqs, score, noise, units


@dataclass
class _Units:
    """Normal equations per time segment of the scored rows of one fold, joints summed.

    A (S, b, b), c (S, b), yy (S,), count (S,): segment s's rows of every joint, each joint's
    rows weighed by its weight (``add``).
    """

    A: np.ndarray
    c: np.ndarray
    yy: np.ndarray
    count: np.ndarray

    @classmethod
    def zeros(cls, b):
        """Empty sums of ``b`` parameters over ``_UNIT_SEGMENTS`` segments."""
        S = _UNIT_SEGMENTS
        return cls(np.zeros((S, b, b)), np.zeros((S, b)), np.zeros(S), np.zeros(S, dtype=int))

    def add(self, Wb, Y, mask, segment, weights):
        """Add rows: Wb (N*n, b) sample-major, Y (N, n), mask (N, n), segment (N,), (n,)."""
        n = Y.shape[1]
        W3 = Wb.reshape(-1, n, Wb.shape[1])
        for j in range(n):
            for s in range(_UNIT_SEGMENTS):
                rows = mask[:, j] & (segment == s)
                if not rows.any():
                    continue
                Wj, yj = W3[rows, j, :], Y[rows, j]
                self.A[s] += weights[j] * (Wj.T @ Wj)
                self.c[s] += weights[j] * (Wj.T @ yj)
                self.yy[s] += weights[j] * (yj @ yj)
                self.count[s] += len(yj)

    def residual_ss(self, beta):
        """Return each segment's (weighted) residual sum of squares at ``beta``."""
        return np.maximum(self.yy - 2 * self.c @ beta
                          + np.einsum('i,sik,k->s', beta, self.A, beta), 0.0)


def _hold_rows(tr, options):
    """Return (N,) bool: the samples of the static holds found in ``tr`` (every joint at rest).

    Found from the positions (identify/holds.py, with the static poses' thresholds), each hold
    without its ends (settling, the next move).
    """
    found = find_holds(tr.t_s, tr.q, options.static_min_duration_s,
                       options.static_velocity_threshold_rad_s)
    rows = np.zeros(len(tr), dtype=bool)
    for idx, _ in found.holds:
        rows[idx] = True
    return rows


def _minus(a: NormalEquations, b: NormalEquations) -> NormalEquations:
    """Return the normal equations of a's rows without b's."""
    return NormalEquations(a.A - b.A, a.c - b.c, a.yy - b.yy, a.count - b.count)


@dataclass
class _HeldOut:
    """Held-out sums per fold and joint (K, n): squared errors, torques, noise energy (Nm^2).

    And the squared errors per unit (fold and time segment, every joint together), whose spread
    is the noise of a difference between two candidates scored on the same rows.
    """

    ss: np.ndarray
    yy: np.ndarray
    nn: np.ndarray
    units: np.ndarray = None            # (units,) squared errors per fold and time segment
    weighted_units: np.ndarray = None   # the same, each joint's over its noise
    unit_count: np.ndarray = None       # (units,) rows in each

    @property
    def error(self) -> float:
        """Return the held-out relative error above the noise floor, all joints together.

        sqrt((sum of squared errors - noise) / (sum of squared torques - noise)).
        """
        ss, yy, nn = self.ss.sum(), self.yy.sum(), self.nn.sum()
        # a floor estimated above the error (signal above the noise cut-off) keeps the order
        return float(np.sqrt(max(ss - nn, 0.01 * ss) / max(yy - nn, 1e-300)))

    def raw_fold_errors(self) -> np.ndarray:
        """Return each fold's held-out ||e|| / ||tau||, noise included (NaN: no torque)."""
        ss, yy = self.ss.sum(axis=1), self.yy.sum(axis=1)
        with np.errstate(invalid='ignore', divide='ignore'):
            return np.where(yy > 0, np.sqrt(ss / yy), np.nan)

    @property
    def raw_error(self) -> float:
        """Return the held-out ||e|| / ||tau|| over every fold, noise included."""
        return float(np.sqrt(self.ss.sum() / max(self.yy.sum(), 1e-300)))

    def noise_weighted(self) -> float | None:
        """Return the RMS over joints of each joint's held-out model error / its noise.

        sqrt(mean_j (ss_j - nn_j) / nn_j): every joint counts by its own noise, as a weighted
        fit counts it, where ``error`` counts Nm (the big joints). None when a joint's noise
        energy is not positive (no noise estimate to weigh by).
        """
        ss, nn = self.ss.sum(axis=0), self.nn.sum(axis=0)
        if np.any(nn <= 0):
            return None
        return float(np.sqrt(np.mean(np.maximum(ss - nn, 0.01 * ss) / nn)))


def _held_out_error(folds, reg, base, options, weighting, consistent, known_idx, theta_ref):
    """Return the ``_HeldOut`` sums of each fold and joint, fitted without that fold."""
    folds, score, noise, units = folds
    total = NormalEquations.zeros(reg.n, base.n_base)
    for ne in folds:
        total += ne
    prior = base.to_base(theta_ref) if options.prior_weight > 0 else None
    out = _HeldOut(*(np.zeros((len(folds), reg.n)) for _ in range(3)),
                   *(np.zeros((len(folds), _UNIT_SEGMENTS)) for _ in range(3)))
    for k, (ne, held, held_noise) in enumerate(zip(folds, score, noise)):
        if held.count.sum() == 0:
            continue
        train = _minus(total, ne)
        ls = solve_least_squares(train, weighting, options.column_scaling, prior,
                                 options.prior_weight, options.confidence,
                                 names=list(base.names), max_condition=options.max_condition)
        # a candidate the final fit could not make fails here too (identify_dynamics' check):
        # the search chose an asymmetric Coulomb term and an offset with the rests left out
        _check_excitation(ls, base, options)
        beta = ls.beta
        if consistent:
            theta = base.to_standard(ls.beta, theta_ref)
            dyn = DynamicsResult(reg, base, ls, theta, theta_ref, known_idx, train,
                                 int(train.count.max()), {})
            beta = physically_consistent_fit(dyn).beta
        out.ss[k], out.yy[k], out.nn[k] = held.residual_ss(beta), held.yy, held_noise
        plain, weighted = units[k]
        out.units[k], out.weighted_units[k] = plain.residual_ss(beta), weighted.residual_ss(beta)
        out.unit_count[k] = plain.count
    out.units, out.weighted_units, out.unit_count = (
        x.ravel() for x in (out.units, out.weighted_units, out.unit_count))
    return out
