# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""rosbag2 reading and writing of joint states and other messages (robot_id_ros.io.bags)."""
import numpy as np
import pytest

from robot_id_ros.io.bags import BagError, BagWriter, read_joint_states, read_messages
from robots import SHARED_DATA


def _write(path, n=20, names=('j2', 'j1', 'finger'), storage='mcap', bad_at=None, effort=True):
    with BagWriter(path, storage=storage) as w:
        for k in range(n):
            pos = [2.0 * k, 1.0 * k, 0.5]
            if k == bad_at:
                pos[0] = float('nan')
            w.write(
                '/joint_states', 1000 + k * 5_000_000,
                w.joint_state(1000 + k * 5_000_000, names, pos, [0.2, 0.1, 0],
                              [20.0, 10.0, 0] if effort else []))
        w.write('/other', 1, w.bool(True))


@pytest.mark.parametrize('storage, name', [('mcap', 'bag'), ('sqlite3', 'bag')])
def test_round_trip_by_name(tmp_path, storage, name):
    _write(tmp_path / name, storage=storage)
    s = read_joint_states(tmp_path / name, ['j1', 'j2'])
    assert len(s) == 20
    np.testing.assert_allclose(s.q[:, 0], np.arange(20) * 1.0)
    np.testing.assert_allclose(s.effort[0], [10, 20])
    np.testing.assert_allclose(s.t_s[-1], 19 * 0.005)


def test_single_mcap_file_and_skipped_bad_message(tmp_path):
    _write(tmp_path / 'b', bad_at=3)
    mcap = next((tmp_path / 'b').glob('*.mcap'))
    s = read_joint_states(mcap, ['j1', 'j2'])
    assert len(s) == 19 and s.skipped[0][0] == 3 and 'NaN' in s.skipped[0][1]


def test_errors_name_the_problem(tmp_path):
    _write(tmp_path / 'b', effort=False)
    with pytest.raises(BagError, match='has no topic /js'):
        read_joint_states(tmp_path / 'b', ['j1'], topic='/js')
    with pytest.raises(BagError, match=r'no joint\(s\) j3'):
        read_joint_states(tmp_path / 'b', ['j1', 'j3'])
    with pytest.raises(BagError, match='has no effort'):
        read_joint_states(tmp_path / 'b', ['j1'])
    with pytest.raises(BagError, match='not found'):
        read_joint_states(tmp_path / 'nope', ['j1'])
    (tmp_path / 'empty').mkdir()
    with pytest.raises(BagError, match='without metadata.yaml'):
        read_joint_states(tmp_path / 'empty', ['j1'])
    with pytest.raises(BagError, match='is std_msgs/msg/Bool'):
        read_joint_states(tmp_path / 'b', ['j1'], topic='/other')
    with pytest.raises(BagError, match='exists'):
        BagWriter(tmp_path / 'b')


def test_reads_shared_real_bag():
    bag = SHARED_DATA / 'kuka_lwr4_flobaroid' / 'measurements_1'
    if not bag.exists():
        pytest.skip('shared data not present')
    s = read_joint_states(bag, [f'lwr_{i}_joint' for i in range(7)], require_velocity=True)
    assert len(s) == 5027 and s.q.shape == (5027, 7)
    assert 25.0 < s.t_s[-1] < 25.2


def test_read_messages_any_topic(tmp_path):
    with BagWriter(tmp_path / 'w') as w:
        w.write('/wrench', 5, w.wrench_stamped(5, 'arm_link_0', [1, 2, 3], [4, 5, 6]))
    (t, msg), = read_messages(tmp_path / 'w', '/wrench')
    assert t == 5 and msg.header.frame_id == 'arm_link_0' and msg.wrench.torque.z == 6.0


def test_messages_without_a_field_others_carry_and_repeated_stamps_are_left_out(tmp_path):
    """A few messages with no effort or velocity, or published twice, cost only themselves."""
    with BagWriter(tmp_path / 'b', storage='sqlite3') as w:
        for k in range(30):
            stamp = 1000 + k * 5_000_000
            vel = [] if k in (4, 5) else [0.2, 0.1, 0.0]
            eff = [] if k == 9 else [20.0, 10.0 + k, 0.0]
            msg = w.joint_state(stamp, ('j2', 'j1', 'finger'), [2.0 * k, 1.0 * k, 0.5], vel, eff)
            w.write('/joint_states', stamp + 10, msg)
            if k in (12, 20):   # the same sample again, received later
                w.write('/joint_states', stamp + 20, msg)
    s = read_joint_states(tmp_path / 'b', ['j1', 'j2'], require_velocity=True)
    assert len(s) == 27 and s.qd is not None and np.isfinite(s.qd).all()
    np.testing.assert_allclose(s.q[:, 0], [k for k in range(30) if k not in (4, 5, 9)])
    assert np.all(np.diff(s.stamp_ns) > 0)
    why = dict(s.skipped)
    assert sorted(why) == [4, 5, 9, 13, 22]    # message indices (12 and 20 were sent twice)
    assert 'no velocity' in why[4] and 'no effort' in why[9]
    assert 'repeats' in why[13] and 'repeats' in why[22]


def test_a_namespaced_joint_states_topic_is_read_by_default(tmp_path, capsys):
    """A foreign system's /robot1/joint_states, the bag's only JointState topic: read it."""
    from robot_id_ros.cli.common import read_series

    with BagWriter(tmp_path / 'b.mcap') as w:
        for k in range(5):
            w.write('/robot1/joint_states', 1000 + k, w.joint_state(1000 + k, ('j1',), [k], [0],
                                                                    [1.0]))
            w.write('/robot2/odom_joint_states_x', 1000 + k, w.bool(True))
    s = read_series(tmp_path / 'b.mcap', ['j1'], '/joint_states')
    assert len(s) == 5 and s.topic == '/robot1/joint_states'
    assert 'read its /robot1/joint_states' in capsys.readouterr().err
    with BagWriter(tmp_path / 'two.mcap') as w:
        for ns in ('/a', '/b'):
            w.write(f'{ns}/joint_states', 1000, w.joint_state(1000, ('j1',), [0.0], [0], [1.0]))
    with pytest.raises(BagError, match=r'no topic /joint_states \(topics: /a/joint_states'):
        read_joint_states(tmp_path / 'two.mcap', ['j1'])


def test_messages_of_another_publisher_on_the_topic_are_skipped(tmp_path):
    """A gripper driver publishing its own JointState on /joint_states: not a missing joint."""
    with BagWriter(tmp_path / 'b.mcap') as w:
        for k in range(12):
            w.write('/joint_states', 1000 + 10 * k, w.joint_state(
                1000 + 10 * k, ('j1', 'j2'), [k, -k], [0, 0], [1.0, 2.0]))
            if k % 4 == 0:
                w.write('/joint_states', 1005 + 10 * k, w.joint_state(
                    1005 + 10 * k, ('finger',), [0.01], [0], [0.5]))
    s = read_joint_states(tmp_path / 'b.mcap', ['j2', 'j1'])
    assert len(s) == 12 and np.allclose(s.q[:, 1], np.arange(12))
    assert len(s.skipped) == 3 and 'another publisher' in s.skipped[0][1]
    assert 'finger' in s.skipped[0][1]
    with pytest.raises(BagError, match=r'no joint\(s\) j3, j4 \(it has: j1, j2\)'):
        read_joint_states(tmp_path / 'b.mcap', ['j3', 'j4'])   # names no message has


def test_header_clock_reset_is_one_clear_line(tmp_path):
    """Header stamps stepping back 0.5 s mid-run (receive times steady): not one sorted run.

    Before, sorting by stamp interleaved the two stretches (a UR5 held-out bag whose header
    clock stepped back 5 s: every stamp after it repeated an earlier one at 200 Hz, 1000
    'repeats' were left out, and validate read 421 %).
    """
    with BagWriter(tmp_path / 'b.mcap') as w:
        for k in range(60):
            recv = 10 ** 9 + k * 5_000_000
            stamp = recv - (5 * 10 ** 8 if k >= 40 else 0) + (3_000_000 if k == 10 else 0)
            w.write('/joint_states', recv, w.joint_state(stamp, ('j1',), [k], [0], [1.0]))
    with pytest.raises(BagError, match=r'header stamps jump back by 0\.495 s at message 40 '
                       r'.*1 such jump.*split the bag there'):
        read_joint_states(tmp_path / 'b.mcap', ['j1'])
    with BagWriter(tmp_path / 'ok.mcap') as w:   # one stamped 8 ms early: sorted, kept
        for k in range(60):
            recv = 10 ** 9 + k * 5_000_000
            stamp = recv - (8_000_000 if k == 30 else 0)
            w.write('/joint_states', recv, w.joint_state(stamp, ('j1',), [k], [0], [1.0]))
    s = read_joint_states(tmp_path / 'ok.mcap', ['j1'])
    assert len(s) == 60 and np.all(np.diff(s.stamp_ns) > 0)
