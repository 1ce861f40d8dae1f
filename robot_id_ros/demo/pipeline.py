# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``robot-id demo``: the whole pipeline on the simulated youBot, over real DDS.

Processes (each the package's real node, started as its own Python process on a private ROS
domain, discovery limited to this machine; ``demo.processes``):

1. ``youbot_sim``  hidden true parameters, stiction, 1 mA current quantisation + 10 mA noise,
   joint states at 200 Hz, faster than real time (``real_time_factor``), publishes /clock;
2. ``static_pose_recorder``  (poses approached from both directions) -> bag + sidecar;
3. ``friction_sweep_recorder``  -> bag + sidecar;
4. excitation design (the core), then ``trajectory_recorder`` twice: the identification run and a
   held-out run of a second, different trajectory;
5. identification (the core, with the youBot settings of config/identification.yaml) -> model
   file + report; validation on the held-out run;
6. ``wrench_estimator`` with the identified model and the youBot settings of
   config/wrench_estimator.yaml, and a passive ``trajectory_recorder``, while this process (a small
   director node, ``demo.director``) moves the arm and has the simulator apply a scripted sequence
   of known forces at rest and in motion, and calls ``~/tare`` at each rest pose.

Then the recorded force phase is replayed through the same estimator core with the simulator's
true parameters (the floor) and through a gravity-only point-mass baseline, and a results table
is printed and written with plots into the report folder (``demo.report``). With
``force_control`` the force controller then guides the arm by a scripted hand and holds a force
on a contact plane, on the identified model (``demo.force_control_stage``, in this process).
"""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from robot_id_ros.demo import report
from robot_id_ros.demo.force_control_stage import run_stage
from robot_id_ros.demo.processes import (INTERFACE_PACKAGES, DemoError, NodeGroup,
                                         demo_environment, interface_environment, log)
from robot_id_ros.demo.report import results_table
from robot_id_ros.ros.parameter_files import node_parameters, youbot_estimator_settings
from robot_id_ros.identify import IdentificationOptions, identify, validate
from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.io.sidecar import find_sidecar
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.regressor import RegressorOptions
from robot_id_ros.model.robot import YOUBOT_JOINTS, package_share_dir, youbot_model
from robot_id_ros.record import ExcitationError, FourierTrajectory, design_within_torque
from robot_id_ros.settings import from_plain, settings_of
from robot_id_ros.sim.config import SimConfig

__all__ = ['DemoConfig', 'DemoError', 'Demo', 'run_demo', 'results_table',
           'demo_estimator_settings', 'demo_identification_options', 'identification_options']

# The recorders' defaults (0.5 rad/s, 1 rad/s^2) are conservative for a first run on a real
# arm; the simulated arm is excited closer to the youBot's drive limit of pi/2 rad/s.
EXCITATION_VELOCITY_RAD_S = 1.2
EXCITATION_ACCELERATION_RAD_S2 = 3.0
EXCITATION_TORQUE_FRACTION = 0.9
# youBot-sized friction for the design's torque check (FrictionModel fields, Nm and Nm s/rad)
DESIGN_FRICTION = dict(coulomb_pos_nm=[0.8, 0.6, 0.5, 0.2, 0.15],
                       coulomb_neg_nm=[0.8, 0.6, 0.5, 0.2, 0.15],
                       viscous_nm_s_rad=[1.0, 0.8, 0.6, 0.1, 0.1], offset_nm=[0.0] * 5)

COMMAND_INTERFACES = ('trajectory', *INTERFACE_PACKAGES)
# brics set points are sent this long (sim time) before their time: at 4x real time that is 100 ms
# of wall time for the link and a busy recorder (the recorders' default 0.04 s is a real-time one).
# The simulated drive moves on towards the last set point, so a recorder late by less than the
# lead costs nothing, while a shorter lead can leave the excitation tracking behind. At most
# SETPOINT_MAX_S (0.5 s), beyond which the simulator ignores a set point's stamp.
DEMO_STREAM_LEAD_S = 0.4


def command_parameters(interface) -> dict:
    """Return the recorders' parameters that send their motions through ``interface``.

    The simulator runs in the root namespace: its action and position command topic are the
    real driver's names without the ``arm_1`` namespace.
    """
    from robot_id_ros.ros.nodes.youbot_sim import (FOLLOW_JOINT_TRAJECTORY_ACTION,
                                                   POSITION_COMMAND_TOPIC)
    params = {'command_interface': interface}
    if interface == 'follow_joint_trajectory':
        params['follow_joint_trajectory_action'] = FOLLOW_JOINT_TRAJECTORY_ACTION
    elif interface == 'brics_position':
        params.update(position_command_topic=POSITION_COMMAND_TOPIC,
                      stream_lead_s=DEMO_STREAM_LEAD_S)
    return params


@lru_cache(maxsize=1)
def _youbot_estimator_settings():
    return youbot_estimator_settings()


def demo_estimator_settings() -> dict:
    """Return the estimator settings of the package's config/wrench_estimator.yaml.

    The youBot's, as ``EstimatorConfig`` fields: the node on a robot, the demo's node and its
    replays use the same.
    The file is read on the first call.
    """
    return dict(_youbot_estimator_settings())


def identification_options(params_file, node_name='identification') -> IdentificationOptions:
    """Return the fit options set in a parameters file of the identification node.

    Keys of the ``node_name: ros__parameters:`` (or ``/**``) section that are
    ``IdentificationOptions`` settings are taken as the node takes them (``from_plain``: a
    setting's ``unset`` value, e.g. 0 for ``cutoff_hz`` and [0.0] for ``drive_gains_nm_per_a``,
    means none given); the others (bags, paths, robot) are left out.

    Args:
        params_file: a ROS 2 parameters file such as config/identification.yaml.
        node_name: the node's section in it.

    Returns:
        The options, defaults where the file sets nothing.

    Raises:
        InputError: the file cannot be read or has no such section.
    """
    section = node_parameters(params_file, node_name, example='config/identification.yaml')
    known = settings_of(IdentificationOptions)
    return from_plain(IdentificationOptions, {k: v for k, v in section.items() if k in known})


@lru_cache(maxsize=1)
def _youbot_identification_options():
    return identification_options(package_share_dir() / 'config' / 'identification.yaml')


def demo_identification_options() -> IdentificationOptions:
    """Return the youBot identification options of the package's config/identification.yaml.

    Read on the first call: the defaults, with the processing options chosen by cross-validation
    on the bags (the former hand-tuned recipe is ``benchmarks/bench_youbot_defaults.RECIPE``).
    """
    return dataclasses.replace(_youbot_identification_options())


def __getattr__(name):
    # DEMO_ESTIMATOR (kept for its importers): read on first use, not when the module is imported
    if name == 'DEMO_ESTIMATOR':
        return demo_estimator_settings()
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


@dataclass
class DemoConfig:
    """The demo's configuration.

    Attributes:
        out_dir: report folder (bags, logs, model file, results).
        quick: the short configuration (fewer poses, speeds and periods; CI).
        seed: seed of the simulated robot's hidden parameters (also of poses and designs).
        real_time_factor: simulation speed during the identification stages.
        force_real_time_factor: simulation speed during the force phase (the estimator node must
            keep up).
        publish_rate_hz: the simulator's joint-state rate, Hz.
        domain_id: ROS domain; None: a private one per run.
        command_interface: how the recorders move the arm (``COMMAND_INTERFACES``): 'trajectory'
            (JointTrajectory topic), or the real youBot driver's 'follow_joint_trajectory'
            (action) or 'brics_position' (streamed set points); identification and the force
            phase are the same for all.
        force_control: end with the force-control stage (``force_control_stage``).
        friction_drift: the simulator's friction drifts (``SimConfig.friction_drift``: joints
            that warm up, Coulomb friction that grows with the load), from a cold start.
    """

    out_dir: Path
    quick: bool = False
    seed: int = 7
    real_time_factor: float = 4.0
    force_real_time_factor: float = 2.0
    publish_rate_hz: float = 200.0
    domain_id: int | None = None
    command_interface: str = 'trajectory'
    force_control: bool = False
    friction_drift: bool = False

    def __post_init__(self):
        if self.command_interface not in COMMAND_INTERFACES:
            raise DemoError(f'command_interface {self.command_interface!r}: choose one of '
                            f'{", ".join(COMMAND_INTERFACES)}')

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


class Stage:
    """Prints a stage header and its duration."""

    def __init__(self, demo, name):
        self.demo, self.name = demo, name

    def __enter__(self):
        self.t0 = time.monotonic()
        self.demo.stage_no += 1
        d = self.demo
        log(f'[{time.monotonic() - d.t0:6.1f}s] ({d.stage_no}/{d.n_stages}) {self.name} ...')
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            log(f'[{time.monotonic() - self.demo.t0:6.1f}s]     done in '
                f'{time.monotonic() - self.t0:.1f}s')


class Demo:
    """The demo's stages; ``run`` runs them all and returns the results (results.json)."""

    def __init__(self, cfg: DemoConfig):
        self.cfg = cfg
        self.out = Path(cfg.out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        for sub in ('bags', 'logs', 'report', 'truth'):
            (self.out / sub).mkdir(exist_ok=True)
        self.logs = self.out / 'logs'
        self.bags = self.out / 'bags'
        self.domain_id = cfg.domain_id if cfg.domain_id is not None else 120 + os.getpid() % 100
        self.nodes = NodeGroup(interface_environment(demo_environment(self.domain_id),
                                                     cfg.command_interface), self.logs)
        self.t0 = time.monotonic()
        self.stage_no = 0
        self.n_stages = 8 + int(cfg.force_control)
        self.robot = youbot_model()
        self.estimator_settings = demo_estimator_settings()
        self.results = {}

    # --- processes ------------------------------------------------------------------------
    def recorder_params(self, bag, **extra):
        """Return a recorder's parameters: sim time, ``bag``, start at once, exit when done.

        One that moves the arm sends its motions through ``cfg.command_interface``.
        """
        p = {'use_sim_time': True, 'output_path': str(bag), 'autostart': True,
             'shutdown_when_done': True, 'resume': False, 'startup_timeout_s': 30.0,
             'driver_timeout_s': 5.0, 'progress_period_s': 10.0}
        if not extra.get('passive'):        # the arm moves through the chosen interface
            p.update(command_parameters(self.cfg.command_interface))
        p.update(extra)
        return p

    def run_recorder(self, module, name, bag, timeout_s, **params):
        """Run a recorder to its end; returns its sidecar. Raises DemoError unless it finished."""
        proc = self.nodes.start(module, name, self.recorder_params(bag, **params))
        rc = proc.wait(timeout_s)
        sc = find_sidecar(bag)
        status = (sc or {}).get('info', {}).get('status')
        if rc != 0 or status != 'finished':
            why = proc.last_line('ERROR') or proc.last_line()
            raise DemoError(f'{name} ended with exit code {rc}, status {status!r}: {why} '
                            f'(log: {proc.log_path})')
        return sc

    # --- stages -----------------------------------------------------------------------------
    def run(self):
        """Run every stage; the node processes are stopped however it ends."""
        try:
            self._run()
        finally:
            self.nodes.stop_all()
        return self.results

    def _run(self):
        cfg = self.cfg
        with Stage(self, f'simulated youBot (seed {cfg.seed}, {cfg.publish_rate_hz:g} Hz, '
                         f'x{cfg.real_time_factor:g} real time, ROS domain {self.domain_id}, '
                         f'recorders through {cfg.command_interface})'):
            self._start_simulator()
        with Stage(self, f'static poses: {cfg.static_pose_count} poses, each approached from both '
                         'directions'):
            self.static_bag = self.bags / 'static'
            self.run_recorder('static_pose_recorder', 'static_pose_recorder', self.static_bag, 900,
                              pose_count=cfg.static_pose_count, both_directions=True,
                              pose_seed=cfg.seed, window_s=1.5, settle_dwell_s=0.5)
        speeds = ', '.join(f'{s:g}' for s in cfg.sweep_speeds)
        with Stage(self, f'friction sweeps at {speeds} rad/s'):
            self.sweep_bag = self.bags / 'sweeps'
            self.run_recorder('friction_sweep_recorder', 'friction_sweep_recorder', self.sweep_bag,
                              900, speeds_rad_s=[float(s) for s in cfg.sweep_speeds],
                              sweep_joints=list(YOUBOT_JOINTS), amplitude_rad=0.6)
        with Stage(self, 'excitation: two optimised trajectories (identification, held-out '
                         'validation)'):
            self._design_excitation()
        with Stage(self, f'excitation runs: {cfg.excitation_periods} periods of '
                         f'{cfg.excitation_period_s:g} s, twice'):
            self.traj_bags = []
            for k, path in enumerate(self.traj_files):
                bag = self.bags / ('excitation' if k == 0 else 'validation')
                self.run_recorder('trajectory_recorder', f'trajectory_recorder_{k + 1}', bag, 900,
                                  trajectory_file=str(path), periods=cfg.excitation_periods,
                                  max_velocity_rad_s=EXCITATION_VELOCITY_RAD_S,
                                  max_acceleration_rad_s2=EXCITATION_ACCELERATION_RAD_S2,
                                  # the drives' PID lags at full excitation
                                  max_tracking_error_rad=0.3)
                self.traj_bags.append(bag)
        with Stage(self, 'identification (static gravity, sweep friction, full dynamics) and '
                         'validation'):
            self._identify()
        with Stage(self, 'wrench estimator node with the identified model; scripted known forces'):
            self._force_phase()
        with Stage(self, 'estimators side by side: identified, true parameters (floor), '
                         'seed-000 baseline'):
            self.results['force'] = report.compare_estimators(
                self.robot, self.script_log, self.force_bag, self.model_path, self.truth_file,
                self.ident.point_mass, self.estimator_settings, self.out / 'report')
            report.write_report(self.out, self.results)
        if cfg.force_control:
            with Stage(self, 'force control on the identified model: hand guiding, force hold'):
                self.results['force_control'] = run_stage(self.model_path, cfg.seed, cfg.quick,
                                                          log)
                report.write_report(self.out, self.results)

    def _start_simulator(self):
        cfg = self.cfg
        self.truth_file = self.out / 'truth' / 'true_parameters.yaml'
        self.sim = self.nodes.start('youbot_sim', 'youbot_sim', {
            'seed': cfg.seed, 'publish_rate_hz': cfg.publish_rate_hz,
            'real_time_factor': cfg.real_time_factor, 'friction_drift': cfg.friction_drift,
            'true_parameters_file': str(self.truth_file)})
        t = time.monotonic()
        while not self.truth_file.exists():
            if not self.sim.alive() or time.monotonic() - t > 60:
                raise DemoError(f'youbot_sim did not start (log: {self.sim.log_path})')
            time.sleep(0.1)

    def _design_excitation(self):
        """Design two trajectories (identification, validation).

        The design constrains positions, velocities and accelerations; torque is checked with the
        URDF model plus youBot-sized friction: a trajectory needing more than
        EXCITATION_TORQUE_FRACTION of a drive's limit is redesigned with the next seed.
        """
        cfg = self.cfg
        self.traj_files = []
        friction = FrictionModel(**DESIGN_FRICTION)
        seed = cfg.seed
        for k in range(2):
            try:
                res, peak, _, used = design_within_torque(
                    self.robot, RegressorOptions(friction=True, rotor_inertia=True),
                    max_torque_fraction=EXCITATION_TORQUE_FRACTION, attempts=12, friction=friction,
                    seed=seed,
                    report=lambda s, p: log(f'        design seed {s}: needs {100 * p:.0f} % of a '
                                            'drive\'s torque limit; redesigning'),
                    period_s=cfg.excitation_period_s, harmonics=5,
                    max_iterations=40 if cfg.quick else 100,
                    velocity_limits_rad_s=np.full(5, EXCITATION_VELOCITY_RAD_S),
                    acceleration_limits_rad_s2=np.full(5, EXCITATION_ACCELERATION_RAD_S2),
                    velocity_fraction=0.9, acceleration_fraction=0.9)
            except ExcitationError as exc:
                raise DemoError(f'excitation design: {exc}') from exc
            seed = used + 1
            name = 'identification' if k == 0 else 'validation'
            path = self.out / 'report' / f'excitation_{name}.yaml'
            res.trajectory.save(path)
            self.traj_files.append(path)
            log(f'        trajectory {k + 1}: condition number {res.cond:.1f} (from '
                f'{res.initial_cond:.1f}) in {res.time_s:.1f}s, peak torque {100 * peak:.0f} % of '
                'the limits')
        self.results['excitation_cond'] = float(res.cond)

    # --- identification ---------------------------------------------------------------------
    def _identify(self):
        """Identify with config/identification.yaml's options, validate, save the model file."""
        j = self.robot.joint_names
        static = read_joint_states(self.static_bag, j)
        sweeps = read_joint_states(self.sweep_bag, j)
        data = read_joint_states(self.traj_bags[0], j)
        res = identify(self.robot, data=[(data, find_sidecar(self.traj_bags[0]))],
                       static=[(static, find_sidecar(self.static_bag))],
                       sweeps=[(sweeps, find_sidecar(self.sweep_bag))],
                       options=demo_identification_options())
        self.ident = res
        held = read_joint_states(self.traj_bags[1], j)
        val = validate(res.model, held, None, find_sidecar(self.traj_bags[1]))
        res.model.validation = dict(val.metrics)
        self.model_path = self.out / 'youbot_model.yaml'
        res.model.save(self.model_path)
        for line in res.summary_lines:
            log('        ' + line)
        self.results['identification'] = identification_results(res, val.metrics)

    # --- force phase ------------------------------------------------------------------------
    def _force_phase(self):
        from robot_id_ros.demo.director import run_director
        from robot_id_ros.demo.force_script import ForceScript

        cfg = self.cfg
        self.est = self.nodes.start('wrench_estimator', 'wrench_estimator', dict(
            self.estimator_settings, use_sim_time=True, model_file=str(self.model_path)))
        self.force_bag = self.bags / 'force_phase'
        passive = self.nodes.start('trajectory_recorder', 'force_phase_recorder',
                                   self.recorder_params(self.force_bag, passive=True,
                                                        autostart=True))
        script = ForceScript.default(self.robot, FourierTrajectory.load(self.traj_files[1]),
                                     quick=cfg.quick)
        log(f'        script: {script.duration_s():.0f} s of sim time at '
            f'x{cfg.force_real_time_factor:g} real time')
        # a drifting friction is the floor's as the script ends, not as the simulator started
        self.script_log = run_director(self.domain_id, script, 'youbot_sim',
                                       cfg.force_real_time_factor, self.robot, progress=log,
                                       truth_at_end=cfg.friction_drift)
        passive.stop()
        self.est.stop()
        report.save_director_log(self.script_log, self.out / 'force_script_log.json')


def identification_results(res, metrics) -> dict:
    """Return the ``identification`` section of results.json; logs the held-out figures.

    Args:
        res: the identification result (``identify.identify``).
        metrics: the held-out validation's metrics (``identify.validate``).

    Returns:
        Noise floor, RMSE (all samples and in motion, Nm and over the noise), relative error,
        base parameter count, condition number, static residual.
    """
    sim = SimConfig()
    gains = sim.drive_gains_nm_a
    noise = np.sqrt(sim.current_noise_a ** 2 + sim.current_resolution_a ** 2 / 12) * gains
    rmse = np.asarray(metrics['rmse_nm'])
    rmse_motion = np.asarray(metrics['rmse_in_motion_nm'])
    out = {
        'noise_floor_nm': noise.tolist(), 'validation_rmse_nm': rmse.tolist(),
        'rmse_over_noise': (rmse / noise).tolist(), 'relative_error': metrics['relative_error'],
        'validation_rmse_in_motion_nm': rmse_motion.tolist(),
        'rmse_in_motion_over_noise': (rmse_motion / noise).tolist(),
        'in_motion_min_velocity_rad_s': metrics['min_velocity_rad_s'],
        'in_motion_fraction': metrics['in_motion_fraction'],
        'n_base': int(res.dynamics.base.n_base) if res.dynamics else None,
        'condition_number': res.model.identification.get('condition_number')}
    if res.gravity is not None:
        out['static_residual_rms_nm'] = float(np.sqrt(np.mean(res.gravity.residual_nm ** 2)))
    log(f'        held-out validation: RMSE/noise per joint '
        f'{", ".join(f"{x:.2f}" for x in rmse / noise)} (all samples), '
        f'{", ".join(f"{x:.2f}" for x in rmse_motion / noise)} (in motion, |qd_j| >= '
        f'{metrics["min_velocity_rad_s"]:g} rad/s); relative error '
        f'{100 * metrics["relative_error"]:.2f} %')
    return out


def run_demo(cfg: DemoConfig):
    """Run the demo; returns its results (what results.json holds).

    Raises:
        DemoError: a stage failed (the message names it and its log).
    """
    return Demo(cfg).run()
