# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulated youBot arm and its drives; drive_effects: recordings of any arm (ROS-free)."""
