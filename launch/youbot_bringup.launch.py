# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
r"""The youBot arm with the wrench estimator and, on demand, a recording stage.

    ros2 launch robot_id_ros youbot_bringup.launch.py robot:=sim model:=youbot_model.yaml
    ros2 launch robot_id_ros youbot_bringup.launch.py robot:=real model:=youbot_model.yaml \
        rate_hz:=200.0
    ros2 launch robot_id_ros youbot_bringup.launch.py robot:=real driver:=false \
        record:=static command_interface:=follow_joint_trajectory     # a second terminal

``robot:=real`` starts the ROS 2 youBot driver (package and executable
``youbot_driver_ros_interface``, a2s-institute, foxy-devel) for the arm, at ``rate_hz``
(its ``youBotDriverCycleFrequencyInHz``); ``driver_params`` adds a params file of its own
(its ``youBotConfigurationFilePath`` defaults to the youbot_driver package's config folder).
``robot:=sim`` starts the simulated youBot (youbot_sim) as its twin: in the namespace ``arm_1``
with config/youbot_driver_twin.yaml, so it offers the same names (``arm_1/joint_states``,
``arm_1/arm_controller/position_command``, the action
``arm_1/arm_controller/follow_joint_trajectory``, ``arm_1/switchOnMotors``,
``arm_1/switchOffMotors``, ``arm_1/calibrate``), rate and joint state layout. Everything else
is the same for both.

The driver's ``arm_1/joint_states`` is remapped to ``joint_states_topic`` (default
/joint_states, as the driver's own launch file does, so bags carry the topic ``robot-id
identify`` reads by default; ``joint_states_topic:=/arm_1/joint_states`` keeps the driver's
name). The estimator (wrench_estimator) starts when ``model`` is given and reads it.
``record`` starts one recorder (static: static_pose_recorder, sweeps: friction_sweep_recorder,
excitation: trajectory_recorder with ``trajectory``) that moves the arm through
``command_interface`` (follow_joint_trajectory or brics_position, both the driver's; trajectory
for a ros2_control driver) and writes ``output_path`` (default <record>_bag); the launch ends
with it. Switch the motors on and calibrate before recording on the robot. ``driver:=false``
starts no driver: a recording stage next to a running bringup.

Relative ``joint_states_topic`` and ``command_topic`` resolve in ``namespace`` for the driver (in
``arm_1`` below it) and its clients alike. The launch exits 0 when its recording is done, and
non-zero with the reason when a node fails or ends early.
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, LogInfo, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from robot_id_ros.ros.launch_support import TRUE, absolute_name, on_exit_of, truthy

ROBOTS = ('sim', 'real')
RECORDERS = {'static': 'static_pose_recorder', 'sweeps': 'friction_sweep_recorder',
             'excitation': 'trajectory_recorder'}
INTERFACES = ('follow_joint_trajectory', 'brics_position', 'trajectory', 'trajectory_stream')
REAL_DRIVER = 'youbot_driver_ros_interface'
ARM_NAMESPACE = 'arm_1'         # the driver's names for its first arm


def _config(name):
    share = get_package_share_directory('robot_id_ros')
    return {
        'youbot_sim': os.path.join(share, 'config', 'youbot_sim.yaml'),
        'youbot_driver_twin': os.path.join(share, 'config', 'youbot_driver_twin.yaml'),
        'static_pose_recorder': os.path.join(share, 'config', 'static_pose_recorder.yaml'),
        'friction_sweep_recorder': os.path.join(share, 'config', 'friction_sweep_recorder.yaml'),
        'trajectory_recorder': os.path.join(share, 'config', 'trajectory_recorder.yaml'),
    }[name]


def _path(p):
    return os.path.abspath(os.path.expanduser(p))


def _join(*parts):
    return '/'.join(p.strip('/') for p in parts if p.strip('/'))


def _topics(arg, namespace):
    """{relative name the nodes use: the absolute topic of this launch}.

    The driver runs in ``<namespace>/arm_1`` and its clients in ``<namespace>``: a relative topic
    argument is resolved once, in ``namespace``, and every node is remapped to that name.
    """
    return {'joint_states': absolute_name(arg('joint_states_topic'), namespace),
            'joint_trajectory_controller/joint_trajectory': absolute_name(arg('command_topic'),
                                                                          namespace)}


def _driver(arg, namespace, rate_hz):
    """Return the real driver's node, or the simulator in its place (same names and layout)."""
    topics = _topics(arg, namespace)
    joint_states = topics['joint_states']
    if arg('robot') == 'sim':
        return Node(
            package='robot_id_ros', executable='youbot_sim', name='youbot_sim',
            namespace=_join(namespace, ARM_NAMESPACE),
            parameters=[_config('youbot_sim'), _config('youbot_driver_twin'),
                        {'use_sim_time': False, 'publish_rate_hz': rate_hz}],
            remappings=list(topics.items()), output='screen', emulate_tty=True)
    driver_config = os.path.join(get_package_share_directory('youbot_driver'), 'config')
    settings = {'youBotHasBase': False, 'youBotHasArms': True, 'youBotArmName1':
                'youbot-manipulator', 'youBotConfigurationFilePath': driver_config,
                'youBotDriverCycleFrequencyInHz': rate_hz, 'trajectoryActionServerEnable': True}
    extra = [arg('driver_params')] if arg('driver_params') else []
    return Node(
        package='youbot_driver_ros_interface', executable='youbot_driver_ros_interface',
        name='youbot_driver_ros_interface', namespace=namespace,
        parameters=[settings] + extra,
        remappings=[(_join(ARM_NAMESPACE, 'joint_states'), joint_states)],
        output='screen', emulate_tty=True)


def _recorder(arg, namespace, common, record):
    interface = arg('command_interface').strip()
    if interface not in INTERFACES:
        raise RuntimeError(f'youbot_bringup.launch.py: command_interface:={interface!r} is not '
                           f"one of {', '.join(INTERFACES)}")
    overrides = dict(common, command_interface=interface, autostart=True,
                     shutdown_when_done=True, output_path=_path(arg('output_path')
                                                                or f'{record}_bag'))
    remappings = list(_topics(arg, namespace).items())
    if record == 'static':
        return Node(package='robot_id_ros', executable='static_pose_recorder',
                    name='static_pose_recorder', namespace=namespace,
                    parameters=[_config('static_pose_recorder'), overrides],
                    remappings=remappings, output='screen', emulate_tty=True)
    if record == 'sweeps':
        return Node(package='robot_id_ros', executable='friction_sweep_recorder',
                    name='friction_sweep_recorder', namespace=namespace,
                    parameters=[_config('friction_sweep_recorder'), overrides],
                    remappings=remappings, output='screen', emulate_tty=True)
    trajectory = {'trajectory_file': _path(arg('trajectory'))} if arg('trajectory') else {}
    return Node(package='robot_id_ros', executable='trajectory_recorder',
                name='trajectory_recorder', namespace=namespace,
                parameters=[_config('trajectory_recorder'), dict(overrides, **trajectory)],
                remappings=remappings, output='screen', emulate_tty=True)


def _bringup(context):
    def arg(name):
        return LaunchConfiguration(name).perform(context).strip()

    robot, record = arg('robot'), arg('record') or 'none'
    if robot not in ROBOTS:
        raise RuntimeError(f"youbot_bringup.launch.py: robot:={robot!r} is not sim or real")
    if record != 'none' and record not in RECORDERS:
        raise RuntimeError(f'youbot_bringup.launch.py: record:={record!r} is not one of none, '
                           f"{', '.join(RECORDERS)}")
    namespace = arg('namespace')
    rate_hz = float(arg('rate_hz'))
    sim_time = arg('use_sim_time').lower()
    # the simulator is the clock source (/clock); the real driver stamps with the wall clock
    common = {'use_sim_time': robot == 'sim' if sim_time == 'auto' else sim_time in TRUE}
    # with a recording, the driver and the estimator must last until it is done
    support = 'serves' if record == 'none' else 'needed'
    actions = []
    if truthy(arg('driver')):
        driver = _driver(arg, namespace, rate_hz)
        actions += [driver, on_exit_of(driver, 'youbot_sim' if robot == 'sim' else REAL_DRIVER,
                                       support)]
    model = arg('model')
    if model:
        estimator = Node(
            package='robot_id_ros', executable='wrench_estimator', name='wrench_estimator',
            namespace=namespace, parameters=[arg('params_file'), dict(
                common, model_file=_path(model))],
            remappings=[('joint_states', _topics(arg, namespace)['joint_states'])],
            output='screen', emulate_tty=True)
        actions += [estimator, on_exit_of(estimator, 'wrench_estimator', support)]
    else:
        actions.append(LogInfo(msg='youbot_bringup.launch.py: no model:=MODEL.yaml, so the '
                               'wrench estimator is not started'))
    if record != 'none':
        node = _recorder(arg, namespace, common, record)
        actions += [node, on_exit_of(node, f'recording {record} ({RECORDERS[record]})',
                                     'stage')]
    return actions


def generate_launch_description():
    share = get_package_share_directory('robot_id_ros')
    return LaunchDescription([
        DeclareLaunchArgument('robot', choices=list(ROBOTS),
                              description='required: sim (the simulated twin of the driver) or '
                              'real (the ROS 2 youBot driver, youbot_driver_ros_interface)'),
        DeclareLaunchArgument(
            'rate_hz', default_value='50.0',
            description="joint states per second (the driver's youBotDriverCycleFrequencyInHz, "
            "the simulator's publish_rate_hz); 200 for better force bandwidth"),
        DeclareLaunchArgument(
            'driver', default_value='true',
            description='start the driver (false: it runs already, e.g. from an earlier launch '
            'of this file, and only the estimator and the recorder start)'),
        DeclareLaunchArgument(
            'driver_params', default_value='',
            description='robot real: an extra params file of the youBot driver; empty: none'),
        DeclareLaunchArgument(
            'model', default_value='',
            description='model file for the estimator; empty: no estimator'),
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(share, 'config', 'wrench_estimator.yaml'),
            description='ROS 2 params file of the estimator (section /**: applies in any '
            'namespace)'),
        DeclareLaunchArgument(
            'record', default_value='none', choices=['none'] + list(RECORDERS),
            description='none, or the recording stage to run: static, sweeps or excitation'),
        DeclareLaunchArgument(
            'command_interface', default_value='follow_joint_trajectory',
            description="how the recorder moves the arm: follow_joint_trajectory or "
            "brics_position (the youBot driver's), trajectory (a ros2_control driver)"),
        DeclareLaunchArgument('trajectory', default_value='',
                              description='record excitation: trajectory file from robot-id '
                              'design-excitation'),
        DeclareLaunchArgument('output_path', default_value='',
                              description='the bag the recorder writes; empty: <record>_bag'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='namespace of the nodes (the driver\'s names are '
                              'arm_1/... under it)'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='auto',
            description='estimator and recorder follow /clock; auto: true with robot sim'),
        DeclareLaunchArgument(
            'joint_states_topic', default_value='/joint_states',
            description="sensor_msgs/JointState topic the driver's arm_1/joint_states is "
            'remapped to (as its own launch file does), read by the estimator and recorder'),
        DeclareLaunchArgument(
            'command_topic', default_value='joint_trajectory_controller/joint_trajectory',
            description='command_interface trajectory: the JointTrajectory topic (relative: in '
            'namespace, for the driver and the recorder alike)'),
        OpaqueFunction(function=_bringup),
    ])
