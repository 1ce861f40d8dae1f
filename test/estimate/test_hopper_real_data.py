# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The estimator judged by a real force sensor: the hopper leg of ../shared/data/hopper_mim.

A model from the URDF alone, velocities derived from the positions (the bag has none), as a new
user runs it: the force in contact, the published sigma, and a calibration on a contact-free
stretch (and its refusal on a stretch of contact). ``bench_hopper_force.py`` prints the figures.
"""
import csv
import sys
from pathlib import Path

import numpy as np
import pytest

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.estimate.calibration import CalibrationError, calibrate
from robot_id_ros.estimate.position_velocity import PositionVelocity
from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.robot import RobotModel

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / 'shared' / 'data' / 'hopper_mim'
sys.path.insert(0, str(ROOT / 'benchmarks'))
from bench_hopper_force import figures  # noqa: E402

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason='needs ../shared/data/hopper_mim')


@pytest.fixture(scope='module')
def hopper():
    robot = RobotModel(str(DATA / 'teststand_fixed_hip.urdf'), tool_frame='contact')
    series = read_joint_states(DATA / 'hopper_run_1', ['HFE', 'KFE'])
    with open(DATA / 'hopper_run_1_ati_force.csv') as fh:
        force = np.array([[float(r[k]) for k in ('fx_n', 'fy_n', 'fz_n')]
                          for r in csv.DictReader(fh)])
    return nominal_model(robot), series, force


def estimate(model, series, calibration=None):
    config = EstimatorConfig()
    est = WrenchEstimator(model, config, calibration)
    qd = PositionVelocity.for_config(model.n, config).series(series.stamp_ns, series.q)
    return est, qd, est.process(series.stamp_ns, series.q, qd, series.effort)


def stretch(est, series, qd, res, s0, s1):
    t = (series.stamp_ns - series.stamp_ns[0]) * 1e-9
    k = (t >= s0) & (t <= s1)
    c = est.config
    return calibrate(series.stamp_ns[k], res.tau_ext[k], res.tau_ext[k] + series.effort[k],
                     qd[k], est.model.joint_names, c.method, c.observer_gain_hz,
                     c.contact_threshold_sigma, c.contact_threshold_sigma * est.statistics.std_nm,
                     f'{s0}-{s1} s')


def test_the_urdf_only_model_reads_the_sensors_force_and_its_sigma_covers_it(hopper):
    model, series, force = hopper
    est, _, res = estimate(model, series)
    assert est.statistics.fallback
    f = figures(res.stamp_ns, res.wrench[:, :3], res.wrench_std[:, :3], res.contact_state > 0,
                force)
    # the pseudo-inverse of the source reads 1.05 / 2.74 N; the model's gravity halves x
    assert f['x'] < 0.6 and f['z'] < 3.5
    # the fallback statistics' model error makes the sigma cover the real error
    assert f['cover_contact'] > 0.85 and f['cover_free'] > 0.9
    assert f['false_ms'] < 300


def test_a_calibration_on_the_last_contact_free_second_makes_the_flag_fast(hopper):
    model, series, force = hopper
    est, qd, res = estimate(model, series)
    cal = stretch(est, series, qd, res, 21.77, 23.37)
    _, _, calibrated = estimate(model, series, cal)
    f = figures(calibrated.stamp_ns, calibrated.wrench[:, :3], calibrated.wrench_std[:, :3],
                calibrated.contact_state > 0, force)
    assert f['onset_median'] <= 50 and f['missed_ms'] <= 700
    assert f['cover_contact'] > 0.88


def test_a_stretch_of_contact_is_refused(hopper):
    """The leg pressing on the sensor for a second (5-6 s) is no calibration."""
    model, series, _ = hopper
    est, qd, res = estimate(model, series)
    with pytest.raises(CalibrationError, match='contact'):
        stretch(est, series, qd, res, 5.0, 6.0)
