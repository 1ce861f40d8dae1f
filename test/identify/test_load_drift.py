# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Load-dependent Coulomb friction and friction drift: recovered, chosen only when present.

A perturbed youBot with Coulomb friction that grows with the link torque, or friction that falls
within each run (a warm-up), or neither (``drive_effects.FrictionEffects``): two runs of an 8 s
Fourier excitation, 3 periods each, torque noise of known std.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_identification import FRICTION, SIGMA, fourier_trajectory, perturbed  # noqa: E402

from robot_id_ros.estimate.friction_change import FrictionChange  # noqa: E402
from robot_id_ros.identify import IdentificationError, IdentificationOptions, identify  # noqa
from robot_id_ros.io.bags import JointStateSeries  # noqa: E402
from robot_id_ros.io.model_file import load_model  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from robot_id_ros.sim.drive_effects import FrictionEffects, joint_friction  # noqa: E402

LOAD_PER_NM = 0.1
DRIFT = FrictionEffects(drift_fraction=0.4, drift_time_constant_s=30.0)
# joints 2-4 carry gravity torques of several Nm (joint 1's axis is vertical, joint 5's load
# is small): the load coefficient is judged there
LOADED_JOINTS = [1, 2, 3]


def runs(effects, seed=3, count=2):
    """Return (robot, runs, last time s of each run): the youBot's truth under ``effects``."""
    rng = np.random.default_rng(seed)
    robot = youbot_model()
    truth = perturbed(robot, rng)
    out = []
    for k in range(count):
        t, Q, QD, QDD = fourier_trajectory(robot, rng, period_s=8.0, periods=3)
        link = np.array([truth.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
        effort = link + joint_friction(FRICTION, Q, QD, t, link, effects)
        effort += rng.normal(size=effort.shape) * SIGMA
        stamps = 1_700_000_000_000_000_000 + np.round(t * 1e9).astype(np.int64)
        out.append(JointStateSeries(truth.joint_names, stamps, np.round(Q / 1e-5) * 1e-5,
                                    QD.copy(), effort, f'run{k}'))
    return robot, out, t[-1]


def chosen(res):
    o = res.selection.options
    return o.load_coulomb, o.friction_drift


@pytest.fixture(scope='module')
def loaded():
    robot, data, _ = runs(FrictionEffects(load_coulomb_per_nm=LOAD_PER_NM))
    return robot, data


def test_load_coefficient_recovered_with_the_column(loaded):
    robot, data = loaded
    res = identify(robot, data, options=IdentificationOptions(auto_options=False,
                                                              load_coulomb=True))
    f = res.model.friction
    np.testing.assert_allclose(f.load_coulomb_per_nm[LOADED_JOINTS], LOAD_PER_NM, atol=0.01)
    # with the load term the Coulomb friction is the unloaded one again
    np.testing.assert_allclose(f.coulomb_pos_nm, FRICTION.coulomb_pos_nm, atol=0.02)
    assert any('load-dependent Coulomb' in line for line in res.summary_lines)


def test_search_chooses_the_load_column(loaded):
    robot, data = loaded
    res = identify(robot, data)
    assert chosen(res) == (True, False)
    np.testing.assert_allclose(res.model.friction.load_coulomb_per_nm[LOADED_JOINTS],
                               LOAD_PER_NM, atol=0.01)


def test_search_chooses_the_drift_and_recovers_it(tmp_path):
    robot, data, t_end = runs(DRIFT)
    res = identify(robot, data)
    assert chosen(res) == (False, True)
    f = res.model.friction
    end = DRIFT.drift(np.array([t_end]))[0, 0]
    mean = np.mean(DRIFT.drift(np.linspace(0.0, t_end, 1001))[:, 0])
    # the model holds the runs' mean friction, the drift is start minus end; a line through
    # the exponential warm-up gets the change within 20 %
    np.testing.assert_allclose(f.coulomb_pos_nm, FRICTION.coulomb_pos_nm * mean, rtol=0.1)
    np.testing.assert_allclose(f.coulomb_drift_nm, FRICTION.coulomb_pos_nm * (1 - end),
                               rtol=0.2)
    assert any('friction drift within the recordings' in line and 'mean friction' in line
               for line in res.summary_lines)
    # the model file carries the drift; the estimator's law is the mean's
    res.model.save(tmp_path / 'm.yaml')
    back = load_model(tmp_path / 'm.yaml')
    np.testing.assert_allclose(back.friction.coulomb_drift_nm, f.coulomb_drift_nm)
    np.testing.assert_allclose(back.friction.torque(np.full(5, 0.5)), f.torque(np.full(5, 0.5)))


def test_search_keeps_the_simpler_model_without_either(tmp_path):
    robot, data, _ = runs(None)
    res = identify(robot, data)
    assert chosen(res) == (False, False)
    # a model without the terms writes none of their keys (files as before) and reads back 0
    res.model.save(tmp_path / 'm.yaml')
    text = (tmp_path / 'm.yaml').read_text()
    assert 'load_coulomb_per_nm' not in text and 'coulomb_drift_nm' not in text
    back = load_model(tmp_path / 'm.yaml')
    assert not back.friction.has_load_coulomb and not back.friction.has_drift


def test_bad_input(loaded):
    robot, data = loaded
    with pytest.raises(IdentificationError, match='load_coulomb needs friction'):
        identify(robot, data, options=IdentificationOptions(auto_options=False, friction=False,
                                                            load_coulomb=True))
    with pytest.raises(IdentificationError, match='drive gains'):
        IdentificationOptions(load_coulomb=True, effort_unit='current').validated()


def test_friction_change_reads_warmer_or_colder():
    def change(pos, neg):
        return FrictionChange('j', {'coulomb_pos_nm': pos, 'coulomb_neg_nm': neg,
                                    'viscous_nm_s_rad': 0.0, 'offset_nm': 0.0}, 1.0, 0.1, 0.0)
    assert 'warmer (or the load lighter)' in change(-0.05, -0.04).line()
    assert 'colder (or the load heavier)' in change(0.05, 0.04).line()
    assert 'warmer' not in change(0.05, -0.04).line()
