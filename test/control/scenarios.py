# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Issue 17's acceptance scenarios on the closed loop (``cases``), each returning its figures.

Shared by test/control/test_acceptance.py and benchmarks/bench_force_control.py. Every figure
is measured on the simulator's truth: the tool's true motion, the plane's true force, the true
wrench of the hand.
"""
import dataclasses

import numpy as np
from cases import NORMAL_AXIS, enable, make_loop, surface_below

from robot_id_ros.control.harness import Script

NO_DITHER = {'dither_amplitude_rad': (0.0,), 'dither_null_rad': (0.0,)}
STILL_M_S = 1e-3


def push(axis, t_on, size):
    """A hand pushing the tool along base ``axis`` with ``size`` N from ``t_on`` on."""
    def hand(t):
        if t < t_on:
            return None
        w = np.zeros(6)
        w[axis] = size
        return w
    return hand


def force_hold(dither=True, setpoint_n=5.0, step_to_n=10.0, hold_s=11.0, after_step_s=3.0):
    """Press on a 2 kN/m surface 2 cm below the tool; step the set force after ``hold_s``.

    Returns:
        dict: rms_n (true contact force - set force, from 1 s after contact over 10 s), mean_n,
        touch_s (contact after enabling), settle_s (the step: last time outside +-10 % of the
        new set force), min_after_step_n (contact kept when > 0), overshoot_n.
    """
    loop = make_loop(**({} if dither else NO_DITHER), force_setpoint_n=setpoint_n)
    surface_below(loop)
    t0 = loop.arm.t
    tr = loop.run(2.0, Script(at={t0: enable('force_hold')}))
    while not np.any(tr['contact_n'][:, 2] > 0) and loop.arm.t < t0 + 10.0:
        tr = _joined(tr, loop.run(0.5))
    touch = tr['t_s'][np.argmax(tr['contact_n'][:, 2] > 0)]
    t_step = touch + hold_s

    def step(lp):
        lp.controller.update_config(
            dataclasses.replace(lp.controller.config, force_setpoint_n=step_to_n), lp.arm.t)
    tr = _joined(tr, loop.run(t_step + after_step_s - loop.arm.t, Script(at={t_step: step})))
    fz = tr['contact_n'][:, 2]
    t = tr['t_s']
    k = (t >= touch + 1.0) & (t < touch + 11.0)
    after = t >= t_step
    off = np.flatnonzero(after & (np.abs(fz - step_to_n) > 0.1 * step_to_n))
    return {'rms_n': float(np.sqrt(np.mean((fz[k] - setpoint_n) ** 2))),
            'mean_n': float(fz[k].mean()), 'touch_s': float(touch - t0),
            'settle_s': float(t[off[-1]] - t_step) if off.size else 0.0,
            'min_after_step_n': float(fz[after].min()),
            'overshoot_n': float(fz[after].max() - step_to_n)}


def _joined(a, b):
    return {k: (a[k] + b[k]) if k in ('state', 'reason') else np.concatenate([a[k], b[k]])
            for k in a}


def hand_guiding(axis, sign=1.0, push_n=10.0, dither=True):
    """Push the tool with ``push_n`` along ``sign`` x base ``axis``; the speed along it.

    Returns:
        dict: speed_m_s (mean true tool speed along the push, 1.5-3 s after enabling; the push
        starts at 0.5 s), want_m_s (admittance x (push - dead band), the dead band the controller
        used), ratio, plain_ratio (speed / (admittance x push)), across_m_s (largest mean speed
        across the push).
    """
    loop = make_loop(**({} if dither else NO_DITHER))
    t0 = loop.arm.t
    tr = loop.run(3.0, Script(hand=push(axis, t0 + 0.5, sign * push_n),
                              at={t0: enable('hand_guiding')}))
    c = loop.controller.config
    k = tr['t_s'] > t0 + 1.5
    v = sign * tr['tool_velocity_m_s'][k].mean(axis=0)
    band = c.dead_band_sigma * tr['sigma_n'][k, axis].mean()
    want = c.admittance_m_s_n * (push_n - band)
    return {'speed_m_s': float(v[axis]), 'want_m_s': float(want),
            'ratio': float(v[axis] / want),
            'plain_ratio': float(v[axis] / (c.admittance_m_s_n * push_n)),
            'across_m_s': float(np.max(np.abs(np.delete(v, axis))))}


def drift(duration_s=10.0):
    """Hand guiding with no push: the tool's largest distance from where it was, m."""
    loop = make_loop()
    t0 = loop.arm.t
    tr = loop.run(duration_s + 1.0, Script(at={t0: enable('hand_guiding')}))
    p = tr['tool_m'][tr['t_s'] > t0 + 1.0]
    return float(np.linalg.norm(p - p[0], axis=1).max())


STEPS = ((0.0, 0.0), (2.0, 5.0), (5.0, 0.0), (8.0, -5.0), (11.0, 0.0))   # (s, N along normal)


def at_rest(dither=True):
    """Hold with 5 N steps along the arm plane's normal (as the demo's lateral steps).

    Returns:
        dict: rms_normal_n (estimate - true force along the normal, leaving out 0.25 s after
        each step), rms_n (3,) per axis, dither_tool_m (the tool's largest distance from its mean
        position while no force acts: the dither's motion), dither_model_m (the controller's
        linear prediction of that amplitude).
    """
    loop = make_loop(**({} if dither else NO_DITHER))
    t0 = loop.arm.t + 0.5

    def hand(t):
        f = [v for ts, v in STEPS if t - t0 >= ts]
        w = np.zeros(6)
        w[NORMAL_AXIS] = f[-1] if f else 0.0
        return w
    tr = loop.run(14.5, Script(hand=hand, at={loop.arm.t: enable('hold')}))
    r = tr['t_s'] - t0
    k = np.all([np.abs(r - ts) > 0.25 for ts, _ in STEPS], axis=0) & (r > 0.5)
    e = tr['force_est_n'][k] - tr['force_true_n'][k]
    quiet = (r > 0.75) & (r < 2.0)
    p = tr['tool_m'][quiet]
    return {'rms_normal_n': float(np.sqrt(np.mean(e[:, NORMAL_AXIS] ** 2))),
            'rms_n': np.sqrt(np.mean(e ** 2, axis=0)),
            'dither_tool_m': float(np.linalg.norm(p - p.mean(axis=0), axis=1).max()),
            'dither_model_m': loop.controller.dither_tool_amplitude_m()}


def moving_loop():
    """The loop in hand guiding, the tool moving along x under a 10 N push (kept on)."""
    loop = make_loop()
    t0 = loop.arm.t
    loop.run(2.0, Script(hand=push(0, t0 + 0.3, 10.0), at={t0: enable('hand_guiding')}))
    return loop


def safety_stop(cause):
    """Stop the moving tool by ``cause`` ('stale', 'collision', 'disable'); the hand pushes on.

    Returns:
        dict: stop_s (from the moment the cause applies - for 'stale' the estimate's last
        arrival plus stale_timeout_s - until the tool speed stays below 1 mm/s over the next
        0.5 s), speed_before_m_s, held (the controller's set point unchanged from 0.1 s on).
    """
    loop = moving_loop()
    speed0 = float(np.linalg.norm(loop.tool_state()[1]))
    t1 = loop.arm.t
    script = Script(hand=push(0, 0.0, 10.0))
    t_cause = t1
    if cause == 'stale':
        script.estimate_lost = lambda t: t >= t1
        t_cause = t1 + loop.controller.config.stale_timeout_s
    elif cause == 'collision':
        script.collision = lambda t: t >= t1
    else:
        script.at = {t1: lambda lp: lp.controller.set_enabled(False, lp.arm.t)}
    tr = loop.run(t_cause + 0.1 - t1, script)
    held = loop.controller.q_ref.copy()
    tr = _joined(tr, loop.run(0.4, script))
    speed = np.linalg.norm(tr['tool_velocity_m_s'], axis=1)
    moving = np.flatnonzero((tr['t_s'] >= t_cause) & (speed >= STILL_M_S))
    stop = float(tr['t_s'][moving[-1]] - t_cause) if moving.size else 0.0
    return {'stop_s': stop, 'speed_before_m_s': speed0,
            'held': bool(np.array_equal(held, loop.controller.q_ref))}
