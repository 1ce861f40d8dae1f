"""``robot-id demo``: the whole pipeline on the simulated youBot, over real DDS.

Processes (each the package's real node, started as its own Python process on a private ROS
domain, discovery limited to this machine):

1. ``youbot_sim``  hidden true parameters, stiction, 1 mA current quantisation + 10 mA noise,
   joint states at 200 Hz, faster than real time (``real_time_factor``), publishes /clock;
2. ``static_pose_recorder``  (poses approached from both directions) -> bag + sidecar;
3. ``friction_sweep_recorder``  -> bag + sidecar;
4. excitation design (the core), then ``trajectory_recorder`` twice: the identification run and a
   held-out run of a second, different trajectory;
5. identification (the core, as ``robot-id identify``) -> model file + report; validation on the
   held-out run;
6. ``wrench_estimator`` with the identified model, and a passive ``trajectory_recorder``, while this
   process (a small director node) moves the arm and has the simulator apply a scripted sequence
   of known forces at rest and in motion, and calls ``~/tare`` at each rest pose.

Then the recorded force phase is replayed through the same estimator core with the simulator's
true parameters (the floor) and through seed 000's gravity-only point-mass baseline, and a
results table is printed and written with plots into the report folder.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.ros.params_file import youbot_estimator_settings
from robot_id_ros.record import ExcitationError, FourierTrajectory, design_within_torque
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.identify import IdentificationOptions, identify, validate
from robot_id_ros.model.robot import YOUBOT_JOINTS, youbot_model
from robot_id_ros.io.model_file import load_model
from robot_id_ros.model.regressor import RegressorOptions
from robot_id_ros.io.sidecar import find_sidecar
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.true_model import load_true_model
from . import results as R
from robot_id_ros.errors import OperationError


# The recorders' defaults (0.5 rad/s, 1 rad/s^2) are conservative for a first session on a real arm;
# the simulated arm is excited closer to the youBot's drive limit of pi/2 rad/s.
EXCITATION_VELOCITY_RAD_S = 1.2
EXCITATION_ACCELERATION_RAD_S2 = 3.0
EXCITATION_TORQUE_FRACTION = 0.9


# the estimator settings of config/wrench_estimator.yaml (the youBot's; read from that file, so the
# node on a robot, the demo's node and its replays use the same), as EstimatorConfig fields
DEMO_ESTIMATOR = youbot_estimator_settings()


class DemoError(OperationError):
    """A stage of the demo failed; the message names the stage and where its log is."""


@dataclass
class DemoConfig:
    out_dir: Path
    quick: bool = False
    seed: int = 7
    real_time_factor: float = 4.0          # identification stages
    force_real_time_factor: float = 2.0    # force phase (the estimator node must keep up)
    publish_rate_hz: float = 200.0
    domain_id: int | None = None

    @property
    def static_pose_count(self):
        return 6 if self.quick else 12

    @property
    def sweep_speeds(self):
        return [0.2, 0.5] if self.quick else [0.1, 0.25, 0.5]

    @property
    def excitation_periods(self):
        return 2 if self.quick else 4

    @property
    def excitation_period_s(self):
        return 8.0 if self.quick else 10.0


def _log(msg):
    print(msg, flush=True)


class Stage:
    """Prints a stage header and its duration."""

    def __init__(self, demo, name):
        self.demo, self.name = demo, name

    def __enter__(self):
        self.t0 = time.monotonic()
        self.demo.stage_no += 1
        _log(f'[{time.monotonic() - self.demo.t0:6.1f}s] ({self.demo.stage_no}/{self.demo.n_stages}) {self.name} ...')
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            _log(f'[{time.monotonic() - self.demo.t0:6.1f}s]     done in {time.monotonic() - self.t0:.1f}s')


class NodeProcess:
    """One of the package's nodes in its own process, parameters from a generated params file."""

    def __init__(self, module, node_name, params, env, log_dir: Path):
        self.name = node_name
        self.log_path = log_dir / f'{node_name}.log'
        pfile = log_dir / f'{node_name}.params.yaml'
        pfile.write_text(yaml.safe_dump({'/**': {'ros__parameters': params}}))
        code = f'import sys; from robot_id_ros.ros.nodes.{module} import main; sys.exit(main())'
        cmd = [sys.executable, '-c', code, '--ros-args', '-r', f'__node:={node_name}', '--params-file', str(pfile)]
        self._log = open(self.log_path, 'w')
        self.proc = subprocess.Popen(cmd, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def alive(self):
        return self.proc.poll() is None

    def last_line(self, contains=''):
        try:
            lines = self.log_path.read_text(errors='replace').splitlines()
        except OSError:
            return ''
        for line in reversed(lines):
            if contains in line:
                return line
        return ''

    def wait(self, timeout_s, progress_every_s=10.0):
        t0 = time.monotonic()
        last = t0
        while self.alive():
            if time.monotonic() - t0 > timeout_s:
                self.stop()
                raise DemoError(f'{self.name} did not finish within {timeout_s:.0f} s (log: {self.log_path})')
            if time.monotonic() - last > progress_every_s:
                line = self.last_line('INFO')
                if line:
                    _log('        ' + line.split(']: ', 1)[-1][:150])
                last = time.monotonic()
            time.sleep(0.2)
        self._log.close()
        return self.proc.returncode

    def stop(self, timeout_s=10.0):
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
                self.proc.wait(timeout_s)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(5)
        if not self._log.closed:
            self._log.close()


class Demo:
    def __init__(self, cfg: DemoConfig):
        self.cfg = cfg
        self.out = Path(cfg.out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        for sub in ('bags', 'logs', 'report', 'truth'):
            (self.out / sub).mkdir(exist_ok=True)
        self.logs = self.out / 'logs'
        self.bags = self.out / 'bags'
        self.domain_id = cfg.domain_id if cfg.domain_id is not None else 120 + os.getpid() % 100
        self.env = dict(os.environ, ROS_DOMAIN_ID=str(self.domain_id), ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
                        PYTHONUNBUFFERED='1')
        self.env.pop('ROS_LOCALHOST_ONLY', None)
        self.procs = []
        self.t0 = time.monotonic()
        self.stage_no = 0
        self.n_stages = 8
        self.robot = youbot_model()
        self.results = {}

    # --- processes ------------------------------------------------------------------------
    def start(self, module, name, params):
        p = NodeProcess(module, name, params, self.env, self.logs)
        self.procs.append(p)
        return p

    def stop_all(self):
        for p in reversed(self.procs):
            p.stop()

    def recorder_params(self, bag, **extra):
        p = {'use_sim_time': True, 'output_path': str(bag), 'autostart': True, 'shutdown_when_done': True,
             'resume': False, 'startup_timeout_s': 30.0, 'driver_timeout_s': 5.0, 'progress_period_s': 10.0}
        p.update(extra)
        return p

    def run_recorder(self, module, name, bag, timeout_s, **params):
        proc = self.start(module, name, self.recorder_params(bag, **params))
        rc = proc.wait(timeout_s)
        sc = find_sidecar(bag)
        status = (sc or {}).get('info', {}).get('status')
        if rc != 0 or status != 'finished':
            raise DemoError(f'{name} ended with exit code {rc}, status {status!r}: '
                            f'{proc.last_line("ERROR") or proc.last_line()} (log: {proc.log_path})')
        return sc

    # --- stages -----------------------------------------------------------------------------
    def run(self):
        try:
            self._run()
        finally:
            self.stop_all()
        return self.results

    def _run(self):
        cfg = self.cfg
        with Stage(self, f'simulated youBot (seed {cfg.seed}, {cfg.publish_rate_hz:g} Hz, '
                         f'x{cfg.real_time_factor:g} real time, ROS domain {self.domain_id})'):
            self.truth_file = self.out / 'truth' / 'true_parameters.yaml'
            self.sim = self.start('youbot_sim', 'youbot_sim', {
                'seed': cfg.seed, 'publish_rate_hz': cfg.publish_rate_hz, 'real_time_factor': cfg.real_time_factor,
                'true_parameters_file': str(self.truth_file)})
            t = time.monotonic()
            while not self.truth_file.exists():
                if not self.sim.alive() or time.monotonic() - t > 60:
                    raise DemoError(f'youbot_sim did not start (log: {self.sim.log_path})')
                time.sleep(0.1)
        with Stage(self, f'static poses: {cfg.static_pose_count} poses, each approached from both directions'):
            self.static_bag = self.bags / 'static'
            self.run_recorder('static_pose_recorder', 'static_pose_recorder', self.static_bag, 900,
                              pose_count=cfg.static_pose_count, both_directions=True, pose_seed=cfg.seed,
                              window_s=1.5, settle_dwell_s=0.5)
        with Stage(self, f'friction sweeps at {", ".join(f"{s:g}" for s in cfg.sweep_speeds)} rad/s'):
            self.sweep_bag = self.bags / 'sweeps'
            self.run_recorder('friction_sweep_recorder', 'friction_sweep_recorder', self.sweep_bag, 900,
                              speeds_rad_s=[float(s) for s in cfg.sweep_speeds],
                              sweep_joints=list(YOUBOT_JOINTS), amplitude_rad=0.6)
        with Stage(self, 'excitation: two optimised trajectories (identification, held-out validation)'):
            self.traj_files = []
            # the design constrains positions, velocities and accelerations; torque is checked here
            # with the URDF model plus youBot-sized friction: a trajectory needing more than
            # EXCITATION_TORQUE_FRACTION of a drive's limit is redesigned with the next seed
            friction = FrictionModel([0.8, 0.6, 0.5, 0.2, 0.15], [0.8, 0.6, 0.5, 0.2, 0.15],
                                     [1.0, 0.8, 0.6, 0.1, 0.1], [0.0] * 5)
            seed = cfg.seed
            for k in range(2):
                try:
                    res, peak, _, used = design_within_torque(
                        self.robot, RegressorOptions(friction=True, rotor_inertia=True),
                        max_torque_fraction=EXCITATION_TORQUE_FRACTION, attempts=12, friction=friction, seed=seed,
                        report=lambda s, p: _log(f'        design seed {s}: needs {100 * p:.0f} % of a drive\'s '
                                                 'torque limit; redesigning'),
                        period_s=cfg.excitation_period_s, harmonics=5, max_iterations=40 if cfg.quick else 100,
                        velocity_limits_rad_s=np.full(5, EXCITATION_VELOCITY_RAD_S),
                        acceleration_limits_rad_s2=np.full(5, EXCITATION_ACCELERATION_RAD_S2),
                        velocity_fraction=0.9, acceleration_fraction=0.9)
                except ExcitationError as exc:
                    raise DemoError(f'excitation design: {exc}') from exc
                seed = used + 1
                path = self.out / 'report' / f'excitation_{"identification" if k == 0 else "validation"}.yaml'
                res.trajectory.save(path)
                self.traj_files.append(path)
                _log(f'        trajectory {k + 1}: condition number {res.cond:.1f} (from {res.initial_cond:.1f}) '
                     f'in {res.time_s:.1f}s, peak torque {100 * peak:.0f} % of the limits')
            self.results['excitation_cond'] = float(res.cond)
        with Stage(self, f'excitation runs: {cfg.excitation_periods} periods of {cfg.excitation_period_s:g} s, twice'):
            self.traj_bags = []
            for k, path in enumerate(self.traj_files):
                bag = self.bags / ('excitation' if k == 0 else 'validation')
                self.run_recorder('trajectory_recorder', f'trajectory_recorder_{k + 1}', bag, 900,
                                  trajectory_file=str(path), periods=cfg.excitation_periods,
                                  max_velocity_rad_s=EXCITATION_VELOCITY_RAD_S,
                                  max_acceleration_rad_s2=EXCITATION_ACCELERATION_RAD_S2,
                                  max_tracking_error_rad=0.3)   # the drives' PID lags at full excitation
                self.traj_bags.append(bag)
        with Stage(self, 'identification (static gravity, sweep friction, full dynamics) and validation'):
            self._identify()
        with Stage(self, 'wrench estimator node with the identified model; scripted known forces'):
            self._force_phase()
        with Stage(self, 'estimators side by side: identified, true parameters (floor), seed-000 baseline'):
            self._compare()

    # --- identification ---------------------------------------------------------------------
    def _identify(self):
        j = self.robot.joint_names
        # Savitzky-Golay derivatives at 25 Hz inside the excitation periods (the simulated joints stick and
        # slip, so the motion is not exactly periodic and has kinks a truncated Fourier series smears);
        # direction-dependent Coulomb and a Stribeck column (velocity chosen by the fit); rows of joints
        # slower than 0.05 rad/s (stiction / Stribeck regime) left out of the fit, and reported apart
        # in the validation (rmse_in_motion_nm next to rmse_nm)
        opts = IdentificationOptions(friction=True, offset=False, rotor_inertia=True, coulomb_asymmetric=True,
                                     stribeck_column=True, derivative_method='savgol', cutoff_hz=25.0,
                                     sidecar_window=True, min_velocity_rad_s=0.05)
        static = read_joint_states(self.static_bag, j)
        sweeps = read_joint_states(self.sweep_bag, j)
        data = read_joint_states(self.traj_bags[0], j)
        res = identify(self.robot, data=[(data, find_sidecar(self.traj_bags[0]))],
                       static=[(static, find_sidecar(self.static_bag))],
                       sweeps=[(sweeps, find_sidecar(self.sweep_bag))], options=opts)
        self.ident = res
        held = read_joint_states(self.traj_bags[1], j)
        val = validate(res.model, held, None, find_sidecar(self.traj_bags[1]))
        res.model.validation = dict(val.metrics) if hasattr(val, 'metrics') else {}
        self.model_path = self.out / 'youbot_model.yaml'
        res.model.save(self.model_path)
        for line in res.summary_lines:
            _log('        ' + line)
        sim = SimConfig()
        gains = sim.drive_gains_nm_a
        noise = np.sqrt(sim.current_noise_a ** 2 + sim.current_resolution_a ** 2 / 12) * gains
        rmse = np.asarray(val.metrics['rmse_nm'])
        rmse_motion = np.asarray(val.metrics['rmse_in_motion_nm'])
        self.results['identification'] = {
            'noise_floor_nm': noise.tolist(), 'validation_rmse_nm': rmse.tolist(),
            'rmse_over_noise': (rmse / noise).tolist(), 'relative_error': val.metrics['relative_error'],
            'validation_rmse_in_motion_nm': rmse_motion.tolist(),
            'rmse_in_motion_over_noise': (rmse_motion / noise).tolist(),
            'in_motion_min_velocity_rad_s': val.metrics['min_velocity_rad_s'],
            'in_motion_fraction': val.metrics['in_motion_fraction'],
            'n_base': int(res.dynamics.base.n_base) if res.dynamics else None,
            'condition_number': res.model.identification.get('condition_number')}
        if res.gravity is not None:
            self.results['identification']['static_residual_rms_nm'] = float(
                np.sqrt(np.mean(res.gravity.residual_nm ** 2)))
        _log(f'        held-out validation: RMSE/noise per joint '
             f'{", ".join(f"{x:.2f}" for x in rmse / noise)} (all samples), '
             f'{", ".join(f"{x:.2f}" for x in rmse_motion / noise)} (in motion, |qd_j| >= '
             f'{val.metrics["min_velocity_rad_s"]:g} rad/s); relative error {100 * val.metrics["relative_error"]:.2f} %')

    # --- force phase ------------------------------------------------------------------------
    def _force_phase(self):
        from robot_id_ros.demo.director import ForceScript, run_director

        cfg = self.cfg
        self.est = self.start('wrench_estimator', 'wrench_estimator', dict(
            DEMO_ESTIMATOR, use_sim_time=True, model_file=str(self.model_path)))
        self.force_bag = self.bags / 'force_phase'
        passive = self.start('trajectory_recorder', 'force_phase_recorder', self.recorder_params(
            self.force_bag, passive=True, autostart=True))
        script = ForceScript.default(self.robot, FourierTrajectory.load(self.traj_files[1]), quick=cfg.quick)
        _log(f'        script: {script.duration_s():.0f} s of sim time at x{cfg.force_real_time_factor:g} real time')
        self.script_log = run_director(self.domain_id, script, 'youbot_sim', cfg.force_real_time_factor,
                                       self.robot, progress=_log)
        passive.stop()
        self.est.stop()
        save_director_log(self.script_log, self.out / 'force_script_log.json')

    def _compare(self):
        log = self.script_log
        timeline = R.timeline_from_samples(log.true_t_s, log.true_force_n)
        phases = [p for p in log.phases if p.kind in ('rest', 'motion')]
        free = [(p.t0_s, p.t1_s) for p in log.phases if p.kind == 'motion_free']
        motion = [p for p in log.phases if p.kind == 'motion']
        onsets = [t for t, f in zip(timeline.t_s, timeline.force_n)
                  if np.linalg.norm(f) > 0 and any(p.t0_s <= t < p.t1_s for p in motion)]
        onset_forces = [float(np.linalg.norm(f)) for t, f in zip(timeline.t_s, timeline.force_n)
                        if t in onsets]
        rows = {}
        # the live node over DDS
        live = R.force_errors(np.array(log.est_t_s), np.array(log.est_force_n), timeline, phases)
        live_false, live_free_n = R.false_contacts(log.contact_t_s, log.contact, free)
        live_delay = R.detection_delays(log.contact_t_s, log.contact, onsets)
        rows['wrench_estimator node (identified model, live DDS)'] = {
            'rms_rest_n': live.rms_rest_n, 'rms_motion_n': live.rms_motion_n,
            'detection_delay_s': live_delay, 'false_contact_samples': live_false, 'samples': len(log.est_t_s)}
        # the same core replayed over the recorded joint states with three models
        js = read_joint_states(self.force_bag, self.robot.joint_names, require_velocity=True)
        tare_ns = [(int(t * 1e9), kind) for t, kind in log.tare_events]
        identified = load_model(self.model_path)
        truth = load_true_model(self.truth_file)
        # the truth file has no residual statistics: give the floor the same contact thresholds
        truth.residual_std_nm = identified.residual_std_nm
        models = {'identified model (this package)': identified, 'true parameters (floor)': truth}
        # the tool's linear Jacobian at every recorded sample, once: joint 1's column for the at-rest
        # split, J^T F_applied for the contacts' true joint torques
        t_all = js.stamp_ns * 1e-9
        J_all = np.array([self.robot.tool_jacobian(q)[:3] for q in js.q])
        index_of = {int(s): i for i, s in enumerate(js.stamp_ns)}
        # from each tare at a pose to the first force there (the estimate must read zero)
        rest_starts = sorted(p.t0_s for p in phases if p.kind == 'rest')
        after_tare = [(tt, min((s for s in rest_starts if s > tt), default=tt)) for tt, kind in log.tare_events
                      if kind == 'tare']
        for name, model in models.items():
            st, F, C = R.estimate_batch(model, js.stamp_ns, js.q, js.qd, js.effort, tare_ns,
                                        EstimatorConfig(**DEMO_ESTIMATOR))
            t = st * 1e-9
            e = R.force_errors(t, F, timeline, phases)
            split = R.rest_error_split(t, F, timeline, phases, J_all[[index_of[int(s)] for s in st], :, 0])
            rows[name] = {'rms_rest_n': e.rms_rest_n, 'rms_motion_n': e.rms_motion_n,
                          'rms_rest_in_plane_n': split[0], 'rms_rest_normal_n': split[1],
                          'rms_after_tare_n': R.force_rms_in(t, F, timeline, after_tare),
                          'detection_delay_s': R.detection_delays(t, C, onsets),
                          'false_contact_samples': R.false_contacts(t, C, free)[0], 'samples': len(t),
                          'per_phase': e.per_phase}
            if name.startswith('identified'):
                self._plot_force(t, F, timeline, phases)
        # how much each contact loads the joints in its first 50 ms (noise-free contact-test score)
        true_tau = np.einsum('kij,ki->kj', J_all, timeline.at(t_all))
        detector = WrenchEstimator(identified, EstimatorConfig(**DEMO_ESTIMATOR)).contact
        signal = R.contact_signal(t_all, true_tau, detector, onsets)
        pm = self.ident.point_mass
        Fb = R.gravity_only_batch(self.robot, lambda q: pm.predict(self.robot, q)[0], js.stamp_ns, js.q,
                                  js.effort, tare_ns)
        eb = R.force_errors(js.t_s + js.stamp_ns[0] * 1e-9, Fb, timeline, phases)
        rows["seed 000 baseline (point masses, gravity only)"] = {
            'rms_rest_n': eb.rms_rest_n, 'rms_motion_n': eb.rms_motion_n, 'detection_delay_s': None,
            'false_contact_samples': None, 'samples': len(Fb)}
        self.results['force'] = {'estimators': rows, 'contact_onsets_s': onsets, 'onset_force_n': onset_forces,
                                 'contact_signal_50ms': signal,
                                 'contact_free_s': float(sum(b - a for a, b in free)),
                                 'transient_excluded_s': R.TRANSIENT_S,
                                 'live_contact_free_samples': live_free_n}
        self._write_report()

    def _plot_force(self, t, F, timeline, phases):
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
                ax.axvspan(p.t0_s - t0, p.t1_s - t0, color='C1' if p.kind == 'motion' else 'C2', alpha=0.08)
            ax.set_ylabel(f'F{"xyz"[k]} [N]')
        axes[0].legend(loc='upper right')
        axes[-1].set_xlabel('sim time [s] (green: at rest, orange: in motion)')
        fig.tight_layout()
        fig.savefig(self.out / 'report' / 'force_phase.png', dpi=110)
        plt.close(fig)

    def _write_report(self):
        (self.out / 'results.json').write_text(json.dumps(self.results, indent=2, default=float))
        text = results_table(self.results)
        (self.out / 'results.md').write_text(text + '\n')
        _log('')
        _log(text)


def save_director_log(log, path):
    """The force phase as recorded by the director (sim seconds), for re-analysis."""
    d = {k: v for k, v in vars(log).items() if k != 'phases'}
    d['phases'] = [vars(p) for p in log.phases]
    Path(path).write_text(json.dumps(d, default=float))


def load_director_log(path):
    from robot_id_ros.demo.director import DirectorLog

    d = json.loads(Path(path).read_text())
    phases = [R.Phase(**p) for p in d.pop('phases')]
    return DirectorLog(phases=phases, **d)


def _fmt(x, unit='', digits=2):
    if x is None:
        return 'n/a'
    if isinstance(x, float) and not np.isfinite(x):
        return 'n/a'
    return f'{x:.{digits}f}{unit}'


def results_table(res):
    """The demo's results as markdown tables."""
    out = []
    idr = res.get('identification')
    if idr:
        out.append('Identification (held-out excitation, torque RMSE vs the sensing noise floor)\n')
        motion = idr.get('rmse_in_motion_over_noise')
        out.append('| joint | RMSE [Nm] | noise floor [Nm] | RMSE / noise | RMSE / noise, joint moving |')
        out.append('|---|---|---|---|---|')
        for j, (r, nf, q) in enumerate(zip(idr['validation_rmse_nm'], idr['noise_floor_nm'], idr['rmse_over_noise'])):
            out.append(f'| J{j + 1} | {r:.4f} | {nf:.4f} | {q:.2f} | {_fmt(motion[j]) if motion else "n/a"} |')
        if motion:
            out.append(f'\n"joint moving": samples where that joint\'s |qd| >= {idr["in_motion_min_velocity_rad_s"]:g} rad/s '
                       '(a stuck joint holds any friction inside its stiction band: no model predicts it)')
        out.append(f'\nrelative error {100 * idr["relative_error"]:.2f} %, {idr.get("n_base")} base parameters, '
                   f'condition number {_fmt(idr.get("condition_number"), "", 1)}'
                   + (f', static gravity residual {idr["static_residual_rms_nm"]:.3f} Nm RMS'
                      if 'static_residual_rms_nm' in idr else ''))
    fr = res.get('force')
    if fr:
        out.append(f'\nForce estimation (RMS of |F_est - F_applied| after each step\'s first '
                   f'{fr["transient_excluded_s"]:g} s; contact-free motion {fr["contact_free_s"]:.1f} s)\n')
        out.append('| estimator | at rest [N] | in motion [N] | contact delay [ms] | false contacts |')
        out.append('|---|---|---|---|---|')
        for name, r in fr['estimators'].items():
            d = r.get('detection_delay_s')
            delay = ('n/a' if not d else ', '.join('miss' if not np.isfinite(x) else f'{1000 * x:.0f}' for x in d))
            fc = r.get('false_contact_samples')
            out.append(f'| {name} | {_fmt(r["rms_rest_n"])} | {_fmt(r["rms_motion_n"])} | {delay} | '
                       f'{"n/a" if fc is None else fc} |')
        if fr.get('contact_signal_50ms'):
            out.append('\nEach contact made while moving: its force [N] and the contact-test score of its TRUE joint '
                       'torques within its first 50 ms (noise-free, no stiction, no lag; below 1 no estimator '
                       'can flag it within 50 ms at this threshold): '
                       + ', '.join(f'{f:g} N: {_fmt(x)}' for f, x in zip(fr['onset_force_n'], fr['contact_signal_50ms'])))
        split = [(name, r) for name, r in fr['estimators'].items() if 'rms_rest_normal_n' in r]
        if split:
            out.append('\nAt rest, the error in the arm\'s plane (joints 2-4 see it) and along its normal (joint 1 '
                       'alone sees it; not at all while joint 1 is held by stiction), RMS [N]: '
                       + '; '.join(f'{name}: {_fmt(r["rms_rest_in_plane_n"])} in plane, '
                                   f'{_fmt(r["rms_rest_normal_n"])} normal' for name, r in split))
            out.append('\nAt rest between each tare and the first force at that pose, RMS [N]: '
                       + '; '.join(f'{name}: {_fmt(r["rms_after_tare_n"], "", 3)}' for name, r in split))
    return '\n'.join(out)


def run_demo(cfg: DemoConfig):
    return Demo(cfg).run()
