# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulator's physics step written plainly with numpy arrays: the reference of the fast step.

This is the former ``SimulatedArm.step`` (array code, before it moved to Python floats), as a
function of the arm's state that leaves the arm unchanged. ``test_sim_step_reference`` checks
that one fast step from any state of a run gives the same result.
"""
import copy

import numpy as np
import pinocchio as pin


def _sample(plan, t):
    tau = t - plan.t_start
    T = plan.T
    if tau <= T[0]:
        return plan.P[0].copy(), (plan.V[0].copy() if plan.hermite else np.zeros(len(plan.P[0])))
    if tau >= T[-1]:
        return plan.P[-1].copy(), np.zeros(len(plan.P[0]))
    s = int(np.searchsorted(T, tau, side='right')) - 1
    h = T[s + 1] - T[s]
    u = (tau - T[s]) / h
    p0, p1 = plan.P[s], plan.P[s + 1]
    if not plan.hermite:
        return np.clip(p0 + u * (p1 - p0), plan.lower, plan.upper), (p1 - p0) / h
    m0, m1 = plan.V[s] * h, plan.V[s + 1] * h
    u2, u3 = u * u, u * u * u
    q = ((2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0
         + (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * m1)
    qd = ((6 * u2 - 6 * u) * p0 + (3 * u2 - 4 * u + 1) * m0
          + (-6 * u2 + 6 * u) * p1 + (3 * u2 - 2 * u) * m1) / h
    return np.clip(q, plan.lower, plan.upper), qd


def _friction(arm, qd, d, mask):
    qd, d = qd[mask], d[mask]
    fc = np.where(d > 0, arm._fcp[mask], arm._fcn[mask])
    return d * fc * (1.0 + (arm._ratio - 1.0) * np.exp(-(qd / arm._vs)**2)) + arm._fv[mask] * qd


def _control(arm, dt):
    q_d, qd_d = _sample(arm.plan, arm.t) if arm.plan is not None else (arm.q_set, 0.0)
    res_q, res_qd = arm.drives.position_resolution_rad, arm.drives.velocity_resolution_rad_s
    qm = np.round(arm.q / res_q) * res_q if arm.config.quantize else arm.q
    qdm = np.round(arm.qd / res_qd) * res_qd if arm.config.quantize else arm.qd
    e = q_d - qm
    integral = arm.integral.copy()
    grow = np.abs(e) > arm.config.integral_deadband_rad
    if grow.any():
        integral = integral + np.where(grow, e * dt, 0.0)
        lim = arm.torque_limit / np.where(arm.ki > 0, arm.ki, 1.0)
        integral = np.clip(integral, -lim, lim)
    tau = arm.kp * e + arm.ki * integral + arm.kd * (qd_d - qdm)
    return np.clip(tau, -arm.torque_limit, arm.torque_limit), integral


def _solve(arm, M, a, qd, d, stop, dt):
    n = arm.n
    released = np.zeros(n, dtype=bool)
    qdd = np.zeros(n)
    for _ in range(3 * n + 2):
        stuck = d == 0
        free = ~stuck
        qdd = np.zeros(n)
        if free.any():
            qdd[free] = np.linalg.solve(M[np.ix_(free, free)],
                                        a[free] - _friction(arm, qd, d, free))
        if stuck.any():
            r = a - M @ qdd
            excess = np.abs(r) / np.where(r > 0, arm.breakaway_pos, arm.breakaway_neg)
            cand = stuck & ~((stop != 0) & (np.sign(r) == stop)) & (excess > 1.0)
            if cand.any():
                j = int(np.flatnonzero(cand)[np.argmax(excess[cand])])
                d[j], stop[j], released[j] = (1 if r[j] > 0 else -1), 0, True
                continue
        if free.any():
            rev = free & (d * (qd + qdd * dt) < 0) & ~released
            if rev.any():
                d[rev], qd[rev] = 0, 0.0
                continue
            back = released & (d * qdd < 0)
            if back.any():
                d[back], released[back] = 0, False
                continue
        break
    return qdd


def reference_step(arm):
    """Return the state one step after ``arm``'s, by the array code; ``arm`` is not changed.

    Returns:
        dict of q, qd, qdd, dir, stop, integral, tau_motor (arrays).
    """
    dt, pm, pd = arm.dt, arm._pm, arm._pd
    q, qd, d, stop = arm.q.copy(), arm.qd.copy(), arm.dir.copy(), arm.stop.copy()
    tau, integral = _control(arm, dt)
    tau_net = tau + arm.loads.update(q, qd, arm.t + dt)
    qdd = None
    if d.all():
        qdd = pin.aba(pm, pd, q, qd, tau_net - _friction(arm, qd, d, d != 0)).copy()
        if np.any(d * (qd + qdd * dt) < 0):
            qdd = None
    if qdd is None:
        M = pin.crba(pm, pd, q).copy()
        M = np.triu(M) + np.triu(M, 1).T
        qdd = _solve(arm, M, tau_net - pin.nonLinearEffects(pm, pd, q, qd), qd, d, stop, dt)
    qd_new = qd + qdd * dt
    qd_new[d == 0] = 0.0
    q_new = q + qd_new * dt
    for j in np.flatnonzero((q_new > arm.upper) | (q_new < arm.lower)):
        up = bool(q_new[j] > arm.upper[j])
        q_new[j] = arm.upper[j] if up else arm.lower[j]
        qd_new[j] = -arm.config.end_stop_restitution * qd_new[j]
        d[j] = 0 if qd_new[j] == 0.0 else (1 if qd_new[j] > 0 else -1)
        stop[j] = 1 if up else -1
    return dict(q=q_new, qd=qd_new, qdd=qdd, dir=d, stop=stop, integral=integral,
                tau_motor=tau)


def reference_measurement(arm):
    """Return (position, velocity, current) the array code measures now; ``arm`` is unchanged.

    The noise comes from a copy of the drives' generator, so the arm's own draws are the same.
    """
    dr = arm.drives
    pos = np.round(arm.q / dr.position_resolution_rad) * dr.position_resolution_rad
    vel = np.round(arm.qd / dr.velocity_resolution_rad_s) * dr.velocity_resolution_rad_s
    rng = copy.deepcopy(dr.rng)
    i = arm.tau_motor / dr.drive_gains_nm_a + dr.current_noise_a * rng.standard_normal(arm.n)
    current = np.round(i / dr.current_resolution_a) * dr.current_resolution_a
    return pos, vel, current
