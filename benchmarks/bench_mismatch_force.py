# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The estimator on arms whose drives do what the models do not say: force error by model.

Each arm and drive effect of ``bench_mismatch`` (test/identify/mismatch_cases.py): the package's
model (``robot-id identify`` with only what a user must say) and the plain fit are trained on the
periodic excitation as there, beside the true model (the truth's rigid body and friction law,
without the effects). Then a contact run is recorded with the same effects: 40 s of sinusoids
(0.3 rad, 0.1-0.25 Hz) about the arm's best-conditioned pose of 200 within its limits (a force
estimate needs a tool Jacobian away from a singularity), with known wrench bursts at the tool
(three 3 s holds of a 15 N force in a random direction, each between 0.5 s ramps).
``WrenchEstimator`` with its defaults runs over it with each model (effort in A turned into Nm by
the drive gains the user gives).

Figures per model: the force RMS error over the whole run, N, and its ratio to the true model's
(the true-model floor); the time flagged as contact outside the bursts (ramps excluded), s.

Reproduce:
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_mismatch_force.py
        [--arms ur5 panda] [--effects none all ...] [--seeds 0]
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'test'))
sys.path.insert(0, str(ROOT / 'test' / 'identify'))
sys.path.insert(0, str(ROOT / 'benchmarks'))

from bench_mismatch import MODELS, each_case, fit_models  # noqa: E402
from bench_node_cpu import well_conditioned_pose  # noqa: E402
from bench_synthetic_arms import ARMS, write_bag  # noqa: E402
from mismatch_cases import (EFFECT_LABELS, EFFECTS, RATE_HZ, drive_gains,  # noqa: E402
                            effects_for, recorded_runs)

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator, effort_scale  # noqa: E402
from robot_id_ros.io.model_file import load_model  # noqa: E402
from robot_id_ros.sim.drive_effects.recording import record_drives  # noqa: E402

FORCE_N, HOLD_S, RAMP_S, BURSTS = 15.0, 3.0, 0.5, 3
SECONDS, AMPLITUDE_RAD = 40.0, 0.3


def bursts(t_s, rng):
    """Return the wrench (N, 6) of ``BURSTS`` force holds over the run, and where it is 0."""
    W = np.zeros((len(t_s), 6))
    span = t_s[-1] - t_s[0]
    for k in range(BURSTS):
        t0 = t_s[0] + span * (k + 0.6) / (BURSTS + 0.5)
        d = rng.normal(size=3)
        shape = np.clip(np.minimum(t_s - t0, t0 + 2 * RAMP_S + HOLD_S - t_s) / RAMP_S, 0, 1)
        W[:, :3] += shape[:, None] * FORCE_N * d / np.linalg.norm(d)
    return W, ~np.any(W != 0.0, axis=1)


def contact_motion(arm):
    """Return (t, Q, QD, QDD) of the contact run's sinusoids about the best-conditioned pose."""
    centre = well_conditioned_pose(arm.robot)
    rng = np.random.default_rng(5000 + arm.seed)
    w = 2 * np.pi * rng.uniform(0.1, 0.25, arm.robot.n)
    phase = rng.uniform(0, 2 * np.pi, arm.robot.n)
    t = np.arange(int(SECONDS * RATE_HZ)) / RATE_HZ
    x = w * t[:, None] + phase
    return (t, centre + AMPLITUDE_RAD * np.sin(x), AMPLITUDE_RAD * w * np.cos(x),
            -AMPLITUDE_RAD * w ** 2 * np.sin(x))


def contact_run(arm, effect):
    """Record the contact run under ``effect``: (series, true wrench (N, 6), free (N,) bool)."""
    t, Q, QD, QDD = contact_motion(arm)
    W, free = bursts(t, np.random.default_rng(3000 + arm.seed))
    run = record_drives(arm.truth, arm.law, t, Q, QD, QDD, effects_for(effect, arm), arm.sigma,
                        np.random.default_rng(4000 + arm.seed), arm.exact_sign, wrench=W,
                        source='contact')
    return run.series, W, free


def estimate(path, series, arm, effect):
    """Return (force (N, 3), flagged (N,) bool) of the defaults with the model at ``path``."""
    model = load_model(path)
    unit = 'current' if effect in ('current', 'all') else 'torque'
    scale = effort_scale(model, unit, drive_gains(arm) if unit == 'current' else None)
    est = WrenchEstimator(model, EstimatorConfig())
    r = est.process(series.stamp_ns, series.q, series.qd, series.effort * scale)
    assert len(r.index) == len(series), 'samples rejected'
    return r.wrench[:, :3], r.contact_state > 0


def run_case(arm, effect, tmp):
    """Fit, record and estimate one arm under one effect; print and return its row."""
    d = tmp / f'{arm.case.name}_s{arm.seed}_{effect}'
    d.mkdir()
    train = recorded_runs(arm, effect)['train']
    write_bag(d / 'train', train.series, arm.case.extra_joints)
    fitted = fit_models(arm, effect, {'train': d / 'train'}, d)
    if fitted is None:
        return None
    paths, _, about = fitted
    series, W, free = contact_run(arm, effect)
    dt_s = np.median(np.diff(series.stamp_ns)) * 1e-9
    out = {}
    for m in MODELS:
        force, flagged = estimate(paths[m], series, arm, effect)
        out[m] = (float(np.sqrt(np.mean(np.sum((force - W[:, :3]) ** 2, axis=1)))),
                  float(np.sum(flagged & free) * dt_s))
    row = (arm.case.name, arm.seed, effect, out)
    print(f'{arm.case.name} seed {arm.seed}, {EFFECT_LABELS[effect]}: {about}', flush=True)
    print('  ' + row_text(row), flush=True)
    return row


def row_text(row):
    name, seed, effect, out = row
    floor = out['true'][0]
    cells = [f'{out[m][0]:.2f} N ({out[m][0] / floor:.2f}x), {out[m][1]:.1f} s' for m in MODELS]
    return f'| {name} | {seed} | {EFFECT_LABELS[effect]} | ' + ' | '.join(cells) + ' |'


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--arms', nargs='+', default=['ur5', 'panda'], choices=list(ARMS))
    ap.add_argument('--effects', nargs='+', default=['none', 'all'], choices=EFFECTS)
    ap.add_argument('--seeds', nargs='+', type=int, default=[0])
    a = ap.parse_args()
    t0 = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for arm, effect in each_case(a.arms, a.seeds, a.effects):
            row = run_case(arm, effect, Path(tmp))
            rows += [row] if row else []
    print()
    print('force RMS error over the contact run (ratio to the true model), time flagged as '
          'contact outside the bursts')
    print('| arm | seed | drive effect | this package | plain fit | true model |')
    print('|---|---|---|---|---|---|')
    for r in rows:
        print(row_text(r))
    print(f'{time.perf_counter() - t0:.0f} s')
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_mismatch_force.py '
          f'--arms {" ".join(a.arms)} --effects {" ".join(a.effects)} --seeds '
          f'{" ".join(map(str, a.seeds))}')


if __name__ == '__main__':
    main()
