# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id validate (issue 13 item 7): ``--effort-unit torque`` is honoured on a model identified
from motor currents; the "as recorded" relative error compares the effort as recorded, at the
recorded samples (jittered stamps, not a spline-resampled copy), also when the model was
identified with the torque filter."""
import copy
import json

import numpy as np
import pytest

from robot_id_ros.cli.main import main
from robot_id_ros.identify import IdentificationOptions
from robot_id_ros.io.bags import BagWriter

GAINS_NM_PER_A = [2.5, 3.0, 1.5, 0.8, 0.6]
RATE_HZ = 200.0
NOISE_NM = 0.3


def _validate(capsys, *argv):
    assert main(['validate', *map(str, argv), '--json']) == 0
    return json.loads(capsys.readouterr().out)


def _save(model, path, **options):
    m = copy.deepcopy(model)
    opts = IdentificationOptions(**options)
    m.identification = {'method': 'test', 'options': opts.to_dict()}
    if opts.effort_unit == 'current':
        m.drive_gains_nm_per_a = np.array(GAINS_NM_PER_A)
    m.save(path)
    return path


def test_effort_unit_torque_on_a_model_from_currents(inputs, model, tmp_path, capsys):
    _, _, bag = inputs                       # torques of the model + 0.05 Nm noise
    plain = _save(model, tmp_path / 'torque.yaml')
    from_currents = _save(model, tmp_path / 'current.yaml', effort_unit='current',
                          drive_gains_nm_per_a=GAINS_NM_PER_A)
    ref = _validate(capsys, '--model', plain, '--data', bag)
    as_torque = _validate(capsys, '--model', from_currents, '--data', bag, '--effort-unit',
                          'torque')
    assert as_torque['relative_error'] == pytest.approx(ref['relative_error'], rel=1e-9)
    assert as_torque['relative_error'] < 0.05
    assert as_torque['effort_unit'] == 'torque'
    # without the flag the model's unit applies: the recorded torque read as currents is wrong
    as_current = _validate(capsys, '--model', from_currents, '--data', bag)
    assert as_current['effort_unit'] == 'current' and as_current['relative_error'] > 0.3


@pytest.fixture(scope='module')
def jittered(model, tmp_path_factory):
    """(bag, noise-free torque, recorded torque, stamps) of the model along sines, 2 ms jitter."""
    rng = np.random.default_rng(21)
    N = int(6.0 * RATE_HZ)
    t = np.arange(N) / RATE_HZ + rng.uniform(-2e-3, 2e-3, N)
    t[0] = 0.0
    bent = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])
    amp = np.array([0.6, 0.4, 0.5, 0.6, 0.8])
    w = 2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45])
    Q = bent + amp * np.sin(w * t[:, None])
    QD = amp * w * np.cos(w * t[:, None])
    QDD = -amp * w ** 2 * np.sin(w * t[:, None])
    clean = np.array([model.torque(Q[k], QD[k], QDD[k]) for k in range(N)])
    E = clean + NOISE_NM * rng.standard_normal(clean.shape)
    S = 1_700_000_000 * 10 ** 9 + np.round(t * 1e9).astype(np.int64)
    bag = tmp_path_factory.mktemp('jitter') / 'jitter.mcap'
    names = list(model.joint_names)
    with BagWriter(bag) as bw:
        for k in range(N):
            bw.write('/joint_states', S[k], bw.joint_state(S[k], names, Q[k], QD[k], E[k]))
    return bag, clean, E, t


@pytest.mark.parametrize('torque_filter', [False, True])
def test_as_recorded_error_is_on_the_recorded_effort(jittered, model, tmp_path, capsys,
                                                     torque_filter):
    bag, clean, E, t = jittered
    m = _save(model, tmp_path / 'model.yaml', torque_filter=torque_filter,
              derivative_method='savgol', cutoff_hz=5.0)
    r = _validate(capsys, '--model', m, '--data', bag, '--filter-hz', 5)
    span = (t >= 1 / 5.0 - 2e-3) & (t <= t[-1] - 1 / 5.0 + 2e-3)   # ends trimmed (1/cut-off)
    # the model is the truth: the as-recorded error is the recorded noise against the recorded
    # effort, no less (a filtered or resampled copy of the effort loses part of the noise)
    floor = np.linalg.norm(E[span] - clean[span]) / np.linalg.norm(E[span])
    assert floor * 0.97 < r['relative_error'] < floor * 1.05, (r['relative_error'], floor)
    per_joint = np.sqrt(np.mean((E[span] - clean[span]) ** 2, axis=0))
    np.testing.assert_allclose(r['rmse_nm'], per_joint, rtol=0.05)
    # the filtered figure: the effort low-passed at 5 Hz leaves little of the noise
    assert r['relative_error_filtered'] < 0.5 * floor
    # the samples compared are the recorded ones within the processed span
    assert abs(r['samples'] - span.sum()) <= 6
