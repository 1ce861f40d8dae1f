# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Stiction breakaway from the moments the joints break free in the recordings (ROS-free).

A joint at rest holds any friction torque inside its stiction band [-b-, b+]: the torque its
standstill needs. It breaks free when that torque leaves the band, so at that moment the friction
torque is the band's edge: the held torque has risen to it, and the sliding friction starts from
it (the Stribeck law at zero speed). The recordings show every such moment (the excitation's
reversals, the starts of the sweeps, the approaches of the static poses) with the friction torque
as the measured torque minus the identified rigid-body torque (inertia, rotor inertia, Coriolis,
gravity). This is where the breakaway is observed directly; the friction law fitted to the
moving rows only extrapolates to it (Coulomb + the Stribeck amplitude, whose value at zero speed
trades against the Stribeck velocity, on rows the stick-slip regime leaves out).

An event: a joint's recorded velocity is exactly 0 for at least ``MIN_REST_S`` (drives report
velocity in counts, the youBot integer motor rpm: a stuck joint reads 0, a creeping one a count),
then nonzero in one direction for at least ``MIN_MOVE_S``. The break lies between the last sample
at rest and the first moving one; the event's value is the mean of the friction torque at the two
(times the direction), the accelerations by central differences of the recorded velocity, the
resting joint's own acceleration 0 at its last rest sample. Per direction the breakaway is the
median over the events (robust to the effort noise and to a stray event), with the
distribution-free confidence interval of a median (order statistics). The joint's breakaway, the
half-width of the band offset +- b the model carries, is the larger of b+ - offset and
b- + offset. Joints with fewer than ``MIN_EVENTS`` events in either direction have no estimate.

The break also gives the Stribeck amplitude (``stribeck_amplitude_from_breaks``): the sliding
friction starts from the breakaway and falls to the Coulomb level, so fs = (friction at the
break) - (Coulomb + offset) per direction. A fit that leaves the slow rows out (stick-slip,
identify/selection.py) cannot see the bump: a model without it under-predicts the friction of
every slow joint by up to fs, and a fitted Stribeck column sees only the bump's tail on the
fitted rows, so its amplitude at zero speed is an extrapolation that can be off by several times
fs (it absorbs whatever the model misses near the slowest fitted rows, such as a smooth sign's
shortfall). Either error is what the estimator reads as an external force on a joint sliding
slowly. Where the fit has no Stribeck term (``stribeck_from_breakaway``) only the Stribeck
velocity is chosen, per joint, on the training rows of joints moving at least
``STRIBECK_ROWS_MIN_SPEED_RAD_S`` (the slow rows the fit left out included: they are what the bump
predicts), and the term is kept only where it lowers those rows' squared error by more than
``STRIBECK_MIN_IMPROVEMENT``; a fitted Stribeck term keeps its velocity and takes the breaks'
amplitude (identify/pipeline.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.stats

from robot_id_ros.identify.options import IdentificationOptions, effort_to_torque
from robot_id_ros.model.friction import smooth_sign, stribeck_shape

# a joint rests (recorded velocity exactly 0) at least this long before it breaks free
MIN_REST_S = 0.02
# and then moves in one direction at least this long
MIN_MOVE_S = 0.015
# events per direction needed for an estimate
MIN_EVENTS = 5
# the candidate Stribeck velocities (rad/s) for the amplitude the breaks give
STRIBECK_VELOCITY_GRID_RAD_S = (0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3)
# rows of joints at least this fast judge the term (slower ones stick and slip; the first band
# edge of identify/stick_slip.py)
STRIBECK_ROWS_MIN_SPEED_RAD_S = 0.0125
# the term is kept where it lowers its joint's squared error on those rows by more than this
STRIBECK_MIN_IMPROVEMENT = 0.01


@dataclass
class BreakawayEstimate:
    """Breakaway per joint from the break-free events (Nm; NaN where not estimated).

    breakaway_nm (n,): the band's half-width about the offset; interval_nm (n, 2): its
    confidence interval; direction_nm (n, 2): the median friction at the break, positive (b+)
    and negative direction (magnitude b-); events (n, 2): events per direction; confidence: the
    interval's level; direction_unloaded_nm (n, 2): the median friction at the break less the
    model's load-dependent Coulomb term at it (its load the link's torque), the Stribeck
    amplitude's start (``stribeck_amplitude_from_breaks``); ``direction_nm`` without a load term.
    """

    breakaway_nm: np.ndarray
    interval_nm: np.ndarray
    direction_nm: np.ndarray
    events: np.ndarray
    confidence: float
    direction_unloaded_nm: np.ndarray | None = None

    @property
    def measured(self):
        """(n,) bool: the joints with an estimate."""
        return np.isfinite(self.breakaway_nm)

    def summary_lines(self, joint_names):
        """Return the estimate as text, one line per joint."""
        lines = [f'breakaway from the break-free events (median, {100 * self.confidence:g} % '
                 'interval; events +/-):']
        for j, name in enumerate(joint_names):
            ev = f'{self.events[j, 0]}/{self.events[j, 1]} events'
            if self.measured[j]:
                lo, hi = self.interval_nm[j]
                lines.append(f'  {name}: {self.breakaway_nm[j]:.4g} Nm [{lo:.4g}, {hi:.4g}] '
                             f'(+{self.direction_nm[j, 0]:.4g} / -{self.direction_nm[j, 1]:.4g}, '
                             f'{ev})')
            else:
                lines.append(f'  {name}: {ev}, fewer than {MIN_EVENTS} in a direction: the '
                             'friction law\'s breakaway kept')
        return lines


def break_events(model, series, tau):
    """Return each joint's break-free events of one recording.

    Args:
        model: the identified model (``IdentifiedModel``: ``rigid_body_torque``).
        series: the recording (``JointStateSeries`` with velocities).
        tau: (N, n) its measured joint torque, Nm.

    Returns:
        per joint a list of (direction +-1, friction torque at the break times the direction,
        the model's load-dependent Coulomb part of it, Nm).
    """
    n = model.n
    out = [[] for _ in range(n)]
    if series.qd is None or len(series) < 3:
        return out
    t = series.t_s
    dt = float(np.median(np.diff(t)))
    n_rest = max(2, int(np.ceil(MIN_REST_S / dt - 1e-9)))
    n_move = max(1, int(np.ceil(MIN_MOVE_S / dt - 1e-9)))
    qd = np.asarray(series.qd, float)
    qdd = np.gradient(qd, t, axis=0)
    rest = qd == 0.0
    for j in range(n):
        r = rest[:, j]
        for i in np.flatnonzero(r[:-1] & ~r[1:]):   # i the last rest sample
            if i + 1 < n_rest or not r[i + 1 - n_rest:i + 1].all():
                continue
            move = qd[i + 1:i + 1 + n_move, j]
            if len(move) < n_move or not (np.all(move > 0) or np.all(move < 0)):
                continue
            d = 1 if move[0] > 0 else -1
            a = qdd[i].copy()
            a[j] = 0.0
            rigid = np.array([model.rigid_body_torque(series.q[k], qd[k], acc)
                              for k, acc in ((i, a), (i + 1, qdd[i + 1]))])
            f = tau[i:i + 2, j] - rigid[:, j]
            # the gear's load at the break (the link's torque) raises its Coulomb friction
            load = model.friction.load_coulomb_nm(rigid).mean(axis=0)[j]
            out[j].append((d, 0.5 * d * (f[0] + f[1]), float(load)))
    return out


def _median_interval(x, confidence):
    """Return (median, low, high) of ``x`` with the order-statistic interval of the median."""
    x = np.sort(np.asarray(x, float))
    m = len(x)
    # the k-th smallest is below the median with probability P(Bin(m, 1/2) >= k)
    k = int(scipy.stats.binom.ppf(0.5 * (1.0 - confidence), m, 0.5))
    k = min(max(k, 1), m)
    return float(np.median(x)), float(x[k - 1]), float(x[m - k])


def estimate_breakaway(model, runs, options: IdentificationOptions,
                       fitted_runs=0) -> BreakawayEstimate:
    """Return the breakaway of each joint from the break-free events of ``runs``.

    Args:
        model: the identified model (rigid-body torque, friction offset and load term).
        runs: (``JointStateSeries``, sidecar) pairs: excitation runs, static poses, sweeps.
        options: the effort unit and drive gains, the interval's ``confidence``.
        fitted_runs: how many of ``runs``, the first, the friction law was fitted on. Where the
            law found its friction drifting within them (``FrictionModel.has_drift``), the
            friction at the break the Stribeck amplitude starts from is their breaks' wherever
            each direction has ``MIN_EVENTS`` there: the other runs were recorded at other
            temperatures, so their breaks do not share the fitted Coulomb level.

    Returns:
        The ``BreakawayEstimate`` (see the module docstring).
    """
    n = model.n
    events = [[] for _ in range(n)]
    fitted = [[] for _ in range(n)]
    for k, (series, _) in enumerate(runs):
        if series.effort is None:
            continue
        tau = effort_to_torque(series.effort, options, n)
        for j, ev in enumerate(break_events(model, series, tau)):
            events[j].extend(ev)
            if k < fitted_runs:
                fitted[j].extend(ev)
    if fitted_runs and model.friction.has_drift:
        enough = [min(sum(1 for e in ev if e[0] == d) for d in (1, -1)) >= MIN_EVENTS
                  for ev in fitted]
        return _breakaway_of(model, events, options,
                             [f if ok else e for f, e, ok in zip(fitted, events, enough)])
    return _breakaway_of(model, events, options, events)


def _breakaway_of(model, events, options, stribeck_events) -> BreakawayEstimate:
    """Return the ``BreakawayEstimate`` of per-joint ``events`` (``break_events``' tuples).

    The band from ``events``; the friction at the break less its load term, which the Stribeck
    amplitude starts from, from ``stribeck_events``.
    """
    n = model.n
    off = model.friction.offset_nm
    b = np.full(n, np.nan)
    interval = np.full((n, 2), np.nan)
    per_dir, unloaded = np.full((n, 2), np.nan), np.full((n, 2), np.nan)
    counts = np.zeros((n, 2), int)
    for j in range(n):
        stats = []
        for c, d in enumerate((1, -1)):
            x = [v for dd, v, _ in events[j] if dd == d]
            counts[j, c] = len(x)
            if len(x) >= MIN_EVENTS:
                stats.append(_median_interval(x, options.confidence))
                per_dir[j, c] = stats[-1][0]
                unloaded[j, c] = float(np.median([v - w for dd, v, w in stribeck_events[j]
                                                  if dd == d]))
        if len(stats) == 2:
            # band offset +- b: b+ above the offset, b- below it
            edge = np.array([[s - off[j] for s in stats[0]], [s + off[j] for s in stats[1]]])
            b[j] = edge[:, 0].max()
            interval[j] = edge[:, 1].max(), edge[:, 2].max()
    return BreakawayEstimate(b, interval, per_dir, counts, options.confidence, unloaded)


@dataclass
class StribeckFromBreaks:
    """The Stribeck term of each joint from its breakaway (``stribeck_from_breakaway``).

    amplitude_nm (n,): fs from the break (NaN where the breakaway is not measured);
    velocity_rad_s (n,): the chosen vs (NaN where none); error_ratio (n,): the judged rows'
    squared error with the term over without it (NaN where not judged); adopted (n,) bool.
    """

    amplitude_nm: np.ndarray
    velocity_rad_s: np.ndarray
    error_ratio: np.ndarray
    adopted: np.ndarray

    def summary_lines(self, joint_names):
        """Return the term per joint as text."""
        lines = ['Stribeck term from the breaks (the fit has none; amplitude = friction at the '
                 'break - Coulomb; velocity by the rows of joints at least '
                 f'{STRIBECK_ROWS_MIN_SPEED_RAD_S:g} rad/s fast):']
        for j, name in enumerate(joint_names):
            fs, vs, r = self.amplitude_nm[j], self.velocity_rad_s[j], self.error_ratio[j]
            if not np.isfinite(fs):
                lines.append(f'  {name}: no breakaway measured, none')
            elif not np.isfinite(r):
                lines.append(f'  {name}: {fs:.4g} Nm, no rows to judge it by: none')
            else:
                lines.append(f'  {name}: {fs:.4g} Nm at {vs:.3g} rad/s, squared error x{r:.3f}'
                             + ('' if self.adopted[j] else ': not kept'))
        return lines


def stribeck_amplitude_from_breaks(friction, estimate: BreakawayEstimate):
    """Return the Stribeck amplitude (n,) Nm the breaks give: the sliding friction at zero speed.

    Per direction the friction at the break less the Coulomb level, its load-dependent part
    (the model's term at the break's load) and the offset, the mean of the two directions, at
    least 0; NaN where the breakaway is not measured.

    Args:
        friction: the model's ``FrictionModel`` (Coulomb and offset).
        estimate: the breakaway (``estimate_breakaway``), with the friction at the break per
            direction.
    """
    d = (estimate.direction_nm if estimate.direction_unloaded_nm is None
         else estimate.direction_unloaded_nm)
    fs = np.maximum(0.5 * ((d[:, 0] - friction.offset_nm - friction.coulomb_pos_nm)
                           + (d[:, 1] + friction.offset_nm - friction.coulomb_neg_nm)), 0.0)
    return np.where(estimate.measured, fs, np.nan)


def stribeck_from_breakaway(friction, estimate: BreakawayEstimate, qd_runs,
                            residual_runs) -> StribeckFromBreaks:
    """Return the Stribeck term the breaks give a friction law that has none.

    Args:
        friction: the model's ``FrictionModel`` (Coulomb, offset, smooth sign; no Stribeck term).
        estimate: the breakaway (``estimate_breakaway``), with the friction at the break per
            direction.
        qd_runs: per training run the (N, n) velocities (rad/s) of the fit's signals.
        residual_runs: per run the (N, n) measured minus predicted torque (Nm), the prediction
            without the term.

    Returns:
        The ``StribeckFromBreaks``; ``adopted`` joints take (amplitude, velocity).
    """
    n = len(friction.offset_nm)
    fs = stribeck_amplitude_from_breaks(friction, estimate)
    qd = np.concatenate([np.asarray(q, float) for q in qd_runs])
    r = np.concatenate([np.asarray(x, float) for x in residual_runs])
    s = smooth_sign(qd, friction.sign_velocity_rad_s)
    vs_out, ratio = np.full(n, np.nan), np.full(n, np.nan)
    for j in range(n):
        rows = np.abs(qd[:, j]) >= STRIBECK_ROWS_MIN_SPEED_RAD_S
        if not (np.isfinite(fs[j]) and fs[j] > 0 and rows.any()):
            continue
        rj, vj, sj = r[rows, j], qd[rows, j], s[rows, j]
        sse0 = float(np.sum(rj ** 2))
        sse = [float(np.sum((rj - fs[j] * stribeck_shape(vj, v) * sj) ** 2))
               for v in STRIBECK_VELOCITY_GRID_RAD_S]
        k = int(np.argmin(sse))
        vs_out[j] = STRIBECK_VELOCITY_GRID_RAD_S[k]
        ratio[j] = sse[k] / sse0 if sse0 > 0 else np.inf
    adopted = np.nan_to_num(ratio, nan=np.inf) < 1.0 - STRIBECK_MIN_IMPROVEMENT
    return StribeckFromBreaks(fs, vs_out, ratio, adopted)
