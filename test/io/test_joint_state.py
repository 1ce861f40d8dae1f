# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest

from robot_id_ros.io.joint_state import JointIndexer, JointStateError, to_message_arrays

JOINTS = ('a', 'b', 'c')


def test_any_order_and_extra_joints():
    ix = JointIndexer(JOINTS)
    s = ix.convert(['finger', 'c', 'a', 'b'], [9, 3, 1, 2], [0, 0.3, 0.1, 0.2], [7, 30, 10, 20])
    np.testing.assert_array_equal(s.q, [1, 2, 3])
    np.testing.assert_array_equal(s.qd, [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(s.effort, [10, 20, 30])


@pytest.mark.parametrize('names, pos, vel, eff, match', [
    (['a', 'b'], [1, 2], [0, 0], [0, 0], r'no joint\(s\) c'),
    (['a', 'b', 'c'], [1, 2], [0, 0, 0], [0, 0, 0], 'position has 2 values for 3 names'),
    (['a', 'b', 'c'], [1, np.nan, 3], [0, 0, 0], [0, 0, 0], 'position is NaN or inf for b'),
    (['a', 'b', 'c'], [1, 2, 3], [0, np.inf, 0], [0, 0, 0], 'velocity is NaN or inf for b'),
    (['a', 'b', 'c'], [1, 2, 3], [0, 0, 0], [], 'has no effort'),
    (['a', 'b', 'c'], [1, 2, 3], [], [0, 0, 0], 'has no velocity'),
    (['a', 'a', 'c'], [1, 2, 3], [0, 0, 0], [0, 0, 0], 'twice'),
])
def test_bad_joint_states_name_the_problem(names, pos, vel, eff, match):
    with pytest.raises(JointStateError, match=match):
        JointIndexer(JOINTS).convert(names, pos, vel, eff)


def test_optional_fields_and_extra_nan_ignored():
    s = JointIndexer(JOINTS).convert(['a', 'b', 'c', 'x'], [1, 2, 3, np.nan], [], [],
                                     require_velocity=False, require_effort=False)
    assert s.qd is None and s.effort is None


def test_to_message_arrays_pads_extras():
    names, p, v, e = to_message_arrays(JOINTS, [1, 2, 3], [0, 0, 0], [4, 5, 6], ('f1', 'f2'))
    assert names == ['a', 'b', 'c', 'f1', 'f2'] and e == [4, 5, 6, 0.0, 0.0]


def test_real_youbot_driver_layout_longer_effort_is_taken_with_one_notice():
    """The ROS 2 youBot driver without a gripper: 5 names, 5 positions and velocities, 7 efforts
    (the fingers' last): the first five efforts are the arm's; one notice per layout."""
    arm = tuple(f'arm_joint_{i}' for i in range(1, 6))
    said = []
    ix = JointIndexer(arm, notice=said.append)
    names = list(reversed(arm))           # any order: the values follow the names
    for k in range(3):
        s = ix.convert(names, [5, 4, 3, 2, 1], [0.5, 0.4, 0.3, 0.2, 0.1],
                       [50, 40, 30, 20, 10, 0.0, 0.0])
        np.testing.assert_array_equal(s.q, [1, 2, 3, 4, 5])
        np.testing.assert_array_equal(s.effort, [10, 20, 30, 40, 50])
    assert len(said) == 1 and ix.notices == said
    assert 'effort has 7 values for 5 names' in said[0] and 'last 2 ignored' in said[0]


def test_shorter_arrays_stay_an_error_and_a_nan_in_the_ignored_tail_does_not_matter():
    ix = JointIndexer(JOINTS)
    with pytest.raises(JointStateError, match='effort has 2 values for 3 names'):
        ix.convert(['a', 'b', 'c'], [1, 2, 3], [0, 0, 0], [1, 2])
    s = ix.convert(['a', 'b', 'c'], [1, 2, 3], [0, 0, 0], [1, 2, 3, np.nan])
    np.testing.assert_array_equal(s.effort, [1, 2, 3])


def test_common_case_equals_the_array_by_array_check():
    """``convert``'s shortcut (three arrays of one length, all finite) gives the array-by-array
    path's numbers, also for values whose sum overflows (they are finite: no error), and a NaN
    or inf of any named joint still names it."""
    rng = np.random.default_rng(2)
    ix = JointIndexer(JOINTS)
    for extra in (0, 1, 2):
        names = list(rng.permutation(list(JOINTS) + [f'x{i}' for i in range(extra)]))
        for scale in (1.0, 1e300):
            arrays = [(rng.normal(size=len(names)) * scale).tolist() for _ in range(3)]
            fast = ix.convert(names, *arrays)
            checked = ix._convert_checked(names, ix.index(names), *arrays, True, True)
            for a, b in ((fast.q, checked.q), (fast.qd, checked.qd),
                         (fast.effort, checked.effort)):
                assert a.tolist() == b.tolist()
        for bad in (np.nan, np.inf, -np.inf):
            arrays = [rng.normal(size=len(names)).tolist() for _ in range(3)]
            arrays[2][names.index('b')] = bad
            with pytest.raises(JointStateError, match='effort is NaN or inf for b'):
                ix.convert(names, *arrays)
