# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Closed-loop cases shared by the force-control tests and benchmarks/bench_force_control.py.

The simulated youBot (seed 3, the identification tests' arm) with the model identified from it
(``identified_model``), the estimator with the youBot settings of config/wrench_estimator.yaml
and the controller with those of config/force_controller.yaml, at 200 Hz (the demo's joint-state
rate). The arm starts at ``WORK_POSE_RAD``: the tool 0.33 m in front of joint 1's axis and
0.12 m above the arm's base, pointing down.
"""
import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from identified_model import SEED, identified_model_path  # noqa: E402

from robot_id_ros.control import ControllerConfig, ForceController  # noqa: E402
from robot_id_ros.control.harness import ClosedLoop  # noqa: E402
from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator  # noqa: E402
from robot_id_ros.io.model_file import load_model  # noqa: E402
from robot_id_ros.model.robot import package_share_dir  # noqa: E402
from robot_id_ros.ros.params_file import node_parameters, youbot_estimator_settings  # noqa
from robot_id_ros.settings import from_plain  # noqa: E402
from robot_id_ros.sim.config import SimConfig  # noqa: E402
from robot_id_ros.sim.youbot_arm import SimulatedArm  # noqa: E402

RATE_HZ = 200.0
WORK_POSE_RAD = (2.9496, 1.2, -1.15, 2.8, 2.9234)
NORMAL_AXIS = 1          # the arm's plane is the base x-z plane at this pose: its normal is y


def youbot_controller_config(**changes) -> ControllerConfig:
    """Return the controller settings of config/force_controller.yaml, with ``changes``."""
    params = node_parameters(package_share_dir() / 'config' / 'force_controller.yaml',
                             'force_controller')
    names = {f.name for f in dataclasses.fields(ControllerConfig)}
    config = from_plain(ControllerConfig, {k: v for k, v in params.items() if k in names})
    return dataclasses.replace(config, **changes).validated()


def make_loop(seed=SEED, pose=WORK_POSE_RAD, settle_s=1.0, **changes) -> ClosedLoop:
    """Return the closed loop at rest at ``pose``, estimator tared, controller disabled."""
    model = load_model(identified_model_path(seed))
    arm = SimulatedArm(SimConfig(seed=seed))
    arm.reset(np.asarray(pose, dtype=float))
    estimator = WrenchEstimator(model, EstimatorConfig(**youbot_estimator_settings()))
    controller = ForceController(model.robot, youbot_controller_config(**changes))
    loop = ClosedLoop(arm, estimator, controller, RATE_HZ)
    if settle_s > 0:
        loop.settle(settle_s)
    return loop


def enable(mode):
    """Return a ``Script.at`` action that sets ``mode`` and enables the controller."""
    def act(loop):
        loop.controller.set_mode(mode, loop.arm.t)
        loop.controller.set_enabled(True, loop.arm.t)
    return act


def surface_below(loop, gap_m=0.02, stiffness_n_m=2000.0, damping_n_s_m=20.0, friction=0.2):
    """Put a horizontal surface ``gap_m`` below the tool (``ContactPlane``, normal +z)."""
    from robot_id_ros.sim.world import ContactPlane

    pos = loop.tool_state()[0]
    plane = ContactPlane(pos - np.array([0.0, 0.0, gap_m]), (0.0, 0.0, 1.0), stiffness_n_m,
                         damping_n_s_m, friction)
    loop.arm.set_contact_plane(plane)
    return plane
