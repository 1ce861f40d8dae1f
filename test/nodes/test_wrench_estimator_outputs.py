# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The wrench_estimator process publishes exactly what the core's ``update`` gives.

The node runs as the installed executable does (``python -m ...wrench_estimator``: its ``main``,
its executor, the youBot settings of config/wrench_estimator.yaml) on an isolated domain. The
test feeds it 3 s of youBot joint states over reliable DDS (rest, a 10 N push on the tool,
release, motion; one sample never sent, one sample with a NaN effort), once sample by sample at
200 Hz and once with 500 Hz stamps in bursts of 25 samples every 100 ms, which the node takes in
batches (``input_batch_period_s``, and the backlog: far fewer wake-ups than samples, counted in
/diagnostics; the bursts keep the mean rate within what a loaded machine gives the node). It
runs the same messages through ``JointIndexer.convert`` and ``WrenchEstimator.update`` in this
process. Every
``~/wrench``, ``~/wrench_std`` and ``~/external_joint_torques`` must equal the core's numbers to
the bit, ``~/contact`` must change where the core's contact state changes, and /diagnostics must
count one dropped sample (the one never sent; the NaN sample arrived and counts as rejected).
A service call is answered while the node spins, and SIGINT ends it with exit code 0.
"""
import math
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import Trigger

from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator, effort_scale
from robot_id_ros.estimate.monitor import wrench_std
from robot_id_ros.io.joint_state import JointIndexer
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.ros.parameter_files import youbot_estimator_settings
from robot_id_ros.settings import from_plain
from ros_helpers import isolated_env, stop_node

ROOT = Path(__file__).resolve().parents[2]
BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])
FINGERS = ['gripper_finger_joint_l', 'gripper_finger_joint_r']
NAMES = [f'arm_joint_{i}' for i in range(1, 6)] + FINGERS
SKIPPED_S, NAN_AT_S = 1.25, 2.0    # a sample never sent; a sample with a NaN effort
T0_NS = 1_700_000_000 * 10 ** 9


def model():
    fr = FrictionModel(coulomb_pos_nm=[0.3] * 5, coulomb_neg_nm=[0.3] * 5,
                       viscous_nm_s_rad=[0.2] * 5, offset_nm=0.0)
    m = nominal_model(youbot_model(), fr)
    m.residual_std_nm = np.full(5, 0.05)
    return m


def samples(m, rate_hz):
    """The fed messages' (stamp_ns, position, velocity, effort) lists, 7 joints each; 3 s.

    0-1 s at rest, 1-2 s a 10 N downward push on the tool, 2-3 s the arm moving (0.1 rad
    sinusoids) without force. Efforts: inverse dynamics + friction - J^T F [Nm].
    """
    out = []
    for k in range(int(3 * rate_hz)):
        t = k / rate_hz
        w = 2 * math.pi * 1.5
        moving = t >= 2.0
        phase = w * (t - 2.0) + np.arange(5)     # the motion starts from the rest pose
        q = BENT + (0.1 * (np.sin(phase) - np.sin(np.arange(5))) if moving else 0.0)
        qd = 0.1 * w * np.cos(phase) if moving else np.zeros(5)
        qdd = -0.1 * w * w * np.sin(phase) if moving else np.zeros(5)
        force = np.array([0.0, 0.0, -10.0]) if 1.0 <= t < 2.0 else np.zeros(3)
        tau = (m.robot.inverse_dynamics(q, qd, qdd) + 0.2 * qd + 0.3 * np.tanh(qd / 0.01)
               - m.robot.tool_jacobian(q)[:3].T @ force)
        effort = list(map(float, tau)) + [0.0, 0.0]
        if k == int(NAN_AT_S * rate_hz):
            effort[2] = float('nan')
        out.append((T0_NS + int(round(k * 1e9 / rate_hz)), list(map(float, q)) + [0.0, 0.0],
                    list(map(float, qd)) + [0.0, 0.0], effort))
    return out


def reference(m, feed):
    """What the node must publish: per used stamp (wrench, std, tau_ext), and contact states."""
    est = WrenchEstimator(m, from_plain(EstimatorConfig, youbot_estimator_settings()))
    scale = effort_scale(m, 'torque')
    indexer = JointIndexer(m.joint_names)
    outputs, contact = {}, []
    for stamp, q, qd, effort in feed:
        try:
            s = indexer.convert(NAMES, q, qd, effort)
        except ValueError:
            continue
        res = est.update(stamp, s.q, s.qd, s.effort * scale)
        outputs[stamp] = (res.wrench.tolist(), wrench_std(res).tolist(), res.tau_ext.tolist())
        contact.append(bool(res.contact_state))
    return outputs, contact


def stamp_of(msg):
    return msg.header.stamp.sec * 10 ** 9 + msg.header.stamp.nanosec


def wrench_list(msg):
    f, t = msg.wrench.force, msg.wrench.torque
    return [f.x, f.y, f.z, t.x, t.y, t.z]


def changes(values):
    return [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]


class Listener:
    """Feeds joint states and records the node's outputs (own context, spun in this thread)."""

    def __init__(self, ctx):
        self.node = n = rclpy.create_node('outputs_probe', context=ctx)
        rel = QoSProfile(depth=2000, reliability=ReliabilityPolicy.RELIABLE)
        self.pub = n.create_publisher(JointState, 'joint_states', rel)
        self.got = {'wrench': [], 'wrench_std': [], 'external_joint_torques': [], 'contact': []}
        for topic, typ in (('wrench', WrenchStamped), ('wrench_std', WrenchStamped),
                           ('external_joint_torques', JointState)):
            n.create_subscription(typ, f'wrench_estimator/{topic}', self.got[topic].append, rel)
        n.create_subscription(Bool, 'wrench_estimator/contact',
                              lambda msg: self.got['contact'].append(msg.data), QoSProfile(
                                  depth=100, reliability=ReliabilityPolicy.RELIABLE,
                                  durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self.diag = {}
        n.create_subscription(DiagnosticArray, '/diagnostics', self._on_diag, 10)
        self.ex = SingleThreadedExecutor(context=ctx)
        self.ex.add_node(n)

    def _on_diag(self, msg):
        for st in msg.status:
            if st.name.startswith('wrench_estimator'):
                self.diag = {kv.key: kv.value for kv in st.values}

    def spin(self, seconds, until=lambda: False):
        end = time.monotonic() + seconds
        while time.monotonic() < end and not until():
            self.ex.spin_once(timeout_sec=0.01)
        return until()


@pytest.mark.parametrize('rate_hz, burst', [(200.0, 1), (500.0, 25)])
def test_node_outputs_equal_the_core_update(ros_domain_id, rate_hz, burst):
    m = model()
    feed = [x for k, x in enumerate(samples(m, rate_hz)) if k != int(SKIPPED_S * rate_hz)]
    want, want_contact = reference(m, feed)
    assert any(want_contact) and not all(want_contact)      # the push is detected and ends
    path = Path(tempfile.mkdtemp()) / 'model.yaml'
    m.save(path)
    proc = subprocess.Popen(
        [sys.executable, '-m', 'robot_id_ros.ros.nodes.wrench_estimator', '--ros-args',
         '--params-file', str(ROOT / 'config' / 'wrench_estimator.yaml'), '-p',
         f'model_file:={path}', '-p', 'diagnostics_period_s:=0.5'],
        env=isolated_env(ros_domain_id), cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=ros_domain_id)
    probe = Listener(ctx)
    try:
        topics = ('wrench', 'wrench_std', 'external_joint_torques')
        assert probe.spin(90, lambda: probe.pub.get_subscription_count() > 0 and all(
            probe.node.count_publishers(f'wrench_estimator/{t}') for t in topics)), \
            proc.stdout.read() if proc.poll() is not None else 'node did not come up'
        probe.spin(1.0)
        t0 = time.perf_counter()
        for k, (stamp, q, qd, effort) in enumerate(feed):
            msg = JointState(name=NAMES, position=q, velocity=qd, effort=effort)
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 10 ** 9)
            probe.pub.publish(msg)
            if (k + 1) % burst == 0:
                probe.spin(max(0.0, t0 + (k + 1) / rate_hz * (1 if burst == 1 else 2.0)
                               - time.perf_counter()))
        expected = want
        assert probe.spin(30, lambda: all(len(probe.got[t]) >= len(expected) for t in topics))
        probe.spin(1.2)                                      # a /diagnostics after the last
        for i, topic in enumerate(topics):
            got = {stamp_of(msg): msg for msg in probe.got[topic]}
            assert set(got) == set(expected), topic
            for stamp, msg in got.items():
                values = (list(msg.effort) if topic == 'external_joint_torques'
                          else wrench_list(msg))
                assert values == expected[stamp][i], (topic, stamp)
        assert changes(probe.got['contact']) == changes(want_contact)
        assert probe.diag['dropped_samples'] == '1', probe.diag
        assert probe.diag['rejected_samples'] == '1', probe.diag
        if burst > 1:                 # taken in batches, not a wake-up per sample
            assert int(probe.diag['input_wakeups']) < 0.5 * len(feed), probe.diag
        # services are served by the node's executor too, and Ctrl-C stops it cleanly
        client = probe.node.create_client(Trigger, 'wrench_estimator/clear_tare')
        assert client.wait_for_service(timeout_sec=10)
        future = client.call_async(Trigger.Request())
        assert probe.spin(10, future.done) and future.result().success
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        probe.ex.shutdown()
        probe.node.destroy_node()
        rclpy.shutdown(context=ctx)
        stop_node(proc)
