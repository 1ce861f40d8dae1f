# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id model: a model file from a URDF, and a URDF given where a model file belongs."""
import numpy as np
import pytest

from robot_id_ros.cli.main import main
from robot_id_ros.io.bags import read_messages
from robot_id_ros.io.model_file import load_model
from robot_id_ros.model.robot import default_urdf_path, youbot_model

URDF = default_urdf_path()


def err_line(capsys):
    """The one error line on stderr (nothing on stdout)."""
    cap = capsys.readouterr()
    assert cap.out == '', cap.out
    lines = [x for x in cap.err.strip().splitlines() if not x.startswith('note: ')]
    assert len(lines) == 1, lines
    return lines[0]


def test_model_holds_the_urdfs_masses(tmp_path):
    out = tmp_path / 'model.yaml'
    assert main(['model', '--urdf', str(URDF), '--out', str(out)]) == 0
    model = load_model(out, urdf_path=URDF)
    urdf = youbot_model()
    assert list(model.joint_names) == list(urdf.joint_names)
    assert model.robot.tool_frame == urdf.tool_frame
    masses = model.parameters[:model.regressor.n_inertial:10]
    expected = [urdf.model.inertias[i].mass for i in range(1, urdf.model.njoints)]
    np.testing.assert_allclose(masses, expected)
    np.testing.assert_allclose(model.parameters[:model.regressor.n_inertial],
                               urdf.standard_parameters())
    assert not np.any(model.friction.coulomb_pos_nm) and not np.any(model.robot.model.armature)


def test_per_joint_options_land_in_the_file(tmp_path):
    out = tmp_path / 'model.yaml'
    rotor = [0.3, 0.25, 0.1, 0.05, 0.02]
    coulomb = [0.5, 0.5, 0.4, 0.2, 0.1]
    viscous = [0.5, 0.4, 0.3, 0.1, 0.05]
    argv = ['model', '--urdf', str(URDF), '--out', str(out), '--rotor-inertia',
            ','.join(map(str, rotor)), '--coulomb', ','.join(map(str, coulomb)),
            '--viscous', ','.join(map(str, viscous))]
    assert main(argv) == 0
    model = load_model(out)
    np.testing.assert_allclose(model.robot.model.armature, rotor)
    np.testing.assert_allclose(model.friction.coulomb_pos_nm, coulomb)
    np.testing.assert_allclose(model.friction.coulomb_neg_nm, coulomb)
    np.testing.assert_allclose(model.friction.viscous_nm_s_rad, viscous)
    # the rotor inertia acts: a joint's torque at rest grows by Ia * qdd
    q = np.array([2.9, 1.6, -1.6, 2.2, 2.9])
    qdd = np.array([0.0, 0.0, 1.0, 0.0, 0.0])
    plain = youbot_model()
    extra = model.rigid_body_torque(q, np.zeros(5), qdd) - plain.inverse_dynamics(
        q, np.zeros(5), qdd)
    np.testing.assert_allclose(extra, [0, 0, rotor[2], 0, 0], atol=1e-9)
    # friction acts: a moving joint adds its Coulomb and viscous torque
    qd = np.array([1.0, 0, 0, 0, 0])
    tau_f = model.torque(q, qd, np.zeros(5)) - model.rigid_body_torque(q, qd, np.zeros(5))
    assert tau_f[0] == pytest.approx(coulomb[0] + viscous[0], rel=0.02)


def test_joints_and_tool_frame_choose_the_chain(tmp_path, capsys):
    out = tmp_path / 'model.yaml'
    joints = 'arm_joint_1,arm_joint_2,arm_joint_3'
    argv = ['model', '--urdf', str(URDF), '--out', str(out), '--joints', joints,
            '--tool-frame', 'arm_link_3']
    assert main(argv + ['--coulomb', '1,1,1,1,1']) == 2
    assert '--coulomb: need 3 values, got 5' in err_line(capsys)
    assert main(argv + ['--coulomb', '1,2,3']) == 0
    model = load_model(out)
    assert list(model.joint_names) == joints.split(',')
    assert model.robot.tool_frame == 'arm_link_3'
    np.testing.assert_allclose(model.friction.coulomb_pos_nm, [1, 2, 3])


@pytest.mark.parametrize('flag, text', [('--rotor-inertia', '0.1,0.2'),
                                        ('--coulomb', '1,1,1,1,1,1'),
                                        ('--viscous', '1,x,1,1,1')])
def test_wrong_values_are_one_line(tmp_path, capsys, flag, text):
    out = tmp_path / 'model.yaml'
    assert main(['model', '--urdf', str(URDF), '--out', str(out), flag, text]) == 2
    assert flag in err_line(capsys)
    assert not out.exists()


def test_negative_value_and_existing_file_are_one_line(tmp_path, capsys):
    out = tmp_path / 'model.yaml'
    assert main(['model', '--urdf', str(URDF), '--out', str(out), '--coulomb',
                 '1,1,-1,1,1']) == 2
    assert 'negative' in err_line(capsys)
    out.write_text('keep: me\n')
    assert main(['model', '--urdf', str(URDF), '--out', str(out), '--overwrite']) == 2
    assert 'model file' in err_line(capsys)
    assert out.read_text() == 'keep: me\n'


def test_a_urdf_as_model_file_names_the_command(inputs, tmp_path, capsys):
    _, _, bag = inputs
    rc = main(['estimate', '--model', str(URDF), '--data', str(bag),
               '--out', str(tmp_path / 'out')])
    assert rc == 2
    line = err_line(capsys)
    assert 'looks like a URDF, not a model file' in line
    assert f'robot-id model --urdf {URDF} --out MODEL.yaml' in line


def test_estimate_runs_with_the_made_model(inputs, tmp_path, capsys):
    _, _, bag = inputs
    made = tmp_path / 'made.yaml'
    coulomb = '0.5,0.5,0.4,0.2,0.1'
    viscous = '0.5,0.4,0.3,0.1,0.05'
    assert main(['model', '--urdf', str(URDF), '--out', str(made), '--coulomb', coulomb,
                 '--viscous', viscous]) == 0
    out = tmp_path / 'out'
    assert main(['estimate', '--model', str(made), '--data', str(bag), '--out', str(out)]) == 0
    capsys.readouterr()
    wrench = read_messages(out, '/wrench')
    assert len(wrench) == 800
    # the bag is the URDF's torques with that friction and no contact: the wrench stays small
    F = np.array([[m.wrench.force.x, m.wrench.force.y, m.wrench.force.z] for _, m in wrench])
    assert np.sqrt(np.mean(F[len(F) // 4:] ** 2)) < 0.5
