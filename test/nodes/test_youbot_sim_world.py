# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The youbot_sim node's contact plane: its parameters reach the simulator and the ground-truth
wrench topic carries the plane's force."""
import numpy as np
from geometry_msgs.msg import WrenchStamped
from rclpy.node import Node
from rclpy.parameter import Parameter

from robot_id_ros.model.robot import youbot_model
from robot_id_ros.ros.nodes.youbot_sim import YoubotSimNode
from robot_id_ros.sim.config import YOUBOT_CANDLE_RAD
from ros_helpers import RosHarness


def test_contact_plane_parameters_reach_the_sim_and_the_truth_topic(rclpy_context):
    n = np.array([1.0, 0.0, 1.0]) / np.sqrt(2.0)
    tool = youbot_model().tool_placement(np.array(YOUBOT_CANDLE_RAD)).translation
    params = {'real_time_factor': 5.0, 'publish_rate_hz': 100.0, 'seed': 2,
              'contact_plane_enabled': True,
              'contact_plane_point_m': (tool + 0.004 * n).tolist(),     # the tool 4 mm inside
              'contact_plane_normal': [2.0, 0.0, 2.0], 'contact_stiffness_n_m': 2500.0,
              'contact_damping_n_s_m': 15.0, 'contact_friction_coefficient': 0.4,
              'contact_point_tool_m': [0.0, 0.0, 0.0]}
    h = RosHarness(step_s=0.005)
    try:
        sim = h.add(YoubotSimNode(context=rclpy_context, parameter_overrides=[
            Parameter(k, value=v) for k, v in params.items()]))
        probe = h.add(Node('probe', context=rclpy_context))
        truth = []
        probe.create_subscription(WrenchStamped, 'sim/true_wrench', truth.append, 100)
        plane = sim.arm.loads.plane
        assert plane is not None and plane.stiffness_n_m == 2500.0
        assert plane.damping_n_s_m == 15.0 and plane.friction_coefficient == 0.4
        np.testing.assert_allclose(plane.normal, n)
        assert h.spin(until=lambda: len(truth) > 20, timeout=60.0)
        f = truth[-1].wrench.force
        f = np.array([f.x, f.y, f.z])
        # the plane pushes the tool out along its normal with k * depth (the drives hold it)
        assert abs(f @ n - 2500.0 * 0.004) < 1.0 and np.linalg.norm(f - (f @ n) * n) < 0.5
        assert np.linalg.norm(f - sim.arm.contact_force_n()) < 0.5
    finally:
        h.close()
