# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Robot model: a serial chain of actuated joints taken from any URDF, built on Pinocchio.

The model keeps only the selected (actuated) joints; every other joint of the URDF (gripper
fingers, a mobile base, a second arm) is locked at its reference value and its bodies are merged
into the body they hang from (``pinocchio.buildReducedModel``).  Positions, velocities and
efforts of the model are ordered as ``joint_names``.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pinocchio as pin
from robot_id_ros.errors import InputError
from robot_id_ros.model.chain import YOUBOT_JOINTS, YOUBOT_TOOL_FRAME, frame_id, select_chain
from robot_id_ros.model.urdf_check import URDFError, check_urdf_text


class ModelError(InputError):
    """A URDF, joint selection or frame that cannot make a model; the message names the problem."""


GRAVITY_DEFAULT_M_S2 = (0.0, 0.0, -9.81)
# above the surface gravity of every planet of the solar system (Jupiter's is 24.8 m/s^2): a
# larger value is a unit error or a typo
MAX_GRAVITY_M_S2 = 30.0


def check_gravity(gravity_m_s2, field='gravity_m_s2') -> np.ndarray:
    """Return gravity as a (3,) array; ModelError naming ``field`` unless finite and plausible."""
    try:
        g = np.asarray(gravity_m_s2, dtype=float)
    except (TypeError, ValueError):
        g = None
    if g is None or g.shape != (3,):
        raise ModelError(f'{field} = {gravity_m_s2!r} must be three numbers (x, y, z in m/s^2 '
                         'in the URDF root frame), e.g. [0, 0, -9.81]')
    if not np.all(np.isfinite(g)) or np.linalg.norm(g) > MAX_GRAVITY_M_S2:
        raise ModelError(f'{field} = [{", ".join(f"{x:g}" for x in g)}] m/s^2 must be finite '
                         f'with a magnitude of at most {MAX_GRAVITY_M_S2:g} m/s^2, e.g. '
                         '[0, 0, -9.81]')
    return g


def package_share_dir() -> Path:
    """Return the folder holding this package's urdf/, config/ and launch/ folders.

    Looks (in order) in an ament index (colcon install or apt), in ``sys.prefix/share`` (pip
    install) and in the source checkout.
    """
    candidates = []
    try:  # a ROS 2 install: the ament index knows where share/ is
        from ament_index_python.packages import get_package_share_directory

        candidates.append(Path(get_package_share_directory('robot_id_ros')))
    except Exception:  # noqa: BLE001 - not installed through ament: fall through
        pass
    import sys

    candidates.append(Path(sys.prefix) / 'share' / 'robot_id_ros')
    candidates.append(Path(__file__).resolve().parents[2])
    for c in candidates:
        if (c / 'urdf' / 'youbot_arm.urdf').is_file():
            return c
    raise ModelError('cannot find the robot_id_ros share folder (urdf/youbot_arm.urdf); '
                     'reinstall the package (pip install . or colcon build)')


def default_urdf_path() -> Path:
    """Return the project's youBot arm URDF."""
    return package_share_dir() / 'urdf' / 'youbot_arm.urdf'


PACKAGE_URI = 'package://'


def resolve_urdf_path(urdf_path) -> Path:
    """Return the file a URDF path names: a path, or ``package://PACKAGE/PATH`` (ROS's form).

    ``package://robot_id_ros/...`` is this package's share folder (``package_share_dir``); another
    package is looked up in the ament index.
    """
    text = str(urdf_path)
    if not text.startswith(PACKAGE_URI):
        return Path(urdf_path)
    package, _, rest = text[len(PACKAGE_URI):].partition('/')
    if not package or not rest:
        raise ModelError(f'URDF path {text} must be {PACKAGE_URI}PACKAGE/PATH')
    if package == 'robot_id_ros':
        return package_share_dir() / rest
    try:
        from ament_index_python.packages import get_package_share_directory
        return Path(get_package_share_directory(package)) / rest
    except Exception:  # noqa: BLE001 - no ament index or no such package
        raise ModelError(f'URDF path {text}: package {package!r} is not installed (source its '
                         'workspace, or give a file path)') from None


def file_sha256(path: str | os.PathLike) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@dataclass(frozen=True)
class JointLimits:
    lower_rad: np.ndarray
    upper_rad: np.ndarray
    velocity_rad_s: np.ndarray
    effort_nm: np.ndarray


class RobotModel:
    """A serial arm: Pinocchio model of the selected joints, a tool frame, gravity and limits.

    Parameters
    ----------
    urdf_path: path to the URDF.
    joint_names: actuated joints, in the order every array of this model uses. Default: the
        actuated joints from the root to the tool frame (``robot_id_ros.model.chain``), fingers,
        mimic joints and side branches left out (``selection_note`` says which).
    tool_frame: frame where wrenches act. Default: the youBot tool point on the youBot arm, else
        the end of the longest actuated chain.
    gravity_m_s2: gravity in the URDF root frame.
    """

    def __init__(self, urdf_path, joint_names=None, tool_frame=None,
                 gravity_m_s2=GRAVITY_DEFAULT_M_S2):
        urdf_path = resolve_urdf_path(urdf_path)
        full, text = _read_urdf(urdf_path)
        self.urdf_path = urdf_path
        self.urdf_sha256 = file_sha256(urdf_path)
        self.robot_name = full.name
        self.selection_note = ''
        if tool_frame is not None:
            _check_frame(full, tool_frame, urdf_path.name)   # before the chain that ends there
        if joint_names is None:
            chosen = select_chain(full, text, tool_frame)
            joint_names, self.selection_note = list(chosen.joint_names), chosen.note
            tool_frame = tool_frame or chosen.tool_frame or None
        joint_names = _check_selection(full, [str(n) for n in joint_names], urdf_path.name)
        gravity_m_s2 = check_gravity(gravity_m_s2)
        self.model = _reduced_model(full, joint_names, urdf_path.name)
        self.model.gravity.linear = gravity_m_s2.copy()
        self.gravity_m_s2 = gravity_m_s2
        self.data = self.model.createData()
        self.joint_names = tuple(joint_names)
        self.n = len(joint_names)
        self._continuous = [self.model.joints[i].nq == 2 for i in range(1, self.model.njoints)]
        self._set_tool_frame(tool_frame, urdf_path.name)
        self.limits = _joint_limits(self.model)
        # the link (body) each selected joint moves: its first body frame
        self.link_names = tuple(
            next(f.name for f in self.model.frames
                 if f.type == pin.FrameType.BODY and f.parentJoint == i)
            for i in range(1, self.model.njoints))

    def _set_tool_frame(self, tool_frame, urdf_name):
        """Set the tool frame (default: the model's last frame); it must be on the last body."""
        if tool_frame is None:
            tool_frame = self.model.frames[len(self.model.frames) - 1].name
        _check_frame(self.model, tool_frame, urdf_name)
        self.tool_frame = tool_frame
        self.tool_frame_id = frame_id(self.model, tool_frame)
        tool_parent = self.model.frames[self.tool_frame_id].parentJoint
        if tool_parent != self.model.njoints - 1:
            raise ModelError(f'tool frame {tool_frame} is not on the last selected joint\'s body '
                             f'({self.joint_names[-1]}): choose a frame at the tip of the chain')

    # --- configuration helpers -------------------------------------------------------------
    def q_pin(self, q):
        """Joint angles (n,) to a Pinocchio configuration (continuous joints use cos/sin)."""
        q = np.asarray(q, dtype=float)
        if not any(self._continuous):
            return q
        out = []
        for qi, cont in zip(q, self._continuous):
            out.extend((np.cos(qi), np.sin(qi)) if cont else (qi,))
        return np.array(out)

    # --- dynamics -------------------------------------------------------------------------
    def inverse_dynamics(self, q, qd, qdd):
        """Rigid-body joint torque (Nm) by RNEA: M(q) qdd + C(q, qd) qd + g(q)."""
        return pin.rnea(self.model, self.data, self.q_pin(q), np.asarray(qd, float),
                        np.asarray(qdd, float)).copy()

    def gravity_torque(self, q):
        """g(q) in Nm."""
        return pin.computeGeneralizedGravity(self.model, self.data, self.q_pin(q)).copy()

    def mass_matrix(self, q):
        """M(q), symmetric, by CRBA."""
        M = pin.crba(self.model, self.data, self.q_pin(q))
        return np.triu(M) + np.triu(M, 1).T

    def coriolis_matrix(self, q, qd):
        """C(q, qd) with Mdot - 2C skew-symmetric (Pinocchio's)."""
        return pin.computeCoriolisMatrix(self.model, self.data, self.q_pin(q),
                                         np.asarray(qd, float)).copy()

    def forward_dynamics(self, q, qd, tau):
        """Qdd from tau by ABA."""
        return pin.aba(self.model, self.data, self.q_pin(q), np.asarray(qd, float),
                       np.asarray(tau, float)).copy()

    def tool_placement(self, q) -> pin.SE3:
        pin.framesForwardKinematics(self.model, self.data, self.q_pin(q))
        return self.data.oMf[self.tool_frame_id].copy()

    def tool_jacobian(self, q, frame='base'):
        """6 x n Jacobian of the tool frame origin; rows (v, w).

        frame='base': linear and angular velocity in the root frame (LOCAL_WORLD_ALIGNED);
        frame='tool': both in the tool frame (LOCAL).
        """
        ref = {'base': pin.LOCAL_WORLD_ALIGNED, 'tool': pin.LOCAL}[frame]
        return pin.computeFrameJacobian(self.model, self.data, self.q_pin(q), self.tool_frame_id,
                                        ref).copy()

    # --- parameters -----------------------------------------------------------------------
    def standard_parameters(self):
        """URDF inertial parameters, 10 per link: m, mx, my, mz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz.

        First moments and inertias are about the joint frame origin (Pinocchio's convention,
        the one of ``computeJointTorqueRegressor``).
        """
        return np.concatenate([self.model.inertias[i].toDynamicParameters()
                               for i in range(1, self.model.njoints)])

    def set_standard_parameters(self, theta):
        """Replace the link inertias by the 10 n standard parameters ``theta``."""
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (10 * self.n,):
            raise ModelError(f'expected {10 * self.n} standard parameters, got {theta.shape}')
        for i in range(self.n):
            self.model.inertias[i + 1] = pin.Inertia.FromDynamicParameters(theta[10 * i:10 * i +
                                                                                 10])

    def set_rotor_inertia(self, armature_kg_m2):
        """Reflected rotor inertia per joint (kg m^2), added to the diagonal of M(q)."""
        self.model.armature = np.asarray(armature_kg_m2, dtype=float).copy()

    def copy(self) -> 'RobotModel':
        new = object.__new__(RobotModel)
        new.__dict__.update(self.__dict__)
        new.model = self.model.copy()
        new.data = new.model.createData()
        return new

    def check_in_limits(self, q, margin_rad=0.0):
        """Names of joints outside [lower + margin, upper - margin]; empty when all are inside."""
        q = np.asarray(q, float)
        bad = (q < self.limits.lower_rad + margin_rad) | (q > self.limits.upper_rad - margin_rad)
        return [self.joint_names[i] for i in np.flatnonzero(bad)]

    def random_configurations(self, count, rng, margin_rad=0.0):
        lo = np.where(np.isfinite(self.limits.lower_rad), self.limits.lower_rad + margin_rad,
                      -np.pi)
        hi = np.where(np.isfinite(self.limits.upper_rad), self.limits.upper_rad - margin_rad,
                      np.pi)
        return lo + (hi - lo) * rng.random((count, self.n))


def _read_urdf(urdf_path: Path):
    """Return the full Pinocchio model of a URDF and its text, its numbers checked first."""
    if not urdf_path.is_file():
        raise ModelError(
            f'URDF not found: {urdf_path} (give the path of an existing .urdf file)')
    try:
        text = urdf_path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(f'cannot read URDF {urdf_path}: {exc}') from exc
    try:
        check_urdf_text(text, str(urdf_path))
    except URDFError as exc:
        raise ModelError(str(exc)) from exc
    try:
        full = pin.buildModelFromUrdf(str(urdf_path))
    except Exception as exc:  # noqa: BLE001 - pinocchio raises assorted types
        raise ModelError(f'cannot parse URDF {urdf_path}: {exc}') from exc
    return full, text


def _check_frame(model, frame, urdf_name):
    """Raise ``ModelError`` listing the frames when ``model`` has no frame ``frame``."""
    if not model.existFrame(frame):
        names = sorted({f.name for f in model.frames})
        raise ModelError(f'URDF {urdf_name} has no frame {frame!r}; frames: {", ".join(names)}')


def _check_selection(full, joint_names, urdf_name):
    """Check that the joints exist, are 1-DoF and form a serial chain from base to tip."""
    all_names = [full.names[i] for i in range(1, full.njoints)]
    if not joint_names:
        movable = [n for n in all_names if full.joints[full.getJointId(n)].nv == 1]
        raise ModelError(f'no joints selected in URDF {urdf_name}: ' + (
            f'give --joints, from base to tip, among {", ".join(movable)}' if movable else
            'it has no revolute, continuous or prismatic joint (a robot arm needs them)'))
    missing = [n for n in joint_names if n not in all_names]
    if missing:
        raise ModelError(f'URDF {urdf_name} has no joint(s) {", ".join(missing)}; '
                         f'its joints are: {", ".join(all_names)}')
    if len(set(joint_names)) != len(joint_names):
        raise ModelError(f'joint selection names a joint twice: {joint_names}')
    for n in joint_names:
        if full.joints[full.getJointId(n)].nv != 1:
            raise ModelError(
                f'joint {n} is not a 1-DoF joint (revolute, continuous or prismatic)')
    ids = [full.getJointId(n) for n in joint_names]
    # serial check: every selected joint is an ancestor of the next one, in order
    for a, b in zip(ids[:-1], ids[1:]):
        if a not in _ancestors(full, b):
            raise ModelError(
                f'joint selection is not a serial chain in order: {full.names[a]} is not '
                f'an ancestor of {full.names[b]} (list the joints from base to tip)')
    return joint_names


def _reduced_model(full, joint_names, urdf_name):
    """Return the model of the selected joints, every other joint locked at its neutral value.

    Pinocchio's ``buildReducedModel`` looks joint frames up by name alone and fails
    when a link has the joint's name (SO-100's ``gripper``, ANYmal's ``LF_HAA``): such links are
    renamed for the reduction and get their names back afterwards.
    """
    locked = [i for i in range(1, full.njoints) if full.names[i] not in joint_names]
    model = full
    if locked:
        work, renamed = _without_name_clashes(full, set(full.names[1:]))
        try:
            model = pin.buildReducedModel(work, locked, pin.neutral(work))
        except ValueError as exc:
            raise ModelError(
                f'URDF {urdf_name}: Pinocchio cannot lock the joints left out of the '
                f'selection ({exc}); give --joints with every joint of the arm') from exc
        for i, f in enumerate(model.frames):
            if f.name in renamed:
                f.name = renamed[f.name]
                model.frames[i] = f
    # reduced model joint order is tree order; it must be the requested order
    red_names = [model.names[i] for i in range(1, model.njoints)]
    if red_names != joint_names:
        raise ModelError(f'joint selection must be given in chain order from base to tip: '
                         f'{", ".join(red_names)}')
    return model


def _without_name_clashes(full, joint_names):
    """Rename the non-joint frames named like one of ``joint_names``, in a copy of ``full``.

    Returns:
        (the copy, {new name: old name}); ``full`` itself and {} when no frame clashes.
    """
    clashing = [i for i, f in enumerate(full.frames)
                if f.name in joint_names and f.type != pin.FrameType.JOINT]
    if not clashing:
        return full, {}
    work, renamed, taken = pin.Model(full), {}, {f.name for f in full.frames}
    for i in clashing:
        f = work.frames[i]
        new = f'{f.name}__link'
        while new in taken:
            new += '_'
        taken.add(new)
        renamed[new], f.name = f.name, new
        work.frames[i] = f
    return work, renamed


def _joint_limits(model) -> JointLimits:
    """Return the position (none for continuous joints), velocity and effort limits."""
    lo, hi = [], []
    for i in range(1, model.njoints):
        j = model.joints[i]
        if j.nq == 2:
            lo.append(-np.inf)
            hi.append(np.inf)
        else:
            lo.append(model.lowerPositionLimit[j.idx_q])
            hi.append(model.upperPositionLimit[j.idx_q])
    return JointLimits(np.array(lo), np.array(hi), np.array(model.velocityLimit),
                       np.array(model.effortLimit))


def _ancestors(model, joint_id):
    out = set()
    j = model.parents[joint_id]
    while j > 0:
        out.add(j)
        j = model.parents[j]
    return out


def youbot_model(tool_frame=YOUBOT_TOOL_FRAME) -> RobotModel:
    """Return the project's youBot arm model: 5 arm joints, fingers locked, tool at tool point."""
    return RobotModel(default_urdf_path(), YOUBOT_JOINTS, tool_frame)
