# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The identification node over DDS: a Trigger call runs the fit on a bag and writes the model."""
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'identify'))

rclpy = pytest.importorskip('rclpy')


def _call(node, client, executor_ctx, timeout=60.0):
    from std_srvs.srv import Trigger
    assert client.wait_for_service(timeout_sec=10.0)
    fut = client.call_async(Trigger.Request())
    t0 = time.monotonic()
    while not fut.done() and time.monotonic() - t0 < timeout:
        time.sleep(0.05)
    assert fut.done(), 'service did not answer'
    return fut.result()


def test_identify_service(rclpy_context, tmp_path):
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.parameter import Parameter
    from std_srvs.srv import Trigger

    from robot_id_ros.model.robot import youbot_model
    from robot_id_ros.io.model_file import load_model
    from robot_id_ros.ros.nodes.identification import IdentificationNode
    from test_identification import (FRICTION, SIGMA, _write_bag, fourier_trajectory, perturbed,
                                     synthetic_series)

    robot = youbot_model()
    rng = np.random.default_rng(4)
    truth = perturbed(robot, rng)
    t, Q, QD, QDD = fourier_trajectory(robot, rng, periods=3)
    s, _ = synthetic_series(truth, FRICTION, t, Q, QD, QDD, SIGMA, rng)
    _write_bag(tmp_path / 'run', s)
    out = tmp_path / 'model.yaml'
    node = IdentificationNode(
        context=rclpy_context, parameter_overrides=[
            Parameter('data_bags', value=[str(tmp_path / 'run')]),
            Parameter('output_model', value=str(out))
        ])
    client_node = rclpy.create_node('id_client', context=rclpy_context)
    client = client_node.create_client(Trigger, '/identification/identify')
    ex = MultiThreadedExecutor(num_threads=3, context=rclpy_context)
    ex.add_node(node)
    ex.add_node(client_node)
    th = threading.Thread(target=ex.spin, daemon=True)
    th.start()
    try:
        res = _call(client_node, client, ex)
        assert res.success, res.message
        assert 'base parameters' in res.message and out.is_file()
        m = load_model(out)
        assert m.joint_names == robot.joint_names
        # bad input: a bag that does not exist -> failure message, nothing written (the paths are
        # read-only: a second node is started with them)
        out2 = tmp_path / 'model2.yaml'
        assert not node.set_parameters(
            [Parameter('data_bags', value=[str(tmp_path / 'missing')])])[0].successful
        node2 = IdentificationNode(
            context=rclpy_context, namespace='/second', parameter_overrides=[
                Parameter('data_bags', value=[str(tmp_path / 'missing')]),
                Parameter('output_model', value=str(out2))])
        ex.add_node(node2)
        res = _call(client_node,
                    client_node.create_client(Trigger, '/second/identification/identify'), ex)
        assert not res.success and 'not found' in res.message
        assert not out2.exists()
    finally:
        ex.shutdown()
        th.join(timeout=5)
        node.destroy_node()
        if 'node2' in locals():
            node2.destroy_node()
        client_node.destroy_node()


@pytest.fixture
def synthetic_bag(tmp_path):
    """A bag of the youBot's simulated torques along an excitation trajectory."""
    from robot_id_ros.model.robot import youbot_model
    from test_identification import (FRICTION, SIGMA, _write_bag, fourier_trajectory, perturbed,
                                     synthetic_series)

    robot = youbot_model()
    rng = np.random.default_rng(4)
    t, Q, QD, QDD = fourier_trajectory(robot, rng, periods=3)
    s, _ = synthetic_series(perturbed(robot, rng), FRICTION, t, Q, QD, QDD, SIGMA, rng)
    _write_bag(tmp_path / 'run', s)
    return tmp_path / 'run'


class Peer:
    """The identification node spun in the test's context, and a peer in a second context on the
    same ROS domain (another DDS participant, as another process would be)."""

    def __init__(self, ctx, domain, **parameters):
        from rclpy.parameter import Parameter

        from robot_id_ros.ros.nodes.identification import IdentificationNode
        from ros_helpers import RosHarness

        self.ros = RosHarness(step_s=0.005)
        self.node = self.ros.add(IdentificationNode(context=ctx, parameter_overrides=[
            Parameter(k, value=v) for k, v in parameters.items()]))
        self.probe = self.ros.add(rclpy.create_node('peer', context=self.ros.private_context(
            domain)))
        self._identify = None

    def set(self, name, value):
        """``ros2 param set`` from the peer: the SetParameters result (successful, reason)."""
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter

        client = self.probe.create_client(SetParameters, '/identification/set_parameters')
        try:
            req = SetParameters.Request(parameters=[Parameter(name, value=value)
                                                    .to_parameter_msg()])
            return self.ros.call(client, req, timeout=20.0).results[0]
        finally:
            self.probe.destroy_client(client)

    def identify(self):
        """``~/identify`` from the peer: the Trigger response.

        One client for every call, found by the service before the first: a client made for each
        call can send its request before the service's reply writer has matched its reader, and
        on a loaded machine the reply is then dropped (Fast DDS: "failed to send response").
        """
        from std_srvs.srv import Trigger

        if self._identify is None:
            self._identify = self.probe.create_client(Trigger, '/identification/identify')
            assert self._identify.wait_for_service(timeout_sec=60.0)
            assert self.ros.spin(until=self._reply_path_matched, timeout=60.0)
        return self.ros.call(self._identify, timeout=120.0)

    def _reply_path_matched(self):
        """Whether the service node has discovered the peer's client (the graph lists a client
        from its reply reader)."""
        try:
            found = self.node.get_client_names_and_types_by_node('peer', '/')
        except Exception:      # noqa: BLE001 - the peer node itself not discovered yet
            return False
        return any(name == '/identification/identify' for name, _ in found)


# a peer's changes that would change the model written (the probe replaced a 5-joint model by a
# 3-joint one with joint_names and tool_frame)
PEER_CHANGES = {'joint_names': ['arm_joint_1', 'arm_joint_2', 'arm_joint_3'],
                'tool_frame': 'arm_link_3', 'weighting': 'ols', 'rotor_inertia': True,
                'topic': '/other_joint_states', 'min_velocity_rad_s': 0.5}


@pytest.mark.integration
def test_a_peer_cannot_change_what_the_model_is_made_from(rclpy_context, ros_domain_id, tmp_path,
                                                          synthetic_bag):
    """By default every parameter is fixed at start: a peer's ros2 param set is refused, and a
    peer's ~/identify writes the model the operator configured; the model it replaces is kept."""
    from robot_id_ros.io.model_file import load_model

    out = tmp_path / 'model.yaml'
    peer = Peer(rclpy_context, ros_domain_id, data_bags=[str(synthetic_bag)],
                output_model=str(out))
    try:
        for name, value in PEER_CHANGES.items():
            before = peer.node.get_parameter(name).value
            res = peer.set(name, value)
            assert not res.successful and res.reason, f'{name} was changed by a peer'
            assert peer.node.get_parameter(name).value == before
        first = peer.identify()
        assert first.success, first.message
        assert 'previous' not in first.message
        version_1 = out.read_bytes()
        assert len(load_model(out).joint_names) == 5
        second = peer.identify()
        assert second.success, second.message
        kept = [p for p in tmp_path.iterdir() if p.name.startswith('model.') and p != out]
        assert len(kept) == 1 and str(kept[0]) in second.message
        assert kept[0].read_bytes() == version_1 and kept[0].suffix == '.yaml'
        assert len(load_model(out).joint_names) == 5
        third = peer.identify()       # a third call keeps the second version, the first stays
        assert third.success, third.message
        kept = sorted(p for p in tmp_path.iterdir() if p.name.startswith('model.') and p != out)
        assert len(kept) == 2 and version_1 in [p.read_bytes() for p in kept]
    finally:
        peer.ros.close()


@pytest.mark.integration
def test_the_operator_can_allow_run_time_changes(rclpy_context, ros_domain_id, tmp_path):
    """allow_run_time_changes (itself read-only) makes the fit options, joint_names, tool_frame and
    topic settable, each still checked; the paths stay fixed."""
    peer = Peer(rclpy_context, ros_domain_id, allow_run_time_changes=True,
                output_model=str(tmp_path / 'model.yaml'))
    try:
        for name, value in PEER_CHANGES.items():
            res = peer.set(name, value)
            assert res.successful, (name, res.reason)
            assert peer.node.get_parameter(name).value == value
        assert not peer.set('weighting', 'magic').successful
        assert not peer.set('joint_names', ['arm joint 1']).successful
        assert not peer.set('output_model', str(tmp_path / 'elsewhere.yaml')).successful
        assert not peer.set('allow_run_time_changes', False).successful
    finally:
        peer.ros.close()
