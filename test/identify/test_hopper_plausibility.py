# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identification on a real leg's few contact-free seconds (../shared/data/hopper_mim).

The ODRI hopper leg (2 joints, 1 kHz, no velocity in the bag) is in contact with its force sensor
for 20 of 23 s; the rest is 0.8 s at rest, 1.6 s at the end and six lift-offs of 57-107 ms. Its
model comes from the fixed-base URDF, while the leg hangs from a vertical slider the URDF
leaves out. Identifying from those seconds used to end in a traceback (``--prior-weight 1``) or
write, without a word, a rotor inertia of -0.09 kg m^2 and offsets far beyond the recorded
torque. Contact-free: |F_xz| of the force sensor at most 2 N (the data's README).
"""
from pathlib import Path

import numpy as np
import pytest

from robot_id_ros.cli.main import main
from robot_id_ros.identify import IdentificationOptions, identify
from robot_id_ros.identify.consistency import typical_parameter_size
from robot_id_ros.io.bags import BagWriter, read_joint_states
from robot_id_ros.io.model_file import load_model
from robot_id_ros.model.robot import RobotModel

DATA = Path(__file__).resolve().parents[2].parent / 'shared' / 'data' / 'hopper_mim'
URDF = DATA / 'teststand_fixed_hip.urdf'
CONTACT_N = 2.0              # the data README's contact threshold on |F_xz|
MIN_STRETCH_SAMPLES = 50     # the lift-offs last 57-107 ms at 1 kHz


@pytest.fixture(scope='module')
def hopper():
    """(robot, run, contact-free mask) of hopper_run_1."""
    if not DATA.is_dir():
        pytest.skip(f'{DATA} not present')
    robot = RobotModel(URDF, None, 'contact')
    run = read_joint_states(DATA / 'hopper_run_1', robot.joint_names)
    csv = DATA / 'hopper_run_1_ati_force.csv'
    stamps = np.loadtxt(csv, delimiter=',', skiprows=1, usecols=0, dtype=np.int64)
    force = np.loadtxt(csv, delimiter=',', skiprows=1, usecols=(1, 3))
    assert np.array_equal(stamps, run.stamp_ns)
    return robot, run, np.linalg.norm(force, axis=1) <= CONTACT_N


def _stretches(run, free):
    """The contact-free stretches of at least ``MIN_STRETCH_SAMPLES``, one series each."""
    edges = np.diff(np.r_[0, free.astype(int), 0])
    out = []
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
        if b - a >= MIN_STRETCH_SAMPLES:
            s = run.select(np.arange(a, b))
            s.source = f'contact-free {a}-{b}'
            out.append(s)
    return out


def test_prior_weight_on_the_contact_free_samples_makes_a_model(hopper, tmp_path, capsys):
    """``identify --prior-weight 1`` on a bag of the contact-free samples: a LinAlgError
    traceback before; now a model, the summary saying what its plausibility check did."""
    robot, run, free = hopper
    bag = tmp_path / 'free.mcap'
    with BagWriter(bag) as bw:
        for k in np.flatnonzero(free):
            bw.write('/joint_states', run.stamp_ns[k],
                     bw.joint_state(run.stamp_ns[k], robot.joint_names, run.q[k], (),
                                    run.effort[k]))
    out = tmp_path / 'm.yaml'
    rc = main(['identify', '--urdf', str(URDF), '--tool-frame', 'contact', '--data', str(bag),
               '--out', str(out), '--prior-weight', '1'])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert 'Traceback' not in cap.err and 'plausibility:' in cap.out
    model = load_model(out)
    action = model.identification['plausibility']['action']
    assert action in ('accepted', 'fallback', 'adjusted')
    assert np.all(model.parameters[0:10 * robot.n:10] > 0)


def test_the_contact_free_stretches_fit_is_replaced_by_a_physical_one(hopper):
    robot, run, free = hopper
    pieces = _stretches(run, free)
    assert len(pieces) >= 8
    # the options a search on blocks of these stretches chose (a rich friction law): the fit
    # this test judges, fixed so that it does not follow the search
    res = identify(robot, pieces, options=IdentificationOptions(
        cutoff_hz=50.0, trim_s=0.01, auto_options=False, weighting='ols', rotor_inertia=True,
        stribeck_column=True, sign_velocity_rad_s=0.1, presliding_rad=0.004))
    dyn, pl, m = res.dynamics, res.plausibility, res.model
    names = list(dyn.regressor.names)
    kinds = {(f.kind, f.parameter) for f in pl.findings}
    # what the least-squares fit made of these seconds, and what the check says of it
    assert res.options.rotor_inertia and dyn.theta[names.index('Ia2')] < 0
    assert ('negative', 'Ia2') in kinds
    assert {('offset', 'fo1'), ('offset', 'fo2')} <= kinds
    assert any(k == 'unrealisable' for k, _ in kinds)
    assert pl.action == 'fallback'
    # the model written: no negative rotor inertia, offsets within the recorded torque ...
    tau_max = np.max([np.abs(tr.tau).max(axis=0) for tr in res.trajectories], axis=0)
    assert np.allclose(pl.offset_max_nm, tau_max)
    for j in range(robot.n):
        assert m.parameters[names.index(f'Ia{j + 1}')] >= -1e-9
        assert abs(m.parameters[names.index(f'fo{j + 1}')]) <= tau_max[j] + 1e-6
        assert abs(dyn.theta[names.index(f'fo{j + 1}')]) > tau_max[j]
    # ... and no inertial parameter far from the URDF, where the fit's went dozens of typical
    # sizes away (a first moment of 1 kg m on a 0.15 kg link)
    n_inertial = dyn.regressor.n_inertial
    size = typical_parameter_size(dyn.theta_reference, robot.n, len(names), n_inertial)
    size = size[:n_inertial]
    ref = dyn.theta_reference[:n_inertial]
    assert np.max(np.abs(dyn.theta[:n_inertial] - ref) / size) > 30
    assert np.max(np.abs(m.parameters[:n_inertial] - ref) / size) < 3
