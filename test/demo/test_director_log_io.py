# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The director's log saved by the demo reads back for re-analysis (bench_sigma_calibration)."""
import numpy as np

from robot_id_ros.demo import report
from robot_id_ros.demo import results as R
from robot_id_ros.demo.director import DirectorLog


def test_saved_director_log_reads_back_and_gives_the_same_scenario(tmp_path):
    log = DirectorLog(true_t_s=[0.0, 1.0, 2.0, 3.0],
                      true_force_n=[[0, 0, 0], [5.0, 0, 0], [5.0, 0, 0], [0, 0, 0]],
                      est_t_s=[0.5, 1.5], est_force_n=[[0, 0, 0], [4.9, 0, 0]],
                      contact_t_s=[1.5], contact=[True], tare_events=[(0.2, 'tare')],
                      phases=[R.Phase('rest', 0.5, 2.5, 'rest pose 1'),
                              R.Phase('motion_free', 2.5, 4.0, 'contact-free motion')])
    path = tmp_path / 'force_script_log.json'
    report.save_director_log(log, path)
    back = report.load_director_log(path)
    assert back.phases == log.phases
    assert [tuple(e) for e in back.tare_events] == log.tare_events
    a, b = report.force_scenario(log), report.force_scenario(back)
    np.testing.assert_array_equal(a.timeline.t_s, b.timeline.t_s)
    np.testing.assert_array_equal(a.timeline.force_n, b.timeline.force_n)
    assert a.all_phases == b.all_phases and a.free == b.free and a.onsets_s == b.onsets_s


def test_sigma_calibration_names_each_phase_window():
    t = np.arange(0.0, 2.0, 0.01)
    tl = R.timeline_from_samples([0.0], [[0.0, 0.0, 0.0]])
    cal = R.sigma_calibration(t, np.zeros((len(t), 3)), np.ones((len(t), 3)), tl,
                              [R.Phase('rest', 0.5, 1.5, 'rest pose 1')])
    assert (cal[0]['t0_s'], cal[0]['t1_s'], cal[0]['samples']) == (0.5, 1.5, 100)
