# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the robot-id output tests: a youBot model file and a small JointState bag."""
import shutil

import numpy as np
import pytest

from robot_id_ros.io.bags import BagWriter
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import youbot_model

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])   # rad, away from the joint limits
RATE_HZ = 200.0
DURATION_S = 4.0


@pytest.fixture(scope='session')
def model():
    coulomb = [0.5, 0.5, 0.4, 0.2, 0.1]
    fr = FrictionModel(coulomb_pos_nm=coulomb, coulomb_neg_nm=coulomb,
                       viscous_nm_s_rad=[0.5, 0.4, 0.3, 0.1, 0.05], offset_nm=0.0)
    m = nominal_model(youbot_model(), fr)
    m.residual_std_nm = np.full(5, 0.05)
    return m


@pytest.fixture(scope='session')
def inputs(tmp_path_factory, model):
    """(folder, model file, bag file .mcap) : the model and a bag of its torques along sines."""
    d = tmp_path_factory.mktemp('cli_inputs')
    model.save(d / 'model.yaml')
    t = np.arange(int(DURATION_S * RATE_HZ)) / RATE_HZ
    amp = np.array([0.6, 0.4, 0.5, 0.6, 0.8])
    w = 2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45])
    Q = BENT + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    rng = np.random.default_rng(0)
    E = np.array([model.torque(Q[k], QD[k], QDD[k]) for k in range(len(t))])
    E += 0.05 * rng.standard_normal(E.shape)
    S = (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)
    names = list(model.joint_names)
    with BagWriter(d / 'in_folder') as bw:
        for k in range(len(t)):
            bw.write('/joint_states', S[k], bw.joint_state(S[k], names, Q[k], QD[k], E[k]))
    bag = d / 'in.mcap'
    # a single-file bag, whatever BagWriter makes of a name
    (d / 'in_folder' / 'in_folder.mcap').rename(bag)
    shutil.rmtree(d / 'in_folder')
    return d, d / 'model.yaml', bag
