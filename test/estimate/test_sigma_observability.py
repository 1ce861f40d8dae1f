# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-axis observability (issue 16): which wrench axes only a stuck joint senses, which are lost
near a singular pose, and why."""
import numpy as np
from estimate_cases import BENT, CANDLE

from robot_id_ros.estimate import WrenchEstimator
from robot_id_ros.estimate.observability import (axis_observability, observability_values,
                                                 weak_fraction)

T0 = 1_700_000_000 * 10 ** 9


def observed(model, q, qd, samples=5):
    """observability_values after ``samples`` samples at pose q with velocity qd (held)."""
    est = WrenchEstimator(model)
    assert observability_values(est) == []           # nothing before the first sample
    for k in range(samples):
        tau = model.torque(q, qd, np.zeros(model.n))
        est.update(T0 + k * 5_000_000, q, qd, tau)
    return dict(observability_values(est))


def test_moving_arm_away_from_singularities_senses_every_force_axis(youbot):
    v = observed(youbot, BENT, np.full(5, 0.5))
    assert v['weak axes'] == ''
    assert [v[f'observability {a}'] for a in ('fx', 'fy', 'fz')] == ['ok'] * 3


def test_stuck_base_joint_leaves_the_force_across_the_arm_plane_to_friction(youbot):
    """The youBot's joints 2-4 turn about parallel axes normal to the arm's plane: a force across
    that plane (here mostly base y, q1 = 169 deg) loads joint 1 alone."""
    qd = np.array([0.0, 0.5, 0.5, 0.5, 0.5])
    v = observed(youbot, BENT, qd)
    assert v['weak axes'] == 'fy'
    assert v['observability fy'] == ('stuck: sensed only through arm_joint_1 inside their '
                                     'stiction band')
    assert v['observability fx'] == 'ok' and v['observability fz'] == 'ok'


def test_stretched_arm_is_near_singular_along_its_length(youbot):
    """Candle pose: the arm points up, a vertical force loads no joint (lever arm 0)."""
    v = observed(youbot, CANDLE, np.full(5, 0.5))
    assert v['observability fz'].startswith('near-singular: sigma_min')
    assert 'fz' in v['weak axes'].split(', ')


def test_weak_fraction_and_axis_states_on_a_constructed_jacobian():
    """J^T rows are joints: joint 0 senses x (1 m), joint 1 y (0.005 m, below the 0.02 guard),
    joint 2 z; with joint 2 stuck, z is sensed through it alone."""
    J = np.zeros((6, 3))
    J[0, 0], J[1, 1], J[2, 2] = 1.0, 0.005, 0.5
    np.testing.assert_allclose(weak_fraction(J[:3].T, 0.02), [0.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(weak_fraction(np.zeros((0, 3)), 0.02), [1.0, 1.0, 1.0])
    states, smin = axis_observability(J, np.arange(3), np.array([False, False, True]), 0.02)
    assert abs(smin - 0.005) < 1e-12
    assert states['fx'] == ('ok', '') and states['fy'][0] == 'near-singular'
    assert states['fz'][0] == 'stuck' and list(states['fz'][1]) == [2]
