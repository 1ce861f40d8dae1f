# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""youbot_sim keeps running when the middleware refuses a write (Fast DDS raised "cannot
publish data" once under heavy load and the exception ended the simulator mid-demo)."""
from rclpy.parameter import Parameter

from robot_id_ros.ros.nodes.youbot_sim import YoubotSimNode
from ros_helpers import refuse_first_write


def test_refused_write_is_counted_and_reported_not_fatal(rclpy_context):
    node = YoubotSimNode(context=rclpy_context, parameter_overrides=[
        Parameter('publish_ground_truth', value=True)])
    try:
        refuse_first_write(node.pub_js)
        published = node.published_joint_states
        m = node.arm.measure()
        node._publish(m)                 # refused: counted, not raised
        assert node.refused.count == 1
        assert node.published_joint_states == published
        level, message, values = node.driver.status()
        assert level == 'warn' and 'refused' in message and '/joint_states' in message
        node._publish(m)                 # the next one goes out
        assert node.refused.count == 1 and node.published_joint_states == published + 1
    finally:
        node.destroy_node()
