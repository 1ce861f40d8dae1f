# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Integration tests of the wrench_estimator node over real DDS.

The node runs on one rclpy context; a feeder node on a second context of the same ROS domain
publishes JointState generated from known physics (tau_m = g(q) - J^T F) and records the
node's outputs. Both executors are spun from the test thread (ros_helpers.RosHarness).
"""
import time

import numpy as np
import pytest
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import Trigger

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
from robot_id_ros.estimate.position_velocity import PositionVelocity
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.io.model_file import ModelFileError, load_model, nominal_model
from robot_id_ros.ros.nodes.wrench_estimator import WrenchEstimatorNode
from ros_helpers import RosHarness, refuse_first_write

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])
NAMES = [f'arm_joint_{i}'
         for i in range(1, 6)] + ['gripper_finger_joint_l', 'gripper_finger_joint_r']
T0 = 1_700_000_000


@pytest.fixture(scope='module')
def model_file(tmp_path_factory):
    fr = FrictionModel(coulomb_pos_nm=[0.3] * 5, coulomb_neg_nm=[0.3] * 5,
                       viscous_nm_s_rad=[0.2] * 5, offset_nm=0.0)
    m = nominal_model(youbot_model(), fr)
    m.residual_std_nm = np.full(5, 0.05)
    path = tmp_path_factory.mktemp('node') / 'model.yaml'
    m.save(path)
    return path, m


class Rig(RosHarness):
    """The estimator node on the test's context and a feeder node on a private context of the
    same domain: it publishes joint states and records the estimator's outputs."""

    def __init__(self, ctx, domain, model_file, reliable=False, input_thread=True, **params):
        super().__init__(step_s=0.001)
        overrides = [Parameter('model_file', value=str(model_file))
                     ] + [Parameter(k, value=v) for k, v in params.items()]
        self.node = self.add(WrenchEstimatorNode(context=ctx, parameter_overrides=overrides,
                                                 input_thread=input_thread))
        self.feeder = f = self.add(Node('feeder', context=self.private_context(domain)))
        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE if reliable
                         else ReliabilityPolicy.BEST_EFFORT)
        self.pub = f.create_publisher(JointState, 'joint_states', qos)
        self.wrench, self.tau, self.contact, self.diag = [], [], [], []
        f.create_subscription(WrenchStamped, 'wrench_estimator/wrench', self.wrench.append, 1000)
        f.create_subscription(JointState, 'wrench_estimator/external_joint_torques',
                              self.tau.append, 1000)
        f.create_subscription(Bool, 'wrench_estimator/contact', self.contact.append, 1000)
        f.create_subscription(DiagnosticArray, '/diagnostics', self.diag.append, 100)
        self.tare = f.create_client(Trigger, 'wrench_estimator/tare')
        self.reset = f.create_client(Trigger, 'wrench_estimator/reset')

    def connect(self):
        assert self.spin(until=lambda: self.pub.get_subscription_count(
        ) > 0 and self.feeder.count_publishers('wrench_estimator/wrench') > 0 and len(
            self.feeder.get_subscriptions_info_by_topic('wrench_estimator/wrench')) > 0)
        self.spin(0.3)

    def send(self, stamp_ns, q, qd, effort, names=NAMES):
        m = JointState()
        m.header.stamp.sec, m.header.stamp.nanosec = int(stamp_ns // 10**9), int(stamp_ns % 10**9)
        m.name = list(names)
        m.position = [float(x) for x in q]
        m.velocity = [float(x) for x in qd]
        m.effort = [float(x) for x in effort]
        self.pub.publish(m)


def stamp_of(msg):
    return msg.header.stamp.sec * 10 ** 9 + msg.header.stamp.nanosec


def effort_for(model, q, force):
    return model.robot.gravity_torque(q) - model.robot.tool_jacobian(q)[:3].T @ np.asarray(force)


def feed(rig, model, start_ns, count, force, rate=200.0, pace=0.002):
    for k in range(count):
        s = start_ns + int(k * 1e9 / rate)
        rig.send(s, np.r_[BENT, 0, 0], np.zeros(7), np.r_[effort_for(model, BENT, force), 0, 0])
        rig.spin(pace)
    return start_ns + int(count * 1e9 / rate)


@pytest.mark.parametrize('reliable', [False, True])
def test_known_force_recovered_over_dds(rclpy_context, ros_domain_id, model_file, reliable):
    path, model = model_file
    rig = Rig(rclpy_context, ros_domain_id, path, reliable=reliable)
    try:
        rig.connect()
        s = feed(rig, model, T0 * 10 ** 9, 60, [0, 0, 0])
        s = feed(rig, model, s, 100, [3.0, -2.0, -8.0])
        assert rig.spin(until=lambda: rig.wrench and stamp_of(rig.wrench[-1]) == s - 5_000_000,
                        timeout=5)
        w = rig.wrench[-1].wrench.force
        np.testing.assert_allclose([w.x, w.y, w.z], [3.0, -2.0, -8.0], atol=0.05)
        assert rig.wrench[-1].header.frame_id == 'arm_link_0'
        # every output is stamped with an input stamp; no output invented
        sent = {T0 * 10 ** 9 + int(k * 1e9 / 200.0) for k in range(160)}
        assert {stamp_of(m) for m in rig.wrench} <= sent
        assert len(rig.wrench) >= 140          # best effort over loopback: (almost) nothing lost
        assert rig.contact[-1].data is True
        assert list(rig.tau[-1].name) == NAMES[:5]
        # tare zeroes the current reading
        r = rig.call(rig.tare)
        assert r.success and 'bias' in r.message
        s = feed(rig, model, s, 20, [3.0, -2.0, -8.0])
        assert rig.spin(until=lambda: stamp_of(rig.wrench[-1]) == s - 5_000_000, timeout=5)
        w = rig.wrench[-1].wrench.force
        assert max(abs(w.x), abs(w.y), abs(w.z)) < 0.3
        assert rig.call(rig.reset).success
    finally:
        rig.close()


def test_bad_input_no_output_diagnostics_and_recovery(rclpy_context, ros_domain_id, model_file):
    path, model = model_file
    rig = Rig(rclpy_context, ros_domain_id, path, diagnostics_period_s=0.2, stale_timeout_s=0.3)
    try:
        rig.connect()
        s = feed(rig, model, T0 * 10 ** 9, 20, [0, 0, 0])
        rig.spin(0.2)
        n_before = len(rig.wrench)
        good_e = np.r_[effort_for(model, BENT, [0, 0, 0]), 0, 0]
        q7, z7 = np.r_[BENT, 0, 0], np.zeros(7)
        bad = [
            (s - 5_000_000, q7, z7, good_e, NAMES),  # duplicate stamp (of the last good one)
            (s - 20_000_000, q7, z7, good_e, NAMES),  # out of order
            (s, q7[:6], z7, good_e, NAMES),  # mismatched lengths
            (s + 1, q7, z7, np.r_[good_e[:6], np.nan], NAMES),  # NaN (in a finger: ignored)
            (s + 2, q7, z7, np.r_[np.nan, good_e[1:]], NAMES),  # NaN in an arm joint
            (s + 3, q7, z7, np.r_[np.inf, good_e[1:]], NAMES),  # inf
            (s + 4, q7[1:], z7[1:], good_e[1:], NAMES[1:]),  # missing joint
            (s + 5, q7, z7, [], NAMES),  # no effort
        ]
        for stamp, q, qd, e, names in bad:
            rig.send(stamp, q, qd, e, names)
            rig.spin(0.01)
        rig.spin(0.5)
        bad_stamps = {b[0] for b in bad} - {s + 1}
        assert not ({stamp_of(m) for m in rig.wrench[n_before:]} & bad_stamps)
        assert len(rig.wrench) - n_before <= 1  # only the sample with a NaN finger effort
        assert rig.node.monitor.n_rejected == 7
        kinds = rig.node.monitor.rejected_by_kind
        for k in ('shape', 'nonfinite', 'missing_joint', 'no_effort', 'duplicate_stamp',
                  'out_of_order'):
            assert kinds.get(k), (k, kinds)
        # diagnostics say what is wrong; the stall shows as stale input
        assert rig.spin(
            until=lambda: any('stale input' in st.message for d in rig.diag for st in d.status),
            timeout=5)
        assert any('bad input' in st.message for d in rig.diag for st in d.status)
        vals = {kv.key: kv.value for kv in rig.diag[-1].status[0].values}
        for key in ('input_rate_hz', 'sigma_min', 'dropped_samples', 'rejected_samples',
                    'stale_input', 'weak axes'):
            assert key in vals
        # good data again: output resumes (after the gap the observer restarts)
        n_mid = len(rig.wrench)
        s2 = feed(rig, model, s + 10 ** 9, 20, [0, 0, 0])
        assert rig.spin(until=lambda: len(rig.wrench) >= n_mid + 15, timeout=5)
        assert rig.node.monitor.n_resets >= 1
        # a time jump back (a bag looped) resets instead of producing a spike
        feed(rig, model, T0 * 10 ** 9, 20, [0, 0, 0])
        rig.spin(0.3)
        assert rig.node.monitor.n_resets >= 2
        f = np.array([[m.wrench.force.x, m.wrench.force.y, m.wrench.force.z] for m in rig.wrench])
        assert np.abs(f).max() < 1e-3
        assert s2 > 0
    finally:
        rig.close()


def test_implausible_sample_rejected_reported_in_diagnostics_then_recovery(
        rclpy_context, ros_domain_id, model_file):
    """A finite but absurd sample (an effort of 1e300 Nm: a glitch) gives no output, /diagnostics
    reports it (count, kind and message), and the valid samples after it give finite wrenches."""
    path, model = model_file
    rig = Rig(rclpy_context, ros_domain_id, path, reliable=True, diagnostics_period_s=0.2)
    try:
        rig.connect()
        s = feed(rig, model, T0 * 10 ** 9, 20, [0, 0, 0])
        assert rig.spin(until=lambda: rig.wrench and stamp_of(rig.wrench[-1]) == s - 5_000_000,
                        timeout=5)
        n_before = len(rig.diag)
        e = np.r_[effort_for(model, BENT, [0, 0, 0]), 0, 0]
        e[1] = 1e300                                        # arm_joint_2
        rig.send(s, np.r_[BENT, 0, 0], np.zeros(7), e)       # the next stamp of the sequence
        s2 = feed(rig, model, s + 5_000_000, 20, [0, 0, 0])

        def reported():
            for d in rig.diag[n_before:]:
                for st in d.status:
                    vals = {kv.key: kv.value for kv in st.values}
                    if 'bad input: implausible: effort[1] = 1e+300 Nm' in st.message:
                        return st, vals
            return None
        assert rig.spin(until=reported, timeout=5), [st.message for d in rig.diag[n_before:]
                                                     for st in d.status]
        st, vals = reported()
        assert st.level != 0 and 'outside the plausible range' in st.message      # not OK
        assert vals['rejected_samples'] == '1'
        assert vals['rejected_by_kind'] == 'implausible=1'
        assert vals['last_problem'].startswith('implausible: effort[1] = 1e+300 Nm')
        # later valid samples: every one gives an output, finite and (no force) near zero
        assert rig.spin(until=lambda: stamp_of(rig.wrench[-1]) == s2 - 5_000_000, timeout=5)
        stamps = [stamp_of(m) for m in rig.wrench]
        assert s not in stamps
        after = [m for m in rig.wrench if stamp_of(m) > s]
        assert [stamp_of(m) for m in after] == [s + 5_000_000 * (k + 1) for k in range(20)]
        f = np.array([[m.wrench.force.x, m.wrench.force.y, m.wrench.force.z,
                       m.wrench.torque.x, m.wrench.torque.y, m.wrench.torque.z] for m in after])
        assert np.isfinite(f).all() and np.abs(f[:, :3]).max() < 1e-3
        assert rig.node.monitor.n_rejected == 1
    finally:
        rig.close()


def test_payload_parameter_at_run_time(rclpy_context, ros_domain_id, model_file):
    path, model = model_file
    rig = Rig(rclpy_context, ros_domain_id, path)
    try:
        res = rig.node.set_parameters([Parameter('payload_mass_kg', value=0.5),
                                       Parameter('payload_com_m', value=[0.0, 0.0, 0.0])])
        assert all(r.successful for r in res)
        assert rig.node.model.payload.mass_kg == 0.5
        bad = rig.node.set_parameters([Parameter('payload_com_m', value=[0.0, 0.0])])
        assert not bad[0].successful and '3 finite' in bad[0].reason
        ro = rig.node.set_parameters([Parameter('observer_gain_hz', value=20.0)])
        assert not ro[0].successful          # read-only
        rig.node.set_parameters([Parameter('payload_mass_kg', value=0.0)])
        assert rig.node.model.payload is None
        # implausible payloads: above the youBot's rated 0.5 kg, a COM 5 m away
        heavy = rig.node.set_parameters([Parameter('payload_mass_kg', value=100.0)])
        assert not heavy[0].successful and 'max_payload_kg' in heavy[0].reason
        far = rig.node.set_parameters([Parameter('payload_com_m', value=[5.0, 0.0, 0.0])])
        assert not far[0].successful and rig.node.model.payload is None
    finally:
        rig.close()


def test_input_thread_batches_fast_input(rclpy_context, ros_domain_id, model_file):
    """The input thread wakes once per sample while samples come slowly, and once per batch
    period while they come fast (every sample still gets its own output, in order); the
    executor never takes the input, and the services are answered meanwhile."""
    path, model = model_file
    rig = Rig(rclpy_context, ros_domain_id, path, reliable=True, input_batch_period_s=0.05)
    node = rig.node
    try:
        assert node.input_thread is not None and node.input_group.batched
        rig.connect()
        s = feed(rig, model, T0 * 10 ** 9, 3, [0, 0, 0], pace=0.2)    # slow: one per sample
        assert rig.spin(until=lambda: len(rig.wrench) == 3, timeout=5)
        # one wake-up per sample, unless a starved thread found two queued at once
        assert 1 <= node.wakeups <= 3 and not node.input_thread.batched
        started_s = time.monotonic()
        s = feed(rig, model, s, 60, [0, 0, 0], pace=0.002)           # fast: batched
        feed_s = time.monotonic() - started_s       # longer on a loaded machine
        assert rig.spin(until=lambda: len(rig.wrench) == 63, timeout=5)
        # batched: one wake-up per batch period while the feed lasts, besides the slow phase's
        # 3, up to 6 while the running mean of the interval forgets the slow phase, and the
        # last (unbatched: about 63); waits that timed out are not counted
        assert node.wakeups <= 3 + 6 + 1 + feed_s / 0.05, (node.wakeups, feed_s)
        sent = [T0 * 10 ** 9 + int(k * 1e9 / 200.0) for k in range(63)]
        assert [stamp_of(m) for m in rig.wrench] == sent
        assert rig.call(rig.reset).success
    finally:
        rig.close()
    assert not node.input_thread._thread.is_alive()       # destroy_node ended it


def test_input_through_the_executor_where_the_wait_set_differs(
        rclpy_context, ros_domain_id, model_file, monkeypatch):
    """An rclpy whose wait-set calls differ (the input thread fails at construction) leaves the
    input to the executor, with a warning: the node still estimates every sample."""
    import robot_id_ros.ros.nodes.wrench_estimator as node_module

    def differing(*args, **kwargs):
        raise TypeError('WaitSet(): incompatible constructor arguments')
    monkeypatch.setattr(node_module, 'InputThread', differing)
    path, model = model_file
    rig = Rig(rclpy_context, ros_domain_id, path, reliable=True)
    node = rig.node
    try:
        assert node.input_thread is None and node.batch_timer is not None
        assert not node.input_group.batched
        rig.connect()
        feed(rig, model, T0 * 10 ** 9, 5, [0, 0, 0], pace=0.02)
        assert rig.spin(until=lambda: len(rig.wrench) == 5, timeout=5)
        assert node.wakeups >= 1
    finally:
        rig.close()


def test_batched_input_waits_for_the_batch_timer(rclpy_context, ros_domain_id, model_file):
    """Without the input thread (``input_thread=False``, or an rclpy without its wait-set calls)
    the executor takes the input. While batched the input subscription is out of the executor's
    wait set: queued samples wait for the batch timer, which takes them all in one wake-up; a
    wake-up that finds none hands the input back to the executor (a wake-up per sample)."""
    path, model = model_file
    rig = Rig(rclpy_context, ros_domain_id, path, reliable=True, input_thread=False,
              input_batch_period_s=0.05)
    node = rig.node
    try:
        rig.connect()
        s = feed(rig, model, T0 * 10 ** 9, 3, [0, 0, 0], pace=0.2)    # slow: one per sample
        assert rig.spin(until=lambda: len(rig.wrench) == 3, timeout=5)
        assert not node.input_group.batched and node.wakeups == 3
        node.input_group.batched = True           # as after a fast sample, the timer held
        node.batch_timer.cancel()
        s = feed(rig, model, s, 5, [0, 0, 0], pace=0.05)
        rig.spin(0.3)
        assert len(rig.wrench) == 3 and node.wakeups == 3      # queued, no wake-up
        ex = rig.executors[node.context]     # and not ready either: the executor sleeps
        waits = []
        for _ in range(3):
            t0 = time.monotonic()
            ex.spin_once(timeout_sec=0.1)
            waits.append(time.monotonic() - t0)
        assert max(waits) > 0.08, waits
        node.batch_timer.reset()
        assert rig.spin(until=lambda: len(rig.wrench) == 8, timeout=5)
        assert rig.spin(until=lambda: not node.input_group.batched, timeout=5)
        assert node.wakeups == 5              # the batch, then one that found nothing
        assert node.batch_timer.is_canceled()
        feed(rig, model, s, 1, [0, 0, 0], pace=0.2)
        assert rig.spin(until=lambda: len(rig.wrench) == 9, timeout=5)
        assert node.wakeups == 6 and not node.input_group.batched
    finally:
        rig.close()


def test_refuses_a_model_for_another_joint_set(rclpy_context, model_file):
    path, _ = model_file
    with pytest.raises(ModelFileError, match='arm_joint_1.*not.*joint_a'):
        WrenchEstimatorNode(
            context=rclpy_context, parameter_overrides=[
                Parameter('model_file', value=str(path)),
                Parameter('joint_names', value=['joint_a', 'joint_b'])
            ])
    with pytest.raises(ModelFileError, match='not found'):
        WrenchEstimatorNode(context=rclpy_context, parameter_overrides=[
            Parameter('model_file', value='/nonexistent/model.yaml')])
    # the model's own joint list and URDF pass the check
    node = WrenchEstimatorNode(
        context=rclpy_context, parameter_overrides=[
            Parameter('model_file', value=str(path)),
            Parameter('urdf_path', value=str(youbot_model().urdf_path)),
            Parameter('joint_names', value=[f'arm_joint_{i}' for i in range(1, 6)])
        ])
    node.destroy_node()


def test_main_start_error_on_stderr_exit_code_2(ros_domain_id, model_file, tmp_path):
    """A start error is one line on stderr (nothing on stdout) and exit code 2, like the other
    nodes."""
    import subprocess
    import sys

    from ros_helpers import isolated_env
    env = isolated_env(ros_domain_id)
    path, _ = model_file
    cases = [(['-p', f'model_file:={tmp_path / "missing.yaml"}'], 'model file not found'),
             (['-p', f'model_file:={path}', '-p',
               'urdf_file:=/x.urdf'], 'urdf_file is now urdf_path'),
             (['-p', f'model_file:={path}', '-p', 'joint_names:=arm_joint_1'], 'joint_names')]
    for args, text in cases:
        r = subprocess.run(
            [sys.executable, '-m', 'robot_id_ros.ros.nodes.wrench_estimator', '--ros-args', *args],
            env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
        assert r.stdout == '', (args, r.stdout)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(
            'wrench_estimator: cannot start: ') and text in lines[0], (args, r.stderr)


def test_refused_output_write_is_counted_not_fatal(rclpy_context, model_file):
    """A write the middleware refuses (Fast DDS "cannot publish data" under heavy load) costs
    that sample's outputs, not the node: the next sample is estimated and published."""
    path, _ = model_file
    node = WrenchEstimatorNode(context=rclpy_context, input_thread=False,
                               parameter_overrides=[Parameter('model_file', value=str(path))])
    try:
        sent = refuse_first_write(node.pub_wrench)
        q = [2.9496, 1.6344, -1.6482, 2.189, 2.9234, 0.0, 0.0]
        for k in range(3):
            node._process(T0, 10_000_000 * (k + 1), NAMES, q, [0.0] * 7, [0.0] * 7)
        assert len(sent) == 3 and node.refused.count == 1
        assert node.est.last_stamp_ns == T0 * 10 ** 9 + 30_000_000
    finally:
        node.destroy_node()


def test_effort_unit_defaults_to_the_models(rclpy_context, model_file, tmp_path):
    """A model identified from motor currents reads joint_states effort as currents times its
    drive gains unless effort_unit says otherwise; a model of torques reads torques."""
    path, m = model_file
    gains = np.array([5.2, 5.2, 3.35, 3.6, 3.5])
    m.identification = {'options': {'effort_unit': 'current'}}
    m.drive_gains_nm_per_a = gains
    current_path = tmp_path / 'current_model.yaml'
    m.save(current_path)
    for file, params, want in ((path, [], np.ones(5)), (current_path, [], gains),
                               (current_path, [Parameter('effort_unit', value='torque')],
                                np.ones(5))):
        node = WrenchEstimatorNode(context=rclpy_context, parameter_overrides=[
            Parameter('model_file', value=str(file))] + params)
        np.testing.assert_allclose(node.scale, want)
        node.destroy_node()


def test_joint_states_without_velocity_give_the_known_force(
        rclpy_context, ros_domain_id, model_file):
    """A driver that publishes no velocity: the node derives it from the moving positions (its
    log says so) and publishes finite wrenches that find the push."""
    path, model = model_file
    rig = Rig(rclpy_context, ros_domain_id, path, reliable=True)
    try:
        rig.connect()
        rate, amp, w = 200.0, 0.1, 2 * np.pi * 0.5
        force = np.array([3.0, -2.0, -8.0])
        s0 = T0 * 10 ** 9
        S, Q, E = [], [], []
        for k in range(200):
            t = k / rate
            q = BENT + amp * np.sin(w * t)
            qd = np.full(5, amp * w * np.cos(w * t))
            qdd = np.full(5, -amp * w * w * np.sin(w * t))
            e = model.torque(q, qd, qdd) - model.robot.tool_jacobian(q)[:3].T @ force
            S.append(s0 + int(k * 1e9 / rate))
            Q.append(q)
            E.append(e)
            rig.send(S[-1], np.r_[q, 0, 0], [], np.r_[e, 0, 0])
            rig.spin(0.002)
        last = s0 + int(199 * 1e9 / rate)
        assert rig.spin(until=lambda: rig.wrench and stamp_of(rig.wrench[-1]) == last,
                        timeout=5)
        f = np.array([[m.wrench.force.x, m.wrench.force.y, m.wrench.force.z]
                      for m in rig.wrench])
        assert len(f) >= 190 and np.isfinite(f).all()
        assert rig.node.monitor.n_rejected == 0
        assert rig.node.position_velocity is not None
        np.testing.assert_allclose(f[-1], force, atol=0.5)
        # live = replay: the same samples offline, velocity by the same rule, give the same wrench
        est = WrenchEstimator(load_model(path), EstimatorConfig())
        QD = PositionVelocity.for_config(5, est.config).series(np.array(S), np.array(Q))
        res = est.process(np.array(S), np.array(Q), QD, np.array(E))
        offline = dict(zip(res.stamp_ns.tolist(), res.wrench[:, :3]))
        live = [(stamp_of(m), row) for m, row in zip(rig.wrench, f)]
        np.testing.assert_allclose([row for _, row in live], [offline[s] for s, _ in live],
                                   rtol=1e-6, atol=1e-6)
    finally:
        rig.close()
