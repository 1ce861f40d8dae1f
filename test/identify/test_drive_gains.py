# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Drive gains identified with the dynamics from motor currents (issue 13, item 4).

Synthetic truth made with the core: a perturbed arm (youBot, UR5 of example-robot-data) with
friction; the recorded effort is the motor current tau / k + white noise, with gains k different
per joint (0.05-0.3 Nm/A). The gains come out of ``identify`` with effort_unit 'current' and no
gains; the scale from a run with a known payload, else from the URDF gravity.
"""
import dataclasses
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robot_id_ros.identify import (IdentificationError, IdentificationOptions,  # noqa: E402
                                   identify, identify_friction_sweeps, validate)
from robot_id_ros.identify.drive_gains import payload_parameters  # noqa: E402
from robot_id_ros.io.bags import JointStateSeries  # noqa: E402
from robot_id_ros.io.model_file import Payload, load_model  # noqa: E402
from robot_id_ros.model.friction import FrictionModel  # noqa: E402
from robot_id_ros.model.robot import RobotModel, youbot_model  # noqa: E402

from test_identification import fourier_trajectory, perturbed  # noqa: E402

PAYLOAD = Payload(0.5, np.array([0.01, 0.0, 0.05]))


def arm(name):
    """(robot, gains Nm/A, torque noise std Nm, friction) of a test arm."""
    if name == 'youbot':
        robot = youbot_model()
    else:
        from robots import ur5
        urdf, joints = ur5()
        robot = RobotModel(urdf, joints)
    n = robot.n
    gains = np.linspace(0.3, 0.05, n)
    sigma = np.linspace(0.08, 0.01, n)
    fc = np.linspace(0.3, 0.05, n)
    friction = FrictionModel(fc, 0.8 * fc, np.linspace(0.5, 0.03, n), np.linspace(0.02, -0.01, n))
    return robot, gains, sigma, friction


def current_series(truth, friction, traj, gains, sigma, rng, payload=None, source='run'):
    """JointStateSeries of motor currents (A) measured on ``truth`` along ``traj``."""
    t, Q, QD, QDD = traj
    model = truth.copy()
    if payload is not None:
        last = model.model.njoints - 1
        model.model.inertias[last] = model.model.inertias[last] + \
            pin.Inertia.FromDynamicParameters(payload_parameters(model, payload))
    tau = np.array([model.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    tau += friction.torque(QD)
    cur = (tau + rng.normal(size=tau.shape) * sigma) / gains
    stamps = 1_700_000_000_000_000_000 + np.round(t * 1e9).astype(np.int64)
    return JointStateSeries(truth.joint_names, stamps, np.round(Q / 1e-5) * 1e-5, QD.copy(), cur,
                            source), tau


def world(name, mass_rel, seed=1, periods=4):
    robot, gains, sigma, friction = arm(name)
    rng = np.random.default_rng(seed)
    truth = perturbed(robot, rng, mass_rel=mass_rel)
    train, _ = current_series(truth, friction, fourier_trajectory(robot, rng, periods=periods),
                              gains, sigma, rng, source='train')
    loaded, _ = current_series(truth, friction, fourier_trajectory(
        robot, np.random.default_rng(seed + 4), periods=periods), gains, sigma, rng, PAYLOAD,
        'loaded')
    held = fourier_trajectory(robot, np.random.default_rng(seed + 6), periods=1)
    _, tau_held = current_series(truth, friction, held, gains, sigma, rng, source='held')
    return dict(robot=robot, gains=gains, sigma=sigma, train=train, loaded=loaded, held=held,
                tau_held=tau_held)


OPTIONS = IdentificationOptions(effort_unit='current', max_samples=4000)


@pytest.fixture(scope='module')
def youbot():
    return world('youbot', mass_rel=0.2)


def check_prediction(w, model, bound):
    """The identified model predicts the true held-out torque within ``bound`` x the noise."""
    _, Q, QD, QDD = w['held']
    rmse = np.sqrt(np.mean((model.predict(Q, QD, QDD) - w['tau_held']) ** 2, axis=0))
    assert np.all(rmse < bound * w['sigma']), rmse / w['sigma']


def test_youbot_gains_from_a_payload_run_within_3_percent(youbot):
    w = youbot
    res = identify(w['robot'], [w['train']], options=OPTIONS,
                   drive_gain_runs=[(w['loaded'], None, PAYLOAD)])
    m = res.model
    err = m.drive_gains_nm_per_a / w['gains'] - 1
    # achieved (seed 1): |err| <= 1.1 % (joint 1, std 1.1 %), joints 2-4 <= 0.2 %
    assert np.all(np.abs(err) < 0.03), err
    assert np.all(np.abs(err) * w['gains'] < 4 * m.drive_gains_std_nm_per_a + 1e-4)
    assert m.identification['drive_gains']['scale_source'] == 'payload'
    check_prediction(w, m, 0.5)


def test_youbot_gains_from_the_urdf_share_the_urdf_scale(youbot):
    """URDF masses 20 % off: the ratios of the gains hold, the common scale is the URDF's."""
    w = youbot
    res = identify(w['robot'], [w['train']], options=OPTIONS)
    g = res.model.drive_gains_nm_per_a / w['gains']
    d = res.model.identification['drive_gains']
    assert d['scale_source'] == 'urdf' and 'URDF' in d['note']
    rel_std = res.model.drive_gains_std_nm_per_a / res.model.drive_gains_nm_per_a
    # the ratios within 2 % plus 4 reported standard deviations (joint 5, mostly friction: ~8 %)
    assert np.all(np.abs(g / np.median(g) - 1) < 0.02 + 4 * rel_std), (g, rel_std)
    assert np.sum(rel_std < 0.01) >= 3
    assert any('scale from the URDF gravity' in line for line in res.summary_lines)
    # every gain is off by the URDF's common mass error (achieved +10.6..+11.4 % on joints 1-4)
    # far beyond its deviations, so none is flagged identifiable; the ratios of joints 2-4 are
    ok, ratio_ok = res.model.drive_gains_identifiable, d['ratio_identifiable']
    assert not ok.any() and np.all(np.abs(g[1:4] - 1) > 0.05)
    assert [ratio_ok[n] for n in w['robot'].joint_names[1:4]] == [True] * 3
    assert any('identifiable only up to that common scale' in line and '--known' in line
               for line in res.summary_lines)


def test_youbot_gains_from_a_close_urdf_within_5_percent():
    w = world('youbot', mass_rel=0.03, seed=2)
    res = identify(w['robot'], [w['train']], options=OPTIONS)
    err = res.model.drive_gains_nm_per_a / w['gains'] - 1
    assert np.all(np.abs(err) < 0.05), err
    check_prediction(w, res.model, 1.0)


def stribeck_world():
    """The youBot whose friction has a Stribeck term no core column describes, recorded as
    current: (robot, gains, sigma, truth, friction, training run, payload run)."""
    robot, gains, sigma, _ = arm('youbot')
    n = robot.n
    fc = np.linspace(0.3, 0.05, n)
    friction = FrictionModel(fc, 0.8 * fc, np.linspace(0.5, 0.03, n), np.linspace(0.02, -0.01, n),
                             stribeck_nm=fc, stribeck_velocity_rad_s=np.full(n, 0.1))
    rng = np.random.default_rng(1)
    truth = perturbed(robot, rng, mass_rel=0.03)
    train, _ = current_series(truth, friction, fourier_trajectory(robot, rng, periods=4), gains,
                              sigma, rng)
    loaded, _ = current_series(truth, friction, fourier_trajectory(
        robot, np.random.default_rng(5), periods=4), gains, sigma, rng, PAYLOAD)
    return robot, gains, sigma, truth, friction, train, loaded


def test_gain_intervals_cover_model_error_or_flag_the_gain(tmp_path):
    """Truth with a Stribeck friction term the model has no column for (a friction-law miss).

    Joint 1 (vertical axis, no gravity) carries mostly friction: its gain is nearly collinear
    with its own friction columns, and the miss moves it 17 %, 8x its white-noise deviation.
    Every reported gain is within its 95 % interval of the truth or flagged not identifiable;
    the flagged ones are named with the fix; the model file holds the flags. The model structure
    is the user's (no option search). With the search, the gains unknown cost nothing on
    another motion: the model predicts its currents as the one identified with the gains told.
    """
    robot, gains, sigma, truth, friction, train, loaded = stribeck_world()
    fixed = dataclasses.replace(OPTIONS, auto_options=False)
    res = identify(robot, [train], options=fixed, drive_gain_runs=[(loaded, None, PAYLOAD)])
    d = res.model.identification['drive_gains']
    k, std = res.model.drive_gains_nm_per_a, res.model.drive_gains_std_nm_per_a
    ok = res.model.drive_gains_identifiable
    err = np.abs(k / gains - 1)
    std_noise = np.array(list(d['std_noise_nm_per_a'].values()))
    # achieved: joint 1 off 17 % (white-noise std 1.9 %), joint 5 off 12 % (2.2 %): flagged
    assert err[0] > 5 * std_noise[0] / k[0], (err, std_noise / k)
    assert np.all(~ok | (err * k <= 1.96 * std)), (err, std / k, ok)
    assert np.all(err[ok] < 0.05), err
    assert list(ok) == [False, True, True, True, False]
    assert any('not identifiable' in line and 'arm_joint_1' in line and '--drive-gains' in line
               for line in res.summary_lines)
    res.model.save(tmp_path / 'm.yaml')
    back = load_model(tmp_path / 'm.yaml')
    assert list(back.drive_gains_identifiable) == list(ok)
    assert np.allclose(back.drive_gains_std_nm_per_a, std)
    # the search scores its candidates on torques made from the core structure's gains (joint
    # 1's 16 % off), then again with the gains refitted on the structure it chose
    searched = identify(robot, [train], options=OPTIONS,
                        drive_gain_runs=[(loaded, None, PAYLOAD)]).model
    told = identify(robot, [train], options=dataclasses.replace(
        OPTIONS, drive_gains_nm_per_a=list(gains))).model
    other, _ = current_series(truth, friction, fourier_trajectory(
        robot, np.random.default_rng(9), periods=2), gains, sigma, np.random.default_rng(10))
    rmse_a = [np.asarray(validate(m, other, dataclasses.replace(
        OPTIONS, drive_gains_nm_per_a=list(m.drive_gains_nm_per_a))).metrics['rmse_nm'])
        / m.drive_gains_nm_per_a for m in (searched, told)]
    # achieved: at most 1.007. Searched only on the core structure's gains, the model read
    # 0.91-0.96 of the told one's: joint 1's wrong gain made the Stribeck column win, which
    # the search with the true torques leaves out (the same choice as with the gains told)
    assert np.all(rmse_a[0] / rmse_a[1] < 1.015), rmse_a[0] / rmse_a[1]
    assert np.all(np.abs(searched.drive_gains_nm_per_a / gains - 1) < 0.05), (
        searched.drive_gains_nm_per_a / gains)


def sweeps_of(truth, friction, joint, gains=None, rate_hz=100.0, span_rad=0.8):
    """(series, sidecar) of constant-velocity sweeps of ``joint`` (effort: current with
    ``gains``, else torque), at 0.1-0.8 rad/s each way, noise-free."""
    q0 = 0.5 * (truth.limits.lower_rad + truth.limits.upper_rad)
    Q, QD, segs, t0 = [], [], [], 1_700_000_000_000_000_000
    for k, v in enumerate(np.repeat([0.1, 0.2, 0.4, 0.8], 2) * np.tile([1, -1], 4)):
        m = int(span_rad / abs(v) * rate_hz)
        q = np.tile(q0, (m, 1))
        q[:, joint] += np.sign(v) * np.linspace(-span_rad / 2, span_rad / 2, m)
        qd = np.zeros_like(q)
        qd[:, joint] = v
        start = t0 + int(len(Q) * 1e9 / rate_hz)
        segs.append({'type': 'constant_velocity', 't_start_ns': start,
                     't_end_ns': start + int((m - 1) * 1e9 / rate_hz),
                     'joint': truth.joint_names[joint], 'velocity_rad_s': float(v),
                     'direction': int(np.sign(v)), 'speed_index': k // 2})
        Q.extend(q)
        QD.extend(qd)
    Q, QD = np.array(Q), np.array(QD)
    tau = np.array([truth.inverse_dynamics(q, qd, 0 * qd) for q, qd in zip(Q, QD)])
    tau += friction.torque(QD)
    stamps = t0 + (np.arange(len(Q)) * 1e9 / rate_hz).astype(np.int64)
    effort = tau if gains is None else tau / gains
    return JointStateSeries(truth.joint_names, stamps, Q, None, effort, 'sweeps'), {
        'segments': segs}


def test_sweeps_fitted_in_the_torques_of_the_final_gains():
    """Sweeps recorded as current are fitted again with the gains of the chosen structure.

    Joint 1's torque is mostly friction: its core-structure gain is 17 % off, its gain on the
    chosen structure 4 %. The sweeps, fitted before the search, took the first.
    """
    robot, gains, sigma, truth, friction, train, loaded = stribeck_world()
    res = identify(robot, [train], sweeps=[sweeps_of(truth, friction, 0, gains)],
                   options=OPTIONS, drive_gain_runs=[(loaded, None, PAYLOAD)])
    in_torque = identify_friction_sweeps(robot, [sweeps_of(truth, friction, 0)],
                                         IdentificationOptions())
    k = res.model.drive_gains_nm_per_a[0] / gains[0]
    got = res.friction_sweeps.friction.coulomb_pos_nm[0]
    want = in_torque.friction.coulomb_pos_nm[0]
    # the sweep friction carries the final gain's error, not the core structure's
    assert abs(k - 1) < 0.06, k
    assert got / want == pytest.approx(k, rel=1e-6), (got / want, k)


def test_regrouped_known_parameter_fixes_no_scale(youbot):
    """A link mass that is regrouped into others (m3) carries no scale: said, URDF used."""
    w = youbot
    opts = dataclasses.replace(OPTIONS, known_parameters={'m3': 1.0})
    res = identify(w['robot'], [w['train']], options=opts)
    d = res.model.identification['drive_gains']
    assert d['scale_source'] == 'urdf' and 'fix(es) no scale' in d['note']


def test_static_only_currents_need_gains_or_trajectories(youbot):
    with pytest.raises(IdentificationError, match='--drive-gains'):
        identify(youbot['robot'], [], static=[youbot['train']], options=OPTIONS)


@pytest.mark.slow
def test_ur5_gains_from_a_payload_run_within_2_percent():
    w = world('ur5', mass_rel=0.2, seed=3)
    res = identify(w['robot'], [w['train']], options=OPTIONS,
                   drive_gain_runs=[(w['loaded'], None, PAYLOAD)])
    err = res.model.drive_gains_nm_per_a / w['gains'] - 1
    assert np.all(np.abs(err) < 0.02), err
    check_prediction(w, res.model, 0.5)
