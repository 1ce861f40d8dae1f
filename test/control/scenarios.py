# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Issue 17's acceptance scenarios on the closed loop (``cases``), each returning its figures.

Shared by test/control/test_closed_loop.py and benchmarks/bench_force_control.py; force hold,
hand guiding and drift are the demo stage's (``robot_id_ros.demo.force_control_stage``) on the
test arm. Every figure is measured on the simulator's truth: the tool's true motion, the plane's
true force, the true wrench of the hand.
"""
from functools import partial

import numpy as np
from cases import NORMAL_AXIS, SEED, enable, make_loop

from robot_id_ros.control.harness import Script
from robot_id_ros.demo import force_control_stage as stage
from robot_id_ros.demo.force_control_stage import NO_DITHER, joined as _joined, push  # noqa

STILL_M_S = 1e-3
STILL_FOR_S = 0.2


def force_hold(dither=True, setpoint_n=5.0, step_to_n=10.0, hold_s=11.0, after_step_s=3.0,
               seed=SEED):
    """``force_control_stage.force_hold`` on the test arm ``seed`` (its figures)."""
    return stage.force_hold(partial(make_loop, seed), dither, setpoint_n, step_to_n, hold_s,
                            after_step_s)


def hand_guiding(axis, sign=1.0, push_n=10.0, dither=True, seed=SEED):
    """``force_control_stage.hand_guiding`` on the test arm ``seed`` (its figures)."""
    return stage.hand_guiding(partial(make_loop, seed), axis, sign, push_n, dither)


def drift(duration_s=10.0, seed=SEED):
    """``force_control_stage.drift`` on the test arm ``seed``: the largest distance, m."""
    return stage.drift(partial(make_loop, seed), duration_s)


STEPS = ((0.0, 0.0), (2.0, 5.0), (5.0, 0.0), (8.0, -5.0), (11.0, 0.0))   # (s, N along normal)


def at_rest(dither=True, seed=SEED):
    """Hold with 5 N steps along the arm plane's normal (as the demo's lateral steps).

    Returns:
        dict: rms_normal_n (estimate - true force along the normal, leaving out 0.25 s after
        each step), rms_n (3,) per axis, dither_tool_m (the tool's largest distance from its mean
        position while no force acts: the dither's motion), dither_model_m (the controller's
        linear prediction of that amplitude).
    """
    loop = make_loop(seed, **({} if dither else NO_DITHER))
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


def moving_loop(seed=SEED):
    """The loop in hand guiding, the tool moving along x under a 10 N push (kept on)."""
    loop = make_loop(seed)
    t0 = loop.arm.t
    loop.run(2.0, Script(hand=push(0, t0 + 0.3, 10.0), at={t0: enable('hand_guiding')}))
    return loop


def safety_stop(cause, seed=SEED):
    """Stop the moving tool by ``cause`` ('stale', 'collision', 'disable'); the hand pushes on.

    Returns:
        dict: stop_s (from the moment the cause applies - for 'stale' the estimate's last
        arrival plus stale_timeout_s - until the tool speed stays below 1 mm/s for
        ``STILL_FOR_S``), speed_before_m_s, held (the controller's set point unchanged from
        0.1 s on), creep_m_s (the largest tool speed after the stop, within 0.5 s of the cause:
        the drives' integral term returning the arm to the held set point against the hand).
    """
    loop = moving_loop(seed)
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
    t = tr['t_s']
    after = np.flatnonzero(t >= t_cause)
    # the first sample from which the tool stays below 1 mm/s for STILL_FOR_S
    first = next((i for i in after if np.all(speed[(t >= t[i]) & (t < t[i] + STILL_FOR_S)]
                                             < STILL_M_S)), None)
    stop = float(t[first] - t_cause) if first is not None else float('inf')
    late = speed[t >= t[first]] if first is not None else speed[after]
    return {'stop_s': stop, 'speed_before_m_s': speed0,
            'held': bool(np.array_equal(held, loop.controller.q_ref)),
            'creep_m_s': float(late.max()) if late.size else 0.0}
