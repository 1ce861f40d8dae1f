# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
r"""One stage of an identification session on the arm: a recorder, or the identification node.

    ros2 launch robot_id_ros identification_session.launch.py stage:=static        # -> static_bag
    ros2 launch robot_id_ros identification_session.launch.py stage:=sweeps        # -> sweeps_bag
    robot-id design-excitation --out excitation.yaml \
        --velocity-limits 0.5,0.5,0.5,0.5,0.5 --acceleration-limits 1,1,1,1,1 \
        --velocity-fraction 0.95 --acceleration-fraction 0.95
    ros2 launch robot_id_ros identification_session.launch.py stage:=excitation \
        trajectory:=excitation.yaml
    ros2 launch robot_id_ros identification_session.launch.py stage:=identification \
        model:=youbot_model.yaml

| stage | executable | writes |
|---|---|---|
| static | static_pose_recorder | ``output_path`` (default static_bag) + sidecar |
| sweeps | friction_sweep_recorder | ``output_path`` (default sweeps_bag) + sidecar |
| excitation | trajectory_recorder | ``output_path`` (default excitation_bag) + sidecar |
| identification | identification | model ``model`` from the newest bags in ``recordings_dir`` |

Stages run one at a time, so each can be checked before the next moves the arm. A recorder starts
its experiment when the driver publishes (``autostart``, default true; false: call its ``~/start``
service) and the launch ends when it is done; the identification stage calls the node's
``~/identify`` service (``python -m robot_id_ros.ros.trigger_call``, no ``ros2`` command needed)
and ends when the fit returns (the node logs the result). The excitation's limits above are
config/trajectory_recorder.yaml's ``max_velocity_rad_s`` and ``max_acceleration_rad_s2``: a file
designed for more is refused. The launch exits 0 when its stage is done, and non-zero with the
reason when any of its processes fails or ends early (robot_id_ros.ros.launch_support). Relative
paths are relative to the directory ros2 launch runs in. ``sim:=true`` also starts the simulated
youBot (youbot_sim) to try a stage without the arm (add ``use_sim_time:=true`` when its
real_time_factor is not 1).

Parameters: each stage's node reads the package's config/<executable>.yaml; ``params_file`` names
an extra params file applied on top of it (its section keyed ``/**:``, which applies under any
``namespace``; a bare node name applies in the root namespace only). The arguments below override
both.

youBot drivers: joint states on ``joint_states_topic`` (default /joint_states:
youbot_driver_ros_interface remaps its ``arm_1/joint_states`` there, joint_state_broadcaster
publishes there; for an unremapped wrapper use ``joint_states_topic:=/arm_1/joint_states``).
Commands go out as
trajectory_msgs/JointTrajectory on ``command_topic`` (default the ros2_control
joint_trajectory_controller/joint_trajectory; the youBot wrapper's own interfaces, brics_actuator
position commands and the arm_1/arm_controller/follow_joint_trajectory action, need an adapter).
The wrapper publishes at 50 Hz by default; raise its ``youBotDriverCycleFrequencyInHz`` (e.g. to
200: ROS 1 ``<param name="youBotDriverCycleFrequencyInHz" value="200"/>``, ROS 2 port
``-p youBotDriverCycleFrequencyInHz:=200.0``) for better friction and inertia estimates.
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from robot_id_ros.ros.launch_support import absolute_name, on_exit_of, trigger_call, truthy

STAGES = ('static', 'sweeps', 'excitation', 'identification')


def _config(name):
    share = get_package_share_directory('robot_id_ros')
    return {
        'static_pose_recorder': os.path.join(share, 'config', 'static_pose_recorder.yaml'),
        'friction_sweep_recorder': os.path.join(share, 'config', 'friction_sweep_recorder.yaml'),
        'trajectory_recorder': os.path.join(share, 'config', 'trajectory_recorder.yaml'),
        'identification': os.path.join(share, 'config', 'identification.yaml'),
        'youbot_sim': os.path.join(share, 'config', 'youbot_sim.yaml'),
    }[name]


def _path(p):
    return os.path.abspath(os.path.expanduser(p))


def _stage(context):
    def arg(name):
        return LaunchConfiguration(name).perform(context)

    def flag(name):
        return truthy(arg(name))

    stage = arg('stage').strip()
    if stage not in STAGES:
        raise RuntimeError(
            f"identification_session.launch.py: stage:={stage!r} is not one of {', '.join(STAGES)}"
        )
    namespace = arg('namespace')
    common = {'use_sim_time': flag('use_sim_time')}
    extra = [arg('params_file')] if arg('params_file') else []
    remappings = [('joint_states', arg('joint_states_topic')),
                  ('joint_trajectory_controller/joint_trajectory', arg('command_topic'))]
    # with a stage that ends the launch, the other processes must last until it is done
    support = 'serves' if stage == 'identification' and not flag('autostart') else 'needed'
    actions = []
    if flag('sim'):
        sim = Node(package='robot_id_ros', executable='youbot_sim', name='youbot_sim',
                   namespace=namespace, parameters=[_config('youbot_sim'), {
                       'use_sim_time': False
                   }], remappings=remappings, output='screen', emulate_tty=True)
        actions += [sim, on_exit_of(sim, 'youbot_sim', support)]

    if stage == 'identification':
        ident = dict(common, recordings_dir=_path(arg('recordings_dir')))
        if arg('model'):
            ident['output_model'] = _path(arg('model'))
        node = Node(package='robot_id_ros', executable='identification', name='identification',
                    namespace=namespace, parameters=[_config('identification')] + extra + [ident],
                    output='screen', emulate_tty=True)
        actions += [node, on_exit_of(node, 'identification', support)]
        if not flag('autostart'):
            return actions        # call its ~/identify service yourself
        # run the fit once the node answers; the session ends when the call returns
        call = trigger_call(absolute_name('identification/identify', namespace), 'identify')
        return actions + [call, on_exit_of(call, 'identification ~/identify', 'stage')]
    recorder = {'static': 'static_pose_recorder', 'sweeps': 'friction_sweep_recorder',
                'excitation': 'trajectory_recorder'}[stage]
    output = arg('output_path') or f'{stage}_bag'
    recorder_overrides = dict(common, output_path=_path(output), autostart=flag('autostart'),
                              shutdown_when_done=True)
    if recorder == 'trajectory_recorder' and arg('trajectory'):
        recorder_overrides['trajectory_file'] = _path(arg('trajectory'))
    settings = dict(namespace=namespace, parameters=[_config(recorder)] + extra + [
        recorder_overrides], remappings=remappings, output='screen', emulate_tty=True)
    if recorder == 'static_pose_recorder':
        node = Node(package='robot_id_ros', executable='static_pose_recorder',
                    name='static_pose_recorder', **settings)
    elif recorder == 'friction_sweep_recorder':
        node = Node(package='robot_id_ros', executable='friction_sweep_recorder',
                    name='friction_sweep_recorder', **settings)
    else:
        node = Node(package='robot_id_ros', executable='trajectory_recorder',
                    name='trajectory_recorder', **settings)
    # the session stage ends when its node does (the simulator, if any, goes with it)
    return actions + [node, on_exit_of(node, f'stage {stage} ({recorder})', 'stage')]


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument(
            'stage', choices=list(STAGES),
            description='static (static poses), sweeps (friction sweeps), excitation (excitation '
            'trajectory) or identification'),
        DeclareLaunchArgument(
            'params_file', default_value='',
            description="extra ROS 2 params file over the stage node's package config "
            '(config/<executable>.yaml); empty: the package config only'),
        DeclareLaunchArgument(
            'model', default_value='',
            description='stage identification: the model file to write (sets output_model; '
            "empty: the params file's, identified_model.yaml)"),
        DeclareLaunchArgument(
            'recordings_dir', default_value='.',
            description='stage identification: folder with the recorder stages\' bags; the '
            'newest of each kind (by its sidecar) is used unless params_file lists '
            'bags (data_bags, static_bags, sweep_bags)'),
        DeclareLaunchArgument('output_path', default_value='',
                              description='recorder stages: the bag to write; empty: <stage>_bag'),
        DeclareLaunchArgument(
            'trajectory', default_value='',
            description='stage excitation: trajectory file from robot-id design-excitation'),
        DeclareLaunchArgument(
            'autostart', default_value='true',
            description='recorders start when the driver publishes, identification calls its '
            '~/identify service (false: call ~/start or ~/identify yourself)'),
        DeclareLaunchArgument(
            'sim', default_value='false',
            description='also start the simulated youBot (youbot_sim) instead of using the arm'),
        DeclareLaunchArgument('namespace', default_value='', description='namespace of the nodes'),
        DeclareLaunchArgument('use_sim_time', default_value='false', description='use /clock'),
        DeclareLaunchArgument('joint_states_topic', default_value='/joint_states',
                              description='sensor_msgs/JointState topic of the driver'),
        DeclareLaunchArgument(
            'command_topic', default_value='joint_trajectory_controller/joint_trajectory',
            description='trajectory_msgs/JointTrajectory topic the driver follows'),
        OpaqueFunction(function=_stage),
    ])
