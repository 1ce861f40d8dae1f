"""ROS-free tests of robot_id_ros.record.recording."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from robot_id_ros.record import recording as R
from robot_id_ros.io.bags import read_joint_states, typestore
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.io.sidecar import read_sidecar, write_sidecar

CANDLE = np.array((2.9496, 1.1344, -2.5482, 1.789, 2.9234))
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope='module')
def robot():
    return youbot_model()


# --- poses ----------------------------------------------------------------------------------
def test_generated_poses_within_limits_above_floor_and_better_conditioned(robot):
    ps = R.generate_poses(robot, 10, 0.1, floor_z_m=0.0, floor_clearance_m=0.05, seed=3, candidates=200)
    assert ps.poses.shape == (10, 5)
    R.check_poses(robot, ps.poses, 0.1, 0.0, 0.05)  # raises if any is outside
    assert np.allclose(ps.poses[:, 0], ps.poses[0, 0])  # joint 1 (vertical axis) is held
    assert ps.n_base == 8
    rng = np.random.default_rng(0)
    random_conds = [R.static_condition_number(robot, robot.random_configurations(10, rng, 0.1)) for _ in range(20)]
    assert ps.condition_number < np.median(random_conds)
    assert ps.condition_number == pytest.approx(R.static_condition_number(robot, ps.poses))


def test_check_poses_names_the_problem(robot):
    bad = CANDLE.copy()
    bad[2] = 0.05  # within the limit but not within the margin
    with pytest.raises(R.PoseError, match='pose 1: arm_joint_3 .* outside'):
        R.check_poses(robot, [CANDLE, bad], 0.1)
    # stretched forward and down: the tool goes below the floor
    low = np.array([2.9496, 2.6, -0.2, 1.789, 2.9234])
    with pytest.raises(R.PoseError, match='pose 0 is unreachable: .* below the floor'):
        R.check_poses(robot, [low], 0.05, floor_z_m=0.0)
    with pytest.raises(R.PoseError, match='4 values for 5 joints'):
        R.load_pose_list([[1, 2, 3, 4]], robot.joint_names)
    named = R.load_pose_list({'poses': [dict(zip(robot.joint_names, CANDLE))]}, robot.joint_names)
    assert np.allclose(named[0], CANDLE)


# --- motions --------------------------------------------------------------------------------
def test_point_to_point_respects_limits_and_ends_at_rest(robot):
    lim = R.SafetyLimits(0.1, [0.5, 0.5, 0.5, 0.8, 0.8], 1.0)
    q1 = CANDLE + np.array([0.5, -0.6, 0.3, 0.2, -1.0])
    m = R.plan_point_to_point(CANDLE, q1, lim)
    vp, ap, _, _ = R.motion_peaks(m, 0.001)
    v, a = lim.vectors(5)
    assert np.all(vp <= v * 1.001) and np.all(ap <= a * 1.001)
    assert np.max(vp / v) > 0.99 or np.max(ap / a) > 0.99  # time-optimal for this profile
    q, qd, qdd = m.evaluate(m.duration_s)
    assert np.allclose(q, q1) and np.allclose(qd, 0) and np.allclose(qdd, 0)


def test_approach_direction_and_clipping(robot):
    lim = R.SafetyLimits()
    lo, hi = lim.bounds(robot)
    target = CANDLE.copy()
    target[1] = lo[1]  # no room to come from below on joint 2
    m, signs = R.plan_approach(CANDLE, target, +1, 0.1, lim, lo, hi)
    assert signs[1] == 0 and signs[0] == 1
    # the last part moves every other joint upward into the target
    ts = np.linspace(m.starts[-2], m.duration_s, 50)
    qs = np.array([m.evaluate(t)[0] for t in ts])
    assert np.all(np.diff(qs[:, 0]) >= -1e-12) and np.allclose(qs[-1], target)
    m2, signs2 = R.plan_approach(CANDLE, CANDLE, -1, 0.1, lim, lo, hi)
    assert np.all(signs2 == -1)


def test_transition_matches_boundary_states():
    lim = R.SafetyLimits(0.0, 1.0, 2.0)
    start = (np.zeros(2), np.zeros(2), np.zeros(2))
    end = (np.array([0.3, -0.2]), np.array([0.4, -0.1]), np.array([0.5, 0.0]))
    m = R.plan_transition(start, end, lim, np.full(2, -1.0), np.full(2, 1.0))
    q, qd, qdd = m.evaluate(m.duration_s)
    assert np.allclose(q, end[0]) and np.allclose(qd, end[1]) and np.allclose(qdd, end[2])
    vp, ap, qmin, qmax = R.motion_peaks(m, 0.001)
    assert np.all(vp <= 1.001) and np.all(ap <= 2.001)
    with pytest.raises(R.RecordingError, match='no smooth transition'):
        R.plan_transition(start, end, lim, np.full(2, -0.1), np.full(2, 0.1), max_duration_s=5)


# --- settling and averaging -----------------------------------------------------------------
def test_settle_detector_dwell_and_timeout():
    d = R.SettleDetector(0.01, 0.5, 3.0)
    d.start(0.0)
    states = [d.update(t, [0.0], [0.1 if t < 1.0 else 0.001]) for t in np.arange(0, 2, 0.01)]
    first = states.index('settled')
    assert 1.49 <= first * 0.01 <= 1.52
    d2 = R.SettleDetector(0.01, 0.5, 1.0)
    d2.start(0.0)
    assert [d2.update(t, [0.0], [0.1]) for t in np.arange(0, 1.2, 0.1)][-1] == 'timeout'
    # without velocity: from position differences
    d3 = R.SettleDetector(0.01, 0.2, 5.0)
    d3.start(0.0)
    out = [d3.update(t, [min(t, 1.0) * 0.5]) for t in np.arange(0, 2, 0.01)]
    assert out[50] == 'settling' and out[-1] == 'settled'


def test_average_window_mean_std_and_too_short():
    rng = np.random.default_rng(1)
    N = 400
    stamps = (np.arange(N) * 5e6).astype(np.int64)
    true = np.array([1.0, -2.0])
    E = true + 0.05 * rng.standard_normal((N, 2))
    w = R.average_window(stamps, np.zeros((N, 2)), E, cutoff_hz=2.0)
    assert np.allclose(w.effort_mean, true, atol=0.02)
    assert np.allclose(w.effort_std, 0.05, rtol=0.15)
    assert np.all(w.effort_std_filtered < w.effort_std)
    assert w.samples == N and w.rate_hz == pytest.approx(200.0)
    with pytest.raises(R.RecordingError, match='at least 20'):
        R.average_window(stamps[:10], np.zeros((10, 2)), E[:10])


# --- friction sweeps ------------------------------------------------------------------------
def test_sweep_symmetric_about_gravity_extreme_and_zero(robot):
    lim = R.SafetyLimits()
    p = R.plan_friction_sweep(robot, CANDLE, 2, [0.1, 0.3], 0.6, lim, center_mode='extreme')
    q = CANDLE.copy()
    g = []
    for dq in (-1e-3, 0.0, 1e-3):
        q[2] = p.center_rad + dq
        g.append(robot.gravity_torque(q)[2])
    assert abs(g[1]) >= max(abs(g[0]), abs(g[2])) - 1e-9  # a local extreme
    assert len(p.passes) == 4 and [s.direction for s in p.passes] == [1, -1, 1, -1]
    fwd = p.passes[0].motion
    assert fwd.evaluate(0)[0][2] == pytest.approx(p.center_rad - p.amplitude_rad)
    assert fwd.evaluate(fwd.duration_s)[0][2] == pytest.approx(p.center_rad + p.amplitude_rad)
    t = 0.5 * sum(fwd.cruise)
    assert fwd.evaluate(t)[1][2] == pytest.approx(0.1)
    pz = R.plan_friction_sweep(robot, CANDLE, 1, [0.2], 0.6, lim, center_mode='zero')
    q = CANDLE.copy()
    q[1] = pz.center_rad
    assert abs(robot.gravity_torque(q)[1]) < 1e-3
    with pytest.raises(R.PoseError, match='exceeds the velocity limit'):
        R.plan_friction_sweep(robot, CANDLE, 1, [2.0], 0.6, lim)


def test_pairing_cancels_gravity_and_fit(robot):
    # synthetic: tau = g(q) + fc sign(v) + fv v, passes at three speeds
    fc, fv = 0.4, 0.9
    speeds = [0.1, 0.2, 0.4]
    fr = []
    for v in speeds:
        qf = np.linspace(0.5, 1.5, 200)
        qb = qf[::-1]
        g = 3.0 * np.cos(qf)
        fwd = g + fc + fv * v
        bwd = 3.0 * np.cos(qb) - fc - fv * v
        f, s, _, half_sum = R.pair_sweep_passes(qf, fwd, qb, bwd)
        assert f == pytest.approx(fc + fv * v, abs=1e-9)
        assert np.allclose(half_sum, 3.0 * np.cos(_), atol=0.02)
        fr.append(f)
    fc_hat, fv_hat = R.fit_coulomb_viscous(speeds, fr)
    assert fc_hat == pytest.approx(fc) and fv_hat == pytest.approx(fv)


# --- statistics -----------------------------------------------------------------------------
def test_timing_stats_and_tracking_monitor():
    t = np.arange(0, 1000) * 10_000_000
    t = np.delete(t, np.arange(500, 520))  # a 0.2 s gap
    s = R.timing_stats(t)
    assert s['rate_hz'] == pytest.approx(100.0) and s['gaps'] == 1
    assert s['dt_max_s'] == pytest.approx(0.21)
    m = R.TrackingMonitor(2, 0.05, consecutive=3)
    for e in (0.01, 0.06, 0.07):
        m.update([e, 0.0], [0.0, 0.0])
    assert not m.tripped
    m.update([0.08, 0], [0, 0])
    assert m.tripped and m.report()['max_rad'][0] == pytest.approx(0.08)


# --- crash-safe bag ---------------------------------------------------------------------------
def _js_bytes(ts, stamp_ns, q):
    T = ts.types
    msg = T['sensor_msgs/msg/JointState'](
        header=T['std_msgs/msg/Header'](stamp=T['builtin_interfaces/msg/Time'](sec=int(stamp_ns // 10**9),
                                                                                nanosec=int(stamp_ns % 10**9)),
                                        frame_id=''),
        name=['a', 'b'], position=np.array([q, -q], dtype=float), velocity=np.zeros(2), effort=np.array([1.0, 2.0]))
    return ts.serialize_cdr(msg, msg.__msgtype__)


def test_parted_writer_commit_resume_and_reader(tmp_path):
    ts = typestore()
    bag = tmp_path / 'run'
    w = R.PartedBagWriter(bag)
    for k in range(30):
        w.write('/joint_states', 'sensor_msgs/msg/JointState', k * 10**7, _js_bytes(ts, k * 10**7, k))
        if k % 10 == 9:
            assert w.commit() == 10
    w.write('/joint_states', 'sensor_msgs/msg/JointState', 10**9, _js_bytes(ts, 10**9, 99))  # never committed
    s = read_joint_states(bag, ['a', 'b'])
    assert len(s) == 30 and s.q[-1, 0] == 29
    w2 = R.PartedBagWriter(bag, resume=True)  # the open part of w is discarded
    assert w2.committed_parts == 3 and not list(bag.glob('.part_*'))
    w2.write('/joint_states', 'sensor_msgs/msg/JointState', 2 * 10**9, _js_bytes(ts, 2 * 10**9, 50))
    w2.close()
    s = read_joint_states(bag, ['a', 'b'])
    assert len(s) == 31 and s.q[-1, 0] == 50
    with pytest.raises(R.RecordingError, match='exists'):
        R.PartedBagWriter(bag)
    with pytest.raises(R.RecordingError, match='does not exist'):
        R.PartedBagWriter(tmp_path / 'no' / 'run')


_WRITER_SCRIPT = textwrap.dedent('''
    import sys, time, resource, signal
    sys.path.insert(0, {root!r}); sys.path.insert(0, {test!r})
    from test_recording import _js_bytes
    from robot_id_ros.record import recording as R
    from robot_id_ros.io.bags import typestore
    ts = typestore()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    w = R.PartedBagWriter({bag!r})
    k = 0
    try:
        while True:
            w.write('/joint_states', 'sensor_msgs/msg/JointState', k * 10**7, _js_bytes(ts, k * 10**7, k))
            k += 1
            if k % 50 == 0:
                w.commit()
                print('committed', k, flush=True)
                if {fsize} and k == 150:  # the disk fills up: no file may grow past fsize bytes
                    resource.setrlimit(resource.RLIMIT_FSIZE, ({fsize}, {fsize}))
            if {fsize} == 0:
                time.sleep(0.0005)
    except R.RecordingError as exc:
        print('ERROR', exc, flush=True)
        sys.exit(3)
''')


def test_parted_writer_survives_sigkill(tmp_path):
    bag = tmp_path / 'killed'
    script = _WRITER_SCRIPT.format(root=str(ROOT), test=str(Path(__file__).parent), bag=str(bag), fsize=0)
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
    script = _WRITER_SCRIPT.format(root=str(ROOT), test=str(Path(__file__).parent), bag=str(bag), fsize=2_000)
    out = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 3, out.stderr[-2000:]
    err = [ln for ln in out.stdout.splitlines() if ln.startswith('ERROR')][0]
    assert 'File too large' in err and 'intact and readable' in err
    n_committed = max(int(ln.split()[1]) for ln in out.stdout.splitlines() if ln.startswith('committed'))
    s = read_joint_states(bag, ['a', 'b'])
    assert len(s) == n_committed


def test_sidecar_effort_unit_former_spelling_reads_as_today(tmp_path):
    """Recorders wrote effort_unit 'torque_nm' / 'current_a' before the nodes shared 'torque' / 'current'."""
    for former, today in (('torque_nm', 'torque'), ('current_a', 'current'), ('torque', 'torque'),
                          ('current', 'current')):
        path = tmp_path / f'{former}.segments.yaml'
        write_sidecar(path, {'kind': 'static', 'bag': 'b', 'joint_names': ['a'], 'effort_unit': former,
                             'complete': True, 'info': {}, 'segments': []})
        assert read_sidecar(path)['effort_unit'] == today
