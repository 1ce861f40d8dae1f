# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What ``robot-id estimate`` and ``robot-id calibrate`` share: the estimator over a bag.

The same arguments (model, bag, effort, settings) give both commands the same estimator, so a
calibration holds for the estimate it is made for.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from robot_id_ros.cli.common import (CommandError, Progress, add_setting_flags, parse_floats,
                                     read_series, settings_from_args)
from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator, effort_scale
from robot_id_ros.estimate.position_velocity import PositionVelocity
from robot_id_ros.io.calibration_file import load_calibration
from robot_id_ros.ros.parameter_files import estimator_settings


def add_estimator_arguments(p, settings_title):
    """Add the model, bag, effort and estimator-settings arguments to parser ``p``."""
    p.add_argument('--model', required=True,
                   help='model file (robot-id identify, or robot-id model from a URDF)')
    p.add_argument('--data', required=True,
                   help='input bag (directory, .mcap or .db3) with JointState')
    p.add_argument('--topic', default='/joint_states',
                   help='JointState topic (default /joint_states, or the bag\'s only '
                        'namespaced one, e.g. /arm/joint_states)')
    p.add_argument('--effort-unit', choices=('torque', 'current'), default=None,
                   help='effort is joint torque in Nm or motor current in A (default: as the '
                        'model was identified from)')
    p.add_argument(
        '--drive-gains', default=None,
        help='comma-separated Nm/A per joint for --effort-unit current (default: the model file)')
    p.add_argument(
        '--params-file', default=None, metavar='YAML',
        help='estimator settings from a wrench_estimator parameters file (the node\'s), e.g. '
        'config/wrench_estimator.yaml for the youBot; flags given as well override it '
        '(default: the core defaults)')
    add_setting_flags(p, EstimatorConfig, settings_title)


def estimator_config(args) -> EstimatorConfig:
    """Build the EstimatorConfig from --params-file, then the flags given.

    --params-file is a wrench_estimator parameters file; the flags are generated from
    EstimatorConfig's declarations.
    """
    settings = {}
    if args.params_file:
        try:
            settings = estimator_settings(args.params_file)
        except ValueError as e:
            raise CommandError(str(e)) from None
    return settings_from_args(args, EstimatorConfig, settings)


@dataclass
class BagEstimate:
    """The estimator over a bag: its input (``series``, velocities, torques) and ``result``."""

    estimator: WrenchEstimator
    config: EstimatorConfig
    series: object          # JointStateSeries
    qd: np.ndarray          # (N, n) rad/s, as recorded or derived from the positions
    torque: np.ndarray      # (N, n) Nm, the measured torque
    result: object          # BatchResult


def build_estimator(args, model, calibration_path=None) -> WrenchEstimator:
    """Return the estimator of ``args`` for ``model`` (with the calibration file, if any)."""
    calibration = load_calibration(calibration_path) if calibration_path else None
    return WrenchEstimator(model, estimator_config(args), calibration)


def estimate_bag(args, est, tare_at_s=None) -> BagEstimate:
    """Read ``args.data`` and run ``est`` over it (velocity from positions where none)."""
    model = est.model
    gains = np.array(parse_floats(args.drive_gains, model.n, '--drive-gains')) \
        if args.drive_gains else None
    unit = args.effort_unit or model.effort_unit
    if args.effort_unit is None and unit != 'torque':
        print(f'note: effort taken as motor {unit} (A) times the drive gains, as the model was '
              'identified; --effort-unit torque for a recording of joint torques',
              file=sys.stderr)
    scale = effort_scale(model, unit, gains)
    series = read_series(args.data, list(model.joint_names), args.topic, require_effort=True,
                         progress=Progress('reading'))
    qd = series.qd
    if qd is None:       # the node's rule, sample by sample: a replay gives what it gives live
        derived = PositionVelocity.for_config(model.n, est.config)
        print(f'note: {args.data}: {derived.describe()}', file=sys.stderr)
        qd = derived.series(series.stamp_ns, series.q)
    torque = series.effort * scale
    res = est.process(series.stamp_ns, series.q, qd, torque, tare_at_s=tare_at_s,
                      progress=Progress('estimating'))
    return BagEstimate(est, est.config, series, qd, torque, res)
