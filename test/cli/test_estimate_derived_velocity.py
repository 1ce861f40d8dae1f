# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id estimate on joint states without velocity: derived from the positions, causally."""
import numpy as np
import pytest

from robot_id_ros.cli.main import main
from robot_id_ros.estimate import EstimatorConfig
from robot_id_ros.estimate.position_velocity import PositionVelocity
from robot_id_ros.io.bags import BagWriter
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import youbot_model

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])   # rad, away from the joint limits
RATE_HZ = 1000.0
FORCE_N = np.array([0.0, 4.0, -10.0])    # pushed on from 2 s on
FREQ_HZ = np.array([0.3, 0.4, 0.5, 0.35, 0.45])    # each joint's sine


@pytest.fixture(scope='module')
def bags(tmp_path_factory):
    """(folder, model file, bag with velocity, the same bag without, bag without position)."""
    d = tmp_path_factory.mktemp('derived_velocity')
    fr = FrictionModel(coulomb_pos_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
                       coulomb_neg_nm=[0.5, 0.5, 0.4, 0.2, 0.1],
                       viscous_nm_s_rad=[0.5, 0.4, 0.3, 0.1, 0.05], offset_nm=0.0)
    model = nominal_model(youbot_model(), fr)
    model.residual_std_nm = np.full(5, 0.05)
    model.save(d / 'model.yaml')
    t = np.arange(int(4 * RATE_HZ)) / RATE_HZ
    amp, w = np.full(5, 0.2), 2 * np.pi * FREQ_HZ
    Q = BENT + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    F = np.where((t >= 2.0)[:, None], FORCE_N, 0.0)
    E = np.array([model.torque(Q[k], QD[k], QDD[k]) - model.robot.tool_jacobian(Q[k])[:3].T @ F[k]
                  for k in range(len(t))])
    S = (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)
    names = list(model.joint_names)
    paths = []
    for name, with_q, with_qd in (('with', True, True), ('without', True, False),
                                  ('neither', False, False)):
        path = d / f'{name}.mcap'
        with BagWriter(path) as bw:
            for k in range(len(t)):
                bw.write('/joint_states', S[k], bw.joint_state(
                    S[k], names, Q[k] if with_q else (), QD[k] if with_qd else (), E[k]))
        paths.append(path)
    return (d, d / 'model.yaml', *paths, S, Q, QD)


def estimate(d, model, data, name, capsys):
    code = main(['estimate', '--model', str(model), '--data', str(data),
                 '--out', str(d / f'{name}_out.mcap'), '--csv', str(d / f'{name}.csv')])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    table = np.genfromtxt(d / f'{name}.csv', delimiter=',', names=True, dtype=None,
                          encoding='utf-8')
    return np.column_stack([table[c] for c in ('fx', 'fy', 'fz')]).astype(float), cap.err


def test_without_velocity_gives_the_wrench_of_the_true_velocities(bags, capsys):
    d, model, with_qd, without_qd, _, S, _, _ = bags
    f_true, err = estimate(d, model, with_qd, 'with', capsys)
    assert 'derived' not in err
    f_derived, err = estimate(d, model, without_qd, 'without', capsys)
    assert 'no velocity' in err and 'derived from the positions' in err
    assert f_derived.shape == f_true.shape and np.isfinite(f_derived).all()
    t = (S - S[0]) * 1e-9
    diff = np.abs(f_derived - f_true).max(axis=1)[t > 0.2]    # after the start's settling
    # the derived velocity is late by about 2 / (2 pi bandwidth): where a joint reverses, its
    # Coulomb friction flips that late, which the residual passes on for its own time constant
    reversal = np.concatenate([(np.arange(8) + 0.5) / (2 * f) for f in FREQ_HZ])
    after = (t[t > 0.2, None] - reversal > -0.01) & (t[t > 0.2, None] - reversal < 0.15)
    assert diff[~after.any(axis=1)].max() < 0.1          # N, against a 10.8 N push
    assert np.sqrt(np.mean(diff ** 2)) < 0.3
    # and both see the push
    np.testing.assert_allclose(f_derived[-1], FORCE_N, atol=0.5)


def test_derived_velocity_is_the_motions_velocity_slightly_late(bags):
    """The causal rule's velocity lags the true one by about its time constant, no more."""
    _, _, _, _, _, S, Q, QD = bags
    derived = PositionVelocity.for_config(5, EstimatorConfig())
    V = derived.series(S, Q)
    lag = int(round(2.0 / (2 * np.pi * derived.bandwidth_hz) * RATE_HZ))   # samples
    err = np.abs(V[lag:] - QD[:-lag])[200:]
    assert err.max() < 0.02 * np.abs(QD).max()
    # a gap longer than max_gap_s restarts it: the velocity right after is zero
    gap = S.copy()
    gap[100:] += 10 ** 9
    derived.reset()
    V = derived.series(gap, Q)
    assert np.all(V[100] == 0.0) and np.all(V[99] != 0.0)


def test_a_bag_with_neither_position_nor_velocity_is_one_line(bags, capsys):
    d, model, _, _, neither, _, _, _ = bags
    code = main(['estimate', '--model', str(model), '--data', str(neither),
                 '--out', str(d / 'neither_out.mcap')])
    cap = capsys.readouterr()
    assert code == 2
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and 'position' in lines[0] and 'velocity' in lines[0], cap.err
    assert not (d / 'neither_out.mcap').exists()
