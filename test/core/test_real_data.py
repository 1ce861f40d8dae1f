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

# the settings the benchmark reports (benchmarks/bench_identification_real_data.py): OLS on the
# torque as recorded; velocity = the logged velocity and acceleration = its derivative, both
# Savitzky-Golay at 5 Hz (the trajectory's highest harmonic is 0.375 Hz; at 10 Hz the acceleration
# noise cost 1.45 % instead of 0.98 %); 0.7 s trimmed at each end (the 0.5 s ramps of the
# generator). The comparable figure is relative_error_filtered: ||tau_f - Y theta|| / ||tau_f||
# over all 7 joints and all 19,600 samples of the fitted window (0.7 .. 20.3 s), tau_f = the
# recorded effort low-passed at 10 Hz (zero-phase Butterworth, order 4 forward-backward, applied to
# that window), hence torque_cutoff_hz=10 given explicitly.
PANDA_OPTIONS = dict(weighting='ols', velocity_source='measured', trim_s=0.7,
                     derivative_method='savgol', cutoff_hz=5.0, torque_cutoff_hz=10.0)
# the former setting (savgol at the default 10 Hz): 1.45 % filtered, 2.89 % raw
PANDA_OPTIONS_10HZ = dict(weighting='ols', velocity_source='measured', trim_s=0.7)
LWR_OPTIONS = dict()


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
    runs = [read_joint_states(d / f'measurements_{i}', robot.joint_names) for i in (1, 2)]
    return robot, runs


def test_lwr4_train_run1_validate_run2_beats_published(lwr):
    robot, (run1, run2) = lwr
    res = identify(robot, [run1], options=IdentificationOptions(**LWR_OPTIONS))
    assert res.dynamics.base.n_base == 64
    v = validate(res.model, run2)
    assert v.metrics['relative_error'] < 0.9 * LWR_PUBLISHED, v.metrics['relative_error']


@pytest.fixture(scope='module')
def panda():
    d = DATA / 'panda_gaz2019' / 'excitation_trajectory_1'
    if not d.is_dir():
        pytest.skip(f'{d} not present')
    robot = RobotModel(_erd_panda(), [f'panda_joint{i}' for i in range(1, 8)])
    s = read_joint_states(d, robot.joint_names)
    res = identify(robot, [s], options=IdentificationOptions(**PANDA_OPTIONS))
    return robot, res


def test_panda_fit_64_coefficients_and_error(panda):
    robot, res = panda
    # 43 base + 21 friction (fv, fc, fo per joint), as in the paper
    assert res.dynamics.base.n_base == 64
    m = res.fit_metrics
    assert m['filter_hz'] == 10.0 and m['samples'] == 19600
    # regression bounds on what this implementation reaches (0.98 % vs effort low-passed at 10 Hz,
    # 2.72 % raw)
    assert m['relative_error_filtered'] < 0.0105
    assert m['relative_error'] < 0.0280


def test_panda_beats_published(panda):
    # 0.98 % (effort low-passed at 10 Hz, all samples of the 0.7..20.3 s window) vs the published
    # 1.41 %
    robot, res = panda
    assert res.fit_metrics['relative_error_filtered'] < PANDA_PUBLISHED
