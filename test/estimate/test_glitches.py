# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""One glitched sample (issue 14, "from a glitch") never reaches the outputs as an absurd or NaN
value, the estimator recovers within its settling time, the contact flag keeps following the data,
and ``process`` applies the same rules as ``update``."""

import numpy as np
import pinocchio as pin
import pytest
from estimate_cases import BENT, RATE, measured, stamps, trajectory

from robot_id_ros.estimate import (CONTACT_NONE, EstimatorConfig, EstimatorInputError,
                                   WrenchEstimator)
from robot_id_ros.estimate import estimator as estimator_module
from robot_id_ros.estimate.estimator import NONFINITE_REASON
from robot_id_ros.estimate.monitor import InputMonitor

GLITCH = 200                # index of the glitched sample
SETTLE_S = 0.25             # the momentum observer (10 Hz) settles well within this after a reset
ABSURD_N = 1e3              # no output component may exceed this (N, Nm) on this data


@pytest.fixture(scope='module')
def data(youbot):
    """3 s of motion with a pulsing push on the tool (contact flag toggles): (S, Q, QD, E)."""
    t, Q, QD, QDD = trajectory(BENT, 3.0, 0.2, [0.3, 0.4, 0.5, 0.6, 0.7])
    F = np.zeros((len(t), 6))
    F[:, 2] = -15.0 * (np.sin(2 * np.pi * 1.5 * t) > 0)
    E = measured(youbot, Q, QD, QDD, F, noise_nm=0.01, seed=3)
    return stamps(t), Q, QD, E


def run(est, S, Q, QD, E):
    """update() over every sample: ({index: result}, {index: error kind})."""
    out, rejected = {}, {}
    for k in range(len(S)):
        try:
            out[k] = est.update(S[k], Q[k], QD[k], E[k])
        except EstimatorInputError as exc:
            rejected[k] = exc.kind
    return out, rejected


def assert_sane(out):
    for r in out.values():
        for x in (r.wrench, r.tau_ext, r.wrench_covariance):
            assert np.all(np.isfinite(x)) and np.abs(x).max() < ABSURD_N, x


def assert_recovers(out, ref, glitch=GLITCH):
    """Outputs equal the undisturbed run's once the settling time after the glitch is over, and
    the contact flag follows the data again (it toggles there as in the reference)."""
    after = [k for k in ref if k > glitch + SETTLE_S * RATE]
    np.testing.assert_allclose([out[k].wrench for k in after], [ref[k].wrench for k in after],
                               atol=0.05)
    states = [out[k].contact_state for k in after]
    assert states == [ref[k].contact_state for k in after] and len(set(states)) > 1


@pytest.mark.parametrize('array,column,value', [('q', 0, 1e300), ('effort', 2, 1e300),
                                                ('qd', 1, 1e200), ('effort', 4, -1e300)])
def test_absurd_finite_value_is_rejected_as_implausible(youbot, data, array, column, value):
    S, Q, QD, E = data
    ref, _ = run(WrenchEstimator(youbot), S, Q, QD, E)
    arrays = {'q': Q.copy(), 'qd': QD.copy(), 'effort': E.copy()}
    arrays[array][GLITCH, column] = value
    out, rejected = run(WrenchEstimator(youbot), S, arrays['q'], arrays['qd'], arrays['effort'])
    assert rejected == {GLITCH: 'implausible'}
    assert_sane(out)
    assert_recovers(out, ref)


def inject_nonfinite(monkeypatch, marker_qd):
    """Make C qd + g NaN for the sample whose velocity is ``marker_qd`` (a stand-in for any fault
    that leaves the estimator's state non-finite), in update and process alike."""
    nle = pin.nonLinearEffects

    def broken(model, data, q, qd):
        out = nle(model, data, q, qd)
        return out * np.nan if np.array_equal(qd, marker_qd) else out
    monkeypatch.setattr(pin, 'nonLinearEffects', broken)          # process
    monkeypatch.setattr(estimator_module, '_nle', broken)         # update


def test_one_nan_then_good_samples_recover(youbot, data, monkeypatch):
    """A NaN input sample is rejected; a sample that makes the internal state NaN resets the
    estimator (reported as kind 'nonfinite_state', counted as a reset in diagnostics), and the
    good samples after it give finite estimates again and a contact flag that is not frozen."""
    S, Q, QD, E = data
    ref, _ = run(WrenchEstimator(youbot), S, Q, QD, E)
    E2 = E.copy()
    E2[GLITCH - 50, 1] = np.nan
    est = WrenchEstimator(youbot)
    inject_nonfinite(monkeypatch, QD[GLITCH])
    out, rejected = run(est, S, Q, QD, E2)
    assert rejected == {GLITCH - 50: 'nonfinite', GLITCH: 'nonfinite_state'}
    assert_sane(out)
    assert_recovers(out, ref)
    monitor = InputMonitor(1.0, lambda kind, text: None)
    monitor.rejected('nonfinite_state', 'estimator reset')
    _, _, values = monitor.status(est)
    values = dict(values)
    assert values['resets'] == 1 and values['rejected_by_kind'] == 'nonfinite_state=1'


@pytest.mark.parametrize('cfg', [dict(), dict(method='direct', stiction_mode='hold')],
                         ids=['default', 'direct-hold'])
def test_process_equals_update_loop_with_glitches(youbot, data, cfg, monkeypatch):
    """process() rejects the same samples as update() (absurd, NaN, non-finite state) and gives
    its numbers sample by sample."""
    S, Q, QD, E = (a.copy() for a in data)
    Q[100, 0], QD[150, 1], E[250, 2], E[300, 3] = 1e300, 1e200, 1e300, np.nan
    config = EstimatorConfig(**cfg)
    batch_est, one_est = WrenchEstimator(youbot, config), WrenchEstimator(youbot, config)
    inject_nonfinite(monkeypatch, QD[400])
    res = batch_est.process(S, Q, QD, E)
    out, rejected = run(one_est, S, Q, QD, E)
    assert rejected == {100: 'implausible', 150: 'implausible', 250: 'implausible',
                        300: 'nonfinite', 400: 'nonfinite_state'}
    assert [k for k, _ in res.rejected] == sorted(rejected)
    assert (400, NONFINITE_REASON) in res.resets
    assert res.index.tolist() == sorted(out)
    np.testing.assert_allclose(res.tau_ext, [out[k].tau_ext for k in res.index], rtol=1e-10,
                               atol=1e-11)
    np.testing.assert_allclose(res.wrench, [out[k].wrench for k in res.index], rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(
        res.wrench_std, [np.sqrt(np.diag(out[k].wrench_covariance)) for k in res.index],
        rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(res.contact_state, [out[k].contact_state for k in res.index])
    assert np.all(np.isfinite(res.wrench)) and np.abs(res.wrench).max() < ABSURD_N


@pytest.fixture(scope='module')
def still_push(youbot):
    """3 s of motion with no external wrench at all: (S, Q, QD, E)."""
    t, Q, QD, QDD = trajectory(BENT, 3.0, 0.2, [0.3, 0.4, 0.5, 0.6, 0.7])
    E = measured(youbot, Q, QD, QDD, np.zeros((len(t), 6)), noise_nm=0.01, seed=3)
    return stamps(t), Q, QD, E


@pytest.mark.parametrize('array,column,value', [('qd', 1, 7.0), ('qd', 0, -7.0), ('q', 1, 0.9)])
def test_one_spike_inside_the_bounds_is_rejected_not_a_contact(youbot, still_push, array, column,
                                                               value):
    """One velocity of 7 rad/s (inside the 5 x 1.57 rad/s bound) among samples below 0.5 rad/s,
    or one position 0.9 rad off, is rejected as a jump: no contact, the wrench stays at the
    noise floor of the undisturbed run, in update and process alike."""
    S, Q, QD, E = still_push
    arrays = {'q': Q.copy(), 'qd': QD.copy()}
    if array == 'q':
        arrays['q'][GLITCH, column] += value
    else:
        arrays['qd'][GLITCH, column] = value
    est = WrenchEstimator(youbot)
    assert est.bounds.inside(arrays['q'][GLITCH], arrays['qd'][GLITCH], E[GLITCH])
    ref, _ = run(WrenchEstimator(youbot), S, Q, QD, E)
    floor_n = max(np.abs(r.wrench[:3]).max() for r in ref.values())
    out, rejected = run(est, S, arrays['q'], arrays['qd'], E)
    assert rejected == {GLITCH: 'jump'}
    assert all(r.contact_state == CONTACT_NONE for r in out.values())
    force_n = max(np.abs(r.wrench[:3]).max() for r in out.values())
    assert force_n <= floor_n + 0.05, (force_n, floor_n)
    res = WrenchEstimator(youbot).process(S, arrays['q'], arrays['qd'], E)
    assert [k for k, _ in res.rejected] == [GLITCH] and 'jumped' in res.rejected[0][1]
    assert not res.contact_state.any()
    np.testing.assert_allclose(res.wrench, [out[k].wrench for k in res.index], atol=1e-9)


def test_a_real_step_is_taken_from_its_second_sample(youbot, still_push):
    """A velocity that steps and stays (a sudden stop) loses only its first sample; samples
    after a spike are compared with the last good one, and the filter never locks the input out
    (at most two in a row are rejected)."""
    S, Q, QD, E = still_push
    QD2 = QD.copy()
    QD2[GLITCH:, 1] += 3.0              # a step of 3 rad/s that stays
    _, rejected = run(WrenchEstimator(youbot), S, Q, QD2, E)
    assert rejected == {GLITCH: 'jump'}
    QD3 = QD.copy()
    QD3[GLITCH:GLITCH + 5, 1] = [7.0, -7.0, 7.0, -7.0, 7.0]   # wild values, each unlike the last
    _, rejected = run(WrenchEstimator(youbot), S, Q, QD3, E)
    assert set(rejected.values()) == {'jump'} and {GLITCH, GLITCH + 1} <= set(rejected)
    assert set(rejected) <= set(range(GLITCH, GLITCH + 7))       # back on the data after
    assert not any(k + 1 in rejected and k + 2 in rejected for k in rejected)
    res = WrenchEstimator(youbot).process(S, Q, QD3, E)
    assert [k for k, _ in res.rejected] == sorted(rejected)


def test_bounds_come_from_the_model_limits(youbot):
    """Positions: URDF limits + margin; velocities and efforts: a factor of the URDF limits."""
    b = WrenchEstimator(youbot).bounds
    lim = youbot.robot.limits
    assert np.all(b.q_lo < lim.lower_rad) and np.all(b.q_hi > lim.upper_rad)
    assert np.all(b.qd_max > lim.velocity_rad_s) and np.all(b.qd_max < 10 * lim.velocity_rad_s)
    assert np.all(b.effort_max > lim.effort_nm) and np.all(b.effort_max < 100 * lim.effort_nm)
