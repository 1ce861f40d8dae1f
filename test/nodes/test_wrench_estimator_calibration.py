# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The wrench_estimator node's residual calibration over real DDS: ``~/calibrate`` and its file.

The node runs a model made from the youBot's URDF alone (no residual statistics: fallback
statistics, a WARN in /diagnostics). A feeder on a second context of the same ROS domain
publishes the arm at rest with its gravity torque plus noise (contact-free) or plus a constant
joint torque (a push held through the stretch). Both executors are spun from the test thread
(ros_helpers.RosHarness); every wait is on a condition with a generous timeout. The node runs
in a namespace of this process and only the statuses naming this test's files are read, so
another test's nodes on the same ROS domain (another process) cannot feed or answer this one.
"""
import os

import numpy as np
import pytest
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from robot_id_ros.io.calibration_file import ResidualCalibration, load_calibration
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.robot import YOUBOT_JOINTS, youbot_model
from robot_id_ros.ros.nodes.wrench_estimator import WrenchEstimatorNode
from ros_helpers import RosHarness

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])
T0_NS = 1_700_000_000 * 10 ** 9
RATE_HZ = 200.0
NOISE_NM = 0.02            # the measured torque's noise
PUSH_NM = np.array([0.0, 2.0, 0.0, 0.0, 0.0])   # a held push: 2 Nm on arm_joint_2
TIMEOUT_S = 120.0          # generous: a loaded 2-core machine
NAMESPACE = f'/calibration_test_{os.getpid()}'


@pytest.fixture
def urdf_only_model(tmp_path):
    """A model file with the URDF's parameters and no residual statistics."""
    model = nominal_model(youbot_model())
    assert model.residual_std_nm is None
    path = tmp_path / 'urdf_model.yaml'
    model.save(path)
    return path, model


class Rig(RosHarness):
    """The estimator node on the test's context; a feeder on a private context of the domain."""

    def __init__(self, ctx, domain, model_file, folder, **params):
        super().__init__(step_s=0.001)
        self.folder = str(folder)     # every file of the node's is in it (its statuses name one)
        overrides = [Parameter('model_file', value=str(model_file)),
                     Parameter('diagnostics_period_s', value=0.2),
                     Parameter('calibration_duration_s', value=1.0)
                     ] + [Parameter(k, value=v) for k, v in params.items()]
        self.node = self.add(WrenchEstimatorNode(context=ctx, parameter_overrides=overrides,
                                                 namespace=NAMESPACE))
        self.feeder = f = self.add(Node('feeder', context=self.private_context(domain)))
        self.pub = f.create_publisher(JointState, f'{NAMESPACE}/joint_states',
                                      QoSProfile(depth=100,
                                                 reliability=ReliabilityPolicy.RELIABLE))
        self.diag = []
        f.create_subscription(DiagnosticArray, '/diagnostics', self.diag.append, 100)
        self.calibrate = f.create_client(Trigger, f'{NAMESPACE}/wrench_estimator/calibrate')
        self.reset = f.create_client(Trigger, f'{NAMESPACE}/wrench_estimator/reset')
        self.rng = np.random.default_rng(7)
        self.stamp_ns = T0_NS
        self.gravity_nm = model_gravity(model_file)

    def connect(self):
        assert self.spin(until=lambda: self.pub.get_subscription_count() > 0
                         and self.calibrate.service_is_ready(), timeout=TIMEOUT_S)

    def send(self, push_nm=None):
        """Publish the next joint state at rest (effort: gravity + noise, minus a push)."""
        effort = self.gravity_nm + self.rng.normal(0.0, NOISE_NM, len(BENT))
        if push_nm is not None:
            effort = effort - push_nm       # tau_ext = model torque - measured torque
        m = JointState(name=list(YOUBOT_JOINTS), position=BENT.tolist(),
                       velocity=[0.0] * len(BENT), effort=effort.tolist())
        m.header.stamp.sec, m.header.stamp.nanosec = divmod(self.stamp_ns, 10 ** 9)
        self.pub.publish(m)
        self.stamp_ns += int(1e9 / RATE_HZ)
        self.spin(0.002)

    def feed(self, count, push_nm=None):
        for _ in range(count):
            self.send(push_nm)

    def feed_until(self, done, push_nm=None):
        """Publish joint states until ``done()``; return whether it came before the timeout."""
        for _ in range(int(TIMEOUT_S * RATE_HZ)):
            if done():
                return True
            self.send(push_nm)
        return done()

    def status(self, condition):
        """Wait for a /diagnostics status meeting ``condition(status, values)``; return it."""
        found = []

        def seen():
            for d in self.diag:
                for st in d.status:
                    vals = {kv.key: kv.value for kv in st.values}
                    if (vals.get('calibration_file', '').startswith(self.folder)
                            and condition(st, vals)):
                        found.append((st, vals))
                        return True
            return False
        self.diag.clear()
        assert self.feed_until(seen), [st.message for d in self.diag for st in d.status]
        return found[0]


def model_gravity(model_file):
    from robot_id_ros.io.model_file import load_model
    return load_model(model_file).robot.gravity_torque(BENT)


def fallback(st, vals):
    return ('running on fallback statistics' in st.message
            and vals['residual_statistics'].startswith('fallback statistics'))


def calibrated(st, vals):
    return (vals['residual_statistics'].startswith('calibration ')
            and 'fallback' not in st.message)


def test_calibrate_contact_free_then_kept_across_a_restart(
        rclpy_context, ros_domain_id, urdf_only_model, tmp_path, monkeypatch):
    monkeypatch.setenv('ROS_HOME', str(tmp_path / 'ros_home'))
    default_file = (tmp_path / 'ros_home' / 'robot_id_ros'
                    / f'{NAMESPACE[1:]}.wrench_estimator_calibration.yaml')
    path, model = urdf_only_model
    rig = Rig(rclpy_context, ros_domain_id, path, tmp_path)
    try:
        rig.connect()
        st, vals = rig.status(fallback)
        assert st.level == DiagnosticStatus.WARN
        assert vals['calibration_file'] == str(default_file)
        # no joint states meanwhile, so the first call is still gathering: a second call is
        # refused, and a reset during the gathering fails the first one
        first = rig.calibrate.call_async(Trigger.Request())
        second = rig.calibrate.call_async(Trigger.Request())
        assert rig.spin(until=second.done, timeout=TIMEOUT_S)
        assert not second.result().success
        assert 'already running' in second.result().message
        assert not first.done()
        assert rig.call(rig.reset, timeout=TIMEOUT_S).success
        assert rig.spin(until=first.done, timeout=TIMEOUT_S)
        assert not first.result().success and 'reset' in first.result().message
        assert not default_file.exists()
        # contact-free: calibrated, the file written where the node keeps it
        third = rig.calibrate.call_async(Trigger.Request())
        assert rig.feed_until(third.done)
        answer = third.result()
        assert answer.success, answer.message
        assert str(default_file) in answer.message and '\n' not in answer.message
        cal = load_calibration(default_file)
        assert cal.joint_names == tuple(YOUBOT_JOINTS) and cal.samples >= 100
        assert np.all(np.abs(cal.mean_nm) < 5 * NOISE_NM)     # no push in it
        st, vals = rig.status(calibrated)
        assert vals['calibration'].startswith('calibrated on')
    finally:
        rig.close()
    restarted = Rig(rclpy_context, ros_domain_id, path, tmp_path)
    try:
        restarted.connect()
        st, vals = restarted.status(calibrated)
        assert vals['calibration'] == f'loaded {default_file}'
    finally:
        restarted.close()


def test_calibrate_during_a_push_is_refused_and_writes_nothing(
        rclpy_context, ros_domain_id, urdf_only_model, tmp_path):
    path, model = urdf_only_model
    out = tmp_path / 'calibration.yaml'
    rig = Rig(rclpy_context, ros_domain_id, path, tmp_path, calibration_file=str(out))
    try:
        rig.connect()
        rig.feed(40, PUSH_NM)
        call = rig.calibrate.call_async(Trigger.Request())
        assert rig.feed_until(call.done, PUSH_NM)
        answer = call.result()
        assert not answer.success
        assert 'contact' in answer.message and 'nothing changed' in answer.message
        assert not out.exists() and list(tmp_path.glob('calibration*')) == []
        st, vals = rig.status(fallback)          # still on the fallback statistics
        assert vals['calibration'].startswith('failed:')
    finally:
        rig.close()


def _other_joints(path, model_file):
    n = 2
    ResidualCalibration(('joint_a', 'joint_b'), np.zeros(n), np.full(n, 0.05), np.zeros(n),
                        np.zeros(n), 'momentum', 10.0, 500, 2.5).save(path)
    return 'is for joints joint_a, joint_b'


def _malformed(path, model_file):
    path.write_text('kind: robot_id_ros/residual_calibration\njoints: 3\n')
    return 'malformed'


def _older_than_the_model(path, model_file):
    n = len(YOUBOT_JOINTS)
    ResidualCalibration(tuple(YOUBOT_JOINTS), np.zeros(n), np.full(n, 0.05), np.zeros(n),
                        np.zeros(n), 'momentum', 10.0, 500, 2.5).save(path)
    stamp = os.stat(model_file).st_mtime
    os.utime(path, (stamp - 60.0, stamp - 60.0))
    return 'older than the model file'


@pytest.mark.parametrize('make', [_other_joints, _malformed, _older_than_the_model],
                         ids=['other joints', 'malformed', 'older than the model'])
def test_an_unusable_calibration_file_is_refused_and_the_node_runs(
        rclpy_context, ros_domain_id, urdf_only_model, tmp_path, make):
    path, model = urdf_only_model
    bad = tmp_path / 'calibration.yaml'
    reason = make(bad, path)
    rig = Rig(rclpy_context, ros_domain_id, path, tmp_path, calibration_file=str(bad))
    try:
        rig.connect()
        st, vals = rig.status(lambda st, vals: fallback(st, vals)
                              and f'calibration file {bad} refused' in st.message
                              and vals['samples_out'] != '0')
        assert reason in st.message and st.level == DiagnosticStatus.WARN
    finally:
        rig.close()
