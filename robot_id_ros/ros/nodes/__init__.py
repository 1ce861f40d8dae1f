# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Thin rclpy nodes, one module per executable.

Convention (checked by test/test_node_parameters.py, relied on by robot_id_ros.ros.docs):
each node module defines exactly one rclpy Node subclass and main(args=None). The class's
constructor accepts Node's keyword arguments (context, namespace, parameter_overrides, ...) and
passes them on to Node.__init__; it declares every parameter the node reads (a description with
the unit, read_only where a change needs a restart), creates its publishers, subscriptions and
services, and starts nothing that outlives destroy_node(). The module's config/<executable>.yaml
sets only parameters the node declares, and every parameter the node declares without a default.
"""
