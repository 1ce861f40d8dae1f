# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A known payload from one loaded excitation, on an arm whose drives do what models do not say.

The UR5 of example-robot-data with the mismatch bench's hidden truth (test/identify/
mismatch_cases.py: perturbed rigid body, exact-sign friction, noise 1 % of the peak torque) and
each drive effect alone and all together (``--effects``); motor currents where the effect has a
current sensor (the commands told the nominal gains). The unloaded model is trained on one 30 s
periodic excitation (``--train-periods 3``); then the arm carries 2.8 kg (test/identify/
payload_mismatch_cases.py) through a 50 s excitation of its own, and the payload's mass is
estimated from that run:

- package: ``robot-id identify`` (only --urdf, --data, --out and the effort flags) then
  ``robot-id payload`` on the loaded run;
- without the friction change: the same model, ``payload_from_trajectory(...,
  friction_change=False)`` (the payload's columns alone, the fit before the load column);
- plain fit: the plain Butterworth + OLS model (``bench_identification_defaults.VARIANTS``) and an
  ordinary least-squares fit of the payload's columns alone;
- true model: the truth's rigid body and friction law without the effects, with the package's
  payload fit (what the effects cost a model right about everything else).

``--load-coulomb-per-nm MU`` sets the load-dependent Coulomb friction (Nm per Nm of link torque,
every joint; the bench's own is 0.1 on 'load' and 'all') on every effect's runs, e.g. 0.3 for a
gear of 70 % efficiency. Printed per effect: true mass, each estimate and its error %.

Reproduce:
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_payload_mismatch.py
        [--effects none load ...] [--seeds 0] [--load-coulomb-per-nm 0.3] [--train-periods 3]
"""
import argparse
import dataclasses
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
from bench_mismatch import robot_id  # noqa: E402
from bench_synthetic_arms import ARMS, write_bag  # noqa: E402
from mismatch_cases import EFFECT_LABELS, EFFECTS, drive_gains, mismatch_arm  # noqa: E402
from payload_mismatch_cases import PAYLOAD_KG, payload_effects, payload_runs  # noqa: E402

from robot_id_ros.identify import (IdentificationError, identify,  # noqa: E402
                                   prepare_trajectory, processing_options)
from robot_id_ros.identify.payload import payload_from_trajectory  # noqa: E402
from robot_id_ros.io.model_file import load_model, nominal_model  # noqa: E402

ESTIMATES = ('package', 'without friction change', 'plain fit', 'true model')


def flags(arm, fx):
    """Return the effort flags a user gives for recordings of ``fx`` (current: nominal gains)."""
    if fx.current_sensor is None:
        return []
    return ['--effort-unit', 'current', '--drive-gains',
            ','.join(f'{g:g}' for g in drive_gains(arm))]


def python_payload(model, series, options, **kw):
    """Return the mass (kg) of ``payload_from_trajectory`` on ``series``, NaN when refused."""
    tr = prepare_trajectory(series, processing_options(model, options), None, model.robot)
    try:
        return payload_from_trajectory(model, tr, **kw).payload.mass_kg
    except IdentificationError as exc:
        print(f'    refused: {exc}')
        return np.nan


def run_case(arm, effect, mu, tmp):
    """Return {estimate: mass kg} of one effect (``ESTIMATES``)."""
    fx = payload_effects(arm, effect, mu)
    train, loaded = payload_runs(arm, effect, mu)
    d = tmp / f'{effect}_s{arm.seed}'
    d.mkdir()
    write_bag(d / 'train', train.series, arm.case.extra_joints)
    write_bag(d / 'loaded', loaded.series, arm.case.extra_joints)
    f = flags(arm, fx)
    out = dict.fromkeys(ESTIMATES, np.nan)
    rc, _, err = robot_id('identify', '--urdf', arm.urdf, '--data', d / 'train', '--out',
                          d / 'package.yaml', *f)
    if rc != 0:
        print(f'  {effect}: robot-id identify FAILED: {err.strip()[-300:]}')
        return out
    rc, text, err = robot_id('payload', '--model', d / 'package.yaml', '--data', d / 'loaded',
                             '--out', d / 'payload.yaml', '--json', *f)
    if rc == 0:
        out['package'] = json.loads(text)['mass_kg']
    else:
        print(f'  {effect}: robot-id payload FAILED: {err.strip()[-300:]}')
    opts = dataclasses.replace(VARIANTS[0][1])
    if f:
        opts.effort_unit, opts.drive_gains_nm_per_a = 'current', list(drive_gains(arm))
    package = load_model(d / 'package.yaml')
    out['without friction change'] = python_payload(package, loaded.series, opts,
                                                    friction_change=False)
    plain_opts = dataclasses.replace(VARIANTS[2][1], effort_unit=opts.effort_unit,
                                     drive_gains_nm_per_a=opts.drive_gains_nm_per_a)
    plain = identify(arm.robot, [train.series], options=plain_opts).model
    out['plain fit'] = python_payload(plain, loaded.series, plain_opts, weighting='ols',
                                      friction_change=False)
    true_model = nominal_model(arm.truth, arm.law)
    true_model.residual_std_nm = arm.sigma
    out['true model'] = python_payload(true_model, loaded.series, opts)
    return out


def cell(m):
    return f'{m:.3f} ({100 * (m / PAYLOAD_KG - 1):+.1f} %)' if np.isfinite(m) else 'failed'


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--effects', nargs='+', default=list(EFFECTS), choices=EFFECTS)
    ap.add_argument('--seeds', nargs='+', type=int, default=[0])
    ap.add_argument('--load-coulomb-per-nm', type=float, default=None)
    ap.add_argument('--train-periods', type=int, default=3)
    a = ap.parse_args()
    t0 = time.perf_counter()
    print(f'UR5, payload {PAYLOAD_KG} kg; load-dependent Coulomb friction '
          + ('as the effect has it' if a.load_coulomb_per_nm is None else
             f'{a.load_coulomb_per_nm:g} Nm/Nm on every effect'))
    print('| seed | drive effect | true kg | ' + ' | '.join(ESTIMATES) + ' |')
    print('|---' * (3 + len(ESTIMATES)) + '|')
    worst = dict.fromkeys(ESTIMATES, 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in a.seeds:
            arm = mismatch_arm(ARMS['ur5'], seed, a.train_periods)
            for effect in a.effects:
                r = run_case(arm, effect, a.load_coulomb_per_nm, Path(tmp))
                for k, m in r.items():
                    worst[k] = max(worst[k], abs(m / PAYLOAD_KG - 1) if np.isfinite(m)
                                   else np.inf)
                print(f'| {seed} | {EFFECT_LABELS[effect]} | {PAYLOAD_KG:g} | '
                      + ' | '.join(cell(r[k]) for k in ESTIMATES) + ' |', flush=True)
    print('worst |error|: ' + ', '.join(f'{k} {100 * v:.1f} %' for k, v in worst.items()))
    print(f'{time.perf_counter() - t0:.0f} s')
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python '
          f'benchmarks/bench_payload_mismatch.py --effects {" ".join(a.effects)} '
          f'--seeds {" ".join(map(str, a.seeds))} '
          f'--train-periods {a.train_periods}'
          + ('' if a.load_coulomb_per_nm is None else
             f' --load-coulomb-per-nm {a.load_coulomb_per_nm:g}'))


if __name__ == '__main__':
    main()
