# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the three recorder nodes share.

``RecorderBase`` (the node shell: parameters, services, worker thread) and the parameter
tables. Commanding the arm is ``robot_id_ros.ros.commander``;
the bag, sidecar and resume rules are ``robot_id_ros.record.session`` (ROS-free).
"""
from robot_id_ros.ros.recorders.base import RecorderBase
from robot_id_ros.ros.recorders.parameter_tables import (common_parameters,
                                                         friction_sweep_parameters,
                                                         static_pose_parameters,
                                                         trajectory_parameters)

__all__ = ['RecorderBase', 'common_parameters', 'friction_sweep_parameters',
           'static_pose_parameters', 'trajectory_parameters']
