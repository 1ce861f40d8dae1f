# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Model mismatch: trained on one periodic excitation, judged on motions of other kinds.

Each arm of ``bench_synthetic_arms.ARMS`` (default: UR5 and Panda of example-robot-data) with
its hidden truth, and drives that do what the models do not say (``--effects``, each alone and
all together; test/identify/mismatch_cases.py says what and how much, and
robot_id_ros/sim/drive_effects how):

1. training: one run of a periodic excitation; ``robot-id identify`` with only what a user must
   say (``--urdf``, ``--data``, ``--out``; ``--effort-unit current --drive-gains`` where the
   drives record currents), every processing option chosen by the command itself;
2. beside it the plain fit on the same run (``bench_identification_defaults.VARIANTS``' plain
   Butterworth + OLS: positions low-passed at 10 Hz, central differences, OLS, Coulomb + viscous
   + offset), a true ordinary least-squares fit: the plausibility fallback off
   (``--no-plausibility-fallback``; ``--plain-fallback`` lets it replace an implausible plain
   fit by the physically consistent one, as identification does by default), and the true
   model (the truth's rigid body and friction law, without the effects: what the effects cost
   a model that is right about everything else);
3. judged by ``robot-id validate --json`` on runs of other kinds: point-to-point moves, slow
   moves (<= 0.1 rad/s), another excitation. The figure: relative error (||e|| / ||tau||, every
   joint, the effort as recorded) and, in brackets, the RMSE over the torque noise std, median
   over the joints (a joint with little torque has little noise: its friction error alone
   would be hundreds of times its noise, so no mean). The true model states its friction law as
   a model file does: for an exact-sign law (UR5) a smooth sign of 0.01 rad/s, which is why it
   can be behind the package even without any effect (bench_synthetic_arms.py's docstring).

The table: arm x effect x judged motion, this package / plain fit / true model; then how many
rows the package is no worse than the plain fit (within 1 %) and better on.

Reproduce:
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_mismatch.py
        [--arms ur5 panda] [--effects none position ...] [--seeds 0] [--train-periods 8]
        [--plain-fallback]
"""
import argparse
import contextlib
import dataclasses
import io
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'test'))
sys.path.insert(0, str(ROOT / 'test' / 'identify'))
sys.path.insert(0, str(ROOT / 'benchmarks'))

from bench_identification_defaults import VARIANTS  # noqa: E402
from bench_synthetic_arms import ARMS, write_bag  # noqa: E402
from mismatch_cases import (EFFECT_LABELS, EFFECTS, JUDGED, TRAIN_PERIODS,  # noqa: E402
                            drive_gains, effects_for, mismatch_arm, recorded_runs)

from robot_id_ros.cli.main import main as robot_id_main  # noqa: E402
from robot_id_ros.identify import IdentificationOptions, identify  # noqa: E402
from robot_id_ros.io.bags import read_joint_states  # noqa: E402
from robot_id_ros.io.model_file import load_model, nominal_model  # noqa: E402

MODELS = ('package', 'plain', 'true')
# the package counts as no worse than the plain fit within this relative margin of its error
NO_WORSE_MARGIN = 0.01


def robot_id(*args):
    """Run ``robot-id`` (this checkout's, in this process); return (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = robot_id_main([str(a) for a in args])
        except SystemExit as e:          # argparse's exit on a bad flag
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def effort_flags(arm, effect):
    """Return what a user must tell the commands about the effort of ``effect``'s recordings."""
    if effects_for(effect, arm).current_sensor is None:
        return []
    return ['--effort-unit', 'current', '--drive-gains',
            ','.join(f'{g:g}' for g in drive_gains(arm))]


def chosen_options(model_path):
    """Return the options the package's search chose that differ from the core defaults."""
    ident = load_model(model_path).identification
    sel = (ident.get('selection') or {}).get('chosen', {})
    opts = ident.get('options', {})
    core = IdentificationOptions()
    return ', '.join(f'{k}={opts.get(k, v)}' for k, v in sel.items()
                     if opts.get(k, v) != getattr(core, k, None)) or 'core defaults'


def plausibility_text(judgement):
    """Return 'accepted', or the action and the kinds of finding (``identify.plausibility``)."""
    if not judgement:
        return 'not judged'
    kinds = sorted({f['kind'] for f in judgement.get('findings', [])})
    return judgement['action'] + (f' ({", ".join(kinds)})' if kinds else '')


def fit_models(arm, effect, bags, tmp, plain_fallback=False):
    """Fit the package's and the plain model on the training bag; write the true model.

    Returns:
        ({model: path}, seconds of ``robot-id identify``, a line: the package's chosen options,
        the plausibility judgement of both fits), or None when ``robot-id identify`` fails
        (printed).
    """
    flags = effort_flags(arm, effect)
    paths = {m: tmp / f'{effect}_{m}.yaml' for m in MODELS}
    t0 = time.perf_counter()
    rc, out, err = robot_id('identify', '--urdf', arm.urdf, '--data', bags['train'],
                            '--out', paths['package'], *flags)
    dt = time.perf_counter() - t0
    if rc != 0:
        print(f'  {effect}: robot-id identify FAILED (exit {rc}): {err.strip()[-400:]}',
              flush=True)
        return None
    opts = dataclasses.replace(VARIANTS[2][1], plausibility_fallback=plain_fallback)
    if flags:
        opts.effort_unit, opts.drive_gains_nm_per_a = 'current', list(drive_gains(arm))
    train = read_joint_states(bags['train'], arm.robot.joint_names)
    plain = identify(arm.robot, [train], options=opts)
    plain.model.save(paths['plain'])
    true_model = nominal_model(arm.truth, arm.law)
    true_model.residual_std_nm = arm.sigma
    true_model.save(paths['true'])
    package = load_model(paths['package']).identification.get('plausibility')
    plain_judged = plain.plausibility.to_dict() if plain.plausibility is not None else None
    return paths, dt, (f'chosen {chosen_options(paths["package"])}; fit '
                       f'{plausibility_text(package)}, plain fit '
                       f'{plausibility_text(plain_judged)}')


def judge(arm, effect, paths, bags):
    """Return {judged motion: {model: (relative error, median RMSE / noise)}} by robot-id validate.

    A model the command refuses gets NaN (the reason printed).
    """
    flags = effort_flags(arm, effect)
    out = {}
    for motion in JUDGED:
        out[motion] = {}
        for m in MODELS:
            rc, text, err = robot_id('validate', '--model', paths[m], '--data', bags[motion],
                                     '--json', *flags)
            if rc != 0:
                print(f'  {effect} {motion} {m}: robot-id validate FAILED: {err.strip()[-300:]}')
                out[motion][m] = (np.nan, np.nan)
                continue
            v = json.loads(text)
            out[motion][m] = (v['relative_error'],
                              float(np.median(np.asarray(v['rmse_nm']) / arm.sigma)))
    return out


def each_case(arms, seeds, effects, train_periods=TRAIN_PERIODS):
    """Yield (arm, effect) for every arm name x seed x effect, each arm's truth made once."""
    for name in arms:
        for seed in seeds:
            arm = mismatch_arm(ARMS[name], seed, train_periods)
            for effect in effects:
                yield arm, effect


def run_case(arm, effect, tmp, plain_fallback=False):
    """Record, fit and judge one arm under one effect; print its rows; return them."""
    d = tmp / f'{arm.case.name}_s{arm.seed}_{effect}'
    d.mkdir()
    runs = recorded_runs(arm, effect)
    bags = {}
    for k, r in runs.items():
        bags[k] = d / k
        write_bag(bags[k], r.series, arm.case.extra_joints)
    fitted = fit_models(arm, effect, bags, d, plain_fallback)
    if fitted is None:
        return []
    paths, dt, about = fitted
    res = judge(arm, effect, paths, bags)
    print(f'{arm.case.name} seed {arm.seed}, {EFFECT_LABELS[effect]}: identify {dt:.0f} s; '
          f'{about}', flush=True)
    rows = []
    for motion in JUDGED:
        r = res[motion]
        rows.append((arm.case.name, arm.seed, effect, motion, r))
        print('  ' + row_text(rows[-1]), flush=True)
    return rows


def cell(x):
    rel, rmse = x
    return f'{100 * rel:.2f} % ({rmse:.2f})'


def row_text(row):
    name, seed, effect, motion, r = row
    return (f'| {name} | {seed} | {EFFECT_LABELS[effect]} | {motion} | '
            + ' | '.join(cell(r[m]) for m in MODELS) + ' |')


def summary(rows):
    """Return the count line: rows no worse than the plain fit (within the margin), better."""
    pk = np.array([r[4]['package'][0] for r in rows])
    pl = np.array([r[4]['plain'][0] for r in rows])
    ok = np.isfinite(pk) & np.isfinite(pl)
    no_worse = int(np.sum(ok & (pk <= pl * (1 + NO_WORSE_MARGIN))))
    better = int(np.sum(ok & (pk < pl)))
    return (f'package against the plain fit, relative error: no worse (within '
            f'{100 * NO_WORSE_MARGIN:g} %) on {no_worse} of {len(rows)} rows, better on {better}; '
            f'median ratio package / plain {np.median(pk[ok] / pl[ok]):.3f}')


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--arms', nargs='+', default=['ur5', 'panda'], choices=list(ARMS))
    ap.add_argument('--effects', nargs='+', default=list(EFFECTS), choices=EFFECTS)
    ap.add_argument('--seeds', nargs='+', type=int, default=[0])
    ap.add_argument('--train-periods', type=int, default=TRAIN_PERIODS,
                    help='periods of the 10 s training excitation (fewer: a shorter run)')
    ap.add_argument('--plain-fallback', action='store_true',
                    help='the plain fit takes the plausibility fallback (default: a true OLS fit)')
    a = ap.parse_args()
    t0 = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for arm, effect in each_case(a.arms, a.seeds, a.effects, a.train_periods):
            rows += run_case(arm, effect, Path(tmp), a.plain_fallback)
    print()
    print('relative error on the judged run (RMSE / noise std, median over joints)')
    print('| arm | seed | drive effect | judged motion | this package | plain fit | true model |')
    print('|---|---|---|---|---|---|---|')
    for r in rows:
        print(row_text(r))
    if rows:
        print(summary(rows))
    print(f'{time.perf_counter() - t0:.0f} s')
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_mismatch.py '
          f'--arms {" ".join(a.arms)} --effects {" ".join(a.effects)} --seeds '
          f'{" ".join(map(str, a.seeds))} --train-periods {a.train_periods}'
          + (' --plain-fallback' if a.plain_fallback else ''))


if __name__ == '__main__':
    main()
