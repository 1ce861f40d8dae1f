# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id estimate says when the run's friction is not the model's, and with
--friction-tracking what it tracked."""
import dataclasses

import numpy as np
import pytest

from estimate.estimate_cases import BENT, measured, stamps, trajectory, youbot_friction
from robot_id_ros.cli.main import main
from robot_id_ros.io.bags import BagWriter
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.robot import youbot_model


@pytest.fixture(scope='module')
def files(tmp_path_factory):
    """(folder, model file, a bag of an arm whose friction fell by 40 % within its first 20 s)."""
    d = tmp_path_factory.mktemp('friction_notes')
    start = youbot_friction()
    warm = dataclasses.replace(start, coulomb_pos_nm=0.6 * start.coulomb_pos_nm,
                               coulomb_neg_nm=0.6 * start.coulomb_neg_nm)
    models = [nominal_model(youbot_model(), f) for f in (start, warm)]
    for m in models:
        m.residual_std_nm = np.full(5, 0.03)
    models[0].save(d / 'model.yaml')
    t, Q, QD, QDD = trajectory(BENT, 40.0, 0.4, [0.31, 0.37, 0.43, 0.47, 0.53])
    zero = np.zeros((len(t), 6))
    share = np.clip((t - 2.0) / 18.0, 0.0, 1.0)[:, None]
    E = (1 - share) * measured(models[0], Q, QD, QDD, zero) + share * measured(
        models[1], Q, QD, QDD, zero) + np.random.default_rng(7).normal(0, 0.02, Q.shape)
    S, names = stamps(t), list(models[0].joint_names)
    with BagWriter(d / 'warm.mcap') as bw:
        for k in range(len(t)):
            bw.write('/joint_states', S[k], bw.joint_state(S[k], names, Q[k], QD[k], E[k]))
    return d, d / 'model.yaml', d / 'warm.mcap'


def run(files, name, *flags, capsys):
    d, model, data = files
    code = main(['estimate', '--model', str(model), '--data', str(data),
                 '--out', str(d / f'{name}.mcap'), *flags])
    err = capsys.readouterr().err
    assert code == 0, err
    return err


def test_a_model_colder_than_the_run_is_named(files, capsys):
    err = run(files, 'plain', capsys=capsys)
    assert "note: the model's friction is not this run's" in err, err
    assert 'note: arm_joint_2: the residual follows the friction law' in err, err
    assert '--friction-tracking follows it' in err


def test_with_tracking_the_tracked_friction_is_printed(files, capsys):
    err = run(files, 'tracked', '--friction-tracking', capsys=capsys)
    assert 'note: friction tracked from' in err and "is not this run's" not in err, err
