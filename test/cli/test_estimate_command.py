# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id estimate: bag in -> bag out with /wrench, /external_joint_torques, /contact."""
import argparse

import numpy as np
import pytest

from robot_id_ros.cli import estimate
from robot_id_ros.cli.estimator_input import estimator_config
from robot_id_ros.io.bags import BagWriter, read_messages
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.io.model_file import nominal_model

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])
GAINS = np.array([5.226, 5.226, 3.35, 3.621, 3.479])


@pytest.fixture(scope='module')
def setup(tmp_path_factory):
    d = tmp_path_factory.mktemp('est')
    fr = FrictionModel(coulomb_pos_nm=[0.5, 0.5, 0.4, 0.2,
                                       0.1], coulomb_neg_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
                       viscous_nm_s_rad=[0.5, 0.4, 0.3, 0.1, 0.05], offset_nm=0.0)
    model = nominal_model(youbot_model(), fr)
    model.drive_gains_nm_per_a = GAINS
    model.residual_std_nm = np.full(5, 0.05)
    model.save(d / 'model.yaml')
    rate = 200.0
    t = np.arange(int(4 * rate)) / rate
    amp, w = np.full(5, 0.2), 2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45])
    Q = BENT + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    F = np.zeros((len(t), 3))
    F[t >= 2.0] = [0.0, 4.0, -10.0]
    E = np.array([model.torque(Q[k], QD[k], QDD[k]) - model.robot.tool_jacobian(Q[k])[:3].T @ F[k]
                  for k in range(len(t))])
    S = (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)
    names = list(model.joint_names) + ['gripper_finger_joint_l', 'gripper_finger_joint_r']
    for unit, scale in (('torque', 1.0), ('current', GAINS)):
        with BagWriter(d / f'in_{unit}.mcap') as bw:
            for k in range(len(t)):
                bw.write(
                    '/joint_states', S[k],
                    bw.joint_state(S[k], names, np.r_[Q[k], 0, 0], np.r_[QD[k], 0, 0],
                                   np.r_[E[k] / scale, 0, 0]))
            # a bad sample (NaN effort) is skipped, not estimated
            bw.write(
                '/joint_states', S[-1] + 10**6,
                bw.joint_state(S[-1] + 10**6, names, np.r_[Q[-1], 0, 0], np.r_[QD[-1], 0, 0],
                               [np.nan] * 7))
    return d, t, S, F


def argv_for(d, **kw):
    argv = ['estimate', '--model', str(d / 'model.yaml'), '--data', str(kw.pop('data')),
            '--out', str(kw.pop('out'))]
    for k, v in kw.items():
        argv += [f'--{k.replace("_", "-")}'] + ([] if v is True else [str(v)])
    return argv


def args_for(d, **kw):
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    estimate.add_parser(sub)
    return p.parse_args(argv_for(d, **kw))


def main_for(d, **kw):
    """robot-id estimate through the command's main: errors are one line on stderr, exit 2."""
    from robot_id_ros.cli.main import main
    return main(argv_for(d, **kw))


def err_line(capsys):
    """The one error line on stderr (nothing on stdout)."""
    cap = capsys.readouterr()
    assert cap.out == '', cap.out
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize('unit', ['torque', 'current'])
def test_bag_in_bag_out(setup, unit, capsys):
    d, t, S, F = setup
    out = d / f'out_{unit}'
    rc = estimate.run(args_for(d, data=d / f'in_{unit}.mcap', out=out, effort_unit=unit,
                               csv=d / f'{unit}.csv', plot=d / f'{unit}.png', wrench_std=True))
    text = capsys.readouterr().out
    assert rc == 0, text
    assert '1 input samples skipped' in text
    wrench = read_messages(out, '/wrench')
    tau = read_messages(out, '/external_joint_torques')
    contact = read_messages(out, '/contact')
    std = read_messages(out, '/wrench_std')
    assert len(wrench) == len(tau) == len(contact) == len(std) == len(S)
    assert all(m.wrench.force.z > 0 for _, m in std)
    stamps = [m.header.stamp.sec * 10 ** 9 + m.header.stamp.nanosec for _, m in wrench]
    assert stamps == list(S)
    assert [bt for bt, _ in wrench] == list(S)
    assert wrench[0][1].header.frame_id == 'arm_link_0'   # the URDF root link
    W = np.array([[m.wrench.force.x, m.wrench.force.y, m.wrench.force.z] for _, m in wrench])
    m = (t > 0.5) & ((t < 2.0) | (t > 2.4))
    assert np.sqrt(np.mean((W[m] - F[m]) ** 2)) < 0.5
    assert list(tau[0][1].name) == [f'arm_joint_{i}' for i in range(1, 6)]
    C = np.array([m.data for _, m in contact])
    assert not C[t < 2.0].any() and C[t > 2.1].all()
    assert (d / f'{unit}.png').stat().st_size > 1000
    lines = (d / f'{unit}.csv').read_text().splitlines()
    assert len(lines) == len(S) + 1 and lines[0].startswith('stamp_ns,fx,fy,fz')


def test_tool_frame_and_direct(setup):
    d, t, S, F = setup
    out = d / 'out_tool'
    assert estimate.run(
        args_for(d, data=d / 'in_torque.mcap', out=out, frame='tool', method='direct')) == 0
    w = read_messages(out, '/wrench')
    assert w[0][1].header.frame_id == 'arm_tool_link'


def test_errors_are_one_line(setup, capsys):
    d, *_ = setup
    rc = main_for(d, data=d / 'missing.mcap', out=d / 'x')
    assert rc == 2 and 'bag not found' in err_line(capsys)
    (d / 'exists').mkdir(exist_ok=True)
    rc = main_for(d, data=d / 'in_torque.mcap', out=d / 'exists')
    assert rc == 2 and 'exists' in err_line(capsys)
    rc = main_for(d, data=d / 'in_torque.mcap', out=d / 'y', drive_gains='1,2')
    assert rc == 2 and 'need 5 values' in err_line(capsys)


def test_params_file_gives_the_nodes_settings_and_flags_override(setup, tmp_path, capsys):
    """--params-file reads the wrench_estimator parameters file (the youBot's config here); a flag
    given as well wins; a file that is no such parameters file, or holds a bad value, is a one-line
    error naming it."""
    from robot_id_ros.ros.parameter_files import youbot_estimator_settings
    from robot_id_ros.model.robot import package_share_dir

    d, *_ = setup
    cfg_file = package_share_dir() / 'config' / 'wrench_estimator.yaml'
    cfg = estimator_config(args_for(d, data='x', out='y', params_file=cfg_file))
    youbot = youbot_estimator_settings()
    assert cfg.stiction_mode == youbot['stiction_mode'] == 'hold' and cfg.band_weighting is True
    assert cfg.contact_threshold_sigma == youbot['contact_threshold_sigma']
    cfg = estimator_config(
        args_for(d, data='x', out='y', params_file=cfg_file, stiction_mode='deadzone'))
    assert cfg.stiction_mode == 'deadzone' and cfg.stiction_velocity_rad_s == youbot[
        'stiction_velocity_rad_s']
    assert estimator_config(args_for(d, data='x',
                                     out='y')).stiction_mode == 'none'  # core defaults
    (tmp_path / 'other.yaml').write_text('youbot_sim:\n  ros__parameters:\n    seed: 3\n')
    rc = main_for(d, data=d / 'in_torque.mcap', out=tmp_path / 'o1',
                  params_file=tmp_path / 'other.yaml')
    assert rc == 2 and 'no "wrench_estimator: ros__parameters:"' in err_line(capsys)
    (tmp_path / 'bad.yaml'
     ).write_text("wrench_estimator:\n  ros__parameters:\n    stiction_mode: sometimes\n")
    rc = main_for(d, data=d / 'in_torque.mcap', out=tmp_path / 'o2',
                  params_file=tmp_path / 'bad.yaml')
    assert rc == 2 and 'bad.yaml' in err_line(capsys)
    assert not (tmp_path / 'o1').exists() and not (tmp_path / 'o2').exists()
