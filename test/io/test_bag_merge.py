# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A finished recording is one bag (issue 14 item 5): PartedBagWriter.finalize / finalize_bag merge
the parts crash-safely (robot_id_ros.io.parted_bag)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import yaml
from rosbags.highlevel import AnyReader

from robot_id_ros.io.bags import (
    BAG_FORMAT_VERSION,
    BagWriter,
    count_messages,
    read_joint_states,
    read_messages,
    typestore,
)
from robot_id_ros.io.parted_bag import (
    MergeResult,
    PartedBagWriter,
    RecordingError,
    finalize_bag,
    merge_mcap_files,
)

ROOT = Path(__file__).resolve().parents[2]
JS = 'sensor_msgs/msg/JointState'
BOOL = 'std_msgs/msg/Bool'
T0 = 1_700_000_000_000_000_000
STEP = 1_000_000   # 1 kHz, ns


def _js(ts, stamp_ns, q):
    T = ts.types
    stamp = T['builtin_interfaces/msg/Time'](sec=int(stamp_ns // 10**9),
                                             nanosec=int(stamp_ns % 10**9))
    msg = T[JS](header=T['std_msgs/msg/Header'](stamp=stamp, frame_id=''), name=['a', 'b'],
                position=np.array([q, -q], dtype=float), velocity=np.zeros(2),
                effort=np.array([1.0, 2.0]))
    return ts.serialize_cdr(msg, JS)


def _write(w, ts, ks, commit_every=None):
    """JointState k at T0 + k ms, and a /flag Bool with every 20th; commits every commit_every."""
    flag = ts.serialize_cdr(ts.types[BOOL](data=True), BOOL)
    for n, k in enumerate(ks, 1):
        w.write('/joint_states', JS, T0 + k * STEP, _js(ts, T0 + k * STEP, k))
        if k % 20 == 0:
            w.write('/flag', BOOL, T0 + k * STEP, flag)
        if commit_every and n % commit_every == 0:
            w.commit()


def _raw(path):
    """(topic, bag time ns, type, CDR bytes) of every message, in the order AnyReader gives."""
    with AnyReader([Path(path)]) as r:
        return [(c.topic, t, c.msgtype, bytes(raw)) for c, t, raw in r.messages()]


def _parted(tmp_path, n=100, commit_every=25, name='run'):
    bag = tmp_path / name
    w = PartedBagWriter(bag)
    _write(w, typestore(), range(n), commit_every)
    return bag, w


def _files(bag):
    return sorted(p.name for p in bag.iterdir())


def test_parted_recording_merges_into_one_file_with_identical_messages(tmp_path):
    bag, w = _parted(tmp_path, n=110, commit_every=25)   # 4 commits + a 10-message open part
    assert w.committed_parts == 4
    parted = sorted(_raw(bag), key=lambda m: m[1])        # every committed message, by time
    parted_js = read_joint_states(bag, ['a', 'b'])
    res = w.finalize()                                    # commits the open part, then merges
    assert isinstance(res, MergeResult) and res.parts_merged == 5
    assert res.path == bag / 'run.mcap' and _files(bag) == ['metadata.yaml', 'run.mcap']
    assert res.message_count == 116 and res.topic_counts == {'/joint_states': 110, '/flag': 6}
    merged = _raw(bag)
    stamps = [m[1] for m in merged]
    assert stamps == sorted(stamps) and stamps[0] == T0 and stamps[-1] == T0 + 109 * STEP
    assert len(merged) == 116 and merged[:len(parted)] == parted[:len(parted)]
    assert sorted(merged) == sorted(parted + [m for m in merged if m[1] >= T0 + 100 * STEP])
    # the readers: the bag folder, the single .mcap file, per-topic counts, any topic
    s = read_joint_states(bag, ['a', 'b'])
    np.testing.assert_array_equal(s.q[:, 0], np.arange(110))
    np.testing.assert_array_equal(s.q[:100], parted_js.q)
    assert len(read_joint_states(bag / 'run.mcap', ['a', 'b'])) == 110
    assert count_messages(bag) == {'/joint_states': 110, '/flag': 6}
    assert len(read_messages(bag, '/flag')) == 6
    # metadata.yaml as ros2 bag info reads it
    info = yaml.safe_load((bag / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert info['version'] == BAG_FORMAT_VERSION and info['storage_identifier'] == 'mcap'
    assert info['relative_file_paths'] == ['run.mcap'] and len(info['files']) == 1
    assert info['files'][0]['path'] == 'run.mcap' and info['files'][0]["message_count"] == 116
    assert info["message_count"] == 116
    assert info['starting_time']['nanoseconds_since_epoch'] == T0
    assert info['duration']['nanoseconds'] == 109 * STEP
    counts = {t['topic_metadata']['name']: t['message_count']
              for t in info['topics_with_message_count']}
    assert counts == {'/joint_states': 110, '/flag': 6}
    for t in info['topics_with_message_count']:
        assert set(t['topic_metadata']) >= {'name', 'type', 'serialization_format',
                                            'offered_qos_profiles', 'type_description_hash'}
        assert t['topic_metadata']['type_description_hash'] == typestore().hash_rihs01(
            t['topic_metadata']['type'])
    for key in ('compression_format', 'compression_mode', 'custom_data', 'ros_distro'):
        assert key in info
    with AnyReader([bag]) as r:
        assert {(c.topic, c.msgtype, c.msgcount) for c in r.connections} == {
            ('/joint_states', JS, 110), ('/flag', BOOL, 6)}
    # done: finalize again (or finalize_bag) leaves it as it is
    assert w.finalize().parts_merged == 0 and finalize_bag(bag).parts_merged == 0
    assert _files(bag) == ['metadata.yaml', 'run.mcap']


def test_crash_mid_merge_keeps_the_parts_and_a_second_finalize_completes(tmp_path, monkeypatch):
    from rosbags.rosbag2 import Writer

    bag, w = _parted(tmp_path, n=100, commit_every=25)
    before = _raw(bag)
    orig, calls = Writer.write, []

    def failing_write(self, conn, t, data):
        calls.append(t)
        if len(calls) > 52:                   # half of the 105 messages written
            raise OSError(28, 'No space left on device')
        return orig(self, conn, t, data)

    monkeypatch.setattr(Writer, 'write', failing_write)
    with pytest.raises(RecordingError, match='No space left.*intact and readable'):
        w.finalize()
    monkeypatch.setattr(Writer, 'write', orig)
    assert _files(bag) == ['metadata.yaml'] + [f'run_{k:05d}.mcap' for k in range(4)]
    assert _raw(bag) == before and len(read_joint_states(bag, ['a', 'b'])) == 100
    res = w.finalize()
    assert res.parts_merged == 4 and _files(bag) == ['metadata.yaml', 'run.mcap']
    assert sorted(_raw(bag)) == sorted(before)


_KILL_SCRIPT = textwrap.dedent('''
    import os, signal, sys
    sys.path.insert(0, {root!r})
    from rosbags.rosbag2 import Writer
    from robot_id_ros.io import parted_bag as pb
    at = {at!r}
    die = lambda: os.kill(os.getpid(), signal.SIGKILL)
    if at == 'writing':            # half of the messages are in the hidden merge file
        orig, n = Writer.write, [0]
        def write(self, *a):
            n[0] += 1
            if n[0] > 52:
                die()
            return orig(self, *a)
        Writer.write = write
    elif at == 'moved':            # the merged file is in the bag folder, not yet listed
        pb.fsync_dir = lambda path: die()
    else:                          # listed in metadata.yaml, parts not yet deleted
        orig = pb.PartedBagWriter._write_metadata
        def write_metadata(self, parts, topics, template):
            orig(self, parts, topics, template)
            if parts[0]['path'] == self.merged_name:
                die()
        pb.PartedBagWriter._write_metadata = write_metadata
    pb.finalize_bag({bag!r})
''')


@pytest.mark.parametrize('at, leftover', [('writing', '.merge'), ('moved', 'run.mcap'),
                                          ('listed', 'run_00000.mcap')])
def test_sigkill_during_the_merge_leaves_a_readable_bag_that_a_rerun_merges(tmp_path, at,
                                                                            leftover):
    bag, _w = _parted(tmp_path, n=100, commit_every=25)
    before = sorted(_raw(bag))
    script = _KILL_SCRIPT.format(root=str(ROOT), at=at, bag=str(bag))
    p = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                       timeout=120, check=False)
    assert p.returncode == -9, p.stderr[-2000:]
    assert leftover in _files(bag)
    assert sorted(_raw(bag)) == before                # every message once, whatever was listed
    s = read_joint_states(bag, ['a', 'b'])
    np.testing.assert_array_equal(s.q[:, 0], np.arange(100))
    res = finalize_bag(bag)
    assert _files(bag) == ['metadata.yaml', 'run.mcap']
    assert res.parts_merged == (0 if at == 'listed' else 4)  # listed: only leftovers to delete
    assert sorted(_raw(bag)) == before


def test_resumed_then_finished_recording_merges(tmp_path):
    ts = typestore()
    bag, w = _parted(tmp_path, n=60, commit_every=25)     # 2 commits, 10 messages never committed
    del w                                                 # the recorder died
    w2 = PartedBagWriter(bag, resume=True)
    _write(w2, ts, range(100, 130), commit_every=20)
    res = w2.finalize()
    assert res.parts_merged == 4 and _files(bag) == ['metadata.yaml', 'run.mcap']
    s = read_joint_states(bag, ['a', 'b'])
    np.testing.assert_array_equal(s.q[:, 0], list(range(50)) + list(range(100, 130)))
    # a finished bag resumed once more: its merged file and the new parts merge again
    w3 = PartedBagWriter(bag, resume=True)
    assert w3.committed_parts == 1 and w3.messages_written == res.message_count
    _write(w3, ts, range(200, 210), commit_every=5)
    assert w3.committed_parts == 3
    res3 = w3.finalize()
    assert res3.parts_merged == 3 and _files(bag) == ['metadata.yaml', 'run.mcap']
    s = read_joint_states(bag, ['a', 'b'])
    np.testing.assert_array_equal(s.q[:, 0], list(range(50)) + list(range(100, 130))
                                  + list(range(200, 210)))
    assert res3.topic_counts == count_messages(bag) == {'/joint_states': 90, '/flag': 6}


def test_full_disk_during_the_merge_is_a_clear_error_and_the_parts_stay(tmp_path):
    bag, _w = _parted(tmp_path, n=100, commit_every=25)
    biggest = max(f.stat().st_size for f in bag.glob('*.mcap'))
    script = textwrap.dedent(f'''
        import resource, signal, sys
        sys.path.insert(0, {str(ROOT)!r})
        from robot_id_ros.io.parted_bag import finalize_bag, RecordingError
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        # room for a part, not for the merged file: writes fail like a full disk (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({biggest} + 4096, {biggest} + 4096))
        try:
            finalize_bag({str(bag)!r})
        except RecordingError as exc:
            print('ERROR', exc)
            sys.exit(3)
    ''')
    out = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 3, out.stderr[-2000:]
    assert 'File too large' in out.stdout and 'intact and readable' in out.stdout
    assert _files(bag) == ['metadata.yaml'] + [f'run_{k:05d}.mcap' for k in range(4)]
    assert len(read_joint_states(bag, ['a', 'b'])) == 100


def test_overlapping_files_merge_in_time_order(tmp_path):
    """Files whose times interleave (not what a recorder writes) are merged with a heap."""
    for name, offset in (('even', 0), ('odd', 1)):
        with BagWriter(tmp_path / name) as w:
            for k in range(offset, 40, 2):
                w.write('/joint_states', T0 + k * STEP,
                        w.joint_state(T0 + k * STEP, ['a', 'b'], [k, -k], [0, 0], [1, 2]))
    files = [tmp_path / 'odd' / 'odd.mcap', tmp_path / 'even' / 'even.mcap']
    assert merge_mcap_files(files, tmp_path / 'both') == {'/joint_states': 40}
    stamps = [m[1] for m in _raw(tmp_path / 'both')]
    assert stamps == [T0 + k * STEP for k in range(40)]


def test_nothing_to_merge_and_not_a_bag(tmp_path):
    w = PartedBagWriter(tmp_path / 'empty')
    assert w.finalize() == MergeResult(None)
    with pytest.raises(RecordingError, match='not a bag folder'):
        finalize_bag(tmp_path / 'empty')
    with pytest.raises(RecordingError, match='not a bag folder'):
        finalize_bag(tmp_path / 'missing')
    assert not (tmp_path / 'missing').exists()
    assert os.listdir(tmp_path / 'empty') == []
