# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Unusable samples of an excitation run (issue 13 item 2): NaN/inf values or arrays of the
wrong length are left out and reported (how many, which field, where), cost only themselves (not
the run, not a period) and reach the identify summary."""
import numpy as np
import pytest

from robots import ur5
from robot_id_ros.identify import IdentificationOptions, identify
from robot_id_ros.identify.trajectories import prepare_trajectory
from robot_id_ros.io.bags import BagWriter, JointStateSeries, read_joint_states
from robot_id_ros.model.robot import RobotModel

RATE_HZ = 200.0
PERIOD_S = 4.0
STAMP0_NS = 1_700_000_000 * 10 ** 9


@pytest.fixture(scope='module')
def run():
    """(robot, t, Q, QD, effort) of three periods of a multi-sine on a UR5, 0.02 Nm noise."""
    urdf, joints = ur5()
    robot = RobotModel(urdf, joints)
    t = np.arange(int(3 * PERIOD_S * RATE_HZ)) / RATE_HZ
    w = 2 * np.pi / PERIOD_S
    amp = np.linspace(0.3, 0.6, robot.n)
    Q = 0.3 + amp * (np.sin(w * t)[:, None] + 0.3 * np.sin(3 * w * t + 1.0)[:, None])
    QD = amp * w * (np.cos(w * t)[:, None] + 0.9 * np.cos(3 * w * t + 1.0)[:, None])
    QDD = -amp * w ** 2 * (np.sin(w * t)[:, None] + 2.7 * np.sin(3 * w * t + 1.0)[:, None])
    E = np.array([robot.inverse_dynamics(Q[k], QD[k], QDD[k]) for k in range(len(t))])
    E += 0.02 * np.random.default_rng(3).standard_normal(E.shape)
    return robot, t, Q, QD, E


def _series(robot, t, Q, QD, E, source='run'):
    stamps = STAMP0_NS + np.round(t * 1e9).astype(np.int64)
    return JointStateSeries(robot.joint_names, stamps, Q, QD, E, source)


def test_nan_samples_cost_only_themselves(run):
    robot, t, Q, QD, E = run
    opts = IdentificationOptions(period_s=PERIOD_S)
    clean = prepare_trajectory(_series(robot, t, Q, QD, E), opts, None, robot)
    assert clean.method == 'periodic' and clean.cycles == 3
    E2, QD2 = E.copy(), QD.copy()
    E2[700:706, 1] = np.nan                 # 30 ms of NaN effort on joint 2, mid period 1
    QD2[1900, 4] = np.inf
    tr = prepare_trajectory(_series(robot, t, Q, QD2, E2), opts, None, robot)
    assert tr.method == 'periodic' and tr.cycles == clean.cycles
    assert abs(tr.period_s - clean.period_s) < 1e-3 * PERIOD_S
    notes = '\n'.join(tr.notes)
    assert (f'6 sample(s) left out (effort is NaN or inf for {robot.joint_names[1]}): samples '
            '700-705, t 3.5-3.525 s') in notes, notes
    assert f'1 sample(s) left out (velocity is NaN or inf for {robot.joint_names[4]}): ' \
           'samples 1900, t 9.5 s' in notes, notes
    # the interpolated stretch stays close to the clean run's torque
    k = np.searchsorted(tr.t_s, 3.51)
    assert np.abs(tr.tau[k] - clean.tau[k]).max() < 0.1


def test_bag_messages_left_out_are_in_the_identify_summary(run, tmp_path):
    robot, t, Q, QD, E = run
    names = list(robot.joint_names)
    stamps = STAMP0_NS + np.round(t * 1e9).astype(np.int64)
    bag = tmp_path / 'run.mcap'
    with BagWriter(bag) as bw:
        for k in range(len(t)):
            eff = E[k][:5] if 1200 <= k < 1204 else E[k]          # 5 efforts for 6 joints
            bw.write('/joint_states', stamps[k], bw.joint_state(stamps[k], names, Q[k], QD[k],
                                                                eff))
    s = read_joint_states(bag, names)
    assert len(s) == len(t) - 4
    res = identify(robot, [s], options=IdentificationOptions(
        friction=False, period_s=PERIOD_S, auto_options=False))   # the periodic processing
    summary = res.summary()
    assert ('4 message(s) left out (joint state effort has 5 values for 6 names): messages '
            '1200-1203, t 5.995-6.02 s') in summary, summary
    assert res.trajectories[0].cycles == 3


def test_a_pause_in_the_recording_cuts_the_run(run, tmp_path, capsys):
    """A bag whose driver stopped publishing for 1.5 s: two runs, nothing interpolated across.

    Before the cut, the resampling's spline spanned the pause (the arm went on by over a third
    of a period meanwhile) and its invented motion entered the fit: relative error 7.6 % here
    against the clean run's 0.092 % (39 % on a UR5 run of 80 s with a 3 s pause); with it 0.091 %.
    """
    from robot_id_ros.cli.main import main
    from robot_id_ros.io.model_file import load_model

    robot, t, Q, QD, E = run
    names = list(robot.joint_names)
    stamps = STAMP0_NS + np.round(t * 1e9).astype(np.int64)
    keep = (t < 5.0) | (t >= 6.5)
    urdf, _ = ur5()
    args = ['--urdf', str(urdf), '--joints', ','.join(names), '--no-auto-options',
            '--no-friction', '--derivative-method', 'savgol']
    errors = {}
    for name, rows in (('clean', np.ones(len(t), bool)), ('pause', keep)):
        bag = tmp_path / f'{name}.mcap'
        with BagWriter(bag) as bw:
            for k in np.flatnonzero(rows):
                bw.write('/joint_states', stamps[k], bw.joint_state(stamps[k], names, Q[k],
                                                                    QD[k], E[k]))
        assert main(['identify', *args, '--data', str(bag), '--out',
                     str(tmp_path / f'{name}.yaml')]) == 0
        errors[name] = load_model(tmp_path / f'{name}.yaml').identification['relative_error']
    err = capsys.readouterr().err
    assert 'cut at 1 gap(s) longer than' in err and '4.995-6.5 s' in err, err
    assert errors['pause'] < 1.5 * errors['clean'], errors


def test_validate_on_a_run_with_a_pause_processes_each_piece(run):
    """Held-out run with 1.5 s without messages: the true model's error stays the noise's.

    Before, the spline across the pause entered the derivatives and the filtered effort: the
    URDF model that made the data was off by 8.2 % (filtered) instead of 0.029 % on the clean run.
    """
    from robot_id_ros.identify import validate
    from robot_id_ros.io.model_file import nominal_model

    robot, t, Q, QD, E = run
    truth = nominal_model(robot)
    clean = validate(truth, _series(robot, t, Q, QD, E)).metrics
    keep = (t < 5.0) | (t >= 6.5)
    v = validate(truth, _series(robot, t[keep], Q[keep], QD[keep], E[keep]))
    m = v.metrics
    assert m['relative_error_filtered'] < 1.3 * clean['relative_error_filtered'], (m, clean)
    assert m['relative_error'] < 1.3 * clean['relative_error'], (m, clean)
    assert np.allclose(m['rmse_nm'], 0.02, rtol=0.3), m['rmse_nm']      # the noise std
    assert any('cut at 1 gap(s)' in n for n in v.trajectory.notes), v.trajectory.notes
    assert m['samples'] <= keep.sum() and np.all(np.diff(v.recorded_t_s) > 0)
