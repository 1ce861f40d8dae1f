# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The robot and its dynamic structure, shared by every stage (ROS-free).

The URDF model (Pinocchio), the inertial and friction regressors, base parameters and friction
laws.
"""
