# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction that drifts: the force error of a warming arm, with and without tracking, and floor.

The simulated youBot with ``friction_drift`` on (robot_id_ros/demo/friction_drift.py) starts at
the ambient temperature and works through the warm-up scenario: mixed motion with force steps
and holds, a constant 10 N push held for 10 s at the start and at the end. The simulator core
runs it without ROS, as fast as it computes, joint states at 200 Hz. The estimator core
(``WrenchEstimator``, update by update, the youBot settings of config/wrench_estimator.yaml, no
tare) reads them with

  cold     the true parameters of the cold arm: its friction at the ambient temperature, with
           the law's Coulomb friction per Nm of load (what ``robot-id identify`` fits when its
           held-out rule picks the load column, as it does on the warming arm of
           ``robot-id demo --friction-drift``), kept for the whole run (no adaptation);
  tracked  the same with ``friction_tracking`` on (the estimator follows the friction while the
           arm moves without contact);
  floor    the true parameters of the moment: the friction at each --floor-window's mean
           temperature with the same load term, the estimator run from 5 s before the window.

The true models carry the residual std of the simulator's current noise (times the drive
gains, Nm), as an identification of the arm measures it. With ``--start-without-load`` cold and
tracked start from the cold friction at the mean load of the scenario's motion instead, and no
load term (an identification without the load column; the floor keeps its load term). With
``--model FILE`` they start from an identified model: the one ``robot-id demo --seed S``
identified (its youbot_model.yaml) on the arm of the same seed (the demo's arm has the
scenario's hidden parameters; with ``--friction-drift`` it warms up). The arm starts cold, or
with ``--start-temperatures DIR/truth/true_parameters.yaml`` where that demo's arm ended: the
work that follows an identification on the arm it warmed.

Per time bin: the joints' mean temperature rise, the RMS force error in contact-free motion and
at rest of each, and their ratios to the floor; the published sigma's 2-sigma coverage over every
phase and the false contact samples in the contact-free ones; then the 10 N pushes' error at
their end (mean of the last 0.5 s). The load is the torque each gear passes to its link: the
estimator takes it from the measured torque less the friction, the simulator from its links'
dynamics, and its breakaway follows the load too.

    .venv/bin/python benchmarks/bench_friction_drift.py [--seed 0] [--minutes 30] [--bin 5]
"""
import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from robot_id_ros.demo import results as R  # noqa: E402
from robot_id_ros.demo.friction_drift import (PUSH_LABEL, scenario_sim_config,  # noqa: E402
                                              warm_up_scenario)
from robot_id_ros.estimate import EstimatorConfig  # noqa: E402
from robot_id_ros.io.model_file import load_model  # noqa: E402
from robot_id_ros.io.yaml_input import read_yaml  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from robot_id_ros.ros.parameter_files import youbot_estimator_settings  # noqa: E402
from robot_id_ros.sim.true_model import joint_temperatures_c, true_model_of  # noqa: E402
from robot_id_ros.sim.youbot_arm import SimulatedArm  # noqa: E402

RATE_HZ = 200.0
LEAD_S = 5.0          # the floor's estimator runs this long before its window
PUSH_END_S = 0.5      # the push is scored over its last this many seconds
RELEASE_S = 0.5       # contacts are counted from this long after a phase's start (a release)
LABELS = {'cold': 'true parameters of the cold arm, no adaptation',
          'tracked': 'the same, friction_tracking on',
          'floor': 'true parameters of the moment'}


class Run:
    """The joint states, the truth and the temperatures of one run (arrays over samples)."""

    def __init__(self):
        self.t, self.q, self.qd, self.effort, self.force, self.temp = [], [], [], [], [], []
        self.load, self.moving = [], []

    def __call__(self, m):
        self.t.append(m.t_s)
        self.q.append(m.position_rad)
        self.qd.append(m.velocity_rad_s)
        self.effort.append(m.effort_nm)
        self.force.append(m.true_wrench_base[:3])
        self.temp.append(m.true_joint_temperature_c)
        self.load.append(np.abs(m.true_link_torque_nm))
        self.moving.append(~m.stuck)

    def arrays(self):
        for name in ('t', 'q', 'qd', 'effort', 'force', 'temp', 'load', 'moving'):
            setattr(self, name, np.array(getattr(self, name)))
        self.stamp_ns = np.round(self.t * 1e9).astype(np.int64)
        return self


def estimate(model, run, settings, sel=slice(None)):
    """Return the estimator core's output with ``model`` over ``run[sel]``.

    (times s, forces (N, 3) N, contact flags (N,), published force std (N, 3) N).
    """
    st, F, C, sd = R.estimate_batch(model, run.stamp_ns[sel], run.q[sel], run.qd[sel],
                                    run.effort[sel], [], settings)
    return st * 1e-9, F, C, sd


def mean_load_nm(run):
    """Return each joint's mean |motor torque| over the samples where it slides, Nm."""
    return (run.load * run.moving).sum(axis=0) / np.maximum(run.moving.sum(axis=0), 1)


def model_at(truth, law, temperature_c, load_nm=None):
    """Return the true model with the friction at ``temperature_c``.

    With its load term (the law's Coulomb friction per Nm of load), or with ``load_nm`` (n,)
    the Coulomb friction at that load and no load term.
    """
    friction = (law.friction_with_load_term(truth.friction, temperature_c) if load_nm is None
                else law.friction_at(truth.friction, temperature_c, load_nm))
    return dataclasses.replace(truth, friction=friction)


def floor_estimates(law, truth, run, settings, window_s):
    """Return the floor's output (as ``estimate``'s): each window's true friction."""
    parts = []
    t0, t_end = run.t[0], run.t[-1]
    w = t0
    while w < t_end:
        inside = (run.t >= w) & (run.t < w + window_s)
        model = model_at(truth, law, run.temp[inside].mean(axis=0))
        sel = np.flatnonzero((run.t >= w - LEAD_S) & (run.t < w + window_s))
        out = estimate(model, run, settings, slice(sel[0], sel[-1] + 1))
        keep = out[0] >= w
        parts.append([x[keep] for x in out])
        w += window_s
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def rms_by_bin(t, F, timeline, phases, bins):
    """Return [(rest RMS, motion RMS)] per time bin [(t0, t1)] over the given phases, N."""
    out = []
    for b0, b1 in bins:
        inside = [R.Phase(p.kind, max(p.t0_s, b0), min(p.t1_s, b1)) for p in phases
                  if p.t1_s > b0 and p.t0_s < b1]
        e = R.force_errors(t, F, timeline, inside)
        out.append((e.rms_rest_n, e.rms_motion_n))
    return out


def sigma_and_contacts_by_bin(t, F, C, sd, timeline, phases, free, bins):
    """Return [(2-sigma coverage, false contact samples)] per time bin.

    The coverage is the fraction of samples in ``phases`` (transients included) whose error is
    within twice the published std, the lowest of x, y, z; false contacts are counted in the
    contact-free ``free`` phases.
    """
    z = np.abs(F - timeline.at(t)) / np.maximum(sd, 1e-12)
    out = []
    for b0, b1 in bins:
        clip = [(max(p.t0_s, b0), min(p.t1_s, b1)) for p in phases]
        m = R.in_windows(t, [c for c in clip if c[1] > c[0]])
        cover = float(np.min(np.mean(z[m] <= 2.0, axis=0))) if m.any() else float('nan')
        clip = [(max(p.t0_s, b0), min(p.t1_s, b1)) for p in free]
        out.append((cover, R.false_contacts(t, C, [c for c in clip if c[1] > c[0]])[0]))
    return out


def push_errors(t, F, timeline, pushes):
    """Return each push's relative error at its end: |mean estimate - applied| / |applied|."""
    out = []
    for p in pushes:
        m = (t >= p.t1_s - PUSH_END_S) & (t < p.t1_s)
        applied = timeline.at(np.array([p.t1_s - 1e-3]))[0]
        out.append(float(np.linalg.norm(F[m].mean(axis=0) - applied) / np.linalg.norm(applied)))
    return out


def error_table(outs, run, timeline, free, bins, t0, ambient_c):
    """Print the contact-free RMS force error per time bin of each estimator, and the ratios."""
    names = list(outs)
    rms = {k: rms_by_bin(o[0], o[1], timeline, free, bins) for k, o in outs.items()}
    print('contact-free force error RMS, N, and over the floor (' + '; '.join(
        f'{k}: {LABELS[k]}' for k in names) + ')')
    head = ' '.join(f'{k:>7s}' for k in names) + ' ' + ' '.join(
        f'{k[:5] + "/fl":>8s}' for k in names[:-1])
    print(f'{"min":>9s} {"dT J1..J5 K":>28s} | motion {head} | rest {head}')
    for b, (b0, b1) in enumerate(bins):
        m = (run.t >= b0) & (run.t < b1)
        dT = ' '.join(f'{x:5.1f}' for x in run.temp[m].mean(axis=0) - ambient_c)
        cols = []
        for part in (1, 0):           # motion, then rest
            v = [rms[k][b][part] for k in names]
            cols.append(' '.join(f'{x:7.3f}' for x in v) + ' ' + ' '.join(
                f'{x / v[-1]:8.2f}' for x in v[:-1]))
        print(f'{(b0 - t0) / 60:4.0f}-{(b1 - t0) / 60:<4.0f} {dT:>28s} | motion {cols[0]} | '
              f'rest {cols[1]}')


def sigma_table(outs, timeline, every, free_windows, bins, t0):
    """Print each estimator's 2-sigma coverage and false contact samples per time bin."""
    names = list(outs)
    got = {k: sigma_and_contacts_by_bin(*o, timeline, every, free_windows, bins)
           for k, o in outs.items()}
    print('published sigma over every phase (2-sigma coverage, lowest axis) and false contact '
          f'samples in contact-free phases (from {RELEASE_S:g} s after their start)')
    head = ' '.join(f'{k:>7s}' for k in names)
    print(f'{"min":>9s} | coverage {head} | false {head}')
    for b, (b0, b1) in enumerate(bins):
        cover = ' '.join(f'{got[k][b][0]:7.3f}' for k in names)
        false = ' '.join(f'{got[k][b][1]:7d}' for k in names)
        print(f'{(b0 - t0) / 60:4.0f}-{(b1 - t0) / 60:<4.0f} | coverage {cover} | false {false}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seed', type=int, default=0, help='the simulated arm and the scenario')
    ap.add_argument('--minutes', type=float, default=30.0, help='length of the warm-up')
    ap.add_argument('--bin', type=float, default=5.0, help='minutes per row of the table')
    ap.add_argument('--floor-window', type=float, default=30.0,
                    help='s between the floor\'s friction updates')
    ap.add_argument('--model', default=None,
                    help='cold and tracked start from this model file (robot-id demo --seed S '
                         'with the same seed: its youbot_model.yaml)')
    ap.add_argument('--start-without-load', action='store_true',
                    help='cold and tracked start without the load term (the Coulomb friction at '
                         'the mean load of the scenario\'s motion)')
    ap.add_argument('--start-temperatures', default=None, metavar='TRUTH_FILE',
                    help='the arm starts at the joint temperatures of this true-parameters file '
                         '(robot-id demo --friction-drift: DIR/truth/true_parameters.yaml, its '
                         'arm at the end of the demo that identified --model), not cold')
    a = ap.parse_args()
    robot = youbot_model()
    sc = warm_up_scenario(robot, 60.0 * a.minutes, a.seed)
    q0 = tuple(sc.waypoints[0][1])
    arm = SimulatedArm(scenario_sim_config(a.seed, initial_positions_rad=q0))
    if a.start_temperatures:
        arm.friction_drift.set_temperature(joint_temperatures_c(
            read_yaml(a.start_temperatures, 'true parameters file'), robot.joint_names))
    truth = true_model_of(arm)     # the cold arm's friction, no load term
    # its residual std is the simulator's current noise in Nm (what an identification measures),
    # not the estimator's fallback for a model without statistics: the same contact thresholds
    truth.residual_std_nm = arm.config.current_noise_a * np.asarray(arm.config.drive_gains_nm_a)
    settings = EstimatorConfig(**youbot_estimator_settings())
    wall = time.perf_counter()
    run = Run()
    sc.play(arm, RATE_HZ, run)
    run.arrays()
    sim_wall = time.perf_counter() - wall
    print(f'scenario: seed {a.seed}, {sc.duration_s:.0f} s simulated in {sim_wall:.0f} s wall '
          f'({sc.duration_s / sim_wall:.1f}x real time), {len(run.t)} joint states')
    law = arm.friction_drift.law
    ambient_c = np.full(truth.robot.n, law.ambient_temperature_c)
    cold = (load_model(a.model) if a.model else
            model_at(truth, law, ambient_c, mean_load_nm(run) if a.start_without_load else None))
    outs = {'cold': estimate(cold, run, settings),
            'tracked': estimate(cold, run, dataclasses.replace(settings, friction_tracking=True)),
            'floor': floor_estimates(law, truth, run, settings, a.floor_window)}
    t0 = run.t[0] - 1.0 / RATE_HZ
    timeline = sc.timeline(t0)
    free = [R.Phase('rest' if p.kind == 'rest_free' else 'motion', p.t0_s, p.t1_s)
            for p in sc.phases_at(t0, ('rest_free', 'motion_free'))]
    step = 60.0 * a.bin
    bins = [(t0 + b, t0 + min(b + step, sc.duration_s)) for b in np.arange(0, sc.duration_s, step)]
    error_table(outs, run, timeline, free, bins, t0, law.ambient_temperature_c)
    free_windows = [R.Phase(p.kind, p.t0_s + RELEASE_S, p.t1_s)
                    for p in sc.phases_at(t0, ('rest_free', 'motion_free'))]
    sigma_table(outs, timeline, sc.phases_at(t0), free_windows, bins, t0)
    pushes = [p for p in sc.phases_at(t0, ('rest',)) if p.label == PUSH_LABEL]
    errors = {k: push_errors(o[0], o[1], timeline, pushes) for k, o in outs.items()}
    for i, p in enumerate(pushes):
        print(f'10 N push held 10 s at {(p.t0_s - t0) / 60:4.1f} min: error at its end ' +
              ', '.join(f'{100 * e[i]:.1f} % {k}' for k, e in errors.items()))
    print(f'reproduce: .venv/bin/python benchmarks/bench_friction_drift.py --seed {a.seed} '
          f'--minutes {a.minutes:g} --bin {a.bin:g}' + (f' --model {a.model}' if a.model else '')
          + (' --start-without-load' if a.start_without_load else '')
          + (f' --start-temperatures {a.start_temperatures}' if a.start_temperatures else ''))


if __name__ == '__main__':
    main()
