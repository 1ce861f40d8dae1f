# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's director: a small rclpy node that drives the simulated force phase.

It moves the simulated arm, has the simulator apply a scripted sequence of known forces, tares
the estimator at each rest pose and records what comes back (the estimator's wrench and contact
flag, the simulator's true wrench), all in sim time.

The script is planned ROS-free (``ForceScript``, demo/force_script.py): rest poses with forces
that the drives can hold, then the held-out excitation trajectory with a contact-free stretch
followed by force steps. The ``Director`` plays it with an ``ArmCommander`` (motions as
``QuinticMove`` and the excitation as a Motion; waits on simulated time, driven by the joint
states).
"""
from __future__ import annotations

import bisect
import re
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.demo.force_script import ForceScript
from robot_id_ros.demo.results import Phase
from robot_id_ros.errors import OperationError
from robot_id_ros.model.robot import RobotModel

DEFAULT_COMMAND_TOPIC = 'joint_trajectory_controller/joint_trajectory'
# queued messages per subscription (keep-last): the estimate, contact flags and true wrench of
# 12 s at 400 samples a second, so a director starved of CPU for seconds loses none of them
DIRECTOR_QUEUE_DEPTH = 5000
MOVE_LEAD_S = 0.2              # a move starts this long (sim time, at least the commander's
#                                wall-clock minimum) after it is sent
TRAJECTORY_LEAD_S = 0.3        # the excitation starts this long after it is sent
POINT_PERIOD_S = 0.05          # time between the points of a sent trajectory, s
# wall-clock bounds that only catch a node that hangs or died, not performance margins: on a
# heavily loaded machine a service waits for the estimator to work through its input queue
SERVICE_TIMEOUT_S = 60.0       # wall seconds for a service to appear and to answer
STARTUP_TIMEOUT_S = 120.0      # wall seconds for joint states, true wrench and clock
FINAL_WAIT_S = 0.5             # sim seconds recorded after the script
# before a tare and at the end, the director waits until the estimator's newest estimate is at
# most this far behind its clock (sim s): on a loaded machine the estimator can fall seconds of
# sim time behind the simulator, and a tare asked for at a rest pose would be taken during the
# motion before it
ESTIMATOR_LAG_S = 0.1


@dataclass
class DirectorLog:
    """What the director saw, times in sim seconds."""

    true_t_s: list = field(default_factory=list)
    true_force_n: list = field(default_factory=list)
    est_t_s: list = field(default_factory=list)
    est_force_n: list = field(default_factory=list)
    contact_t_s: list = field(default_factory=list)      # stamp of its sample (see _on_contact)
    contact: list = field(default_factory=list)
    tare_events: list = field(default_factory=list)      # (sim s, 'tare' | 'clear')
    phases: list = field(default_factory=list)


def flag_sample_stamp(est_t_s, est_source_ns, flag_source_ns):
    """Return the stamp (sim s) of the estimate a contact flag was published after.

    Args:
        est_t_s: the estimates' stamps so far, in the order received.
        est_source_ns: their writer's source timestamps (wall ns; None where unknown).
        flag_source_ns: the flag's source timestamp, or None.

    Returns:
        The stamp of the last estimate written before the flag; with no source timestamps, the
        newest estimate's; None before any estimate.
    """
    if not est_t_s:
        return None
    if flag_source_ns is None or est_source_ns[-1] is None:
        return est_t_s[-1]
    k = bisect.bisect_right(est_source_ns, flag_source_ns) - 1
    return est_t_s[k] if k >= 0 else est_t_s[0]


def _t_s(stamp):
    """Return a Time message as float seconds (sim time)."""
    return stamp.sec + stamp.nanosec * 1e-9


class Director:
    """Plays a ForceScript over DDS on a private rclpy context (see the module doc).

    Use as a context manager (or call ``close()``): it spins its node in a thread.
    """

    def __init__(self, domain_id, robot: RobotModel, sim_node_name,
                 estimator_name='wrench_estimator', command_topic=DEFAULT_COMMAND_TOPIC,
                 progress=print, follow_estimator=True, truth_at_end=False):
        """Create the director node.

        Args:
            domain_id: ROS domain of the simulator and the estimator.
            robot: the arm's model (joint names).
            sim_node_name: the simulator node (its ``real_time_factor`` is set).
            estimator_name: the wrench estimator node (its wrench, contact and tare services).
            command_topic: the simulator's JointTrajectory topic.
            progress: callable taking one progress line, or None.
            follow_estimator: wait for the estimator's first estimate before the script, and
                for it to catch up before each tare and at the end (``wait_for_estimator``);
                False for an estimator that offers its tare services only.
            truth_at_end: at the end of the script, the simulator rewrites its true-parameters
                file (``sim/write_true_parameters``): with friction drift, the friction the
                script ended with.
        """
        import rclpy
        from geometry_msgs.msg import WrenchStamped
        from rcl_interfaces.srv import SetParameters
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.node import Node
        from rclpy.parameter import Parameter
        from rclpy.qos import QoSProfile, ReliabilityPolicy
        from std_msgs.msg import Bool
        from std_srvs.srv import Trigger

        from robot_id_ros.ros.commander import ArmCommander, CommandSettings
        from robot_id_ros.ros.msg_helpers import draining_subscription, queue_drainer

        self.log = DirectorLog()
        self.follow_estimator = follow_estimator
        self.truth_at_end = truth_at_end
        self._est_source_ns = []       # the writer's source timestamp of each estimate, wall ns
        self.progress = progress
        self._phase_open = None
        self._trajectory_start_ns = None   # ns, the start of the last trajectory sent
        self._ctx = Context()
        rclpy.init(context=self._ctx, domain_id=domain_id)
        self.node = Node('demo_director', context=self._ctx, parameter_overrides=[
            Parameter('use_sim_time', Parameter.Type.BOOL, True)])
        self.commander = ArmCommander(
            self.node, robot.joint_names, command_topic=command_topic,
            settings=CommandSettings(point_period_s=POINT_PERIOD_S, send_start_point=True),
            queue_depth=DIRECTOR_QUEUE_DEPTH, wake_on_clock=False)
        qos = QoSProfile(depth=DIRECTOR_QUEUE_DEPTH, reliability=ReliabilityPolicy.BEST_EFFORT)
        # the streams drained per executor pass, so a director starved of CPU keeps every
        # message (msg_helpers.draining_subscription)
        draining_subscription(self.node, WrenchStamped, 'sim/true_wrench', self._on_true, qos)
        # the contact callback first logs the estimates queued before its flag
        self._take_queued_estimates = queue_drainer(draining_subscription(
            self.node, WrenchStamped, f'{estimator_name}/wrench', self._on_estimate, qos,
            with_info=True), WrenchStamped, self._on_estimate, with_info=True)
        draining_subscription(self.node, Bool, f'{estimator_name}/contact', self._on_contact, qos,
                              with_info=True)
        self._wrench_msg = WrenchStamped
        self._trigger = Trigger
        self.pub_wrench = self.node.create_publisher(WrenchStamped, 'sim/wrench', 10)
        self.clients = {
            'tare': self.node.create_client(Trigger, f'{estimator_name}/tare'),
            'clear_tare': self.node.create_client(Trigger, f'{estimator_name}/clear_tare'),
            'clear': self.node.create_client(Trigger, 'sim/clear_wrench'),
            'write_truth': self.node.create_client(Trigger, 'sim/write_true_parameters'),
            'set_parameters': self.node.create_client(SetParameters,
                                                      f'{sim_node_name}/set_parameters')}
        self._executor = SingleThreadedExecutor(context=self._ctx)
        self._executor.add_node(self.node)
        self._spin = threading.Thread(target=self._executor.spin, daemon=True)
        self._spin.start()

    # ------------------------------------------------------------------ callbacks
    def _on_true(self, msg):
        f = msg.wrench.force
        self.log.true_t_s.append(_t_s(msg.header.stamp))
        self.log.true_force_n.append((f.x, f.y, f.z))

    def _on_estimate(self, msg, info):
        f = msg.wrench.force
        self.log.est_t_s.append(_t_s(msg.header.stamp))
        self.log.est_force_n.append((f.x, f.y, f.z))
        self._est_source_ns.append(None if info is None else info['source_timestamp'])

    def _on_contact(self, msg, info):
        # Bool has no stamp: the flag belongs to the sample of the estimate the node published
        # just before it (wrench, then contact, per sample). That estimate is found by the
        # writer's source timestamps (one process, one clock): the newest estimate received
        # would be later by the director's own latency. The estimates queued before the flag
        # are taken first; an rclpy without message info (Humble) falls back to the newest
        # estimate.
        self._take_queued_estimates()
        stamp = flag_sample_stamp(self.log.est_t_s, self._est_source_ns,
                                  None if info is None else info['source_timestamp'])
        self.log.contact_t_s.append(self.now_s() if stamp is None else stamp)
        self.log.contact.append(bool(msg.data))

    # ------------------------------------------------------------------ helpers
    def now_s(self):
        """Return the node's clock (sim time), s."""
        return self.commander.now_ns() * 1e-9

    def wait_s(self, dt_s):
        """Wait until the node clock is ``dt_s`` seconds of sim time past now."""
        self.commander.wait_until_time(self.commander.now_ns() + int(dt_s * 1e9),
                                       clock_only=True)

    def call(self, name, request, what, timeout_s=SERVICE_TIMEOUT_S):
        """Call the service client ``name`` and wait (wall time) for its answer.

        Raises:
            OperationError: the service is not there, or does not answer in time.
        """
        client = self.clients[name]
        if not client.wait_for_service(timeout_sec=timeout_s):
            raise OperationError(f'demo director: service {client.srv_name} not available '
                                 f'({what})', 'director')
        answered = threading.Event()
        fut = client.call_async(request)
        fut.add_done_callback(lambda _f: answered.set())
        if not answered.wait(timeout_s):
            raise OperationError(f'demo director: {what} timed out', 'director')
        return fut.result()

    def set_real_time_factor(self, factor):
        """Set the simulator's ``real_time_factor`` parameter."""
        from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
        from rcl_interfaces.srv import SetParameters

        req = SetParameters.Request()
        req.parameters = [Parameter(name='real_time_factor', value=ParameterValue(
            type=ParameterType.PARAMETER_DOUBLE, double_value=float(factor)))]
        self.call('set_parameters', req, 'set the simulator real-time factor')

    def wait_for_estimator(self, what):
        """Wait (wall time, at most SERVICE_TIMEOUT_S) until the estimates are up to the clock.

        The simulator runs on meanwhile (the arm holds its pose); a timeout is said in one
        progress line and the script goes on (the report compares the estimates it has).
        """
        if not self.follow_estimator:
            return
        target_s = self.now_s() - ESTIMATOR_LAG_S

        def caught_up():
            return True if self.log.est_t_s and self.log.est_t_s[-1] >= target_s else None
        if caught_up():
            return
        t0 = time.monotonic()
        if self.commander.wait_for(caught_up, SERVICE_TIMEOUT_S) is None:
            last = self.log.est_t_s[-1] if self.log.est_t_s else float('nan')
            self._say(f'        {what}: the estimator is still {target_s - last:.1f} s of sim '
                      f'time behind after {SERVICE_TIMEOUT_S:g} s; going on')
        elif time.monotonic() - t0 > 1.0:
            self._say(f'        {what}: waited {time.monotonic() - t0:.1f} s for the estimator '
                      'to catch up with the simulator')

    def _say(self, line):
        if self.progress is not None:
            self.progress(line)

    def wait_for_simulator(self, timeout_s=STARTUP_TIMEOUT_S):
        """Wait for joint states, the true wrench, the sim clock and the command subscription."""
        def ready():
            ok = self.commander.latest() is not None and self.commander.now_ns() != 0
            return True if ok and self.log.true_t_s else None
        if self.commander.wait_for(ready, timeout_s) is None:
            raise OperationError('demo director: no joint_states / true wrench / clock from the '
                                 'simulator', 'director')
        # a command published before the simulator's subscription matched would be lost
        self.commander.wait_for_subscriber(timeout_s, ' (the simulator)')
        # and so would a scripted force (sim/wrench)
        if self.commander.wait_for(lambda: self.pub_wrench.get_subscription_count() > 0 or None,
                                   timeout_s) is None:
            raise OperationError('demo director: the simulator does not subscribe to sim/wrench '
                                 f'after {timeout_s:g} s', 'director')

    # ------------------------------------------------------------------ actions
    def _move(self, a):
        move = rec.QuinticMove(self.commander.latest().q, a.value, a.duration_s)
        start = self.commander.send_motion(move, lead_s=MOVE_LEAD_S)
        self.wait_s((start - self.commander.now_ns()) * 1e-9 + a.duration_s)

    def _trajectory(self, a):
        from robot_id_ros.ros.recorders.excitation import ExcitationMotion

        traj, length_s = a.value
        motion = ExcitationMotion(traj, length_s / traj.period_s)
        start = self.commander.send_motion(motion, lead_s=TRAJECTORY_LEAD_S)
        self._trajectory_start_ns = start
        self.wait_s((start - self.commander.now_ns()) * 1e-9)

    def _at_trajectory_time(self, a):
        if self._trajectory_start_ns is None:
            raise OperationError("demo director: an 'at_trajectory_time' action before any "
                                 "'trajectory' action: put the trajectory first", 'director')
        self.commander.wait_until_time(self._trajectory_start_ns + int(a.value * 1e9),
                                       clock_only=True)

    def _tare(self, a):
        self.wait_for_estimator(a.kind)
        answer = self.call(a.kind, self._trigger.Request(), f'{a.kind} the estimator')
        # the node says the stamp of the sample it tared at; the director's own clock may lag
        at = re.search(r' at ([0-9.]+) s', getattr(answer, 'message', '') or '')
        t_s = float(at.group(1)) if at else self.now_s()
        self.log.tare_events.append((t_s, a.kind.replace('clear_tare', 'clear')))

    def _force(self, a):
        m = self._wrench_msg()
        m.header.frame_id = 'base'
        m.header.stamp = self.node.get_clock().now().to_msg()
        m.wrench.force.x, m.wrench.force.y, m.wrench.force.z = (float(x) for x in a.value)
        self.pub_wrench.publish(m)
        self.wait_s(a.duration_s)

    def _clear(self, a):
        self.call('clear', self._trigger.Request(), 'clear the wrench')
        self.wait_s(a.duration_s)

    def _phase_start(self, a):
        self._phase_open = (a.value, self.now_s())

    def _phase_end(self, _a):
        (kind, label), t0 = self._phase_open
        self.log.phases.append(Phase(kind, t0, self.now_s(), label))
        self._phase_open = None

    def play(self, script: ForceScript, real_time_factor):
        """Play ``script`` with the simulator at ``real_time_factor``; return the DirectorLog."""
        self.wait_for_simulator()
        if self.follow_estimator and self.commander.wait_for(
                lambda: True if self.log.est_t_s else None, STARTUP_TIMEOUT_S) is None:
            raise OperationError('demo director: no estimate from the wrench estimator within '
                                 f'{STARTUP_TIMEOUT_S:g} s', 'director')
        self.set_real_time_factor(real_time_factor)
        handlers = {'move': self._move, 'trajectory': self._trajectory,
                    'wait': lambda a: self.wait_s(a.duration_s),
                    'at_trajectory_time': self._at_trajectory_time, 'tare': self._tare,
                    'clear_tare': self._tare, 'force': self._force, 'clear': self._clear,
                    'phase_start': self._phase_start, 'phase_end': self._phase_end}
        total = script.duration_s()
        done_s = 0.0
        for a in script.actions:
            handlers[a.kind](a)
            done_s += a.duration_s
            if self.progress is not None and a.kind in ('force', 'move', 'trajectory'):
                force = (f', force {np.round(a.value, 1).tolist()} N' if a.kind == 'force'
                         else '')
                self.progress(f'        force script: {done_s:.0f}/{total:.0f} s sim time{force}')
        self.wait_s(FINAL_WAIT_S)
        self.wait_for_estimator('end of the script')
        if self.truth_at_end:
            answer = self.call('write_truth', self._trigger.Request(),
                               'the true parameters at the end of the script')
            if not answer.success:
                raise OperationError('demo director: the simulator did not write its true '
                                     f'parameters: {answer.message}', 'director')
        return self.log

    def close(self):
        """Stop spinning and shut the private context down."""
        import rclpy

        self.commander.cancel()
        self._executor.shutdown()
        self._spin.join(timeout=5)      # a callback may still be draining its queue
        self.node.destroy_node()
        rclpy.shutdown(context=self._ctx)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def run_director(domain_id, script: ForceScript, sim_node_name, real_time_factor,
                 robot: RobotModel, estimator_name='wrench_estimator',
                 command_topic=DEFAULT_COMMAND_TOPIC, progress=print, truth_at_end=False):
    """Run the script over DDS on ``domain_id``; return a DirectorLog (times in sim seconds)."""
    with Director(domain_id, robot, sim_node_name, estimator_name, command_topic,
                  progress, truth_at_end=truth_at_end) as director:
        return director.play(script, real_time_factor)


__all__ = ['Director', 'DirectorLog', 'flag_sample_stamp', 'run_director']
