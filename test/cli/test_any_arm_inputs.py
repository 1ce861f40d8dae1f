# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Commands with defaults on URDFs and recordings this package did not make (issue 13)."""
import dataclasses
import warnings

import numpy as np
import pytest

from robots import example_robot_data_dir
from robot_id_ros.cli.common import read_series
from robot_id_ros.cli.main import main
from robot_id_ros.identify import IdentificationOptions
from robot_id_ros.identify.payload import payload_motion_regressor
from robot_id_ros.identify.validation import validation_metrics
from robot_id_ros.io.bags import BagWriter, read_joint_states

# rad, the youBot away from its joint limits (test/cli/conftest.py's; a module named conftest
# is not importable from every test run)
BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])


def test_design_excitation_on_continuous_joints_without_limits_says_one_line(tmp_path, capsys):
    """double_pendulum_continuous: no position and no velocity limit; one line, no warning."""
    urdf = (example_robot_data_dir() / 'double_pendulum_description' / 'urdf'
            / 'double_pendulum_continuous.urdf')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        rc = main(['design-excitation', '--urdf', str(urdf), '--out', str(tmp_path / 't.yaml')])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err[-1].startswith('robot-id design-excitation: error: '), err
    assert 'no usable velocity limit for joint(s) joint1, joint2' in err[-1]
    assert '--velocity-limits' in err[-1] and not any('Warning' in x for x in err), err


def test_help_states_the_wrench_sign_convention(capsys):
    """Issue 13 item 6: which way the wrench points, in robot-id --help and estimate --help."""

    for argv in (['--help'], ['estimate', '--help']):
        with pytest.raises(SystemExit):
            main(argv)
        text = ' '.join(capsys.readouterr().out.split())
        assert 'the environment applies to the robot' in text, argv
        assert "tool frame's origin" in text and 'along +x reads +fx' in text, argv


def _payload_run(tmp_path, model, keep=None, nan_at=None):
    """Write the model and an 8 s loaded run (0.5 kg 50 mm along tool z); run robot-id payload.

    Returns (exit code, stdout). ``keep``: the samples written; ``nan_at``: a NaN effort there.
    """
    model.save(tmp_path / 'model.yaml')
    t = np.arange(1600) / 200.0
    amp, w = np.array([0.6, 0.4, 0.5, 0.6, 0.8]), 2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45])
    Q = BENT + amp * np.sin(w * t[:, None])
    QD, QDD = amp * w * np.cos(w * t[:, None]), -amp * w ** 2 * np.sin(w * t[:, None])
    x = np.array([0.5, 0.0, 0.0, 0.5 * 0.05] + [0.0] * 6)
    E = np.array([model.torque(*s) for s in zip(Q, QD, QDD)])
    E += (payload_motion_regressor(model.robot, Q, QD, QDD) @ x).reshape(len(t), -1)
    E += 0.01 * np.random.default_rng(1).standard_normal(E.shape)
    if nan_at is not None:
        E[nan_at, 2] = np.nan
    stamps = 1_700_000_000 * 10 ** 9 + np.round(t * 1e9).astype(np.int64)
    with BagWriter(tmp_path / 'loaded.mcap') as bw:
        for k in (range(len(t)) if keep is None else np.flatnonzero(keep)):
            bw.write('/joint_states', stamps[k], bw.joint_state(
                stamps[k], model.joint_names, Q[k], QD[k], E[k]))
    return main(['payload', '--model', str(tmp_path / 'model.yaml'), '--data',
                 str(tmp_path / 'loaded.mcap'), '--out', str(tmp_path / 'p.yaml')])


def test_payload_reports_the_samples_it_left_out(tmp_path, capsys, model):
    """A loaded trajectory with a NaN effort: the payload, and a line saying what was left out."""
    assert _payload_run(tmp_path, model, nan_at=300) == 0
    out = capsys.readouterr().out
    assert '1 message(s) left out (joint state effort is NaN or inf for' in out, out
    assert 'messages 300, t 1.495-1.505 s' in out, out
    mass = float(out.split('mass ')[1].split()[0])
    assert abs(mass - 0.5) < 0.02, out


def test_payload_from_a_run_with_a_pause(tmp_path, capsys, model):
    """1 s without messages in the loaded run: the pieces fitted, nothing interpolated across.

    Before, the spline across the pause entered the fit: here 0.461 kg at 3.8, -8.1, 52.6 mm
    for 0.5 kg at 0, 0, 50 mm; a synthetic UR5 run with a 2 s pause: COM 29.3, 94.1 mm for
    20, 80 mm (now 20.0, 79.9 mm).
    """
    t = np.arange(1600) / 200.0
    assert _payload_run(tmp_path, model, keep=(t < 3.0) | (t >= 4.0)) == 0
    out = capsys.readouterr().out
    assert 'cut at 1 gap(s)' in out, out
    com = [float(v.strip(',')) for v in out.split('COM (tool frame) ')[1].split()[:3]]
    mass = float(out.split('mass ')[1].split()[0])
    assert abs(mass - 0.5) < 0.02 and np.allclose(com, [0, 0, 0.05], atol=0.002), out


def test_estimate_takes_the_effort_unit_the_model_was_identified_from(tmp_path, capsys, model,
                                                                      inputs):
    """A model identified from motor currents, a bag of currents, no --effort-unit: amperes.

    Before, estimate took the effort as Nm whatever the model (validate and payload followed
    the model): on the synthetic UR5 with gains 5-12.5 Nm/A the currents read as a contact in
    all 4800 samples of a contact-free run (5 with the gains).
    """
    gains = np.array([8.0, 6.0, 5.0, 3.0, 3.0])
    m = dataclasses.replace(model, drive_gains_nm_per_a=gains, identification=dict(
        model.identification, options=IdentificationOptions(effort_unit='current').to_dict()))
    m.save(tmp_path / 'm.yaml')
    s = read_joint_states(inputs[2], model.joint_names)
    with BagWriter(tmp_path / 'amps.mcap') as bw:
        for k in range(len(s)):
            bw.write('/joint_states', s.stamp_ns[k], bw.joint_state(
                s.stamp_ns[k], model.joint_names, s.q[k], s.qd[k], s.effort[k] / gains))
    outs = {}
    for tag, flags in (('default', []), ('current', ['--effort-unit', 'current'])):
        assert main(['estimate', '--model', str(tmp_path / 'm.yaml'), '--data',
                     str(tmp_path / 'amps.mcap'), '--out', str(tmp_path / f'{tag}.mcap'),
                     '--csv', str(tmp_path / f'{tag}.csv')] + flags) == 0
        outs[tag] = (tmp_path / f'{tag}.csv').read_text()
    err = capsys.readouterr().err
    assert outs['default'] == outs['current']
    assert 'effort taken as motor current (A) times the drive gains' in err, err


def test_an_effort_that_never_changes_is_pointed_out(tmp_path, capsys):
    """A driver that leaves one joint's effort at 0: said once, before it reads as a contact."""
    with BagWriter(tmp_path / 'b.mcap') as w:
        for k in range(50):
            w.write('/joint_states', 1000 + k, w.joint_state(
                1000 + k, ('j1', 'j2'), [0.01 * k, 0.0], [1.0, 0.0], [0.1 * np.sin(k), 0.0]))
    s = read_series(tmp_path / 'b.mcap', ['j1', 'j2'], '/joint_states')
    assert len(s) == 50
    err = capsys.readouterr().err
    assert 'the effort of j2 is 0 in every sample' in err and 'j1' not in err, err


def test_a_tool_frame_the_urdf_lacks_is_named(capsys):
    """--tool-frame with a typo: the frame is named, not 'no joints selected'."""
    urdf = example_robot_data_dir() / 'ur_description' / 'urdf' / 'ur5_robot.urdf'
    assert main(['describe', '--urdf', str(urdf), '--tool-frame', 'tool_0']) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "ur5_robot.urdf has no frame 'tool_0'; frames: " in err[-1] and 'tool0' in err[-1], err


def test_no_row_in_motion_is_not_a_zero_error():
    """validate --min-velocity above every speed: the in-motion error is undefined, not 0 %."""
    tau = np.ones((20, 2))
    m = validation_metrics(tau, 0.5 * tau, mask=np.zeros((20, 2), bool))
    assert np.isnan(m['relative_error_in_motion']) and m['in_motion_samples'] == [0, 0]
    m = validation_metrics(tau, 0.5 * tau, mask=np.ones((20, 2), bool))
    assert m['relative_error_in_motion'] == pytest.approx(0.5)
