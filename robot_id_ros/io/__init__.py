# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Files on disk, ROS-free.

rosbag2 recordings, recording sidecars, the model file, atomic writes and JointState layouts.
"""
