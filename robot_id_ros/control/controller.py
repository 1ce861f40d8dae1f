# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The force controller: estimated tool force in, joint set points out (``ForceController``).

Each ``step`` (one per estimate) takes the newest estimate and the measured joints and returns
the joint set point for the next step. The controller keeps its own reference ``q_ref`` and
integrates the joint velocity that realises the admittance law's tool velocity
(``admittance``, ``kinematics``), within the tool speed, acceleration and workspace limits and
the joint speed and position limits (``safety``). Dither, a sine per joint, is added to the
reference in what is sent, never integrated.

Inputs are checked first (``input_checks``): a joint state that jumped farther than the drives
can move is not used (``joints`` counts it), an estimate that is not finite, stale, stamped ahead
of the clock or in another frame is a stop reason, and the reference is taken at enabling only
from consistent joint states. Every new reference is limited by ``setpoint_guard``: the joint
speed limit from the previous one (or the reach of the trusted measured arm) and the workspace
box; a set point that is not finite is never sent.

States: ``disabled`` (nothing is sent: the arm holds its own set point), ``running``,
``stopping`` (a stop reason arose: the reference restarts from the measured joints where they
are trusted, else from itself, and its velocity decays to zero in ``stop_time_s``, the dither
is dropped) and ``stopped`` (the
reference is held and sent while enabled; once the arm rests it relaxes to where the arm rests,
over ``stop_relax_s``, and is sent while it does, enabled or not: a drive holding against a
sustained push would otherwise pull the arm back to it). Enabling, a mode change and resuming
after a cleared stop reason each start a ramp of ``ramp_s`` on the commanded velocity and the
dither amplitude.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from robot_id_ros.control.admittance import ForceInput, admittance_velocity, used_axes
from robot_id_ros.control.config import MODES, ControllerConfig
from robot_id_ros.control.contact_model import ContactModel
from robot_id_ros.control.force_hold import ForceHold
from robot_id_ros.control.input_checks import JointStateCheck
from robot_id_ros.control.kinematics import ToolVelocityMap
from robot_id_ros.control.safety import (SafetyMonitor, keep_in_box, limit_joint_speed,
                                         limit_velocity)
from robot_id_ros.control.setpoint_guard import limit_reference
from robot_id_ros.errors import InputError
from robot_id_ros.model.robot import RobotModel

__all__ = ['Command', 'ForceController', 'ForceInput', 'SETPOINT_LEAD_STEPS']

# a set point is for this many control steps ahead, so that the drive is still on its way to it
# when the next arrives (one step: the drive stops at each and its torque ripples in phase with
# the sampled effort, a friction-like bias on the estimate; docs/force_control.md)
SETPOINT_LEAD_STEPS = 2
# after a stop the arm rests when no joint moved more than REST_STEP_RAD in a step for REST_S;
# the held set point then relaxes to it (``stop_relax_s``) until within RELAXED_RAD
REST_STEP_RAD = 2e-5
REST_S = 0.02
RELAXED_RAD = 1e-4
# a joint's dither is switched off (at its next zero crossing) once its reference moves faster
# than DITHER_OFF_RATIO x the dither's peak joint speed, and fades back in below DITHER_ON_RATIO
# x (hysteresis): a dither on a moving joint makes its velocity graze zero, where it sticks
# (docs/force_control.md, "The dither is for resting joints"); the null-space dither stays on
DITHER_OFF_RATIO = 0.1
DITHER_ON_RATIO = 0.05


@dataclass
class Command:
    """One step's output.

    Attributes:
        t_s: the time the set point is for (the step's time plus ``SETPOINT_LEAD_STEPS``
            steps), s.
        q_rad: (n,) joint set point (reference plus dither).
        qd_rad_s: (n,) joint velocity at the set point.
        send: False while disabled: nothing is to be sent (the arm holds its own set point).
        state: 'disabled', 'running', 'stopping' or 'stopped'.
        reason: why the controller is not running ('' when it is).
        tool_velocity_m_s: (3,) commanded tool velocity (of the reference, no dither).
        unreachable_m_s: (3,) part of the admittance velocity the arm cannot make here.
        ramp: the ramp factor in [0, 1].
    """

    t_s: float
    q_rad: np.ndarray
    qd_rad_s: np.ndarray
    send: bool
    state: str
    reason: str
    tool_velocity_m_s: np.ndarray
    unreachable_m_s: np.ndarray
    ramp: float


class ForceController(ForceHold):
    """Admittance control on the estimated tool force; see the module docstring.

    Args:
        robot: the arm's model (kinematics, joint limits).
        config: settings (None: the defaults).
        frame_id: the frame estimates must come in (None: the URDF root, the base frame the
            estimator publishes in with ``frame: base``).

    Raises:
        InputError: invalid settings.
    """

    def __init__(self, robot: RobotModel, config: ControllerConfig | None = None,
                 frame_id: str | None = None):
        from robot_id_ros.estimate.mapping import root_frame_name
        self.robot = robot
        self.n = robot.n
        self.config = config or ControllerConfig()    # checked when built
        self.frame_id = root_frame_name(robot.model) if frame_id is None else frame_id
        c = self.config
        self.joints = JointStateCheck(
            np.asarray(robot.limits.velocity_rad_s, dtype=float) * c.joint_state_speed_factor,
            c.joint_state_allowance_rad, c.joint_state_timeout_s, c.max_stamp_ahead_s)
        self.kin = ToolVelocityMap(robot, self.config.jacobian_damping,
                                   self.config.min_singular_value)
        margin = self.config.joint_limit_margin_rad
        self.lower = np.asarray(robot.limits.lower_rad, dtype=float) + margin
        self.upper = np.asarray(robot.limits.upper_rad, dtype=float) - margin
        self.safety = SafetyMonitor(self.config, self.frame_id)
        self.enabled = False
        self.state = 'disabled'
        self.mode = self.config.mode
        self.q_ref = None
        self.qd_ref = np.zeros(self.n)
        self.v_ref = np.zeros(3)
        self._t_prev = None
        self._t_ramp = 0.0
        self._t_dither = 0.0
        self._stop_from = None       # (reference velocity when the stop began, its time)
        self._sent_hold = False      # the last hold set point after a disable was sent
        self._rest_since = None      # stopped: since when the measured joints have been still
        self._q_last = None          # stopped: the measured joints at the last step
        self._q_start = None         # the reference at the start of this step
        self._arm = (None, 0.0)      # (trusted measured joints moved on to now, their age s)
        self.contact = ContactModel()
        self.pressing_n = None       # force_hold: (estimated, used) pressing force, N
        self._line_n = None          # ... the contact line's, N (None: no line)
        self._s_prev = None          # force_hold: the tool along force_axis at the last step, m
        self._s_speed = 0.0          # ... its filtered speed, m/s
        self._probe = None           # force_hold: 'press', 'release' or None (see _probe_velocity)
        self._gate = np.ones(self.n)       # dither fade per joint (DITHER_OFF_RATIO), in [0, 1]
        self._gate_on = np.ones(self.n, dtype=bool)
        self._half_period = None           # the dither's half period at the last step
        self._sigmas = []                  # hand guiding: (stamp, sigma (3,)) of one period

    # --- commands from outside ---------------------------------------------------------------
    def set_enabled(self, on: bool, t_s: float):
        """Enable (motion may start, through the ramp) or disable (stop and hold).

        Enabling again while enabled clears a latched stop (collision, time jump, shutdown).
        """
        if on and (not self.enabled or self.safety.latched is not None):
            self.safety.clear()
            self._t_ramp = self._t_dither = float(t_s)
            self.q_ref = None          # taken from the measured joints at the next step
            self._gate, self._gate_on = np.ones(self.n), np.ones(self.n, dtype=bool)
            self._half_period = None
            self._sigmas = []
            self._new_contact()
            self._s_prev, self._s_speed = None, 0.0
        self.enabled = bool(on)

    def set_mode(self, mode: str, t_s: float):
        """Switch the mode; the commanded velocity ramps up again from zero.

        Raises:
            InputError: an unknown mode.
        """
        if mode not in MODES:
            raise InputError(f'mode {mode!r} is not one of {MODES}', 'config')
        if mode != self.mode:
            self.mode = mode
            self._t_ramp = float(t_s)
            self.v_ref = np.zeros(3)
            self._sigmas = []
            self._new_contact()

    def update_config(self, config: ControllerConfig, t_s: float):
        """Take new settings (run-time parameters); a mode change among them ramps."""
        mode_changed = config.mode != self.config.mode
        new_axis = tuple(config.force_axis) != tuple(self.config.force_axis)
        self.config = config
        if new_axis:
            self._new_contact()
        self.safety.config = self.config
        if mode_changed:
            self.set_mode(self.config.mode, t_s)

    def _new_contact(self):
        """Forget the contact line; without dither the next force_hold contact is probed."""
        self.contact.reset()
        self._probe = None if self.config.dithers(self.n) else 'press'

    def shutdown(self):
        """Stop for good (latched until enabled again)."""
        self.safety.latch('shutdown')

    # --- one step ------------------------------------------------------------------------------
    def ramp(self, t_s: float) -> float:
        """Return the ramp factor in [0, 1] at ``t_s``."""
        if self.config.ramp_s <= 0.0:
            return 1.0
        return float(np.clip((t_s - self._t_ramp) / self.config.ramp_s, 0.0, 1.0))

    def step(self, t_s: float, q_meas_rad, inp: ForceInput | None,
             q_stamp_s: float | None = None) -> Command:
        """Advance the controller to ``t_s`` and return the next set point.

        Args:
            t_s: now, s (the clock the estimates are stamped on).
            q_meas_rad: (n,) measured joint angles, rad: offered to ``joints`` (a joint state
                that jumped is not used: the newest accepted one is).
            inp: the newest estimate (None before the first).
            q_stamp_s: the time ``q_meas_rad`` was measured, s (default ``t_s``): a stop
                brakes from the measured joints moved on to ``t_s`` with the reference velocity.

        Returns:
            ``Command``.
        """
        t_s = float(t_s)
        self.joints.offer(q_meas_rad, t_s if q_stamp_s is None else q_stamp_s, t_s)
        q_meas, untrusted = self.joints.q, self.joints.problem(t_s)
        dt = None if self._t_prev is None else t_s - self._t_prev
        self._t_prev = t_s
        reason = self.safety.reason(t_s, dt, inp, used_axes(self.mode, self.config)) or untrusted
        if not self.enabled:
            reason = 'disabled'
        step = dt if dt is not None and 0.0 < dt <= self.config.time_jump_s else 0.0
        if self.q_ref is None:
            refused = self.joints.problem(t_s, strict=True)
            if not self.enabled or refused:
                return self._idle(t_s, q_meas_rad if q_meas is None else q_meas,
                                  reason if not self.enabled else refused)
            self.q_ref = np.clip(q_meas, self.lower, self.upper)
        age = min(max(t_s - self.joints.stamp_s, 0.0), 0.1)
        if reason is None and self.state == 'running' and self._gave_way(q_meas, age):
            self.safety.latch('joint gave way')
            reason = self.safety.latched
        if reason is None and self.state in ('stopping', 'stopped', 'disabled'):
            self._t_ramp = t_s           # resume through the ramp
        # every new reference is limited from this one (``setpoint_guard``)
        self._q_start = self.q_ref.copy()
        self._arm = (None if untrusted else q_meas + self.qd_ref * age, age)
        if reason is not None:
            return self._stop(t_s, step, reason, self._arm[0])
        return self._run(t_s, step, inp, q_meas)

    def enable_problem(self, t_s: float) -> str | None:
        """Return why enabling now would be refused (the joint states), or None."""
        return self.joints.problem(float(t_s), strict=True)

    def _limit_reference(self, dt):
        """Keep the new reference within the joint speed limit (or the arm's reach) and the box."""
        c = self.config
        self.q_ref = limit_reference(
            self._q_start, self.q_ref, dt, c.max_joint_speed_rad_s, self.kin.tool_position_m,
            (np.asarray(c.workspace_min_m), np.asarray(c.workspace_max_m)), *self._arm)

    def _gave_way(self, q_meas, age_s) -> bool:
        """Return whether a joint is farther from its reference than the drives can explain.

        A position drive follows its set point within a few hundredths of a radian; a joint
        ``max_joint_deviation_rad`` beyond the reference (less its speed times the
        measurement's age ``age_s``) has been moved by a push its drive's torque cannot hold
        (the youBot's wrist under a 10 N push along its reach, docs/force_control.md). Holding the
        old reference would spring it back once the push lets go.
        """
        excess = (np.abs(np.asarray(q_meas, dtype=float) - self.q_ref)
                  - np.abs(self.qd_ref) * age_s)
        return bool(np.max(excess) > self.config.max_joint_deviation_rad)

    def _idle(self, t_s, q_meas, reason):
        self.state = 'disabled'
        q = np.asarray(q_meas, dtype=float)
        return Command(t_s, q, np.zeros(self.n), False, 'disabled', reason, np.zeros(3),
                       np.zeros(3), 0.0)

    def _run(self, t_s, dt, inp, q_meas):
        c = self.config
        self.state, self._stop_from = 'running', None
        self._rest_since, self._q_last = None, None
        ramp = self.ramp(t_s)
        pressing = self._pressing(t_s, inp, q_meas) if self.mode == 'force_hold' else None
        if self.mode == 'hand_guiding':
            inp = self._period_sigma(inp)
        v_want = admittance_velocity(self.mode, c, inp, pressing) * ramp
        if self.mode == 'force_hold' and self._probe is not None:
            v_want = self._probe_velocity(v_want, ramp, q_meas, max(dt, 1e-3))
        elif self.mode == 'force_hold':
            v_want = self._no_windup(v_want, q_meas, max(dt, 1e-3))
        v = limit_velocity(v_want, self.v_ref, max(dt, 1e-3), c)
        v = keep_in_box(self.kin.tool_position_m(self.q_ref), v, max(dt, 1e-3),
                        np.asarray(c.workspace_min_m), np.asarray(c.workspace_max_m))
        jv = self.kin.map(self.q_ref, v)
        q_next = self.q_ref + jv.qd_rad_s * max(dt, 1e-3)
        at_limit = (q_next < self.lower) | (q_next > self.upper)
        if at_limit.any():       # the others make the velocity without the joints at a limit
            jv = self.kin.map(self.q_ref, v, locked=at_limit)
        qd = limit_joint_speed(np.where(at_limit, 0.0, jv.qd_rad_s), c.max_joint_speed_rad_s,
                               np.where(at_limit, 0.0, jv.orientation_rad_s))
        wanted = np.clip(self.q_ref + qd * dt, self.lower, self.upper)
        self.q_ref = wanted
        self._limit_reference(dt)
        if dt > 0.0 and not np.array_equal(self.q_ref, wanted):
            qd = (self.q_ref - self._q_start) / dt      # the set point leads along what is made
        self.qd_ref = qd
        self.v_ref = self.kin.position_jacobian(self.q_ref) @ qd
        self._fade_dither(dt)
        return self._command(t_s, dt, ramp, '', jv.unreachable_m_s)

    def _period_sigma(self, inp):
        """Return ``inp`` with the smallest sigma per axis over the last dither period.

        Only while a dither is set; ``inp`` as it is otherwise. A dithered joint passes through
        zero velocity twice a period, where the estimator's sigma along the axes it senses
        peaks: with the instantaneous sigma the dead band swallows a firm push at every crossing
        and hand guiding falls into a stick-slip cycle at the dither's period.
        """
        c = self.config
        if not c.dithers(self.n):
            self._sigmas = []
            return inp
        t = float(inp.stamp_s)
        self._sigmas = [(ts, sg) for ts, sg in self._sigmas
                        if t - 1.0 / c.dither_frequency_hz <= ts <= t]
        if not self._sigmas or self._sigmas[-1][0] != t:
            self._sigmas.append((t, np.asarray(inp.sigma_n, dtype=float)))
        sigma = np.min([sg for _, sg in self._sigmas], axis=0)
        return ForceInput(inp.stamp_s, inp.force_n, sigma, inp.collision, inp.frame_id)

    def _fade_dither(self, dt):
        """Switch the per-joint dither off on joints the reference moves, on on resting ones.

        Off (DITHER_OFF_RATIO) at once, at the next zero crossing of the dither's displacement
        (the set point stays continuous; the joint's velocity steps to qd_ref, away from zero).
        On (DITHER_ON_RATIO) over one dither period.
        """
        c = self.config
        w = 2.0 * math.pi * c.dither_frequency_hz
        speed = np.abs(self.qd_ref)
        a = c.dither_rad(self.n)
        peak = np.where(a > 0.0, a * w, np.inf)
        self._gate_on = np.where(speed > DITHER_OFF_RATIO * peak, False,
                                 np.where(speed < DITHER_ON_RATIO * peak, True, self._gate_on))
        phase = w * (self._t_prev + SETPOINT_LEAD_STEPS * dt - self._t_dither)
        half = math.floor(phase / math.pi)
        crossed = self._half_period is not None and half != self._half_period
        self._half_period = half
        off = ~self._gate_on & crossed
        self._gate = np.where(off, 0.0, np.where(
            self._gate_on, np.minimum(self._gate + dt * c.dither_frequency_hz, 1.0),
            self._gate))

    def _stop(self, t_s, dt, reason, q_meas):
        c = self.config
        if self.state == 'running':
            # brake from where the arm is (a streamed reference may run ahead of it), where the
            # joint states are trusted; from the reference otherwise
            self._stop_from = (self.qd_ref.copy(), t_s)
            if q_meas is not None:
                self.q_ref = np.clip(np.asarray(q_meas, dtype=float), self.lower, self.upper)
        if self._stop_from is not None and c.stop_time_s > 0.0:
            qd0, t0 = self._stop_from
            left = max(0.0, 1.0 - (t_s - t0) / c.stop_time_s)
            self.qd_ref = qd0 * left
        else:
            self.qd_ref = np.zeros(self.n)
        self.q_ref = np.clip(self.q_ref + self.qd_ref * dt, self.lower, self.upper)
        moving = bool(np.any(self.qd_ref != 0.0))
        if not moving and q_meas is not None and self._relax_hold(t_s, dt, q_meas):
            self._sent_hold = False          # the relaxing hold set point is sent, enabled or not
        self._limit_reference(dt)
        self.state = 'stopping' if moving else 'stopped'
        self.v_ref = self.kin.position_jacobian(self.q_ref) @ self.qd_ref
        cmd = self._command(t_s, dt, 0.0, reason, np.zeros(3), dither=False)
        if not self.enabled and not moving:
            self.state = cmd.state = 'disabled'
            # one last hold set point is sent when the stop completes, then nothing
            cmd.send = self._sent_hold is False
            self._sent_hold = True
        else:
            self._sent_hold = False
        return cmd

    def _relax_hold(self, t_s, dt, q_meas) -> bool:
        """After a stop, move the held set point to where the arm rests. True when it moved.

        Once the measured joints have been still for REST_S, the set point approaches them
        exponentially with time constant ``stop_relax_s`` until within RELAXED_RAD. A position
        drive that holds an arm against a sustained push (a hand) makes part of the torque with
        its P term, from the arm's offset to the set point; its integral takes that part over
        and, held where the stop left it, pulls the arm back to the set point. Moving the set
        point to the arm at the drives' own integral rate (kp / ki) keeps their torque what it
        is while the integral takes over: the arm stays where it came to rest.
        """
        q = np.asarray(q_meas, dtype=float)
        still = (self._q_last is not None and
                 float(np.max(np.abs(q - self._q_last))) <= REST_STEP_RAD)
        self._q_last = q.copy()
        if not still:
            self._rest_since = None
            return False
        if self._rest_since is None:
            self._rest_since = t_s
        relax = self.config.stop_relax_s
        if relax <= 0.0 or t_s - self._rest_since < REST_S:
            return False
        gap = q - self.q_ref
        if float(np.max(np.abs(gap))) < RELAXED_RAD:
            return False
        self.q_ref = np.clip(self.q_ref + gap * min(1.0, dt / relax), self.lower, self.upper)
        return True

    def _command(self, t_s, dt, ramp, reason, unreachable, dither=True):
        """Return the set point for one step ahead: reference plus dither."""
        period = SETPOINT_LEAD_STEPS * dt if dt > 0.0 else 0.0
        t_next = t_s + period
        q = self.q_ref + self.qd_ref * period
        qd = self.qd_ref.copy()
        if dither:
            a = (self.config.dither_rad(self.n) * self._gate + self.kin.null_space_direction(
                self.q_ref, self.config.dither_rad(self.n, 'dither_null_rad'))) * ramp
            if np.any(a != 0.0):
                w = 2.0 * math.pi * self.config.dither_frequency_hz
                phase = w * (t_next - self._t_dither)
                q = q + a * math.sin(phase)
                qd = qd + a * w * math.cos(phase)
        q = np.clip(q, self.lower, self.upper)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            self.safety.latch('set point not finite')     # never sent: hold the reference
            q, qd, reason = self.q_ref.copy(), np.zeros(self.n), self.safety.latched
        return Command(t_next, q, qd, True, self.state, reason, self.v_ref.copy(),
                       np.asarray(unreachable, dtype=float), ramp)

    def dither_tool_amplitude_m(self, q_rad=None) -> float:
        """Return the tool displacement amplitude the dither causes at ``q_rad`` (linear), m.

        The dither moves every joint in phase, so the tool moves along ``J_p a`` (J_p the
        position Jacobian, a the amplitudes); its length is the amplitude.
        """
        q = self.q_ref if q_rad is None else np.asarray(q_rad, dtype=float)
        a = self.config.dither_rad(self.n) + self.kin.null_space_direction(
            q, self.config.dither_rad(self.n, 'dither_null_rad'))
        return float(np.linalg.norm(self.kin.position_jacobian(q) @ a))
