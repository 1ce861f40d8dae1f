# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identification on synthetic data with known truth, made with the core: a perturbed youBot
model (masses, COMs, inertias changed, still physically valid) generates torques along periodic
Fourier excitations, with white noise of known standard deviation per joint added."""
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from robot_id_ros.io.bags import BagWriter, JointStateSeries
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.identify import (DynamicsRecord, GravityModelRecord, IdentificationError,
                                   IdentificationOptions, IdentificationRecord, StaticFitRecord,
                                   StaticPoses, free_columns, identify, identify_friction_sweeps,
                                   identify_gravity, point_mass_gravity, structural_base, validate)
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.io.model_file import load_model

SIGMA = np.array([0.08, 0.08, 0.05, 0.02, 0.01])
FRICTION = FrictionModel([0.3, 0.3, 0.2, 0.1, 0.05], [0.3, 0.3, 0.2, 0.1, 0.05],
                         [0.5, 0.4, 0.3, 0.05, 0.03], [0.02, -0.05, 0.01, 0.0, 0.01])


# --- synthetic truth (shared with the other identification tests and the benchmark) ----------
def perturbed(robot, rng, mass_rel=0.2, com_abs=0.01, inertia_rel=0.3):
    """A copy of ``robot`` with every body's mass, COM and principal second moments perturbed."""
    r = robot.copy()
    for i in range(1, r.model.njoints):
        inertia = r.model.inertias[i]
        m = inertia.mass * rng.uniform(1 - mass_rel, 1 + mass_rel)
        c = np.array(inertia.lever) + rng.uniform(-com_abs, com_abs, 3)
        Ic = np.array(inertia.inertia)
        w, R = np.linalg.eigh(0.5 * (Ic + Ic.T))
        s = np.maximum(0.5 * w.sum() - w, 0) * rng.uniform(1 - inertia_rel, 1 + inertia_rel, 3)
        r.model.inertias[i] = pin.Inertia(m, c, R @ np.diag(s.sum() - s) @ R.T)
    return r


def fourier_trajectory(robot, rng, period_s=10.0, harmonics=5, rate_hz=200.0, periods=3,
                       frac=0.35):
    """(t, Q, QD, QDD) of a random Fourier-series excitation within the joint and velocity
    limits."""
    lo, hi = robot.limits.lower_rad, robot.limits.upper_rad
    c, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    w = 2 * np.pi / period_s
    t = np.arange(int(round(periods * period_s * rate_hz))) / rate_hz
    k = np.arange(1, harmonics + 1)
    a = rng.normal(size=(robot.n, harmonics)) / k
    b = rng.normal(size=(robot.n, harmonics)) / k
    S, C = np.sin(np.outer(t, w * k)), np.cos(np.outer(t, w * k))
    Q = S @ a.T + C @ b.T
    QD = (C * w * k) @ a.T - (S * w * k) @ b.T
    QDD = -(S * (w * k) ** 2) @ a.T - (C * (w * k) ** 2) @ b.T
    amp = frac * half / np.abs(Q).max(axis=0)
    amp = amp * np.minimum(1, 0.8 * robot.limits.velocity_rad_s / np.abs(QD * amp).max(axis=0))
    return t, c + Q * amp, QD * amp, QDD * amp


def synthetic_series(truth, friction, t, Q, QD, QDD, sigma, rng, encoder_rad=1e-5,
                     source='synthetic'):
    """JointStateSeries measured on ``truth``: encoder-quantised q, torque + N(0, sigma^2)."""
    tau = np.array([truth.inverse_dynamics(q, qd, qdd)
                    for q, qd, qdd in zip(Q, QD, QDD)]) + friction.torque_along(Q, QD)
    eff = tau + rng.normal(size=tau.shape) * sigma
    Qm = np.round(Q / encoder_rad) * encoder_rad if encoder_rad else Q
    stamps = 1_700_000_000_000_000_000 + np.round(t * 1e9).astype(np.int64)
    return JointStateSeries(truth.joint_names, stamps, Qm, QD.copy(), eff, source), tau


def synthetic_runs(seed, friction, sigma, count=2, transform=None):
    """(youbot model, ``count`` runs of a perturbed youBot): 3 periods of an 8 s Fourier trajectory
    each, measured by ``synthetic_series``; ``transform(series, QD, rng)`` alters each run."""
    rng = np.random.default_rng(seed)
    robot = youbot_model()
    truth = perturbed(robot, rng)
    out = []
    for k in range(count):
        t, Q, QD, QDD = fourier_trajectory(robot, rng, period_s=8.0, periods=3)
        s = synthetic_series(truth, friction, t, Q, QD, QDD, sigma, rng, source=f'run{k}')[0]
        out.append(transform(s, QD, rng) if transform else s)
    return robot, out


def true_theta(truth, regressor, friction):
    th = np.zeros(regressor.p)
    th[:regressor.n_inertial] = truth.standard_parameters()
    nk = len(regressor.joint_kinds)
    vals = {
        'fv': friction.viscous_nm_s_rad,
        'fc': friction.coulomb_pos_nm,
        'fo': friction.offset_nm,
        'Ia': truth.model.armature
    }
    for i, k in enumerate(regressor.joint_kinds):
        th[regressor.n_inertial + i::nk] = vals[k]
    return th


def train_and_held_out(robot):
    """The synthetic truth, an 8-period training run and a 2-period held-out run of another
    trajectory (shared with benchmarks/bench_identification_synthetic.py). Returns
    (truth, train, test, rng, training trajectory (t, Q, QD, QDD))."""
    rng = np.random.default_rng(1)
    truth = perturbed(robot, rng)
    traj = fourier_trajectory(robot, rng, periods=8)
    train, _ = synthetic_series(truth, FRICTION, *traj, SIGMA, rng, source='train')
    t2, Q2, QD2, QDD2 = fourier_trajectory(robot, np.random.default_rng(7), periods=2)
    test, _ = synthetic_series(truth, FRICTION, t2, Q2, QD2, QDD2, SIGMA, rng, source='test')
    return truth, train, test, rng, traj


@pytest.fixture(scope='module')
def setup():
    robot = youbot_model()
    truth, train, test, rng, _ = train_and_held_out(robot)
    return robot, truth, train, test, rng


def test_held_out_rmse_within_1_05_noise(setup):
    robot, truth, train, test, _ = setup
    res = identify(robot, [train])
    v = validate(res.model, test)
    ratio = np.array(v.metrics['rmse_nm']) / SIGMA
    # validate differentiates as the fit did (the method the cross-validation chose)
    chosen = res.options.derivative_method
    assert v.trajectory.method == ('periodic' if chosen == 'auto' else chosen)
    assert np.all(ratio <= 1.05), ratio
    assert np.all(ratio >= 0.95), ratio   # a prediction cannot beat the noise it is compared with
    # the identified friction is what the model file carries
    assert np.allclose(res.model.friction.viscous_nm_s_rad, FRICTION.viscous_nm_s_rad, atol=0.05)


def test_confidence_intervals_cover_truth_at_nominal_rate(setup):
    robot, truth, _, _, _ = setup
    inside = total = 0
    for seed in range(4):
        rng = np.random.default_rng(100 + seed)
        t, Q, QD, QDD = fourier_trajectory(robot, rng, periods=4)
        s, _ = synthetic_series(truth, FRICTION, t, Q, QD, QDD, SIGMA, rng)
        res = identify(robot, [s])
        dyn = res.dynamics
        beta_true = dyn.base.to_base(true_theta(truth, dyn.regressor, FRICTION))
        ok = (beta_true >= dyn.ls.ci_low) & (beta_true <= dyn.ls.ci_high)
        inside += ok.sum()
        total += len(ok)
    rate = inside / total
    assert 0.88 <= rate <= 0.995, rate


def test_ols_scaling_and_condition_numbers(setup):
    robot, _, train, test, _ = setup
    # the options under test fixed (no search of the others)
    r_ols = identify(robot, [train], options=IdentificationOptions(weighting='ols',
                                                                   auto_options=False))
    r_wls = identify(robot, [train], options=IdentificationOptions(auto_options=False))
    assert r_ols.dynamics.ls.method == 'ols' and r_wls.dynamics.ls.method == 'wls'
    # unit-norm columns give a far better conditioned problem than raw columns
    assert r_wls.dynamics.ls.condition_number_scaled < 0.2 * r_wls.dynamics.ls.condition_number
    # WLS predicts the low-noise joints better than OLS (which is driven by the noisy joints)
    e_ols = np.array(validate(r_ols.model, test).metrics['rmse_nm'])
    e_wls = np.array(validate(r_wls.model, test).metrics['rmse_nm'])
    assert e_wls[4] <= e_ols[4] * 1.001


def test_prior_weight_pulls_toward_urdf(setup):
    robot, _, train, _, _ = setup
    free = identify(robot, [train], options=IdentificationOptions(auto_options=False))
    damped = identify(robot, [train], options=IdentificationOptions(prior_weight=100.0,
                                                                    auto_options=False))
    prior = free.dynamics.base.to_base(free.dynamics.theta_reference)
    assert (np.linalg.norm(damped.dynamics.ls.beta - prior)
            < 0.5 * np.linalg.norm(free.dynamics.ls.beta - prior))
    assert 'prior' in damped.dynamics.ls.method


def test_known_parameter_subtraction(setup):
    robot, truth, train, test, _ = setup
    m5 = float(truth.standard_parameters()[40])
    res = identify(robot, [train], options=IdentificationOptions(
        known_parameters={'m5': m5}, auto_options=False))
    assert res.model.parameters[40] == pytest.approx(m5)
    assert 'm5' not in [res.model.regressor.names[i] for i in res.dynamics.base.independent]
    assert np.all(np.array(validate(res.model, test).metrics['rmse_nm']) / SIGMA <= 1.05)
    with pytest.raises(IdentificationError, match='not parameters'):
        identify(robot, [train], options=IdentificationOptions(known_parameters={'mass9': 1.0}))


def test_too_little_excitation_names_groups(setup):
    robot, truth, _, _, rng = setup
    t, Q, QD, QDD = fourier_trajectory(robot, rng, periods=3)
    Q[:, 4], QD[:, 4], QDD[:, 4] = 1.0, 0.0, 0.0      # joint 5 never moves
    s, _ = synthetic_series(truth, FRICTION, t, Q, QD, QDD, SIGMA, rng)
    with pytest.raises(IdentificationError, match='fv5|fc5') as exc:
        identify(robot, [s])
    assert 'excite' in str(exc.value) or 'excitation' in str(exc.value)


def test_bad_input(setup):
    robot, _, train, _, _ = setup
    no_eff = JointStateSeries(train.joint_names, train.stamp_ns, train.q, train.qd, None, 'x')
    with pytest.raises(IdentificationError, match='no effort'):
        identify(robot, [no_eff])
    other = JointStateSeries(('a', 'b', 'c', 'd', 'e'), train.stamp_ns, train.q, train.qd,
                             train.effort, 'y')
    with pytest.raises(IdentificationError, match='do not match'):
        identify(robot, [other])
    with pytest.raises(IdentificationError, match='nothing to identify'):
        identify(robot, [])


def _static(robot, truth, rng, count, sigma=0.003, fixed=None):
    Q = robot.random_configurations(count, rng, 0.2)
    if fixed is not None:
        for j, v in fixed.items():
            Q[:, j] = v
    Z = np.zeros(robot.n)
    tau = np.array([truth.inverse_dynamics(q, Z, Z)
                    for q in Q]) + rng.normal(size=(count, robot.n)) * sigma
    return StaticPoses(Q, tau, np.full_like(tau, sigma), np.full(count, 200), np.zeros(count))


def test_static_gravity_and_point_mass_baseline(setup):
    robot, truth, _, _, _ = setup
    rng = np.random.default_rng(5)
    poses = _static(robot, truth, rng, 40)
    g = identify_gravity(robot, poses, IdentificationOptions())
    held = _static(robot, truth, rng, 20)
    err = held.tau - g.predict(robot, held.q)
    assert np.sqrt(np.mean(err ** 2)) < 3 * 0.003
    assert not g.dropped
    pm = point_mass_gravity(robot, poses)
    assert np.sqrt(np.mean(pm.residual_nm ** 2)) > np.sqrt(np.mean(g.residual_nm ** 2))
    # joints 4 and 5 never move: combinations only they reveal are dropped and named
    few = _static(robot, truth, rng, 30, fixed={3: 1.5, 4: 2.0})
    g2 = identify_gravity(robot, few, IdentificationOptions())
    assert g2.dropped and all('reason' in d and d['expression'] for d in g2.dropped)
    with pytest.raises(IdentificationError, match='static pose'):
        identify_gravity(robot, _static(robot, truth, rng, 1), IdentificationOptions())


def test_static_only_model(setup):
    robot, truth, _, _, _ = setup
    rng = np.random.default_rng(6)
    poses = _static(robot, truth, rng, 30)
    stamps, q, eff = [], [], []
    t = 0
    for k in range(len(poses)):  # each pose held 1 s at 100 Hz, 0.5 s moves in between
        for _ in range(100):
            stamps.append(t)
            q.append(poses.q[k])
            eff.append(poses.tau[k])
            t += 10_000_000
        nxt = poses.q[(k + 1) % len(poses)]
        for a in np.linspace(0, 1, 50):
            stamps.append(t)
            q.append((1 - a) * poses.q[k] + a * nxt)
            eff.append(poses.tau[k])
            t += 10_000_000
    s = JointStateSeries(robot.joint_names,
                         np.array(stamps) + 1_700_000_000_000_000_000, np.array(q), None,
                         np.array(eff), 'static')
    res = identify(robot, static=[s])
    assert res.gravity is not None and len(res.gravity.poses) >= 25
    held = _static(robot, truth, rng, 10)
    Z = np.zeros(robot.n)
    pred = np.array([res.model.torque(qq, Z, Z) for qq in held.q])
    assert np.sqrt(np.mean((pred - held.tau) ** 2)) < 0.02
    assert 'static gravity' in res.model.identification['method']


def test_friction_from_sweeps(setup):
    robot, truth, _, _, rng = setup
    q0 = 0.5 * (robot.limits.lower_rad + robot.limits.upper_rad)
    rate = 100.0
    stamps, Q, EFF, segs = [], [], [], []
    t = 1_700_000_000_000_000_000
    Z = np.zeros(robot.n)
    for j in (1, 2):
        for si, v in enumerate((0.1, 0.2, 0.4, 0.8)):
            for direction in (1, -1):
                span = 0.8
                N = int(span / v * rate)
                qs = q0[j] + direction * (np.linspace(-span / 2, span / 2, N))
                t0 = t
                for x in qs:
                    q = q0.copy()
                    q[j] = x
                    qd = Z.copy()
                    qd[j] = direction * v
                    tau = truth.inverse_dynamics(
                        q, qd, Z) + FRICTION.torque(qd) + rng.normal(size=robot.n) * 0.01
                    stamps.append(t)
                    Q.append(q)
                    EFF.append(tau)
                    t += int(1e9 / rate)
                segs.append({'type': 'constant_velocity', 't_start_ns': t0, 't_end_ns': t - 1,
                             'joint': robot.joint_names[j], 'velocity_rad_s': direction * v,
                             'direction': direction, 'speed_index': si})
    s = JointStateSeries(robot.joint_names, np.array(stamps), np.array(Q), None, np.array(EFF),
                         'sweeps')
    r = identify_friction_sweeps(robot, [(s, {'segments': segs})], IdentificationOptions())
    assert r.joints_fitted == [robot.joint_names[1], robot.joint_names[2]]
    for j in (1, 2):
        fc = 0.5 * (r.friction.coulomb_pos_nm[j] + r.friction.coulomb_neg_nm[j])
        assert fc == pytest.approx(FRICTION.coulomb_pos_nm[j], abs=0.02)
        assert r.friction.viscous_nm_s_rad[j] == pytest.approx(FRICTION.viscous_nm_s_rad[j],
                                                               abs=0.03)


def _write_bag(path, series):
    with BagWriter(path) as w:
        for k in range(len(series)):
            w.write(
                '/joint_states', series.stamp_ns[k],
                w.joint_state(series.stamp_ns[k],
                              list(series.joint_names) + ['gripper_finger_joint_l'],
                              list(series.q[k]) + [0.0],
                              list(series.qd[k]) + [0.0],
                              list(series.effort[k]) + [0.0]))


def test_cli_identify_validate_and_bad_input(setup, tmp_path, capsys):
    from robot_id_ros.cli import main
    robot, truth, train, test, _ = setup
    short = train.select(np.arange(len(train)) < 4 * 2000)
    _write_bag(tmp_path / 'train', short)
    _write_bag(tmp_path / 'test', test)
    out = tmp_path / 'model.yaml'
    rc = main([
        'identify', '--data',
        str(tmp_path / 'train'), '--out',
        str(out), '--report',
        str(tmp_path / 'rep')
    ])
    assert rc == 0 and out.is_file()
    assert (tmp_path / 'rep' / 'report.md').is_file() and (tmp_path / 'rep' /
                                                           'fit_0.png').is_file()
    m = load_model(out)
    assert m.base is not None and m.residual_std_nm is not None
    capsys.readouterr()
    assert main(['validate', '--model', str(out), '--data', str(tmp_path / 'test'), '--json']) == 0
    import json
    js = json.loads(capsys.readouterr().out)
    for key in ('joint_names', 'samples', 'rmse_nm', 'per_joint_relative_error', 'relative_error',
                'filter_hz', 'relative_error_filtered'):
        assert key in js
    assert np.all(np.array(js['rmse_nm']) / SIGMA < 1.1)
    # bad input: a bag without effort -> exit 2, one line, nothing written
    no_eff = JointStateSeries(test.joint_names, test.stamp_ns, test.q, test.qd,
                              np.zeros_like(test.q), 'n')
    with BagWriter(tmp_path / 'noeff') as w:
        for k in range(len(no_eff)):
            w.write(
                '/joint_states', no_eff.stamp_ns[k],
                w.joint_state(no_eff.stamp_ns[k], no_eff.joint_names, no_eff.q[k], no_eff.qd[k],
                              []))
    bad = tmp_path / 'bad.yaml'
    assert main(['identify', '--data', str(tmp_path / 'noeff'), '--out', str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'effort' in err[0]
    assert not bad.exists()
    assert main(
        ['identify', '--data',
         str(tmp_path / 'train'), '--topic', '/nope', '--out',
         str(bad)]) == 2
    assert 'no topic' in capsys.readouterr().err
    assert not bad.exists()
    # a URDF whose joints the bag does not have
    assert main(['identify', '--urdf', str(Path(sys.prefix)), '--data', str(tmp_path / 'train'),
                 '--out', str(bad)]) == 2
    assert not bad.exists()


def test_base_matrix_and_free_columns(setup):
    """``BaseParameters.matrix`` is the ``to_base`` map; the base of the free columns leaves the
    known ones out, and its static form keeps only static columns."""
    robot = setup[0]
    reg = Regressor(robot, RegressorOptions(offset=True))
    free, known_idx = free_columns(reg, {'m5': 0.3})
    base = structural_base(reg, free)
    theta = np.random.default_rng(0).normal(size=reg.p)
    assert np.allclose(base.matrix() @ theta, base.to_base(theta))
    assert base.matrix(reg.p).shape == (base.n_base, reg.p)
    used = set(base.independent) | set(base.dependent)
    assert used == set(free) and not used & set(known_idx)
    static = structural_base(reg, free, static=True)
    assert set(static.independent) | set(static.dependent) <= set(reg.static_columns())


def test_identification_record_is_the_model_file_section():
    """The record flattens to the section's keys, in the model file's order."""
    rec = IdentificationRecord('wls', {'weighting': 'wls'}, ['train'], ['static'], [])
    assert list(rec.to_dict()) == ['method', 'options', 'data', 'static', 'sweeps', 'timings_s']
    assert rec.to_dict()['static'] == ['static']
    rec.static = StaticFitRecord(3, [0.1], [], [1.0], [0.2])
    rec.dynamics = DynamicsRecord(100, 8, 10.0, 5.0, 0.01, [0.1], {}, [], [2.0], 2.0, ['periodic'])
    rec.fit_metrics = {'samples': 100}
    rec.timings_s = {'total': 1.0}
    d = rec.to_dict()
    assert list(d) == ['method', 'options', 'data', 'static', 'sweeps', 'samples', 'n_base',
                       'condition_number', 'condition_number_scaled', 'relative_error',
                       'residual_rms_nm', 'known_parameters', 'unidentifiable', 'cutoff_hz',
                       'torque_cutoff_hz', 'derivative_method', 'fit_metrics', 'timings_s']
    assert d['static'] == {'poses': 3, 'residual_rms_nm': [0.1], 'dropped': [],
                           'point_mass_kg': [1.0], 'point_mass_residual_rms_nm': [0.2]}
    rec.dynamics, rec.fit_metrics = None, None
    rec.gravity = GravityModelRecord(3, ['m1'], [1.0], [0.1], [], 4.0, 2.0)
    assert list(rec.to_dict())[5:] == ['poses', 'gravity_combinations', 'gravity_values',
                                       'gravity_std', 'dropped', 'condition_number',
                                       'condition_number_scaled', 'timings_s']
