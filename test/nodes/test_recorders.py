# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Integration tests of the recorder nodes against the simulated youBot driver (real DDS).

The simulator and the recorders run as subprocesses on a test-private ROS domain; the sim runs
faster than real time (real_time_factor) and the recorders follow its /clock (use_sim_time).
"""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

from ros_helpers import isolated_env, unique_domain_id
from robot_id_ros import record as R
from robot_id_ros.io.bags import read_joint_states, sidecar_path
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.io.sidecar import read_sidecar
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.true_parameters import make_true_parameters

ARM = [f'arm_joint_{i}' for i in range(1, 6)]
RTF = 6.0
SEED = 3
# command_lead_s: at RTF 6 the default 0.3 s of sim time is 50 ms of wall time; on a loaded machine
# a command can arrive later than that, the simulated drives then start it on arrival (never in the
# past) and the recorder's tracking reference runs ahead of the arm (a flaky 'tracking error'
# abort)
FAST = ['max_velocity_rad_s:=0.8', 'max_acceleration_rad_s2:=1.5', 'command_lead_s:=1.5']


def _ros_args(params):
    out = ['--ros-args']
    for p in params:
        out += ['-r' if p.startswith('__') else '-p', p]
    return out


class Procs:
    def __init__(self, tmp_path):
        self.domain = unique_domain_id()
        self.env = isolated_env(self.domain)
        self.tmp = tmp_path
        self.procs = []

    def start(self, module, params, name):
        log = open(self.tmp / f'{name}.log', 'w')
        p = subprocess.Popen([sys.executable, '-m', module] + _ros_args(params), env=self.env,
                             stdout=log, stderr=subprocess.STDOUT)
        p.log_path = self.tmp / f'{name}.log'
        self.procs.append(p)
        return p

    def sim(self, *extra):
        return self.start('robot_id_ros.ros.nodes.youbot_sim',
                          [f'real_time_factor:={RTF}', 'publish_rate_hz:=50.0', f'seed:={SEED}',
                           'start_time_sec:=1000.0', *extra], 'sim')

    def recorder(self, module, params, name, sim_time=True):
        return self.start(f'robot_id_ros.ros.nodes.{module}',
                          [f'use_sim_time:={"true" if sim_time else "false"}', 'autostart:=true',
                           'shutdown_when_done:=true', 'progress_period_s:=2.0', *params], name)

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.fixture
def procs(tmp_path):
    pr = Procs(tmp_path)
    yield pr
    pr.close()


def _wait(p, timeout):
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        pytest.fail(f'process did not finish in {timeout} s; log:\n' +
                    p.log_path.read_text()[-4000:])


def _true():
    robot = youbot_model()
    tp = make_true_parameters(robot, SimConfig(seed=SEED))
    true_robot = robot.copy()
    true_robot.set_standard_parameters(tp.standard_parameters)
    return true_robot, tp


def _log(p):
    return p.log_path.read_text()


# ------------------------------------------------------------------------------------------------
def test_static_session_matches_true_gravity(procs, tmp_path):
    procs.sim()
    out = tmp_path / 'static'
    rec = procs.recorder(
        'static_pose_recorder',
        [f'output_path:={out}', 'pose_count:=5', 'window_s:=1.5', 'settle_dwell_s:=0.4', *FAST],
        'static')
    assert _wait(rec, 150) == 0, _log(rec)[-4000:]
    sc = read_sidecar(sidecar_path(out))
    assert sc['complete'] and sc['kind'] == 'static' and sc['info']['status'] == 'finished'
    assert sc['effort_unit'] == 'torque'          # the spelling every node uses
    assert sc['info']['joint_states_refused']['rejected'] == 0   # no real state taken for bad
    segs = sc['segments']
    assert len(segs) == 10 and {(s['pose_index'], s['approach'])
                                for s in segs} == {(i, d)
                                                   for i in range(5)
                                                   for d in (1, -1)}
    series = read_joint_states(out, ARM)          # the bag is a normal rosbag2 bag
    true_robot, tp = _true()
    band = tp.friction.breakaway_nm
    errs, pair_errs = [], []
    for s in segs:
        w = series.slice_stamp(s['t_start_ns'], s['t_end_ns'])
        assert len(w) == s['samples']
        assert np.allclose(w.effort.mean(0), s['effort_mean'], atol=0.02)
        g = true_robot.gravity_torque(np.array(s['q_mean_rad']))
        errs.append(np.array(s['effort_mean']) - g)
    errs = np.array(errs)
    for i in range(5):
        a, b = [np.array(s['effort_mean']) for s in segs if s['pose_index'] == i]
        q = np.mean([s['q_mean_rad'] for s in segs if s['pose_index'] == i], axis=0)
        pair_errs.append(0.5 * (a + b) - true_robot.gravity_torque(q))
    pair_errs = np.array(pair_errs)
    print('static: max |effort - g| per joint (Nm):', np.abs(errs).max(0).round(4))
    print('static: max |pair mean - g| per joint (Nm):', np.abs(pair_errs).max(0).round(4))
    print('static: stiction band (breakaway, Nm):', band.round(3))
    noise = 4 * 0.010 * SimConfig().drive_gains_nm_a  # 4 sigma of the current noise, at the joint
    assert np.all(np.abs(errs) <= band + noise)
    assert np.all(np.abs(pair_errs) <= band + noise)
    cond = sc['info']['gravity_regressor_condition_number']
    assert 1.0 <= cond < 20.0


def test_sweep_pairing_recovers_true_friction(procs, tmp_path):
    procs.sim()
    out = tmp_path / 'sweep'
    rec = procs.recorder('friction_sweep_recorder', [
        f'output_path:={out}', "sweep_joints:=['arm_joint_2','arm_joint_3']",
        'speeds_rad_s:=[0.1,0.2,0.4]', 'amplitude_rad:=0.4', 'settle_s:=0.3', *FAST
    ], 'sweep')
    assert _wait(rec, 200) == 0, _log(rec)[-4000:]
    sc = read_sidecar(sidecar_path(out))
    assert sc['complete']
    segs = sc['segments']
    assert len(segs) == 12
    series = read_joint_states(out, ARM)
    _, tp = _true()
    fr = tp.friction
    for jn in ('arm_joint_2', 'arm_joint_3'):
        j = ARM.index(jn)
        speeds, f = [], []
        for si in range(3):
            pair = {s['direction']: s for s in segs if s['joint'] == jn and s['speed_index'] == si}
            fw = series.slice_stamp(pair[1]['t_start_ns'], pair[1]['t_end_ns'])
            bw = series.slice_stamp(pair[-1]['t_start_ns'], pair[-1]['t_end_ns'])
            # the segment really is constant velocity at the stated speed
            assert np.median(fw.qd[:, j]) == pytest.approx(pair[1]['speed_rad_s'], rel=0.05)
            assert np.median(bw.qd[:, j]) == pytest.approx(-pair[1]['speed_rad_s'], rel=0.05)
            fi, _, _, _ = R.pair_sweep_passes(fw.q[:, j], fw.effort[:, j], bw.q[:, j],
                                              bw.effort[:, j])
            speeds.append(pair[1]['speed_rad_s'])
            f.append(fi)
        fc, fv = R.fit_coulomb_viscous(speeds, f)
        fc_true = 0.5 * (fr.coulomb_pos_nm[j] + fr.coulomb_neg_nm[j])
        fv_true = fr.viscous_nm_s_rad[j]
        print(
            f'sweep {jn}: Coulomb {fc:.4f} (true {fc_true:.4f}) Nm, '
            f'viscous {fv:.4f} (true {fv_true:.4f}) Nm s/rad')
        assert fc == pytest.approx(fc_true, rel=0.1, abs=0.03)
        assert fv == pytest.approx(fv_true, rel=0.15, abs=0.05)
        est = sc['info']['friction_estimate'][jn]
        assert est['coulomb_nm'] == pytest.approx(fc, abs=0.02)


def test_static_recorder_sigkill_and_resume(procs, tmp_path):
    procs.sim()
    out = tmp_path / 'killed'
    params = [
        f'output_path:={out}', 'pose_count:=4', 'window_s:=1.0', 'settle_dwell_s:=0.3', *FAST
    ]
    rec = procs.recorder('static_pose_recorder', params, 'static1')
    sc_file = sidecar_path(out)
    t_end = time.monotonic() + 120
    n_before = 0
    while time.monotonic() < t_end and rec.poll() is None:
        if sc_file.is_file():
            n_before = len(read_sidecar(sc_file)['segments'])
            if n_before >= 3:
                break
        time.sleep(0.05)
    assert n_before >= 3, _log(rec)[-3000:]
    time.sleep(0.5)  # into the next pose
    os.kill(rec.pid, signal.SIGKILL)
    rec.wait()
    before = read_sidecar(sc_file)
    n_killed = len(before['segments'])
    assert not before['complete']
    mid = read_joint_states(out, ARM)  # readable right after the kill
    for s in before['segments']:
        assert len(mid.slice_stamp(s['t_start_ns'], s['t_end_ns'])) == s['samples']
    rec2 = procs.recorder('static_pose_recorder', params, 'static2')
    assert _wait(rec2, 150) == 0, _log(rec2)[-4000:]
    assert 'resuming' in _log(rec2)
    after = read_sidecar(sc_file)
    keys = [(s['pose_index'], s['approach']) for s in after['segments']]
    print(f'sigkill: {n_killed} visits done before the kill, {len(keys)} after the restart')
    assert after['complete'] and len(keys) == 8 and len(set(keys)) == 8
    assert after['segments'][:n_killed] == before[
        'segments']  # nothing completed was lost or redone
    series = read_joint_states(out, ARM)
    for s in after['segments']:
        assert len(series.slice_stamp(s['t_start_ns'], s['t_end_ns'])) == s['samples']


# ------------------------------------------------------------------------------------------------
def test_bad_inputs_are_clear_errors(procs, tmp_path):
    # a driver that never publishes (no sim)
    out = tmp_path / 'nodriver'
    rec = procs.recorder('static_pose_recorder',
                         [f'output_path:={out}', 'pose_count:=3', 'startup_timeout_s:=2.0'],
                         'nodriver', sim_time=False)
    assert _wait(rec, 60) == 1
    assert 'no joint state from the driver on /joint_states within 2 s' in _log(rec)
    sc = read_sidecar(sidecar_path(out))
    assert sc['info']['status'] == 'failed' and not sc['complete']
    # poses outside the limits: refused at start, naming pose and joint
    poses = tmp_path / 'poses.yaml'
    poses.write_text(yaml.safe_dump([[2.9, 1.1, -2.5, 1.8, 2.9], [2.9, 1.1, -0.01, 1.8, 2.9]]))
    rec = procs.recorder('static_pose_recorder',
                         [f'output_path:={tmp_path / "x"}', f'poses_file:={poses}'], 'badpose',
                         sim_time=False)
    assert _wait(rec, 60) == 2
    assert 'pose 1: arm_joint_3 = -0.0100 rad is outside its limits' in _log(rec)
    # unwritable output path
    rec = procs.recorder(
        'static_pose_recorder',
        ['output_path:=/proc/nope/bag', 'pose_count:=3', 'startup_timeout_s:=1.0'], 'unwritable',
        sim_time=False)
    assert _wait(rec, 60) == 1
    assert 'output folder /proc/nope does not exist' in _log(rec)
    # the former effort_unit spelling: refused at start, naming the current one
    rec = procs.recorder('static_pose_recorder',
                         [f'output_path:={tmp_path / "y"}', 'effort_unit:=torque_nm'], 'oldunit',
                         sim_time=False)
    assert _wait(rec, 60) == 2
    assert ("effort_unit must be 'torque' or 'current', got 'torque_nm' (renamed: use 'torque')"
            in _log(rec))


def test_driver_stopping_mid_run_keeps_data(procs, tmp_path):
    sim = procs.sim()
    out = tmp_path / 'stops'
    rec = procs.recorder('static_pose_recorder', [
        f'output_path:={out}', 'pose_count:=4', 'window_s:=1.0', 'settle_dwell_s:=0.3',
        'driver_timeout_s:=1.0', *FAST
    ], 'stops')
    sc_file = sidecar_path(out)
    t_end = time.monotonic() + 120
    while time.monotonic() < t_end:
        if sc_file.is_file() and len(read_sidecar(sc_file)['segments']) >= 1:
            break
        time.sleep(0.05)
    sim.send_signal(signal.SIGKILL)
    assert _wait(rec, 60) == 1
    assert 'the driver stopped publishing on joint_states' in _log(rec)
    sc = read_sidecar(sc_file)
    assert sc['info']['status'] == 'failed' and 'stopped publishing' in sc['info']['error']
    series = read_joint_states(out, ARM)
    assert len(sc['segments']) >= 1
    assert series.stamp_ns[-1] >= sc['segments'][-1]['t_end_ns']


def _excitation_file(path, period_s=4.0):
    from robot_id_ros.record.excitation import FourierTrajectory

    n = 5
    amp = np.array([0.0, 0.15, 0.2, 0.2, 0.0])
    a = np.stack([amp, -amp], axis=1)          # qd(0) = sum a = 0
    b = np.zeros((n, 2))                       # qdd(0) = sum l b = 0
    q0 = np.array([2.9496, 1.1344, -2.5482, 1.789, 2.9234])
    FourierTrajectory(tuple(ARM), period_s, a, b, q0).save(path)
    return path


def test_trajectory_periods_tracking_and_abort(procs, tmp_path):
    procs.sim()
    traj = _excitation_file(tmp_path / 'exc.yaml')
    out = tmp_path / 'traj'
    rec = procs.recorder('trajectory_recorder',
                         [f'output_path:={out}', f'trajectory_file:={traj}', 'periods:=3', *FAST],
                         'traj')
    assert _wait(rec, 120) == 0, _log(rec)[-4000:]
    sc = read_sidecar(sidecar_path(out))
    assert sc['complete'] and sc['kind'] == 'trajectory'
    segs = sc['segments']
    assert [s['period_index'] for s in segs] == [0, 1, 2]
    assert all(abs((s['t_end_ns'] - s['t_start_ns']) * 1e-9 - 4.0) < 1e-6 for s in segs)
    timing = sc['info']['driver_timing']
    tracking = sc['info']['tracking']
    print(
        f"trajectory: driver {timing['rate_hz']:.1f} Hz, "
        f"jitter {timing['jitter_std_s'] * 1e3:.2f} ms, "
        f"gaps {timing['gaps']}; tracking max {max(tracking['max_rad']):.4f} rad, "
        f"rms {max(tracking['rms_rad']):.4f} rad")
    assert timing['rate_hz'] == pytest.approx(50.0, rel=0.02) and timing['gaps'] == 0
    assert max(tracking['max_rad']) < 0.05
    series = read_joint_states(out, ARM)
    p = [series.slice_stamp(s['t_start_ns'], s['t_end_ns']) for s in segs]
    m = min(len(x) for x in p)
    assert m >= 195
    # the periods repeat: period 2 and 3 agree sample by sample within the tracking error
    assert np.max(np.abs(p[1].q[:m - 1] - p[2].q[:m - 1])) < 0.02
    # the periods really move (the bag is of the excitation, not of a still arm)
    assert np.ptp(p[1].q[:, 2]) > 0.2
    # a tracking limit the controller cannot meet: stopped, clear error, data kept
    out2 = tmp_path / 'traj_abort'
    rec = procs.recorder('trajectory_recorder', [
        f'output_path:={out2}', f'trajectory_file:={traj}', 'periods:=3',
        'max_tracking_error_rad:=0.002', *FAST
    ], 'traj_abort')
    assert _wait(rec, 120) == 1
    assert 'exceeds max_tracking_error_rad 0.002: arm stopped' in _log(rec)
    sc2 = read_sidecar(sidecar_path(out2))
    assert sc2['info']['status'] == 'failed' and not sc2['complete']
    assert len(read_joint_states(out2, ARM)) > 10


def test_cancel_service_and_passive_mode(procs, tmp_path):
    import rclpy
    from rclpy.context import Context
    from rclpy.node import Node
    from std_srvs.srv import Trigger

    procs.sim()
    out = tmp_path / 'cancelled'
    rec = procs.start('robot_id_ros.ros.nodes.static_pose_recorder', [
        'use_sim_time:=true', 'shutdown_when_done:=true', f'output_path:={out}', 'pose_count:=4',
        'window_s:=1.0', 'settle_dwell_s:=0.3', *FAST
    ], 'cancel')
    passive_out = tmp_path / 'passive'
    passive = procs.recorder('static_pose_recorder', [
        f'output_path:={passive_out}', 'passive:=true', '__node:=passive_recorder',
        'window_s:=1.0', 'settle_dwell_s:=0.3'
    ], 'passive')
    ctx = Context()
    rclpy.init(context=ctx, domain_id=procs.domain)
    try:
        from rclpy.executors import SingleThreadedExecutor

        node = Node('probe', context=ctx)
        ex = SingleThreadedExecutor(context=ctx)
        ex.add_node(node)
        start = node.create_client(Trigger, '/static_pose_recorder/start')
        cancel = node.create_client(Trigger, '/static_pose_recorder/cancel')

        def call(cli):
            assert cli.wait_for_service(timeout_sec=20.0)
            fut = cli.call_async(Trigger.Request())
            t_end = time.monotonic() + 60
            while not fut.done() and time.monotonic() < t_end:
                ex.spin_once(timeout_sec=0.05)
            return fut.result()

        r = call(start)
        assert r.success, r.message
        sc_file = sidecar_path(out)
        t_end = time.monotonic() + 90
        while time.monotonic() < t_end and not (sc_file.is_file() and
                                                read_sidecar(sc_file)['segments']):
            time.sleep(0.05)
        r = call(cancel)
        assert r.success, r.message
    finally:
        rclpy.shutdown(context=ctx)
    assert _wait(rec, 60) == 3, _log(rec)[-3000:]
    sc = read_sidecar(sidecar_path(out))
    assert sc['info']['status'] == 'cancelled' and not sc['complete'] and len(sc['segments']) >= 1
    series = read_joint_states(out, ARM)
    assert series.stamp_ns[-1] >= sc['segments'][-1]['t_end_ns']
    # the passive recorder saw the other recorder's poses: static holds recorded without commanding
    passive.send_signal(signal.SIGINT)
    assert _wait(passive, 30) in (0, 3)
    psc = read_sidecar(sidecar_path(passive_out))
    assert psc['kind'] == 'passive' and psc['info']['parameters']['passive']
    assert len(psc['segments']) >= 1, _log(passive)[-3000:]
    assert len(read_joint_states(passive_out, ARM)) > 100
