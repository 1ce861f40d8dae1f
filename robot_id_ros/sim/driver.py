# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulated youBot driver around the physics (ROS-free).

Where an external wrench may act, the commands and disturbances it accepts or rejects, its
settings that change at run time, the last problem, and the diagnostics status (a level word, a
message and key/values).
"""
from __future__ import annotations

import math
import time

import numpy as np

from robot_id_ros.sim.config import EFFORT_UNITS, YOUBOT_GRIPPER_JOINTS, SimConfigError
from robot_id_ros.sim.driver_twin import JointStateLayout, PoweredArm
from robot_id_ros.sim.realtime import RealTimeClock
from robot_id_ros.sim.trajectory import TrajectoryError
from robot_id_ros.sim.youbot_arm import SimInputError, SimulatedArm

MAX_FORCE_N = 200.0         # the simulation's range of an external wrench
MAX_TORQUE_NM = 50.0
PROBLEM_HOLD_S = 10.0       # a problem shows in the diagnostics status this long (wall time)
POSITION_UNIT = 'rad'       # the unit string of a position set point (the youBot driver's)
SETPOINT_DEFAULT_S = 0.02   # a set point is reached this long after the first one arrives
SETPOINT_MIN_S = 0.005      # shortest / longest time to reach a set point, s
SETPOINT_MAX_S = 0.5


def root_frame(arm) -> str:
    """Return the model's root link (the frame of 'base' axes)."""
    return arm.model.model.frames[1].name


def check_wrench_frame(arm, frame):
    """Raise SimConfigError unless ``frame`` is a frame of the model on its last link."""
    pm = arm.model.model
    if not pm.existFrame(frame):
        raise SimConfigError(f'wrench frame {frame!r} is not a frame of the model')
    if pm.frames[pm.getFrameId(frame)].parentJoint != pm.njoints - 1:
        raise SimConfigError(f'wrench frame {frame!r} is not on the last link')


def wrench_target(arm, frame_id, wrench, wrench_frame):
    """Where a wrench message acts, by its ``frame_id``.

    '' / 'base' / the root link: at ``wrench_frame``, base axes; 'tool': at ``wrench_frame``, its
    own axes; another frame of the last link: at that frame, its own axes.

    Args:
        arm: the ``SimulatedArm``.
        frame_id: the message's frame.
        wrench: the six values (force [N], torque [Nm]).
        wrench_frame: the frame of the ``wrench_frame`` parameter.

    Returns:
        ``(frame, axes)`` for ``SimulatedArm.apply_wrench``.

    Raises:
        SimInputError: an unknown frame, a non-finite value or a wrench beyond the range.
    """
    root = root_frame(arm)
    if frame_id in ('', 'base', root):
        frame, axes = wrench_frame, 'base'
    elif frame_id == 'tool':
        frame, axes = wrench_frame, 'tool'
    else:
        try:
            check_wrench_frame(arm, frame_id)
        except SimConfigError as exc:
            raise SimInputError(f'{exc}; use the base ({root}), "tool" or a frame of the last '
                                f'link such as {arm.model.tool_frame}') from None
        frame, axes = frame_id, 'tool'
    if not all(math.isfinite(v) for v in wrench):
        raise SimInputError(f'wrench has a non-finite value: {wrench}')
    if max(abs(v) for v in wrench[:3]) > MAX_FORCE_N or \
            max(abs(v) for v in wrench[3:]) > MAX_TORQUE_NM:
        raise SimInputError(f'wrench {wrench} is beyond the simulation\'s range (|f| <= 200 N, '
                            '|t| <= 50 Nm)')
    return frame, axes


class SimDriver:
    """The simulated driver behind the youbot_sim node.

    The arm, its real-time pacing, the inputs it accepts or rejects (with the reason), and its
    diagnostics status.

    Args:
        config: the ``SimConfig`` of the arm.
        effort_unit: what ``effort`` reports: 'torque' (Nm) or 'current' (A).
        wrench_frame: where a wrench given in base or tool axes acts; '' = the tool frame.
        true_parameters_file: where ``write_true_parameters`` writes ('' = nowhere).
        publish_rate_hz: joint states per second of simulation time.
        real_time_factor: simulation seconds per wall second.
        start_time_sec: stamp of simulation time 0 [s since the epoch]; < 0: the wall time now.
        name: the node's name, for messages.
        clock: monotonic wall clock [s].

    Raises:
        SimConfigError: a setting that cannot work (the message names the parameter).
    """

    def __init__(self, config, effort_unit='torque', wrench_frame='', true_parameters_file='',
                 publish_rate_hz=50.0, real_time_factor=1.0, start_time_sec=-1.0,
                 name='youbot_sim', clock=time.monotonic):
        if effort_unit not in EFFORT_UNITS:
            raise SimConfigError(f"parameter {_unit_problem(effort_unit)}")
        try:
            self.arm = arm = SimulatedArm(config)
        except SimInputError as exc:
            raise SimConfigError(f'parameter initial_positions: {exc}') from exc
        self.root_frame, self.tool_frame = root_frame(arm), arm.model.tool_frame
        self.wrench_frame = wrench_frame or self.tool_frame
        check_wrench_frame(arm, self.wrench_frame)
        self.effort_unit, self.true_parameters_file = effort_unit, true_parameters_file
        self.name, self.clock = name, clock
        self.calibration_rad = _calibration_pose(arm, config.calibration_positions_rad)
        self.layout = JointStateLayout(arm.joint_names, YOUBOT_GRIPPER_JOINTS, config, arm.t)
        self.powered = PoweredArm(arm)
        self.powered.motors_on = bool(config.motors_on_at_start)
        self.realtime = RealTimeClock(self.powered, 1.0 / float(publish_rate_hz),
                                      real_time_factor, start_time_sec)
        self.accepted = self.rejected = 0
        self.last_command_sim_time_s = None
        self.last_problem = None    # (wall time [s], text)
        self._last_setpoint = None  # (arrival sim time [s], target sim time [s], positions)

    @property
    def motors_on(self):
        """The arm's motors are switched on (else it does not move and reports zero effort)."""
        return self.powered.motors_on

    def joint_state(self, m):
        """Return what the driver publishes of a ``Measurement``.

        The arm joints, then (``SimConfig.gripper``) the gripper fingers, still, with zero effort
        (layout: ``driver_twin.JointStateLayout``). With the motors off the effort is zero.

        Returns:
            ``(names, position [rad], velocity [rad/s], effort)`` lists; effort in Nm or, with
            ``effort_unit`` 'current', in A.
        """
        effort = m.effort_nm if self.effort_unit == 'torque' else m.current_a
        if not self.motors_on:
            effort = np.zeros_like(effort)
        return self.layout.arrays(m.t_s, m.position_rad.tolist(), m.velocity_rad_s.tolist(),
                                  effort.tolist())

    def run(self, publish, before_step=None):
        """``RealTimeClock.run``; returns (and records) the problem when the simulation lags.

        Args:
            publish: called with each published ``Measurement``.
            before_step: called before each physics step (take the commands queued meanwhile).

        Returns:
            None, or the problem text.
        """
        problem = self.realtime.run(publish, before_step)
        if problem is not None:
            self.problem(problem)
        return problem

    def problem(self, text):
        """Record an input problem; it shows in the status for ``PROBLEM_HOLD_S``."""
        self.last_problem = (self.clock(), text)

    def _rejected(self, text):
        self.problem(text)
        return False, text

    def command(self, joint_names, points, start_stamp_ns=0):
        """Follow a trajectory (see ``SimulatedArm.set_trajectory``).

        It starts at the stamp ``start_stamp_ns`` [ns] (0: now).

        Returns:
            ``(accepted, text)``: what was done, or why the trajectory was rejected.
        """
        if not self.motors_on:
            self.rejected += 1
            return self._rejected(_motors_off(f'trajectory on {self.name}'))
        start = None if start_stamp_ns == 0 else (start_stamp_ns - self.realtime.start_ns) * 1e-9
        try:
            with self.powered.lock:
                plan = self.arm.set_trajectory(list(joint_names), points, start)
        except TrajectoryError as exc:
            self.rejected += 1
            return self._rejected(f'rejected trajectory on {self.name}: {exc}; the arm keeps its '
                                  'current command')
        self.accepted += 1
        self.last_command_sim_time_s = self.arm.t
        return True, (f'trajectory accepted: {len(points)} point(s) for {", ".join(joint_names)}, '
                      f'{plan.duration_s:.3f} s')

    def position_setpoint(self, joint_uris, units, values, stamps_ns=()):
        """Follow one position set point; safe from another thread (see ``_position_setpoint``).

        Returns:
            ``(accepted, text)``.
        """
        with self.powered.lock:
            return self._position_setpoint(joint_uris, units, values, stamps_ns)

    def _position_setpoint(self, joint_uris, units, values, stamps_ns):
        """Follow one position set point (the youBot driver's brics ``position_command``).

        A joint URI the arm does not have, or a unit other than 'rad', rejects the whole set
        point (nothing moves). The set point is reached at its timestamp when that lies ahead (at
        most ``SETPOINT_MAX_S``), else one set-point interval (between the last two arrivals,
        ``SETPOINT_DEFAULT_S`` for the first) after now; it moves on with the velocity towards it
        from the previous set point, so a stream of set points is followed smoothly.

        Args:
            joint_uris: joint names.
            units: one unit string per joint.
            values: positions, rad.
            stamps_ns: the set points' timestamps, ns (0 or empty: none).

        Returns:
            ``(accepted, text)``.
        """
        arm, where = self.arm, f'position_command on {self.name}'
        if not self.motors_on:
            self.rejected += 1
            return self._rejected(_motors_off(where))
        unknown = [u for u in joint_uris if u not in arm.joint_names]
        if unknown or len(set(joint_uris)) != len(joint_uris):
            self.rejected += 1
            return self._rejected(f'rejected {where}: unknown or repeated joint uri(s) '
                                  f'{unknown or list(joint_uris)}; the arm has '
                                  f'{", ".join(arm.joint_names)}')
        bad = [f'{u} in {unit!r}' for u, unit in zip(joint_uris, units) if unit != POSITION_UNIT]
        if bad:
            self.rejected += 1
            return self._rejected(f"rejected {where}: {', '.join(bad)} (positions are in "
                                  f"'{POSITION_UNIT}')")
        now, prev = arm.t, self._last_setpoint
        interval = SETPOINT_DEFAULT_S if prev is None else min(
            max(now - prev[0], SETPOINT_MIN_S), SETPOINT_MAX_S)
        stamp = max(stamps_ns, default=0)
        target = (stamp - self.realtime.start_ns) * 1e-9 if stamp else now + interval
        if not SETPOINT_MIN_S <= target - now <= SETPOINT_MAX_S:
            target = now + interval
        q = np.asarray(values, dtype=float)
        qd = np.zeros(len(q))
        # a set point of the same stream (the previous one's time just before): move on through
        # it with the velocity between the two, within the joints' limits
        if prev is not None and list(prev[2][0]) == list(joint_uris) and \
                SETPOINT_MIN_S <= target - prev[1] <= SETPOINT_MAX_S:
            idx = [arm.joint_names.index(u) for u in joint_uris]
            limit = np.asarray(arm.velocity_limit)[idx]
            qd = np.clip((q - prev[2][1]) / (target - prev[1]), -limit, limit)
        try:
            arm.set_trajectory(list(joint_uris), [(target - now, q, qd, [])])
        except TrajectoryError as exc:
            self.rejected += 1
            return self._rejected(f'rejected {where}: {exc}; the arm keeps its current command')
        self._last_setpoint = (now, target, (list(joint_uris), q))
        self.accepted += 1
        self.last_command_sim_time_s = now
        return True, f'set point for {len(q)} joint(s) reached at sim time {target:.3f} s'

    def hold(self):
        """Stop following the command: hold the current set point. Returns ``(True, text)``."""
        with self.powered.lock:
            self.arm.cancel_trajectory()
        return True, f'holding at sim time {self.arm.t:.3f} s'

    def switch_motors(self, on):
        """Switch the arm's motors on or off (the real driver's switchOnMotors / switchOffMotors).

        Off: the running command ends, the arm stays where it is, the effort is zero and every
        command is refused. On: the arm holds the position it has (its new set point).

        Returns:
            ``(True, text)``.
        """
        arm = self.arm
        if bool(on) == self.motors_on:
            return True, f'the arm motors are already {"on" if on else "off"}'
        with self.powered.lock:          # at rest where it is: no command, set point = position
            arm.reset(arm.q, arm.t)
            self.powered.motors_on = bool(on)
        self._last_setpoint = None
        if on:
            return True, f'arm motors switched on at sim time {arm.t:.3f} s: holding its position'
        return True, (f'arm motors switched off at sim time {arm.t:.3f} s: commands are refused '
                      'until switchOnMotors')

    def calibrate(self):
        """Move the arm to the calibrated pose (the real driver's calibrate service).

        The move is a cubic whose fastest joint peaks at ``SimConfig.calibration_speed_rad_s``.

        Returns:
            ``(accepted, text)``: refused with the motors off.
        """
        if not self.motors_on:
            self.rejected += 1
            return self._rejected(_motors_off(f'calibrate on {self.name}'))
        arm, cfg = self.arm, self.arm.config
        distance = float(np.max(np.abs(self.calibration_rad - arm.q_set)))
        # a cubic with zero end velocities peaks at 1.5 x its mean speed
        duration = max(1.5 * distance / cfg.calibration_speed_rad_s, 0.1)
        with self.powered.lock:
            arm.move_to(self.calibration_rad, duration)
        self._last_setpoint = None
        self.accepted += 1
        self.last_command_sim_time_s = arm.t
        return True, (f'calibrating: moving to the calibrated pose '
                      f'{np.round(self.calibration_rad, 4).tolist()} rad in {duration:.2f} s')

    def apply_wrench(self, frame_id, wrench):
        """Apply an external wrench given in ``frame_id`` (see ``wrench_target``).

        Returns:
            ``(applied, text)``.
        """
        try:
            frame, axes = wrench_target(self.arm, frame_id, wrench, self.wrench_frame)
            self.arm.apply_wrench(wrench, frame, axes)
        except SimInputError as exc:
            return self._rejected(f'rejected sim/wrench: {exc}')
        return True, f'sim/wrench: {wrench} at {frame} ({axes} axes)'

    def attach_payload(self, mass_kg, com_m, inertia):
        """Attach a payload (see ``SimulatedArm.attach_payload``). Returns ``(attached, text)``."""
        try:
            self.arm.attach_payload(mass_kg, com_m, inertia)
        except SimInputError as exc:
            return self._rejected(f'rejected sim/payload: {exc}')
        return True, f'sim/payload: {mass_kg:g} kg at {com_m} (tool frame)'

    def clear_wrench(self):
        """Remove the external wrench. Returns ``(True, text)``."""
        self.arm.clear_wrench()
        return True, 'external wrench cleared'

    def clear_payload(self):
        """Detach the payload. Returns ``(True, text)``."""
        self.arm.detach_payload()
        return True, 'payload detached'

    def write_true_file(self):
        """Write the true parameters to ``true_parameters_file``; return the path.

        Raises OSError when it cannot be written.
        """
        return self.arm.write_true_parameters(self.true_parameters_file)

    def write_true_parameters(self):
        """Write the true parameters to ``true_parameters_file``.

        Returns:
            ``(written, text)``: the path written, or why nothing was.
        """
        path = self.true_parameters_file
        if not path:
            return False, 'parameter true_parameters_file is empty: set it to the path to write'
        try:
            return True, str(self.write_true_file())
        except OSError as exc:
            return False, f'cannot write {path}: {exc}'

    def set_parameters(self, new):
        """Apply run-time parameter changes ``{name: value}``.

        Returns:
            None, or why the change is refused (nothing is then changed).
        """
        unit = new.get('effort_unit', self.effort_unit)
        if unit not in EFFORT_UNITS:
            return _unit_problem(unit)
        if 'real_time_factor' in new or 'publish_rate_hz' in new:
            rate = new.get('publish_rate_hz')
            self.realtime.set_rates(None if rate is None else 1.0 / float(rate),
                                    new.get('real_time_factor'))
        self.effort_unit = unit
        if 'current_noise_a' in new:
            self.arm.drives.current_noise_a = float(new['current_noise_a'])
        self.true_parameters_file = new.get('true_parameters_file', self.true_parameters_file)
        return None

    def status(self):
        """Return the diagnostics status of the simulation.

        Returns:
            ``(level, message, values)``: ``'ok'`` or ``'warn'``, one line, ``{key: text}``.
        """
        arm, realtime = self.arm, self.realtime
        realtime.measure_factor()
        level, msg = 'ok', 'running'
        if realtime.slow:
            level, msg = 'warn', (f'achieved real-time factor {realtime.achieved_factor:.2f} is '
                                  f'below the requested {realtime.real_time_factor:g}')
        last = self.last_problem
        if last is not None and self.clock() - last[0] < PROBLEM_HOLD_S:
            level, msg = 'warn', last[1]
        if not self.motors_on:
            level, msg = 'warn', 'the arm motors are switched off'
        values = {
            'sim_time_s': f'{arm.t:.3f}',
            'real_time_factor_requested': f'{realtime.real_time_factor:g}',
            'real_time_factor_achieved': f'{realtime.achieved_factor:.3f}',
            # simulation time not caught up after the process paused (it resumed instead), s
            'dropped_backlog_s': f'{realtime.dropped_backlog_s:.3f}',
            'motors_on': str(self.motors_on),
            'trajectory_active': str(arm.trajectory_active),
            'joints_at_rest': ','.join(n for n, s in zip(arm.joint_names, arm.dir == 0) if s),
            'wrench_applied': str(bool(np.any(arm.tau_ext != 0))),
            'payload_kg': '0' if arm.payload is None else f'{arm.payload[0]:g}',
            'accepted_commands': str(self.accepted),
            'rejected_commands': str(self.rejected),
            'last_problem': '' if last is None else last[1],
        }
        return level, msg, values


def _motors_off(what):
    return f'rejected {what}: the arm motors are switched off (call switchOnMotors first)'


def _calibration_pose(arm, values):
    """Return the calibrated pose [rad]; raise SimConfigError unless n values in limits."""
    q = np.asarray(values, dtype=float)
    if q.shape != (arm.n,) or not np.all(np.isfinite(q)):
        raise SimConfigError(f'parameter calibration_positions must be {arm.n} finite values, '
                             f'got {list(values)}')
    out = np.flatnonzero((q < arm.lower) | (q > arm.upper))
    if out.size:
        j = int(out[0])
        raise SimConfigError(f'parameter calibration_positions: {arm.joint_names[j]} = {q[j]:g} '
                             f'rad is outside [{arm.lower[j]:g}, {arm.upper[j]:g}]')
    return q


def _unit_problem(unit):
    return f"effort_unit must be 'torque' or 'current', got {unit!r}"


__all__ = ['SimDriver', 'check_wrench_frame', 'root_frame', 'wrench_target']
