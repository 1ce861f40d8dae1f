# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot_id_ros.record exports the public names of its modules (the recorder nodes use
``from robot_id_ros import record as rec; rec.X``)."""
from robot_id_ros import record as rec

NAMES = (
    'PartedBagWriter', 'RecordingError', 'PoseError', 'QuinticMove', 'SafetyLimits',
    'SafetyLimitsError', 'generate_poses', 'sample_for_command', 'plan_transition', 'Sequence',
    'Motion', 'SettleDetector', 'average_window', 'plan_friction_sweep', 'pair_sweep_passes',
    'fit_coulomb_viscous', 'TrackingMonitor', 'timing_stats', 'YOUBOT_SAFE_MARGIN_RAD',
    'FourierTrajectory', 'design_within_torque', 'design_excitation', 'ExcitationLimits',
    'ExcitationError', 'ExcitationProblem', 'TABLE_RATE_HZ_DEFAULT',
    'DEFAULT_ACCELERATION_PER_VELOCITY_S', 'plot_trajectory', 'trajectory_measures',
)


def test_public_names_importable_from_the_package():
    missing = [n for n in NAMES if not hasattr(rec, n)]
    assert not missing
    assert set(NAMES) <= set(rec.__all__)
    assert all(hasattr(rec, n) for n in rec.__all__)
