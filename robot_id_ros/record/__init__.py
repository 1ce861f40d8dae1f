# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Stage 1, planning experiments (ROS-free).

Safety limits, static poses, point-to-point motions, settling and averaging, friction sweeps,
recording monitors and excitation trajectories.

Modules: ``safety`` (SafetyLimits), ``poses``, ``motions`` (QuinticMove and friends), ``settle``
(SettleDetector, average_window), ``sweeps``, ``monitors``, ``excitation`` (a package). The
crash-safe bag the recorders write, ``PartedBagWriter``, lives in ``robot_id_ros.io.parted_bag``
and is re-exported here with its ``RecordingError``. Import public names from this package.
"""
from robot_id_ros.io.parted_bag import PartedBagWriter, RecordingError
from robot_id_ros.record.excitation import (DEFAULT_ACCELERATION_PER_VELOCITY_S,
                                            DENSE_SAMPLES_PER_HARMONIC, FLOOR_MARGIN_M,
                                            MAX_USABLE_COND, OPTIMISATION_MARGIN, SCHEMA,
                                            SCHEMA_VERSION, TABLE_RATE_HZ_DEFAULT,
                                            ExcitationError, ExcitationLimits, ExcitationProblem,
                                            ExcitationResult, FourierTrajectory,
                                            constraint_report, design_excitation,
                                            plot_trajectory, tool_heights, trajectory_measures)
from robot_id_ros.record.excitation_torque import design_within_torque, peak_torque_fraction
from robot_id_ros.record.monitors import LateStartTracker, TrackingMonitor, timing_stats
from robot_id_ros.record.motions import (Motion, QuinticMove, QuinticTransition, Sequence,
                                         motion_peaks, plan_approach, plan_point_to_point,
                                         plan_transition, point_to_point_duration,
                                         sample_for_command)
from robot_id_ros.record.poses import (PoseError, PoseSet, check_poses, floor_check_frames,
                                       generate_poses, gravity_free_joints, load_pose_list,
                                       lowest_point_z, order_poses, static_base,
                                       static_condition_number)
from robot_id_ros.record.safety import (YOUBOT_SAFE_ACCELERATION_RAD_S2, YOUBOT_SAFE_MARGIN_RAD,
                                        YOUBOT_SAFE_VELOCITY_RAD_S, SafetyLimits,
                                        SafetyLimitsError)
from robot_id_ros.record.settle import SettleDetector, WindowStats, average_window
from robot_id_ros.record.sweeps import (ConstantVelocityPass, SweepPass, SweepPlan,
                                        fit_coulomb_viscous, gravity_center, pair_sweep_passes,
                                        plan_friction_sweep)

# planning (recording.py before the split)
_PLANNING = [
    'RecordingError', 'PartedBagWriter',
    'YOUBOT_SAFE_MARGIN_RAD', 'YOUBOT_SAFE_VELOCITY_RAD_S', 'YOUBOT_SAFE_ACCELERATION_RAD_S2',
    'SafetyLimits', 'SafetyLimitsError',
    'PoseError', 'PoseSet', 'check_poses', 'floor_check_frames', 'generate_poses',
    'gravity_free_joints', 'load_pose_list', 'lowest_point_z', 'order_poses', 'static_base',
    'static_condition_number',
    'Motion', 'QuinticMove', 'QuinticTransition', 'Sequence', 'motion_peaks', 'plan_approach',
    'plan_point_to_point', 'plan_transition', 'point_to_point_duration', 'sample_for_command',
    'SettleDetector', 'WindowStats', 'average_window',
    'ConstantVelocityPass', 'SweepPass', 'SweepPlan', 'fit_coulomb_viscous', 'gravity_center',
    'pair_sweep_passes', 'plan_friction_sweep',
    'TrackingMonitor', 'LateStartTracker', 'timing_stats',
]
# excitation trajectories
_EXCITATION = [
    'DEFAULT_ACCELERATION_PER_VELOCITY_S', 'DENSE_SAMPLES_PER_HARMONIC', 'FLOOR_MARGIN_M',
    'MAX_USABLE_COND', 'OPTIMISATION_MARGIN', 'SCHEMA', 'SCHEMA_VERSION', 'TABLE_RATE_HZ_DEFAULT',
    'ExcitationError', 'ExcitationLimits', 'ExcitationProblem', 'ExcitationResult',
    'FourierTrajectory', 'constraint_report', 'design_excitation', 'design_within_torque',
    'peak_torque_fraction', 'plot_trajectory', 'tool_heights', 'trajectory_measures',
]
__all__ = _PLANNING + _EXCITATION
