# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
r"""The simulated youBot arm driver, with the wrench estimator on its joint states.

    ros2 launch robot_id_ros youbot_sim.launch.py model:=youbot_model.yaml
    ros2 launch robot_id_ros youbot_sim.launch.py                 # the simulator alone
    ros2 topic pub --once /sim/wrench geometry_msgs/msg/WrenchStamped \
        "{wrench: {force: {x: 5.0}}}"
    ros2 topic echo /wrench_estimator/wrench

The push is 5 N along the base x axis at the tool: the simulator starts in the candle pose (the
arm upright), where a vertical push makes no joint torque and so reads 0 N.
The simulator is the clock source: it publishes /clock and always runs on wall time (scaled by
its ``real_time_factor``); ``use_sim_time`` (default true) applies to the estimator. The estimator
starts when ``model`` is given (a model file from robot-id identify, e.g. from ``robot-id demo``)
and ``estimator`` is true.

Topic names are those of the real youBot drivers, so a setup tried here runs unchanged on the
robot: joint states on ``joint_states_topic`` (default /joint_states: the youBot wrapper's
``arm_1/joint_states`` as its launch files remap it, or joint_state_broadcaster's; for an
unremapped wrapper use ``joint_states_topic:=/arm_1/joint_states``), commands
(trajectory_msgs/JointTrajectory) on ``command_topic`` (default the ros2_control
joint_trajectory_controller/joint_trajectory). The simulator publishes at the real wrapper's
default 50 Hz; the real driver's rate is its parameter ``youBotDriverCycleFrequencyInHz`` (raise
it, e.g. to 200, for force bandwidth); the simulator's is ``publish_rate_hz`` in its params file. A
params file of your own keys its section ``/**:`` (it applies under any ``namespace``). The launch
runs until stopped; it exits non-zero with the reason when a node fails or ends on its own.
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, LogInfo, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from robot_id_ros.ros.launch_support import on_exit_of, truthy


def _nodes(context):
    def arg(name):
        return LaunchConfiguration(name).perform(context)

    namespace = arg('namespace')
    joint_states = arg('joint_states_topic')
    sim = Node(
        package='robot_id_ros', executable='youbot_sim', name='youbot_sim', namespace=namespace,
        # the simulator is the clock source: never on sim time itself
        parameters=[arg('params_file'), {'use_sim_time': False}],
        remappings=[('joint_states', joint_states),
                    ('joint_trajectory_controller/joint_trajectory', arg('command_topic'))],
        output='screen', emulate_tty=True)
    actions = [sim, on_exit_of(sim, 'youbot_sim')]
    model = arg('model')
    if not truthy(arg('estimator')):
        return actions
    if not model:
        return actions + [
            LogInfo(
                msg='youbot_sim.launch.py: no model:=MODEL.yaml given, so the wrench estimator '
                'is not started (robot-id demo or robot-id identify make one)')
        ]
    estimator_overrides = {'use_sim_time': truthy(arg('use_sim_time')),
                           'model_file': os.path.abspath(os.path.expanduser(model))}
    estimator = Node(
        package='robot_id_ros', executable='wrench_estimator', name='wrench_estimator',
        namespace=namespace, parameters=[arg('estimator_params_file'), estimator_overrides],
        remappings=[('joint_states', joint_states)], output='screen', emulate_tty=True)
    return actions + [estimator, on_exit_of(estimator, 'wrench_estimator')]


def generate_launch_description():
    share = get_package_share_directory('robot_id_ros')
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(share, 'config', 'youbot_sim.yaml'),
            description='ROS 2 params file of the simulator (section /**: applies in any '
            'namespace)'),
        DeclareLaunchArgument(
            'estimator_params_file', default_value=os.path.join(share, 'config',
                                                                'wrench_estimator.yaml'),
            description='ROS 2 params file of the estimator (section /**: applies in any '
            'namespace)'),
        DeclareLaunchArgument(
            'model', default_value='',
            description='model file for the estimator; empty: the simulator runs alone'),
        DeclareLaunchArgument('estimator', default_value='true',
                              description='start the wrench estimator (when a model is given)'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of both nodes'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='true',
            description='the estimator follows the simulation clock (/clock from youbot_sim)'),
        DeclareLaunchArgument(
            'joint_states_topic', default_value='/joint_states',
            description='sensor_msgs/JointState topic (simulator out, estimator in)'),
        DeclareLaunchArgument(
            'command_topic', default_value='joint_trajectory_controller/joint_trajectory',
            description='trajectory_msgs/JointTrajectory topic the simulator follows'),
        OpaqueFunction(function=_nodes),
    ])
