# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The identification node over DDS: a Trigger call runs the fit on a bag and writes the model."""
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'core'))

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
