# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Processing options chosen from the data by cross-validation (ROS-free).

The options a caller did not give (derivative cut-off, velocity source, weighting, friction
structure, physical consistency) are chosen on the training runs alone: each candidate is scored
by its held-out error on what the fit has not seen, whole runs when several are given, else
bands of each joint's speed (identify/hold_out_folds.py, identify/held_out.py).

The search is greedy, one dimension at a time, over a few candidates each: slow rows left out (with
stick-slip read, each cut with and without the Stribeck column, and with the slow rows kept the
other Coulomb structure, symmetric or not; with the slow rows kept, each velocity scale of the
Coulomb term's smooth sign), derivative method and cut-off, velocity source,
weighting (from the same normal equations, judged by each joint's held-out model error over its own
noise, RMS over the joints, as a weighted fit counts it, so that the joints with the largest
torques do not decide alone), friction structure
(one toggle at a time: offset, asymmetric Coulomb, rotor inertia, Stribeck, load-dependent
Coulomb, drift within each run; then the smooth sign's velocity scale again, then a presliding
Coulomb law), physical consistency. The
torque filter is not searched: it is a parallel filter (the effort and every regressor column
through the same low-pass, ``Trajectory.lowpassed_like_torque``), which changes the fit little on
white noise, while an effort-only filter wins inside the training run and loses on other
trajectories. A torque filter the caller gives is applied to the final fit only; the candidates
are scored without it. One-standard-error rule (``_beats``, ``_pick``): a candidate beats
another only when its held-out error is lower by more than ``MIN_IMPROVEMENT`` and by more than
one standard error of the difference; of the candidates the lowest does not beat, the simplest
(``_columns``: the complexity order) wins, then the current choice, then the lowest. A pass
that switches physical consistency (chosen last) is followed by another (at most
``MAX_PASSES``), so that the other options are chosen for the fit that is made, e.g. the derivative
cut-off for a physically consistent fit; that pass starts every other option again from its
default, so that a choice made for the other fit does not keep the incumbent's ``MIN_IMPROVEMENT``
margin.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from robot_id_ros.identify.held_out import CandidateScorer
from robot_id_ros.identify.hold_out_folds import HOLD_OUT_TIME, HOLD_OUT_VELOCITY
from robot_id_ros.identify.options import IdentificationError, IdentificationOptions
from robot_id_ros.identify.selection_record import Candidate, ExpectedError, Selection
from robot_id_ros.identify.stick_slip import prepared_stick_slip
from robot_id_ros.identify.trajectories import MAX_CUTOFF_RATE_FRACTION

# the options the search may choose; a caller giving one fixes it
SEARCHED = ('min_velocity_rad_s', 'derivative_method', 'cutoff_hz', 'velocity_source',
            'weighting', 'offset', 'coulomb_asymmetric', 'rotor_inertia',
            'stribeck_column', 'sign_velocity_rad_s', 'presliding_rad', 'load_coulomb',
            'friction_drift', 'physical_consistency')
# the friction-structure toggles, in the order they are searched
STRUCTURE = ('offset', 'coulomb_asymmetric', 'rotor_inertia', 'stribeck_column', 'load_coulomb',
             'friction_drift')
# the toggles that are terms of the friction law (searched only with friction)
_FRICTION_TERMS = ('stribeck_column', 'load_coulomb', 'friction_drift')
# candidates (rad/s) of the velocity scale of the Coulomb term's smooth sign tanh(qd / v),
# besides the default (SIGN_VELOCITY_RAD_S_DEFAULT): friction that turns over smoothly near zero
# velocity (lubricated gears, simulators' laws) fits a wider scale, an exact sign a narrow one
SIGN_VELOCITY_GRID_RAD_S = (0.002, 0.005, 0.02, 0.05, 0.1)
# candidates (rad) of the Coulomb term's presliding (Dahl) displacement, besides none (0): friction
# that builds up with the travel after a reversal (harmonic drives). Searched with the friction
# structure, and with the slow rows kept beside the slow-row cuts: held out by speed, the slowest
# rows are where a presliding law differs from a smooth sign, and without it they are cut
PRESLIDING_GRID_RAD = (0.001, 0.002, 0.004)
# a chosen presliding displacement is then refined by these factors, each way in turn: the fit is
# sensitive to it within about +-30 %, finer than the grid
PRESLIDING_REFINE_FACTORS = (2 ** 0.5, 2 ** 0.25)
# derivative cut-off candidates (Hz), besides the built-in default (None); those above
# MAX_CUTOFF_RATE_FRACTION of the sample rate are left out
CUTOFF_GRID_HZ = (2.0, 5.0, 10.0, 20.0, 40.0)
# candidates (rad/s) of the cut below which a joint's rows are left out of the fit, besides the
# stick-slip speed read from the runs when in (0, the largest]; see identify/held_out.py. Without
# it the cuts are scored on the rows of SCORE_VELOCITY_RAD_S, the others on the rows they fit
MIN_VELOCITY_GRID_RAD_S = (0.0, 0.02, 0.05, 0.1)
SCORE_VELOCITY_RAD_S = 0.0
# at most this many greedy passes over every dimension. Physical consistency, chosen last,
# changes the fit most (a constraint on every parameter): when a pass switches it, the next pass
# chooses every other option again for the constrained (or unconstrained) fit
MAX_PASSES = 2
# a candidate replaces the current choice when its held-out error is lower by this fraction
MIN_IMPROVEMENT = 0.01


def given_fields(options: IdentificationOptions) -> list:
    """Return the searched options whose value differs from the declared default.

    What a caller that passes options (not flags) is taken to have given.
    """
    default = IdentificationOptions()
    return [k for k in SEARCHED if getattr(options, k) != getattr(default, k)]


def _try(search, options, **kw):
    """Score ``options``: ({key: error}, '', None) or ({}, why it failed, the error).

    ``kw`` as ``CandidateScorer.errors`` takes them (``per_joint``: ``_HeldOut`` in place of
    errors).
    """
    try:
        return search.errors(options, **kw), '', None
    except IdentificationError as exc:
        return {}, str(exc).split(';')[0][:80], exc


@dataclass
class _Scored:
    """A candidate as ``_pick`` weighs it: its error, record, options and held-out units.

    ``units``: the squared held-out errors per fold and time segment (``held_out._HeldOut``),
    on the same rows for every candidate; None when it failed.
    """

    error: float | None
    candidate: Candidate
    options: IdentificationOptions
    units: np.ndarray | None = None
    count: np.ndarray | None = None


def _beats(a: _Scored, b: _Scored) -> bool:
    """Return True when ``a``'s held-out error is lower than ``b``'s beyond its own noise.

    Lower by more than ``MIN_IMPROVEMENT``, and the squared held-out error lower by more than
    one standard error of the difference: sqrt(units) times the spread of the per-unit
    differences (fold and time segment, paired: both are scored on the same rows). A
    difference within it is what other data of the same kind could turn around.
    """
    if a.error is None:
        return False
    if b.error is None:
        return True
    if not a.error < b.error * (1.0 - MIN_IMPROVEMENT):
        return False
    if a.units is None or b.units is None:
        return True
    d = (a.units - b.units)[a.count > 0]
    if len(d) < 2:
        return True
    return float(d.sum()) < -np.sqrt(len(d)) * float(np.std(d, ddof=1))


def _choose(search, cands, dimension, cur, variants, **kw):
    """Score each of ``variants`` (dicts of settings; the first is the current choice).

    Returns:
        (options with the chosen variant, its held-out error).
    """
    scored, first = [], None
    for v in variants:
        opts = dataclasses.replace(cur, **v)
        held, note, exc = _try(search, opts, per_joint=True, **kw)
        first = first or exc
        h = held.get((opts.weighting, opts.physical_consistency))
        e = None if h is None else h.error
        cands.append(Candidate(dimension, v, e, note, pass_index=search.pass_index))
        scored.append(_Scored(e, cands[-1], opts, *_units(h)))
    return _pick(scored, first)


def _units(held, weighted=False):
    """Return (units, count) of ``held`` (``_HeldOut`` or None) for ``_Scored``.

    ``weighted``: each joint's squared errors over its noise (the weighting's score).
    """
    if held is None:
        return None, None
    return (held.weighted_units if weighted else held.units), held.unit_count


def _pick(scored, first=None):
    """Return (options, error) of the best of ``scored`` (``_Scored``; the first is current).

    Raises ``first`` (the first candidate's error) when no candidate could be fitted.

    The one-standard-error rule: the candidates the lowest does not beat (``_beats``: within
    ``MIN_IMPROVEMENT`` or one standard error of the difference) are a tie the held-out
    data cannot settle; of those the simplest wins (fewest friction columns, ``_columns``), then
    the current choice, then the lowest error. A column the held-out data cannot tell apart
    from none costs accuracy on other motions, and a change the data cannot tell apart from the
    current choice is not made.
    """
    ok = [item for item in scored if item.error is not None]
    if not ok:
        if first is not None:
            raise first
        raise IdentificationError('cross-validation: no candidate could be fitted on the '
                                  'training folds; give the processing options (e.g. '
                                  '--no-auto-options)')
    low = min(ok, key=lambda item: item.error)
    ties = [item for item in ok if not _beats(low, item)]
    best = min(ties, key=lambda item: (_columns(item.options), item is not scored[0],
                                       item.error))
    best.candidate.chosen = True
    return best.options, best.error


def _columns(options):
    """Return the model's complexity: the friction columns per joint beyond the textbook model.

    The textbook model (Coulomb + viscous + an offset, which every real drive's sensor bias
    needs) counts 0; each of fc- apart from fc+, rotor inertia, the Stribeck term, the
    load-dependent Coulomb term, the drift terms and the presliding law adds one, and so does
    leaving the offset out (a model that has no word for a
    bias is not the simpler bet on other motions). An unconstrained fit counts one more than a
    physically consistent one: the constraints take freedom away that the data did not need.
    """
    toggles = sum(bool(getattr(options, name)) for name in STRUCTURE if name != 'offset')
    return (toggles + int(not options.offset) + int(options.presliding_rad > 0)
            + int(not options.physical_consistency))


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
        scored.append(_Scored(weighted.get(key_of(v)) if by_noise else e, cands[-1],
                              dataclasses.replace(cur, **{name: v}), *_units(h, by_noise)))
    return _pick(scored, exc)[0]


def _search_structure(search, cands, cur, given):
    """Toggle each friction-structure option in turn; keep a toggle that lowers the error.

    Then the smooth sign's velocity scale, among ``SIGN_VELOCITY_GRID_RAD_S``, then the
    Coulomb term's presliding displacement, none or one of ``PRESLIDING_GRID_RAD`` (refined by
    ``PRESLIDING_REFINE_FACTORS``).
    """
    for name in STRUCTURE:
        if name in given or (name in _FRICTION_TERMS and not cur.friction):
            continue
        if name == 'load_coulomb' and not _has_torque(cur):
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


def _has_torque(options):
    """Return whether the fit's effort is a torque (the load column needs it)."""
    return options.effort_unit == 'torque' or bool(options.drive_gains_nm_per_a)


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
        if 'coulomb_asymmetric' not in given and cur.friction and cur.offset:
            # an offset and an asymmetric Coulomb term differ only at rest (under a sharp sign):
            # with the slow rows kept, each with the other Coulomb structure
            variants += [dict(v, coulomb_asymmetric=not cur.coulomb_asymmetric)
                         for v in variants if v['min_velocity_rad_s'] == 0.0]
        if 'sign_velocity_rad_s' not in given and cur.friction:
            # the smooth sign's scale shapes the slow rows' fit: with them kept, each scale
            variants += [dict(v, sign_velocity_rad_s=sv) for v in variants
                         if v['min_velocity_rad_s'] == 0.0 for sv in SIGN_VELOCITY_GRID_RAD_S
                         if sv != cur.sign_velocity_rad_s]
        if 'presliding_rad' not in given and cur.friction:
            # a presliding law shapes the slow rows too: with them kept, each displacement
            variants += [{'min_velocity_rad_s': 0.0, 'presliding_rad': p}
                         for p in PRESLIDING_GRID_RAD if p != cur.presliding_rad]
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
    """Choose the options not ``given`` by cross-validation on the training runs.

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
    search = CandidateScorer(robot, data, options, stribeck_velocity_rad_s, CUTOFF_GRID_HZ)
    rate_hz = min(1.0 / float(np.median(np.diff(s.t_s))) for s, _ in data)
    has_velocity = all(s.qd is not None for s, _ in data)
    try:
        stick, ratios = prepared_stick_slip(search, options)
    except IdentificationError:   # a diagnostic: a fit it cannot make leaves the slow rows in
        stick, ratios = 0.0, None
    if 0 < stick <= max(MIN_VELOCITY_GRID_RAD_S):
        search.score_velocity_rad_s = stick
    _check_folds(search, options)
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
    return Selection(cur, cands, searched, given, search.n_folds, search.samples,
                     time.perf_counter() - t0, search.score_velocity_rad_s, ratios, stick,
                     search.hold_out, expected_error(search, cur))


def _check_folds(search, options):
    """Hold out what the options can be fitted without: runs, else speed bands, else time.

    A run that alone excites a parameter leaves it unseen by the others' fit; a column that
    lives in the slowest rows (a given Stribeck column) is unseen without them.
    """
    kinds = [HOLD_OUT_VELOCITY, HOLD_OUT_TIME]
    kinds = kinds[kinds.index(search.hold_out) + 1:] if search.hold_out in kinds else kinds
    for kind in kinds:
        try:
            search.errors(options)
            return
        except IdentificationError:
            search.use_hold_out(kind)


def expected_error(search, options) -> dict | None:
    """Return the held-out error of the chosen ``options``: what to expect on other motions.

    Over every fold (``ExpectedError``); None when the chosen options cannot be scored.
    """
    try:
        held = search.errors(options, per_joint=True)[(options.weighting,
                                                      options.physical_consistency)]
    except IdentificationError:
        return None
    return ExpectedError.of(held, search.hold_out, search.n_folds)
