# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""ArmCommander against an in-process fake driver (DDS on a private domain, no subprocess): event
driven waits, cancel and errors, the commands it sends; and the demo's Director against the
simulated youBot (integration)."""
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import yaml

from robot_id_ros import record as rec
from robot_id_ros.ros.commander import (HOLD_TIME_S, ArmCommander, Cancelled, CommandSettings,
                                        DriverError)
from robot_id_ros.ros.conversions import stamp_ns

JOINTS = ('j1', 'j2')
RATE_S = 0.01


class Rig:
    """A fake driver node (joint states every RATE_S, commands recorded) and a commander node,
    spun by one executor in a thread."""

    def __init__(self, ctx, settings=None, **kw):
        from rclpy.executors import MultiThreadedExecutor
        from rclpy.node import Node
        from sensor_msgs.msg import JointState
        from trajectory_msgs.msg import JointTrajectory

        self.driver = Node('fake_driver', context=ctx)
        self.commands = []
        self.publishing = True
        self.q = np.array([0.1, -0.2])
        self.pub = self.driver.create_publisher(JointState, 'joint_states', 10)
        self.driver.create_subscription(JointTrajectory, 'cmd', self.commands.append, 10)
        self.driver.create_timer(RATE_S, self._publish)
        self._js = JointState
        self.node = Node('commander', context=ctx)
        self.commander = ArmCommander(self.node, JOINTS, command_topic='cmd',
                                      settings=settings, **kw)
        self.executor = MultiThreadedExecutor(context=ctx)
        self.executor.add_node(self.driver)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def _publish(self):
        if self.publishing:
            msg = self._js(name=list(JOINTS), position=self.q.tolist(), velocity=[0.0, 0.0],
                           effort=[1.0, 2.0])
            msg.header.stamp = self.driver.get_clock().now().to_msg()
            self.pub.publish(msg)

    def close(self):
        self.commander.cancel()
        self.executor.shutdown()
        # the spin thread ends before the context does (else its next wait set fails)
        self.thread.join(timeout=10.0)
        self.driver.destroy_node()
        self.node.destroy_node()


@pytest.fixture
def rig_factory(rclpy_context):
    rigs = []

    def make(**kw):
        rigs.append(Rig(rclpy_context, **kw))
        return rigs[-1]
    yield make
    for r in rigs:
        r.close()


def test_waits_follow_the_joint_states(rig_factory):
    rig = rig_factory()
    c = rig.commander
    first = c.wait_for_state(10.0)
    assert np.allclose(first.q, [0.1, -0.2]) and np.allclose(first.effort, [1.0, 2.0])
    t = first.stamp_ns + 50_000_000
    got = c.wait_until_stamp(t)
    assert got.stamp_ns >= t and c.latest().stamp_ns >= t
    c.wait_for_subscriber(10.0)
    before = c.latest().stamp_ns
    c.sleep(0.05)
    assert c.latest().stamp_ns >= before + 50_000_000
    t_end = c.time_ref_ns() + 30_000_000
    c.wait_until_time(t_end)
    assert c.time_ref_ns() >= t_end


def test_cancel_and_fail_wake_a_waiter_at_once(rig_factory):
    rig = rig_factory(driver_timeout_s=None)
    c = rig.commander
    c.wait_for_state(10.0)
    rig.publishing = False       # no joint states and no timeout: only the event can end the wait
    for trigger, expected in ((c.cancel, Cancelled), (lambda: c.fail(KeyError('x')), KeyError)):
        c.reset()
        outcome = []

        def waiter():
            try:
                c.wait_for(lambda: None)       # never ready
            except Exception as exc:            # checked below
                outcome.append(exc)

        thread = threading.Thread(target=waiter, daemon=True)
        thread.start()
        threading.Timer(0.2, trigger).start()
        thread.join(60.0)                      # a guard against a hang, not a speed figure
        assert not thread.is_alive(), 'the event did not wake the waiter'
        assert len(outcome) == 1 and isinstance(outcome[0], expected)
    c.reset()
    assert c.wait_for(lambda: None, timeout_s=0.1) is None


def test_silent_and_missing_driver_are_clear_errors(rig_factory):
    rig = rig_factory(driver_timeout_s=0.3)
    c = rig.commander
    # the first states off: a gap in the fake driver's start-up (1 run in ~25 stalled 2 s after
    # its first message) is not the silence under test
    c.driver_timeout_s = None
    c.wait_for_state(10.0)
    c.driver_timeout_s = 0.3
    rig.publishing = False
    with pytest.raises(DriverError, match='the driver stopped publishing on joint_states') as e:
        c.wait_for(lambda: None, timeout_s=60.0)   # None after 60 s if the silence went unseen
    assert e.value.kind == 'driver_silent'


def test_no_driver(rclpy_context):
    from rclpy.node import Node

    node = Node('lonely', context=rclpy_context)
    c = ArmCommander(node, JOINTS, joint_states_topic='nobody_publishes')
    with pytest.raises(DriverError, match='no joint state from the driver on /nobody_publishes '
                                          'within 0.3 s') as e:
        c.wait_for_state(0.3)
    assert e.value.kind == 'no_driver'
    with pytest.raises(DriverError, match='nothing subscribes to the command topic'):
        c.wait_for_subscriber(0.2, ' (hint)')
    node.destroy_node()


def _wait_commands(rig, n, timeout_s=10.0):
    t_end = time.monotonic() + timeout_s
    while len(rig.commands) < n and time.monotonic() < t_end:
        time.sleep(0.01)
    assert len(rig.commands) >= n


def test_sent_trajectory_is_the_sampled_motion(rig_factory):
    # a lead far beyond any delay of a loaded machine: the hold below comes before the start
    rig = rig_factory(settings=CommandSettings(lead_s=60.0, point_period_s=0.1))
    c = rig.commander
    c.wait_for_state(10.0)
    c.wait_for_subscriber(10.0)
    move = rec.QuinticMove([0.1, -0.2], [0.5, 0.3], 1.0)
    start = c.send_motion(move)
    assert start >= c.latest().stamp_ns + 400_000_000
    _wait_commands(rig, 1)
    msg = rig.commands[0]
    assert stamp_ns(msg.header.stamp) == start and msg.joint_names == list(JOINTS)
    times = [stamp_ns(p.time_from_start) * 1e-9 for p in msg.points]
    assert times == pytest.approx(np.arange(1, 11) * 0.1)        # no point at t = 0
    for t, p in zip(times, msg.points):
        q, qd, _ = move.evaluate(t)
        assert np.allclose(p.positions, q) and np.allclose(p.velocities, qd)
    # the director sends the start point too
    rig.commander.settings = CommandSettings(point_period_s=0.1, send_start_point=True)
    c.send_motion(move, start)
    _wait_commands(rig, 2)
    assert stamp_ns(rig.commands[1].points[0].time_from_start) == 0
    # hold before the motion's start: one point at its start pose (the pose commanded now),
    # clipped to the limits, and reached no faster than the speed limit
    c.position_limits = (np.array([0.2, -1.0]), np.array([1.0, 1.0]))
    c.hold_position()
    _wait_commands(rig, 3)
    hold = rig.commands[2]
    assert len(hold.points) == 1 and stamp_ns(hold.header.stamp) == 0
    duration_s = stamp_ns(hold.points[0].time_from_start) * 1e-9
    assert np.allclose(hold.points[0].positions, [0.2, -0.2])
    assert duration_s >= HOLD_TIME_S and 0.1 / duration_s <= rec.YOUBOT_SAFE_VELOCITY_RAD_S


def _forge(rig, c, q):
    """Stop the fake driver and publish one joint state at ``q``; return once it arrived."""
    from sensor_msgs.msg import JointState

    seen = []
    c.add_listener(lambda _stamp, msg, sample: seen.append((list(msg.position), sample)))
    rig.publishing = False
    msg = JointState(name=list(JOINTS), position=list(q), velocity=[0.0, 0.0], effort=[1.0, 2.0])
    msg.header.stamp = rig.driver.get_clock().now().to_msg()
    rig.pub.publish(msg)
    t_end = time.monotonic() + 10.0
    while time.monotonic() < t_end and not any(p == list(q) for p, _ in seen):
        time.sleep(0.005)
    return [sample for p, sample in seen if p == list(q)]


@pytest.mark.parametrize('interface', ['trajectory', 'trajectory_stream'])
def test_a_forged_state_is_refused_and_the_hold_keeps_the_commanded_pose(rig_factory, interface):
    limits = rec.SafetyLimits(max_velocity_rad_s=1.0, max_acceleration_rad_s2=2.0)
    rig = rig_factory(settings=CommandSettings(interface=interface, lead_s=0.1,
                                               point_period_s=0.05, chunk_s=0.5),
                      limits=limits, position_limits=(np.full(2, -3.0), np.full(2, 3.0)))
    c = rig.commander
    c.wait_for_state(10.0)
    c.wait_for_subscriber(10.0)
    move = rec.QuinticMove(c.latest().q, [0.5, 0.3], 2.0)
    start = c.send_motion(move, background=True)
    c.wait_until_stamp(start + 800_000_000)                 # mid-motion
    real = c.latest()
    forged = _forge(rig, c, [real.q[0] + 2.0, real.q[1]])
    assert forged == [None]                                  # no listener takes it as a sample
    assert c.rejected_states == 1 and np.allclose(c.latest().q, real.q)
    t_hold = c.time_ref_ns()
    c.cancel()                                   # as a recorder's ~/cancel does, then the hold
    c.hold_position()
    t_end = time.monotonic() + 10.0
    while time.monotonic() < t_end and len(rig.commands[-1].points) != 1:
        time.sleep(0.01)
    hold = rig.commands[-1]                      # the last command: no chunk after the hold
    assert len(hold.points) == 1
    q_hold = np.array(hold.points[0].positions)
    commanded = move.evaluate((t_hold - start) * 1e-9)[0]
    duration_s = stamp_ns(hold.points[0].time_from_start) * 1e-9
    # the pose commanded when the hold was sent (the motion runs at most 0.5 rad/s), not the
    # forged one, and reached within the speed limit
    assert np.max(np.abs(q_hold - commanded)) < 0.02
    assert np.all(np.abs(q_hold - commanded) / duration_s <= limits.max_velocity_rad_s)


def test_nothing_commanded_nothing_held(rig_factory):
    rig = rig_factory(settings=CommandSettings(lead_s=0.1, point_period_s=0.1))
    c = rig.commander
    c.wait_for_state(10.0)
    c.wait_for_subscriber(10.0)
    assert c.hold_position() is None                       # the driver holds where it is
    move = rec.QuinticMove(c.latest().q, c.latest().q, 0.3)
    c.send_motion(move)
    _wait_commands(rig, 1)
    assert len(rig.commands[0].points) == 3                # the first command is the motion


def test_streamed_motion_is_sent_in_chunks_on_receipt(rig_factory):
    """'trajectory_stream' sends the motion in chunks stamped 0 (start on receipt), each a chunk
    and the lead long, timed from receipt, the last ending at the motion's end. A chunk the
    commander reaches only after its time (a starved thread) is sent from the present on, or not
    at all when wholly past: so a long motion, and its end must always be commanded."""
    rig = rig_factory(settings=CommandSettings(interface='trajectory_stream', lead_s=0.1,
                                               point_period_s=0.05, chunk_s=0.2))
    c = rig.commander
    c.wait_for_state(10.0)
    c.wait_for_subscriber(10.0)
    move = rec.QuinticMove([0.1, -0.2], [0.2, -0.1], 3.0)
    start = c.send_motion(move)                  # blocks until the last chunk is sent
    assert c.time_ref_ns() >= start + 2_700_000_000  # the last chunk: a lead before 2.8 s
    chunks = int(np.ceil(3.0 / 0.2))
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline and not (
            rig.commands and np.allclose(rig.commands[-1].points[-1].positions, [0.2, -0.1],
                                         atol=2e-3)):
        time.sleep(0.01)
    assert 1 <= len(rig.commands) <= chunks
    assert all(stamp_ns(m.header.stamp) == 0 for m in rig.commands)
    # point times count from receipt: each chunk reaches at most one chunk and the lead ahead
    for m in rig.commands:
        times = [stamp_ns(p.time_from_start) * 1e-9 for p in m.points]
        assert 0.0 < times[0] and times[-1] <= 0.2 + 2 * 0.1 + 0.05
        assert np.all(np.diff(times) > 0)
    # the motion's end is commanded (its last sampled point, within 2 mrad of the goal)
    last = rig.commands[-1].points[-1]
    assert np.allclose(last.positions, [0.2, -0.1], atol=2e-3)
    first = rig.commands[0].points[0]
    if len(rig.commands) == chunks:              # the first chunk on time: the motion's start
        assert 0.0 < stamp_ns(first.time_from_start) * 1e-9 <= 0.1
        assert np.allclose(first.positions, move.evaluate(0.0)[0])


def test_passive_commander_never_commands(rig_factory):
    rig = rig_factory(passive=True)
    c = rig.commander
    c.wait_for_state(10.0)
    c.hold_position()
    with pytest.raises(Exception, match='passive'):
        c.send_motion(rec.QuinticMove([0, 0], [0, 0], 1.0))
    time.sleep(0.2)
    assert rig.commands == []


# ------------------------------------------------------------------------------------------------
@pytest.mark.integration
def test_director_plays_a_script_on_the_simulator(rclpy_context, ros_domain_id, tmp_path):
    """A short ForceScript against youbot_sim: the arm reaches the move target, the excitation
    is played, the force is applied and the phases, tares and true wrench are logged; at the end
    the simulator (its friction drifting) rewrites its truth file with the friction of then."""
    from rclpy.node import Node
    from std_srvs.srv import Trigger

    from robot_id_ros.demo.director import Director
    from robot_id_ros.demo.force_script import Action, ForceScript
    from robot_id_ros.model.robot import youbot_model
    from ros_helpers import isolated_env

    robot = youbot_model()
    sim = subprocess.Popen([sys.executable, '-m', 'robot_id_ros.ros.nodes.youbot_sim',
                            '--ros-args', '-p', 'real_time_factor:=1.0',
                            '-p', 'start_time_sec:=1000.0', '-p', 'friction_drift:=true',
                            '-p', f'true_parameters_file:={tmp_path / "truth.yaml"}'],
                           env=isolated_env(ros_domain_id), stdout=subprocess.DEVNULL,
                           stderr=subprocess.STDOUT)
    estimator = Node('wrench_estimator', context=rclpy_context)   # tare services only
    tares = []
    for name in ('tare', 'clear_tare'):
        estimator.create_service(Trigger, f'~/{name}',
                                 lambda req, resp, n=name: tares.append(n) or resp)
    from rclpy.executors import SingleThreadedExecutor
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(estimator)
    threading.Thread(target=ex.spin, daemon=True).start()
    q_target = np.array([2.9, 1.0, -2.4, 1.7, 2.9])
    traj = rec.FourierTrajectory(tuple(robot.joint_names), 2.0, np.zeros((5, 1)),
                                 np.zeros((5, 1)), q_target)
    script = ForceScript([Action('move', 1.0, q_target), Action('wait', 0.3), Action('tare'),
                          Action('phase_start', value=('rest', 'rest')),
                          Action('force', 0.5, np.array([0.0, 0.0, 5.0])),
                          Action('clear', 0.3), Action('phase_end'),
                          Action('trajectory', 0.0, (traj, 1.0)),
                          Action('at_trajectory_time', 0.6, 0.6),
                          Action('force', 0.0, np.array([0.0, 5.0, 0.0])),
                          Action('at_trajectory_time', 0.3, 0.9), Action('clear'),
                          Action('wait', 0.1), Action('clear_tare')])
    try:
        with Director(ros_domain_id, robot, 'youbot_sim', progress=None,
                      follow_estimator=False, truth_at_end=True) as director:
            log = director.play(script, 4.0)
            q = director.commander.latest().q
            start_s = director._trajectory_start_ns * 1e-9
    finally:
        sim.send_signal(signal.SIGINT)
        sim.wait(timeout=10)
        ex.shutdown()
        estimator.destroy_node()
    assert np.max(np.abs(q - q_target)) < 0.05
    assert tares == ['tare', 'clear_tare'] and [e[1] for e in log.tare_events] == ['tare', 'clear']
    (phase,) = log.phases
    # force 0.5 s + clear 0.3 s of sim time (waits end at or after their target to the ns; the
    # phase is a difference of two ~1000 s floats: 1 us of rounding), plus the wall time of the
    # service calls between the waits (seconds on a loaded machine)
    assert phase.kind == 'rest' and 0.8 - 1e-6 <= phase.t1_s - phase.t0_s < 0.8 + 3.0
    forces = np.array(log.true_force_n)
    t = np.array(log.true_t_s)
    applied = np.all(np.abs(forces - [0.0, 0.0, 5.0]) < 1e-6, axis=1)
    assert applied.any() and np.all((t[applied] >= phase.t0_s) & (t[applied] <= phase.t1_s))
    # the force in motion goes on at 0.6 s and off at 0.9 s of the trajectory's own time, not
    # before (later by the message's or the service's latency only)
    on = np.all(np.abs(forces - [0.0, 5.0, 0.0]) < 1e-6, axis=1)
    assert on.any()
    assert start_s + 0.6 - 1e-6 <= t[on][0] < start_s + 0.6 + 2.0
    assert start_s + 0.9 - 0.011 <= t[on][-1] < start_s + 0.9 + 3.0    # 200 Hz samples
    # written at the start (sim time 0) and again as the script ended: its friction of then
    drift = yaml.safe_load((tmp_path / 'truth.yaml').read_text())['friction_drift']
    assert drift['time_s'] >= script.duration_s()


def test_the_lead_covers_half_a_second_of_wall_time_at_the_clock_rate(rig_factory):
    """A simulation 4x faster than real time: a 0.3 s lead (75 ms of wall time) is stretched to
    MIN_COMMAND_LEAD_WALL_S of wall time, so a long trajectory reaches the driver before it starts;
    at real time the asked lead stays when it is longer."""
    from robot_id_ros.ros.commander import MIN_COMMAND_LEAD_WALL_S
    rig = rig_factory(settings=CommandSettings(lead_s=0.3))
    c = rig.commander
    rig.publishing = False                       # only the samples below are measured
    time.sleep(0.2)
    c._rate_anchor = None
    c._measure_rate(100.0, 10**9)
    c._measure_rate(101.0, 5 * 10**9)           # 4 s of ROS time in 1 s of wall time
    assert c.clock_rate == pytest.approx(4.0)
    assert c.lead_ns() == int(4.0 * MIN_COMMAND_LEAD_WALL_S * 1e9)
    assert c.lead_ns(5.0) == int(5e9)
    c._measure_rate(102.0, 6 * 10**9)            # back to real time
    assert c.clock_rate == pytest.approx(1.0)
    assert c.lead_ns(1.0) == int(1e9)
