# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The model file: an identified dynamic model, YAML, versioned, self-describing.

Layout (schema_version 1)::

    schema_version: 1
    kind: robot_id_ros/model
    robot:
      name, urdf_file, urdf_sha256, urdf_xml (the URDF itself, so the file stands alone),
      joint_names, tool_frame, gravity_m_s2
    regressor: {friction, coulomb_asymmetric, offset, rotor_inertia, sign_velocity_rad_s,
                stribeck, stribeck_velocity_rad_s, presliding_rad, load_coulomb, friction_drift}
    parameters:            # standard parameters used to compute torque (Pinocchio convention)
      - {name: m2, value: 1.31, std: 0.02, unit: kg}
    base_parameters:       # the identified combinations, when a base fit was made
      map: {tolerance, independent, dependent, K}
      values: [{name, expression, value, std}]
      covariance: [[...]]  # of the base values, for uncertainty propagation
    friction: {sign_velocity_rad_s, joints: {NAME: {coulomb_pos_nm, coulomb_neg_nm,
               viscous_nm_s_rad, offset_nm, stribeck_nm, stribeck_velocity_rad_s, breakaway_nm,
               presliding_rad, load_coulomb_per_nm, coulomb_drift_nm, viscous_drift_nm_s_rad}}}
               # presliding_rad (Dahl q0, rad; 0 or absent: no presliding); the last three
               # only when identified (absent: 0; model/friction.py)
    drive_gains_nm_per_a: {NAME: gain}   # joint torque per motor current
    drive_gains_std_nm_per_a: {NAME: std}  # when identified from the data (None: not identified)
    drive_gains_identifiable: {NAME: bool}  # when identified: 95 % interval within the tolerance
                                            # (all false on the URDF's mass scale)
    payload: {mass_kg, com_m, mass_std_kg, com_std_m}  # optional, com in the tool frame
    residual: {std_nm: {NAME: ...},      # identification residual per joint (contact thresholds)
               by_speed: {speed_edges_rad_s: [...], rms_nm: {NAME: [...]}, samples: {NAME: [...]}}}
                                         # its RMS per band of |qd| (null: too few samples)
    identification: {...}                # how it was made: method, data, samples, condition number
    validation: {...}                    # metrics on held-out data

Loading is bounded (file size, YAML aliases and nesting: ``io.yaml_input``) and checks every
field (``io.model_checks``); against a given URDF or joint set it checks the joint names and the
geometry (``model.geometry_match``), and says which does not match.
"""
from __future__ import annotations

import datetime
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin
import yaml

from robot_id_ros.model.base_parameters import BaseParameters
from robot_id_ros.io.files import atomic_write_text, to_plain
from robot_id_ros.io.model_checks import (ABSURD_MAGNITUDE, MAX_MODEL_FILE_BYTES,  # noqa: F401
                                          ModelFileError, check_base_parameters,
                                          check_masses_and_inertias, check_numbers,
                                          check_residual_by_speed, check_velocity_scales)
from robot_id_ros.io.yaml_input import read_yaml
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.geometry_match import check_same_geometry
from robot_id_ros.model.robot import ModelError, RobotModel, check_gravity
from robot_id_ros.model.regressor import Regressor, RegressorOptions

SCHEMA_VERSION = 1
KIND = 'robot_id_ros/model'


def speed_band(edges, qd):
    """Return (band index, inside) of each |qd| among ``edges`` (rad/s), shaped like ``qd``.

    Band k holds ``edges[k] <= |qd| < edges[k+1]``; the index is clipped to the bands where
    ``inside`` is False (below the first edge or at / above the last).
    """
    edges = np.asarray(edges, dtype=float)
    k = np.searchsorted(edges, np.abs(np.asarray(qd, dtype=float)), side='right') - 1
    inside = (k >= 0) & (k < len(edges) - 1)
    return np.clip(k, 0, len(edges) - 2), inside


@dataclass
class ResidualBySpeed:
    """The identification residual's RMS per joint and band of joint speed |qd| (Nm).

    Band k holds the samples with ``speed_edges_rad_s[k] <= |qd_j| < speed_edges_rad_s[k+1]``.
    Near zero speed a friction law fitted in motion can miss by more than the residual std of
    the fit (a Stribeck curve that is not the drive's): the estimator adds what a band shows
    above the white noise to that joint's torque variance (``estimate.uncertainty``).
    """

    speed_edges_rad_s: np.ndarray   # (B + 1,) ascending, rad/s
    rms_nm: np.ndarray              # (n, B) Nm; NaN where a band had too few samples
    samples: np.ndarray             # (n, B) samples in each band

    def to_dict(self, joint_names):
        """Return the model file's ``residual.by_speed`` entry."""
        def row(v):
            return [None if not np.isfinite(x) else float(x) for x in v]
        return {'speed_edges_rad_s': [float(e) for e in self.speed_edges_rad_s],
                'rms_nm': {n: row(r) for n, r in zip(joint_names, self.rms_nm)},
                'samples': {n: [int(c) for c in r] for n, r in zip(joint_names, self.samples)}}

    @classmethod
    def from_dict(cls, d, joint_names):
        """Read the ``residual.by_speed`` entry (ValueError / KeyError when malformed)."""
        edges = np.array([float(e) for e in d['speed_edges_rad_s']])
        if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0) or edges[0] < 0:
            raise ValueError('residual.by_speed.speed_edges_rad_s must be >= 0 and ascending')
        bands = len(edges) - 1
        if any(len(d[k][n]) != bands for k in ('rms_nm', 'samples') for n in joint_names):
            raise ValueError(f'residual.by_speed needs {bands} values per joint (one per band '
                             'of speed_edges_rad_s)')
        rms = np.array([[np.nan if x is None else float(x) for x in d['rms_nm'][n]]
                        for n in joint_names])
        counts = np.array([[int(c) for c in d['samples'][n]] for n in joint_names])
        return cls(edges, rms, counts)


@dataclass
class Payload:
    mass_kg: float
    com_m: np.ndarray             # in the tool frame
    mass_std_kg: float = 0.0
    com_std_m: np.ndarray = None

    def to_dict(self):
        return {
            'mass_kg': float(self.mass_kg),
            'com_m': [float(x) for x in self.com_m],
            'mass_std_kg': float(self.mass_std_kg),
            'com_std_m': [
                float(x) for x in (self.com_std_m if self.com_std_m is not None else np.zeros(3))
            ]
        }

    @classmethod
    def from_dict(cls, d):
        return cls(float(d['mass_kg']), np.asarray(d['com_m'], float),
                   float(d.get('mass_std_kg', 0.0)),
                   np.asarray(d.get('com_std_m', [0, 0, 0]), float))


@dataclass
class IdentifiedModel:
    """A robot with identified inertial parameters, rotor inertia, friction and drive gains.

    ``robot`` carries the identified inertias (and armature) so Pinocchio's RNEA, CRBA, Coriolis
    and Jacobians give the identified model's terms directly.
    """

    robot: RobotModel
    regressor_options: RegressorOptions
    parameters: np.ndarray  # (p,) standard vector, named by Regressor(robot, options).names
    friction: FrictionModel
    parameter_std: np.ndarray | None = None
    base: BaseParameters | None = None
    base_values: np.ndarray | None = None
    base_std: np.ndarray | None = None
    base_covariance: np.ndarray | None = None
    drive_gains_nm_per_a: np.ndarray | None = None
    payload: Payload | None = None
    residual_std_nm: np.ndarray | None = None
    identification: dict = field(default_factory=dict)
    validation: dict = field(default_factory=dict)
    urdf_xml: str = ''
    drive_gains_std_nm_per_a: np.ndarray | None = None  # when the gains were identified
    residual_by_speed: ResidualBySpeed | None = None
    drive_gains_identifiable: np.ndarray | None = None  # (n,) bool, when the gains were identified

    def __post_init__(self):
        self.regressor = Regressor(self.robot, self.regressor_options)
        self.parameters = np.asarray(self.parameters, dtype=float)
        if self.parameters.shape != (self.regressor.p,):
            raise ModelFileError(
                f'expected {self.regressor.p} parameters, got {self.parameters.shape}')
        self._rigid_inertias = None
        self._friction_from_parameters()
        self.apply_parameters()

    @property
    def joint_names(self):
        return self.robot.joint_names

    @property
    def n(self):
        return self.robot.n

    @property
    def effort_unit(self) -> str:
        """The effort unit the model was identified from: 'torque' or 'current'."""
        return str(self.identification.get('options', {}).get('effort_unit') or 'torque')

    def _friction_from_parameters(self):
        """Copy the parameter vector's friction columns, where it has them, into ``friction``.

        Those columns are the friction (one source of truth for the torque; breakaway and Stribeck
        stay as given).
        """
        kinds = self.regressor.joint_kinds
        nk, n0 = len(kinds), self.regressor.n_inertial
        col = {k: self.parameters[n0 + i::nk] for i, k in enumerate(kinds)}
        f = self.friction
        if 'fc' in col:
            f.coulomb_pos_nm = col['fc'].copy()
            f.coulomb_neg_nm = col['fc'].copy()
        if 'fcp' in col:
            f.coulomb_pos_nm = col['fcp'].copy()
            f.coulomb_neg_nm = col['fcn'].copy()
        if 'fv' in col:
            f.viscous_nm_s_rad = col['fv'].copy()
        if 'fo' in col:
            f.offset_nm = col['fo'].copy()
        for kind, name in (('fcl', 'load_coulomb_per_nm'), ('fcd', 'coulomb_drift_nm'),
                           ('fvd', 'viscous_drift_nm_s_rad')):
            if kind in col:
                setattr(f, name, col[kind].copy())
        # the law has no friction that falls with load: a coefficient below zero (a solver's
        # tolerance, or a fit kept as made, which plausibility reports) is written as none
        f.load_coulomb_per_nm = np.maximum(f.load_coulomb_per_nm, 0.0)
        if kinds:
            f.sign_velocity_rad_s = self.regressor_options.sign_velocity_rad_s
        if 'fc' in col or 'fcp' in col:
            f.presliding_rad = np.full(self.n, float(self.regressor_options.presliding_rad))

    def apply_parameters(self):
        """Write the standard parameters (and payload) into the Pinocchio model."""
        self.robot.set_standard_parameters(self.parameters[:self.regressor.n_inertial])
        kinds = self.regressor.joint_kinds
        if 'Ia' in kinds:
            k = kinds.index('Ia')
            self.robot.set_rotor_inertia(self.parameters[self.regressor.n_inertial +
                                                         k::len(kinds)])
        self._rigid_inertias = [
            self.robot.model.inertias[i].copy() for i in range(1, self.robot.model.njoints)
        ]
        if self.payload is not None:
            self.set_payload(self.payload)

    def set_payload(self, payload: Payload | None):
        """Attach (None: remove) a payload rigidly at the tool frame; this changes g, M and C."""
        m = self.robot.model
        last = m.njoints - 1
        m.inertias[last] = self._rigid_inertias[-1].copy()
        self.payload = payload
        if payload is not None and payload.mass_kg != 0.0:
            tool = m.frames[self.robot.tool_frame_id].placement
            com_joint = tool.act(np.asarray(payload.com_m, float))
            m.inertias[last] = m.inertias[last] + pin.Inertia(float(payload.mass_kg), com_joint,
                                                              np.zeros((3, 3)))

    def rigid_body_torque(self, q, qd, qdd):
        return self.robot.inverse_dynamics(q, qd, qdd)

    def torque(self, q, qd, qdd, presliding_state=None, load_nm=None):
        """Return the predicted joint torque, Nm: rigid body (with payload) + rotor + friction.

        ``presliding_state`` (n,): the Dahl state of joints with presliding friction (none: the
        smooth sign stands in, ``FrictionModel.torque``); ``load_nm`` (n,): the torque the
        gears pass to the links, the load of the load-dependent Coulomb term (none: that term
        left out).
        """
        return self.rigid_body_torque(q, qd, qdd) + self.friction.torque(qd, presliding_state,
                                                                         load_nm)

    def predict(self, Q, QD, QDD, run=True, t_s=None):
        """Predicted torque for N samples, (N, n).

        ``run``: the samples are one time-ordered run, along which the presliding friction's
        state is run (from no history); False: separate samples (poses), without that state.
        The load-dependent Coulomb term takes the rigid-body torque as the load. ``t_s`` (N,):
        the run is one the model was identified on, at these times: its friction drift is added
        (``FrictionModel.drift_torque``).
        """
        Q, QD, QDD = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (Q, QD, QDD))
        rigid = np.array([self.rigid_body_torque(q, qd, qdd)
                          for q, qd, qdd in zip(Q, QD, QDD)]).reshape(Q.shape)
        load = rigid if self.friction.has_load_coulomb else None
        friction = (self.friction.torque_along(Q, QD, load) if run
                    else self.friction.torque(QD, None, load))
        if t_s is not None and self.friction.has_drift:
            friction = friction + self.friction.drift_torque(QD, t_s)
        return rigid + friction

    # --- file I/O ---------------------------------------------------------------------
    def to_dict(self):
        r = self.robot
        names = self.regressor.names
        d = {
            'schema_version': SCHEMA_VERSION,
            'kind': KIND,
            'created': datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
            'robot': {
                'name': r.robot_name,
                'urdf_file': r.urdf_path.name,
                'urdf_sha256': r.urdf_sha256,
                'joint_names': list(r.joint_names),
                'tool_frame': r.tool_frame,
                'gravity_m_s2': [float(x) for x in r.gravity_m_s2],
                'urdf_xml': self.urdf_xml or r.urdf_path.read_text(),
            },
            'regressor': self.regressor_options.to_dict(),
            'parameters': [{
                'name': n,
                'value': float(v),
                'std': (None if self.parameter_std is None else float(s)),
                'unit': u
            } for n, v, s, u in zip(
                names, self.parameters,
                self.parameter_std if self.parameter_std is not None else [None] *
                len(names), self.regressor.units)],
            'friction': self.friction.to_dict(r.joint_names),
        }
        if self.base is not None and self.base_values is not None:
            exprs = self.base.expressions()
            std = self.base_std if self.base_std is not None else [None] * self.base.n_base
            d['base_parameters'] = {
                'map': self.base.to_dict(),
                'values': [{
                    'name': nm,
                    'expression': e,
                    'value': float(v),
                    'std': None if s is None else float(s)
                } for nm, e, v, s in zip(self.base.names, exprs, self.base_values, std)],
            }
            if self.base_covariance is not None:
                d['base_parameters']['covariance'] = np.asarray(self.base_covariance).tolist()
        if self.drive_gains_nm_per_a is not None:
            d['drive_gains_nm_per_a'] = {
                n: float(g)
                for n, g in zip(r.joint_names, self.drive_gains_nm_per_a)
            }
        if self.drive_gains_std_nm_per_a is not None:
            d['drive_gains_std_nm_per_a'] = {
                n: (float(s) if np.isfinite(s) else None)
                for n, s in zip(r.joint_names, self.drive_gains_std_nm_per_a)
            }
        if self.drive_gains_identifiable is not None:
            d['drive_gains_identifiable'] = {
                n: bool(x) for n, x in zip(r.joint_names, self.drive_gains_identifiable)}
        if self.payload is not None:
            d['payload'] = self.payload.to_dict()
        if self.residual_std_nm is not None:
            d['residual'] = {
                'std_nm': {
                    n: float(s)
                    for n, s in zip(r.joint_names, self.residual_std_nm)
                }
            }
            if self.residual_by_speed is not None:
                d['residual']['by_speed'] = self.residual_by_speed.to_dict(r.joint_names)
        d['identification'] = to_plain(self.identification)
        d['validation'] = to_plain(self.validation)
        return d

    def save(self, path):
        """Write atomically (a temp file renamed into place): a crash never leaves half a model."""
        atomic_write_text(path, yaml.safe_dump(self.to_dict(), sort_keys=False, width=120))


def load_model(path, urdf_path=None, joint_names=None) -> IdentifiedModel:
    """Load a model file, every field checked (``io.model_checks``).

    Args:
        path: the model file (at most ``MAX_MODEL_FILE_BYTES``).
        urdf_path: the URDF of the robot in use (a path or ``package://PACKAGE/PATH``): refuse a
            model whose kinematics (joint placements, axes, tool frame) or joint limits differ
            from it (``model.geometry_match``); None: no check.
        joint_names: the robot's joints: refuse a model made for another joint list.

    Raises:
        ModelFileError: one line naming the file, the field and the fix.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f'model file not found: {path} (make one with robot-id identify, '
                             'or robot-id model from a URDF)')
    _refuse_urdf(path)
    d = read_yaml(path, 'model file', ModelFileError, MAX_MODEL_FILE_BYTES,
                  fix='give the YAML file written by robot-id identify')
    if not isinstance(d, dict) or d.get('kind') != KIND:
        raise ModelFileError(f'{path} is not a robot_id_ros model file (no "kind: {KIND}")')
    if d.get('schema_version') != SCHEMA_VERSION:
        raise ModelFileError(
            f'model file {path} has schema_version {d.get("schema_version")!r}; this '
            f'robot_id_ros reads version {SCHEMA_VERSION}: re-identify or upgrade robot_id_ros')
    try:
        return _from_dict(d, path, urdf_path, joint_names)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelFileError(
            f'model file {path} is malformed: {type(exc).__name__}: {exc}') from exc


def _refuse_urdf(path: Path):
    """Refuse an XML file (a URDF) given as a model file, naming the command that makes one."""
    try:
        with open(path, 'rb') as f:
            head = f.read(256).lstrip(b'\xef\xbb\xbf \t\r\n')
    except OSError:
        return   # read_yaml says why the file cannot be read
    if head.startswith(b'<'):
        raise ModelFileError(f'{path} looks like a URDF, not a model file: make one with '
                             f'robot-id model --urdf {path} --out MODEL.yaml')


def _robot_from_dict(rd, path, urdf_path, joint_names):
    """Return (the model's RobotModel, its joint names, its URDF text), checked as asked."""
    file_joints = [str(n) for n in rd['joint_names']]
    if joint_names is not None and list(joint_names) != file_joints:
        raise ModelFileError(f'model {path} was made for joints {", ".join(file_joints)}, '
                             f'not {", ".join(joint_names)}')
    try:
        gravity = check_gravity(rd['gravity_m_s2'], 'robot.gravity_m_s2')
    except ModelError as exc:
        raise ModelFileError(f'model file {path}: {exc}') from None
    xml = str(rd['urdf_xml'])
    # the embedded URDF is built from a private temporary file under a fixed name: the model
    # file's urdf_file is a label only and never decides where anything is written
    with tempfile.TemporaryDirectory() as tmp:
        tmp_urdf = Path(tmp) / 'embedded.urdf'
        tmp_urdf.write_text(xml)
        try:
            robot = RobotModel(tmp_urdf, file_joints, rd['tool_frame'], gravity)
        except ModelError as exc:
            raise ModelFileError(f'model {path}: its URDF does not build: {exc}') from exc
    robot.urdf_path = Path(Path(str(rd['urdf_file'])).name)
    if urdf_path is not None:   # robot.urdf_sha256 is still the hash of the URDF the file holds
        try:
            check_same_geometry(path, robot, urdf_path)
        except ModelError as exc:
            raise ModelFileError(str(exc), kind=exc.kind) from None
    robot.urdf_sha256 = str(rd['urdf_sha256'])
    return robot, file_joints, xml


def _from_dict(d, path, urdf_path, joint_names):
    robot, file_joints, xml = _robot_from_dict(d['robot'], path, urdf_path, joint_names)
    options = RegressorOptions.from_dict(d['regressor'])
    reg = Regressor(robot, options)
    by_name = {p['name']: p for p in d['parameters']}
    missing = [n for n in reg.names if n not in by_name]
    if missing:
        raise ModelFileError(f'model {path} lacks parameter(s) {", ".join(missing[:5])}')
    theta = np.array([float(by_name[n]['value']) for n in reg.names])
    stds = [by_name[n].get('std') for n in reg.names]
    theta_std = None if any(s is None for s in stds) else np.array(stds, dtype=float)
    friction = FrictionModel.from_dict(d['friction'], file_joints)
    base = base_values = base_std = base_cov = None
    if 'base_parameters' in d:
        bd = d['base_parameters']
        base = BaseParameters.from_dict(bd['map'], reg.names)
        base_values = np.array([float(v['value']) for v in bd['values']])
        s = [v.get('std') for v in bd['values']]
        base_std = None if any(x is None for x in s) else np.array(s, dtype=float)
        if 'covariance' in bd:
            base_cov = np.array(bd['covariance'], dtype=float)
    gains = d.get('drive_gains_nm_per_a')
    if gains is not None:
        gains = np.array([float(gains[n]) for n in file_joints])
    gains_std = d.get('drive_gains_std_nm_per_a')
    if gains_std is not None:
        gains_std = np.array([np.nan if gains_std[n] is None else float(gains_std[n])
                              for n in file_joints])
    identifiable = d.get('drive_gains_identifiable')
    if identifiable is not None:
        identifiable = np.array([bool(identifiable[n]) for n in file_joints])
    payload = Payload.from_dict(d['payload']) if d.get('payload') else None
    res = d.get('residual', {}).get('std_nm')
    res = None if res is None else np.array([float(res[n]) for n in file_joints])
    by_speed = d.get('residual', {}).get('by_speed')
    by_speed = None if by_speed is None else ResidualBySpeed.from_dict(by_speed, file_joints)
    check_numbers(path, reg.names, theta, theta_std, friction, file_joints, base_values, gains,
                  payload, res)
    check_velocity_scales(path, options, friction)
    identification = d.get('identification', {}) or {}
    check_masses_and_inertias(path, reg.names, theta, robot.n, identification)
    if base is not None:
        check_base_parameters(path, base.n_base, base_values, base_cov)
    if by_speed is not None:
        check_residual_by_speed(path, by_speed.rms_nm)
    return IdentifiedModel(robot, options, theta, friction, theta_std, base, base_values, base_std,
                           base_cov, gains, payload, res,
                           identification,
                           d.get('validation', {}) or {}, xml, gains_std, by_speed,
                           identifiable)


def nominal_model(robot: RobotModel, friction: FrictionModel | None = None,
                  options: RegressorOptions = RegressorOptions()) -> IdentifiedModel:
    """Return an IdentifiedModel holding the URDF's own parameters (a prior, or a baseline)."""
    reg = Regressor(robot, options)
    return IdentifiedModel(robot.copy(), options, reg.reference_parameters(),
                           friction if friction is not None else FrictionModel.zeros(robot.n),
                           identification={'method': 'urdf nominal (not identified)'})
