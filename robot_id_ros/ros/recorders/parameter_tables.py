# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The recorders' parameter tables, one per node: ``name: (default, descriptor)``.

``common_parameters()`` are those of every recorder (with the safety limits declared in
``record.SafetyLimits``); each node adds its own table. The node
declares them (``RecorderBase``), and the generated node docs read them back from the node.
"""
from __future__ import annotations

from robot_id_ros import record as rec
from robot_id_ros.model.robot import YOUBOT_JOINTS, YOUBOT_TOOL_FRAME
from robot_id_ros.ros.command_adapters import DEFAULT_ACTION, DEFAULT_POSITION_COMMAND_TOPIC
from robot_id_ros.ros.node_parameters import desc, float_desc, int_desc, settings_table

RO = True   # every recorder parameter is read-only: a change needs a new run


def common_parameters():
    """name: (default, descriptor) of the parameters every recorder has."""
    return {
        'output_path': ('', desc('bag to write: a folder path (created; its sidecar is '
                                 '<output_path>.segments.yaml beside it). Required', RO)),
        'resume': (True, desc('if output_path exists from an interrupted run of this recorder, '
                              'continue after its last completed segment (false: refuse to touch '
                              "it); refused when the driver's clock is behind the recorded data "
                              '(a restarted clock: the run fails, adding nothing)', RO)),
        'autostart': (False, desc('start the experiment as soon as the driver publishes (else '
                                  'call ~/start)', RO)),
        'passive': (False, desc('record only; never command the arm (something else moves it)',
                                RO)),
        'shutdown_when_done': (False, desc('exit the process when the run ends (finished, '
                                           'cancelled or failed)', RO)),
        'joint_names': (list(YOUBOT_JOINTS), desc('arm joints to record and command, base to tip '
                                                  '(URDF names)', RO)),
        'urdf_path': ('', desc("URDF of the arm; '' = the project's youBot arm URDF", RO)),
        'tool_frame': (YOUBOT_TOOL_FRAME, desc('tool frame of the URDF (floor checks, sidecar '
                                               'info)', RO)),
        'joint_states_topic': ('joint_states', desc('sensor_msgs/JointState topic of the driver',
                                                    RO)),
        'command_topic': ('joint_trajectory_controller/joint_trajectory',
                          desc('trajectory_msgs/JointTrajectory topic the driver follows', RO)),
        'command_interface': ('trajectory', desc(
            "'trajectory': every motion as one JointTrajectory whose header.stamp is its start "
            "time; 'trajectory_stream': motions streamed as short JointTrajectory chunks (stamp 0 "
            "= start on receipt), for controllers that take no future start times; "
            "'follow_joint_trajectory': one control_msgs FollowJointTrajectory goal per motion "
            "(the real youBot driver's action; cancelled on ~/cancel); 'brics_position': "
            'brics_actuator JointPositions set points streamed at stream_rate_hz (the real youBot '
            "driver's position_command). The last two need their message packages installed",
            RO)),
        'follow_joint_trajectory_action': (DEFAULT_ACTION, desc(
            "FollowJointTrajectory action of command_interface 'follow_joint_trajectory'", RO)),
        'position_command_topic': (DEFAULT_POSITION_COMMAND_TOPIC, desc(
            "brics_actuator/JointPositions topic of command_interface 'brics_position'", RO)),
        'stream_rate_hz': (50.0, float_desc("set points per second with command_interface "
                                            "'brics_position' (ROS time), Hz", 1.0, 1000.0, RO)),
        'stream_lead_s': (0.04, float_desc(
            "command_interface 'brics_position': each set point is sent this long before the time "
            'it is for (its timestamp), s: the time it takes to reach the driver', 0.0, 1.0, RO)),
        'path_tolerance_rad': (0.0, float_desc(
            "command_interface 'follow_joint_trajectory': per-joint path tolerance sent with "
            "every goal (the driver aborts beyond it), rad; 0 = the driver's default",
            0.0, 3.0, RO)),
        'goal_tolerance_rad': (0.0, float_desc(
            "command_interface 'follow_joint_trajectory': per-joint tolerance at a goal's end, "
            "rad; 0 = the driver's default", 0.0, 3.0, RO)),
        'effort_unit': ('torque', desc("what the driver's effort is: 'torque' (Nm) or 'current' "
                                       '(motor current, A); written into the sidecar', RO)),
        **settings_table(rec.SafetyLimits),
        'command_lead_s': (0.3, float_desc('a motion starts this long after it is sent (ROS '
                                           'time), s', 0.0, 5.0, RO)),
        'command_point_period_s': (0.05, float_desc('time between the points of a sent '
                                                    'trajectory, s', 0.001, 1.0, RO)),
        'stream_chunk_s': (1.0, float_desc("length of one chunk with command_interface "
                                           "'trajectory_stream', s", 0.1, 10.0, RO)),
        'driver_timeout_s': (2.0, float_desc(
            'wall-clock seconds without a joint state after which the driver counts as silent '
            '(error)', 0.1, 60.0, RO)),
        'startup_timeout_s': (10.0, float_desc(
            'wall-clock seconds to wait for the first joint state before giving up',
            0.5, 600.0, RO)),
        'progress_period_s': (5.0, float_desc('wall-clock seconds between progress log lines',
                                              0.5, 600.0, RO)),
        'commit_period_s': (5.0, float_desc(
            'ROS-time seconds between bag commits while no segment completes (crash safety of '
            'long runs)', 0.5, 600.0, RO)),
        'buffer_s': (600.0, float_desc('joint states kept in memory for averaging and checks, s '
                                       'of data', 10.0, 36000.0, RO)),
    }


def _passive_duration():
    return {'passive_duration_s': (0.0, float_desc('passive mode: stop after this long (ROS '
                                                   'time), 0 = until cancelled', 0.0, 1e6, RO))}


def static_pose_parameters():
    """Return the parameters of static_pose_recorder besides the common ones."""
    return {
        'poses_file': ('', desc("YAML list of poses (joint vectors in joint_names order, or "
                                "{joint: angle} maps; optionally under key 'poses'); '' = "
                                'generate pose_count poses', RO)),
        'pose_count': (12, int_desc('number of generated poses', 2, 500, RO)),
        'pose_seed': (0, int_desc('random seed of the pose generation', 0, 2 ** 31 - 1, RO)),
        'pose_candidates': (300, int_desc('random candidate poses the generator chooses from',
                                          10, 100000, RO)),
        'floor_z_m': (0.0, float_desc('floor plane height in the URDF root frame, m: every link '
                                      'beyond joint 2 and the tool stay above it',
                                      -10.0, 10.0, RO)),
        'floor_clearance_m': (0.05, float_desc('extra height above the floor, m', 0.0, 2.0, RO)),
        'check_floor': (True, desc('reject poses that put the tool or a link below the floor',
                                   RO)),
        'both_directions': (True, desc('visit every pose twice, approached from opposite '
                                       'directions', RO)),
        'approach_overshoot_rad': (0.08, float_desc('overshoot of the approach waypoint, rad',
                                                    0.0, 1.0, RO)),
        'settle_velocity_rad_s': (0.005, float_desc('settled: every |joint velocity| below '
                                                    'this, rad/s', 1e-5, 1.0, RO)),
        'settle_dwell_s': (0.5, float_desc('settled: velocity below the threshold this long, s',
                                           0.0, 60.0, RO)),
        'settle_timeout_s': (10.0, float_desc('give up on a pose not settled this long after '
                                              'the move, s', 0.1, 600.0, RO)),
        'position_tolerance_rad': (0.05, float_desc(
            'a pose counts as reached when every joint is this close to its target, rad',
            1e-4, 1.0, RO)),
        'window_s': (2.0, float_desc('length of the averaging window at each pose, s',
                                     0.2, 600.0, RO)),
        'filter_cutoff_hz': (2.0, float_desc('zero-phase low-pass cut-off applied to the efforts '
                                             'before averaging, Hz (capped below Nyquist)',
                                             0.01, 500.0, RO)),
        **_passive_duration(),
    }


def trajectory_parameters():
    """Return the parameters of trajectory_recorder besides the common ones."""
    return {
        'trajectory_file': ('', desc('excitation trajectory YAML written by robot-id '
                                     'design-excitation', RO)),
        'periods': (5, int_desc('number of full periods to play', 1, 10000, RO)),
        'max_tracking_error_rad': (0.15, float_desc(
            'abort when |measured - planned position| of a joint exceeds this for '
            'tracking_error_samples samples in a row, rad', 1e-3, 3.0, RO)),
        'tracking_error_samples': (3, int_desc('consecutive samples over the limit that abort',
                                               1, 1000, RO)),
        'ramp_min_s': (1.0, float_desc('shortest ramp-in / ramp-out, s', 0.1, 60.0, RO)),
        **_passive_duration(),
    }


def friction_sweep_parameters():
    """Return the parameters of friction_sweep_recorder besides the common ones."""
    return {
        'sweep_joints': (['arm_joint_2', 'arm_joint_3', 'arm_joint_4'], desc(
            'joints to sweep, one after the other (names from joint_names)', RO)),
        'speeds_rad_s': ([0.1, 0.2, 0.35], desc('constant sweep speeds, rad/s (each at most '
                                                'max_velocity_rad_s)', RO)),
        'amplitude_rad': (0.5, float_desc('half range of a sweep about its centre, rad (reduced '
                                          'to fit the limits with margin)', 0.05, 3.2, RO)),
        'min_amplitude_rad': (0.15, float_desc('fail a joint whose sweep range would be shorter '
                                               'than +- this, rad', 0.01, 3.0, RO)),
        'sweep_center': ('auto', desc("centre of each sweep: 'extreme' (gravity torque extreme), "
                                      "'zero' (gravity torque zero) or 'auto' (extreme unless "
                                      'zero allows a clearly longer sweep)', RO)),
        'hold_configuration': ([0.0], desc('configuration of the other joints, rad, one per '
                                           'joint of joint_names; [0.0] (one value) = the '
                                           'measured pose at start', RO)),
        'cruise_trim_s': (0.3, float_desc('drop this much after the end of the acceleration '
                                          "from each segment's window (tracking transient), s",
                                          0.0, 10.0, RO)),
        'settle_s': (0.5, float_desc('pause before each pass, s', 0.0, 30.0, RO)),
        **_passive_duration(),
    }


__all__ = ['common_parameters', 'friction_sweep_parameters', 'static_pose_parameters',
           'trajectory_parameters']
