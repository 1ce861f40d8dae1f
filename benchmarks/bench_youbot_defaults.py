# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""youBot demo: the identify line without expert flags against the hand-tuned recipe.

Offline, on the bags of one ``robot-id demo`` run (DIR/bags/{excitation,static,sweeps,
validation,force_phase}, DIR/force_script_log.json, DIR/truth/true_parameters.yaml); the demo is
not run again. For the former hand-tuned recipe (eight flags; config/identification.yaml
until 2026-12-06) and for the defaults (options chosen by cross-validation, no flags), and for
any further ``--variant NAME=k=v,...``:

- identification: held-out in-motion RMSE / noise per joint (``robot-id validate`` on the
  validation bag, joint j's samples with |qd_j| >= 0.05 rad/s, the demo's figure);
- estimator: the force phase replayed through the estimator core with
  config/wrench_estimator.yaml's settings and the node's tare events (what the demo reports for
  the identified model, the same as ``robot-id estimate --params-file
  config/wrench_estimator.yaml``): RMS of the force error per axis x y z and in norm, at rest and
  in motion (each step's first 0.25 s left out), and false contacts (samples flagged in
  contact-free motion). The simulator's true parameters give the floor.

Prints a row per variant and the ratios defaults / recipe. Acceptance: in-motion RMSE / noise
within 3 % of the recipe's, and the same estimator figures.

Reproduce:
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_youbot_defaults.py DIR [DIR ...]
"""
import argparse
import dataclasses
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from robot_id_ros.demo import report as demo_report
from robot_id_ros.demo import results as R
from robot_id_ros.demo.director import DirectorLog
from robot_id_ros.demo.pipeline import demo_estimator_settings
from robot_id_ros.identify import IdentificationOptions, identify, validate
from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.io.model_file import load_model
from robot_id_ros.io.sidecar import find_sidecar
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.true_model import load_true_model

# the former hand-tuned recipe (eight expert flags; docs/youbot.md lists them)
RECIPE = IdentificationOptions(
    auto_options=False, rotor_inertia=True, coulomb_asymmetric=True, offset=False,
    stribeck_column=True, derivative_method='savgol', cutoff_hz=25.0, sidecar_window=True,
    min_velocity_rad_s=0.05)
MIN_VELOCITY_RAD_S = 0.05   # the demo's in-motion figure
RECIPE_FLAGS = ('--rotor-inertia --asymmetric-coulomb --no-offset --stribeck-column '
                '--derivative-method savgol --cutoff-hz 25 --sidecar-window --min-velocity 0.05 '
                '--no-auto-options')


def director_log(path) -> DirectorLog:
    """Return the director's log the demo saved (``report.save_director_log``)."""
    d = json.loads(Path(path).read_text())
    phases = [R.Phase(**p) for p in d.pop('phases')]
    d['tare_events'] = [tuple(e) for e in d['tare_events']]
    return DirectorLog(**d, phases=phases)


class Demo:
    """One demo folder's bags, force script and truth."""

    def __init__(self, folder):
        self.dir = Path(folder)
        self.robot = youbot_model()
        j = self.robot.joint_names
        bags = self.dir / 'bags'

        def rd(k):
            return read_joint_states(bags / k, j), find_sidecar(bags / k)

        self.data, self.static, self.sweeps, self.held = (
            rd(k) for k in ('excitation', 'static', 'sweeps', 'validation'))
        self.force = read_joint_states(bags / 'force_phase', j, require_velocity=True)
        self.log = director_log(self.dir / 'force_script_log.json')
        self.scenario = demo_report.force_scenario(self.log)
        self.tare_ns = [(int(t * 1e9), kind) for t, kind in self.log.tare_events]
        sim = SimConfig()
        self.noise_nm = (np.sqrt(sim.current_noise_a ** 2 + sim.current_resolution_a ** 2 / 12)
                         * np.asarray(sim.drive_gains_nm_a))
        self.settings = demo_estimator_settings()

    def identify(self, opts):
        """Identify as the demo does; return (result, in-motion RMSE / noise per joint, s)."""
        t0 = time.perf_counter()
        res = identify(self.robot, [self.data], static=[self.static], sweeps=[self.sweeps],
                       options=dataclasses.replace(opts))
        dt = time.perf_counter() - t0
        held, sc = self.held
        v = validate(res.model, held, None, sc, min_velocity_rad_s=MIN_VELOCITY_RAD_S).metrics
        res.model.validation = dict(validate(res.model, held, None, sc).metrics)
        return res, np.asarray(v['rmse_in_motion_nm']) / self.noise_nm, dt

    def estimate(self, model):
        """Replay the force phase with ``model``; return the estimator figures (N, samples)."""
        js, sc = self.force, self.scenario
        st, F, C, _ = R.estimate_batch(model, js.stamp_ns, js.q, js.qd, js.effort, self.tare_ns,
                                       R.EstimatorConfig(**self.settings))
        t = st * 1e-9
        err = F[:, :3] - sc.timeline.at(t)
        settled = sc.timeline.settled_mask(t)
        out = {}
        for kind in ('rest', 'motion'):
            m = R.in_windows(t, [(p.t0_s, p.t1_s) for p in sc.phases if p.kind == kind]) & settled
            out[kind + '_axes_n'] = np.sqrt(np.mean(err[m] ** 2, axis=0))
            out[kind + '_n'] = float(np.sqrt(np.mean(np.sum(err[m] ** 2, axis=1))))
        out['false_contacts'] = int(R.false_contacts(t, C, sc.free)[0])
        out['delays_ms'] = [None if d is None else 1e3 * d
                            for d in R.detection_delays(t, C, sc.onsets_s)]
        return out

    def truth(self, model_like):
        """Return the true-parameter model with ``model_like``'s residual std (the floor)."""
        tm = load_true_model(self.dir / 'truth' / 'true_parameters.yaml')
        tm.residual_std_nm = model_like.residual_std_nm
        return tm


def _row(label, x, est, dt=None, chosen=''):
    axes = ' '.join(f'{v:.3f}' for v in est['rest_axes_n'])
    maxes = ' '.join(f'{v:.3f}' for v in est['motion_axes_n'])
    ident = '' if x is None else (f'in-motion RMSE/noise {" ".join(f"{v:.3f}" for v in x)} '
                                  f'(mean {x.mean():.3f}); ')
    print(f'  [{label}] {ident}force RMS at rest {est["rest_n"]:.3f} N (x y z {axes}), in '
          f'motion {est["motion_n"]:.3f} N (x y z {maxes}), false contacts '
          f'{est["false_contacts"]}, delays ms {est["delays_ms"]}'
          + (f'; identify {dt:.1f} s' if dt is not None else '') + chosen, flush=True)


def _chosen(res):
    if res.selection is None:
        return ''
    c = res.selection.chosen()
    return '; chosen ' + ', '.join(f'{k}={v}' for k, v in c.items())


def run(folder, variants):
    """Print each variant's row, the floor and the ratios to the first (the recipe)."""
    demo = Demo(folder)
    print(f'== {folder}', flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, opts in variants:
            res, x, dt = demo.identify(opts)
            path = Path(tmp) / f'{len(rows)}.yaml'
            res.model.save(path)
            model = load_model(path)
            est = demo.estimate(model)
            _row(label, x, est, dt, _chosen(res))
            rows.append((label, x, est, model))
    _row('true parameters (floor)', None, demo.estimate(demo.truth(rows[0][3])))
    _, x0, e0, _ = rows[0]
    for label, x, est, _ in rows[1:]:
        print(f'  ratio [{label}] / [{rows[0][0]}]: in-motion RMSE/noise '
              f'{" ".join(f"{v:.3f}" for v in x / x0)} (max {np.max(x / x0):.3f}, target <= '
              f'1.03); force RMS at rest {est["rest_n"] / e0["rest_n"]:.3f}, in motion '
              f'{est["motion_n"] / e0["motion_n"]:.3f}; false contacts {est["false_contacts"]} '
              f'vs {e0["false_contacts"]}', flush=True)
    return rows


def _variant(text):
    """Parse NAME=k=v,k=v into (NAME, options without the recipe)."""
    name, _, rest = text.partition('=')
    kw = {}
    for item in filter(None, rest.split(',')):
        k, _, v = item.partition('=')
        field_type = type(getattr(IdentificationOptions(), k))
        kw[k] = (v.lower() in ('1', 'true', 'yes')) if field_type is bool else (
            None if v == 'none' else (float(v) if field_type in (float, type(None)) and
                                      v.replace('.', '', 1).isdigit() else v))
    return name, IdentificationOptions(**kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('demos', nargs='+', help='demo output folders (with bags/)')
    ap.add_argument('--variant', action='append', default=[], metavar='NAME=k=v,...',
                    help='also fit these options (IdentificationOptions fields)')
    a = ap.parse_args()
    variants = [('recipe (8 flags)', RECIPE), ('defaults (no flags)', IdentificationOptions())]
    variants += [_variant(v) for v in a.variant]
    for d in a.demos:
        run(d, variants)
    print('commands: robot-id identify --data DIR/bags/excitation --static DIR/bags/static '
          f'--sweeps DIR/bags/sweeps [{RECIPE_FLAGS}] --out m.yaml; robot-id validate --model '
          'm.yaml --data DIR/bags/validation --min-velocity 0.05; the force phase as robot-id '
          'estimate --model m.yaml --data DIR/bags/force_phase --params-file '
          'config/wrench_estimator.yaml (with the node\'s tares)')
    print('reproduce: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_youbot_defaults.py '
          'DIR [DIR ...] [--variant NAME=k=v,...]')


if __name__ == '__main__':
    main()
