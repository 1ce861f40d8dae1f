# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A recorder resumed under a driver whose clock restarted behind the recording (real DDS).

The static-pose recorder is killed after its first completed visit; the simulator restarts, its
clock from the same start again, so its joint states are stamped inside the recorded run.
Resuming would merge the two runs into one timeline (a static hold holding both runs' samples):
the recorder refuses with one line, adds nothing, and the recording stays as it was.
"""
import os
import signal
import time

from robot_id_ros.io.bags import read_joint_states, sidecar_path
from robot_id_ros.io.sidecar import read_sidecar
from test_recorders import ARM, FAST, _log, _wait, procs  # noqa: F401 - procs: the fixture


def test_resume_under_a_clock_behind_the_recording_is_refused(procs, tmp_path):  # noqa: F811
    sim = procs.sim()
    out = tmp_path / 'static'
    params = [f'output_path:={out}', 'pose_count:=2', 'window_s:=1.0', 'settle_dwell_s:=0.3',
              *FAST]
    rec = procs.recorder('static_pose_recorder', params, 'first')
    sc_file = sidecar_path(out)
    t_end = time.monotonic() + 120
    while time.monotonic() < t_end and not (sc_file.is_file()
                                            and read_sidecar(sc_file)['segments']):
        time.sleep(0.05)
    assert sc_file.is_file() and read_sidecar(sc_file)['segments'], _log(rec)[-3000:]
    os.kill(rec.pid, signal.SIGKILL)
    rec.wait()
    sim.send_signal(signal.SIGINT)
    sim.wait(timeout=30)
    before = read_sidecar(sc_file)
    series = read_joint_states(out, ARM)
    n_before, t_last = len(series), int(series.stamp_ns[-1])
    procs.sim()                          # its clock starts again at 1000 s: behind the recording
    rec = procs.recorder('static_pose_recorder', params, 'resumed')
    assert _wait(rec, 120) == 1, _log(rec)[-3000:]
    lines = [ln for ln in _log(rec).splitlines() if "the driver's clock is behind" in ln]
    assert lines and f'reach {t_last * 1e-9:.3f} s' in lines[0], _log(rec)[-3000:]
    print(f'refused: {lines[0]}')
    after = read_sidecar(sc_file)
    assert after['segments'] == before['segments'] and not after['complete']
    assert after['info']['status'] == 'failed'
    series = read_joint_states(out, ARM)           # every sample kept, none of the second run
    assert len(series) == n_before and int(series.stamp_ns[-1]) == t_last
