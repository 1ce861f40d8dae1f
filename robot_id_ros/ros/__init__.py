# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The thin rclpy layer.

Parameter declarations, the recorder base, generated node docs and the nodes
(``robot_id_ros.ros.nodes``, one module per executable).
"""
