# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulated youBot arm (ROS-free): true dynamics, friction with stiction, drives, end stops.

Physics
-------
- Rigid-body dynamics of the TRUE parameter set (``true_parameters``: the URDF perturbed within
  stated bounds, deterministic per seed) plus reflected rotor inertia J_m N^2, by Pinocchio
  (CRBA for M(q), RNEA for the bias forces h(q, qd)), with the external loads as J^T F: the
  "hand" (``apply_wrench``, or scripted over time by ``set_hand_profile``) and a contact plane
  (``set_contact_plane``), both from ``world`` and evaluated at the start state of each step.
- Integrator: semi-implicit (symplectic) Euler at ``SimConfig.physics_rate_hz`` (1 kHz default):
  qd += qdd dt, then q += qd dt.
- Friction per joint in motion (direction d = +-1):
  tau_f = d fc_d (1 + (r - 1) exp(-(qd / vs)^2)) + fv qd, with direction-dependent Coulomb fc_d,
  breakaway ratio r (Stribeck bump: friction at zero speed is the breakaway r fc_d), viscous fv.
- Stiction: each joint is either STUCK (qd = 0 exactly) or SLIPPING in a direction.  A stuck
  joint's acceleration is constrained to zero; the remaining joints are solved with the reduced
  mass matrix M_FF qdd_F = tau_F - h_F - tau_f,F, and the torque the constraint needs,
  r_S = tau_S - h_S - M_SF qdd_F, must lie inside the breakaway band; the joint with the largest
  excess breaks loose (in the direction of r) and the system is solved again.  A slipping joint
  whose velocity would change sign within a step sticks.
- End stops at the joint limits: a joint reaching a limit stops (inelastic by default) and is
  held there while the net torque pushes into the stop (or while it is inside the stiction band).
- Friction drift (``SimConfig.friction_drift``, off by default): the friction above follows each
  joint's temperature, which rises with the power it dissipates, and its Coulomb part grows with
  the load its gear carries: the torque the gear passed to the link at the step before (motor
  torque less friction and rotor inertia, ``link_torque_nm``; ``friction_drift``).
- Drives: a PID position controller per joint (the drive's position mode) producing motor torque,
  saturated at the drive torque limits; the drives measure what the youBot driver reports
  (``drives.DriveModel``): encoder-quantised position, integer-rpm velocity, motor current in mA
  with white noise; the driver's effort is current * Kt * N.

Sign conventions: the external wrench F = (force, torque) is what the environment applies to the
robot at the origin of the wrench frame; it adds tau_ext = J^T F to the joint torques.  At rest
the motor torque (the published effort) is g(q) - tau_ext + (static friction within the breakaway
band).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from robot_id_ros.model.robot import RobotModel, youbot_model
from robot_id_ros.sim.config import SimConfig, SimConfigError
from robot_id_ros.sim import truth_file
from robot_id_ros.sim.drives import DriveModel, quantised
from robot_id_ros.sim.friction_drift import JointThermalState
from robot_id_ros.sim.stiction import StictionSolver
from robot_id_ros.sim.trajectory import TrajectoryError, TrajectoryPlan, validate_command
from robot_id_ros.sim.true_parameters import make_true_parameters
from robot_id_ros.sim.world import (ExternalLoads, SimInputError, check_payload, check_wrench,
                                    plane_from_config)


@dataclass
class Measurement:
    """What the driver reports at time ``t_s``, plus the simulator's ground truth."""

    t_s: float
    position_rad: np.ndarray
    velocity_rad_s: np.ndarray
    current_a: np.ndarray
    effort_nm: np.ndarray          # the driver's effort: current * Kt * N
    # ground truth (never what a driver reports)
    true_position_rad: np.ndarray
    true_velocity_rad_s: np.ndarray
    true_motor_torque_nm: np.ndarray
    true_external_torque_nm: np.ndarray  # J^T F of the hand and the contact plane
    true_wrench_base: np.ndarray   # (6,) hand + plane: force, torque at the tool origin, base axes
    true_wrench_tool: np.ndarray   # (6,) the same in tool axes
    stuck: np.ndarray              # (n,) bool, joint held by stiction or an end stop
    in_contact_with_surface: bool = False  # the contact plane pushed in the last step
    true_contact_force_n: np.ndarray | None = None  # (3,) the plane's force, base axes [N]
    true_joint_temperature_c: np.ndarray | None = None  # (n,) with friction drift [degC]
    # (n,) with friction drift: the torque the gears passed to the links, their load [Nm]
    true_link_torque_nm: np.ndarray | None = None


class SimulatedArm:
    """A simulated youBot arm.

    Construct with ``SimulatedArm(SimConfig(seed=3))`` (the youBot model from the package URDF) or
    pass ``model=`` any ``RobotModel`` of an n-joint arm together with n-valued config arrays.

    Command it with ``set_trajectory(names, points)`` or ``move_to(q, duration_s)``, advance time
    with ``step()`` / ``advance(duration_s)`` / ``advance_to(t_s)``, read ``measure()``.
    """

    def __init__(self, config: SimConfig | None = None, model: RobotModel | None = None):
        self.config = cfg = config if config is not None else SimConfig()
        self.nominal = model if model is not None else youbot_model()
        n = self.n = self.nominal.n
        cfg.validated(n)
        self.joint_names = self.nominal.joint_names
        self.true = make_true_parameters(self.nominal, cfg)
        self.model = self.nominal.copy()
        self.model.set_standard_parameters(self.true.standard_parameters)
        self.model.set_rotor_inertia(self.true.rotor_inertia_kg_m2)
        self._pm = self.model.model
        self._pd = self.model.data
        self._last_inertia = self._pm.inertias[n].copy()
        self.payload = None  # (mass, com_tool, inertia_com)
        lim = self.nominal.limits
        self.lower = np.array(lim.lower_rad, dtype=float)
        self.upper = np.array(lim.upper_rad, dtype=float)
        self.velocity_limit = np.array(lim.velocity_rad_s, dtype=float)
        self.torque_limit = (np.asarray(cfg.torque_limit_nm, dtype=float) if cfg.torque_limit_nm
                             is not None else np.array(lim.effort_nm, dtype=float))
        if not np.all(self.torque_limit > 0):
            raise SimConfigError(
                f'drive torque limits must be > 0, got {self.torque_limit.tolist()} '
                '(set SimConfig.torque_limit_nm when the URDF has no effort limits)')
        self.dt = cfg.dt
        self.kp = np.asarray(cfg.kp_nm_rad)
        self.kd = np.asarray(cfg.kd_nm_s_rad)
        self.ki = np.asarray(cfg.ki_nm_rad_s)
        fr = self.true.friction
        self._fcp = fr.coulomb_pos_nm.copy()
        self._fcn = fr.coulomb_neg_nm.copy()
        self._fv = fr.viscous_nm_s_rad.copy()
        self._ratio = cfg.breakaway_ratio
        self._vs = cfg.stribeck_velocity_rad_s
        self.breakaway_pos = self._ratio * self._fcp
        self.breakaway_neg = self._ratio * self._fcn
        self.drives = DriveModel(cfg.gear_ratios, cfg.torque_constants_nm_a,
                                 cfg.encoder_ticks_per_motor_rev, cfg.current_resolution_a,
                                 cfg.current_noise_a, cfg.quantize,
                                 rng=np.random.default_rng([cfg.seed, 0x4015e]))
        self._pos_res = self.drives.position_resolution_rad if cfg.quantize else None
        self._vel_res = self.drives.velocity_resolution_rad_s if cfg.quantize else None
        # external loads: the hand and the contact plane (world.py)
        self.loads = ExternalLoads(self._pm, self._pd, self.model.tool_frame_id, self.dt)
        try:
            self.loads.set_plane(plane_from_config(cfg), cfg.contact_point_tool_m)
        except SimInputError as exc:
            raise SimConfigError(f'contact plane settings: {exc}') from None
        self.wrench_frame = self.model.tool_frame
        self.wrench_axes = 'base'
        self.tau_ext = np.zeros(n)
        self._tril = np.tril_indices(n, -1)
        # constants of the step as lists of floats (see step())
        self._stiction = StictionSolver(self._fcp, self._fcn, self._fv, self._ratio, self._vs)
        # joint temperatures and the friction they give (None: the friction is constant)
        self.friction_drift = None if self.true.friction_drift is None else JointThermalState(
            self.true.friction_drift, self._fcp, self._fcn, self._fv, self.dt)
        self._lower_l, self._upper_l = self.lower.tolist(), self.upper.tolist()
        if self._pos_res is not None:
            self._pos_res_l, self._vel_res_l = self._pos_res.tolist(), self._vel_res.tolist()
        self.reset(np.asarray(cfg.initial_positions_rad, dtype=float))

    # --- state ---------------------------------------------------------------------------------
    def reset(self, q, t_s=0.0):
        """Place the arm at rest at ``q``, held (integral term preloaded with true gravity)."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.n,) or not np.all(np.isfinite(q)):
            raise SimInputError(f'reset pose must be {self.n} finite values, got {q.tolist()}')
        out = np.flatnonzero((q < self.lower) | (q > self.upper))
        if out.size:
            j = out[0]
            raise SimInputError(f'reset pose: {self.joint_names[j]} = {q[j]:.6g} rad is outside '
                                f'[{self.lower[j]:.6g}, {self.upper[j]:.6g}]')
        self._k = 0
        self._t0 = float(t_s)
        self.t = float(t_s)
        self.q = q.copy()
        self.qd = np.zeros(self.n)
        self.qdd = np.zeros(self.n)
        self.dir = np.zeros(self.n, dtype=np.int8)      # 0 stuck, +-1 slipping direction
        self.stop = np.zeros(self.n, dtype=np.int8)     # +1 at upper stop, -1 at lower stop
        self.stop[q >= self.upper] = 1
        self.stop[q <= self.lower] = -1
        self.q_set = q.copy()
        self.plan = None
        self._update_tau_ext()
        g = self._gravity_true(q) - self.tau_ext
        with np.errstate(divide='ignore', invalid='ignore'):
            self.integral = np.where(self.ki > 0, g / np.where(self.ki > 0, self.ki, 1.0), 0.0)
        self.tau_motor = np.clip(g, -self.torque_limit, self.torque_limit)
        self.link_torque_nm = g.copy()

    def _gravity_true(self, q):
        return pin.computeGeneralizedGravity(self._pm, self._pd, q).copy()

    @property
    def time_s(self):
        return self.t

    # --- commands ------------------------------------------------------------------------------
    def set_trajectory(self, joint_names, points, start_time_s=None):
        """Replace the running trajectory.

        points: sequence of (time_from_start_s, positions, velocities, accelerations) with
        velocities / accelerations possibly empty.  Starts at ``start_time_s`` (sim time; default
        now, and never earlier than now).  Raises ``TrajectoryError`` (nothing changes) when
        invalid.
        """
        cmd = validate_command(joint_names, points, self.joint_names, self.lower, self.upper,
                               self.velocity_limit)
        t0 = self.t if start_time_s is None else max(float(start_time_s), self.t)
        if self.plan is not None:
            q_now, qd_now = self.plan.sample(self.t)
        else:
            q_now, qd_now = self.q_set, np.zeros(self.n)
        self.plan = TrajectoryPlan(cmd, t0, q_now, qd_now, self.lower, self.upper)
        self.q_set = self.plan.P[-1].copy()
        return self.plan

    def move_to(self, q, duration_s):
        """Go to ``q`` (all joints) in ``duration_s`` along a cubic with zero end velocities."""
        if not duration_s > 0:
            raise TrajectoryError(f'duration must be > 0 s, got {duration_s}')
        q = np.asarray(q, dtype=float)
        return self.set_trajectory(self.joint_names,
                                   [(float(duration_s), q, np.zeros(self.n), [])])

    def cancel_trajectory(self):
        """Hold the current set point."""
        if self.plan is not None:
            self.q_set, _ = self.plan.sample(self.t)
        self.plan = None

    @property
    def trajectory_active(self):
        return self.plan is not None and self.t < self.plan.end_time

    # --- external wrench and payload ---------------------------------------------------------
    def _check_frame(self, frame, axes):
        if axes not in ('base', 'tool'):
            raise SimInputError(f"wrench axes must be 'base' or 'tool', got {axes!r}")
        frame = self.model.tool_frame if frame in (None, '') else str(frame)
        if not self._pm.existFrame(frame):
            raise SimInputError(f'no frame {frame!r} in the model to apply a wrench at')
        return frame

    def apply_wrench(self, wrench, frame=None, axes='base'):
        """Apply ``wrench`` = (fx, fy, fz, tx, ty, tz) (N, Nm) at the origin of ``frame``.

        frame: a frame of the model on the last link (default the tool frame);
        axes: 'base' (the URDF root frame's axes) or 'tool' (the axes of ``frame``).
        The wrench is the hand's: it replaces a ``set_hand_profile`` script and adds to the
        contact plane's force.
        """
        w = check_wrench(wrench)
        frame = self._check_frame(frame, axes)
        self.loads.set_hand(w, self._pm.getFrameId(frame), axes)
        self.wrench_frame = frame
        self.wrench_axes = axes
        self._update_tau_ext()

    def clear_wrench(self):
        """Remove the hand's wrench (constant or scripted); a contact plane stays."""
        self.loads.set_hand(np.zeros(6), self.model.tool_frame_id, 'base')
        self._update_tau_ext()

    def set_hand_profile(self, profile, frame=None, axes='base'):
        """Script the hand: a wrench over sim time at the origin of ``frame``.

        Args:
            profile: a callable ``t_s -> (fx, fy, fz, tx, ty, tz)`` (N, Nm) or a list of
                ``(t_s, wrench)`` steps sorted by time (each held until the next; zero before
                the first); None stops it. The wrench at sim time t acts over the physics step
                that ends at t, so ``measure()`` at t reports exactly ``profile(t)``.
            frame: a frame of the last link (default the tool frame).
            axes: 'base' or 'tool' (the axes of ``frame``).
        """
        frame = self._check_frame(frame, axes)
        self.loads.set_profile(profile, self._pm.getFrameId(frame), axes)
        self.wrench_frame, self.wrench_axes = frame, axes
        self._update_tau_ext()

    def set_contact_plane(self, plane, contact_point_tool_m=(0.0, 0.0, 0.0)):
        """Put a ``world.ContactPlane`` in the arm's world (None removes it).

        Args:
            plane: the plane (base coordinates) or None.
            contact_point_tool_m: the point that touches it, in tool axes from the tool frame
                origin [m].
        """
        self.loads.set_plane(plane, contact_point_tool_m)
        self._update_tau_ext()

    def contact_force_n(self):
        """Return the plane's force on the tool in the last step, (3,) base axes [N]."""
        return self.loads.contact_force_n.copy()

    def _update_tau_ext(self, t_s=None):
        self.tau_ext = self.loads.update(self.q, self.qd, self.t if t_s is None else t_s)

    def true_wrench(self):
        """Return (base, tool): hand + plane as one wrench at the tool origin, base/tool axes."""
        return self.loads.true_wrench(self.q)

    def attach_payload(self, mass_kg, com_tool_m=(0.0, 0.0, 0.0), inertia_com_kg_m2=None):
        """Attach a rigid payload to the tool.

        Mass, COM in the tool frame, rotational inertia about its COM in tool axes (3x3 or the 6
        values ixx ixy iyy ixz iyz izz; default a point mass). Replaces any payload already
        attached; ``mass_kg = 0`` detaches.
        """
        m, c, Ic = check_payload(mass_kg, com_tool_m, inertia_com_kg_m2)
        if m == 0.0:
            self.detach_payload()
            return
        jMt = self._pm.frames[self.model.tool_frame_id].placement
        Y = jMt.act(pin.Inertia(m, c, Ic))
        self._pm.inertias[self.n] = self._last_inertia + Y
        self.payload = (m, c.copy(), Ic.copy())

    def detach_payload(self):
        self._pm.inertias[self.n] = self._last_inertia.copy()
        self.payload = None

    def true_standard_parameters(self, with_payload=True):
        """Return the true 10 n inertial parameters (Pinocchio order per link), payload or not."""
        if with_payload:
            return np.concatenate(
                [self._pm.inertias[i].toDynamicParameters() for i in range(1, self.n + 1)])
        return self.true.standard_parameters.copy()

    # --- physics -------------------------------------------------------------------------------
    # One step works on Python floats (lists of n values): numpy's per-call overhead dominates
    # on 5-element arrays. Every expression keeps numpy's operation order, so the results are
    # the same floats as a numpy step (test/sim/test_sim_step_reference.py).
    def _control(self, q, qd, dt):
        """Return the drives' PID torque [Nm] (list) on the measured state; update the integral."""
        n = self.n
        t = self.t
        plan = self.plan
        if plan is not None:
            q_d, qd_d = plan.sample_values(t)
            if t >= plan.end_time:
                self.q_set = np.array(q_d)
                self.plan = None
        else:
            q_d, qd_d = self.q_set.tolist(), [0.0] * n
        if self._pos_res is not None:
            qm, qdm = quantised(q, self._pos_res_l), quantised(qd, self._vel_res_l)
        else:
            qm, qdm = q, qd
        e = [a - b for a, b in zip(q_d, qm)]
        ki, tl = self.ki.tolist(), self.torque_limit.tolist()
        band = self.config.integral_deadband_rad
        integral = self.integral.tolist()
        if any(abs(x) > band for x in e):
            for j in range(n):
                x = integral[j] + (e[j] * dt if abs(e[j]) > band else 0.0)
                lim = tl[j] / (ki[j] if ki[j] > 0 else 1.0)
                integral[j] = -lim if x < -lim else (lim if x > lim else x)
            self.integral = np.array(integral)
        kp, kd = self.kp.tolist(), self.kd.tolist()
        tau = []
        for j in range(n):
            x = kp[j] * e[j] + ki[j] * integral[j] + kd[j] * (qd_d[j] - qdm[j])
            tau.append(-tl[j] if x < -tl[j] else (tl[j] if x > tl[j] else x))
        return tau

    def step(self):
        """Advance one physics step of ``dt``."""
        dt, n = self.dt, self.n
        q_arr, qd_arr = self.q, self.qd
        q, qd = q_arr.tolist(), qd_arr.tolist()
        tau = self._control(q, qd, dt)
        self.tau_motor = np.array(tau)
        drift = self.friction_drift
        if drift is not None:
            self._stiction.set_friction(*drift.friction(self.link_torque_nm.tolist()))
        self._update_tau_ext(self.t + dt)
        tau_net = [a + b for a, b in zip(tau, self.tau_ext.tolist())]
        d = self.dir.tolist()
        qdd = None
        if all(d):
            # every joint slipping: one ABA call (armature included), unless a velocity reverses
            fr = self._stiction.slip(qd, d, range(n))
            qdd = pin.aba(self._pm, self._pd, q_arr, qd_arr,
                          np.array([a - b for a, b in zip(tau_net, fr)])).tolist()
            if any(d[j] * (qd[j] + qdd[j] * dt) < 0 for j in range(n)):
                qdd = None
        if qdd is None:
            stop = self.stop.tolist()
            a = np.array(tau_net) - pin.nonLinearEffects(self._pm, self._pd, q_arr, qd_arr)
            qdd = self._stiction.solve(a, lambda: self._mass_matrix(q_arr), qd, d, stop, dt)
            self.dir = np.array(d, dtype=np.int8)
            self.stop = np.array(stop, dtype=np.int8)
        if drift is not None:
            self.link_torque_nm = self._link_torque(q_arr, qd_arr, qdd)
        self._integrate(q, qd, qdd, d, dt)
        if drift is not None:
            drift.heat(self._stiction.power(self.qd.tolist(), self.dir.tolist()), tau)

    def _link_torque(self, q_arr, qd_arr, qdd):
        """Return the torque the gears pass to the links in this step, Nm (n,).

        The links' own inverse dynamics less the external torque: the motor torque less the
        friction and the rotor's inertia, which the gear does not carry.
        """
        a = np.asarray(qdd, dtype=float)
        rigid = pin.rnea(self._pm, self._pd, q_arr, qd_arr, a) - self._pm.armature * a
        return rigid - self.tau_ext

    def _integrate(self, q, qd, qdd, d, dt):
        """Semi-implicit Euler from (q, qd) with ``qdd`` (lists), then the end stops."""
        n = self.n
        qd_new = [0.0 if d[j] == 0 else qd[j] + qdd[j] * dt for j in range(n)]
        q_new = [q[j] + qd_new[j] * dt for j in range(n)]
        lower, upper = self._lower_l, self._upper_l
        for j in range(n):
            up = q_new[j] > upper[j]
            if not (up or q_new[j] < lower[j]):
                continue
            q_new[j] = upper[j] if up else lower[j]
            qd_new[j] = -self.config.end_stop_restitution * qd_new[j]
            self.dir[j] = 0 if qd_new[j] == 0.0 else (1 if qd_new[j] > 0 else -1)
            self.stop[j] = 1 if up else -1
        self.q = np.array(q_new)
        self.qd = np.array(qd_new)
        self.qdd = np.array(qdd)
        self._k += 1
        self.t = self._t0 + self._k * dt

    def _mass_matrix(self, q_arr):
        """Return the (symmetric) joint-space mass matrix M(q) of the true model [kg m^2]."""
        M = pin.crba(self._pm, self._pd, q_arr).copy()
        M[self._tril] = M.T[self._tril]
        return M

    def advance(self, duration_s):
        """Run the physics for ``duration_s`` (a whole number of steps, rounded)."""
        steps = int(round(float(duration_s) / self.dt))
        for _ in range(steps):
            self.step()

    def advance_to(self, t_s):
        """Run the physics until sim time reaches ``t_s`` (to within half a step)."""
        k_end = int(round((float(t_s) - self._t0) / self.dt))
        while self._k < k_end:
            self.step()

    # --- measurement -----------------------------------------------------------------------------
    def measure(self) -> Measurement:
        """Return what the driver reports now (noisy, quantised) and the ground truth."""
        cur = self.drives.measure_current(self.tau_motor)
        wb, wt = self.true_wrench()
        return Measurement(
            t_s=self.t,
            position_rad=self.drives.measure_position(self.q),
            velocity_rad_s=self.drives.measure_velocity(self.qd),
            current_a=cur,
            effort_nm=self.drives.current_to_torque(cur),
            true_position_rad=self.q.copy(),
            true_velocity_rad_s=self.qd.copy(),
            true_motor_torque_nm=self.tau_motor.copy(),
            true_external_torque_nm=self.tau_ext.copy(),
            true_wrench_base=wb,
            true_wrench_tool=wt,
            stuck=self.dir == 0,
            in_contact_with_surface=self.loads.in_contact,
            true_contact_force_n=self.loads.contact_force_n.copy(),
            true_joint_temperature_c=(None if self.friction_drift is None
                                      else np.array(self.friction_drift.temperature_c)),
            true_link_torque_nm=(None if self.friction_drift is None
                                 else self.link_torque_nm.copy()),
        )

    # --- ground truth helpers ------------------------------------------------------------------
    def true_gravity_torque(self, q=None):
        """g(q) of the TRUE model (payload included)."""
        return self._gravity_true(self.q if q is None else np.asarray(q, dtype=float))

    def nominal_gravity_torque(self, q=None):
        """g(q) of the URDF's nominal model (no payload)."""
        return self.nominal.gravity_torque(self.q if q is None else q)

    def link_names(self):
        """Return each joint's moved URDF link (the body its 10 inertial parameters belong to)."""
        return list(self.nominal.link_names)

    def true_parameters_dict(self):
        """Everything the simulator uses as truth, for a file (never published on a topic)."""
        return truth_file.true_parameters_dict(self)

    def write_true_parameters(self, path):
        """Write ``true_parameters_dict()`` as YAML to ``path`` (atomically); returns the path."""
        return truth_file.write_true_parameters(self, path)
