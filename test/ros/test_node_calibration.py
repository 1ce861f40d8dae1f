# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What ``~/calibrate`` gathers (by the samples' stamps), and where it keeps its file."""
import numpy as np

from robot_id_ros.ros.node_calibration import CalibrationGathering, default_calibration_path

MS = 1_000_000


def gathering(duration_s=0.1, settle_ns=20 * MS, run_start_ns=None, deadline_s=100.0):
    ends = []
    return CalibrationGathering(duration_s, settle_ns, run_start_ns, deadline_s,
                                ends.append), ends


def test_gathers_the_duration_of_stamps_after_the_observer_settled():
    g, ends = gathering(run_start_ns=1000 * MS)
    for k in range(200):            # 5 ms apart from the restart on
        stamp = 1000 * MS + 5 * k * MS
        g.add(stamp, np.full(2, k), np.full(2, 10.0 + k), np.zeros(2))
    stamps, tau, model_torque, qd = g.arrays()
    assert ends == [None]                                 # finished once, with success
    assert stamps[0] == 1020 * MS                         # the settling 20 ms left out
    assert stamps[-1] - stamps[0] == 100 * MS and len(stamps) == 21
    np.testing.assert_array_equal(model_torque - tau, 10.0)
    assert tau.shape == qd.shape == (21, 2)


def test_a_gathering_without_a_known_restart_settles_from_its_first_sample():
    g, ends = gathering()
    for k in range(10):
        g.add(5000 * MS + 5 * k * MS, np.zeros(1), np.zeros(1), np.zeros(1))
    assert g.arrays()[0][0] == 5020 * MS and ends == []
    assert g.progress() == '6 samples over 0.03 of 0.1 s'


def test_a_failure_ends_it_once_and_later_samples_are_not_taken():
    g, ends = gathering(run_start_ns=0, settle_ns=0)
    g.add(1 * MS, np.zeros(1), np.zeros(1), np.zeros(1))
    g.fail('the observer was reset')
    g.fail('again')
    g.add(2 * MS, np.zeros(1), np.zeros(1), np.zeros(1))
    assert ends == ['the observer was reset'] and len(g.arrays()[0]) == 1


def test_the_deadline_fails_a_gathering_that_gets_no_samples():
    g, ends = gathering(deadline_s=50.0)
    g.check_deadline(49.0)
    assert ends == []
    g.check_deadline(51.0)
    assert len(ends) == 1 and 'did not end in time (0 samples' in ends[0]


def test_the_default_file_is_under_ros_home_named_after_the_node(tmp_path, monkeypatch):
    monkeypatch.setenv('ROS_HOME', str(tmp_path))
    assert default_calibration_path('/arm/wrench_estimator') == (
        tmp_path / 'robot_id_ros' / 'arm.wrench_estimator_calibration.yaml')
    monkeypatch.delenv('ROS_HOME')
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    assert default_calibration_path('/wrench_estimator') == (
        tmp_path / 'home' / '.ros' / 'robot_id_ros' / 'wrench_estimator_calibration.yaml')
