# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot_id_ros: force sensing without a force/torque sensor, by dynamic identification.

The sub-packages follow the pipeline. ROS-free: ``model`` (the robot, regressors, friction),
``io`` (bags, sidecars, the model file), ``signals`` (zero-phase filters and derivatives of
recorded data), ``record`` (1. planning experiments), ``identify``
(2. fitting the model), ``estimate`` (3. the online wrench estimator) and ``sim`` (the simulated
youBot). ``ros`` is the thin rclpy layer with one node module per executable, ``cli`` the
``robot-id`` command and ``demo`` the whole pipeline on the simulator.
"""
__version__ = '0.1.0'
