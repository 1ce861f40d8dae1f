# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The parameter tables of the nodes (wrench_estimator, youbot_sim, identification, ...).

Each table is ``{name: (default, descriptor)}`` in declaration order
(``ros.node_parameters.declare_table`` declares it); the descriptions carry the units,
``read_only`` marks what is fixed at start. Besides the node's own parameters, a table holds the
node settings of a settings dataclass, which enter it through
``ros.node_parameters.settings_table`` and are read back with
``ros.node_parameters.settings_from_params``. The recorders' tables are in
``ros.recorders.parameter_tables``.
"""
from __future__ import annotations

import copy

from robot_id_ros.ros.node_parameters import NO_STRINGS, desc, float_desc, int_desc, settings_table
from robot_id_ros.settings import settings_of
from robot_id_ros.sim.config import SimConfig

DEFAULT_COMMAND_TOPIC = 'joint_trajectory_controller/joint_trajectory'


def model_check_parameters() -> dict:
    """Return the parameters a node checks its model file against (the robot in use)."""
    return {
        'urdf_path': ('', desc(
            "the robot's URDF (a path or package://PACKAGE/PATH): refuse a model whose joint "
            "placements, axes, tool frame or joint limits differ from it ('' = no check)", True)),
        'joint_names': (list(NO_STRINGS), desc(
            "the robot's joints, base to tip: refuse a model made for another joint set "
            "([''] = no check)", True)),
    }


def wrench_estimator_parameters() -> dict:
    """Return the wrench_estimator table.

    Every parameter is read-only except the payload ones and calibration_duration_s.
    """
    from robot_id_ros.estimate import EstimatorConfig   # here: youbot_sim needs no scipy
    return {
        'model_file': ('', desc('model file from robot-id identify (required)', True)),
        **model_check_parameters(),
        'calibration_file': ('', desc(
            'residual calibration file (robot-id calibrate, or ~/calibrate): used at start when '
            'it exists and fits the model and settings, written by ~/calibrate (the previous '
            "one kept beside it); '' = $ROS_HOME/robot_id_ros/<node>_calibration.yaml "
            '(ROS_HOME default ~/.ros; <node>: namespace and name joined by dots)', True)),
        'calibration_duration_s': (5.0, float_desc(
            'how much contact-free motion ~/calibrate gathers (by the stamps of the joint '
            'states) before it fits, s', 1.0, 120.0)),
        **settings_table(EstimatorConfig),
        'tracked_model_file': ('', desc(
            'where ~/save_friction writes the model file with the tracked friction (the previous '
            "one kept beside it); '' = $ROS_HOME/robot_id_ros/<node>_tracked_model.yaml", True)),
        'max_payload_kg': (-1.0, float_desc(
            'largest payload_mass_kg accepted, kg; -1 = from the model: the rated payload of the '
            "youBot arm (0.5 kg), for another arm its total link mass", -1.0, 1000.0, True)),
        'payload_mass_kg': (-1.0, float_desc(
            "payload mass, kg; -1 = the model's payload (changeable at run time, at most "
            'max_payload_kg)', -1.0, 1000.0)),
        'payload_com_m': ([0.0, 0.0, 0.0], desc(
            'payload centre of mass in the tool frame, m (x, y, z; changeable at run time; each '
            'within +-1 m)')),
        'effort_unit': ('', desc("joint_states effort: 'torque' (Nm) or 'current' (A, times "
                                 "the drive gains); '' = the unit the model was identified from "
                                 '(torque when the model file names none)', True)),
        'drive_gains_nm_per_a': ([0.0], desc(
            "drive gains per joint, Nm/A, for effort_unit current; [0.0] = the model file's",
            True)),
        'stale_timeout_s': (0.5, float_desc(
            'no joint state for this long (wall time): input reported stale', 0.001, 60.0, True)),
        'diagnostics_period_s': (1.0, float_desc(
            'period of /diagnostics (wall time), s', 0.05, 60.0, True)),
        'qos_depth': (1000, int_desc(
            'joint_states subscription queue depth (best effort: it matches a reliable or a '
            'best-effort driver); 1000 holds 1 s of 1 kHz input while the node is held up',
            1, 100000, True)),
        'input_batch_period_s': (0.004, float_desc(
            'above 2 / this input rate the node wakes every this many seconds and takes all '
            'queued joint states at once (less CPU per sample, up to this much more latency), '
            'below it for each sample; 0 = always for each sample, s', 0.0, 0.1, True)),
    }


def youbot_sim_parameters() -> dict:
    """Return the youbot_sim table: ``SimConfig``'s node settings, then the driver's own."""
    return {
        **settings_table(SimConfig),
        'publish_rate_hz': (50.0, float_desc(
            'joint_states publishing rate in simulation time, Hz (the real driver: 50)',
            1.0, 1000.0)),
        'real_time_factor': (1.0, float_desc(
            'simulation seconds per wall second (10: ten times faster than real time)',
            0.01, 100.0)),
        'effort_unit': ('torque', desc("joint_states effort: 'torque' (Nm, = current*Kt*N like "
                                       "the driver) or 'current' (motor current, A)")),
        'command_topic': (DEFAULT_COMMAND_TOPIC, desc(
            'topic of trajectory_msgs/JointTrajectory commands', True)),
        'joint_states_topic': ('joint_states', desc('topic of the published joint states', True)),
        'publish_clock': (True, desc('publish /clock (the simulation time)', True)),
        'publish_ground_truth': (True, desc(
            'publish the test-only ground truth sim/true_wrench, sim/true_wrench_tool and '
            'sim/true_external_joint_torques with every joint state', True)),
        'start_time_sec': (-1.0, float_desc(
            'simulation time at start, s since the epoch; -1: the wall time at start',
            -1.0, 4.0e9, True)),
        'wrench_frame': ('', desc(
            "frame whose origin sim/wrench acts at when its frame_id is the base, 'base' or "
            "'tool'; '' = the tool frame", True)),
        'true_parameters_file': ('', desc(
            'YAML file for the TRUE parameters, written at start when set and on '
            "sim/write_true_parameters; '' = never written", True)),
    }


# the parameters the node hands to SimDriver (the others are SimConfig's or the node's own)
YOUBOT_SIM_DRIVER_SETTINGS = ('effort_unit', 'wrench_frame', 'true_parameters_file',
                              'publish_rate_hz', 'real_time_factor', 'start_time_sec')

# Every identification parameter is read at each ~/identify call. Each one is read-only (fixed at
# start: a peer can neither make the node read or write another path nor change the model it
# writes) unless the operator starts it with allow_run_time_changes: then the fit options,
# joint_names, tool_frame and topic can be changed with ros2 param set between calls (checked
# by IDENTIFICATION_CHOICES and the ranges); the paths stay read-only.
RUN_TIME_SWITCH = 'allow_run_time_changes'
_IDENTIFICATION_NODE_PARAMETERS = {
    RUN_TIME_SWITCH: (False, desc(
        'let ros2 param set change the fit options, joint_names, tool_frame and topic between '
        '~/identify calls (false: every parameter is fixed at start)', True)),
    'urdf_path': ('', desc("the robot's URDF; '' = the bundled youBot arm", True)),
    'joint_names': (list(NO_STRINGS), desc(
        "actuated joints, base to tip; [''] = the youBot arm joints (bundled URDF) or every 1-DoF "
        'joint of the given URDF')),
    'tool_frame': ('', desc("tool frame; '' = the youBot tool point (bundled URDF) or the last "
                            'frame')),
    'data_bags': (list(NO_STRINGS), desc("excitation trajectory bags; [''] = none", True)),
    'static_bags': (list(NO_STRINGS), desc("static pose bags; [''] = none", True)),
    'sweep_bags': (list(NO_STRINGS), desc("friction sweep bags; [''] = none", True)),
    'recordings_dir': ('', desc('when the bag lists are empty: take the latest bag of each kind '
                                '(by its sidecar) here', True)),
    'output_model': ('identified_model.yaml', desc(
        'model file to write; an existing one is kept beside it as <name>.<UTC time it was '
        'written><suffix>', True)),
    'report_dir': ('', desc("folder for report.md and plots; '' = no report", True)),
    'topic': ('/joint_states', desc('JointState topic in the recordings')),
}


def identification_parameters(run_time_changes=False) -> dict:
    """Return the identification table; without ``run_time_changes`` every entry is read-only.

    With it, the entries declared writable (the fit options, joint_names, tool_frame, topic)
    stay so.
    """
    from robot_id_ros.identify import IdentificationOptions   # here: youbot_sim needs no scipy
    table = {**_IDENTIFICATION_NODE_PARAMETERS, **settings_table(IdentificationOptions)}
    if run_time_changes:
        return table
    fixed = {}
    for name, (default, descriptor) in table.items():
        descriptor = copy.deepcopy(descriptor)
        descriptor.read_only = True
        fixed[name] = (default, descriptor)
    return fixed


def __getattr__(name):
    """Build IDENTIFICATION_PARAMETERS and IDENTIFICATION_CHOICES on first use.

    Importing ``robot_id_ros.identify`` (scipy) takes seconds that youbot_sim does not need.
    IDENTIFICATION_PARAMETERS is the table as the node declares it by default (all read-only).
    """
    if name not in ('IDENTIFICATION_PARAMETERS', 'IDENTIFICATION_CHOICES'):
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    from robot_id_ros.identify import IdentificationOptions
    globals()['IDENTIFICATION_PARAMETERS'] = identification_parameters()
    # the identification parameters with a fixed set of values (checked when set at run time)
    globals()['IDENTIFICATION_CHOICES'] = {
        name: spec.choices for name, (_, spec) in settings_of(IdentificationOptions).items()
        if spec.node and spec.choices}
    return globals()[name]


IDENTIFICATION_FORMER_NAMES = {'urdf': 'urdf_path', 'joints': 'joint_names',
                               'drive_gains': 'drive_gains_nm_per_a'}
WRENCH_ESTIMATOR_FORMER_NAMES = {'urdf_file': 'urdf_path'}


def force_controller_parameters() -> dict:
    """Return the force_controller table: its own parameters, then ``ControllerConfig``'s."""
    from robot_id_ros.control.config import ControllerConfig   # here: youbot_sim needs none
    return {
        'model_file': ('', desc('model file from robot-id identify: the arm whose tool is '
                                'controlled (its kinematics; required)', True)),
        **model_check_parameters(),
        'command_interface': ('trajectory', desc(
            "how set points go to the arm: 'trajectory' (one-point trajectory_msgs/"
            "JointTrajectory on command_topic) or 'brics_position' (the youBot driver's "
            'brics_actuator/JointPositions on position_command_topic)', True)),
        'command_topic': (DEFAULT_COMMAND_TOPIC, desc(
            "topic of the JointTrajectory set points ('trajectory')", True)),
        'position_command_topic': ('arm_1/arm_controller/position_command', desc(
            "topic of the JointPositions set points ('brics_position')", True)),
        'control_rate_hz': (100.0, float_desc(
            'rate of the control step (ROS time: sim time under use_sim_time), Hz', 1.0,
            1000.0, True)),
        'wrench_frame_id': ('', desc(
            "the frame_id the wrench and wrench_std must carry: any other, or none, stops and "
            "holds ('' = the model's URDF root, the frame wrench_estimator publishes in with "
            'frame: base)', True)),
        **_number_arrays_any_type(settings_table(ControllerConfig)),
    }


def _number_arrays_any_type(table) -> dict:
    """Return ``table`` with its writable number arrays typed dynamically.

    rclpy types an array parameter by its default (``[1.0, 1.0, 1.0]``: a double array) and
    refuses an integer array such as ``ros2 param set ... guide_axes '[0, 1, 0]'``; the node
    checks the values itself (``FORCE_CONTROLLER_ARRAYS``).
    """
    for name, (default, descriptor) in table.items():
        if isinstance(default, list) and not descriptor.read_only:
            descriptor.dynamic_typing = True
    return table


# the writable number-array parameters (typed dynamically: the node checks their values)
FORCE_CONTROLLER_ARRAYS = ('guide_axes', 'force_axis', 'dither_amplitude_rad', 'dither_null_rad')
FORCE_CONTROLLER_INTERFACES = ('trajectory', 'brics_position')
