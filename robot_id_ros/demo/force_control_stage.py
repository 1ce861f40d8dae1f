# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's force-control stage: hand guiding and force holding, closed on the estimate.

Runs the controller (``robot_id_ros.control``) in the closed loop without ROS
(``control.harness.ClosedLoop``): the simulated youBot of the demo's seed (``SimulatedArm``,
hidden true parameters) -> ``WrenchEstimator`` with the model identified by the demo and the
settings of config/wrench_estimator.yaml -> ``ForceController`` with config/force_controller.yaml
-> the arm, at 200 Hz. A scripted hand pushes the tool; a 2 kN/m contact plane (``sim.world``)
is put under the tool for force holding. Every figure is measured on the simulator's truth.

The scenarios here are also those of test/control/scenarios.py and
benchmarks/bench_force_control.py.
"""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from robot_id_ros.control import ControllerConfig, ForceController
from robot_id_ros.control.harness import ClosedLoop, Script
from robot_id_ros.errors import InputError
from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.io.model_file import load_model
from robot_id_ros.model.robot import package_share_dir
from robot_id_ros.ros.parameter_files import node_parameters, youbot_estimator_settings
from robot_id_ros.settings import from_plain
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.world import ContactPlane
from robot_id_ros.sim.youbot_arm import SimulatedArm

RATE_HZ = 200.0          # the demo's joint-state rate
# the tool 0.33 m in front of joint 1's axis and 0.12 m above the arm's base, pointing down
WORK_POSE_RAD = (2.9496, 1.2, -1.15, 2.8, 2.9234)
NORMAL_AXIS = 1          # the arm's plane is the base x-z plane at this pose: its normal is y
NO_DITHER = {'dither_amplitude_rad': (0.0,), 'dither_null_rad': (0.0,)}


def youbot_controller_config(**changes) -> ControllerConfig:
    """Return the controller settings of config/force_controller.yaml, with ``changes``."""
    params = node_parameters(package_share_dir() / 'config' / 'force_controller.yaml',
                             'force_controller')
    names = {f.name for f in dataclasses.fields(ControllerConfig)}
    config = from_plain(ControllerConfig, {k: v for k, v in params.items() if k in names})
    return dataclasses.replace(config, **changes)


def make_loop(model_path, seed, pose=WORK_POSE_RAD, settle_s=1.0, **changes) -> ClosedLoop:
    """Return the closed loop at rest at ``pose``, estimator tared, controller disabled.

    Args:
        model_path: the identified model file.
        seed: the simulated youBot's seed (its hidden true parameters).
        pose: joint angles to start at, rad.
        settle_s: time at rest before the tare, s.
        **changes: controller settings replacing those of config/force_controller.yaml.

    Returns:
        ``ClosedLoop``.
    """
    model = load_model(model_path)
    arm = SimulatedArm(SimConfig(seed=seed))
    arm.reset(np.asarray(pose, dtype=float))
    estimator = WrenchEstimator(model, EstimatorConfig(**youbot_estimator_settings()))
    controller = ForceController(model.robot, youbot_controller_config(**changes))
    loop = ClosedLoop(arm, estimator, controller, RATE_HZ)
    if settle_s > 0:
        loop.settle(settle_s)
    return loop


def enable(mode):
    """Return a ``Script.at`` action that sets ``mode`` and enables the controller."""
    def act(loop):
        loop.controller.set_mode(mode, loop.arm.t)
        loop.controller.set_enabled(True, loop.arm.t)
    return act


def push(axis, t_on, size):
    """Return a hand pushing the tool along base ``axis`` with ``size`` N from ``t_on`` on."""
    def hand(t):
        if t < t_on:
            return None
        w = np.zeros(6)
        w[axis] = size
        return w
    return hand


def surface_below(loop, gap_m=0.02, stiffness_n_m=2000.0, damping_n_s_m=20.0, friction=0.2):
    """Put a horizontal surface ``gap_m`` below the tool (``ContactPlane``, normal +z)."""
    pos = loop.tool_state()[0]
    plane = ContactPlane(pos - np.array([0.0, 0.0, gap_m]), (0.0, 0.0, 1.0), stiffness_n_m,
                         damping_n_s_m, friction)
    loop.arm.set_contact_plane(plane)
    return plane


def joined(a, b):
    """Return two ``ClosedLoop.run`` traces one after the other."""
    return {k: (a[k] + b[k]) if k in ('state', 'reason') else np.concatenate([a[k], b[k]])
            for k in a}


def force_hold(make, dither=True, setpoint_n=5.0, step_to_n=10.0, hold_s=11.0,
               after_step_s=3.0) -> dict:
    """Press on a 2 kN/m surface 2 cm below the tool; step the set force after ``hold_s``.

    Args:
        make: ``make(**controller changes)`` returns a settled ``ClosedLoop``.
        dither: with the dither of config/force_controller.yaml (False: none).
        setpoint_n: the set force, N; step_to_n: the set force after the step, N.
        hold_s: time from contact to the step, s; after_step_s: time after it, s.

    Returns:
        dict: rms_n (true contact force - set force, from 1 s after contact over 10 s or up to
        the step), mean_n, touch_s (contact after enabling), settle_s (the step: last time
        outside +-10 % of the new set force), min_after_step_n (contact kept when > 0),
        overshoot_n.
    """
    loop = make(**({} if dither else NO_DITHER), force_setpoint_n=setpoint_n)
    surface_below(loop)
    t0 = loop.arm.t
    tr = loop.run(2.0, Script(at={t0: enable('force_hold')}))
    while not np.any(tr['contact_n'][:, 2] > 0) and loop.arm.t < t0 + 10.0:
        tr = joined(tr, loop.run(0.5))
    touch = tr['t_s'][np.argmax(tr['contact_n'][:, 2] > 0)]
    t_step = touch + hold_s

    def step(lp):
        lp.controller.update_config(
            dataclasses.replace(lp.controller.config, force_setpoint_n=step_to_n), lp.arm.t)
    tr = joined(tr, loop.run(t_step + after_step_s - loop.arm.t, Script(at={t_step: step})))
    fz = tr['contact_n'][:, 2]
    t = tr['t_s']
    k = (t >= touch + 1.0) & (t < min(touch + 11.0, t_step))
    after = t >= t_step
    off = np.flatnonzero(after & (np.abs(fz - step_to_n) > 0.1 * step_to_n))
    return {'rms_n': float(np.sqrt(np.mean((fz[k] - setpoint_n) ** 2))),
            'mean_n': float(fz[k].mean()), 'touch_s': float(touch - t0),
            'settle_s': float(t[off[-1]] - t_step) if off.size else 0.0,
            'min_after_step_n': float(fz[after].min()),
            'overshoot_n': float(fz[after].max() - step_to_n)}


def hand_guiding(make, axis, sign=1.0, push_n=10.0, dither=True, duration_s=3.0) -> dict:
    """Push the tool with ``push_n`` along ``sign`` x base ``axis``; the speed along it.

    Returns:
        dict: speed_m_s (mean true tool speed along the push from 1.5 s after enabling to the
        end; the push starts at 0.5 s), want_m_s (admittance x (push - dead band), the dead band
        the controller used), ratio, plain_ratio (speed / (admittance x push)), across_m_s
        (largest mean speed across the push), dead_band_n (``dead_band_sigma`` x the mean sigma
        along the push: near the push, ``want_m_s`` is near zero and ratio ill-conditioned),
        stopped_for (the first reason the controller stopped for during the push, '' for none:
        a push a drive cannot hold stops guiding with 'joint gave way').
    """
    loop = make(**({} if dither else NO_DITHER))
    t0 = loop.arm.t
    tr = loop.run(duration_s, Script(hand=push(axis, t0 + 0.5, sign * push_n),
                                     at={t0: enable('hand_guiding')}))
    c = loop.controller.config
    k = tr['t_s'] > t0 + 1.5
    v = sign * tr['tool_velocity_m_s'][k].mean(axis=0)
    band = c.dead_band_sigma * tr['sigma_n'][k, axis].mean()
    want = c.admittance_m_s_n * (push_n - band)
    return {'speed_m_s': float(v[axis]), 'want_m_s': float(want),
            'ratio': float(v[axis] / want),
            'plain_ratio': float(v[axis] / (c.admittance_m_s_n * push_n)),
            'across_m_s': float(np.max(np.abs(np.delete(v, axis)))),
            'dead_band_n': float(band),
            'stopped_for': next((r for r in tr['reason'] if r), '')}


def drift(make, duration_s=10.0) -> float:
    """Hand guiding with no push: the tool's largest distance from where it was, m."""
    loop = make()
    t0 = loop.arm.t
    tr = loop.run(duration_s + 1.0, Script(at={t0: enable('hand_guiding')}))
    p = tr['tool_m'][tr['t_s'] > t0 + 1.0]
    return float(np.linalg.norm(p - p[0], axis=1).max())


def run_stage(model_path, seed, quick=False, progress=print) -> dict:
    """Run the stage: guiding pushes along x, the arm plane's normal and z, drift, force hold.

    Args:
        model_path: the identified model file (the demo's).
        seed: the simulated youBot's seed (the demo's).
        quick: shorter runs (5 s of force holding instead of 10 s, drift over 5 s).
        progress: called with one line per scenario.

    Returns:
        The ``force_control`` section of results.json: per push its speed, the admittance
        law's and their ratio; the drift; the force-hold RMS error, the step's settling time,
        smallest contact force and overshoot; the wall time.
    """
    t_wall = time.monotonic()

    def make(**changes):
        return make_loop(model_path, seed, **changes)
    guiding = {}
    for name, axis, sign in (('+x', 0, 1.0), ('+y (normal)', NORMAL_AXIS, 1.0), ('-z', 2, -1.0)):
        r = hand_guiding(make, axis, sign)
        guiding[name] = r
        progress(f'        hand guiding 10 N along {name}: {1e3 * r["speed_m_s"]:.1f} mm/s, '
                 f'{r["ratio"]:.2f} x the admittance law')
    still = drift(make, 5.0 if quick else 10.0)
    progress(f'        no push: drift {1e3 * still:.2f} mm')
    hold = force_hold(make, hold_s=6.0 if quick else 11.0, after_step_s=2.0)
    progress(f'        force hold 5 N on 2 kN/m: RMS error {hold["rms_n"]:.2f} N; step to 10 N '
             f'settled after {hold["settle_s"]:.2f} s, contact kept '
             f'(min {hold["min_after_step_n"]:.1f} N)')
    return {'hand_guiding': guiding, 'drift_m': still,
            'drift_duration_s': 5.0 if quick else 10.0, 'force_hold': hold,
            'push_n': 10.0, 'setpoint_n': 5.0, 'step_to_n': 10.0, 'stiffness_n_m': 2000.0,
            'wall_s': time.monotonic() - t_wall}


def run_alone(out_dir, model_path, seed, quick=False) -> dict:
    """Run only the stage (``robot-id demo --force-control-only``) and write its report.

    Args:
        out_dir: report folder (results.json, results.md).
        model_path: an identified model file of the simulated youBot ``seed``.
        seed: the simulated youBot's seed.
        quick: shorter runs.

    Returns:
        results.json's content.

    Raises:
        InputError: the model file is missing or not a model of this arm.
    """
    from robot_id_ros.demo import report
    from robot_id_ros.demo.processes import log

    path = Path(model_path)
    if not path.is_file():
        raise InputError(f'model file {path} does not exist: give the youbot_model.yaml of an '
                         'earlier demo (or robot-id identify\'s output)', 'input')
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    log(f'force control on {path} (simulated youBot, seed {seed}, in this process)')
    results = {'force_control': run_stage(path, seed, quick, log)}
    report.write_report(out, results)
    return results
