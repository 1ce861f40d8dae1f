# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Recorders through the real youBot driver's interfaces, against the simulator (real DDS).

The simulator runs in the namespace ``arm_1`` (so its action and position command carry the real
driver's names) with joint states on ``/joint_states`` (the real driver's remap); the recorders use
their defaults for the driver's names. brics_actuator and control_msgs are built once by the
``interface_packages`` fixture (tools/build_interfaces.py, cached) and put into the nodes'
environment only: without them, choosing those interfaces is one clear line.
"""
import json
import re
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from interface_packages import with_interfaces
from robot_id_ros.io.bags import read_joint_states, sidecar_path
from robot_id_ros.io.sidecar import read_sidecar
from test_recorders import ARM, FAST, Procs, _excitation_file, _log, _wait

DRIVER_NAMES = ['__ns:=/arm_1', 'joint_states_topic:=/joint_states']
NEW_INTERFACES = ('follow_joint_trajectory', 'brics_position')
CANCEL_BUDGET_S = 0.1      # sim time from the cancel request to the goal cancelled / stream end
# streamed set points need a link close to real time: the streaming runs play the simulation at 2x
# (not 6x) real time and send each set point 0.3 s of sim time (150 ms of wall time) before its
# time, so that a loaded machine delays none of them past it (with 3x and 0.15 s, two busy loops
# beside the suite starved the sender up to 85 ms of wall time: 3-12 set points arrived past their
# time, and the periods differed by 0.036 rad)
STREAM_SIM = {'brics_position': ['real_time_factor:=2.0']}
STREAM_SLACK = {'brics_position': ['stream_lead_s:=0.3']}
# the bounds of 'trajectory' (test_recorders): max |measured - planned| and period to period, rad
TRACKING_BOUNDS = (0.05, 0.02)


@pytest.fixture
def driver_procs(tmp_path, interface_packages):
    pr = Procs(tmp_path)
    pr.env = with_interfaces(pr.env, interface_packages)
    yield pr
    pr.close()


# static poses through the driver's interfaces: test_youbot_twin's
# test_static_pose_recorder_through_the_twin (the same recorder and bounds against the twin, as
# youbot_bringup runs it; a second copy here cost ~45 s of the suite)


# brics: the simulator takes the queued set points before every physics step, so a tick that
# catches up several publish periods on a loaded machine follows the stream (taken once per tick,
# the arm waited at the newest set point: 0.09-0.15 rad max error here)
@pytest.mark.parametrize('interface', NEW_INTERFACES)
def test_trajectory_recorder_through_driver_interface(driver_procs, tmp_path, interface):
    driver_procs.sim(*DRIVER_NAMES, *STREAM_SIM.get(interface, []))
    traj = _excitation_file(tmp_path / 'exc.yaml')
    out = tmp_path / 'traj'
    rec = driver_procs.recorder('trajectory_recorder', [
        f'output_path:={out}', f'trajectory_file:={traj}', 'periods:=3',
        f'command_interface:={interface}', *FAST, *STREAM_SLACK.get(interface, [])], interface)
    assert _wait(rec, 120) == 0, _log(rec)[-4000:]
    sc = read_sidecar(sidecar_path(out))
    segs = sc['segments']
    assert sc['complete'] and [s['period_index'] for s in segs] == [0, 1, 2]
    tracking = sc['info']['tracking']
    print(f"{interface}: tracking max {max(tracking['max_rad']):.4f} rad, "
          f"rms {max(tracking['rms_rad']):.4f} rad")
    max_rad, repeat_rad = TRACKING_BOUNDS
    assert max(tracking['max_rad']) < max_rad
    if interface == 'brics_position':        # every set point of the 3 periods of 4 s at 50 Hz
        stream = sc['info']['command_stream']
        print(f'stream: {stream}')
        assert stream['sends'] >= 3 * 4.0 * 50 and stream['lead_s'] == 0.3
    series = read_joint_states(out, ARM)
    p = [series.slice_stamp(s['t_start_ns'], s['t_end_ns']) for s in segs]
    m = min(len(x) for x in p)
    assert m >= 195
    assert np.max(np.abs(p[1].q[:m - 1] - p[2].q[:m - 1])) < repeat_rad
    assert np.ptp(p[1].q[:, 2]) > 0.2


PROBE = textwrap.dedent('''
    import json, sys, rclpy
    from rclpy.node import Node
    from rclpy.qos import qos_profile_sensor_data
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    from action_msgs.msg import GoalStatusArray
    from brics_actuator.msg import JointPositions
    rclpy.init()
    node = Node('command_probe')
    out = open(sys.argv[1], 'w', buffering=1)
    now = [0]
    def clock(m):
        now[0] = m.clock.sec * 10**9 + m.clock.nanosec
    def js(m):
        out.write(json.dumps({'k': 'js', 't': m.header.stamp.sec * 10**9 + m.header.stamp.nanosec,
                              'q': list(m.position[:5]), 'qd': list(m.velocity[:5])}) + '\\n')
    def status(m):
        out.write(json.dumps({'k': 'status', 't': now[0],
                              's': [s.status for s in m.status_list]}) + '\\n')
    def setpoint(m):
        out.write(json.dumps({'k': 'setpoint', 't': now[0]}) + '\\n')
    node.create_subscription(Clock, '/clock', clock, 10)
    node.create_subscription(JointState, '/joint_states', js, qos_profile_sensor_data)
    node.create_subscription(GoalStatusArray,
                             '/arm_1/arm_controller/follow_joint_trajectory/_action/status',
                             status, 10)
    node.create_subscription(JointPositions, '/arm_1/arm_controller/position_command',
                             setpoint, 100)
    out.write(json.dumps({'k': 'ready'}) + '\\n')
    try:
        rclpy.spin(node)
    except Exception:
        pass
''')


def _read_probe(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _wait_for_probe_stamp(path, t_ns, timeout_s):
    """Wait until the probe wrote a joint state stamped at or after ``t_ns`` (ns, sim time)."""
    t_end = time.monotonic() + timeout_s
    while time.monotonic() < t_end:
        for line in reversed(path.read_text().splitlines()[:-1]):   # the last may be partial
            e = json.loads(line)
            if e['k'] == 'js':
                if e['t'] >= t_ns:
                    return
                break
        time.sleep(0.1)
    pytest.fail(f'the probe saw no joint state stamped {t_ns * 1e-9:.3f} s within {timeout_s} s')


def _call_cancel(procs):
    """Call the recorder's ~/cancel; return the sim time (ns) of the request."""
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rosgraph_msgs.msg import Clock
    from std_srvs.srv import Trigger

    ctx = Context()
    rclpy.init(context=ctx, domain_id=procs.domain)
    try:
        node = Node('cancel_probe', context=ctx)
        ex = SingleThreadedExecutor(context=ctx)
        ex.add_node(node)
        now = [0]
        node.create_subscription(Clock, '/clock', lambda m: now.__setitem__(
            0, m.clock.sec * 10**9 + m.clock.nanosec), 10)
        cli = node.create_client(Trigger, '/trajectory_recorder/cancel')
        assert cli.wait_for_service(timeout_sec=20.0)
        while now[0] == 0:
            ex.spin_once(timeout_sec=0.05)
        t_request = now[0]
        fut = cli.call_async(Trigger.Request())
        t_end = time.monotonic() + 30
        while not fut.done() and time.monotonic() < t_end:
            ex.spin_once(timeout_sec=0.01)
        assert fut.result().success, fut.result().message
        return t_request
    finally:
        rclpy.shutdown(context=ctx)


@pytest.mark.parametrize('interface', NEW_INTERFACES)
def test_cancel_mid_motion_stops_the_driver_and_holds(driver_procs, tmp_path, interface):
    # real time: the 100 ms budget of sim time is 100 ms of wall time for the service call
    driver_procs.start('robot_id_ros.ros.nodes.youbot_sim', [
        'real_time_factor:=1.0', 'publish_rate_hz:=50.0', 'seed:=3', 'start_time_sec:=1000.0',
        *DRIVER_NAMES], 'sim')
    probe_file = tmp_path / 'probe.jsonl'
    probe = subprocess.Popen([sys.executable, '-c', PROBE, str(probe_file)], env=driver_procs.env)
    driver_procs.procs.append(probe)
    traj = _excitation_file(tmp_path / 'exc.yaml')
    out = tmp_path / 'cancelled'
    rec = driver_procs.recorder('trajectory_recorder', [
        f'output_path:={out}', f'trajectory_file:={traj}', 'periods:=20',
        f'command_interface:={interface}', *FAST], interface)
    sc_file = sidecar_path(out)
    t_end = time.monotonic() + 90
    while time.monotonic() < t_end and not (sc_file.is_file()
                                            and read_sidecar(sc_file)['segments']):
        time.sleep(0.05)
    assert sc_file.is_file() and read_sidecar(sc_file)['segments'], _log(rec)[-3000:]
    t_request = _call_cancel(driver_procs)
    assert _wait(rec, 60) == 3, _log(rec)[-3000:]
    # from the recorder's receipt of the cancel (the service call's own latency is the machine's)
    t_cancel = int(float(re.search(r'cancel requested at ROS time ([0-9.]+) s',
                                   _log(rec)).group(1)) * 1e9)
    print(f'{interface}: the cancel reached the recorder {(t_cancel - t_request) * 1e-6:.0f} ms '
          '(sim time) after the request')
    # the arm's hold, seen by the probe: until it has 1.6 s of sim time after the cancel (a
    # condition on sim time, not a wall-clock margin)
    _wait_for_probe_stamp(probe_file, t_cancel + 1_600_000_000, timeout_s=60)
    probe.terminate()
    probe.wait(timeout=10)
    events = _read_probe(probe_file)
    if interface == 'follow_joint_trajectory':
        cancelled = [e['t'] for e in events if e['k'] == 'status' and 5 in e['s']]
        assert cancelled, 'the goal was never cancelled'
        delay_s = (cancelled[0] - t_cancel) * 1e-9
        assert not [e for e in events if e['k'] == 'setpoint']
    else:
        setpoints = [e['t'] for e in events if e['k'] == 'setpoint']
        assert any(t < t_cancel for t in setpoints)
        delay_s = (setpoints[-1] - t_cancel) * 1e-9
        print('set points around the cancel (ms of sim time):',
              [round((t - t_cancel) * 1e-6) for t in setpoints[-12:]])
    print(f'{interface}: cancel reached the driver {delay_s * 1e3:.0f} ms (sim time) after '
          'the request')
    assert delay_s <= CANCEL_BUDGET_S
    # the arm holds: from 0.5 s after the cancel it stands still where it stopped
    js = [e for e in events if e['k'] == 'js' and e['t'] >= t_cancel + 500_000_000]
    assert len(js) >= 50
    q = np.array([e['q'] for e in js])
    assert np.max(np.abs(q - q[0])) < 0.01
    assert np.max(np.abs([e['qd'] for e in js])) < 0.05
    moving = [e for e in events if e['k'] == 'js' and t_cancel - 1e9 <= e['t'] < t_cancel]
    assert np.max(np.abs([e['qd'] for e in moving])) > 0.05      # it was moving at the cancel
    # nothing recorded is lost: the bag covers every completed period, the sidecar says cancelled
    sc = read_sidecar(sc_file)
    assert sc['info']['status'] == 'cancelled' and sc['segments']
    series = read_joint_states(out, ARM)
    assert series.stamp_ns[-1] >= sc['segments'][-1]['t_end_ns']


def test_path_tolerance_violation_is_a_clear_failure(driver_procs, tmp_path):
    driver_procs.sim(*DRIVER_NAMES)
    out = tmp_path / 'tight'
    rec = driver_procs.recorder('static_pose_recorder', [
        f'output_path:={out}', 'pose_count:=3', 'command_interface:=follow_joint_trajectory',
        'path_tolerance_rad:=0.0001', *FAST], 'tight')
    assert _wait(rec, 90) == 1, _log(rec)[-3000:]
    log = _log(rec)
    assert 'PATH_TOLERANCE_VIOLATED (-4)' in log and 'off its path' in log, log[-3000:]
    assert read_sidecar(sidecar_path(out))['info']['status'] == 'failed'


@pytest.mark.parametrize('interface,package', [('follow_joint_trajectory', 'control_msgs'),
                                               ('brics_position', 'brics_actuator')])
def test_missing_interface_package_is_one_line(tmp_path, interface, package):
    procs = Procs(tmp_path)                 # the plain environment: no interface packages
    try:
        rec = procs.recorder('static_pose_recorder', [
            f'output_path:={tmp_path / "x"}', f'command_interface:={interface}'], 'missing',
            sim_time=False)
        assert _wait(rec, 60) == 2
        lines = [ln for ln in _log(rec).splitlines() if 'cannot start' in ln]
        assert len(lines) == 1, _log(rec)
        assert (f"command_interface '{interface}' needs the ROS 2 package {package}, which is "
                'not installed' in lines[0]) and 'tools/build_interfaces.py' in lines[0]
        # the simulator runs without them and says what it does not offer
        sim = procs.sim()
        t_end = time.monotonic() + 120      # a loaded machine: the sim's start took over 30 s
        while time.monotonic() < t_end and 'youbot_sim: seed' not in _log(sim):
            time.sleep(0.1)
        assert sim.poll() is None
        assert f'the ROS 2 package {package}, which is not installed' in _log(sim), _log(sim)
    finally:
        procs.close()


# type hashes (RIHS01) of upstream control_msgs, as its generated C code for Jazzy states them:
# our definitions, written from the field lists, give the same wire types
UPSTREAM_TYPE_HASHES = {
    'control_msgs/action/FollowJointTrajectory':
        'RIHS01_738ebcb7a2d7cfa42f9f1001cc99ce3a4383d1cfe508015d9be8485e4b1c66f6',
    'control_msgs/msg/JointTolerance':
        'RIHS01_c254f9cece0f3b733017b6990fd46d1326e25242d6b8844398c97d9a88e7d648',
}


def test_built_control_msgs_have_upstream_type_hashes(interface_packages):
    share = interface_packages / 'share'
    for name, expected in UPSTREAM_TYPE_HASHES.items():
        pkg, kind, typ = name.split('/')
        desc = json.loads((share / pkg / kind / f'{typ}.json').read_text())
        got = {h['type_name']: h['hash_string'] for h in desc['type_hashes']}
        assert got[name] == expected, name
