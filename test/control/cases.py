# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Closed-loop cases shared by the force-control tests and benchmarks/bench_force_control.py.

The simulated youBot (seed 3, the identification tests' arm) with the model identified from it
(``identified_model``), the estimator with the youBot settings of config/wrench_estimator.yaml
and the controller with those of config/force_controller.yaml, at 200 Hz (the demo's joint-state
rate): ``robot_id_ros.demo.force_control_stage``'s loop. The arm starts at ``WORK_POSE_RAD``: the
tool 0.33 m in front of joint 1's axis and 0.12 m above the arm's base, pointing down.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from identified_model import SEED, identified_model_path  # noqa: E402,F401

from robot_id_ros.demo import force_control_stage as stage  # noqa: E402
from robot_id_ros.demo.force_control_stage import (NORMAL_AXIS, RATE_HZ,  # noqa: E402,F401
                                                   WORK_POSE_RAD, enable, surface_below,
                                                   youbot_controller_config)


def make_loop(seed=SEED, pose=WORK_POSE_RAD, settle_s=1.0, **changes):
    """Return the closed loop at rest at ``pose``, estimator tared, controller disabled."""
    return stage.make_loop(identified_model_path(seed), seed, pose, settle_s, **changes)
