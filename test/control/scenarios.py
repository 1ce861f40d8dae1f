# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Issue 17's acceptance scenarios on the closed loop (``cases``), each returning its figures.

Shared by test/control/test_closed_loop.py and benchmarks/bench_force_control.py; force hold,
hand guiding and drift are the demo stage's (``robot_id_ros.demo.force_control_stage``) on the
test arm. Every figure is measured on the simulator's truth: the tool's true motion, the plane's
true force, the true wrench of the hand.
"""
from dataclasses import replace
from functools import partial

import numpy as np
from cases import NORMAL_AXIS, SEED, WORK_POSE_RAD, enable, make_loop

from robot_id_ros.control.harness import Script
from robot_id_ros.demo import force_control_stage as stage
from robot_id_ros.demo.force_control_stage import NO_DITHER, joined as _joined, push  # noqa
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.true_model import true_model_of
from robot_id_ros.sim.youbot_arm import SimulatedArm

WRIST = 3          # joint 4, the youBot's wrist pitch (2 Nm drive)
# the work pose with the wrist turned 90 deg down: the tool along the base's x axis, so a push
# along -x has (almost) no moment about the wrist (0.07-0.17 of its limit at 10 N; the work pose
# needs 1.25); +-z pushes then load the wrist instead (-z gives way at 10 N)
TOOL_ALONG_X_POSE_RAD = tuple(np.asarray(WORK_POSE_RAD)
                              - np.radians(90.0) * (np.arange(5) == WRIST))

STILL_M_S = 1e-3
WATCH_S = 1.0       # the safety stops: the tool is watched this long after the cause, s


def force_hold(dither=True, setpoint_n=5.0, step_to_n=10.0, hold_s=11.0, after_step_s=3.0,
               seed=SEED):
    """``force_control_stage.force_hold`` on the test arm ``seed`` (its figures)."""
    return stage.force_hold(partial(make_loop, seed), dither, setpoint_n, step_to_n, hold_s,
                            after_step_s)


def hand_guiding(axis, sign=1.0, push_n=10.0, dither=True, seed=SEED, pose=WORK_POSE_RAD):
    """``force_control_stage.hand_guiding`` on the test arm ``seed`` from ``pose`` (rad)."""
    return stage.hand_guiding(partial(make_loop, seed, pose), axis, sign, push_n, dither)


def drift(duration_s=10.0, seed=SEED):
    """``force_control_stage.drift`` on the test arm ``seed``: the largest distance, m."""
    return stage.drift(partial(make_loop, seed), duration_s)


def true_arm(seed=SEED):
    """Return (true model, drive torque limits (n,) Nm) of the simulated youBot ``seed``."""
    arm = SimulatedArm(SimConfig(seed=seed))
    return true_model_of(arm), arm.torque_limit.copy()


def static_drive_torque_nm(force_n, pose=WORK_POSE_RAD, seed=SEED):
    """Return the drive torques (n,) that hold the arm still at ``pose`` against a push.

    Statics on the simulator's true parameters: ``g(q) - J(q)^T [F; 0]``, F the hand's force
    (3,) at the tool, base frame, N (friction left out: a moving joint needs its Coulomb torque
    on top).
    """
    model, _ = true_arm(seed)
    q = np.asarray(pose, dtype=float)
    J = model.robot.tool_jacobian(q, 'base')
    return model.robot.gravity_torque(q) - J[:3].T @ np.asarray(force_n, dtype=float)


def wrist_torque_by_pitch(push_n=10.0, seed=SEED, step_deg=1.0):
    """The wrist torque a push along +-x or +-z needs, over every tool pitch (statics).

    The wrist's torque depends only on the pitch of links 4-5 and the tool (the angle
    q2 + q3 + q4 of the parallel joints), not on where the tool is: it is swept by turning
    joint 4 of the work pose through a full turn (beyond its range too, so the figure covers
    every reachable pose). For each pitch the largest torque over the four pushes is
    ``|g4| + push x max(|J4 . x|, |J4 . z|)`` (the pushes of either sign add to or take from
    gravity).

    Returns:
        dict: pitch_rad (m,) (joint 4's offset from the work pose), worst_nm (m,) the largest
        wrist torque over the four pushes, gravity_nm (m,), lever_m (m,) max(|J4 . x|, |J4 . z|),
        limit_nm (the wrist drive's limit), max_push_n (m,) the largest push along all four the
        wrist holds at that pitch (friction left out).
    """
    model, limits = true_arm(seed)
    q0 = np.asarray(WORK_POSE_RAD, dtype=float)
    offsets = np.radians(np.arange(-180.0, 180.0, step_deg))
    worst, grav, lever = [], [], []
    for d in offsets:
        q = q0.copy()
        q[WRIST] += d
        J = model.robot.tool_jacobian(q, 'base')[:3, WRIST]
        g = float(model.robot.gravity_torque(q)[WRIST])
        a = max(abs(J[0]), abs(J[2]))
        worst.append(abs(g) + push_n * a)
        grav.append(g)
        lever.append(a)
    grav, lever = np.asarray(grav), np.asarray(lever)
    limit = float(limits[WRIST])
    return {'pitch_rad': offsets, 'worst_nm': np.asarray(worst), 'gravity_nm': grav,
            'lever_m': lever, 'limit_nm': limit,
            'max_push_n': (limit - np.abs(grav)) / lever}


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


def moving_loop(seed=SEED, **changes):
    """The loop in hand guiding, the tool moving along x under a 10 N push (kept on)."""
    loop = make_loop(seed, **changes)
    t0 = loop.arm.t
    loop.run(2.0, Script(hand=push(0, t0 + 0.3, 10.0), at={t0: enable('hand_guiding')}))
    return loop


# the bad inputs ``safety_stop`` feeds the controller from the cause on, instead of the estimate
BAD_INPUTS = {
    'nan_wrench': lambda inp, t: replace(inp, force_n=np.full(3, np.nan)),
    'nan_sigma': lambda inp, t: replace(inp, sigma_n=np.array([0.3, np.nan, 0.3])),
    'future_stamp': lambda inp, t: replace(inp, stamp_s=t + 3600.0),
    'foreign_frame': lambda inp, t: replace(inp, frame_id='arm_link_5'),
    'no_frame': lambda inp, t: replace(inp, frame_id=''),
}


def feed_bad_input(loop, t_from_s, cause):
    """From ``t_from_s`` on, ``loop``'s controller gets ``BAD_INPUTS[cause]`` of each estimate.

    'future_stamp' is one estimate stamped an hour ahead and nothing after it (as a peer
    publishing once would make it the newest).
    """
    step, first = loop.controller.step, []

    def fed(t_s, q, inp, q_stamp_s=None):
        if t_s >= t_from_s - 1e-9 and inp is not None:
            if cause == 'future_stamp':
                first.append(first[0] if first else BAD_INPUTS[cause](inp, t_s))
                inp = first[-1]
            else:
                inp = BAD_INPUTS[cause](inp, t_s)
        return step(t_s, q, inp, q_stamp_s)
    loop.controller.step = fed


def safety_stop(cause, seed=SEED, watch_s=WATCH_S, **changes):
    """Stop the moving tool by ``cause`` ('stale', 'collision', 'disable' or one of
    ``BAD_INPUTS``); the hand pushes on.

    Args:
        cause: what stops it.
        seed: the simulated youBot.
        watch_s: how long after the cause the tool is watched, s.
        **changes: controller settings (e.g. ``stop_relax_s=0.0``: the set point stays where
            the stop left it).

    Returns:
        dict: stop_s (from the moment the cause applies - for 'stale' the estimate's last
        arrival plus stale_timeout_s - to the last sample of the window at which the tool
        moved at 1 mm/s or faster: from then on it stays below for the whole window),
        speed_before_m_s, late_m_s (the largest tool speed from 0.1 s after the cause to the
        end of the window), held (from 0.1 s after the cause on, the controller's set point
        only ever came closer to the measured joints: it holds the arm where it rests and never
        pulls it anywhere), gap_rad (the largest joint offset of the set point from the measured
        joints at 0.1 s after the cause and at the end), reasons (the controller's stop reasons
        from the cause on).
    """
    loop = moving_loop(seed, **changes)
    speed0 = float(np.linalg.norm(loop.tool_state()[1]))
    t1 = loop.arm.t
    script = Script(hand=push(0, 0.0, 10.0))
    t_cause = t1
    if cause == 'stale':
        script.estimate_lost = lambda t: t >= t1
        t_cause = t1 + loop.controller.config.stale_timeout_s
    elif cause == 'collision':
        script.collision = lambda t: t >= t1
    elif cause in BAD_INPUTS:
        feed_bad_input(loop, t1, cause)
    else:
        script.at = {t1: lambda lp: lp.controller.set_enabled(False, lp.arm.t)}
    tr = loop.run(t_cause + 0.1 - t1, script)
    gaps = []
    while loop.arm.t < t_cause + watch_s - 1e-9:
        gaps.append(float(np.max(np.abs(loop.controller.q_ref - loop.arm.q))))
        tr = _joined(tr, loop.run(min(0.05, t_cause + watch_s - loop.arm.t), script))
    gaps.append(float(np.max(np.abs(loop.controller.q_ref - loop.arm.q))))
    speed = np.linalg.norm(tr['tool_velocity_m_s'], axis=1)
    t = tr['t_s']
    after = t >= t_cause
    moving = t[after & (speed >= STILL_M_S)]
    late = speed[t >= t_cause + 0.1]
    return {'stop_s': float(moving.max() - t_cause) if moving.size else 0.0,
            'speed_before_m_s': speed0, 'late_m_s': float(late.max()),
            'held': bool(np.all(np.diff(gaps) <= 1e-9)), 'gap_rad': (gaps[0], gaps[-1]),
            'reasons': sorted({r for r, a in zip(tr['reason'], after) if a and r})}


def overload_push(seed=SEED, push_n=10.0, push_s=1.5, after_s=1.5, **changes):
    """Guide with a push along -x the wrist cannot hold at the work pose; then let go.

    Args:
        seed: the simulated youBot.
        push_n: the push, N; push_s: how long it lasts, s; after_s: watched after it, s.
        **changes: controller settings.

    Returns:
        dict: stop_reason (the first reason the controller stopped for, '' for none),
        stop_after_s (from the push's onset), wrist_travel_rad (joint 4's largest distance from
        where it was when the push began, while pushed), spring_back_rad (how far joint 4 moved
        back towards its start in the ``after_s`` after the push let go), reasons_after,
        rejected (joint states the controller did not use: a real push moves the wrist
        continuously, none).
    """
    loop = make_loop(seed, **changes)
    t0 = loop.arm.t
    q_start = float(loop.arm.q[WRIST])
    t_on, t_off = t0 + 0.5, t0 + 0.5 + push_s

    def hand(t):
        return push(0, t_on, -push_n)(t) if t < t_off else None
    tr, travel = None, 0.0
    while loop.arm.t < t_off - 1e-9:
        script = Script(hand=hand, at={t0: enable('hand_guiding')} if tr is None else {})
        part = loop.run(min(0.05, t_off - loop.arm.t), script)
        tr = part if tr is None else _joined(tr, part)
        travel = max(travel, abs(float(loop.arm.q[WRIST]) - q_start))
    q_released = float(loop.arm.q[WRIST])
    after = loop.run(after_s, Script(hand=hand))
    reasons = [(t, r) for t, r in zip(tr['t_s'], tr['reason']) if r]
    back = np.sign(q_released - q_start) * (q_released - float(loop.arm.q[WRIST]))
    return {'stop_reason': reasons[0][1] if reasons else '',
            'stop_after_s': float(reasons[0][0] - t_on) if reasons else float('nan'),
            'wrist_travel_rad': travel, 'spring_back_rad': float(back),
            'reasons_after': sorted(set(after['reason'])),
            'rejected': loop.controller.joints.rejected}


FORGED_OFFSET_RAD = (2.0, 0.0, 0.0, 0.0, 0.0)     # a forged joint state: joint 1 2 rad away


def forged_joint_states(when, seed=SEED, count=3, spacing_s=0.01):
    """Forge ``count`` joint states (``FORGED_OFFSET_RAD`` off the arm) ``spacing_s`` apart.

    Args:
        when: 'hold' (enabled in hold for 1 s), 'stop' (hand guiding under a 10 N push, the
            first forged one arriving with a disable) or 'enable' (the last joint state before
            ``~/enable`` is forged; enabling is tried then and, if refused, 0.2 s later).
        seed: the simulated youBot.
        count, spacing_s: how many forged joint states, and how far apart, s.

    Returns:
        dict: max_step_rad (the largest joint change between two consecutive set points sent),
        step_bound_rad (the joint speed limit plus the dither's peak speed, times the step,
        plus twice the dither amplitude: the most a set point may change in a step),
        first_gap_rad (the largest joint offset of the first set point sent after the forging
        from the arm), tool_speed_m_s (the largest true tool speed after the forging), travel_m
        (the tool's largest distance from where it was), rejected (joint states not used),
        refused (why enabling was refused, '' if it was not).
    """
    loop = make_loop(seed)
    ctl, t0 = loop.controller, loop.arm.t
    sent, step, result, forged = [], ctl.step, {'refused': ''}, []

    def fed(t_s, q, inp, q_stamp_s=None):
        if any(abs(t_s - tf) < 1e-6 for tf in forged):
            q = np.asarray(q) + np.asarray(FORGED_OFFSET_RAD)
        cmd = step(t_s, q, inp, q_stamp_s)
        if cmd.send:
            sent.append((cmd.q_rad.copy(), loop.arm.q.copy()))
        return cmd
    ctl.step = fed
    if when != 'enable':
        mode = 'hand_guiding' if when == 'stop' else 'hold'
        loop.run(1.0, Script(hand=push(0, t0 + 0.3, 10.0) if when == 'stop' else None,
                             at={t0: enable(mode)}))
    t1 = loop.arm.t + loop.period_s
    forged += [t1 + k * spacing_s for k in range(count)]
    n_before = len(sent)

    def try_enable(lp):
        result['refused'] = result['refused'] or (ctl.enable_problem(lp.arm.t) or '')
        if not ctl.enable_problem(lp.arm.t):
            enable('hold')(lp)
    at = {forged[-1]: try_enable, forged[-1] + 0.2: try_enable} if when == 'enable' else {}
    if when == 'stop':
        at = {t1: lambda lp: ctl.set_enabled(False, lp.arm.t)}
    p0 = loop.tool_state()[0]
    tr = loop.run(1.0, Script(hand=push(0, 0.0, 10.0) if when == 'stop' else None, at=at))
    c = ctl.config
    peak = 2.0 * np.pi * c.dither_frequency_hz
    amp = float(np.max(c.dither_rad(ctl.n)) + np.max(c.dither_rad(ctl.n, 'dither_null_rad')))
    steps = [np.max(np.abs(a[0] - b[0])) for a, b in zip(sent[1:], sent[:-1])]
    result.update(
        max_step_rad=float(max(steps)) if steps else 0.0,
        step_bound_rad=(c.max_joint_speed_rad_s + peak * amp) * loop.period_s + 2.0 * amp,
        first_gap_rad=(float(np.max(np.abs(sent[n_before][0] - sent[n_before][1])))
                       if len(sent) > n_before else 0.0),
        tool_speed_m_s=float(np.max(np.linalg.norm(tr['tool_velocity_m_s'], axis=1))),
        travel_m=float(np.max(np.linalg.norm(tr['tool_m'] - p0, axis=1))),
        rejected=ctl.joints.rejected if hasattr(ctl, 'joints') else 0)
    return result
