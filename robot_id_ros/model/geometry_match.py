# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Whether a model's kinematics are those of the robot in use (its URDF).

A model file carries the URDF it was identified on; the estimator maps torques to a wrench and
the force controller moves the tool through that URDF's kinematics. A model of the same joint
names but another arm (another link length, a flipped axis, other joint limits) would give wrong
wrenches and wrong motions without a word, so a node given the URDF in use compares the two.

Both are built with the model's joints and tool frame (every other joint locked, as the model is)
and compared where it matters: the placement of every selected joint and of the tool frame at the
zero configuration and at ``PROBE_CONFIGURATIONS`` configurations spread over the joint ranges
(a different axis shows there), and the position and velocity limits. The URDFs may differ in
anything else: inertias (the model's own replace them), visuals, comments, fixed frames that do
not move the chain. A byte-identical URDF (same SHA-256) is not compared further.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

from robot_id_ros.model.robot import ModelError, RobotModel, file_sha256, resolve_urdf_path

# positions and angles closer than this are the same (URDF numbers rounded to 6 digits differ by
# far less; a changed link length or axis by far more)
GEOMETRY_TOLERANCE_M = 1e-4
GEOMETRY_TOLERANCE_RAD = 1e-4
# a velocity limit within this fraction of the other's is the same
VELOCITY_LIMIT_TOLERANCE = 1e-3
# configurations (besides zero joint angles) the placements are compared at; fixed, so a check
# gives the same answer every time
PROBE_CONFIGURATIONS = 8
_PROBE_SEED = 0


class GeometryMismatch(ModelError):
    """A model whose kinematics or joint limits differ from the URDF in use."""

    kind = 'geometry_mismatch'


def _placements(robot: RobotModel, q):
    """Return the world placements of the selected joints and of the tool frame at ``q``."""
    m, d = robot.model, robot.model.createData()
    pin.framesForwardKinematics(m, d, robot.q_pin(q))
    return [d.oMi[i].copy() for i in range(1, m.njoints)] + [d.oMf[robot.tool_frame_id].copy()]


def _probe_configurations(robot: RobotModel):
    rng = np.random.default_rng(_PROBE_SEED)
    return [np.zeros(robot.n)] + list(robot.random_configurations(PROBE_CONFIGURATIONS, rng))


def geometry_difference(model_robot: RobotModel, in_use: RobotModel) -> str:
    """Return how the two robots' kinematics or limits differ ('' when they do not).

    Args:
        model_robot: the model file's robot.
        in_use: the robot of the URDF in use, built with the same joints and tool frame.

    Returns:
        One clause naming the first difference found.
    """
    names = list(model_robot.joint_names) + [f'tool frame {model_robot.tool_frame}']
    for q in _probe_configurations(model_robot):
        for name, a, b in zip(names, _placements(model_robot, q), _placements(in_use, q)):
            dist = float(np.linalg.norm(a.translation - b.translation))
            angle = float(np.linalg.norm(pin.log3(a.rotation.T @ b.rotation)))
            if dist > GEOMETRY_TOLERANCE_M or angle > GEOMETRY_TOLERANCE_RAD:
                at = ', '.join(f'{x:.3g}' for x in q)
                return (f'{name} lies {1000 * dist:.3g} mm and {angle:.3g} rad apart at '
                        f'q = [{at}] rad')
    la, lb = model_robot.limits, in_use.limits
    for i, name in enumerate(model_robot.joint_names):
        for what, x, y in (('lower limit', la.lower_rad[i], lb.lower_rad[i]),
                           ('upper limit', la.upper_rad[i], lb.upper_rad[i])):
            if not (x == y or abs(x - y) <= GEOMETRY_TOLERANCE_RAD):
                return f'{name} {what} is {x:.6g} in the model, {y:.6g} in the URDF'
        x, y = la.velocity_rad_s[i], lb.velocity_rad_s[i]
        if abs(x - y) > VELOCITY_LIMIT_TOLERANCE * max(abs(x), abs(y)):
            return f'{name} velocity limit is {x:.6g} in the model, {y:.6g} in the URDF'
    return ''


def check_same_geometry(model_path, model_robot: RobotModel, urdf_path):
    """Refuse a model whose kinematics or joint limits differ from the URDF in use.

    Args:
        model_path: the model file (named in the message).
        model_robot: the model's robot (built from the URDF the file carries).
        urdf_path: the URDF in use: a path or ``package://PACKAGE/PATH``.

    Raises:
        GeometryMismatch: one line naming the difference and the fix.
    """
    urdf_path = resolve_urdf_path(urdf_path)
    if urdf_path.is_file() and file_sha256(urdf_path) == model_robot.urdf_sha256:
        return
    fix = (f'identify again for {urdf_path.name}, or give the URDF the model was made for '
           '(urdf_path)')
    try:
        in_use = RobotModel(urdf_path, model_robot.joint_names, model_robot.tool_frame,
                            model_robot.gravity_m_s2)
    except ModelError as exc:
        raise GeometryMismatch(f'model {model_path} does not fit URDF {urdf_path}: {exc}; '
                               f'{fix}') from None
    diff = geometry_difference(model_robot, in_use)
    if diff:
        raise GeometryMismatch(f'model {model_path} was made for URDF {model_robot.urdf_path} '
                               f'with another geometry than {urdf_path}: {diff}; {fix}')
