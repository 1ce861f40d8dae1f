# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo pipeline through each command interface, compared with 'trajectory'.

Runs the demo (quick by default, ``--full`` for the full configuration) once per command
interface with the same seed: every recording stage (static poses, friction sweeps, both
excitation runs) moves the simulated youBot through that interface; identification, validation
and the force phase are the same code. Prints per interface

- identification: held-out in-motion RMSE over the noise floor, per joint;
- force: the force error RMS per axis (x, y, z, N), at rest and in motion (settled samples, as
  the demo's table);

and each figure's relative difference to 'trajectory', PASS when within 5 %. The force figures
that are judged replay each interface's identified model over the 'trajectory' run's force phase:
the force phase is the same code in every run, but on a loaded machine the recording itself
varies from run to run (its true-parameter floor moves too), which the interface did not cause;
each run's own force phase is printed beside, not judged.

    .venv/bin/python benchmarks/bench_command_interfaces.py [--full] [--seed N] [--out DIR]
        [--interfaces trajectory brics_position ...] [--reuse] [--repeat-reference]

``--repeat-reference`` runs 'trajectory' once more and prints its figures against the first run's:
the reference's own run-to-run spread (the static holds and the force phase are played against the
wall clock, so the recordings differ between runs), beside which the 5 % verdict can be read.

follow_joint_trajectory and brics_position need control_msgs and brics_actuator: the demo builds
them with tools/build_interfaces.py (cached in .cache/interfaces) when they are not installed.
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from robot_id_ros.demo import results as R
from robot_id_ros.demo.pipeline import (COMMAND_INTERFACES, DemoConfig, demo_estimator_settings,
                                        run_demo)
from robot_id_ros.demo.report import IDENTIFIED, TRUTH
from robot_id_ros.errors import RobotIdError
from robot_id_ros.estimate import EstimatorConfig
from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.io.model_file import load_model
from robot_id_ros.model.robot import YOUBOT_JOINTS

TOLERANCE = 0.05         # relative difference to 'trajectory' that passes
REPEAT = 'trajectory_repeat'
AXES = 'xyz'


def _scenario(run_dir):
    """Return the force phase's director log (force_script_log.json) and its true timeline."""
    d = json.loads((Path(run_dir) / 'force_script_log.json').read_text())
    return d, R.timeline_from_samples(d['true_t_s'], d['true_force_n'])


def axis_rms(t_s, force_n, scenario):
    """Return the force error RMS per axis at rest and in motion, N.

    Settled samples only (``R.TRANSIENT_S`` after each change of the applied force left out), as
    ``results.force_errors`` counts them.

    Args:
        t_s: sample times, sim s.
        force_n: estimated forces (N, 3), N.
        scenario: ``(director log, timeline)`` of the force phase.

    Returns:
        ``{'rest': [x, y, z], 'motion': [x, y, z]}``.
    """
    d, timeline = scenario
    t = np.asarray(t_s, float)
    err = np.asarray(force_n, float)[:, :3] - timeline.at(t)
    settled = timeline.settled_mask(t)
    out = {}
    for kind in ('rest', 'motion'):
        m = np.zeros(len(t), dtype=bool)
        for ph in d['phases']:
            if ph['kind'] == kind:
                m |= (t >= ph['t0_s']) & (t < ph['t1_s'])
        sel = m & settled
        out[kind] = np.sqrt(np.mean(err[sel] ** 2, axis=0)).tolist() if sel.any() else \
            [float('nan')] * 3
    return out


def replay_on(model_path, ref_dir):
    """Replay the estimator core with ``model_path`` over the force phase of run ``ref_dir``.

    Every interface's identified model meets the same joint states, tares and applied forces,
    so the figures differ only by what the interface changed: the model.

    Returns:
        ``axis_rms`` of the replay.
    """
    scenario = _scenario(ref_dir)
    js = read_joint_states(Path(ref_dir) / 'bags' / 'force_phase', list(YOUBOT_JOINTS),
                           require_velocity=True)
    tares = [(int(t * 1e9), kind) for t, kind in scenario[0]['tare_events']]
    st, F, _, _ = R.estimate_batch(load_model(model_path), js.stamp_ns, js.q, js.qd, js.effort,
                                   tares, EstimatorConfig(**demo_estimator_settings()))
    return axis_rms(st * 1e-9, F, scenario)


def figures(run_dir, res, ref_dir):
    """Return the compared figures of one run as ``{name: value}``.

    Identification: held-out in-motion RMSE / noise per joint. Force: the run's identified
    model replayed over the reference run's force phase (``replay_on``), per axis.
    """
    idr = res['identification']
    fig = {f'ident in-motion RMSE/noise j{j + 1}': x
           for j, x in enumerate(idr['rmse_in_motion_over_noise'])}
    for kind, values in replay_on(Path(run_dir) / 'youbot_model.yaml', ref_dir).items():
        fig.update({f'force RMS {kind} {a} [N]': v for a, v in zip(AXES, values)})
    return fig


def as_run(run_dir, res):
    """Return each run's own force phase figures (informative: the force phase itself varies).

    The live node's per-axis RMS and the replays' |error| RMS with the identified model and with
    the true parameters (the floor of that very recording).
    """
    d, timeline = scenario = _scenario(run_dir)
    live = axis_rms(d['est_t_s'], d['est_force_n'], scenario)
    rows = res['force']['estimators']
    out = {f'live node RMS {kind} {a} [N]': v for kind, vals in live.items()
           for a, v in zip(AXES, vals)}
    for name, label in ((IDENTIFIED, 'identified'), (TRUTH, 'floor')):
        out[f'{label} |err| RMS rest [N]'] = rows[name]['rms_rest_n']
        out[f'{label} |err| RMS motion [N]'] = rows[name]['rms_motion_n']
    return out


def compare(runs, reference='trajectory', judge=True):
    """Print the figures of every interface and their relative differences to ``reference``.

    Args:
        runs: ``{interface: {figure: value} or None (failed)}``.
        reference: the interface the others are compared with.
        judge: mark each difference pass/FAIL against ``TOLERANCE``.

    Returns:
        True when every figure of every interface is within ``TOLERANCE`` of the reference's.
    """
    names = list(runs)
    ref = runs.get(reference)
    ok = ref is not None and all(r is not None for r in runs.values())
    print('| figure | ' + ' | '.join(names) + ' |')
    print('|---|' + '---|' * len(names))
    done = [r for r in runs.values() if r is not None]
    for key in (done[0] if done else {}):
        cells = []
        for name in names:
            r = runs[name]
            if r is None:
                cells.append('failed')
                continue
            cell = f'{r[key]:.3f}'
            if ref is not None and name != reference:
                rel = (r[key] - ref[key]) / ref[key]
                passed = abs(rel) <= TOLERANCE
                ok &= bool(passed)
                cell += f' ({100 * rel:+.1f} %' + (f' {"pass" if passed else "FAIL"})'
                                                   if judge else ')')
            cells.append(cell)
        print(f'| {key} | ' + ' | '.join(cells) + ' |')
    return ok


def within_repeat(common, repeat_fig, reference='trajectory'):
    """Return one line per figure outside ``TOLERANCE``: its difference beside the repeat's.

    ``common``: ``{interface: figures}`` as ``figures`` gives them; ``repeat_fig``: the
    reference's second run, replayed the same way.
    """
    ref = common[reference]
    lines = []
    for name, fig in common.items():
        if name == reference or fig is None:
            continue
        for key, value in fig.items():
            rel = (value - ref[key]) / ref[key]
            if abs(rel) > TOLERANCE:
                rep = (repeat_fig[key] - ref[key]) / ref[key]
                lines.append(f'{name} {key}: {100 * rel:+.1f} % from trajectory; the trajectory '
                             f'repeat {100 * rep:+.1f} %')
    return '\n'.join(lines) or f'every figure within {100 * TOLERANCE:g} %'


def run_all(out, interfaces, seed, full, reuse):
    """Run the demo through each interface; return ``{interface: results or None}``, wall s.

    ``interfaces``: interface names, or ``(label, interface)`` pairs (run into ``out / label``).
    """
    results, walls = {}, {}
    for item in interfaces:
        label, interface = (item, item) if isinstance(item, str) else item
        run_dir = out / label
        done = run_dir / 'results.json'
        t0 = time.monotonic()
        if reuse and done.is_file():
            results[label] = json.loads(done.read_text())
        else:
            try:
                results[label] = run_demo(DemoConfig(run_dir, quick=not full, seed=seed,
                                                     command_interface=interface))
            except RobotIdError as exc:      # a stage failed, or the director timed out
                print(f'{label}: the demo failed: {exc}', flush=True)
                results[label] = None
        walls[label] = time.monotonic() - t0
    return results, walls


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=None)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--full', action='store_true', help='the full demo (default: --quick)')
    ap.add_argument('--interfaces', nargs='+', default=list(COMMAND_INTERFACES),
                    choices=COMMAND_INTERFACES)
    ap.add_argument('--reuse', action='store_true',
                    help='take the runs already in --out (results.json) instead of running them')
    ap.add_argument('--repeat-reference', action='store_true',
                    help="run 'trajectory' a second time (into OUT/trajectory_repeat) and print "
                         "how far its figures are from the first run's: the reference's own "
                         'repeatability, beside the 5 %% verdict')
    a = ap.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix='bench_command_interfaces_'))
    runs = list(a.interfaces) + ([(REPEAT, 'trajectory')] if a.repeat_reference else [])
    results, walls = run_all(out, runs, a.seed, a.full, a.reuse)
    repeat = results.pop(REPEAT, None)
    ref_dir = out / 'trajectory'
    common = {k: None if r is None or results.get('trajectory') is None else
              figures(out / k, r, ref_dir) for k, r in results.items()}
    own = {k: None if r is None else as_run(out / k, r) for k, r in results.items()}
    print('\n==== bench_command_interfaces ====')
    print('identification (held-out, in motion) and each interface\'s identified model replayed '
          'over the trajectory run\'s force phase (same joint states, tares and forces):')
    ok = compare(common)
    repeat_fig = None
    if a.repeat_reference and repeat is not None and common.get('trajectory') is not None:
        repeat_fig = figures(out / REPEAT, repeat, ref_dir)
        print(f'\nthe reference run again ({REPEAT}, same seed and code), not judged:')
        compare({'trajectory': common['trajectory'], REPEAT: repeat_fig}, judge=False)
        print(within_repeat(common, repeat_fig))
    print('\neach run\'s own force phase (the director moves the arm the same way in every run; '
          'the floor shows how much the phase itself varied), not judged:')
    compare(own, judge=False)
    print('\nwall time ' + ', '.join(f'{k} {v:.0f} s' for k, v in walls.items()) +
          f' (seed {a.seed}, {"full" if a.full else "quick"}); runs in {out}')
    print(f'within {100 * TOLERANCE:g} % of trajectory: {"PASS" if ok else "FAIL"}')
    (out / 'bench_command_interfaces.json').write_text(json.dumps(
        {'common_force_phase': common, 'own_force_phase': own,
         'reference_repeat': repeat_fig}, indent=1))
    print('reproduce: .venv/bin/python benchmarks/bench_command_interfaces.py' +
          (' --full' if a.full else '') + f' --seed {a.seed}' +
          ('' if a.interfaces == list(COMMAND_INTERFACES) else
           ' --interfaces ' + ' '.join(a.interfaces)) +
          (' --repeat-reference' if a.repeat_reference else ''))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
