# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Static-pose recordings of another arm, as another lab's logger would write them (no sidecar).

The truth is the arm with every body's mass and centre of mass perturbed. Each hold drifts slowly
(a few 1e-4 rad/s, as a joint sagging under its controller); holds are joined by minimum-jerk
moves, one of which stops briefly halfway (a pause too short to be a hold). Torque: the truth's
inverse dynamics plus white noise. Positions: the true ones plus a little sensor noise, quantised
to encoder steps; velocity: the backward difference of those quantised positions (a few mrad/s
of noise at rest, one encoder step per sample period in spikes).
"""
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from robot_id_ros.io.bags import JOINT_STATE_TYPE, BagWriter

STAMP0_NS = 1_700_000_000 * 10 ** 9


@dataclass
class StaticRecording:
    """Samples (N) and the truth: hold spans (s from the first sample), the true arm."""

    t_s: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    effort: np.ndarray
    hold_spans_s: list
    pause_span_s: tuple
    truth: object

    @property
    def stamps_ns(self):
        return STAMP0_NS + np.round(self.t_s * 1e9).astype(np.int64)


def perturbed_masses(robot, rng, mass_rel=0.15, com_abs=0.02):
    """Return a copy of ``robot`` with every body's mass and centre of mass perturbed."""
    r = robot.copy()
    for i in range(1, r.model.njoints):
        inertia = r.model.inertias[i]
        m = inertia.mass * rng.uniform(1 - mass_rel, 1 + mass_rel)
        c = np.array(inertia.lever) + rng.uniform(-com_abs, com_abs, 3)
        r.model.inertias[i] = pin.Inertia(m, c, np.array(inertia.inertia))
    return r


def _min_jerk(q0, q1, T, t):
    """Return (q, qd, qdd) of a minimum-jerk move q0 -> q1 over T s at times t (s from start)."""
    s = np.clip(t / T, 0.0, 1.0)[:, None]
    d = (q1 - q0)[None, :]
    p = 10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5
    pd = (30 * s ** 2 - 60 * s ** 3 + 30 * s ** 4) / T
    pdd = (60 * s - 180 * s ** 2 + 120 * s ** 3) / T ** 2
    return q0 + p * d, pd * d, pdd * d


def synthesise(robot, truth, rng, holds=20, rate_hz=500.0, hold_s=2.0, move_s=1.2,
               pause_s=0.3, drift_rad_s=3e-4, encoder_step_rad=2.0 ** -16,
               position_noise_rad=3e-6, effort_noise_nm=0.05) -> StaticRecording:
    """Return a static-pose recording of ``truth`` (poses within ``robot``'s limits)."""
    dt = 1.0 / rate_hz
    poses = robot.random_configurations(holds, rng, 0.3)
    Q, QD, QDD, spans = [], [], [], []
    t0, pause = 0.0, None
    q_end = poses[0]
    for k in range(holds):
        n_hold = int(round(hold_s * rate_hz))
        drift = rng.uniform(-drift_rad_s, drift_rad_s, robot.n)
        th = np.arange(n_hold) * dt
        start = poses[k] if k == 0 else q_end
        Q.append(start + th[:, None] * drift)
        QD.append(np.tile(drift, (n_hold, 1)))
        QDD.append(np.zeros((n_hold, robot.n)))
        spans.append((t0, t0 + th[-1]))
        t0 += n_hold * dt
        q_end = Q[-1][-1] + drift * dt
        if k == holds - 1:
            break
        legs = [(q_end, poses[k + 1])]
        if k == holds // 2:   # a move that pauses halfway, too briefly for a hold
            mid = 0.5 * (q_end + poses[k + 1])
            legs = [(q_end, mid), None, (mid, poses[k + 1])]
        for leg in legs:
            if leg is None:
                n_p = int(round(pause_s * rate_hz))
                Q.append(np.tile(mid, (n_p, 1)))
                QD.append(np.zeros((n_p, robot.n)))
                QDD.append(np.zeros((n_p, robot.n)))
                pause = (t0, t0 + (n_p - 1) * dt)
                t0 += n_p * dt
                continue
            T = move_s / (2 if len(legs) > 1 else 1)
            tm = np.arange(1, int(round(T * rate_hz)) + 1) * dt
            q, qd, qdd = _min_jerk(leg[0], leg[1], T, tm)
            Q.append(q), QD.append(qd), QDD.append(qdd)
            t0 += len(tm) * dt
        q_end = poses[k + 1]
    Q, QD, QDD = (np.vstack(x) for x in (Q, QD, QDD))
    t = np.arange(len(Q)) * dt
    tau = np.array([truth.inverse_dynamics(Q[i], QD[i], QDD[i]) for i in range(len(Q))])
    tau += effort_noise_nm * rng.standard_normal(tau.shape)
    q_meas = np.round((Q + position_noise_rad * rng.standard_normal(Q.shape)) / encoder_step_rad)
    q_meas *= encoder_step_rad
    qd_meas = np.vstack([np.zeros((1, robot.n)), np.diff(q_meas, axis=0) / dt])
    return StaticRecording(t, q_meas, qd_meas, tau, spans, pause, truth)


def write_bag(path, names, rec: StaticRecording, bad=None):
    """Write ``rec`` as a JointState bag (no sidecar).

    ``bad``: {sample index: (position, velocity, effort)} messages written instead of the sample
    (NaN values, arrays of the wrong length).
    """
    bad = bad or {}
    S = rec.stamps_ns
    with BagWriter(path) as bw:
        raw = bw.cdr_joint_state(S, names, rec.q, rec.qd, rec.effort)
        for k in range(len(S)):
            if k in bad:
                bw.write('/joint_states', S[k], bw.joint_state(S[k], names, *bad[k]))
            else:
                bw.write_raw('/joint_states', JOINT_STATE_TYPE, S[k], raw[k])
    return path
