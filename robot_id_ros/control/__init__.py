# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Sensorless force control closed on the wrench estimate (ROS-free).

``ForceController`` turns the estimated tool force into joint set points: hand guiding (the tool
moves with a push), force holding (press along an axis with a set force) and hold, with dither
and safety stops. ``ClosedLoop`` runs it on the simulated arm with the estimator in the loop.
"""
from robot_id_ros.control.config import MODES, ControllerConfig
from robot_id_ros.control.controller import Command, ForceController, ForceInput

__all__ = ['MODES', 'Command', 'ControllerConfig', 'ForceController', 'ForceInput']
