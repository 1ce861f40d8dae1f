# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Safety limits: validation on construction, per-joint limits, bounds
(robot_id_ros.record.safety)."""
import numpy as np
import pytest

from robot_id_ros import record as R
from robot_id_ros.errors import InputError


def test_validated_returns_self_and_construction_validates():
    lim = R.SafetyLimits(0.1, [0.5, 0.6], 1.0)
    assert lim.validated() is lim
    for bad in (dict(max_velocity_rad_s=0.0), dict(max_acceleration_rad_s2=[1.0, -1.0]),
                dict(max_velocity_rad_s=float('inf'))):
        with pytest.raises(R.SafetyLimitsError, match='positive and finite'):
            R.SafetyLimits(**bad)
    with pytest.raises(R.SafetyLimitsError, match='margin must be >= 0'):
        R.SafetyLimits(margin_rad=-0.1)
    assert issubclass(R.SafetyLimitsError, InputError) and issubclass(
        R.SafetyLimitsError, ValueError)


def test_per_joint_broadcasts_and_copies_without_checking_values():
    lim = R.SafetyLimits(0.1, [0.5, 0.6, 0.7], 2.0)
    v, a = lim.per_joint(3)
    np.testing.assert_array_equal(v, [0.5, 0.6, 0.7])
    np.testing.assert_array_equal(a, [2.0, 2.0, 2.0])
    v[0] = 9.0
    assert lim.per_joint(3)[0][0] == 0.5            # a new array each call
    lim.max_velocity_rad_s = -1.0                   # per_joint() does not check: validated() does
    assert lim.per_joint(2)[0].tolist() == [-1.0, -1.0]
    with pytest.raises(R.SafetyLimitsError, match='positive and finite'):
        lim.validated()
    with pytest.raises(R.SafetyLimitsError, match='need 1 or 2 values'):
        R.SafetyLimits(0.1, [0.5, 0.6, 0.7]).per_joint(2)


def test_bounds_keep_the_margin(robot):
    lo, hi = R.SafetyLimits(0.2).bounds(robot)
    np.testing.assert_allclose(lo, robot.limits.lower_rad + 0.2)
    np.testing.assert_allclose(hi, robot.limits.upper_rad - 0.2)
