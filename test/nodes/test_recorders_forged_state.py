# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A forged joint state never becomes a set point: a recorder's cancel and failure hold (real DDS).

The simulator publishes its joint states on ``/sim_joint_states``; a relay (a subprocess, which
also logs every command the recorder sends and every simulated state) forwards them to the
recorder's ``/joint_states``, and the recorder's commands to the simulator: it subscribes to the
recorder's command topics only once its publisher on each matched the simulator (a listener on
the simulator's own topics would let the recorder send before the simulator matched it, and its
first commands would be lost). Mid-motion it stops forwarding states and publishes one forged
state with joint 1 moved by 2 rad, then either calls ``~/cancel`` or stays silent until the
recorder's ``driver_timeout_s`` fails the run. Either way the recorder stops the arm: its commands
must continue the commanded path (no step faster than the joint speed limit) and the simulated
arm's joint 1 must not jump. 'follow_joint_trajectory' stops by cancelling its goal (the driver
holds its own set point): no position is sent at all.
"""
import json
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from robot_id_ros.io.bags import sidecar_path
from robot_id_ros.io.sidecar import read_sidecar
from test_command_interfaces import driver_procs  # noqa: F401 - the fixture, with brics
from test_recorders import FAST, _excitation_file, _log, _wait

SPEED_LIMIT_RAD_S = np.pi / 2          # the youBot URDF's joint speed limit
SPEED_MARGIN = 1.5
STEP_ALLOWANCE_RAD = 0.05              # per command or sample: noise and rounding
FORGED_OFFSET_RAD = 2.0
STOP_DISTANCE_RAD = 0.3                # joint 1 stops within this of where it was at the forgery
# the command topics (the recorder's, the simulator's) the relay forwards between
TRAJECTORY_TOPICS = ('/relay/joint_trajectory', '/joint_trajectory_controller/joint_trajectory')
POSITION_COMMAND_TOPICS = ('/relay/position_command', '/arm_1/arm_controller/position_command')
SIM_NAMES = ['__ns:=/arm_1', 'joint_states_topic:=/sim_joint_states',
             f'command_topic:={TRAJECTORY_TOPICS[1]}']
# streams need a link close to real time (test_command_interfaces): a chunk of
# 'trajectory_stream' starts on receipt, so its delivery delay (wall time times the real-time
# factor) sets the motion back by as much when it takes over from the chunk before
STREAM_SIM = {'brics_position': ['real_time_factor:=2.0'],
              'trajectory_stream': ['real_time_factor:=2.0']}
STREAM_SLACK = {'brics_position': ['stream_lead_s:=0.3']}
EXIT_CODE = {'cancel': 3, 'silent': 1}
DRIVER_TIMEOUT_S = {'cancel': 30.0, 'silent': 1.0}

RELAY = (f'TRAJECTORY_TOPICS = {TRAJECTORY_TOPICS!r}\n'
         f'POSITION_COMMAND_TOPICS = {POSITION_COMMAND_TOPICS!r}\n') + textwrap.dedent('''
    import copy, json, os, sys, threading, time, rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.qos import qos_profile_sensor_data
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    from std_srvs.srv import Trigger
    from trajectory_msgs.msg import JointTrajectory
    out_path, trigger, mode, brics = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == '1'
    rclpy.init()
    node = Node('forging_relay')
    out, out_lock = open(out_path, 'w', buffering=1), threading.Lock()
    st = {'now': 0, 'forward': True, 'last': None, 'forged_at': None, 'cancel': None}
    def ns(t):
        return t.sec * 10**9 + t.nanosec
    def log(**kw):
        with out_lock:
            out.write(json.dumps(kw) + '\\n')
    def clock(m):
        st['now'] = ns(m.clock)
    pub = node.create_publisher(JointState, '/joint_states', 100)
    def js(m):
        log(k='js', t=ns(m.header.stamp), q=list(m.position[:5]), qd=list(m.velocity[:5]))
        if st['forward']:
            st['last'] = m
            pub.publish(m)
    def traj(m):
        log(k='traj', recv=st['now'], stamp=ns(m.header.stamp),
            points=[[ns(p.time_from_start), list(p.positions)] for p in m.points])
    def setpoint(m):
        log(k='sp', recv=st['now'], t=ns(m.positions[0].timestamp),
            q=[v.value for v in m.positions])
    node.create_subscription(Clock, '/clock', clock, 10)
    node.create_subscription(JointState, '/sim_joint_states', js, qos_profile_sensor_data)
    commands = [(JointTrajectory, TRAJECTORY_TOPICS, traj, 100)]
    if brics:
        from brics_actuator.msg import JointPositions
        commands.append((JointPositions, POSITION_COMMAND_TOPICS, setpoint, 1000))
    # commands on their own node and thread: a backlog of joint states delays none of them
    relay = Node('forging_relay_commands')
    # (publisher to the simulator, type, the recorder's topic, logger, depth) not yet relayed
    unmatched = [(relay.create_publisher(msg_type, topics[1], depth), msg_type, topics[0],
                  record, depth) for msg_type, topics, record, depth in commands]
    def relay_to(sim_pub, record):
        def forward(m):
            sim_pub.publish(m)
            record(m)
        return forward
    def listen():
        for item in [u for u in unmatched if u[0].get_subscription_count() > 0]:
            sim_pub, msg_type, topic, record, depth = item
            relay.create_subscription(msg_type, topic, relay_to(sim_pub, record), depth)
            unmatched.remove(item)
    relay.create_timer(0.01, listen)
    relaying = SingleThreadedExecutor()
    relaying.add_node(relay)
    def spin_relay():
        try:
            relaying.spin()
        except Exception:        # the shutdown on terminate
            pass
    threading.Thread(target=spin_relay, daemon=True).start()
    cli = node.create_client(Trigger, '/trajectory_recorder/cancel')
    def forge():
        if st['forged_at'] is None and st['last'] is not None and os.path.exists(trigger):
            st['forward'] = False
            m = copy.deepcopy(st['last'])
            q = list(m.position)
            q[0] += float(sys.argv[5])
            m.position = q
            t = ns(m.header.stamp) + 1_000_000
            m.header.stamp.sec, m.header.stamp.nanosec = divmod(t, 10**9)
            pub.publish(m)
            st['forged_at'] = time.monotonic()
            log(k='forged', t=t, recv=st['now'], q=q[:5])
        elif (mode == 'cancel' and st['cancel'] is None and st['forged_at'] is not None
              and cli.service_is_ready()
              and time.monotonic() - st['forged_at'] > 0.2):
            st['cancel'] = cli.call_async(Trigger.Request())
            log(k='cancel', recv=st['now'])
    node.create_timer(0.005, forge)
    log(k='ready')
    try:
        rclpy.spin(node)
    except Exception:
        pass
''')


def _events(path):
    return [json.loads(line) for line in path.read_text().splitlines()[:-1] if line.strip()]


def _wait_until(path, ready, timeout_s, what):
    t_end = time.monotonic() + timeout_s
    while time.monotonic() < t_end:
        if path.is_file() and ready(_events(path)):
            return
        time.sleep(0.05)
    pytest.fail(f'{what} not within {timeout_s} s')


def _moving(events, samples=25):
    """True once the last ``samples`` simulated states all move faster than 0.1 rad/s."""
    js = [e for e in events if e['k'] == 'js'][-samples:]
    return len(js) == samples and all(np.max(np.abs(e['qd'])) > 0.1 for e in js)


def _trajectory_steps(events):
    """Each JointTrajectory's first point against the trajectory before it: (step rad, dt s)."""
    msgs = [e for e in events if e['k'] == 'traj' and e['points']]
    steps = []
    for prev, msg in zip(msgs, msgs[1:]):
        origin = prev['stamp'] or prev['recv']
        t_prev = np.array([origin + p[0] for p in prev['points']], dtype=float)
        q_prev = np.array([p[1] for p in prev['points']])
        start = msg['stamp'] or msg['recv']
        q_then = np.array([np.interp(start, t_prev, q_prev[:, j])
                           for j in range(q_prev.shape[1])])
        first = msg['points'][0]
        steps.append((np.abs(np.array(first[1]) - q_then), max(first[0] * 1e-9, 1e-3)))
    return steps


def _setpoint_steps(events, period_s=0.02):
    """Consecutive brics set points: (step rad, time between their times or one period, s)."""
    sps = [e for e in events if e['k'] == 'sp']
    return [(np.abs(np.array(b['q']) - np.array(a['q'])), max((b['t'] - a['t']) * 1e-9, period_s))
            for a, b in zip(sps, sps[1:])]


def _worst_step(steps):
    """Largest step over what the speed limit allows (<= 1: no jump); and that step's rate."""
    worst, rate = 0.0, 0.0
    for step, dt in steps:
        ratio = np.max(step / (SPEED_LIMIT_RAD_S * SPEED_MARGIN * dt + STEP_ALLOWANCE_RAD))
        if ratio > worst:
            worst, rate = ratio, float(np.max(step) / dt)
    return worst, rate


@pytest.mark.parametrize('path', ['cancel', 'silent'])
@pytest.mark.parametrize('interface', ['trajectory', 'trajectory_stream', 'brics_position',
                                       'follow_joint_trajectory'])
def test_forged_joint_state_does_not_move_the_arm(driver_procs, tmp_path, interface,  # noqa: F811
                                                  path):
    driver_procs.sim(*SIM_NAMES, *STREAM_SIM.get(interface, []))
    log_file, trigger = tmp_path / 'relay.jsonl', tmp_path / 'forge'
    relay = subprocess.Popen([sys.executable, '-c', RELAY, str(log_file), str(trigger), path,
                              '1' if interface == 'brics_position' else '0',
                              str(FORGED_OFFSET_RAD)], env=driver_procs.env)
    driver_procs.procs.append(relay)
    out = tmp_path / 'forged'
    rec = driver_procs.recorder('trajectory_recorder', [
        f'output_path:={out}',
        f'trajectory_file:={_excitation_file(tmp_path / "exc.yaml")}', 'periods:=20',
        f'command_interface:={interface}', f'driver_timeout_s:={DRIVER_TIMEOUT_S[path]}',
        f'command_topic:={TRAJECTORY_TOPICS[0]}',
        f'position_command_topic:={POSITION_COMMAND_TOPICS[0]}', *FAST,
        *STREAM_SLACK.get(interface, [])], 'recorder')
    _wait_until(log_file, _moving, 120, 'the arm moving under the recorder')
    trigger.touch()
    assert _wait(rec, 60) == EXIT_CODE[path], _log(rec)[-3000:]
    forged = [e for e in _events(log_file) if e['k'] == 'forged']
    assert forged, 'the relay forged no joint state'
    t_forged = forged[0]['t']
    # the arm's stop, seen by the relay: until it has 1.5 s of sim time after the recorder ended
    t_end = max(e['t'] for e in _events(log_file) if e['k'] == 'js') + 1_500_000_000
    _wait_until(log_file, lambda ev: any(e['k'] == 'js' and e['t'] >= t_end for e in ev), 60,
                'the simulated arm 1.5 s after the stop')
    relay.terminate()
    relay.wait(timeout=10)
    events = _events(log_file)
    if interface == 'follow_joint_trajectory':
        assert not [e for e in events if e['k'] in ('traj', 'sp')]
        worst, rate = 0.0, 0.0
    else:
        steps = (_setpoint_steps(events) if interface == 'brics_position'
                 else _trajectory_steps(events))
        assert steps, 'the recorder sent no stop after its motion'
        worst, rate = _worst_step(steps)
    js = [e for e in events if e['k'] == 'js' and e['t'] >= t_forged - 20_000_000]
    t = np.array([e['t'] for e in js]) * 1e-9
    q1 = np.array([e['q'][0] for e in js])
    speed = np.max(np.abs(np.diff(q1)) / np.maximum(np.diff(t), 1e-3))
    travel = np.max(np.abs(q1 - q1[0]))
    print(f'{interface}, {path}: worst command step {worst:.2f} of the allowed ({rate:.2f} rad/s);'
          f' joint 1 after the forgery: {travel:.3f} rad, up to {speed:.2f} rad/s')
    assert worst <= 1.0
    assert travel < STOP_DISTANCE_RAD
    assert speed < SPEED_LIMIT_RAD_S * SPEED_MARGIN
    if path == 'silent':
        assert 'the driver stopped publishing' in _log(rec)
    # the forged state, and no real one, was refused and reported
    refused = read_sidecar(sidecar_path(out))['info']['joint_states_refused']
    assert refused['rejected'] == 1 and 'joint 1 moved 2.0' in refused['last_reason']
