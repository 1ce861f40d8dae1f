# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The whole identification (ROS-free).

Static poses, friction sweeps, trajectories, the dynamic or static model, physical consistency,
the breakaway from the moments the joints break free (and from them the Stribeck amplitude, the
friction at zero speed) and the in-sample metrics, in that order;
the model file's ``identification:`` section is the ``IdentificationRecord`` the steps fill.
"""
from __future__ import annotations

import dataclasses
import functools
import time
from dataclasses import dataclass, field

import numpy as np

from robot_id_ros.identify.breakaway import (BreakawayEstimate, StribeckFromBreaks,
                                             estimate_breakaway, stribeck_amplitude_from_breaks,
                                             stribeck_from_breakaway)
from robot_id_ros.identify.consistency import ConsistencyResult, physically_consistent_fit
from robot_id_ros.identify.drive_gains import drive_gains_step
from robot_id_ros.identify.dynamics import DynamicsResult, identify_dynamics
from robot_id_ros.identify.identification_record import (DynamicsRecord, GravityModelRecord,
                                                         IdentificationRecord, StaticFitRecord)
from robot_id_ros.identify.friction_load_drift import load_drift_lines
from robot_id_ros.identify.options import IdentificationError, IdentificationOptions
from robot_id_ros.identify.plausibility import Plausibility, judge_fit
from robot_id_ros.identify.option_choice import choose_with_gains, sweep_stribeck_velocity
from robot_id_ros.identify.selection import Selection
from robot_id_ros.identify.static import (GravityResult, PointMassResult, StaticPoses,
                                          identify_gravity, point_mass_gravity, static_poses)
from robot_id_ros.identify.sweeps import FrictionSweepResult, identify_friction_sweeps
from robot_id_ros.identify.trajectories import Trajectory, fit_mask, prepare_trajectory
from robot_id_ros.identify.validation import residual_by_speed, validation_metrics
from robot_id_ros.io.model_file import IdentifiedModel
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.model.robot import RobotModel


def _rms(x):
    """Per-joint RMS (Nm) of (P, n) residuals, as a list."""
    return np.sqrt(np.mean(x ** 2, axis=0)).tolist()


@dataclass
class IdentificationResult:
    """The identified model and every intermediate result.

    The fits that were run, the processed trajectories, the in-sample metrics and predicted torque
    (Nm) per trajectory, the step times (s), the summary lines and the ``IdentificationRecord``.
    """

    model: IdentifiedModel
    options: IdentificationOptions
    dynamics: DynamicsResult | None = None
    gravity: GravityResult | None = None
    point_mass: PointMassResult | None = None
    friction_sweeps: FrictionSweepResult | None = None
    stribeck_from_breaks: StribeckFromBreaks | None = None
    breakaway: BreakawayEstimate | None = None
    consistency: ConsistencyResult | None = None
    plausibility: Plausibility | None = None
    trajectories: list[Trajectory] = field(default_factory=list)
    fit_metrics: dict = field(default_factory=dict)
    fit_predicted: list = field(default_factory=list)
    timings_s: dict = field(default_factory=dict)
    summary_lines: list = field(default_factory=list)
    record: IdentificationRecord | None = None
    selection: Selection | None = None

    def summary(self):
        """Return the summary lines, joined."""
        return '\n'.join(self.summary_lines)


def _pair(item, sidecars):
    """(series, sidecar) of an input item (a series or already a pair)."""
    if isinstance(item, tuple):
        return item
    sc = None
    if sidecars is not None:
        sc = sidecars.get(item.source)
    return item, sc


def _fit_static(robot: RobotModel, static, options, res: IdentificationResult):
    """Gravity and point-mass fits of the static poses."""
    poses = StaticPoses.concatenate(static_poses(s, options, sc, robot) for s, sc in static)
    res.summary_lines.extend(poses.notes)
    res.gravity = g = identify_gravity(robot, poses, options)
    res.point_mass = point_mass_gravity(robot, poses)
    res.summary_lines.append(
        f'static: {len(poses)} poses, {len(g.values)} of {len(g.structural)} gravity '
        f'combinations identified, residual RMS {np.sqrt(np.mean(g.residual_nm ** 2)):.4g} Nm '
        f'(point-mass baseline {np.sqrt(np.mean(res.point_mass.residual_nm ** 2)):.4g} Nm)')
    for d in g.dropped:
        res.summary_lines.append(f'  dropped {d["expression"]}: {d["reason"]}')


def _fit_sweeps(robot: RobotModel, sweeps, options, res: IdentificationResult):
    """Friction of the sweeps (the asymmetry against the static gravity fit, when any)."""
    gravity = None if res.gravity is None else functools.partial(res.gravity.predict, robot)
    res.friction_sweeps = identify_friction_sweeps(robot, sweeps, options, gravity)
    res.summary_lines.append(f'sweeps: friction of {", ".join(res.friction_sweeps.joints_fitted)} '
                             'from forward/backward pairs')


def _fit_static_and_sweeps(robot: RobotModel, static, sweeps, options, res):
    """Fit the static poses and the sweeps that were given (the sweeps use the static fit)."""
    if static:
        _fit_static(robot, static, options, res)
    if sweeps:
        _fit_sweeps(robot, sweeps, options, res)


def _dynamics_options(options: IdentificationOptions, res: IdentificationResult):
    """Return the options of the dynamic fit.

    The Stribeck column's velocity comes from the sweeps' Stribeck fit, when the column has none
    and the sweeps have one.
    """
    vs = sweep_stribeck_velocity(res)
    if (options.stribeck_column and options.friction and options.stribeck_velocity_rad_s is None
            and vs is not None):
        res.summary_lines.append(f'Stribeck velocity from the sweeps: {vs:.4g} rad/s')
        return dataclasses.replace(options, stribeck_velocity_rad_s=vs)
    return options


def _fit_dynamics(robot: RobotModel, options, res: IdentificationResult, progress):
    """Return the dynamic fit of the trajectories, made physically consistent when asked.

    Returns:
        The standard parameter vector of the model.
    """
    lines = res.summary_lines
    for tr in res.trajectories:
        lines.append(f'trajectory {tr.source or "(memory)"}: {len(tr)} samples at '
                     f'{tr.rate_hz:.5g} Hz, {tr.method} derivatives, cut-off {tr.cutoff_hz:.3g} Hz'
                     + (f', period {tr.period_s:.4g} s x {tr.cycles}' if tr.period_s else ''))
        lines.extend(f'  {x}' for x in tr.notes)
    dyn_options = _dynamics_options(options, res)
    res.dynamics = dyn = identify_dynamics(robot, res.trajectories, dyn_options, progress)
    reg_opts = dyn.regressor.options
    if reg_opts.stribeck and dyn_options.stribeck_velocity_rad_s is None:
        lines.append('Stribeck velocity chosen by the fit: '
                     f'{reg_opts.stribeck_velocity_rad_s:.4g} rad/s')
    res.timings_s.update(dyn.time_s)
    pc = None
    if options.physical_consistency:
        pc = physically_consistent_fit(dyn)
        res.timings_s['physical_consistency'] = pc.time_s
    t0 = time.perf_counter()
    theta, res.plausibility = judge_fit(dyn, res.trajectories, options.confidence, pc,
                                        fallback=options.plausibility_fallback)
    if (res.plausibility.action == 'fallback' and res.selection is not None
            and 'physical_consistency' in res.selection.searched):
        # the search scored the consistent fit, not the fallback's URDF prior: that is the one
        found = res.plausibility.findings
        pc = physically_consistent_fit(dyn)
        theta, res.plausibility = judge_fit(dyn, res.trajectories, options.confidence, pc)
        res.plausibility.findings = found + res.plausibility.findings
        lines.append('the least-squares fit is physically implausible: made physically '
                     'consistent, as the option search scored it')
    res.timings_s['plausibility'] = time.perf_counter() - t0
    res.consistency = res.plausibility.consistency
    if res.consistency is not None:
        lines.append(res.consistency.summary())
    lines.extend(res.plausibility.summary_lines())
    ls = dyn.ls
    lines.append(f'dynamics: {dyn.base.n_base} base parameters from {dyn.samples} samples, '
                 f'{ls.method}, condition number {ls.condition_number:.4g} (scaled '
                 f'{ls.condition_number_scaled:.4g}), relative error '
                 f'{100 * ls.relative_error:.3g} %')
    lines.append('  residual RMS per joint (Nm): '
                 + ', '.join(f'{x:.4g}' for x in ls.residual_rms_nm))
    return theta


def _assemble_dynamic_model(robot: RobotModel, options, res: IdentificationResult, theta):
    """Return the model of the dynamic fit.

    Friction's Stribeck term from the fitted column or the sweeps, breakaway the larger of the
    model's and the sweeps'.
    """
    dyn = res.dynamics
    ls, reg_opts, n = dyn.ls, dyn.regressor.options, robot.n
    J = dyn.base.standard_jacobian()
    theta_std = np.sqrt(np.clip(np.einsum('ij,jk,ik->i', J, ls.covariance, J), 0, None))
    friction = FrictionModel.zeros(n)
    if reg_opts.stribeck:  # the fitted Stribeck column is the friction's Stribeck term
        kinds = dyn.regressor.joint_kinds
        first = dyn.regressor.n_inertial + kinds.index('fs')
        friction.stribeck_nm = theta[first::len(kinds)].copy()
        friction.stribeck_velocity_rad_s = np.full(n, reg_opts.stribeck_velocity_rad_s)
    elif res.friction_sweeps is not None:
        fs = res.friction_sweeps.friction
        friction.stribeck_nm = fs.stribeck_nm.copy()
        friction.stribeck_velocity_rad_s = fs.stribeck_velocity_rad_s.copy()
    consistent = res.consistency is not None
    base_values = dyn.base.to_base(theta) if consistent else ls.beta
    model = IdentifiedModel(robot.copy(), reg_opts, theta, friction, theta_std, dyn.base,
                            base_values, ls.std, ls.covariance)
    f = model.friction
    f.breakaway_nm = np.maximum(f.coulomb_pos_nm, f.coulomb_neg_nm) + f.stribeck_nm
    if res.friction_sweeps is not None:  # breakaway from the sweeps where larger
        f.breakaway_nm = np.maximum(f.breakaway_nm, res.friction_sweeps.friction.breakaway_nm)
    # the residual of the parameters written (a consistent fit's is its own)
    model.residual_std_nm = (res.consistency.residual_rms_nm if consistent
                             else ls.residual_rms_nm).copy()
    res.summary_lines.extend(load_drift_lines(f, model.joint_names))
    return model


def _dynamics_record(dyn: DynamicsResult, trajectories, options) -> DynamicsRecord:
    """Return the section's entries of the dynamic fit."""
    ls = dyn.ls
    torque_cutoff = options.torque_cutoff_hz or float(
        np.median([tr.cutoff_hz for tr in trajectories]))
    return DynamicsRecord(int(dyn.samples), int(dyn.base.n_base), ls.condition_number,
                          ls.condition_number_scaled, ls.relative_error,
                          ls.residual_rms_nm.tolist(), dict(options.known_parameters),
                          dyn.base.unidentifiable(), [tr.cutoff_hz for tr in trajectories],
                          torque_cutoff, [tr.method for tr in trajectories])


def _assemble_static_model(robot: RobotModel, options, res: IdentificationResult):
    """Return the model of the static fit alone.

    URDF inertias but the gravity combinations, friction from the sweeps (if any) with the static
    offsets.
    """
    g = res.gravity
    reg_opts = RegressorOptions(offset=options.static_offset)
    friction = (res.friction_sweeps.friction if res.friction_sweeps is not None
                else FrictionModel.zeros(robot.n))
    if options.static_offset:
        friction.offset_nm = g.offsets_nm.copy()
    reg = Regressor(robot, reg_opts)
    J = np.zeros((reg.p, len(g.values)))
    J[g.base.independent, np.arange(len(g.values))] = 1.0
    theta_std = np.sqrt(np.clip(np.einsum('ij,jk,ik->i', J, g.ls.covariance, J), 0, None))
    model = IdentifiedModel(robot.copy(), reg_opts, g.theta, friction, theta_std, None, None, None,
                            None)
    model.residual_std_nm = np.sqrt(np.mean(g.residual_nm ** 2, axis=0))
    return model


def _gravity_record(g: GravityResult) -> GravityModelRecord:
    """Return the section's entries of a static-only model."""
    return GravityModelRecord(len(g.poses), list(g.base.expressions()), g.values.tolist(),
                              g.ls.std.tolist(), g.dropped, g.ls.condition_number,
                              g.ls.condition_number_scaled)


def _static_record(g: GravityResult, pm: PointMassResult) -> StaticFitRecord:
    """Return the section's ``static`` entry."""
    return StaticFitRecord(len(g.poses), _rms(g.residual_nm), g.dropped, pm.masses_kg.tolist(),
                           _rms(pm.residual_nm))


def _in_sample_metrics(model: IdentifiedModel, trajectories, options, torque_cutoff_hz,
                       recorded=None):
    """(predicted torque per trajectory, ``validation_metrics`` over them all).

    The figures are on ``recorded`` (per trajectory the (N, n) effort as recorded, Nm, when the
    fit's was low-passed), else on the trajectories' effort.
    """
    preds, meas, masks = [], [], []
    for i, tr in enumerate(trajectories):
        # the training runs' own friction: with the drift along each run
        preds.append(model.predict(tr.q, tr.qd, tr.qdd, t_s=tr.t_s))
        meas.append(tr.tau if recorded is None else recorded[i])
        masks.append(fit_mask(tr, options))
    metrics = validation_metrics(np.vstack(meas), np.vstack(preds), trajectories[0].rate_hz,
                                 torque_cutoff_hz, model.joint_names,
                                 np.vstack(masks) if options.min_velocity_rad_s > 0 else None)
    return preds, metrics


def _fit_metrics(model, data, options, res, record):
    """In-sample figures of the trajectories, against the effort as recorded (torque filter)."""
    recorded = None
    if options.torque_filter:
        raw = dataclasses.replace(options, torque_filter=False)
        recorded = [prepare_trajectory(s, raw, sc).decimated(options.max_samples).tau
                    for s, sc in data]
    res.fit_predicted, res.fit_metrics = _in_sample_metrics(
        model, res.trajectories, options, record.dynamics.torque_cutoff_hz, recorded)
    # every row, the slow ones a fit may have left out too: what the estimator meets there
    model.residual_by_speed = residual_by_speed(
        [tr.qd for tr in res.trajectories],
        [(tr.tau if recorded is None else recorded[i]) - p
         for i, (tr, p) in enumerate(zip(res.trajectories, res.fit_predicted))])
    record.fit_metrics = {k: v for k, v in res.fit_metrics.items() if k != 'joint_names'}


def _breakaway_from_events(model: IdentifiedModel, runs, options, res: IdentificationResult,
                           fitted_runs=0):
    """Set the breakaway of the joints that break free often enough in ``runs`` (``breakaway``).

    The others keep the friction law's (Coulomb + Stribeck, or the sweeps' where larger). The
    first ``fitted_runs`` of ``runs`` are the ones the friction law was fitted on.
    """
    t0 = time.perf_counter()
    res.breakaway = est = estimate_breakaway(model, runs, options, fitted_runs)
    f = model.friction
    f.breakaway_nm = np.where(est.measured, est.breakaway_nm, f.breakaway_nm)
    res.summary_lines.extend(est.summary_lines(model.joint_names))
    res.timings_s['breakaway'] = time.perf_counter() - t0


def _stribeck_from_breaks(model: IdentifiedModel, options, res: IdentificationResult):
    """Give the friction law the Stribeck amplitude its breaks show (``breakaway``).

    Only after a dynamic fit with friction, for the joints whose breakaway was measured. A law
    with a Stribeck term (the fitted column's, or the sweeps') keeps its velocity and takes the
    breaks' amplitude, because the fit only extrapolates to zero speed; a law without one gets
    the term where the training rows show it (``stribeck_from_breakaway``).
    """
    f = model.friction
    if (not res.trajectories or not options.friction
            or res.breakaway is None or not res.breakaway.measured.any()):
        return
    t0 = time.perf_counter()
    if np.any(f.stribeck_nm):
        fs = stribeck_amplitude_from_breaks(f, res.breakaway)
        res.summary_lines.append(
            'Stribeck amplitude from the breaks (the friction at zero speed, which the fitted '
            'term extrapolates to), Nm: ' + ', '.join(
                f'{name} {a:.4g} -> {b:.4g}' for name, a, b in zip(model.joint_names,
                                                                   f.stribeck_nm, fs)
                if np.isfinite(b)))
        f.stribeck_nm = np.where(np.isfinite(fs), fs, f.stribeck_nm)
        res.timings_s['stribeck_from_breaks'] = time.perf_counter() - t0
        return
    residual = [tr.tau - model.predict(tr.q, tr.qd, tr.qdd, t_s=tr.t_s)
                for tr in res.trajectories]
    res.stribeck_from_breaks = st = stribeck_from_breakaway(
        f, res.breakaway, [tr.qd for tr in res.trajectories], residual)
    f.stribeck_nm = np.where(st.adopted, st.amplitude_nm, 0.0)
    f.stribeck_velocity_rad_s = np.where(st.adopted, st.velocity_rad_s,
                                         f.stribeck_velocity_rad_s)
    res.summary_lines.extend(st.summary_lines(model.joint_names))
    res.timings_s['stribeck_from_breaks'] = time.perf_counter() - t0


def _fit_model(robot: RobotModel, options, res: IdentificationResult,
               record: IdentificationRecord, progress):
    """Return the model: the dynamic fit with trajectories, else the static gravity fit.

    Fills ``record``'s method and the entries of the fit made.
    """
    if res.trajectories:
        theta = _fit_dynamics(robot, options, res, progress)
        model = _assemble_dynamic_model(robot, options, res, theta)
        record.method = res.dynamics.ls.method + (' + physical consistency (LMI)'
                                                  if res.consistency is not None else '')
        record.dynamics = _dynamics_record(res.dynamics, res.trajectories, options)
        record.plausibility = res.plausibility.to_dict()
        if res.consistency is not None:   # the fallback too: the loader checks its inertias
            record.options['physical_consistency'] = True
    else:
        model = _assemble_static_model(robot, options, res)
        record.method = 'static gravity (' + res.gravity.ls.method + ')'
        record.gravity = _gravity_record(res.gravity)
    return model


def identify(robot: RobotModel, data=(), static=(), sweeps=(), sidecars=None,
             options: IdentificationOptions | None = None, progress=None,
             drive_gain_runs=(), given=None) -> IdentificationResult:
    """Identify ``robot`` from excitation runs, static poses and friction sweeps.

    With trajectories the model is the full dynamic fit (static poses and sweeps are fitted and
    reported alongside; sweep friction fills Stribeck; the breakaway is measured where the joints
    break free, ``breakaway``). With static poses only, the model is the gravity fit (URDF
    inertias, friction from sweeps if any). Nothing is written.

    Args:
        robot: the model to identify (URDF values are the reference).
        data: excitation runs; each item a ``JointStateSeries`` or a ``(series, sidecar_dict)``.
        static: static-pose bags, items as ``data``.
        sweeps: friction-sweep bags, items as ``data``.
        sidecars: maps a series' ``source`` to its sidecar (for items given without one).
        options: how to identify; default ``IdentificationOptions()``.
        progress: called as ``progress(samples done, total)`` during the dynamic fit.
        drive_gain_runs: ``(series, sidecar, Payload)`` runs with a known payload; with
            effort_unit 'current' and no drive gains they fix the gains' scale
            (``identify.drive_gains``).
        given: names of the options the caller set (flags given), not searched when
            ``options.auto_options`` (``identify.selection``); None: those that differ from
            their defaults.

    Returns:
        The ``IdentificationResult``; its ``model`` is the ``IdentifiedModel`` to save. Raises
        ``IdentificationError`` on unusable input.
    """
    options = options or IdentificationOptions()
    options.validated()
    data, static, sweeps = ([_pair(x, sidecars) for x in items]
                            for items in (data, static, sweeps))
    if not data and not static:
        raise IdentificationError('nothing to identify: give excitation trajectories (--data) '
                                  'and/or static poses (--static)')
    res = IdentificationResult(model=None, options=options)
    t_start = time.perf_counter()
    gains = None
    if options.effort_unit == 'current' and options.drive_gains_nm_per_a is None:
        gains, options = drive_gains_step(robot, data, options, drive_gain_runs, res)
    _fit_static_and_sweeps(robot, static, sweeps, options, res)
    core = options.drive_gains_nm_per_a
    gains, options = choose_with_gains(robot, data, options, given, res, gains, drive_gain_runs)
    if gains is not None and options.drive_gains_nm_per_a != core and (static or sweeps):
        # fitted before the search in the torques of the core structure's gains
        res.summary_lines.append('static poses and sweeps again, with the gains of the chosen '
                                 'model structure:')
        _fit_static_and_sweeps(robot, static, sweeps, options, res)
    t_prep = time.perf_counter()
    res.trajectories = [prepare_trajectory(s, options, sc, robot).decimated(options.max_samples)
                        for s, sc in data]
    res.timings_s['preprocessing'] = time.perf_counter() - t_prep
    record = IdentificationRecord('', options.to_dict(), [tr.source for tr in res.trajectories],
                                  [s.source for s, _ in static], [s.source for s, _ in sweeps])
    if res.selection is not None:
        record.selection = res.selection.to_dict()
    model = _fit_model(robot, options, res, record, progress)
    _breakaway_from_events(model, [*data, *static, *sweeps], options, res, len(data))
    _stribeck_from_breaks(model, options, res)
    if res.gravity is not None:
        record.static = _static_record(res.gravity, res.point_mass)
    if options.effort_unit == 'current':
        model.drive_gains_nm_per_a = np.asarray(options.drive_gains_nm_per_a, float)
        if gains is not None:
            model.drive_gains_std_nm_per_a = gains.std.copy()
            model.drive_gains_identifiable = gains.identifiable.copy()
    res.model = model
    if res.trajectories:
        _fit_metrics(model, data, options, res, record)
    res.timings_s['total'] = time.perf_counter() - t_start
    record.timings_s = dict(res.timings_s)
    res.record = record
    model.identification = record.to_dict()
    if gains is not None:
        model.identification['drive_gains'] = gains.to_dict(robot.joint_names)
    return res
