# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identification on real robot data (../shared/data): Franka Panda (Gaz et al. 2019) and KUKA
LWR4+ (FloBaRoID), compared with their published figures."""
from pathlib import Path

import pytest

from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.identify import IdentificationOptions, identify, validate
from robot_id_ros.model.robot import RobotModel

DATA = Path(__file__).resolve().parents[2].parent / 'shared' / 'data'
PANDA_PUBLISHED = 0.0141     # Gaz 2019 supplement: relative error of the least-squares fit
LWR_PUBLISHED = 0.0281       # FloBaRoID tutorial: relative validation error

# Every processing option is chosen by cross-validation on the training run
# (identify/selection.py): no tuned options. The comparable Panda figure is
# relative_error_filtered: ||tau_f - Y theta|| / ||tau_f|| over all 7 joints and all samples of
# the fitted window, tau_f = the recorded effort low-passed at 10 Hz (zero-phase Butterworth,
# order 4 forward-backward), hence torque_cutoff_hz=10 given explicitly (a figure's filter, not a
# processing option). Issue 13 targets: Panda <= 1.2 % (effort low-passed at >= 5 Hz) and
# <= 2.9 % raw; LWR4+ trained on run 1: <= 2.1 % on run 2 and <= 6 % on run 3.
# benchmarks/bench_identification_defaults.py prints them.
PANDA_DEFAULTS = dict(torque_cutoff_hz=10.0)
# the former hand-tuned settings (benchmarks/bench_identification_real_data.py compares them; no
# search): OLS on the torque as recorded, the logged velocity, Savitzky-Golay at 5 Hz, 0.7 s
# trimmed at each end: 0.98 % / 2.72 %; at the default 10 Hz: 1.45 % / 2.89 %
PANDA_OPTIONS = dict(weighting='ols', velocity_source='measured', trim_s=0.7, auto_options=False,
                     derivative_method='savgol', cutoff_hz=5.0, torque_cutoff_hz=10.0)
PANDA_OPTIONS_10HZ = dict(weighting='ols', velocity_source='measured', trim_s=0.7,
                          auto_options=False)
LWR_OPTIONS = dict(auto_options=False)
# the plain textbook fit (benchmarks/bench_identification_defaults.py prints it too): positions
# low-passed at 10 Hz, central differences, Coulomb + viscous + offset, ordinary least squares
PLAIN_OPTIONS = dict(auto_options=False, derivative_method='central', cutoff_hz=10.0,
                     weighting='ols')


def _erd_panda():
    import sys
    for p in map(Path, sys.path):
        u = (p / 'cmeel.prefix' / 'share' / 'example-robot-data' / 'robots' / 'panda_description'
             / 'urdf' / 'panda.urdf')
        if u.is_file():
            return u
    pytest.skip('example-robot-data not installed')


@pytest.fixture(scope='module')
def lwr():
    d = DATA / 'kuka_lwr4_flobaroid'
    if not d.is_dir():
        pytest.skip(f'{d} not present')
    robot = RobotModel(d / 'kuka_lwr4_gaz.urdf')
    runs = [read_joint_states(d / f'measurements_{i}', robot.joint_names) for i in (1, 2, 3)]
    return robot, runs


@pytest.fixture(scope='module')
def lwr_defaults(lwr):
    """The defaults trained on run 1: (result, relative error on run 2, on run 3)."""
    robot, (run1, run2, run3) = lwr
    res = identify(robot, [run1])
    return (res, *(validate(res.model, r).metrics['relative_error'] for r in (run2, run3)))


def test_lwr4_train_run1_validate_run2_beats_published(lwr_defaults):
    res, v2, v3 = lwr_defaults
    assert res.selection is not None
    # reached with the defaults: 2.06 % on run 2 (the target 2.1 %; the published
    # figure is 2.81 %) and 4.65 % on run 3 (another trajectory, about twice as fast; target
    # 6 %). The first pass chooses physical consistency; the second chooses every other option
    # again, from its default, for the constrained fit. The presliding (Dahl) Coulomb law is
    # chosen: the recorded torque turns over with the travel after a reversal, not with the speed
    assert res.selection.options.physical_consistency
    assert any(c.pass_index == 2 for c in res.selection.candidates)
    assert res.model.friction.has_presliding
    assert v2 < 0.021 and v2 < LWR_PUBLISHED, v2
    assert v3 < 0.060, v3


def test_lwr4_defaults_beat_the_plain_fit_on_both_runs(lwr, lwr_defaults):
    # the plain fit taken as fitted (2.21 / 12.16 %). Its joint 1 takes a viscous coefficient
    # of about 1 Nm s/rad that only the slow training motion allows; run 3 moves about twice as
    # fast
    robot, (run1, run2, run3) = lwr
    _, v2, v3 = lwr_defaults
    plain = identify(robot, [run1], options=IdentificationOptions(
        **PLAIN_OPTIONS, plausibility_fallback=False)).model
    p2, p3 = (validate(plain, r).metrics['relative_error'] for r in (run2, run3))
    assert v2 < p2, (v2, p2)
    assert v3 < 0.5 * p3, (v3, p3)


@pytest.fixture(scope='module')
def panda():
    d = DATA / 'panda_gaz2019' / 'excitation_trajectory_1'
    if not d.is_dir():
        pytest.skip(f'{d} not present')
    robot = RobotModel(_erd_panda(), [f'panda_joint{i}' for i in range(1, 8)])
    s = read_joint_states(d, robot.joint_names)
    res = identify(robot, [s], options=IdentificationOptions(**PANDA_DEFAULTS))
    return robot, res


def test_panda_fit_error_with_defaults(panda):
    robot, res = panda
    # 43 inertial base parameters + friction per joint (fv, fc, fo and what the search adds)
    assert res.dynamics.base.n_base >= 64
    m = res.fit_metrics
    assert m['filter_hz'] == 10.0 and m['samples'] > 19000
    # reached with the defaults: 1.09 % vs effort low-passed at 10 Hz, 2.78 % raw (targets
    # 1.2 % / 2.9 %; the former tuned options: 0.98 % / 2.72 %)
    assert m['relative_error_filtered'] < 0.0115
    assert m['relative_error'] < 0.0285


def test_panda_beats_published(panda):
    # 1.09 % (effort low-passed at 10 Hz, all samples of the fitted window) vs the published 1.41 %
    robot, res = panda
    assert res.fit_metrics['relative_error_filtered'] < PANDA_PUBLISHED
