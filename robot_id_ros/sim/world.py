# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulated arm's world (ROS-free): a contact plane and a "hand" pushing on the tool.

Two loads act on the arm of ``SimulatedArm`` and add up in its dynamics (``J^T F`` each) and in
its ground truth (``Measurement.true_wrench_base`` / ``true_wrench_tool``):

- the hand: a wrench at a frame of the last link (``apply_wrench``), constant or scripted over
  sim time (``HandProfile``: a callable ``t_s -> wrench`` or a list of ``(t_s, wrench)`` steps);
- a ``ContactPlane``: a half space that pushes on the contact point (the tool frame origin plus
  an offset in tool axes) while the point is inside it.  Normal force
  ``Fn = max(0, k depth + d depth_rate)`` (it never pulls), Coulomb friction
  ``Ft = -mu Fn vt / sqrt(|vt|^2 + v_r^2)`` opposing the tangential velocity ``vt``: smooth near
  ``vt = 0`` (regularised over ``v_r``, so that the explicit integration stays stable) and
  ``|Ft| < mu Fn`` always.  ``v_r`` is the plane's ``friction_velocity_m_s``, raised where the
  friction's velocity gain ``mu Fn / v_r`` would reverse the tool's sliding within one step:
  ``ExternalLoads`` caps the gain at the lightest tangential effective mass at the contact point
  divided by the step (``FRICTION_GAIN_STEPS``), so a held tool creeps slowly instead of
  chattering.  YouBot, horizontal plane, mu 0.5, Fn 10 N, 1 kHz: the cap asks v_r >= 3.6 mm/s
  in the forward-leaning pose (1.4 kg), 8.3 mm/s at the candle (0.6 kg); the default is 5 mm/s.

Sign convention as everywhere in the simulator: a force is what the environment applies to the
robot.  ``ExternalLoads`` evaluates both at a physics step's state and keeps what it applied.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from robot_id_ros.errors import InputError

# the friction's velocity gain is at most (lightest tangential effective mass) / (this * dt)
FRICTION_GAIN_STEPS = 1.0
# that mass is computed again when a joint has moved this far since [rad]
MASS_REUSE_RAD = 0.01


class SimInputError(InputError):
    """A wrench, payload, plane or command the simulator rejects; the message names the problem."""


def _vector3(value, what):
    v = np.asarray(value, dtype=float).ravel()
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise SimInputError(f'{what} must be 3 finite values, got {np.ravel(value).tolist()}')
    return v


def _number(value, what, lo, hi=math.inf):
    v = float(value)
    if not (lo <= v <= hi):
        raise SimInputError(f'{what} = {value!r} must be within [{lo:g}, {hi:g}]')
    return v


@dataclass
class ContactPlane:
    """A plane the tool cannot enter without being pushed back.

    Attributes:
        point_m: a point of the plane, base coordinates [m].
        normal: the outward normal (out of the material, towards free space), base axes;
            normalised on construction.
        stiffness_n_m: normal stiffness k [N/m] (> 0).
        damping_n_s_m: normal damping d [N s/m] (>= 0).
        friction_coefficient: Coulomb coefficient mu (>= 0).
        friction_velocity_m_s: tangential speed over which friction rises to mu Fn
            (regularisation; > 0).
    """

    point_m: np.ndarray
    normal: np.ndarray
    stiffness_n_m: float
    damping_n_s_m: float
    friction_coefficient: float = 0.0
    friction_velocity_m_s: float = 0.005

    def __post_init__(self):
        self.point_m = _vector3(self.point_m, 'contact plane point_m')
        n = _vector3(self.normal, 'contact plane normal')
        norm = float(np.linalg.norm(n))
        if not norm > 1e-9:
            raise SimInputError(f'contact plane normal {n.tolist()} has no direction: give a '
                                'non-zero vector out of the surface')
        self.normal = n / norm
        self.stiffness_n_m = _number(self.stiffness_n_m, 'contact stiffness_n_m', 1e-9)
        self.damping_n_s_m = _number(self.damping_n_s_m, 'contact damping_n_s_m', 0.0)
        self.friction_coefficient = _number(self.friction_coefficient,
                                            'contact friction_coefficient', 0.0)
        self.friction_velocity_m_s = _number(self.friction_velocity_m_s,
                                             'contact friction_velocity_m_s', 1e-9)

    def depth_m(self, position_m) -> float:
        """Return how far ``position_m`` (base coordinates, m) is inside the plane (< 0: out)."""
        return float(np.dot(self.point_m - np.asarray(position_m, dtype=float), self.normal))

    def force(self, position_m, velocity_m_s, max_friction_gain_n_s_m=math.inf) -> np.ndarray:
        """Return the force the plane applies to a point of the robot.

        Args:
            position_m: the point, base coordinates [m].
            velocity_m_s: its velocity, base axes [m/s].
            max_friction_gain_n_s_m: cap of the friction's gain at zero sliding speed,
                ``mu Fn / v_r`` [N s/m] (the regularisation speed is raised to meet it).

        Returns:
            (3,) force on the robot, base axes [N]; zero when the point is outside the plane
            or moves out fast enough that damping would pull.
        """
        depth = self.depth_m(position_m)
        if depth <= 0.0:
            return np.zeros(3)
        v = np.asarray(velocity_m_s, dtype=float)
        vn = float(np.dot(v, self.normal))
        fn = self.stiffness_n_m * depth - self.damping_n_s_m * vn
        if fn <= 0.0:
            return np.zeros(3)
        f = fn * self.normal
        if self.friction_coefficient > 0.0:
            vt = v - vn * self.normal
            limit = self.friction_coefficient * fn
            v_r = max(self.friction_velocity_m_s, limit / max_friction_gain_n_s_m)
            f = f - (limit / math.sqrt(float(np.dot(vt, vt)) + v_r * v_r)) * vt
        return f


def plane_from_config(cfg):
    """Return the ``ContactPlane`` of a ``SimConfig`` (None when ``contact_plane_enabled`` is off).

    Raises:
        SimInputError: a point, normal or coefficient that cannot make a plane.
    """
    if not cfg.contact_plane_enabled:
        return None
    return ContactPlane(cfg.contact_plane_point_m, cfg.contact_plane_normal,
                        cfg.contact_stiffness_n_m, cfg.contact_damping_n_s_m,
                        cfg.contact_friction_coefficient, cfg.contact_friction_velocity_m_s)


class HandProfile:
    """A wrench scripted over sim time: the hand pushing on the arm.

    Either a callable ``t_s -> 6 values`` (force N, torque Nm) or a list of ``(t_s, wrench)``
    steps sorted by time: the wrench of the last step with ``t_s <= t`` holds (zero before the
    first).  The simulator evaluates it at the end time of each physics step (the value at sim
    time t is the one that acted over the step that ended at t, what ``measure()`` then reports).
    """

    def __init__(self, profile):
        self._steps = None
        if callable(profile):
            self._fn = profile
            return
        steps = list(profile)
        if not steps:
            raise SimInputError('a hand profile needs a callable t_s -> wrench or at least one '
                                '(t_s, wrench) step')
        times = np.array([float(t) for t, _ in steps])
        if not np.all(np.isfinite(times)) or np.any(np.diff(times) < 0):
            raise SimInputError('hand profile step times must be finite and sorted, got '
                                f'{times.tolist()}')
        self._times = times
        self._steps = [check_wrench(w) for _, w in steps]
        self._fn = None

    def __call__(self, t_s) -> np.ndarray:
        """Return the wrench at sim time ``t_s`` (6 values: N, Nm)."""
        if self._fn is not None:
            return check_wrench(self._fn(t_s))
        k = int(np.searchsorted(self._times, t_s, side='right')) - 1
        return np.zeros(6) if k < 0 else self._steps[k].copy()


def check_wrench(wrench) -> np.ndarray:
    """Return ``wrench`` as (6,) floats; raise SimInputError unless 6 finite values."""
    w = np.asarray(wrench, dtype=float)
    if w.shape != (6,):
        raise SimInputError(f'wrench must have 6 values (fx fy fz tx ty tz), got {w.size}')
    if not np.all(np.isfinite(w)):
        raise SimInputError(f'wrench has a non-finite value: {w.tolist()}')
    return w


def check_payload(mass_kg, com_tool_m, inertia_com_kg_m2):
    """Check a payload for ``SimulatedArm.attach_payload``.

    Args:
        mass_kg: mass [kg], 0 to 5.
        com_tool_m: centre of mass in the tool frame [m], within 1 m of its origin.
        inertia_com_kg_m2: inertia about the COM in tool axes [kg m^2]: 3x3, the 6 values
            ixx ixy iyy ixz iyz izz, or None (a point mass).

    Returns:
        ``(mass, com (3,), inertia (3, 3))``.

    Raises:
        SimInputError: a value that is not a physical payload the simulation accepts.
    """
    m = float(mass_kg)
    if not np.isfinite(m) or m < 0:
        raise SimInputError(f'payload mass must be finite and >= 0 kg, got {mass_kg}')
    if m > 5.0:
        raise SimInputError(
            f'payload mass {m} kg is beyond what the youBot simulation accepts (5 kg)')
    c = np.asarray(com_tool_m, dtype=float)
    if c.shape != (3,) or not np.all(np.isfinite(c)):
        raise SimInputError(
            f'payload COM must be 3 finite values (m, tool frame), got {np.ravel(c).tolist()}')
    if np.linalg.norm(c) > 1.0:
        raise SimInputError(f'payload COM {c.tolist()} is more than 1 m from the tool frame')
    if inertia_com_kg_m2 is None:
        return m, c, np.zeros((3, 3))
    Ic = np.asarray(inertia_com_kg_m2, dtype=float)
    if Ic.shape == (6,):
        xx, xy, yy, xz, yz, zz = Ic
        Ic = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    if Ic.shape != (3, 3) or not np.all(np.isfinite(Ic)) or not np.allclose(Ic, Ic.T):
        raise SimInputError('payload inertia must be a finite symmetric 3x3 matrix or 6 values')
    w = np.linalg.eigvalsh(Ic)
    if w.min() < -1e-12 or (w.sum() - 2 * w.max()) < -1e-9:
        raise SimInputError(
            f'payload inertia is not physical (principal moments {w.tolist()} '
            'must be >= 0 and satisfy the triangle inequality)')
    return m, c, Ic


class ExternalLoads:
    """The hand and the contact plane acting on one arm: joint torques and ground truth.

    Args:
        pm: the Pinocchio model of the arm (true parameters); ``pd`` its data.
        tool_frame_id: the tool frame (where the ground-truth wrench is expressed).
        dt_s: the physics step [s] (caps the plane's friction gain; None: no cap).
    """

    def __init__(self, pm, pd, tool_frame_id, dt_s=None):
        self._pm, self._pd, self._tool = pm, pd, tool_frame_id
        self.dt_s = dt_s
        n = pm.nv
        self.hand = np.zeros(6)
        self.hand_frame_id = tool_frame_id
        self.hand_axes = 'base'
        self.profile = None
        self.plane = None
        self.contact_point_tool_m = np.zeros(3)
        self.contact_force_n = np.zeros(3)      # last plane force, base axes
        self.contact_arm_m = np.zeros(3)        # contact point - tool origin, base axes
        self.tau_hand = np.zeros(n)
        self.tau_plane = np.zeros(n)
        self._mass = None       # (q [rad], lightest tangential mass [kg]) of the plane
        self._hand_on = False   # a constant non-zero hand wrench is set
        self._loaded = False    # the last update evaluated a load (its torques may be non-zero)

    @property
    def tau_ext(self):
        """Joint torques of both loads at the last ``update`` [Nm]."""
        return self.tau_hand + self.tau_plane

    @property
    def in_contact(self) -> bool:
        """Whether the plane pushed at the last ``update``."""
        return self._loaded and bool(np.any(self.contact_force_n != 0.0))

    def set_hand(self, wrench, frame_id, axes):
        """Hold a constant hand wrench at frame ``frame_id`` in 'base' or 'tool' axes."""
        self.hand = check_wrench(wrench).copy()
        self._hand_on = bool(np.any(self.hand != 0.0))
        self.hand_frame_id, self.hand_axes = frame_id, axes
        self.profile = None

    def set_profile(self, profile, frame_id, axes):
        """Script the hand wrench over time (``HandProfile``; None: stop, the wrench is zero)."""
        self.profile = None if profile is None else HandProfile(profile)
        self.hand_frame_id, self.hand_axes = frame_id, axes
        self.hand = np.zeros(6)
        self._hand_on = False

    def set_plane(self, plane, contact_point_tool_m=(0.0, 0.0, 0.0)):
        """Set (or remove, None) the contact plane and the contact point in tool axes [m]."""
        if plane is not None and not isinstance(plane, ContactPlane):
            raise SimInputError(f'a contact plane must be a ContactPlane or None, got {plane!r}')
        self.contact_point_tool_m = _vector3(contact_point_tool_m, 'contact point (tool axes)')
        self.plane = plane
        self._mass = None

    def update(self, q, qd, t_s):
        """Evaluate both loads at state (q [rad], qd [rad/s]) and sim time ``t_s``.

        Returns:
            (n,) joint torque tau_ext = J_hand^T W_hand + J_c^T F_plane [Nm].
        """
        if self.profile is None and self.plane is None and not self._hand_on:
            # no load: nothing to evaluate (the torques were zeroed when the last load went)
            if self._loaded:
                self.tau_hand, self.tau_plane = np.zeros(self._pm.nv), np.zeros(self._pm.nv)
                self.contact_force_n = np.zeros(3)
                self._loaded = False
            return np.zeros(self._pm.nv)
        self._loaded = True
        if self.profile is not None:
            self.hand = self.profile(t_s)
        if np.any(self.hand != 0.0):
            ref = pin.LOCAL_WORLD_ALIGNED if self.hand_axes == 'base' else pin.LOCAL
            J = pin.computeFrameJacobian(self._pm, self._pd, q, self.hand_frame_id, ref)
            self.tau_hand = J.T @ self.hand
        else:
            self.tau_hand = np.zeros(self._pm.nv)
        self._update_plane(q, qd)
        return self.tau_ext

    def _update_plane(self, q, qd):
        self.contact_force_n = np.zeros(3)
        self.tau_plane = np.zeros(self._pm.nv)
        if self.plane is None:
            return
        J = pin.computeFrameJacobian(self._pm, self._pd, q, self._tool, pin.LOCAL_WORLD_ALIGNED)
        oMt = self._pd.oMf[self._tool]
        r = oMt.rotation @ self.contact_point_tool_m
        self.contact_arm_m = r
        # point velocity v + w x r, as a Jacobian: Jc = Jv - [r]x Jw
        Jc = J[:3] - pin.skew(r) @ J[3:]
        p = oMt.translation + r
        gain = math.inf
        if self.dt_s and self.plane.friction_coefficient > 0 and self.plane.depth_m(p) > 0:
            gain = self._lightest_tangential_mass_kg(q, Jc) / (FRICTION_GAIN_STEPS * self.dt_s)
        f = self.plane.force(p, Jc @ qd, gain)
        if np.any(f != 0.0):
            self.contact_force_n = f
            self.tau_plane = Jc.T @ f

    def _lightest_tangential_mass_kg(self, q, Jc):
        """Return the smallest effective mass of the contact point along the plane [kg].

        Reused while no joint has moved more than ``MASS_REUSE_RAD`` since it was computed.
        """
        if self._mass is not None and np.max(np.abs(q - self._mass[0])) <= MASS_REUSE_RAD:
            return self._mass[1]
        M = pin.crba(self._pm, self._pd, q)
        M = np.triu(M) + np.triu(M, 1).T
        n = self.plane.normal
        P = np.eye(3) - np.outer(n, n)
        G = P @ Jc @ np.linalg.solve(M, Jc.T) @ P      # tangential inverse mass [1/kg]
        self._mass = (np.array(q, dtype=float), 1.0 / max(float(np.linalg.eigvalsh(G)[-1]), 1e-12))
        return self._mass[1]

    def true_wrench(self, q):
        """Return (base, tool): both loads as one wrench at the tool frame origin at ``q``.

        Base: force, torque in base axes; tool: the same in tool axes (N, Nm).  The plane's part
        is the force of the last ``update``.
        """
        if not (self._loaded or self._hand_on) or not (
                self.in_contact or np.any(self.hand != 0.0)):
            return np.zeros(6), np.zeros(6)
        pin.framesForwardKinematics(self._pm, self._pd, q)
        oMt = self._pd.oMf[self._tool]
        f = self.contact_force_n.copy()
        m = np.cross(self.contact_arm_m, f)
        if np.any(self.hand != 0.0):
            oMa = self._pd.oMf[self.hand_frame_id]
            fh, mh = self.hand[:3], self.hand[3:]
            if self.hand_axes == 'tool':
                fh, mh = oMa.rotation @ fh, oMa.rotation @ mh
            f = f + fh
            m = m + mh + np.cross(oMa.translation - oMt.translation, fh)
        Rt = oMt.rotation.T
        return np.concatenate([f, m]), np.concatenate([Rt @ f, Rt @ m])


__all__ = ['ContactPlane', 'ExternalLoads', 'HandProfile', 'SimInputError', 'check_payload',
           'check_wrench', 'plane_from_config']
