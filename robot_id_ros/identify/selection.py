# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Processing options chosen from the data by blocked cross-validation (ROS-free).

The options a caller did not give (derivative cut-off, velocity source, weighting, friction
structure, physical consistency) are chosen on the training runs alone: each run is cut into
``FOLDS`` blocks (phase segments of the period across every cycle when the run is periodic, else
contiguous time segments), the fit is made without one block and scored on it, and the held-out
error ``sqrt(sum ||tau - Y beta||^2 / sum ||tau||^2)`` over all blocks compares the candidates.

Every candidate is scored in the same blocks and on the same rows, picked by one reference velocity
(the positions' derivative with the options as given; ``_Search.reference``), those of joints at
least as fast as the stick-slip speed read from the runs (identify/stick_slip.py) where a friction
model can predict the torque, when that speed is above 0 and at most the largest cut candidate (a
slow-row misfit above that is taken for model error, not stick-slip), and the static holds found in
the runs (``_hold_rows``): a resting joint's torque is gravity and the friction offset, and the
rests tell apart what the fast rows cannot (under a sharp sign an offset and an asymmetric Coulomb
term are the same columns in motion; slow rows left out lose the rests with them). Scored without
the holds, every cut and both Coulomb structures tied on an exact-sign UR5 and Z1, and the offset
was lost (held-out error up to 1.48x the true model's). The error is measured above the effort's
noise floor (content above ``NOISE_CUTOFF_HZ``, taken as white noise) so that noise does not hide
differences.

The search is greedy, one dimension at a time, over a few candidates each: slow rows left out (with
stick-slip read, each cut with and without the Stribeck column, and with the slow rows kept the
other Coulomb structure, symmetric or not; with the slow rows kept, each velocity scale of the
Coulomb term's smooth sign), derivative method and cut-off, velocity source,
weighting (from the same normal equations, judged by each joint's held-out model error over its own
noise, RMS over the joints: summed in Nm, OLS won on a synthetic Panda by 1 % and put its joints 5
and 7 at 1.03x / 1.28x the noise on another trajectory, WLS at 1.01x / 1.01x), friction structure
(one toggle at a time, then the smooth sign's velocity scale again, then a presliding Coulomb
law), physical consistency. The
torque filter is not searched: it is a parallel filter (the effort and every regressor column
through the same low-pass, ``Trajectory.lowpassed_like_torque``), which changes the fit little on
white noise; searched as an effort-only filter, it won 3 % of held-out error inside the training
run of a synthetic Panda and cost its joints 5 and 7 1.75x / 1.38x the noise on another trajectory,
and it was never chosen on the real Panda or LWR4+. A torque filter the caller gives is applied to
the final fit only; the candidates are scored without it. A candidate replaces the
current choice only when it lowers the held-out error by more than ``MIN_IMPROVEMENT``; then the
lowest wins, or of those within ``MIN_IMPROVEMENT`` of it the one with the fewest friction
columns. A pass that switches physical consistency (chosen last) is followed by another (at most
``MAX_PASSES``), so that the other options are chosen for the fit that is made, e.g. the derivative
cut-off for a physically consistent fit; that pass starts every other option again from its
default, so that a choice made for the other fit does not keep the incumbent's ``MIN_IMPROVEMENT``
margin (on the real LWR4+ the first pass left slow rows out for the unconstrained fit, and that
choice, within 1 % under the constraint, survived it). The LMI problem of physical consistency is
compiled once per structure and solved again per fold (identify/consistency.py). The signals are
prepared once per cut-off and velocity source and decimated to at most ``SEARCH_MAX_SAMPLES``
samples; each candidate costs one regressor evaluation and ``FOLDS`` small solves (``FOLDS`` LMI
solves for physical consistency).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

import robot_id_ros.signals as signals
from robot_id_ros.identify.consistency import physically_consistent_fit
from robot_id_ros.identify.dynamics import (DynamicsResult, _best_stribeck_velocity,
                                            _check_excitation, slow_equations, stribeck_grid)
from robot_id_ros.identify.holds import find_holds
from robot_id_ros.identify.least_squares import (NormalEquations, accumulate, free_columns,
                                                 solve_least_squares, structural_base)
from robot_id_ros.identify.options import IdentificationError, IdentificationOptions
from robot_id_ros.identify.selection_record import FOLDS, Candidate, Selection
from robot_id_ros.identify.stick_slip import prepared_stick_slip
from robot_id_ros.identify.trajectories import (MAX_CUTOFF_RATE_FRACTION, fit_mask,
                                                motion_mask, prepare_trajectory)
from robot_id_ros.model.regressor import Regressor

# the options the search may choose; a caller giving one fixes it
SEARCHED = ('min_velocity_rad_s', 'derivative_method', 'cutoff_hz', 'velocity_source',
            'weighting', 'offset', 'coulomb_asymmetric', 'rotor_inertia',
            'stribeck_column', 'sign_velocity_rad_s', 'presliding_rad', 'physical_consistency')
# the friction-structure toggles, in the order they are tried
STRUCTURE = ('offset', 'coulomb_asymmetric', 'rotor_inertia', 'stribeck_column')
# candidates (rad/s) of the velocity scale of the Coulomb term's smooth sign tanh(qd / v),
# besides the default (SIGN_VELOCITY_RAD_S_DEFAULT): friction that turns over smoothly near zero
# velocity (lubricated gears, simulators' laws) fits a wider scale, an exact sign a narrow one
SIGN_VELOCITY_GRID_RAD_S = (0.002, 0.005, 0.02, 0.05, 0.1)
# candidates (rad) of the Coulomb term's presliding (Dahl) displacement, besides none (0): friction
# that builds up with the travel after a reversal (harmonic drives). On the real LWR4+ (trained on
# run 1, physically consistent fit) 2 mrad took run 2 from 2.21 to 2.01 % and run 3 from 6.30 to
# 5.59 % (benchmarks/bench_presliding_friction_lwr4.py). It is tried with the friction structure,
# not also beside the slow-row cuts (as the sign velocity is): there, on the LWR4+, it made the
# unconstrained fit win the first pass (run 2 2.11 %, run 3 12.4 %; from the structure:
# 2.01 / 5.32)
PRESLIDING_GRID_RAD = (0.001, 0.002, 0.004)
# a chosen presliding displacement is then refined by these factors, each way in turn: q0 matters
# within +-30 % (a synthetic youBot with q0 = 3 mrad: 1.20x the noise on a held-out run at the
# 4 mrad grid point, 1.00x at 3 mrad)
PRESLIDING_REFINE_FACTORS = (2 ** 0.5, 2 ** 0.25)
# derivative cut-off candidates (Hz), besides the built-in default (None); those above
# MAX_CUTOFF_RATE_FRACTION of the sample rate are left out
CUTOFF_GRID_HZ = (2.0, 5.0, 10.0, 20.0, 40.0)
# candidates (rad/s) of the cut below which a joint's rows are left out of the fit, besides the
# stick-slip speed read from the runs when in (0, the largest]; see the module docstring. Without
# it the cuts are scored on the rows of SCORE_VELOCITY_RAD_S, the others on the rows they fit
MIN_VELOCITY_GRID_RAD_S = (0.0, 0.02, 0.05, 0.1)
SCORE_VELOCITY_RAD_S = 0.0
# the effort's noise floor is estimated from its content above this cut-off (Hz; at most
# NOISE_CUTOFF_RATE_FRACTION of the rate), taken as white noise, and subtracted from the held-out
# error: the noise no candidate predicts would else hide their differences from MIN_IMPROVEMENT
NOISE_CUTOFF_HZ = 40.0
NOISE_CUTOFF_RATE_FRACTION = 0.25
# the search's trajectories are decimated to at most this many samples in all
SEARCH_MAX_SAMPLES = 6000
# at most this many greedy passes over every dimension. Physical consistency, chosen last,
# changes the fit most (a constraint on every parameter): when a pass switches it, the next pass
# chooses every other option again for the constrained (or unconstrained) fit
MAX_PASSES = 2
# a candidate replaces the current choice when its held-out error is lower by this fraction
MIN_IMPROVEMENT = 0.01
# rows within this many periods of the lowest candidate cut-off of a block's edge are in no block
# (the filters smear each sample over about 1 / cut-off)
GUARD_CUTOFF_PERIODS = 0.5


def given_fields(options: IdentificationOptions) -> list:
    """Return the searched options whose value differs from the declared default.

    What a caller that passes options (not flags) is taken to have given.
    """
    default = IdentificationOptions()
    return [k for k in SEARCHED if getattr(options, k) != getattr(default, k)]


@dataclass
class _Signals:
    """The training runs prepared with one cut-off and velocity source, with their folds.

    trajectories (decimated ``Trajectory`` list, effort as recorded), folds (per run, (N,) block
    index, -1 in a guard band), the cut-off (Hz) each run got; per run the (N, n) noise energy
    of each sample (Nm^2, the noise floor), the (N,) samples of the static holds and the (N, n)
    reference velocity (rad/s) that pick the scored rows (both ``_Search.reference``).
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


class _Search:
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
        (``_hold_rows``), not on its own. Found in each candidate's own filtered positions, the
        holds of a 2 Hz cut-off differed in 20 / 8 / 2 of about 126 rows on the synthetic UR5 /
        Z1 / Kinova (seed 1). Picked by their own, the candidates were
        scored on different rows: on an exact-sign Z1 the measured velocity (encoder
        differences, lagged) left the rows just after each reversal, where its lag errs most,
        out of its own score and won by 26 % (0.192 against 0.259 %) while it was worse on every
        joint on the rows in common (held-out J6 1.75x the true model's; 0.95x from the
        positions). A local filter inside the periods (savgol) got time blocks where the
        periodic run had phase blocks.

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
        energy (Nm^2) of the scored rows: those the reference velocity (``_Search.reference``)
        keeps at the fit's cut, or at ``score_velocity_rad_s`` when given, and the static
        holds' (``_hold_rows``).
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


def _try(search, options, **kw):
    """Score ``options``: ({key: error}, '', None) or ({}, why it failed, the error).

    ``kw`` as ``_Search.errors`` takes them (``per_joint``: ``_HeldOut`` in place of errors).
    """
    try:
        return search.errors(options, **kw), '', None
    except IdentificationError as exc:
        return {}, str(exc).split(';')[0][:80], exc


def _better(err, best):
    """Return True when ``err`` beats ``best`` by more than ``MIN_IMPROVEMENT``."""
    return err is not None and (best is None or err < best * (1.0 - MIN_IMPROVEMENT))


def _choose(search, cands, dimension, cur, variants, **kw):
    """Score each of ``variants`` (dicts of settings; the first is the current choice).

    Returns:
        (options with the chosen variant, its held-out error).
    """
    scored, first = [], None
    for v in variants:
        opts = dataclasses.replace(cur, **v)
        errs, note, exc = _try(search, opts, **kw)
        first = first or exc
        e = errs.get((opts.weighting, opts.physical_consistency))
        cands.append(Candidate(dimension, v, e, note, pass_index=search.pass_index))
        scored.append((e, cands[-1], opts))
    return _pick(scored, first)


def _pick(scored, first=None):
    """Return (options, error) of the best of ``scored`` [(error, candidate, options)].

    Raises ``first`` (the first candidate's error) when no candidate could be fitted.

    The first (the current choice) stays unless the lowest error beats it by
    ``MIN_IMPROVEMENT``. Then, of the candidates the lowest does not beat by that margin (a tie
    the held-out data cannot settle), the one with the fewest friction columns (``_columns``)
    wins, the lowest error among those. On an exact-sign UR5 the Stribeck column tied
    (0.141 % with and without) and, taken by the lowest error, put J1 and J6 at 1.06x the true
    model's held-out error (0.97x without it).
    """
    best = scored[0]
    ok = [item for item in scored if item[0] is not None]
    low = min(ok, key=lambda item: item[0]) if ok else best
    if _better(low[0], best[0]):
        ties = [item for item in ok if not _better(low[0], item[0])]
        best = min(ties, key=lambda item: (_columns(item[2]), item[0]))
    if best[0] is None and first is not None:
        raise first
    if best[0] is None:
        raise IdentificationError('cross-validation: no candidate could be fitted on the '
                                  'training blocks; give the processing options (e.g. '
                                  '--no-auto-options)')
    best[1].chosen = True
    return best[2], best[0]


def _columns(options):
    """Return the friction columns per joint that ``options`` add to Coulomb and viscous.

    The ``STRUCTURE`` toggles set (offset, fc- apart from fc+, rotor inertia, Stribeck term),
    and the presliding law.
    """
    toggles = sum(bool(getattr(options, name)) for name in STRUCTURE)
    return toggles + int(options.presliding_rad > 0)


def _search_signals(search, cands, cur, given, rate_hz, has_velocity):
    """Choose the derivative cut-off, then the velocity source."""
    if 'cutoff_hz' not in given or 'derivative_method' not in given:
        sig = search.signals(cur)
        grid = [c for c in CUTOFF_GRID_HZ if c < MAX_CUTOFF_RATE_FRACTION * rate_hz]
        variants = [{'cutoff_hz': cur.cutoff_hz}]
        if 'cutoff_hz' not in given:
            variants += [{'cutoff_hz': c} for c in grid if not np.allclose(sig.cutoffs_hz, c)]
        if ('derivative_method' not in given
                and any(tr.method == 'periodic' for tr in sig.trajectories)):
            # a local filter instead of the exact Fourier series, inside the same periods
            variants += [{'derivative_method': 'savgol', 'sidecar_window': True, 'cutoff_hz': c}
                         for c in (grid if 'cutoff_hz' not in given else [cur.cutoff_hz])]
        cur, _ = _choose(search, cands, 'derivatives', cur, variants)
    if 'velocity_source' not in given and has_velocity:
        other = 'measured' if cur.velocity_source == 'position' else 'position'
        cur, _ = _choose(search, cands, 'velocity source', cur,
                         [{'velocity_source': cur.velocity_source}, {'velocity_source': other}])
    return cur


def _search_pair(search, cands, cur, dimension, name, values, key_of):
    """Choose ``name`` among ``values`` from one set of normal equations (weighting, PC)."""
    # the current choice first: it stays unless another beats it by MIN_IMPROVEMENT
    values = (getattr(cur, name),) + tuple(v for v in values if v != getattr(cur, name))
    kw = {'weightings' if name == 'weighting' else 'consistent': values}
    held, note, exc = _try(search, cur, per_joint=True, **kw)
    # the weighting is judged as it weighs: each joint by its own noise (see the module
    # docstring), when every candidate has a noise estimate for every joint
    weighted = {k: h.noise_weighted() for k, h in held.items()} if name == 'weighting' else {}
    by_noise = bool(weighted) and None not in weighted.values()
    scored = []
    for v in values:
        h = held.get(key_of(v))
        e = None if h is None else h.error
        why = note or (f'noise-weighted {weighted[key_of(v)]:.4f}' if by_noise and h else '')
        cands.append(Candidate(dimension, {name: v}, e, why, pass_index=search.pass_index))
        scored.append((weighted.get(key_of(v)) if by_noise else e, cands[-1],
                       dataclasses.replace(cur, **{name: v})))
    return _pick(scored, exc)[0]


def _search_structure(search, cands, cur, given):
    """Toggle each friction-structure option in turn; keep a toggle that lowers the error.

    Then the smooth sign's velocity scale, among ``SIGN_VELOCITY_GRID_RAD_S``, then the
    Coulomb term's presliding displacement, none or one of ``PRESLIDING_GRID_RAD`` (refined by
    ``PRESLIDING_REFINE_FACTORS``).
    """
    for name in STRUCTURE:
        if name in given or (name == 'stribeck_column' and not cur.friction):
            continue
        val = getattr(cur, name)
        cur, _ = _choose(search, cands, 'friction structure', cur,
                         [{name: val}, {name: not val}])
    if 'sign_velocity_rad_s' not in given and cur.friction:
        v0 = cur.sign_velocity_rad_s
        cur, _ = _choose(search, cands, 'friction sign velocity', cur,
                         [{'sign_velocity_rad_s': v} for v in
                          (v0,) + tuple(v for v in SIGN_VELOCITY_GRID_RAD_S if v != v0)])
    if 'presliding_rad' not in given and cur.friction:
        p0 = cur.presliding_rad
        cur, _ = _choose(search, cands, 'friction presliding', cur,
                         [{'presliding_rad': v} for v in
                          (p0,) + tuple(v for v in (0.0,) + PRESLIDING_GRID_RAD if v != p0)])
        for f in PRESLIDING_REFINE_FACTORS if cur.presliding_rad > 0 else ():
            q0 = cur.presliding_rad
            cur, _ = _choose(search, cands, 'friction presliding', cur,
                             [{'presliding_rad': v} for v in (q0, q0 / f, q0 * f)])
    return cur


def _search_pass(search, cands, cur, given, rate_hz, has_velocity):
    """Return the options after one greedy pass over every searched dimension."""
    if 'min_velocity_rad_s' not in given:
        stick = search.score_velocity_rad_s
        grid = sorted((set(MIN_VELOCITY_GRID_RAD_S) | ({stick} if stick else set()))
                      - {cur.min_velocity_rad_s})
        variants = [{'min_velocity_rad_s': v} for v in [cur.min_velocity_rad_s] + grid]
        if stick and 'stribeck_column' not in given and cur.friction:
            # the Stribeck term lives in the slow rows: each cut with and without it
            variants += [dict(v, stribeck_column=not cur.stribeck_column) for v in variants]
        if stick and 'coulomb_asymmetric' not in given and cur.friction and cur.offset:
            # an offset and an asymmetric Coulomb term differ only at rest (under a sharp sign):
            # with the slow rows kept, each with the other Coulomb structure
            variants += [dict(v, coulomb_asymmetric=not cur.coulomb_asymmetric)
                         for v in variants if v['min_velocity_rad_s'] == 0.0]
        if 'sign_velocity_rad_s' not in given and cur.friction:
            # the smooth sign's scale shapes the slow rows' fit: with them kept, each scale
            variants += [dict(v, sign_velocity_rad_s=sv) for v in variants
                         if v['min_velocity_rad_s'] == 0.0 for sv in SIGN_VELOCITY_GRID_RAD_S
                         if sv != cur.sign_velocity_rad_s]
        cur, _ = _choose(search, cands, 'slow rows left out', cur, variants,
                         score_velocity_rad_s=SCORE_VELOCITY_RAD_S)
    cur = _search_signals(search, cands, cur, given, rate_hz, has_velocity)
    if 'weighting' not in given:
        cur = _search_pair(search, cands, cur, 'weighting', 'weighting', ('wls', 'ols'),
                           lambda w: (w, cur.physical_consistency))
    cur = _search_structure(search, cands, cur, given)
    if 'physical_consistency' not in given:
        cur = _search_pair(search, cands, cur, 'physical consistency',
                           'physical_consistency', (False, True),
                           lambda pc: (cur.weighting, pc))
    return cur


def select_options(robot, data, options: IdentificationOptions, given=(),
                   stribeck_velocity_rad_s=None) -> Selection | None:
    """Choose the options not ``given`` by blocked cross-validation on the training runs.

    Args:
        robot: the model.
        data: the training runs, (series, sidecar) pairs.
        options: the options as given (the searched ones at their defaults).
        given: names of the ``SEARCHED`` options the caller fixed (not searched).
        stribeck_velocity_rad_s: the sweeps' Stribeck velocity (rad/s), or None.

    Returns:
        The ``Selection`` (chosen options, candidates with their held-out errors), or None
        when every searched option is given. Raises ``IdentificationError`` when no candidate
        can be fitted.
    """
    t0 = time.perf_counter()
    given = [k for k in SEARCHED if k in set(given)]
    searched = [k for k in SEARCHED if k not in given]
    if not searched or not data:
        return None
    search = _Search(robot, data, options, stribeck_velocity_rad_s, CUTOFF_GRID_HZ)
    rate_hz = min(1.0 / float(np.median(np.diff(s.t_s))) for s, _ in data)
    has_velocity = all(s.qd is not None for s, _ in data)
    stick, ratios = prepared_stick_slip(search, options)
    if 0 < stick <= max(MIN_VELOCITY_GRID_RAD_S):
        search.score_velocity_rad_s = stick
    cands = []
    cur = options
    for k in range(MAX_PASSES):
        search.pass_index = k + 1
        consistent = cur.physical_consistency
        if k:
            # the first pass chose the other options for the other fit: they start again from
            # the defaults, so that they do not keep the incumbent's MIN_IMPROVEMENT margin
            # for a fit they were not chosen for
            cur = dataclasses.replace(options, physical_consistency=cur.physical_consistency)
        cur = _search_pass(search, cands, cur, given, rate_hz, has_velocity)
        if cur.physical_consistency == consistent:
            break
    return Selection(cur, cands, searched, given, FOLDS, search.samples,
                     time.perf_counter() - t0, search.score_velocity_rad_s, ratios, stick)
