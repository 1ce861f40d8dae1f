# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The real-time wrench estimator on a robot (or on a bag replayed with ``--clock``).

    ros2 launch robot_id_ros wrench_estimator.launch.py model:=youbot_model.yaml
    ros2 launch robot_id_ros wrench_estimator.launch.py model:=m.yaml use_sim_time:=true
        # then: ros2 bag play --clock my_bag

Outputs (under the node's name): ~/wrench, ~/wrench_std, ~/external_joint_torques, ~/contact,
/diagnostics; services ~/tare, ~/reset, ~/clear_tare and ~/calibrate (residual statistics from
a few seconds of contact-free motion, kept in ``calibration`` across restarts: see
docs/workflows.md).

youBot drivers:
- youbot_driver_ros_interface (ROS 1 wrapper and its ROS 2 port) publishes ``arm_1/joint_states``;
  its launch files remap it to ``/joint_states`` (the default here). A driver that publishes
  ``arm_1/joint_states`` unremapped: ``joint_states_topic:=/arm_1/joint_states``.
- the ros2_control variant (joint_state_broadcaster) publishes ``/joint_states``: the default.
- The wrapper publishes joint states at 50 Hz by default. Raise it for force bandwidth with the
  driver's parameter ``youBotDriverCycleFrequencyInHz`` (e.g. 200): ROS 1 wrapper
  ``<param name="youBotDriverCycleFrequencyInHz" value="200"/>`` in its launch file, ROS 2 port
  ``--ros-args -p youBotDriverCycleFrequencyInHz:=200.0``.
- Drivers reporting motor current instead of torque: ``effort_unit: current`` in the params file.

Parameters come from ``params_file`` (default: the package's config/wrench_estimator.yaml; key the
section of a file of your own ``/**:``, which applies under any ``namespace``, where a bare
``wrench_estimator:`` applies in the root namespace only); ``model``, ``calibration`` and
``use_sim_time`` given here override it. The launch runs until stopped; it exits non-zero with
the reason when the estimator fails or refuses to start (no model, a model for another robot).
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from robot_id_ros.ros.launch_support import on_exit_of, truthy


def _estimator(context):
    def arg(name):
        return LaunchConfiguration(name).perform(context)

    overrides = {'use_sim_time': truthy(arg('use_sim_time'))}
    model = arg('model')
    if model:
        overrides['model_file'] = os.path.abspath(os.path.expanduser(model))
    calibration = arg('calibration')
    if calibration:
        overrides['calibration_file'] = os.path.abspath(os.path.expanduser(calibration))
    node = Node(
        package='robot_id_ros', executable='wrench_estimator', name='wrench_estimator',
        namespace=arg('namespace'),
        parameters=[arg('params_file'), overrides],
        remappings=[('joint_states', arg('joint_states_topic'))],
        output='screen', emulate_tty=True)
    return [node, on_exit_of(node, 'wrench_estimator')]


def generate_launch_description():
    config = os.path.join(get_package_share_directory('robot_id_ros'), 'config',
                          'wrench_estimator.yaml')
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=config,
            description='ROS 2 params file of the estimator (section /**: applies in any '
            'namespace)'),
        DeclareLaunchArgument(
            'model', default_value='',
            description='model file from robot-id identify (sets model_file; required unless '
            'params_file sets it)'),
        DeclareLaunchArgument(
            'calibration', default_value='',
            description="residual calibration file, read at start and written by ~/calibrate "
            "(sets calibration_file; '' = the params file's, else the node's default file)"),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of the estimator node'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='false',
            description='use /clock (true when replaying a bag with ros2 bag play --clock)'),
        DeclareLaunchArgument(
            'joint_states_topic', default_value='/joint_states',
            description='sensor_msgs/JointState topic of the driver (youBot wrapper unremapped: '
            '/arm_1/joint_states)'),
        OpaqueFunction(function=_estimator),
    ])
