# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The stiction breakaway measured where the joints break free (identify/breakaway.py).

On the ROS-free simulated youBot (seed 4: stiction with breakaway 1.3 x the direction's Coulomb,
reached through a Stribeck bump at 0.05 rad/s): two periods of a designed excitation and four
static poses, each approached from both directions, as the recorders make them
(test/identify/test_identification_sim.py), identified with the demo's options. The simulator's
breakaway torques are read only to judge the result.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from robot_id_ros.identify import IdentificationOptions, breakaway, identify  # noqa: E402
from robot_id_ros.identify.breakaway import (MIN_EVENTS, BreakawayEstimate,  # noqa: E402
                                             break_events, stribeck_amplitude_from_breaks,
                                             stribeck_from_breakaway)
from robot_id_ros.io.bags import JointStateSeries  # noqa: E402
from robot_id_ros.io.model_file import nominal_model  # noqa: E402
from robot_id_ros.model.friction import FrictionModel  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from robot_id_ros import record as rec  # noqa: E402
from robot_id_ros.sim.config import SimConfig  # noqa: E402
from robot_id_ros.sim.youbot_arm import SimulatedArm  # noqa: E402
from test_identification_sim import (SIM_OPTIONS, design, run_excitation,  # noqa: E402
                                     run_static)

SEED = 4


@pytest.fixture(scope='module')
def runs():
    robot = youbot_model()
    arm = SimulatedArm(SimConfig(seed=SEED))
    ident = run_excitation(arm, design(robot, 100 * SEED + 1, 8.0), 2)
    poses = rec.generate_poses(robot, 4, 0.1, 0.0, 0.05, seed=SEED).poses
    return robot, arm, ident, run_static(arm, poses)


def _fit(runs, **options):
    robot, arm, ident, static = runs
    res = identify(robot, data=[ident], static=[static],
                   options=IdentificationOptions(**dict(SIM_OPTIONS, **options),
                                                 auto_options=False))
    return arm, res


@pytest.fixture(scope='module')
def fitted(runs):
    return _fit(runs)


@pytest.fixture(scope='module')
def fitted_without_column(runs):
    """The fit without the Stribeck column, with the slow rows below 0.0707 rad/s left out: the
    choice of the option search on the youBot demo's bags."""
    return _fit(runs, stribeck_column=False, min_velocity_rad_s=0.0707)


def test_breakaway_is_the_torque_where_the_joints_break_free(fitted):
    arm, res = fitted
    est, f = res.breakaway, res.model.friction
    assert np.all(est.events >= MIN_EVENTS), est.events
    # the band offset +- b of the model holds both directions' breakaway (offset 0 here)
    truth = np.maximum(arm.breakaway_pos, arm.breakaway_neg)
    # achieved: -1.9 -2.3 +1.5 -2.4 -2.8 % (numpy 2.3 era); -0.7 -1.1 +0.8 -5.7 -3.2 % with
    # numpy 2.4.6, pin 4.1, clarabel 0.11 (J4: 19 negative events whose median is 5.7 % low,
    # its 95 % interval 0.238-0.268 Nm holding the truth 0.2675). The band is the larger
    # direction, so its error is within the directions' (6 %, below)
    assert np.all(np.abs(f.breakaway_nm / truth - 1) < 0.06), f.breakaway_nm / truth
    assert np.allclose(f.breakaway_nm, est.breakaway_nm)
    # each direction on its own: the edges of the band [-b-, b+]
    assert np.all(np.abs(est.direction_nm[:, 0] / arm.breakaway_pos - 1) < 0.06), est.direction_nm
    assert np.all(np.abs(est.direction_nm[:, 1] / arm.breakaway_neg - 1) < 0.06), est.direction_nm
    lo, hi = est.interval_nm.T
    assert np.all((lo <= est.breakaway_nm) & (est.breakaway_nm <= hi))
    assert np.sum((lo <= truth) & (truth <= hi)) >= 4, (est.interval_nm, truth)


def _fitted_stribeck_nm(res):
    """Return the amplitude of the fit's Stribeck column (n,) Nm, before the breaks set it."""
    reg = res.dynamics.regressor
    kinds = reg.joint_kinds
    return res.dynamics.theta[reg.n_inertial + kinds.index('fs')::len(kinds)]


def test_friction_law_extrapolated_to_rest_misses_the_breakaway(fitted):
    """The check above can fail: the former rule, Coulomb + the fitted Stribeck column's amplitude
    (the law at zero speed), is 6.7 % and 15 % off on joints 1 and 5 of the same fit."""
    arm, res = fitted
    f = res.model.friction
    law = np.maximum(f.coulomb_pos_nm, f.coulomb_neg_nm) + _fitted_stribeck_nm(res)
    truth = np.maximum(arm.breakaway_pos, arm.breakaway_neg)
    assert np.max(np.abs(law / truth - 1)) > 0.05, law / truth


@pytest.fixture(scope='module')
def fitted_soft_sign(runs):
    """The fit with the smooth sign at 0.05 rad/s, the slowest fitted speed: a choice the option
    search makes on some recordings of the youBot demo."""
    return _fit(runs, sign_velocity_rad_s=0.05)


@pytest.mark.parametrize('fit', ['fitted', 'fitted_soft_sign'])
def test_a_joint_sliding_slowly_gets_the_friction_it_has(fit, request):
    """The friction law where the joints creep (0.01-0.04 rad/s, either way), with the exact sign
    the youBot's estimator gives a joint measured moving, is within one residual std of the
    simulator's.

    The Stribeck column is fitted on the rows above 0.05 rad/s, which see only the bump's tail
    (at most exp(-1) of it); there its amplitude also makes up for whatever the law misses on the
    slowest fitted rows, such as a smooth sign that is not yet 1 at 0.05 rad/s. Its amplitude
    at rest was 1.07 0.73 0.59 0.25 0.22 Nm with that smooth sign (the simulator's bump: 0.24
    0.18 0.15 0.06 0.045 Nm), so the law read up to 15 residual std high at creeping speed,
    which the estimator takes for an external torque: the demo's false contacts in contact-free
    motion. With the smooth sign at 0.01 rad/s it was 1.4 std off on joint 1. The breaks measure
    the friction at zero speed; the law now starts from it (0.5 std at most here)."""
    arm, res = request.getfixturevalue(fit)
    v = np.r_[np.linspace(0.01, 0.04, 7), -np.linspace(0.01, 0.04, 7)]
    law = res.model.friction.sliding_torque(np.repeat(v[:, None], arm.n, axis=1))
    truth = np.array([arm._stiction.slip([x] * arm.n, [int(np.sign(x))] * arm.n, range(arm.n))
                      for x in v])
    worst = np.max(np.abs(law - truth), axis=0) / res.model.residual_std_nm
    assert np.all(worst < 1.0), worst
    # the law keeps the fitted Stribeck velocity and starts from the breaks' friction
    fr = res.model.friction
    vs = res.model.regressor_options.stribeck_velocity_rad_s
    assert np.all(fr.stribeck_velocity_rad_s == vs), (fr.stribeck_velocity_rad_s, vs)
    d = res.breakaway.direction_nm
    at_rest = 0.5 * (d[:, 0] - fr.offset_nm - fr.coulomb_pos_nm + d[:, 1] + fr.offset_nm
                     - fr.coulomb_neg_nm)
    np.testing.assert_allclose(fr.stribeck_nm, np.maximum(at_rest, 0.0), atol=1e-12)


def test_a_fit_without_the_stribeck_column_gets_the_bump_from_the_breaks(fitted_without_column):
    """The simulator's friction falls from the breakaway (1.3 x Coulomb) to Coulomb through a
    Stribeck bump at 0.05 rad/s; a fit on the rows above 0.0707 rad/s cannot see it. The breaks
    give its amplitude, the slow rows the fit left out its velocity."""
    arm, res = fitted_without_column
    st, f = res.stribeck_from_breaks, res.model.friction
    assert st is not None
    fr = arm.true.friction
    truth = 0.5 * (arm.breakaway_pos - fr.coulomb_pos_nm + arm.breakaway_neg - fr.coulomb_neg_nm)
    # the three big joints' bumps (0.08-0.16 Nm against 0.02-0.05 Nm of noise) are kept
    assert st.adopted[:3].all(), st.summary_lines(res.model.joint_names)
    k = st.adopted
    # measured 0.219 0.161 0.161 0.059 0.039 Nm for 0.24 0.18 0.15 0.06 0.045 (at most 13 % off)
    assert np.all(np.abs(f.stribeck_nm[k] / truth[k] - 1) < 0.2), (f.stribeck_nm, truth)
    vs = f.stribeck_velocity_rad_s[k]
    assert np.all((vs >= 0.03) & (vs <= 0.07)), vs
    # the moving rows (the slow ones the fit left out among them), predicted with the bump: the
    # squared error falls (measured x0.74, 0.86, 0.74 on joints 1-3)
    assert np.all(st.error_ratio[:3] < 0.9), st.error_ratio
    assert np.all(f.stribeck_nm[~k] == 0.0)


def test_no_bump_is_added_where_the_slow_rows_do_not_show_one():
    """Stiction without a bump in the sliding friction: the breaks say 0.2 Nm above Coulomb,
    the moving rows' residual is noise; the term is not kept (and an unmeasured joint gets
    none)."""
    rng = np.random.default_rng(3)
    fr = FrictionModel(np.array([0.5, 0.3]), np.array([0.5, 0.3]), np.zeros(2), np.zeros(2))
    est = BreakawayEstimate(np.array([0.7, np.nan]), np.full((2, 2), np.nan),
                            np.array([[0.7, 0.7], [np.nan, np.nan]]), np.full((2, 2), 9), 0.95)
    qd = rng.uniform(-0.4, 0.4, size=(4000, 2))
    noise = 0.03 * rng.standard_normal((4000, 2))
    st = stribeck_from_breakaway(fr, est, [qd], [noise])
    assert not st.adopted.any(), st.error_ratio
    assert st.amplitude_nm[0] == pytest.approx(0.2) and np.isnan(st.amplitude_nm[1])
    # the same rows with the bump in them: kept, at its velocity
    bump = 0.2 * np.exp(-(qd / 0.03) ** 2) * np.tanh(qd / fr.sign_velocity_rad_s)
    st = stribeck_from_breakaway(fr, est, [qd], [noise + bump])
    assert st.adopted.tolist() == [True, False]
    assert st.velocity_rad_s[0] == pytest.approx(0.03) and st.error_ratio[0] < 0.9


def test_the_bump_leaves_out_the_load_term_at_the_break():
    """Coulomb friction that grows with the gear's load (mu 0.05 per Nm, no warm-up): the friction
    at a break is r (fc + mu |L|), so the bump the model adds to fc + mu |L| is (r - 1) (fc +
    mu |L|), not the break less fc alone (mu |L| more: 0.1-0.2 Nm on joints 2-3)."""
    robot = youbot_model()
    cfg = SimConfig(seed=SEED, friction_drift=True, load_coulomb_per_nm=0.05,
                    coulomb_temperature_coefficient_per_k=0.0,
                    viscous_temperature_coefficient_per_k=0.0)
    arm = SimulatedArm(cfg)
    ident = run_excitation(arm, design(robot, 100 * SEED + 1, 8.0), 2)
    poses = rec.generate_poses(robot, 4, 0.1, 0.0, 0.05, seed=SEED).poses
    static = run_static(arm, poses)
    res = identify(robot, data=[ident], static=[static], options=IdentificationOptions(
        **dict(SIM_OPTIONS, stribeck_column=False, min_velocity_rad_s=0.0707, load_coulomb=True),
        auto_options=False))
    f = res.model.friction
    np.testing.assert_allclose(f.load_coulomb_per_nm[1:3], 0.05, rtol=0.2)
    events = [break_events(res.model, s, s.effort) for s, _ in (ident, static)]
    for j in (1, 2):
        load = np.median([w for ev in events for _, _, w in ev[j]])   # mu |L| at the breaks
        fc = 0.5 * (arm.true.friction.coulomb_pos_nm[j] + arm.true.friction.coulomb_neg_nm[j])
        want = (cfg.breakaway_ratio - 1.0) * (fc + load)
        assert load > 0.08
        assert abs(f.stribeck_nm[j] - want) < 0.35 * load, (j, f.stribeck_nm[j], want, load)


def test_with_drift_the_bump_takes_the_fitted_runs_breaks(monkeypatch):
    """A law whose friction drifted within its runs takes the friction at the break from those
    runs (the others were recorded colder or warmer): here 0.8 Nm at the fitted run's breaks, 1.0
    at another run's; without drift every run's breaks count (their median)."""
    robot = youbot_model()
    fr = FrictionModel(np.full(5, 0.5), np.full(5, 0.5), np.zeros(5), np.zeros(5))
    model = nominal_model(robot, fr)
    series = [JointStateSeries(robot.joint_names, np.arange(3) * 10 ** 7, np.zeros((3, 5)),
                               np.zeros((3, 5)), np.zeros((3, 5)), source=s)
              for s in ('fitted', 'other', 'another')]
    level = {'fitted': 0.8, 'other': 1.0, 'another': 1.0}
    monkeypatch.setattr(breakaway, 'break_events', lambda m, s, tau: [
        [(d, level[s.source], 0.0) for d in (1, -1) for _ in range(MIN_EVENTS)]] * 5)
    options = IdentificationOptions()
    runs = [(s, None) for s in series]
    without = breakaway.estimate_breakaway(model, runs, options, fitted_runs=1)
    np.testing.assert_allclose(stribeck_amplitude_from_breaks(fr, without), 0.5)
    fr.coulomb_drift_nm = np.full(5, 0.1)
    with_drift = breakaway.estimate_breakaway(model, runs, options, fitted_runs=1)
    np.testing.assert_allclose(stribeck_amplitude_from_breaks(fr, with_drift), 0.3)
    np.testing.assert_allclose(with_drift.breakaway_nm, 1.0)   # the band: every run's breaks
