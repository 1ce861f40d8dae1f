# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction tracking (``friction_tracking``): the estimator follows a friction that drifts.

The youBot moves on sinusoids; its true friction drifts from the model's (Coulomb down by 30-40 %,
viscous by 30 %, offsets appear) over 60 s, as a gear warming up does, then stays; a 10 N push is
held for 10 s near the end. Without tracking the drift reads as a contact; with it the force
error stays at its floor, the push is read and not learnt, and what was learnt carries over.
"""
import dataclasses

import numpy as np
import pytest

from estimate_cases import BENT, measured, stamps, trajectory, youbot_friction
from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.io.model_file import load_model, nominal_model
from robot_id_ros.model.robot import youbot_model

SECONDS, DRIFT_S, PUSH_S, NOISE_NM = 100.0, (10.0, 70.0), (80.0, 90.0), 0.02
FREQ_HZ = [0.11, 0.13, 0.17, 0.19, 0.23]


def model_with(robot, friction):
    model = nominal_model(robot, friction)
    model.residual_std_nm = np.full(robot.n, 0.03)
    return model


@pytest.fixture(scope='module')
def case():
    robot = youbot_model()
    start = youbot_friction()
    warm = dataclasses.replace(
        start, coulomb_pos_nm=start.coulomb_pos_nm * 0.6,
        coulomb_neg_nm=start.coulomb_neg_nm * 0.7,
        viscous_nm_s_rad=start.viscous_nm_s_rad * 0.7,
        offset_nm=np.array([0.05, -0.05, 0.03, 0.0, 0.01]))
    t, Q, QD, QDD = trajectory(BENT, SECONDS, 0.4, FREQ_HZ)
    F = np.zeros((len(t), 6))
    push = (t >= PUSH_S[0]) & (t < PUSH_S[1])
    F[push, 2] = -10.0
    model = model_with(robot, start)
    E_start = measured(model, Q, QD, QDD, F)
    E_warm = measured(model_with(robot, warm), Q, QD, QDD, F)
    share = np.clip((t - DRIFT_S[0]) / (DRIFT_S[1] - DRIFT_S[0]), 0.0, 1.0)[:, None]
    E = (1 - share) * E_start + share * E_warm     # friction is linear in its terms
    E = E + np.random.default_rng(3).normal(0.0, NOISE_NM, E.shape)
    runs = {}
    for tracking in (False, True):
        est = WrenchEstimator(model, EstimatorConfig(friction_tracking=tracking))
        runs[tracking] = (est, est.process(stamps(t), Q, QD, E))
    return dict(robot=robot, t=t, Q=Q, QD=QD, E=E, F=F, push=push, warm=warm, runs=runs)


def force_rms(result, F, mask):
    return np.sqrt(np.mean((result.wrench[mask, :3] - F[mask, :3]) ** 2))


def test_without_tracking_the_drift_reads_as_a_contact(case):
    t, F = case['t'], case['F']
    _, r = case['runs'][False]
    before, warm = t < DRIFT_S[0], (t > DRIFT_S[1]) & ~case['push']
    assert force_rms(r, F, warm) > 5 * force_rms(r, F, before)
    assert np.mean(r.contact_state[warm] > 0) > 0.5


def test_tracking_keeps_the_force_error_at_its_floor_and_flags_no_contact(case):
    t, F, push = case['t'], case['F'], case['push']
    _, r = case['runs'][True]
    before = (t > 2.0) & (t < DRIFT_S[0])
    free = (t > 2.0) & ~push & ~((t >= PUSH_S[1]) & (t < PUSH_S[1] + 1.0))
    for a, b in ((DRIFT_S[0], DRIFT_S[1]), (DRIFT_S[1], PUSH_S[0]), (PUSH_S[1] + 1.0, SECONDS)):
        phase = free & (t >= a) & (t < b)
        assert force_rms(r, F, phase) < 1.3 * force_rms(r, F, before), (a, b)
    assert not np.any(r.contact_state[free] > 0)


def test_tracked_terms_reach_the_warm_friction(case):
    est, _ = case['runs'][True]
    warm, got = case['warm'], est.tracked_friction()
    # Coulomb and offset trade off where the sign saturates: compare the friction either way
    for sign, name in ((1.0, 'coulomb_pos_nm'), (-1.0, 'coulomb_neg_nm')):
        want = sign * getattr(warm, name) + warm.offset_nm
        have = sign * getattr(got, name) + got.offset_nm
        np.testing.assert_allclose(have, want, rtol=0.15, atol=0.015)
    np.testing.assert_allclose(got.viscous_nm_s_rad, warm.viscous_nm_s_rad, rtol=0.25,
                               atol=0.01)


def test_the_offset_the_motion_cannot_tell_from_coulomb_stays_as_identified(case):
    # the warm offsets moved; in motion they show as Coulomb + and - moving opposite ways, and a
    # resting joint's band is centred on the offset: a drifted one is read as a push at rest
    est, _ = case['runs'][True]
    start = youbot_friction()
    np.testing.assert_array_equal(est.tracked_friction().offset_nm, start.offset_nm)
    assert np.all(est.tracker.term_std()['coulomb_pos_nm'] > 0.0)


def test_the_tracker_learns_three_terms_and_runs_on_the_models_own_offset(tmp_path):
    """The tracker's state is the three terms it learns; the offset is the model's, in the step,
    in the tracked law and in the model file it saves, which a tracking estimator starts from."""
    robot = youbot_model()
    friction = dataclasses.replace(youbot_friction(),
                                   offset_nm=np.array([0.06, -0.04, 0.03, 0.02, -0.01]))
    model = model_with(robot, friction)
    t, Q, QD, QDD = trajectory(BENT, 10.0, 0.4, FREQ_HZ)
    E = measured(model_with(robot, dataclasses.replace(
        friction, coulomb_pos_nm=friction.coulomb_pos_nm * 0.8)), Q, QD, QDD,
        np.zeros((len(t), 6)), noise_nm=NOISE_NM, seed=7)
    est = WrenchEstimator(model, EstimatorConfig(friction_tracking=True))
    est.process(stamps(t), Q, QD, E)
    learnt = ('coulomb_pos_nm', 'coulomb_neg_nm', 'viscous_nm_s_rad')
    tracker = est.tracker
    assert tuple(tracker.terms()) == learnt and tuple(tracker.term_std()) == learnt
    assert tracker.state[0]['theta'].shape == (robot.n, 3)
    assert tracker.state[0]['cov'].shape == (robot.n, 3, 3)
    assert 'offset_nm' not in tracker.model_terms()
    assert np.any(tracker.terms()['coulomb_pos_nm'] < 0.95 * friction.coulomb_pos_nm)
    np.testing.assert_array_equal(est._params['offset_nm'][0], friction.offset_nm)
    saved = est.tracked_friction()
    np.testing.assert_array_equal(saved.offset_nm, friction.offset_nm)
    # the node's ~/save_friction file: a tracking estimator starts from its terms and its offset
    path = tmp_path / 'tracked.yaml'
    tracked = model_with(robot, saved)
    tracked.save(path)
    again = WrenchEstimator(load_model(path), EstimatorConfig(friction_tracking=True))
    np.testing.assert_array_equal(again._params['offset_nm'][0], friction.offset_nm)
    for name in learnt:
        np.testing.assert_allclose(again.tracker.terms()[name], getattr(saved, name),
                                   rtol=1e-12)


def test_a_held_push_is_read_and_not_learnt(case):
    t, F, push = case['t'], case['F'], case['push']
    est, r = case['runs'][True]
    end = np.flatnonzero(push)[-1]
    assert abs(r.wrench[end, 2] - F[end, 2]) < 0.1 * 10.0
    assert np.all(r.contact_state[push & (t > PUSH_S[0] + 0.2)] > 0)


def test_the_push_adds_no_sample_to_the_tracker():
    robot = youbot_model()
    model = model_with(robot, youbot_friction())
    t, Q, QD, QDD = trajectory(BENT, 12.0, 0.4, FREQ_HZ)
    F = np.zeros((len(t), 6))
    F[t >= 4.0, 2] = -10.0
    E = measured(model, Q, QD, QDD, F) + np.random.default_rng(4).normal(0, NOISE_NM, Q.shape)
    est = WrenchEstimator(model, EstimatorConfig(friction_tracking=True))
    S = stamps(t)
    used_at_push = None
    for k in range(len(t)):
        r = est.update(S[k], Q[k], QD[k], E[k])
        if t[k] < 4.0:
            used_at_push = est.tracker.samples_used.copy()
    assert used_at_push.min() > 0 and r.contact
    np.testing.assert_array_equal(est.tracker.samples_used, used_at_push)


def test_what_was_learnt_carries_over_a_restart_and_a_saved_model(case):
    t, Q, QD, E, F = (case[k] for k in ('t', 'Q', 'QD', 'E', 'F'))
    est, _ = case['runs'][True]
    tail = (t > PUSH_S[1] + 2.0)
    floor = force_rms(case['runs'][True][1], F, tail)
    # the estimator restarts (process resets it) and a new one starts from the saved terms
    learnt = model_with(case['robot'], est.tracked_friction())
    for again in (est, WrenchEstimator(learnt, EstimatorConfig())):
        r = again.process(stamps(t[tail]), Q[tail], QD[tail], E[tail])
        settled = t[tail] > t[tail][0] + 0.5
        assert force_rms(r, F[tail], settled) < 1.3 * floor
        assert not np.any(r.contact_state[settled] > 0)


def test_sigma_covers_the_error_while_tracking(case):
    t, F = case['t'], case['F']
    _, r = case['runs'][True]
    err = np.abs(r.wrench[:, :3] - F[:, :3])
    for a, b in ((2.0, DRIFT_S[0]), DRIFT_S, (DRIFT_S[1], PUSH_S[0]), (PUSH_S[1] + 1.0, SECONDS)):
        phase = (t >= a) & (t < b)
        assert np.mean(err[phase] <= 2 * r.wrench_std[phase, :3]) >= 0.9, (a, b)


def test_process_with_tracking_lists_a_bad_sample_and_goes_on():
    robot = youbot_model()
    model = model_with(robot, youbot_friction())
    t, Q, QD, QDD = trajectory(BENT, 2.0, 0.4, FREQ_HZ)
    E = measured(model, Q, QD, QDD, np.zeros((len(t), 6)))
    E[100, 2] = np.nan
    est = WrenchEstimator(model, EstimatorConfig(friction_tracking=True))
    r = est.process(stamps(t), Q, QD, E)
    assert [k for k, _ in r.rejected] == [100] and r.rejected[0][1].kind == 'nonfinite'
    assert len(r.index) == len(t) - 1 and 100 not in r.index
    assert np.all(np.abs(r.wrench[50:, :3]) < 1.0)


def test_a_rebuilt_estimator_continues_the_tracking(case):
    est, _ = case['runs'][True]
    again = WrenchEstimator(est.model, EstimatorConfig(friction_tracking=True))
    again.continue_tracking(est)
    for name, value in est.tracker.terms().items():
        np.testing.assert_array_equal(again.tracker.terms()[name], value)
        np.testing.assert_array_equal(again._params[name][0], value)     # the step runs on them
    np.testing.assert_array_equal(again.tracker.samples_used, est.tracker.samples_used)


def test_a_changed_friction_is_named_and_a_push_is_not_taken_for_one(case):
    from robot_id_ros.estimate.friction_change import friction_change, friction_notes

    t, QD = case['t'], case['QD']
    est, r = case['runs'][False]
    changed = {c.joint: c for c in friction_change(est, r, QD[r.index])}
    assert {'arm_joint_1', 'arm_joint_2', 'arm_joint_3'} <= set(changed)
    for c in changed.values():       # the warm arm's Coulomb friction is lower
        assert c.change['coulomb_pos_nm'] < 0 and c.change['coulomb_neg_nm'] < 0, c.line()
    tracked, r_tracked = case['runs'][True]
    assert friction_change(tracked, r_tracked, QD[r_tracked.index]) == []
    assert friction_notes(tracked, r_tracked, QD)[0].startswith('friction tracked from')
    # no drift, the same push: nothing to say
    robot = case['robot']
    model = model_with(robot, youbot_friction())
    E = measured(model, case['Q'], QD, np.gradient(QD, t, axis=0), case['F'])
    E = E + np.random.default_rng(6).normal(0.0, NOISE_NM, E.shape)
    plain = WrenchEstimator(model, EstimatorConfig())
    r = plain.process(stamps(t), case['Q'], QD, E)
    assert friction_notes(plain, r, QD[r.index]) == []


def test_the_saved_law_is_the_one_tracking_ran(case):
    est, _ = case['runs'][True]
    saved, start = est.tracked_friction(), est.model.friction
    for name, value in est.tracker.terms().items():
        np.testing.assert_array_equal(getattr(saved, name), value)
    # the stiction band in the model's proportion to the Coulomb friction, as the step ran it
    # (the warm arm's band is narrower); the Stribeck bump as identified, which the tracker
    # does not learn
    ratio = (np.maximum(saved.coulomb_pos_nm, saved.coulomb_neg_nm)
             / np.maximum(start.coulomb_pos_nm, start.coulomb_neg_nm))
    np.testing.assert_allclose(saved.breakaway_nm, start.breakaway_nm * ratio, rtol=1e-12)
    assert np.all(saved.breakaway_nm < start.breakaway_nm)
    np.testing.assert_array_equal(saved.stribeck_nm, start.stribeck_nm)


def test_a_residual_jump_beyond_the_gate_is_not_learnt():
    """A push building below the contact threshold looks like a jump in the residual that the
    tracker's own prediction and noise rule out: no term moves and no sample is counted."""
    from robot_id_ros.estimate.friction_tracking import INNOVATION_GATE_SIGMAS, FrictionTracker

    friction = youbot_friction()
    std_nm = np.full(5, 0.03)
    tr = FrictionTracker(friction, 0.01, std_nm, 10.0, 0.05, 600.0, 0.0)
    rng = np.random.default_rng(5)
    dt_s = 0.005
    for k in range(2000):          # a steady swing at the model's friction: residual noise only
        qd = np.full(5, 0.5 * np.sin(2 * np.pi * 0.2 * k * dt_s) + 0.6)
        tr.observe(dt_s, qd, rng.normal(0.0, 0.03, 5), True)
    before, used = tr.terms(), tr.samples_used
    assert used.min() > 1000
    qd = np.full(5, 0.6)
    jump_nm = 10 * INNOVATION_GATE_SIGMAS * std_nm     # far beyond the gate
    tr.observe(dt_s, qd, jump_nm, True)
    np.testing.assert_array_equal(tr.samples_used, used)
    for name, value in tr.terms().items():
        np.testing.assert_array_equal(value, before[name])
    # a residual within the noise is still learnt from
    tr.observe(dt_s, qd, np.zeros(5), True)
    assert np.all(tr.samples_used == used + 1)


def test_a_model_off_by_more_than_the_threshold_is_followed_not_flagged_for_good():
    """A model whose Coulomb friction is well below the arm's flags contact while moving; without
    tracking for as long as it moves. With tracking the contact test widens by what the tracked
    terms are unsure of (their variance grows while nothing is learnt), the flag clears, the
    friction is learnt and the force error comes back to the noise."""
    robot = youbot_model()
    arm = youbot_friction()
    low = dataclasses.replace(arm, coulomb_pos_nm=arm.coulomb_pos_nm * 0.6,
                              coulomb_neg_nm=arm.coulomb_neg_nm * 0.6)
    t, Q, QD, QDD = trajectory(BENT, 220.0, 0.4, FREQ_HZ)
    E = measured(model_with(robot, arm), Q, QD, QDD, np.zeros((len(t), 6)))
    E = E + np.random.default_rng(6).normal(0.0, NOISE_NM, E.shape)
    model = model_with(robot, low)
    end = t >= 180.0
    runs = {}
    for tracking in (False, True):
        est = WrenchEstimator(model, EstimatorConfig(friction_tracking=tracking))
        runs[tracking] = (est, est.process(stamps(t), Q, QD, E))
    assert np.mean(runs[False][1].contact_state[end] > 0) > 0.5   # a contact for good
    est, res = runs[True]
    assert not np.any(res.contact_state[end] > 0)
    learnt = est.tracked_friction()
    moved = np.abs(arm.coulomb_pos_nm - low.coulomb_pos_nm) > 0.05
    np.testing.assert_allclose(learnt.coulomb_pos_nm[moved], arm.coulomb_pos_nm[moved],
                               rtol=0.1)
    assert force_rms(res, np.zeros((len(t), 6)), end) < 0.2 * force_rms(
        runs[False][1], np.zeros((len(t), 6)), end)
