# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Residual statistics learnt from contact-free data: the fit, its refusals and the file.

The arm is the youBot with friction (``youbot``); the model given to the estimator is its URDF
alone (no friction, no residual statistics), as ``robot-id model`` makes it: the unmodelled
friction is an error that grows with the joints' speed, which a calibration must learn.
"""
import numpy as np
import pytest
from estimate_cases import BENT, measured, stamps, trajectory

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.estimate.calibration import CalibrationError, calibrate
from robot_id_ros.io.calibration_file import CalibrationFileError, load_calibration
from robot_id_ros.io.model_file import nominal_model

AMP = np.array([0.3, 0.25, 0.3, 0.3, 0.3])
FREQ = np.array([0.21, 0.17, 0.13, 0.23, 0.19])
NOISE_NM = 0.02


@pytest.fixture(scope='module')
def urdf_only(youbot):
    return nominal_model(youbot.robot)


def run(truth, model, seconds, F=None, seed=0, calibration=None, phase_s=0.0):
    """The estimator over a motion of the true arm; returns (stamps, result, measured, qd)."""
    t, Q, QD, QDD = trajectory(BENT, seconds + phase_s, AMP, FREQ)
    k = t >= phase_s
    t, Q, QD, QDD = t[k] - phase_s, Q[k], QD[k], QDD[k]
    F = np.zeros((len(t), 6)) if F is None else F(t)
    E = measured(truth, Q, QD, QDD, F, noise_nm=NOISE_NM, seed=seed)
    S = stamps(t)
    est = WrenchEstimator(model, EstimatorConfig(), calibration)
    return S, est, est.process(S, Q, QD, E), E, QD


def fit(est, S, res, E, QD, start_s=1.0):
    """Calibrate on the samples after ``start_s`` (the observer settled), as robot-id calibrate."""
    k = (S - S[0]) * 1e-9 >= start_s
    c = est.config
    return calibrate(S[k], res.tau_ext[k], res.tau_ext[k] + E[k], QD[k], est.model.joint_names,
                     c.method, c.observer_gain_hz, c.contact_threshold_sigma,
                     c.contact_threshold_sigma * est.statistics.std_nm, 'test')


def test_a_calibration_learns_unmodelled_friction_and_keeps_contacts_visible(youbot, urdf_only):
    """Calibrated on contact-free motion, the URDF-only model flags no contact in another
    contact-free motion, flags a 15 N push within 50 ms, and its sigma covers its error."""
    S, est, res, E, QD = run(youbot, urdf_only, 12.0)
    assert est.statistics.fallback and 'fallback' in est.statistics.source
    cal = fit(est, S, res, E, QD)
    # the friction the model lacks (0.5 Nm Coulomb on the first joints) is learnt, and the
    # thresholds it raises are named
    assert np.all(np.sqrt(cal.std_nm ** 2 + (cal.speed_error_nm_s_rad * 0.3) ** 2)[:3] > 0.25)
    assert all(any(n in note for note in cal.notes) for n in urdf_only.joint_names[:3])
    _, est2, free, _, _ = run(youbot, urdf_only, 10.0, seed=1, calibration=cal, phase_s=3.0)
    assert not est2.statistics.fallback and est2.statistics.source.startswith('calibration')
    assert np.mean(free.contact_state[200:] > 0) < 0.01
    sd, err = free.wrench_std[200:, :3], free.wrench[200:, :3]
    assert np.mean(np.abs(err) <= 2.0 * sd) >= 0.9

    def push(t):
        F = np.zeros((len(t), 6))
        F[t >= 6.0, 2] = -15.0
        return F
    S3, _, pushed, _, _ = run(youbot, urdf_only, 8.0, F=push, seed=2, calibration=cal,
                              phase_s=3.0)
    t3 = (S3 - S3[0]) * 1e-9
    assert not pushed.contact_state[(t3 > 1.0) & (t3 < 6.0)].any()
    first = t3[np.argmax((pushed.contact_state > 0) & (t3 >= 6.0))]
    assert 6.0 <= first < 6.05


def test_a_stretch_with_a_push_is_refused(youbot, urdf_only):
    """A push over a third of the stretch, or all of it (a steady contact), is not learnt as
    noise: calibrating on it would raise the thresholds and hide contacts."""
    def push(t):
        F = np.zeros((len(t), 6))
        F[(t > 4.0) & (t < 7.0), 2] = -10.0
        return F
    S, est, res, E, QD = run(youbot, urdf_only, 10.0, F=push)
    with pytest.raises(CalibrationError, match='steady contact|holds a contact'):
        fit(est, S, res, E, QD)
    S, est, res, E, QD = run(youbot, urdf_only, 10.0, F=lambda t: np.tile(
        [0.0, 0.0, -20.0, 0.0, 0.0, 0.0], (len(t), 1)))
    with pytest.raises(CalibrationError, match='steady contact|holds a contact'):
        fit(est, S, res, E, QD)


def test_a_short_stretch_is_refused(youbot, urdf_only):
    S, est, res, E, QD = run(youbot, urdf_only, 1.3)
    with pytest.raises(CalibrationError, match='at least'):
        fit(est, S, res, E, QD)


def test_the_file_keeps_the_statistics_for_its_estimator_only(youbot, urdf_only, tmp_path):
    S, est, res, E, QD = run(youbot, urdf_only, 6.0)
    cal = fit(est, S, res, E, QD)
    cal.save(tmp_path / 'cal.yaml')
    back = load_calibration(tmp_path / 'cal.yaml')
    for name in ('mean_nm', 'std_nm', 'model_relative_error', 'speed_error_nm_s_rad'):
        np.testing.assert_allclose(getattr(back, name), getattr(cal, name), rtol=1e-12)
    est = WrenchEstimator(urdf_only, EstimatorConfig(), back)
    np.testing.assert_allclose(est.bias, cal.mean_nm)       # the mean, taken as a tare
    est.clear_tare()
    np.testing.assert_allclose(est.bias, cal.mean_nm)
    with pytest.raises(CalibrationFileError, match='calibrate again with these settings'):
        WrenchEstimator(urdf_only, EstimatorConfig(observer_gain_hz=20.0), back)
    back.joint_names = ('a', 'b', 'c', 'd', 'e')
    with pytest.raises(CalibrationFileError, match='calibrate this model'):
        WrenchEstimator(urdf_only, EstimatorConfig(), back)
    (tmp_path / 'model.yaml').write_text('kind: robot_id_ros/model\n')
    with pytest.raises(CalibrationFileError, match='not a residual calibration file'):
        load_calibration(tmp_path / 'model.yaml')
    (tmp_path / 'broken.yaml').write_text(
        (tmp_path / 'cal.yaml').read_text().replace('std_nm: ', 'std_nm: -'))
    with pytest.raises(CalibrationFileError, match='malformed'):
        load_calibration(tmp_path / 'broken.yaml')
