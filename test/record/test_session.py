# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""RecordingSession without ROS or DDS: resume rules, crash safety, final status, nothing lost."""
import numpy as np
import pytest

from robot_id_ros import record as rec
from robot_id_ros.io.bags import JOINT_STATE_TYPE, read_joint_states, sidecar_path, typestore
from robot_id_ros.io.sidecar import read_sidecar, write_sidecar
from robot_id_ros.record.session import (CANCELLED, FAILED, FINISHED, RUNNING, Progress,
                                         RecordingSession, SampleBuffer, StampedSample,
                                         error_text, eta_text)

JOINTS = ['a', 'b']
TOPIC = '/joint_states'


def _js_bytes(ts, stamp_ns, q):
    T = ts.types
    msg = T['sensor_msgs/msg/JointState'](
        header=T['std_msgs/msg/Header'](stamp=T['builtin_interfaces/msg/Time'](
            sec=int(stamp_ns // 10**9), nanosec=int(stamp_ns % 10**9)), frame_id=''),
        name=list(JOINTS), position=np.array([q, -q], dtype=float), velocity=np.zeros(2),
        effort=np.array([1.0, 2.0]))
    return ts.serialize_cdr(msg, msg.__msgtype__)


def _session(path, kind='static', **kw):
    lines = []
    s = RecordingSession(path, kind, JOINTS, 'torque', recorder='test_recorder',
                         info={'parameters': {'x': 1}}, log=lines.append, **kw)
    s.lines = lines
    return s


def _write(session, ts, ks):
    for k in ks:
        session.write(TOPIC, JOINT_STATE_TYPE, k * 10**7, _js_bytes(ts, k * 10**7, k))


def test_new_session_writes_bag_and_sidecar(tmp_path):
    ts = typestore()
    s = _session(tmp_path / 'run')
    assert not s.is_open and s.status is None
    s.open()
    assert s.is_open and s.status == RUNNING and not s.resumed
    sc = read_sidecar(sidecar_path(tmp_path / 'run'))
    assert sc['kind'] == 'static' and sc['joint_names'] == JOINTS and not sc['complete']
    assert sc['info']['recorder'] == 'test_recorder' and sc['info']['status'] == 'running'
    assert sc['info']['parameters'] == {'x': 1} and sc['segments'] == []
    _write(s, ts, range(10))
    s.add_segment({'type': 'static_hold', 't_start_ns': 0, 't_end_ns': 9 * 10**7,
                   'q_mean_rad': np.array([1.0, 2.0])})
    # the segment's data is on disk before the sidecar names it
    assert len(read_joint_states(tmp_path / 'run', JOINTS)) == 10
    sc = read_sidecar(sidecar_path(tmp_path / 'run'))
    assert sc['segments'][0]['q_mean_rad'] == [1.0, 2.0]      # stored as plain YAML


def test_resume_after_a_crash_loses_nothing_completed(tmp_path):
    ts = typestore()
    bag = tmp_path / 'run'
    s1 = _session(bag)
    s1.open()
    _write(s1, ts, range(10))
    s1.add_segment({'type': 'static_hold', 't_start_ns': 0, 't_end_ns': 9 * 10**7})
    _write(s1, ts, range(10, 15))          # in progress when the process dies: never finished
    before = read_sidecar(sidecar_path(bag))
    s2 = _session(bag)
    s2.open()
    assert s2.resumed and s2.info['resumed'] == 1 and s2.info['status'] == RUNNING
    assert s2.segments == before['segments']
    assert 'resuming' in s2.lines[0] and '1 segment(s) already complete' in s2.lines[0]
    assert '10 messages in 1 part(s)' in s2.lines[0]
    _write(s2, ts, range(20, 25))
    s2.add_segment({'type': 'static_hold', 't_start_ns': 20 * 10**7, 't_end_ns': 24 * 10**7})
    assert s2.finish(FINISHED) == (FINISHED, '')
    after = read_sidecar(sidecar_path(bag))
    assert after['complete'] and after['info']['status'] == FINISHED
    assert after['segments'][:1] == before['segments'] and len(after['segments']) == 2
    series = read_joint_states(bag, JOINTS)
    assert list(series.q[:, 0]) == list(range(10)) + list(range(20, 25))
    # a complete recording is never resumed
    with pytest.raises(rec.RecordingError, match='complete recording already'):
        _session(bag).open()


@pytest.mark.parametrize('setup, kw, match', [
    ('other_kind', {}, "it is a 'trajectory' recording, this is 'static'"),
    ('other_joints', {}, 'recorded joints'),
    ('no_sidecar', {}, 'has no sidecar'),
    ('plain', {'resume': False}, 'resume is false'),
])
def test_resume_rules_refuse_what_is_not_this_recording(tmp_path, setup, kw, match):
    bag = tmp_path / 'run'
    if setup == 'no_sidecar':
        bag.mkdir()
    else:
        s = _session(bag, kind='trajectory' if setup == 'other_kind' else 'static')
        s.open()
        if setup == 'other_joints':
            sc = read_sidecar(sidecar_path(bag))
            sc['joint_names'] = ['x', 'y']
            write_sidecar(sidecar_path(bag), sc)
    with pytest.raises(rec.RecordingError, match=match):
        _session(bag, **kw).open()


def test_bad_output_paths(tmp_path):
    with pytest.raises(rec.RecordingError, match='output_path is empty'):
        _session('').open()
    with pytest.raises(rec.RecordingError, match='single-file bag'):
        _session(tmp_path / 'run.mcap').open()
    with pytest.raises(rec.RecordingError, match='does not exist'):
        _session(tmp_path / 'missing' / 'run').open()


def test_final_status_failed_and_cancelled(tmp_path):
    ts = typestore()
    s = _session(tmp_path / 'failed')
    s.open()
    _write(s, ts, range(5))
    seen = []
    status, msg = s.finish(FAILED, ValueError('boom'), seen.append)
    assert (status, msg) == (FAILED, 'ValueError: boom') and not s.is_open
    sc = read_sidecar(sidecar_path(tmp_path / 'failed'))
    assert sc['info']['status'] == FAILED and sc['info']['error'] == 'ValueError: boom'
    assert not sc['complete'] and sc['info']['driver_timing']['messages'] == 5
    assert seen and seen[0] is s.info
    assert len(read_joint_states(tmp_path / 'failed', JOINTS)) == 5   # data kept
    s = _session(tmp_path / 'cancelled')
    s.open()
    assert s.finish(CANCELLED) == (CANCELLED, '')
    sc = read_sidecar(sidecar_path(tmp_path / 'cancelled'))
    assert sc['info']['status'] == CANCELLED and 'error' not in sc['info'] and not sc['complete']
    # a recording error reads as its message; a statistics hook that fails fails the run
    assert error_text(rec.RecordingError('disk full')) == 'disk full'
    s = _session(tmp_path / 'hook')
    s.open()
    status, msg = s.finish(FINISHED, None, lambda info: 1 / 0)
    assert status == FAILED and msg.startswith('ZeroDivisionError')


def test_failed_write_stops_writing_and_is_reported(tmp_path, monkeypatch):
    ts = typestore()
    s = _session(tmp_path / 'full')
    s.open()
    _write(s, ts, range(5))
    s.commit()
    err = rec.RecordingError('cannot write to the bag: disk full')

    def fail(*_args):
        raise err
    monkeypatch.setattr(s._writer, 'write', fail)
    with pytest.raises(rec.RecordingError):
        _write(s, ts, [5])
    assert not s.is_open
    assert s.write(TOPIC, JOINT_STATE_TYPE, 0, b'') is False
    with pytest.raises(rec.RecordingError) as caught:
        s.commit()
    assert caught.value is err
    status, msg = s.finish(FAILED, err)
    assert status == FAILED and msg == str(err)
    assert len(read_joint_states(tmp_path / 'full', JOINTS)) == 5


def test_commit_if_due(tmp_path):
    ts = typestore()
    s = _session(tmp_path / 'run')
    s.open()
    _write(s, ts, range(3))
    assert s.commit_if_due(10**9, 5 * 10**9) == 0        # first call: the reference
    assert s.commit_if_due(5 * 10**9, 5 * 10**9) == 0
    assert s.commit_if_due(7 * 10**9, 5 * 10**9) == 3
    assert len(read_joint_states(tmp_path / 'run', JOINTS)) == 3


def test_sample_buffer_horizon_between_after():
    b = SampleBuffer(horizon_s=1.0)
    assert b.latest() is None and b.after(0) == []
    for k in range(30):
        b.append(StampedSample(k * 10**8, np.array([k]), None, None))
    assert b.latest().stamp_ns == 29 * 10**8
    assert b.between(0, 10**10)[0].stamp_ns == 19 * 10**8       # 1 s kept
    assert [s.stamp_ns for s in b.between(20 * 10**8, 22 * 10**8)] == [2 * 10**9, 21 * 10**8,
                                                                       22 * 10**8]
    assert [s.stamp_ns for s in b.after(27 * 10**8)] == [28 * 10**8, 29 * 10**8]


def test_progress_lines():
    lines = []
    p = Progress(period_s=600.0, log=lines.append)
    p.start()
    p.report()
    p.report()                                  # within the period: nothing
    p.set(2, 4, 'pose 3 of 4')
    p.report(force=True)
    assert len(lines) == 2 and lines[1].startswith('pose 3 of 4 (2 of 4 done), elapsed 0 s')
    assert eta_text(10.0, 2, 3) == '15 s' and eta_text(10.0, 0, 3) == 'unknown'


def test_a_finished_recording_is_one_bag_file_and_a_cancelled_one_stays_parted(tmp_path):
    ts = typestore()
    s = _session(tmp_path / 'run')
    s.open()
    for chunk in (range(0, 10), range(10, 20), range(20, 30)):
        _write(s, ts, chunk)
        s.commit()
    _write(s, ts, range(30, 35))           # an uncommitted tail
    assert len(list((tmp_path / 'run').glob('*.mcap'))) >= 3
    assert s.finish(FINISHED) == (FINISHED, '')
    files = sorted(p.name for p in (tmp_path / 'run').glob('*.mcap'))
    assert files == ['run.mcap']
    assert len(read_joint_states(tmp_path / 'run', JOINTS)) == 35
    info = read_sidecar(sidecar_path(tmp_path / 'run'))['info']
    assert info['bag_file'] == 'run.mcap' and 'merge_error' not in info

    c = _session(tmp_path / 'cancelled')
    c.open()
    _write(c, ts, range(10))
    c.commit()
    _write(c, ts, range(10, 20))
    c.commit()
    assert c.finish(CANCELLED)[0] == CANCELLED
    assert len(list((tmp_path / 'cancelled').glob('*.mcap'))) == 2   # resumable as it is


def test_resume_under_a_clock_behind_the_recording_is_refused(tmp_path):
    # the driver restarted its clock: stamps of the second run fall inside the first one's
    ts = typestore()
    bag = tmp_path / 'run'
    s1 = _session(bag)
    s1.open()
    _write(s1, ts, range(100, 200))                   # 1.00 .. 1.99 s
    s1.add_segment({'type': 'static_hold', 't_start_ns': 10**9, 't_end_ns': 199 * 10**7})
    before = read_sidecar(sidecar_path(bag))           # then the recorder is killed
    s2 = _session(bag)
    s2.open()
    with pytest.raises(rec.RecordingError) as err:
        _write(s2, ts, range(150, 160))               # 1.50 s: 0.49 s behind the recording
    line = str(err.value)
    assert "the driver's clock is behind the recording" in line and '\n' not in line
    assert 'stamped 1.500 s' in line and 'reach 1.990 s' in line and 'new output_path' in line
    assert s2.write(TOPIC, JOINT_STATE_TYPE, 3 * 10**9, _js_bytes(ts, 3 * 10**9, 0)) is False
    assert s2.finish(FAILED, err.value)[0] == FAILED
    # every sample of the first run kept, none of the second: no hold mixes the two runs
    series = read_joint_states(bag, JOINTS)
    assert list(series.q[:, 0]) == list(range(100, 200))
    after = read_sidecar(sidecar_path(bag))
    assert after['segments'] == before['segments'] and not after['complete']
    assert after['info']['status'] == FAILED and 'clock is behind' in after['info']['error']
    # a driver whose clock runs on from the recording resumes it
    s3 = _session(bag)
    s3.open()
    _write(s3, ts, range(300, 310))
    assert s3.finish(FINISHED)[0] == FINISHED
    assert list(read_joint_states(bag, JOINTS).q[:, 0]) == list(range(100, 200)) + list(
        range(300, 310))
