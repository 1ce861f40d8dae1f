# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's comparison and report.

The recorded force phase replayed through the estimator core with the identified model, the
simulator's true parameters (the floor) and a gravity-only point-mass baseline, beside what the
live node published; then results.json, results.md and the force plot.

Forces are in N in the URDF root frame, times in sim seconds (stamps in ns where named so).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robot_id_ros.demo import results as R
from robot_id_ros.demo.director import DirectorLog
from robot_id_ros.demo.processes import log as say
from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.estimate.calibration import settle_s
from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.io.model_file import load_model
from robot_id_ros.io.yaml_input import read_yaml
from robot_id_ros.sim.true_model import true_model_from_dict

# the rows of the force table (test/test_demo.py and the README read these names)
LIVE = 'wrench_estimator node (identified model, live DDS)'
IDENTIFIED = 'identified model (this package)'
TRUTH = 'true parameters (floor)'
BASELINE = 'seed 000 baseline (point masses, gravity only)'


@dataclass
class ForceScenario:
    """What the director applied, from its log (sim seconds, forces in N).

    Attributes:
        timeline: the applied force over time.
        phases: the 'rest' and 'motion' phases (errors are computed over these).
        free: contact-free motion windows [(t0_s, t1_s)] (false contacts are counted there).
        onsets_s: instants a force starts while the arm moves (contact delays start there).
        onset_force_n: the magnitude of each of those forces.
        after_tare: windows from each tare to the first force at that pose [(t0_s, t1_s)].
        all_phases: the rest, contact-free motion and motion phases (sigma is calibrated there).
    """

    timeline: R.ForceTimeline
    phases: list
    free: list
    onsets_s: list
    onset_force_n: list
    after_tare: list
    all_phases: list


def force_scenario(log) -> ForceScenario:
    """Return the force script as it ran, from the director's log (``director.DirectorLog``)."""
    timeline = R.timeline_from_samples(log.true_t_s, log.true_force_n)
    phases = [p for p in log.phases if p.kind in ('rest', 'motion')]
    free = [(p.t0_s, p.t1_s) for p in log.phases if p.kind == 'motion_free']
    motion = [p for p in log.phases if p.kind == 'motion']
    onsets = [t for t, f in zip(timeline.t_s, timeline.force_n)
              if np.linalg.norm(f) > 0 and any(p.t0_s <= t < p.t1_s for p in motion)]
    onset_forces = [float(np.linalg.norm(f)) for t, f in zip(timeline.t_s, timeline.force_n)
                    if t in onsets]
    # from each tare at a pose to the first force there (the estimate must read zero)
    rest_starts = sorted(p.t0_s for p in phases if p.kind == 'rest')
    after_tare = [(tt, min((s for s in rest_starts if s > tt), default=tt))
                  for tt, kind in log.tare_events if kind == 'tare']
    every = [p for p in log.phases if p.kind in ('rest', 'motion', 'motion_free')]
    return ForceScenario(timeline, phases, free, onsets, onset_forces, after_tare, every)


def _live_row(log, sc: ForceScenario):
    """Compute the live node's figures over DDS; return (row, contact-free samples published)."""
    est_t = np.array(log.est_t_s)
    live = R.force_errors(est_t, np.array(log.est_force_n), sc.timeline, sc.phases)
    # the node publishes its contact flag on change: the flag at each estimate's sample
    contact = R.contact_at(est_t, log.contact_t_s, log.contact)
    live_false, live_free_n = R.false_contacts(est_t, contact, sc.free)
    live_delay = R.detection_delays(est_t, contact, sc.onsets_s)
    row = {'rms_rest_n': live.rms_rest_n, 'rms_motion_n': live.rms_motion_n,
           'detection_delay_s': live_delay, 'false_contact_samples': live_false,
           'samples': len(log.est_t_s)}
    return row, live_free_n


def replay_force_phase(model, js, tare_ns, settings):
    """Replay the force phase's joint states through the core's ``update``, tared as the node was.

    Args:
        model: the model to replay with.
        js: the force phase's joint states (``io.bags.read_joint_states``).
        tare_ns: the node's tare events [(stamp_ns, 'tare' | 'clear')].
        settings: ``EstimatorConfig`` fields (the demo's estimator settings).

    Returns:
        (stamps (N,) ns, forces (N, 3) N, published force std (N, 3) N, contact flags (N,)) over
        the accepted samples.
    """
    st, F, C, sd = R.estimate_batch(model, js.stamp_ns, js.q, js.qd, js.effort, tare_ns,
                                    EstimatorConfig(**settings))
    return st, F, sd, C


def _settle_s(settings):
    """Return the residual's settling time, s, under the estimator ``settings``.

    A replay does not count contacts this long after samples the recorder lost
    (``results.after_gaps``).
    """
    return settle_s(EstimatorConfig(**settings).residual_bandwidth_hz)


def _replay_row(model, js, tare_ns, sc: ForceScenario, settings, joint1_dir_at):
    """Replay the estimator core with ``model`` over the joint states, tared as the node was.

    Args:
        model: the model to replay with.
        js: the force phase's joint states (``io.bags.read_joint_states``).
        tare_ns: the node's tare events [(stamp_ns, 'tare' | 'clear')].
        sc: the force script.
        settings: ``EstimatorConfig`` fields (the demo's estimator settings).
        joint1_dir_at: stamps (ns) -> joint 1's column of the tool's linear Jacobian, (N, 3).

    Returns:
        (row of the force table, sim times s, estimated forces (N, 3) N).
    """
    st, F, sd, C = replay_force_phase(model, js, tare_ns, settings)
    t = st * 1e-9
    e = R.force_errors(t, F, sc.timeline, sc.phases)
    split = R.rest_error_split(t, F, sc.timeline, sc.phases, joint1_dir_at(st))
    row = {'rms_rest_n': e.rms_rest_n, 'rms_motion_n': e.rms_motion_n,
           'rms_rest_in_plane_n': split[0], 'rms_rest_normal_n': split[1],
           'rms_after_tare_n': R.force_rms_in(t, F, sc.timeline, sc.after_tare),
           'detection_delay_s': R.detection_delays(t, C, sc.onsets_s),
           'false_contact_samples': R.false_contacts(t, C, sc.free, _settle_s(settings))[0],
           'samples': len(t),
           'per_phase': e.per_phase,
           'sigma_calibration': R.sigma_calibration(t, F, sd, sc.timeline, sc.all_phases)}
    return row, t, F


def _baseline_row(robot, point_mass, js, tare_ns, sc: ForceScenario):
    """Run the gravity-only point-mass baseline (no friction, no inertia), tared like the node."""
    Fb = R.gravity_only_batch(robot, lambda q: point_mass.predict(robot, q)[0], js.stamp_ns, js.q,
                              js.effort, tare_ns)
    eb = R.force_errors(js.t_s + js.stamp_ns[0] * 1e-9, Fb, sc.timeline, sc.phases)
    return {'rms_rest_n': eb.rms_rest_n, 'rms_motion_n': eb.rms_motion_n,
            'detection_delay_s': None, 'false_contact_samples': None, 'samples': len(Fb)}


def compare_estimators(robot, log, force_bag, model_path, truth_file, point_mass, settings,
                       report_dir) -> dict:
    """Compute the force phase's figures and plot the identified model's forces.

    The live node, the core replayed with the identified model and with the true parameters, and
    the gravity-only baseline; plots the identified model's forces into
    ``report_dir/force_phase.png``.

    Args:
        robot: the arm's model (``model.robot.RobotModel``).
        log: the director's log of the force phase.
        force_bag: the bag the passive recorder wrote during the force phase.
        model_path: the identified model file.
        truth_file: the simulator's true parameters file.
        point_mass: the identification's point-mass gravity fit (the baseline's model).
        settings: ``EstimatorConfig`` fields the node ran with.
        report_dir: folder of the plot.

    Returns:
        The ``force`` section of results.json.
    """
    sc = force_scenario(log)
    rows = {}
    rows[LIVE], live_free_n = _live_row(log, sc)
    js = read_joint_states(force_bag, robot.joint_names, require_velocity=True)
    tare_ns = [(int(t * 1e9), kind) for t, kind in log.tare_events]
    identified = load_model(model_path)
    truth_dict = read_yaml(truth_file, 'true parameters file')
    truth = true_model_from_dict(truth_dict, friction_now=True)
    # the truth file has no residual statistics: give the floor the same contact thresholds
    truth.residual_std_nm = identified.residual_std_nm
    # the tool's linear Jacobian at every recorded sample, once: joint 1's column for the at-rest
    # split, J^T F_applied for the contacts' true joint torques
    t_all = js.stamp_ns * 1e-9
    J_all = np.array([robot.tool_jacobian(q)[:3] for q in js.q])
    index_of = {int(s): i for i, s in enumerate(js.stamp_ns)}

    def joint1_dir_at(stamps_ns):
        return J_all[[index_of[int(s)] for s in stamps_ns], :, 0]

    for name, model in ((IDENTIFIED, identified), (TRUTH, truth)):
        rows[name], t, F = _replay_row(model, js, tare_ns, sc, settings, joint1_dir_at)
        if name == IDENTIFIED:
            plot_force(t, F, sc.timeline, sc.phases, Path(report_dir) / 'force_phase.png')
    # how much each contact loads the joints in its first 50 ms (noise-free contact-test score)
    true_tau = np.einsum('kij,ki->kj', J_all, sc.timeline.at(t_all))
    detector = WrenchEstimator(identified, EstimatorConfig(**settings)).contact
    signal = R.contact_signal(t_all, true_tau, detector, sc.onsets_s)
    rows[BASELINE] = _baseline_row(robot, point_mass, js, tare_ns, sc)
    return {'estimators': rows, 'contact_onsets_s': sc.onsets_s, 'onset_force_n': sc.onset_force_n,
            'contact_signal_50ms': signal,
            'contact_free_s': float(sum(b - a for a, b in sc.free)),
            'transient_excluded_s': R.TRANSIENT_S, 'truth_friction': _truth_friction(truth_dict),
            'live_contact_free_samples': live_free_n}


def _truth_friction(truth_dict):
    """Return the line that says which friction a drifting floor has (None: no drift)."""
    drift = truth_dict.get('friction_drift')
    if not drift:
        return None
    temps = ', '.join(f'{v["temperature_c"]:.1f}' for v in drift['joints'].values())
    return (f'the friction at the joints\' temperatures at {drift["time_s"]:.0f} s of sim time '
            f'({temps} degC; ambient {drift["law"]["ambient_temperature_c"]:g} degC): the '
            'simulator\'s friction drifts')


def plot_force(t, F, timeline, phases, path):
    """Apply against estimated force per axis over the force phase, written to ``path`` (PNG).

    Args:
        t: sim times, s.
        F: estimated forces (N, 3), N.
        timeline: the applied force.
        phases: the rest (green) and motion (orange) phases.
        path: the PNG to write.
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    t0 = t[0]
    fig, axes = plt.subplots(3, 1, figsize=(11, 7), sharex=True)
    truth = timeline.at(t)
    for k, ax in enumerate(axes):
        ax.plot(t - t0, truth[:, k], 'k', lw=1.5, label='applied (simulator)')
        ax.plot(t - t0, F[:, k], 'C0', lw=0.8, label='estimated (identified model)')
        for p in phases:
            ax.axvspan(p.t0_s - t0, p.t1_s - t0, color='C1' if p.kind == 'motion' else 'C2',
                       alpha=0.08)
        ax.set_ylabel(f'F{"xyz"[k]} [N]')
    axes[0].legend(loc='upper right')
    axes[-1].set_xlabel('sim time [s] (green: at rest, orange: in motion)')
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(out_dir, results):
    """Write ``results.json`` and ``results.md`` into ``out_dir`` and prints the tables."""
    out_dir = Path(out_dir)
    (out_dir / 'results.json').write_text(json.dumps(results, indent=2, default=float))
    text = results_table(results)
    (out_dir / 'results.md').write_text(text + '\n')
    say('')
    say(text)


def save_director_log(log, path):
    """Save the force phase as recorded by the director (sim seconds), for re-analysis."""
    d = {k: v for k, v in vars(log).items() if k != 'phases'}
    d['phases'] = [vars(p) for p in log.phases]
    Path(path).write_text(json.dumps(d, default=float))


def load_director_log(path) -> DirectorLog:
    """Return the director's log saved by ``save_director_log`` (for re-analysis)."""
    d = json.loads(Path(path).read_text())
    phases = [R.Phase(**p) for p in d.pop('phases')]
    return DirectorLog(**d, phases=phases)


def _fmt(x, unit='', digits=2):
    if x is None:
        return 'n/a'
    if isinstance(x, float) and not np.isfinite(x):
        return 'n/a'
    return f'{x:.{digits}f}{unit}'


def _identification_table(idr):
    out = ['Identification (held-out excitation, torque RMSE vs the sensing noise floor)\n']
    motion = idr.get('rmse_in_motion_over_noise')
    out.append('| joint | RMSE [Nm] | noise floor [Nm] | RMSE / noise | '
               'RMSE / noise, joint moving |')
    out.append('|---|---|---|---|---|')
    rows = zip(idr['validation_rmse_nm'], idr['noise_floor_nm'], idr['rmse_over_noise'])
    for j, (r, nf, q) in enumerate(rows):
        moving = _fmt(motion[j]) if motion else 'n/a'
        out.append(f'| J{j + 1} | {r:.4f} | {nf:.4f} | {q:.2f} | {moving} |')
    if motion:
        out.append(f'\n"joint moving": samples where that joint\'s |qd| >= '
                   f'{idr["in_motion_min_velocity_rad_s"]:g} rad/s (a stuck joint holds any '
                   'friction inside its stiction band: no model predicts it)')
    out.append(f'\nrelative error {100 * idr["relative_error"]:.2f} %, {idr.get("n_base")} base '
               f'parameters, condition number {_fmt(idr.get("condition_number"), "", 1)}'
               + (f', static gravity residual {idr["static_residual_rms_nm"]:.3f} Nm RMS'
                  if 'static_residual_rms_nm' in idr else ''))
    return out


def _force_table(fr):
    out = [f'\nForce estimation (RMS of |F_est - F_applied| after each step\'s first '
           f'{fr["transient_excluded_s"]:g} s; contact-free motion '
           f'{fr["contact_free_s"]:.1f} s)\n']
    out.append('| estimator | at rest [N] | in motion [N] | contact delay [ms] | false contacts |')
    out.append('|---|---|---|---|---|')
    for name, r in fr['estimators'].items():
        d = r.get('detection_delay_s')
        delay = ('n/a' if not d else
                 ', '.join('miss' if not np.isfinite(x) else f'{1000 * x:.0f}' for x in d))
        fc = r.get('false_contact_samples')
        out.append(f'| {name} | {_fmt(r["rms_rest_n"])} | {_fmt(r["rms_motion_n"])} | {delay} | '
                   f'{"n/a" if fc is None else fc} |')
    if fr.get('truth_friction'):
        out.append(f'\n{TRUTH}: {fr["truth_friction"]}')
    if fr.get('contact_signal_50ms'):
        out.append('\nEach contact made while moving: its force [N] and the contact-test score '
                   'of its TRUE joint torques within its first 50 ms (noise-free, no stiction, no '
                   'lag; below 1 no estimator can flag it within 50 ms at this threshold): '
                   + ', '.join(f'{f:g} N: {_fmt(x)}'
                               for f, x in zip(fr['onset_force_n'], fr['contact_signal_50ms'])))
    split = [(name, r) for name, r in fr['estimators'].items() if 'rms_rest_normal_n' in r]
    if split:
        out.append('\nAt rest, the error in the arm\'s plane (joints 2-4 see it) and along its '
                   'normal (joint 1 alone sees it; not at all while joint 1 is held by stiction), '
                   'RMS [N]: '
                   + '; '.join(f'{name}: {_fmt(r["rms_rest_in_plane_n"])} in plane, '
                               f'{_fmt(r["rms_rest_normal_n"])} normal' for name, r in split))
        out.append('\nAt rest between each tare and the first force at that pose, RMS [N]: '
                   + '; '.join(f'{name}: {_fmt(r["rms_after_tare_n"], "", 3)}'
                               for name, r in split))
    return out


def _sigma_table(fr):
    """Return the lines of the sigma calibration table (per estimator replayed, phase, axis)."""
    out = ['\nPublished force sigma against the actual error, every sample of each phase '
           '(transients included), per axis x y z: 2-sigma coverage (>= 0.90), RMS of '
           'error/sigma (0.7-1.3), 99th percentile of error/sigma (<= 3.5)\n',
           '| estimator | phase | 2-sigma coverage | RMS error/sigma | p99 error/sigma |',
           '|---|---|---|---|---|']
    for name, r in fr['estimators'].items():
        for c in r.get('sigma_calibration') or []:
            out.append(f'| {name} | {c["phase"]} | '
                       + ' | '.join(' '.join(_fmt(x) for x in c[k])
                                    for k in ('coverage_2sigma', 'rms_z', 'p99_z')) + ' |')
    return out if len(out) > 3 else []


def _force_control_table(fc) -> list:
    """Return the results table lines of a ``force_control`` section (``run_stage``)."""
    out = ['\nForce control closed on the estimate (simulated youBot, identified model; '
           'true tool motion and contact force)\n',
           '| figure | measured | target |', '|---|---|---|']
    for name, r in fc['hand_guiding'].items():
        out.append(f'| hand guiding, {fc["push_n"]:g} N along {name}: speed / admittance law | '
                   f'{r["ratio"]:.2f} ({1e3 * r["speed_m_s"]:.1f} mm/s) | 0.8-1.2 |')
    out.append(f'| no push: drift in {fc["drift_duration_s"]:g} s | {1e3 * fc["drift_m"]:.2f} mm '
               '| < 5 mm |')
    h = fc['force_hold']
    out.append(f'| force hold {fc["setpoint_n"]:g} N on {fc["stiffness_n_m"] / 1e3:g} kN/m: '
               f'RMS error | {h["rms_n"]:.2f} N | <= 0.7 N (dither) |')
    out.append(f'| step to {fc["step_to_n"]:g} N: settled (+-10 %) after | '
               f'{h["settle_s"]:.2f} s | <= 1 s |')
    out.append(f'| step: smallest contact force / overshoot | {h["min_after_step_n"]:.1f} / '
               f'{h["overshoot_n"]:.1f} N | > 0 N |')
    return out


def results_table(res):
    """Return the demo's results as markdown tables.

    Args:
        res: the demo's results (results.json: ``identification``, ``force`` and
            ``force_control`` sections, each optional).

    Returns:
        Markdown text.
    """
    out = []
    if res.get('identification'):
        out += _identification_table(res['identification'])
    if res.get('force'):
        out += _force_table(res['force'])
        out += _sigma_table(res['force'])
    if res.get('force_control'):
        out += _force_control_table(res['force_control'])
    return '\n'.join(out)
