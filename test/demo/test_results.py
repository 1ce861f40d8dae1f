# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's figures (robot_id_ros.demo.results) on constructed data with known answers."""
import numpy as np

from robot_id_ros.demo import results as R


def _timeline():
    # 0-1 s: no force; 1-3 s: (0, 5, 0) N; 3-4 s: none
    return R.ForceTimeline(np.array([0.0, 1.0, 3.0]), np.array([[0, 0, 0], [0, 5.0, 0], [0, 0,
                                                                                         0]]))


def test_force_errors_leave_out_the_transient_and_split_rest_and_motion():
    t = np.arange(0, 4, 0.005)
    tl = _timeline()
    est = tl.at(t) + np.array([0.3, 0.0, 0.4])            # 0.5 N off everywhere ...
    est[(t >= 1.0) & (t < 1.25)] = 0.0                    # ... and 5 N off during the transient
    phases = [R.Phase('rest', 0.0, 2.0), R.Phase('motion', 2.0, 4.0)]
    e = R.force_errors(t, est, tl, phases)
    assert abs(e.rms_rest_n - 0.5) < 1e-9 and abs(e.rms_motion_n - 0.5) < 1e-9
    assert e.rms_rest_all_n > 1.0                         # with the transient included


def test_rest_error_split_along_joint_1_and_in_plane():
    """An error of 3 N along joint 1's force direction and 4 N across it: split 4 / 3."""
    t = np.arange(0, 4, 0.005)
    tl = _timeline()
    n = np.array([0.6, 0.8, 0.0])                         # joint 1's direction (any length below)
    across = np.array([0.0, 0.0, 1.0])
    est = tl.at(t) + 3.0 * n + 4.0 * across
    dirs = np.tile(0.25 * n, (len(t), 1))
    in_plane, normal = R.rest_error_split(t, est, tl, [R.Phase('rest', 0.0, 4.0)], dirs)
    assert abs(in_plane - 4.0) < 1e-9 and abs(normal - 3.0) < 1e-9
    assert np.isnan(R.rest_error_split(t, est, tl, [R.Phase('motion', 0.0, 4.0)], dirs)[0])


def test_detection_delays_and_false_contacts():
    t = np.arange(0, 4, 0.005)
    contact = (t >= 1.02) & (t < 3.0)
    assert R.detection_delays(t, contact, [1.0])[0] == np.float64(t[t >= 1.02][0] - 1.0)
    assert np.isnan(R.detection_delays(t, contact, [3.5])[0])
    assert R.false_contacts(t, contact, [(0.0, 1.0), (3.0, 4.0)]) == (0, 400)
    assert R.false_contacts(t, contact, [(2.0, 2.5)])[0] == 100


def test_contact_published_on_change_gives_the_same_figures_as_per_sample():
    """The node publishes its flag on change (and re-publishes it now and then): the flag at
    each sample, rebuilt from the changes, gives the per-sample figures exactly."""
    t = np.arange(0, 4, 0.005)
    contact = (t >= 1.02) & (t < 3.0) | (t >= 3.5) & (t < 3.52)
    change = np.r_[True, contact[1:] != contact[:-1]]
    ft, fl = list(t[change]), list(contact[change])
    ft += [2.0, 2.0]                      # re-published flags, received late, with older stamps
    fl += [True, True]
    rebuilt = R.contact_at(t, ft, fl)
    np.testing.assert_array_equal(rebuilt, contact)
    assert R.false_contacts(t, rebuilt, [(3.0, 4.0)]) == R.false_contacts(t, contact, [(3.0, 4.0)])
    assert not R.contact_at(t, [], []).any()


def test_force_rms_in_windows():
    t = np.arange(0, 4, 0.005)
    tl = _timeline()
    est = tl.at(t) + np.where((t >= 0.5)[:, None], [0.0, 0.0, 0.2], [0.0, 0.0, 1.0])
    assert abs(R.force_rms_in(t, est, tl, [(0.0, 0.5)]) - 1.0) < 1e-9
    assert abs(R.force_rms_in(t, est, tl, [(0.5, 1.0), (2.0, 4.0)]) - 0.2) < 1e-9
    assert np.isnan(R.force_rms_in(t, est, tl, [(5.0, 6.0)]))


def test_contact_signal_is_the_noise_free_score_of_the_true_torque():
    from robot_id_ros.estimate import ContactDetector

    t = np.arange(0, 1, 0.005)
    tau = np.zeros((len(t), 2))
    tau[t >= 0.5, 0] = 0.3                       # 0.3 Nm on joint 1 from 0.5 s on
    det = ContactDetector([0.1, 0.1], [0.5, 0.5], test='combined', contact_sigma=5.0,
                          collision_sigma=25.0)
    ratio = R.contact_signal(t, tau, det, [0.5, 0.2])
    assert abs(ratio[0] - 3.0) < 1e-9             # 0.3 Nm against a 0.1 Nm threshold
    assert ratio[1] == 0.0                        # nothing in the 50 ms after 0.2 s


def test_sigma_calibration_per_phase_and_axis():
    """Errors of known size against the published std: x always 1 std off, y 3 std off in 10 of
    400 samples and exact otherwise, z 2 std off (exactly on the 2-sigma bound, counted in)."""
    t = np.arange(0, 4, 0.005)
    tl = _timeline()
    err = np.zeros((len(t), 3))
    err[:, 0] = np.where(np.arange(len(t)) % 2 == 0, 1.0, -1.0)
    err[100:110, 1] = 3.0                                # inside the first phase
    err[:, 2] = 0.5
    std = np.tile([1.0, 1.0, 0.25], (len(t), 1))
    phases = [R.Phase('rest', 0.0, 2.0, 'rest pose 1'), R.Phase('motion', 2.0, 4.0),
              R.Phase('rest', 5.0, 6.0)]                 # no samples: left out
    cal = R.sigma_calibration(t, tl.at(t) + err, std, tl, phases)
    assert [c['phase'] for c in cal] == ['rest pose 1', 'motion']
    first, second = cal
    assert first['samples'] == 400 and first['kind'] == 'rest'
    np.testing.assert_allclose(first['coverage_2sigma'], [1.0, 0.975, 1.0])
    np.testing.assert_allclose(first['rms_z'], [1.0, np.sqrt(10 * 9 / 400), 2.0])
    np.testing.assert_allclose(first['p99_z'], [1.0, 3.0, 2.0])
    np.testing.assert_allclose(second['rms_z'], [1.0, 0.0, 2.0])
    np.testing.assert_allclose(second['coverage_2sigma'], [1.0, 1.0, 1.0])


def test_contacts_right_after_samples_a_recorder_lost_are_not_counted():
    """A replay's residual jumps after a gap in the recording (samples lost under load), which
    the live estimator never saw: those samples are left out of the false-contact count, only
    for the settling time after the gap."""
    t = np.arange(0.0, 4.0, 0.005)
    t = np.concatenate([t[t < 2.0], t[t >= 2.065]])          # 13 samples lost at 2 s
    contact = (t >= 2.065) & (t < 2.085)                      # the replay's transient
    contact |= (t >= 3.0) & (t < 3.01)                        # a flag far from the gap
    assert R.false_contacts(t, contact, [(0.0, 4.0)])[0] == 6
    flagged, counted = R.false_contacts(t, contact, [(0.0, 4.0)], settle_s=0.08)
    assert flagged == 2
    assert counted == len(t) - np.sum((t > 2.0) & (t <= 2.065 + 0.08))
    assert not R.after_gaps(np.arange(0.0, 1.0, 0.005), 0.08).any()   # no gap, nothing left out
