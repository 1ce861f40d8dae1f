# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The crash-safe bag writer: commit, resume, SIGKILL, full disk (robot_id_ros.io.parted_bag)."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from robot_id_ros.io.bags import read_joint_states, typestore
from robot_id_ros.io.parted_bag import PartedBagWriter, RecordingError

ROOT = Path(__file__).resolve().parents[2]


def _js_bytes(ts, stamp_ns, q):
    T = ts.types
    msg = T['sensor_msgs/msg/JointState'](header=T['std_msgs/msg/Header'](
        stamp=T['builtin_interfaces/msg/Time'](sec=int(stamp_ns // 10**9),
                                               nanosec=int(stamp_ns % 10**9)), frame_id=''),
                                          name=['a', 'b'], position=np.array([q, -q], dtype=float),
                                          velocity=np.zeros(2), effort=np.array([1.0, 2.0]))
    return ts.serialize_cdr(msg, msg.__msgtype__)


def test_parted_writer_commit_resume_and_reader(tmp_path):
    ts = typestore()
    bag = tmp_path / 'run'
    w = PartedBagWriter(bag)
    for k in range(30):
        w.write('/joint_states', 'sensor_msgs/msg/JointState', k * 10**7,
                _js_bytes(ts, k * 10**7, k))
        if k % 10 == 9:
            assert w.commit() == 10
    w.write('/joint_states', 'sensor_msgs/msg/JointState', 10**9, _js_bytes(ts, 10**9,
                                                                            99))  # never committed
    s = read_joint_states(bag, ['a', 'b'])
    assert len(s) == 30 and s.q[-1, 0] == 29
    w2 = PartedBagWriter(bag, resume=True)  # the open part of w is discarded
    assert w2.committed_parts == 3 and not list(bag.glob('.part_*'))
    w2.write('/joint_states', 'sensor_msgs/msg/JointState', 2 * 10**9,
             _js_bytes(ts, 2 * 10**9, 50))
    w2.close()
    s = read_joint_states(bag, ['a', 'b'])
    assert len(s) == 31 and s.q[-1, 0] == 50
    with pytest.raises(RecordingError, match='exists'):
        PartedBagWriter(bag)
    with pytest.raises(RecordingError, match='does not exist'):
        PartedBagWriter(tmp_path / 'no' / 'run')


_WRITER_SCRIPT = textwrap.dedent('''
    import sys, time, resource, signal
    sys.path.insert(0, {root!r}); sys.path.insert(0, {test!r})
    from test_parted_bag import _js_bytes
    from robot_id_ros.io.parted_bag import PartedBagWriter, RecordingError
    from robot_id_ros.io.bags import typestore
    ts = typestore()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    w = PartedBagWriter({bag!r})
    k = 0
    try:
        while True:
            w.write('/joint_states', 'sensor_msgs/msg/JointState', k * 10**7,
                    _js_bytes(ts, k * 10**7, k))
            k += 1
            if k % 50 == 0:
                w.commit()
                print('committed', k, flush=True)
                if {fsize} and k == 150:  # the disk fills up: no file may grow past fsize bytes
                    resource.setrlimit(resource.RLIMIT_FSIZE, ({fsize}, {fsize}))
            if {fsize} == 0:
                time.sleep(0.0005)
    except RecordingError as exc:
        print('ERROR', exc, flush=True)
        sys.exit(3)
''')


def test_parted_writer_survives_sigkill(tmp_path):
    bag = tmp_path / 'killed'
    script = _WRITER_SCRIPT.format(root=str(ROOT), test=str(Path(__file__).parent), bag=str(bag),
                                   fsize=0)
    p = subprocess.Popen([sys.executable, '-c', script], stdout=subprocess.PIPE, text=True)
    committed = 0
    while committed < 200:
        line = p.stdout.readline()
        assert line, 'writer exited early'
        committed = int(line.split()[1])
    time.sleep(0.03)  # in the middle of the next part
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    s = read_joint_states(bag, ['a', 'b'])
    assert len(s) >= committed and len(s) % 50 == 0
    assert np.array_equal(s.q[:, 0], np.arange(len(s)))


def test_parted_writer_full_disk_is_clear_error_and_data_kept(tmp_path):
    bag = tmp_path / 'full'
    # a per-file size limit makes writes fail like a full disk (EFBIG) once a part grows past it
    script = _WRITER_SCRIPT.format(root=str(ROOT), test=str(Path(__file__).parent), bag=str(bag),
                                   fsize=2_000)
    out = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 3, out.stderr[-2000:]
    err = [ln for ln in out.stdout.splitlines() if ln.startswith('ERROR')][0]
    assert 'File too large' in err and 'intact and readable' in err
    n_committed = max(
        int(ln.split()[1]) for ln in out.stdout.splitlines() if ln.startswith('committed'))
    s = read_joint_states(bag, ['a', 'b'])
    assert len(s) == n_committed


def test_record_package_re_exports_the_writer():
    """The recorders use ``rec.PartedBagWriter`` / ``rec.RecordingError`` (robot_id_ros.record)."""
    from robot_id_ros import record as rec

    assert rec.PartedBagWriter is PartedBagWriter and rec.RecordingError is RecordingError
