# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""ROS-free figures of the demo and the accuracy benchmark.

Force errors, contact delays, baselines.

Inputs are plain arrays: the estimator's wrench over time, the applied (true) wrench over time and
the script's phases. Everything here is recomputable from the demo's bags.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator, WrenchMapper
from robot_id_ros.model.robot import RobotModel

# after each change of the applied force this much is left out of the steady-state RMS (the
# observer's step response; 10 Hz bandwidth settles to 5 % in ~50 ms)
TRANSIENT_S = 0.25
# a recording's stamps more than this many median periods apart have lost samples between
GAP_PERIODS = 3.0


@dataclass
class Phase:
    """A stretch of the force script: ``kind`` 'rest' or 'motion', [t0, t1) in sim seconds."""

    kind: str
    t0_s: float
    t1_s: float
    label: str = ''


@dataclass
class ForceTimeline:
    """The applied force (base axes, N) as a step function of sim time."""

    t_s: np.ndarray           # change instants
    force_n: np.ndarray       # (len(t_s), 3) force from that instant on

    def at(self, t):
        k = np.searchsorted(self.t_s, np.asarray(t, float), side='right') - 1
        out = np.zeros((np.size(t), 3))
        ok = k >= 0
        out[ok] = self.force_n[k[ok]]
        return out

    def settled_mask(self, t, transient_s=TRANSIENT_S):
        """Return True where the last force change is more than ``transient_s`` ago."""
        t = np.asarray(t, float)
        k = np.searchsorted(self.t_s, t, side='right') - 1
        last = np.where(k >= 0, self.t_s[np.clip(k, 0, None)], -np.inf)
        return (t - last) >= transient_s


def timeline_from_samples(t_s, force_n, tol_n=1e-6):
    """Build a ForceTimeline from sampled true-force messages (changes where the force does)."""
    t_s = np.asarray(t_s, float)
    force_n = np.asarray(force_n, float)
    order = np.argsort(t_s)
    t_s, force_n = t_s[order], force_n[order]
    change = np.ones(len(t_s), dtype=bool)
    change[1:] = np.any(np.abs(np.diff(force_n, axis=0)) > tol_n, axis=1)
    return ForceTimeline(t_s[change], force_n[change])


@dataclass
class ForceErrors:
    rms_rest_n: float
    rms_motion_n: float
    rms_rest_all_n: float       # transients included
    rms_motion_all_n: float
    samples_rest: int
    samples_motion: int
    per_phase: list = field(default_factory=list)


def force_errors(t_s, est_force_n, timeline: ForceTimeline, phases,
                 transient_s=TRANSIENT_S) -> ForceErrors:
    """RMS of |estimated - applied| force over the rest and motion phases."""
    t_s = np.asarray(t_s, float)
    err = np.linalg.norm(np.asarray(est_force_n)[:, :3] - timeline.at(t_s), axis=1)
    settled = timeline.settled_mask(t_s, transient_s)
    out = {}
    per = []
    for kind in ('rest', 'motion'):
        m = np.zeros(len(t_s), dtype=bool)
        for ph in phases:
            if ph.kind == kind:
                mm = (t_s >= ph.t0_s) & (t_s < ph.t1_s)
                m |= mm
                sel = mm & settled
                if sel.any():
                    per.append({'phase': ph.label or kind, 'kind': kind,
                                'rms_n': float(np.sqrt(np.mean(err[sel] ** 2))),
                                'max_n': float(err[sel].max()), 'samples': int(sel.sum())})
        sel = m & settled
        out[kind] = (float(np.sqrt(np.mean(err[sel]**2))) if sel.any() else float('nan'),
                     float(np.sqrt(np.mean(err[m]**2))) if m.any() else float('nan'),
                     int(sel.sum()))
    return ForceErrors(out['rest'][0], out['motion'][0], out['rest'][1], out['motion'][1],
                       out['rest'][2], out['motion'][2], per)


def in_windows(t_s, windows):
    """Return True where ``t_s`` lies inside any of the windows [(t0, t1)]."""
    t_s = np.asarray(t_s, float)
    m = np.zeros(len(t_s), dtype=bool)
    for t0, t1 in windows:
        m |= (t_s >= t0) & (t_s < t1)
    return m


def rest_error_split(t_s, est_force_n, timeline: ForceTimeline, phases, joint1_force_dir,
                     transient_s=TRANSIENT_S):
    """Split the at-rest force error along n and the rest.

    n is the unit force direction that loads joint 1 (the normal of the arm's plane for a
    youBot-like arm: joints 2-5 feel nothing along it). Returns (RMS of the in-plane error, RMS of
    the error along n), N. ``joint1_force_dir`` (N, 3): joint 1's column of the tool's linear
    Jacobian per sample (any length). While joint 1 is held by stiction the component along n
    reaches no joint state at all.
    """
    t_s = np.asarray(t_s, float)
    err = np.asarray(est_force_n, float)[:, :3] - timeline.at(t_s)
    n = np.asarray(joint1_force_dir, float)
    n = n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
    along = np.einsum('ki,ki->k', err, n)
    in_plane = np.linalg.norm(err - along[:, None] * n, axis=1)
    m = in_windows(t_s, [(ph.t0_s, ph.t1_s) for ph in phases if ph.kind == 'rest'])
    m &= timeline.settled_mask(t_s, transient_s)
    if not m.any():
        return float('nan'), float('nan')
    return float(np.sqrt(np.mean(in_plane[m] ** 2))), float(np.sqrt(np.mean(along[m] ** 2)))


def force_rms_in(t_s, est_force_n, timeline: ForceTimeline, windows):
    """RMS of |F_est - F_applied| (N) over the samples inside the windows [(t0, t1)].

    nan when no sample is inside.
    """
    t_s = np.asarray(t_s, float)
    m = in_windows(t_s, windows)
    if not m.any():
        return float('nan')
    err = np.linalg.norm(np.asarray(est_force_n, float)[m, :3] - timeline.at(t_s[m]), axis=1)
    return float(np.sqrt(np.mean(err ** 2)))


def contact_signal(t_s, true_tau_nm, detector, onsets_s, window_s=0.05):
    """Score the TRUE external joint torque with the contact test after each contact onset.

    For each contact onset, the largest score the contact test gives the TRUE external joint
    torque (``true_tau_nm`` (N, n): J^T F_applied) within ``window_s`` after it, with no noise, no
    stiction band and no observer lag: below 1 the contact is not detectable within that window at
    the detector's threshold by any estimator (its joint torques are too small there).
    """
    t_s = np.asarray(t_s, float)
    tau = np.asarray(true_tau_nm, float)
    s_contact, _ = detector.scores(tau, np.zeros_like(tau))
    out = []
    for t0 in onsets_s:
        m = (t_s >= t0) & (t_s < t0 + window_s)
        out.append(float(s_contact[m].max()) if m.any() else float('nan'))
    return out


def detection_delays(t_s, contact, onsets_s, window_s=1.0):
    """Return the delay from each contact onset to the first contact flag after it.

    nan: not detected within ``window_s``.
    """
    t_s = np.asarray(t_s, float)
    contact = np.asarray(contact, bool)
    out = []
    for t0 in onsets_s:
        m = (t_s >= t0) & (t_s < t0 + window_s) & contact
        out.append(float(t_s[np.argmax(m)] - t0) if m.any() else float('nan'))
    return out


def contact_at(t_s, flag_t_s, flag):
    """Return the contact flag in force at each time of ``t_s``.

    The node publishes ``~/contact`` when it changes (and again now and then): the flag at a
    sample is the last one published at or before its stamp (False before the first).

    Args:
        t_s: sample times (the estimates' stamps), s.
        flag_t_s: the stamp each flag message belongs to, s, in the order received.
        flag: the flags.

    Returns:
        Boolean array like ``t_s``.
    """
    ft = np.asarray(flag_t_s, float)
    fl = np.asarray(flag, bool)
    order = np.argsort(ft, kind='stable')        # equal stamps keep the order received
    k = np.searchsorted(ft[order], np.asarray(t_s, float), side='right') - 1
    return np.where(k >= 0, fl[order][np.clip(k, 0, None)], False) if len(fl) else \
        np.zeros(len(t_s), bool)


def after_gaps(t_s, settle_s):
    """Return the mask of samples within ``settle_s`` after a gap in the stamps ``t_s``.

    A gap: more than ``GAP_PERIODS`` times the median sample period. Samples a recorder lost
    under load leave the replayed residual a transient the estimator never had live.
    """
    t = np.asarray(t_s, float)
    out = np.zeros(len(t), dtype=bool)
    if len(t) < 3 or settle_s <= 0.0:
        return out
    dt = np.diff(t)
    for k in np.flatnonzero(dt > GAP_PERIODS * np.median(dt)):
        out |= (t > t[k]) & (t <= t[k + 1] + settle_s)
    return out


def false_contacts(t_s, contact, windows, settle_s=0.0):
    """Return the number of contact-flag samples inside contact-free windows [(t0, t1)].

    With ``settle_s``, the samples that long after a gap in the stamps (``after_gaps``) are not
    counted (neither as flagged nor as samples).
    """
    m = in_windows(t_s, windows) & ~after_gaps(t_s, settle_s)
    return int((m & np.asarray(contact, bool)).sum()), int(m.sum())


def estimate_batch(model, stamp_ns, Q, QD, E, tare_events, config: EstimatorConfig | None = None):
    """Run the core estimator (``update``, as the node does) over recorded samples.

    Tared (or tare cleared) at the given stamps: ``tare_events`` is a list of
    (stamp_ns, 'tare' | 'clear').

    Returns:
        (stamps (N,) ns, forces (N, 3) N, contact flags (N,), published force std (N, 3) N: the
        square roots of the wrench covariance's force diagonal) over the accepted samples.
    """
    est = WrenchEstimator(model, config or EstimatorConfig())
    forces, contact, stamps, std = [], [], [], []
    events = sorted((int(s), kind) for s, kind in tare_events)
    k = 0
    for s, q, qd, e in zip(stamp_ns, Q, QD, E):
        while k < len(events) and s >= events[k][0]:
            est.tare() if events[k][1] == 'tare' else est.clear_tare()
            k += 1
        try:
            r = est.update(int(s), q, qd, e)
        except ValueError:
            continue
        stamps.append(int(s))
        forces.append(r.wrench[:3])
        contact.append(r.contact)
        std.append(np.sqrt(np.maximum(np.diag(r.wrench_covariance)[:3], 0.0)))
    return (np.array(stamps, dtype=np.int64), np.array(forces), np.array(contact, bool),
            np.array(std))


def gravity_only_batch(robot: RobotModel, gravity_fn, stamp_ns, Q, E, tare_events,
                       tare_window_s=0.1):
    """Run the gravity-only baseline over recorded samples.

    tau_ext = g(q) - tau (no friction, no inertia), mapped to a force at the tool point by the
    same least squares as the estimator, tared like it.
    """
    mapper = WrenchMapper(robot.n, 'force')
    events = sorted((int(s), kind) for s, kind in tare_events)
    bias = np.zeros(robot.n)
    avg = None
    out = np.zeros((len(stamp_ns), 3))
    k = 0
    last = None
    for i, (s, q, e) in enumerate(zip(stamp_ns, Q, E)):
        r = gravity_fn(q) - e     # the drives hold g(q) - J^T F at rest
        if avg is None:
            avg = r.copy()
        else:
            dt = (s - last) * 1e-9
            b = dt / (dt + tare_window_s)
            avg += b * (r - avg)
        last = s
        while k < len(events) and s >= events[k][0]:
            bias = avg.copy() if events[k][1] == 'tare' else np.zeros(robot.n)
            k += 1
        A, _, _ = mapper.matrices(robot.tool_jacobian(q, 'base'))
        out[i] = (A @ (r - bias))[:3]
    return out


def sigma_calibration(t_s, est_force_n, force_std_n, timeline: ForceTimeline, phases) -> list:
    """How well the published force std describes the actual error, per phase and axis.

    Every sample of each phase counts, the transients after each force change included: the
    published std is meant to hold through them.

    Args:
        t_s: (N,) sim times, s.
        est_force_n: (N, 3) estimated force, N.
        force_std_n: (N, 3) the std published with it (square roots of the covariance's force
            diagonal), N.
        timeline: the applied force.
        phases: ``Phase`` list; one entry per phase with at least one sample.

    Returns:
        [{'phase', 'kind', 't0_s', 't1_s', 'samples', 'coverage_2sigma', 'rms_z', 'p99_z'}],
        the last three per axis x, y, z: the fraction of samples with |error| <= 2 std, the RMS
        and the 99th percentile of |error| / std.
    """
    t_s = np.asarray(t_s, float)
    err = np.asarray(est_force_n, float)[:, :3] - timeline.at(t_s)
    std = np.asarray(force_std_n, float)[:, :3]
    z = np.abs(err) / np.maximum(std, 1e-12)
    out = []
    for ph in phases:
        m = (t_s >= ph.t0_s) & (t_s < ph.t1_s)
        if not m.any():
            continue
        zm = z[m]
        out.append({'phase': ph.label or ph.kind, 'kind': ph.kind, 't0_s': float(ph.t0_s),
                    't1_s': float(ph.t1_s), 'samples': int(m.sum()),
                    'coverage_2sigma': np.mean(zm <= 2.0, axis=0).tolist(),
                    'rms_z': np.sqrt(np.mean(zm ** 2, axis=0)).tolist(),
                    'p99_z': np.percentile(zm, 99, axis=0).tolist()})
    return out
