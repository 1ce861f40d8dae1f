# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulator's ground truth as an ``IdentifiedModel``: the estimator's floor in the benchmarks.

Built from the file ``youbot_sim`` writes when asked (``true_parameters_file`` /
``sim/write_true_parameters``) or from a ``SimulatedArm`` directly. Never used by the pipeline
itself: only to measure how far the identified model is from the truth.

The simulator's Stribeck bump is direction-dependent (fc_d (r - 1)); the core friction model has
one Stribeck magnitude per joint, taken here as the mean of the two directions. Breakaway is the
larger of the two directions' breakaway torques.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import (YOUBOT_JOINTS, YOUBOT_TOOL_FRAME, RobotModel,
                                      default_urdf_path)
from robot_id_ros.io.model_file import IdentifiedModel, Payload
from robot_id_ros.model.regressor import INERTIAL_NAMES, Regressor, RegressorOptions
from robot_id_ros.sim.friction_drift import FrictionDriftLaw

TRUE_OPTIONS = RegressorOptions(rotor_inertia=True)


def true_model_from_dict(d, with_payload=False, friction_now=False) -> IdentifiedModel:
    """Return the IdentifiedModel of the simulator's true parameters.

    ``d`` is a dict as in the true-parameters file. With ``friction_now`` and friction drift, the
    friction at the joints' temperatures when ``d`` was written, with the law's Coulomb friction
    per Nm of load (``load_coulomb_per_nm``: the estimator adds it from the gear's load, the
    measured torque less the friction); else the friction of the cold arm.
    """
    joints = list(d['joint_names'])
    robot = RobotModel(default_urdf_path(), joints or YOUBOT_JOINTS,
                       d.get('tool_frame', YOUBOT_TOOL_FRAME))
    reg = Regressor(robot, TRUE_OPTIONS)
    links = d['links_true']
    missing = [n for n in robot.link_names if n not in links]
    if missing:
        raise ValueError(f'true-parameters file has no link(s) {", ".join(missing)}')
    theta = np.zeros(reg.p)
    theta[:reg.n_inertial] = np.concatenate([[float(links[n][k]) for k in INERTIAL_NAMES]
                                             for n in robot.link_names])
    theta[reg.n_inertial:] = [float(d['rotor_inertia_kg_m2'][j]) for j in joints]
    f = d['friction']
    fcp = np.array([f[j]['coulomb_pos_nm'] for j in joints], float)
    fcn = np.array([f[j]['coulomb_neg_nm'] for j in joints], float)
    bp = np.array([f[j]['breakaway_pos_nm'] for j in joints], float)
    bn = np.array([f[j]['breakaway_neg_nm'] for j in joints], float)
    friction = FrictionModel(
        coulomb_pos_nm=fcp, coulomb_neg_nm=fcn,
        viscous_nm_s_rad=np.array([f[j]['viscous_nm_s_rad'] for j in joints], float),
        offset_nm=np.array([f[j].get('offset_nm', 0.0) for j in joints], float),
        stribeck_nm=0.5 * ((bp - fcp) + (bn - fcn)),
        stribeck_velocity_rad_s=np.array([f[j]['stribeck_velocity_rad_s'] for j in joints], float),
        breakaway_nm=np.maximum(bp, bn))
    gains = d.get('drive_gains_nm_a')
    drift = d.get('friction_drift')
    if friction_now and drift:
        law = FrictionDriftLaw.from_dict(drift['law'], [gains[j] for j in joints])
        friction = law.friction_with_load_term(friction, joint_temperatures_c(d, joints))
    payload = None
    if with_payload and d.get('payload'):
        payload = Payload(float(d['payload']['mass_kg']),
                          np.asarray(d['payload']['com_tool_m'], float))
    return IdentifiedModel(
        robot, TRUE_OPTIONS, theta, friction,
        drive_gains_nm_per_a=None if gains is None else np.array([gains[j] for j in joints]),
        payload=payload, identification={
            'method': 'simulator ground truth (not identified)',
            'seed': d.get('seed')
        })


def joint_temperatures_c(d, joint_names) -> list:
    """Return the joint temperatures (degC) a true-parameters dict ``d`` lists, in that order.

    With friction drift only (``d['friction_drift']``): the temperatures when ``d`` was written.
    """
    joints = d['friction_drift']['joints']
    return [float(joints[name]['temperature_c']) for name in joint_names]


def load_true_model(path, with_payload=False, friction_now=False) -> IdentifiedModel:
    """Return the IdentifiedModel of a true-parameters file (``true_model_from_dict``)."""
    from robot_id_ros.io.yaml_input import read_yaml
    return true_model_from_dict(read_yaml(path, 'true parameters file'), with_payload,
                                friction_now)


def true_model_of(arm, with_payload=False, friction_now=False) -> IdentifiedModel:
    """Return the IdentifiedModel of a ``SimulatedArm``'s true parameters.

    Args:
        arm: the ``SimulatedArm``.
        with_payload: the payload's inertia added to the last link.
        friction_now: with friction drift, the friction at the joints' present temperatures
            and its load term (``true_model_from_dict``); else the friction of the cold arm.
    """
    return true_model_from_dict(arm.true_parameters_dict(), with_payload, friction_now)
