# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulator's ground truth as a file (ROS-free).

The true inertial parameters per link (with and without the payload), rotor inertias, friction,
drive gains and the configuration of a ``SimulatedArm``, and with friction drift its law, the
joints' present temperatures and the friction they give (``youbot_sim`` writes it on request;
``true_model.true_model_of`` reads it back).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import yaml

from robot_id_ros.model.regressor import INERTIAL_NAMES

DESCRIPTION = ('TRUE parameters of the robot_id_ros youBot simulator (ground truth for tests and '
               'the demo). Inertial parameters per link in Pinocchio order about the joint frame '
               'origin: m, mx, my, mz, XX, XY, YY, XZ, YZ, ZZ (kg, kg m, kg m^2).')
FRICTION_MODEL = ('in motion (direction d = +-1): d*fc_d*(1 + (r - 1)*exp(-(qd/vs)^2)) + fv*qd '
                  'with r = breakaway/coulomb; at rest any torque inside [-breakaway_neg, '
                  'breakaway_pos] is held (stiction)')


def true_parameters_dict(arm) -> dict:
    """Everything ``arm`` (a ``SimulatedArm``) uses as truth, for a file (never published).

    Returns:
        A mapping of plain values (YAML-safe): kg, m, kg m^2, Nm, Nm s/rad, Nm/A, rad/s.
    """
    cfg, nominal, true = arm.config, arm.nominal, arm.true
    links_of = arm.link_names()

    def links(theta):
        return {links_of[i]: {k: float(theta[10 * i + j]) for j, k in enumerate(INERTIAL_NAMES)}
                for i in range(arm.n)}

    fr = true.friction
    friction = {name: {
        'coulomb_pos_nm': float(fr.coulomb_pos_nm[j]),
        'coulomb_neg_nm': float(fr.coulomb_neg_nm[j]),
        'viscous_nm_s_rad': float(fr.viscous_nm_s_rad[j]),
        'breakaway_pos_nm': float(arm.breakaway_pos[j]),
        'breakaway_neg_nm': float(arm.breakaway_neg[j]),
        'stribeck_velocity_rad_s': float(cfg.stribeck_velocity_rad_s), 'offset_nm': 0.0,
    } for j, name in enumerate(arm.joint_names)}
    payload = arm.payload
    return {
        'description': DESCRIPTION,
        'seed': cfg.seed,
        'urdf': str(nominal.urdf_path),
        'urdf_sha256': nominal.urdf_sha256,
        'joint_names': list(arm.joint_names),
        'tool_frame': arm.model.tool_frame,
        'gravity_m_s2': [float(g) for g in nominal.gravity_m_s2],
        'inertial_parameter_names': list(INERTIAL_NAMES),
        'links_true': links(true.standard_parameters),
        'links_urdf': links(true.nominal_parameters),
        'rotor_inertia_kg_m2': {n: float(v) for n, v in zip(arm.joint_names,
                                                            true.rotor_inertia_kg_m2)},
        'friction': friction,
        'friction_model': FRICTION_MODEL,
        'drive_gains_nm_a': {n: float(v) for n, v in zip(arm.joint_names,
                                                         arm.drives.drive_gains_nm_a)},
        'payload': None if payload is None else {
            'mass_kg': float(payload[0]), 'com_tool_m': [float(v) for v in payload[1]],
            'inertia_com_kg_m2': [[float(v) for v in row] for row in payload[2]]},
        'links_true_with_payload': links(arm.true_standard_parameters(with_payload=True)),
        'config': cfg.to_dict(),
        **_friction_drift(arm),
    }


def _friction_drift(arm) -> dict:
    """Return the drift's law and present state as ``{'friction_drift': ...}`` ({} without)."""
    drift = arm.friction_drift
    if drift is None:
        return {}
    return {'friction_drift': {
        'law': drift.law.to_dict(), 'time_s': float(arm.t),
        'joints': drift.state_dict(arm.joint_names, arm.true.friction)}}


def write_true_parameters(arm, path) -> Path:
    """Write ``true_parameters_dict(arm)`` as YAML to ``path`` (its folder created).

    The text goes to a new private temporary file in the same folder (created exclusively, so a
    symbolic link planted under a temporary name is never followed), then is renamed onto
    ``path``: a symbolic link at ``path`` is replaced, not written through, so nothing but
    ``path`` itself is ever written.

    Returns:
        The path written.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f'.{p.name}.', suffix='.tmp', dir=p.parent)
    try:
        os.fchmod(fd, 0o644)          # like a file the user writes (mkstemp gives 0o600)
        with os.fdopen(fd, 'w') as f:
            f.write(yaml.safe_dump(true_parameters_dict(arm), sort_keys=False))
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


__all__ = ['true_parameters_dict', 'write_true_parameters']
