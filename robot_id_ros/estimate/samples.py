# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Which joint-state samples the estimator takes, and the rules that follow the stamps.

One implementation of each rule, used by ``WrenchEstimator.update`` (one sample) and
``WrenchEstimator.process`` (arrays):

* ``StampGate``: a duplicate stamp or one slightly older than the previous sample is rejected; a
  stamp that jumps back by ``time_jump_s`` or more (a bag looped) or a gap over ``max_gap_s``
  restarts the estimator. Given the input bounds, it first rejects a sample that jumped from the
  previous one faster than the drive can move (``jumps.JumpFilter``, kind 'jump').
* ``tare_average``: the running average of tau_ext that a tare takes as bias.
* ``first_nonfinite``: where a batch run's state became non-finite (that sample is rejected and
  the run restarts after it, as ``update`` does).
* ``check_sample``: the shape and finiteness of (q, qd, effort), and with ``InputBounds`` their
  plausibility: inside the model's joint limits with a margin (a glitch such as a position of
  1e300 is rejected like a malformed sample, kind 'implausible', before it reaches the maths).
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.estimate.jumps import JumpFilter
from robot_id_ros.estimate.sample_step import tare_average_add
from robot_id_ros.estimate.rejections import Rejection
from robot_id_ros.io.model_file import IdentifiedModel


# plausibility of a sample (the estimator's input bounds; see InputBounds)
POSITION_MARGIN_RAD = 0.5         # beyond the URDF position limits (calibration, overshoot)
VELOCITY_FACTOR = 5.0             # times the URDF velocity limit
EFFORT_FACTOR = 10.0              # times the URDF effort limit (drives peak above the rating)
ABS_POSITION_RAD = 1.0e4          # a joint without position limits (continuous): |q| bound
ABS_VELOCITY_RAD_S = 100.0        # a joint without a velocity limit in the URDF
ABS_EFFORT_NM = 1.0e4             # a joint without an effort limit in the URDF
NONFINITE_STATE = 'nonfinite_state'   # kind of the error when the state became non-finite
NONFINITE_REASON = 'non-finite internal state'   # the reset after a sample that made it so


class EstimatorInputError(InputError):
    """A sample the estimator will not use; the message says what is wrong.

    ``kind`` is one of 'shape', 'nonfinite', 'implausible', 'jump', 'duplicate_stamp',
    'out_of_order', or 'nonfinite_state' (the sample made the estimator's state non-finite: it
    was reset).
    """

    def __init__(self, kind, message):
        super().__init__(message, kind)


NO_LIMIT = 1.0e6                  # a URDF limit this large (or <= 0, or missing) is no limit


def _limit(values, fallback, factor=1.0):
    """Return ``factor * values`` where usable (0 < v < ``NO_LIMIT``), else ``fallback``."""
    v = np.asarray(values, dtype=float)
    ok = np.isfinite(v) & (v > 0) & (v < NO_LIMIT)
    return np.where(ok, factor * np.where(ok, v, 0.0), fallback)


class InputBounds:
    """The plausible range of a sample, from the model's joint limits with a margin.

    Positions: URDF limits +- ``POSITION_MARGIN_RAD`` (+-``ABS_POSITION_RAD`` for a joint without
    limits); velocities: ``VELOCITY_FACTOR`` x the URDF velocity limit; efforts:
    ``EFFORT_FACTOR`` x the URDF effort limit (absolute bounds where the URDF gives none).

    Args:
        limits: the robot's ``JointLimits`` (rad, rad/s, Nm).
    """

    def __init__(self, limits):
        lo = np.asarray(limits.lower_rad, dtype=float)
        hi = np.asarray(limits.upper_rad, dtype=float)
        usable = np.isfinite(lo) & np.isfinite(hi) & (np.abs(lo) < ABS_POSITION_RAD) & (
            np.abs(hi) < ABS_POSITION_RAD) & (lo <= hi)
        self.unlimited = ~usable                # joints without position limits (continuous)
        self.q_lo = np.where(usable, lo - POSITION_MARGIN_RAD, -ABS_POSITION_RAD)
        self.q_hi = np.where(usable, hi + POSITION_MARGIN_RAD, ABS_POSITION_RAD)
        self.qd_max = _limit(limits.velocity_rad_s, ABS_VELOCITY_RAD_S, VELOCITY_FACTOR)
        self.qd_limit = self.qd_max / VELOCITY_FACTOR      # the URDF velocity limit
        self.effort_max = _limit(limits.effort_nm, ABS_EFFORT_NM, EFFORT_FACTOR)
        # inside_one: the bounds of (q, qd, effort) flattened, as floats
        self._lo = np.concatenate([self.q_lo, -self.qd_max, -self.effort_max]).tolist()
        self._hi = np.concatenate([self.q_hi, self.qd_max, self.effort_max]).tolist()

    def inside_one(self, a):
        """``inside`` for one sample, in plain float comparisons (cheaper than numpy).

        Args:
            a: (3, n) rows q [rad], qd [rad/s], effort [Nm]; NaN is outside.

        Returns:
            bool.
        """
        for x, lo, hi in zip(a.ravel().tolist(), self._lo, self._hi):
            if not lo <= x <= hi:
                return False
        return True

    def inside(self, Q, QD, E):
        """Which samples are plausible.

        Args:
            Q, QD, E: (..., n) positions [rad], velocities [rad/s], efforts [Nm] (finite).

        Returns:
            (...,) bool.
        """
        return ((Q >= self.q_lo) & (Q <= self.q_hi) & (np.abs(QD) <= self.qd_max)
                & (np.abs(E) <= self.effort_max)).all(axis=-1)

    def rejection(self, q, qd, effort):
        """``problem`` as the reason of a rejected sample (kind 'implausible')."""
        return Rejection('implausible', self.problem(q, qd, effort))

    def problem(self, q, qd, effort):
        """One line naming the first value of a sample outside the bounds (None: inside)."""
        checks = (('q', q, self.q_lo, self.q_hi, 'rad'), ('qd', qd, -self.qd_max, self.qd_max,
                                                          'rad/s'),
                  ('effort', effort, -self.effort_max, self.effort_max, 'Nm'))
        for name, x, lo, hi, unit in checks:
            bad = np.flatnonzero((x < lo) | (x > hi))
            if bad.size:
                j = int(bad[0])
                return (f'{name}[{j}] = {x[j]:.6g} {unit} is outside the plausible range '
                        f'[{lo[j]:.6g}, {hi[j]:.6g}]')
        return None


def check_sample(n, q, qd, effort, bounds=None):
    """Return the arrays of one sample, checked.

    Args:
        n: number of joints.
        q: n joint positions, rad.
        qd: n joint velocities, rad/s.
        effort: n joint torques, Nm.
        bounds: ``InputBounds``; None: no plausibility check.

    Returns:
        (q, qd, effort) as float arrays (n,) (views of one (3, n) array when possible).

    Raises:
        EstimatorInputError: (kind 'shape', 'nonfinite' or 'implausible') naming the array.
    """
    try:
        a = np.array((q, qd, effort), dtype=float)   # the common case in one numpy call
    except (ValueError, TypeError):
        a = None
    if a is not None and a.shape == (3, n):
        if bounds is not None and bounds.inside_one(a):     # also finite
            return a[0], a[1], a[2]
        if np.isfinite(a).all():
            if bounds is not None:
                raise EstimatorInputError('implausible', bounds.problem(a[0], a[1], a[2]))
            return a[0], a[1], a[2]
    arrs = []
    for name, x in (('q', q), ('qd', qd), ('effort', effort)):
        x = np.array(x, dtype=float)
        if x.shape != (n,):
            raise EstimatorInputError('shape', f'{name} has shape {x.shape}, expected ({n},)')
        if not np.all(np.isfinite(x)):
            raise EstimatorInputError('nonfinite', f'{name} is NaN or inf')
        arrs.append(x)
    if bounds is not None and not bounds.inside(*arrs):
        raise EstimatorInputError('implausible', bounds.problem(*arrs))
    return arrs


class StampGate:
    """The stamp rules, one sample at a time (``accept``) or over arrays (``scan``).

    Args:
        time_jump_s: a stamp at least this far behind the previous one restarts (s).
        max_gap_s: a gap longer than this between samples restarts (s).
        bounds: the ``InputBounds`` of the jump rule (``jumps.JumpFilter``), applied first to
            samples given with q and qd; None: no jump rule.
    """

    def __init__(self, time_jump_s, max_gap_s, bounds=None):
        self.jump_ns = time_jump_s * 1e9
        self.gap_ns = max_gap_s * 1e9
        self.last_ns = None
        self.jumps = None if bounds is None else JumpFilter(bounds, max_gap_s)

    def reset(self):
        """Forget the previous stamp (and sample): the next sample starts a segment."""
        self.last_ns = None
        if self.jumps is not None:
            self.jumps.reset()

    def accept(self, stamp_ns: int, q=None, qd=None):
        """Take one stamp.

        Args:
            stamp_ns: the sample's stamp, ns (int).
            q, qd: (n,) the sample's positions and velocities, for the jump rule (None: none).

        Returns:
            (dt_s, reset_reason): the interval to the previous sample in s, 0.0 where a segment
            starts (first sample, or a restart: then ``reset_reason`` says why, else None).

        Raises:
            EstimatorInputError: (kind 'jump', 'duplicate_stamp' or 'out_of_order') the sample
                is to be dropped; the stamp gate is unchanged.
        """
        if self.jumps is not None and q is not None:
            jumped = self.jumps.check(stamp_ns, q, qd)
            if jumped is not None:
                raise EstimatorInputError(jumped.kind, str(jumped))
        last = self.last_ns
        if last is None:
            self.last_ns = stamp_ns
            return 0.0, None
        d = stamp_ns - last
        if d <= 0:
            if d == 0:
                raise EstimatorInputError('duplicate_stamp', f'duplicate stamp {stamp_ns} ns')
            if -d < self.jump_ns:
                raise EstimatorInputError(
                    'out_of_order', f'stamp {-d * 1e-6:.3f} ms older than the previous sample')
            self.last_ns = stamp_ns
            return 0.0, f'time jumped back {-d * 1e-9:.3f} s'
        self.last_ns = stamp_ns
        if d > self.gap_ns:
            return 0.0, f'gap of {d * 1e-9:.3f} s in the input'
        return d * 1e-9, None

    def scan(self, stamp_ns, usable, Q=None, QD=None):
        """``accept`` over N samples from a reset gate.

        Args:
            stamp_ns: (N,) int ns.
            usable: (N,) bool, False for samples rejected already (non-finite values).
            Q, QD: (N, n) positions and velocities, for the jump rule (None: none).

        Returns:
            (keep, starts, rejected, resets): keep (N,) bool, the accepted samples; starts (N,)
            bool, the accepted samples that start a segment; rejected, a list of (index, reason)
            for the samples not usable or refused by their stamp; resets, a list of (index,
            reason) for the restarts.
        """
        self.reset()
        stamp_ns = np.asarray(stamp_ns, dtype=np.int64)
        jumped = {}
        if self.jumps is not None and Q is not None:
            jumped = self.jumps.scan(stamp_ns, Q, QD, usable)
        usable = np.array(usable, dtype=bool)
        usable[list(jumped)] = False
        idx = np.flatnonzero(usable)
        s = stamp_ns[idx]
        # ``accept`` leaves a sample alone (kept, no start) when it is 0 < d <= max_gap after the
        # previous usable sample and that one was kept: only the others go through ``accept``
        plain = np.zeros(len(idx), dtype=bool)
        d = s[1:] - s[:-1]
        plain[1:] = (d > 0) & (d <= self.gap_ns)
        kept = np.ones(len(idx), dtype=bool)
        start = np.zeros(len(idx), dtype=bool)
        rejected = [(k, jumped.get(k) or Rejection('nonfinite', 'q, qd or effort is NaN or inf'))
                    for k in np.flatnonzero(~usable).tolist()]
        resets = []
        s = s.tolist()
        todo = np.flatnonzero(~plain).tolist()[::-1]      # a stack, the next position on top
        while todo:
            j = todo.pop()
            if j > 0 and kept[j - 1]:
                self.last_ns = s[j - 1]
            try:
                dt, reason = self.accept(s[j])
            except EstimatorInputError as exc:
                kept[j] = False
                rejected.append((int(idx[j]), Rejection(exc.kind, str(exc))))
                if j + 1 < len(s) and not (todo and todo[-1] == j + 1):
                    todo.append(j + 1)          # the next one follows an older sample now
                continue
            if dt == 0.0:
                start[j] = True
                if reason is not None:
                    resets.append((int(idx[j]), reason))
        if kept.any():
            self.last_ns = s[np.flatnonzero(kept)[-1]]
        keep = np.zeros(len(stamp_ns), dtype=bool)
        keep[idx[kept]] = True
        starts = np.zeros(len(stamp_ns), dtype=bool)
        starts[idx[start]] = True
        rejected.sort()
        return keep, starts, rejected, resets


def tare_average(R, dt, start, stop, window_s):
    """Return the running average of tau_ext that a tare takes as bias, after sample ``stop``.

    First order, time constant ``window_s`` (s; 0: the latest sample), started at ``start`` (a
    restart); the rule is ``sample_step.tare_average_add``, the one ``update`` runs each sample.

    Args:
        R: (N, n) Nm, tau_ext before the tare.
        dt: (N,) s, the interval before each sample.
        start: first sample of the segment.
        stop: last sample (inclusive).
        window_s: time constant, s (>= 0).

    Returns:
        (n,) Nm.
    """
    avg = np.empty(R.shape[1])
    window_s = float(window_s)
    tare_average_add(avg, R[start], 0.0, window_s, True)
    for k in range(start + 1, stop + 1):
        tare_average_add(avg, R[k], float(dt[k]), window_s, False)
    return avg


def first_nonfinite(parts):
    """Where a batch run's state became non-finite.

    Args:
        parts: ``[(first input index, BatchResult)]`` of consecutive parts of a run.

    Returns:
        The input index of the first accepted sample with a non-finite output (tau_ext, wrench
        or its std), or None.
    """
    for i0, p in parts:
        bad = ~np.isfinite(np.hstack([p.tau_ext, p.wrench, p.wrench_std])).all(axis=1)
        if bad.any():
            return i0 + int(p.index[np.argmax(bad)])
    return None


def effort_scale(model: IdentifiedModel, effort_unit='torque', drive_gains=None):
    """Per-joint factor turning the driver's effort into Nm.

    Args:
        model: the identified model (its drive gains, if any).
        effort_unit: 'torque' (effort in Nm) or 'current' (A).
        drive_gains: (n,) Nm/A, overriding the model file's.

    Returns:
        (n,): ones for 'torque', the drive gains for 'current'.

    Raises:
        InputError: an unknown unit, or no valid drive gains for 'current'.
    """
    if effort_unit == 'torque':
        return np.ones(model.n)
    if effort_unit != 'current':
        raise InputError(f"effort unit must be 'torque' or 'current', got {effort_unit!r}",
                         'config')
    gains = drive_gains if drive_gains is not None else model.drive_gains_nm_per_a
    if gains is None:
        raise InputError('effort unit is current but neither the model file nor the options give '
                         'drive gains (Nm/A per joint): pass --drive-gains / drive_gains_nm_per_a',
                         'config')
    gains = np.asarray(gains, dtype=float)
    if gains.shape != (model.n,) or not np.all(np.isfinite(gains)) or np.any(gains == 0):
        raise InputError(f'drive gains must be {model.n} finite non-zero values (one per joint '
                         f'{", ".join(model.joint_names)}), got {list(np.atleast_1d(gains))}',
                         'config')
    return gains
