# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Held-out error of one set of processing options on blocks of the training runs (ROS-free).

Each run is cut into ``FOLDS`` blocks (phase segments of the period across every cycle when the
run is periodic, else contiguous time segments), the fit is made without one block and scored on
it, and the held-out error ``sqrt(sum ||tau - Y beta||^2 / sum ||tau||^2)`` over all blocks
compares the candidates of the option search (identify/selection.py).

Every candidate is scored in the same blocks and on the same rows, picked by one reference velocity
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
and ``FOLDS`` small solves (``FOLDS`` LMI solves for physical consistency).
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
from robot_id_ros.identify.selection_record import FOLDS
from robot_id_ros.identify.trajectories import fit_mask, motion_mask, prepare_trajectory
from robot_id_ros.model.regressor import Regressor

# the effort's noise floor is estimated from its content above this cut-off (Hz; at most
# NOISE_CUTOFF_RATE_FRACTION of the rate), taken as white noise, and subtracted from the held-out
# error: the noise no candidate predicts would else hide their differences from the search's
# MIN_IMPROVEMENT
NOISE_CUTOFF_HZ = 40.0
NOISE_CUTOFF_RATE_FRACTION = 0.25
# the search's trajectories are decimated to at most this many samples in all
SEARCH_MAX_SAMPLES = 6000
# rows within this many periods of the lowest candidate cut-off of a block's edge are in no block
# (the filters smear each sample over about 1 / cut-off)
GUARD_CUTOFF_PERIODS = 0.5


@dataclass
class _Signals:
    """The training runs prepared with one cut-off and velocity source, with their folds.

    trajectories (decimated ``Trajectory`` list, effort as recorded), folds (per run, (N,) block
    index, -1 in a guard band), the cut-off (Hz) each run got; per run the (N, n) noise energy
    of each sample (Nm^2, the noise floor), the (N,) samples of the static holds and the (N, n)
    reference velocity (rad/s) that pick the scored rows (both ``CandidateScorer.reference``).
    """

    trajectories: list
    folds: list
    cutoffs_hz: list
    noise_sq: list
    holds: list
    reference_qd: list


def _folds(tr, k, guard_s):
    """Return the (N,) block index of each sample of ``tr`` (-1: in a guard band).

    Phase blocks across the cycles of a periodic run with at least two cycles, else contiguous
    time blocks.
    """
    N = len(tr)
    t = tr.t_s - tr.t_s[0]
    if tr.period_s and tr.cycles >= 2:
        pos = (t % tr.period_s) / tr.period_s * k
        span = tr.period_s / k
    else:
        pos = np.arange(N) * k / N
        span = (t[-1] if N > 1 else 1.0) / k
    fold = np.minimum(np.floor(pos).astype(int), k - 1)
    frac = pos - np.floor(pos)
    g = min(guard_s / span, 0.25)
    fold[(frac < g) | (frac > 1 - g)] = -1
    return fold


class CandidateScorer:
    """The training runs, the options being searched and the cache of prepared signals."""

    def __init__(self, robot, data, options, stribeck_velocity_rad_s, cutoffs):
        self.robot, self.data, self.base_options = robot, data, options
        self.sweep_vs = stribeck_velocity_rad_s
        low = min([c for c in cutoffs if c] + [options.cutoff_hz or 10.0])
        self.guard_s = GUARD_CUTOFF_PERIODS / low
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
        """Return (the blocks, the reference velocity, the hold rows) of each run of ``trs``.

        On the grid of ``trs``. All from the runs prepared as given (the options' derivative
        method and cut-off) with the velocity from the positions: every candidate is scored in
        the same blocks, on the rows this velocity picks and the holds found in these positions
        (``_hold_rows``), not on its own: found in each candidate's own filtered positions the
        holds would differ between candidates, and picked by its own velocity a lagged candidate
        (encoder differences) would leave the rows where it errs most out of its own score. A
        local filter inside the periods (savgol) would get time blocks where the periodic run
        has phase blocks.

        Returns:
            (per run (N,) block index, -1 in a guard band; per run (N, n) rad/s; per run (N,)
            bool).
        """
        ref = dataclasses.replace(self.base_options, velocity_source='position')
        if key == _signal_key(ref):
            return ([_folds(tr, FOLDS, self.guard_s) for tr in trs], [tr.qd for tr in trs],
                    [_hold_rows(tr, ref) for tr in trs])
        r = self.signals(ref)
        return tuple([_on_grid(x.t_s, v, tr.t_s) for x, v, tr in zip(r.trajectories, col, trs)]
                     for col in (r.folds, [x.qd for x in r.trajectories], r.holds))

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
                       mask=fit_mask(tr, options), stribeck_velocities=grid)
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
                                    score_velocity_rad_s)
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


def _fold_equations(reg, base, sig, options, known_idx, theta_ref, score_velocity_rad_s=None):
    """Return the normal equations of each block, for the fit and for the score.

    The effort is as recorded (the torque filter is not searched). The regressor is evaluated
    once per run. Returns:
        (fit, score, noise): lists of ``FOLDS`` normal equations, and the (FOLDS, n) noise
        energy (Nm^2) of the scored rows: those the reference velocity
        (``CandidateScorer.reference``) keeps at the fit's cut, or at ``score_velocity_rad_s``
        when given, and the static holds' (``_hold_rows``).
    """
    neqs = [NormalEquations.zeros(reg.n, base.n_base) for _ in range(FOLDS)]
    score = [NormalEquations.zeros(reg.n, base.n_base) for _ in range(FOLDS)]
    noise = np.zeros((FOLDS, reg.n))
    for i, (tr, fold) in enumerate(zip(sig.trajectories, sig.folds)):
        W = reg.stack_along(tr.q, tr.qd, tr.qdd)
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
        for k in range(FOLDS):
            neqs[k].add(Wb, Y, keep & (fold == k)[:, None])
            held = fast & (fold == k)[:, None]
            score[k].add(Wb, Y, held)
            noise[k] += np.where(held, sig.noise_sq[i], 0.0).sum(axis=0)
    return neqs, score, noise


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
    """Held-out sums per block and joint (K, n): squared errors, torques, noise energy (Nm^2)."""

    ss: np.ndarray
    yy: np.ndarray
    nn: np.ndarray

    @property
    def error(self) -> float:
        """Return the held-out relative error above the noise floor, all joints together.

        sqrt((sum of squared errors - noise) / (sum of squared torques - noise)).
        """
        ss, yy, nn = self.ss.sum(), self.yy.sum(), self.nn.sum()
        # a floor estimated above the error (signal above the noise cut-off) keeps the order
        return float(np.sqrt(max(ss - nn, 0.01 * ss) / max(yy - nn, 1e-300)))

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
    """Return the ``_HeldOut`` sums of each block and joint, fitted without that block."""
    folds, score, noise = folds
    total = NormalEquations.zeros(reg.n, base.n_base)
    for ne in folds:
        total += ne
    prior = base.to_base(theta_ref) if options.prior_weight > 0 else None
    out = _HeldOut(*(np.zeros((len(folds), reg.n)) for _ in range(3)))
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
    return out
