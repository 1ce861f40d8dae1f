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
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.stats

from robot_id_ros.identify.options import IdentificationOptions, effort_to_torque

# a joint rests (recorded velocity exactly 0) at least this long before it breaks free
MIN_REST_S = 0.02
# and then moves in one direction at least this long
MIN_MOVE_S = 0.015
# events per direction needed for an estimate
MIN_EVENTS = 5


@dataclass
class BreakawayEstimate:
    """Breakaway per joint from the break-free events (Nm; NaN where not estimated).

    breakaway_nm (n,): the band's half-width about the offset; interval_nm (n, 2): its
    confidence interval; direction_nm (n, 2): the median friction at the break, positive (b+)
    and negative direction (magnitude b-); events (n, 2): events per direction; confidence: the
    interval's level.
    """

    breakaway_nm: np.ndarray
    interval_nm: np.ndarray
    direction_nm: np.ndarray
    events: np.ndarray
    confidence: float

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
        Nm).
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
            f = [tau[k, j] - model.rigid_body_torque(series.q[k], qd[k], acc)[j]
                 for k, acc in ((i, a), (i + 1, qdd[i + 1]))]
            out[j].append((d, 0.5 * d * (f[0] + f[1])))
    return out


def _median_interval(x, confidence):
    """Return (median, low, high) of ``x`` with the order-statistic interval of the median."""
    x = np.sort(np.asarray(x, float))
    m = len(x)
    # the k-th smallest is below the median with probability P(Bin(m, 1/2) >= k)
    k = int(scipy.stats.binom.ppf(0.5 * (1.0 - confidence), m, 0.5))
    k = min(max(k, 1), m)
    return float(np.median(x)), float(x[k - 1]), float(x[m - k])


def estimate_breakaway(model, runs, options: IdentificationOptions) -> BreakawayEstimate:
    """Return the breakaway of each joint from the break-free events of ``runs``.

    Args:
        model: the identified model (rigid-body torque and friction offset).
        runs: (``JointStateSeries``, sidecar) pairs: excitation runs, static poses, sweeps.
        options: the effort unit and drive gains, the interval's ``confidence``.

    Returns:
        The ``BreakawayEstimate`` (see the module docstring).
    """
    n = model.n
    events = [[] for _ in range(n)]
    for series, _ in runs:
        if series.effort is None:
            continue
        tau = effort_to_torque(series.effort, options, n)
        for j, ev in enumerate(break_events(model, series, tau)):
            events[j].extend(ev)
    off = model.friction.offset_nm
    b = np.full(n, np.nan)
    interval = np.full((n, 2), np.nan)
    per_dir = np.full((n, 2), np.nan)
    counts = np.zeros((n, 2), int)
    for j in range(n):
        stats = []
        for c, d in enumerate((1, -1)):
            x = [v for dd, v in events[j] if dd == d]
            counts[j, c] = len(x)
            if len(x) >= MIN_EVENTS:
                stats.append(_median_interval(x, options.confidence))
                per_dir[j, c] = stats[-1][0]
        if len(stats) == 2:
            # band offset +- b: b+ above the offset, b- below it
            edge = np.array([[s - off[j] for s in stats[0]], [s + off[j] for s in stats[1]]])
            b[j] = edge[:, 0].max()
            interval[j] = edge[:, 1].max(), edge[:, 2].max()
    return BreakawayEstimate(b, interval, per_dir, counts, options.confidence)
