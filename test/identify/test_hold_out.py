# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the option search holds out (identify/hold_out_folds.py) and its one-standard-error rule.

Whole runs are held out when several are given, regions of each joint's velocity with one; a
candidate that is better only within the noise of its held-out difference loses to the simpler.
"""
import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from robot_id_ros.identify import IdentificationOptions, identify, validate  # noqa: E402
from robot_id_ros.identify.hold_out_folds import (HOLD_OUT_RUNS, HOLD_OUT_VELOCITY,  # noqa: E402
                                                  velocity_folds)
from robot_id_ros.identify.selection import SEARCHED, _pick, _Scored, select_options  # noqa: E402
from robot_id_ros.identify.selection_record import Candidate  # noqa: E402
from robot_id_ros.model.friction import FrictionModel  # noqa: E402
from test_identification import synthetic_runs  # noqa: E402

SIGMA = np.array([0.05, 0.05, 0.03, 0.02, 0.01])
FRICTION = FrictionModel([0.4, 0.3, 0.3, 0.1, 0.05], [0.4, 0.3, 0.3, 0.1, 0.05],
                         [0.5, 0.4, 0.3, 0.05, 0.03], [0.0] * 5)
# only the friction terms beyond the truth's are searched: the rest is given, so that the tests
# stay short (the truth has rotor inertia, no Stribeck term, no presliding)
GIVEN = [k for k in SEARCHED if k not in ('stribeck_column', 'presliding_rad')]


def test_velocity_regions_are_each_joints_speed_bands_of_equal_count():
    rng = np.random.default_rng(0)
    qd = [rng.normal(0, [1.0, 0.1], (3000, 2)), rng.normal(0, [1.0, 0.1], (1000, 2))]
    folds = velocity_folds(qd, 4)
    f, v = np.concatenate(folds), np.abs(np.concatenate(qd))
    for j in range(2):
        counts = np.bincount(f[:, j], minlength=4)
        assert counts.min() >= 0.99 * counts.max() - 1, counts
        # band k holds speeds between those of bands k - 1 and k + 1: a fold is a region
        for k in range(3):
            assert v[f[:, j] == k, j].max() <= v[f[:, j] == k + 1, j].min()
    # the slowest band holds the reversals of both directions, the fastest the fastest moves
    s = np.concatenate(qd)[:, 0]
    assert np.all(v[f[:, 0] == 0, 0] < 0.35)
    assert np.any(s[f[:, 0] == 0] > 0) and np.any(s[f[:, 0] == 0] < 0)
    assert np.all(v[f[:, 0] == 3, 0] > 1.1)


def _runs(count, transform=None):
    return synthetic_runs(23, FRICTION, SIGMA, count=count, transform=transform)


def test_several_runs_are_held_out_whole_and_the_expected_error_is_printed():
    robot, runs = _runs(3)
    train, other = runs[:2], runs[2]
    sel = select_options(robot, [(s, None) for s in train], IdentificationOptions(), GIVEN)
    assert sel.hold_out == HOLD_OUT_RUNS and sel.folds == 2
    # each fold is one run, whole
    rec = sel.to_dict()
    assert 'leave-one-run-out' in rec['method']
    exp = rec['expected_error']
    assert exp['hold_out'] == HOLD_OUT_RUNS and exp['folds'] == 2
    assert len(exp['fold_relative_errors']) == 2
    assert any('expected relative error on other motions' in line
               for line in sel.summary_lines())
    # in the model family the held-out run predicts the error on a third run it never saw
    res = identify(robot, [s for s in train], options=sel.options, given=list(SEARCHED))
    actual = validate(res.model, other).metrics['relative_error']
    assert 0.7 < exp['relative_error'] / actual < 1.4, (exp['relative_error'], actual)


def test_one_run_holds_out_velocity_regions_not_time_blocks():
    robot, runs = _runs(1)
    sel = select_options(robot, [(runs[0], None)], IdentificationOptions(), GIVEN)
    assert sel.hold_out == HOLD_OUT_VELOCITY and sel.folds == 4
    assert "bands of each joint's speed" in sel.to_dict()['expected_error']['estimated_by']


def _item(error, units, **kw):
    opts = dataclasses.replace(IdentificationOptions(), **kw)
    units = np.asarray(units, dtype=float)
    return _Scored(error, Candidate('friction', kw, error), opts, units,
                   np.ones(len(units), dtype=int))


def test_a_difference_within_its_own_noise_goes_to_the_simpler_model():
    rng = np.random.default_rng(1)
    simple = 1.0 + 0.05 * rng.normal(size=20)
    # 3 % lower over all, but half the units better and half worse: within its noise
    noisy = simple - 0.03 + 0.5 * rng.choice([-1.0, 1.0], 20)
    scored = [_item(1.0, simple), _item(0.97, noisy, stribeck_column=True)]
    assert not _pick(scored)[0].stribeck_column
    # the same 3 %, on every unit: the column is kept
    steady = simple - 0.03 + 0.001 * rng.normal(size=20)
    scored = [_item(1.0, simple), _item(0.97, steady, stribeck_column=True)]
    assert _pick(scored)[0].stribeck_column


def _cogging(series, QD, rng):
    """Add each joint a torque of 0.15 Nm periodic in its position (cogging: no model term)."""
    tau = series.effort + 0.15 * np.sin(2 * np.pi * series.q / 0.3 + rng.uniform(0, 6, 5))
    return dataclasses.replace(series, effort=tau)


def test_a_mismatched_arm_gets_the_simpler_friction_model():
    # cogging the models lack (an error 15x the noise of the smallest joint): a Stribeck column
    # or a presliding law could bend to some of it in the training run; held out by velocity
    # regions, neither predicts the speeds it was not fitted on, and the textbook model stays
    robot, runs = _runs(1, _cogging)
    sel = select_options(robot, [(runs[0], None)], IdentificationOptions(), GIVEN)
    assert not sel.options.stribeck_column and sel.options.presliding_rad == 0.0
    tried = [c for c in sel.candidates if c.settings.get('stribeck_column')
             or c.settings.get('presliding_rad')]
    assert tried and all(c.error is not None and not c.chosen for c in tried)
    assert sel.expected.relative_error > 0.05   # the mismatch shows in the expected error


def test_the_plausibility_fallback_can_be_turned_off():
    # a joint whose recorded torque falls with its speed (viscous -0.1 Nm s/rad, e.g. a drive's
    # velocity feedback): the least-squares fit has negative friction; by default the
    # physically consistent fit replaces it, with the fallback off it is kept as made
    odd = dataclasses.replace(FRICTION, viscous_nm_s_rad=[0.5, 0.4, 0.3, 0.05, -0.1])
    robot, runs = synthetic_runs(29, odd, SIGMA, count=1)
    fv = {}
    for fallback in (True, False):
        opts = IdentificationOptions(auto_options=False, weighting='ols',
                                     plausibility_fallback=fallback)
        res = identify(robot, [runs[0]], options=opts)
        assert any(f.kind == 'negative' for f in res.plausibility.findings)
        assert res.plausibility.action == ('fallback' if fallback else 'kept')
        fv[fallback] = res.model.friction.viscous_nm_s_rad[4]
    assert fv[True] >= -1e-9
    assert abs(fv[False] - (-0.1)) < 0.02, fv
