# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Safety of the force controller: the reasons to stop, and the limits of a commanded velocity.

Stop reasons: not enabled, no estimate, an estimate that cannot be used (not finite, stale,
stamped ahead of the clock, in another frame: ``input_checks.estimate_problem``), joint states
that cannot be relied on (``input_checks.JointStateCheck``), the estimate's standard deviation
above the bound on an axis the mode uses, a collision (an estimated force above
``collision_force_n``, or the input's collision flag: an external safety signal, or the
estimator's contact flag where ``estimator_collision``), a joint that gave way (farther from its
reference than ``max_joint_deviation_rad``: a push beyond its drive's torque limit moved it), a
time jump, shutdown, a set point that is not finite. The last five latch: motion resumes only
after the controller is enabled again. The others clear themselves; motion then resumes
through the ramp.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.control.input_checks import estimate_problem

LATCHED = ('collision', 'joint gave way', 'time jump', 'shutdown', 'set point not finite')


class SafetyMonitor:
    """Decides each step whether the controller may move.

    Args:
        config: ``ControllerConfig``.
        frame_id: the frame estimates must come in (None: not checked).
    """

    def __init__(self, config, frame_id: str | None = None):
        self.config = config
        self.frame_id = frame_id
        self.latched = None          # a latched reason, cleared by ``clear``
        self._sigma_since = None     # since when the sigma has been above its bound, s

    def clear(self):
        """Forget a latched reason (on enable)."""
        self.latched = None

    def latch(self, reason: str):
        """Latch ``reason`` (one of ``LATCHED``) until ``clear``."""
        if self.latched is None:
            self.latched = reason

    def reason(self, t_s, dt_s, inp, used) -> str | None:
        """Return why the controller must stop now, or None.

        Args:
            t_s: the step's time, s.
            dt_s: time since the previous step, s (None for the first).
            inp: the newest ``ForceInput`` or None.
            used: (3,) mask of the force axes the mode reads.
        """
        c = self.config
        if dt_s is not None and (dt_s < 0.0 or dt_s > c.time_jump_s):
            self.latch('time jump')
        problem = None if inp is None else estimate_problem(
            inp, t_s, c.stale_timeout_s, c.max_stamp_ahead_s, self.frame_id)
        if problem in (None, 'stale estimate') and inp is not None and (
                inp.collision or np.linalg.norm(inp.force_n) > c.collision_force_n):
            self.latch('collision')
        if self.latched is not None:
            return self.latched
        if inp is None:
            return 'no estimate'
        if problem is not None:
            return problem
        if np.any(used) and float(np.max(inp.sigma_n[used])) > c.sigma_limit_n:
            # a single sample's spike (the lag variance at a force step) is not a reason; a
            # sigma above the bound for as long as an estimate may be stale is
            self._sigma_since = t_s if self._sigma_since is None else self._sigma_since
            if t_s - self._sigma_since >= c.stale_timeout_s:
                return 'sigma above bound'
        else:
            self._sigma_since = None
        return None


def limit_velocity(v_m_s, v_prev_m_s, dt_s, config) -> np.ndarray:
    """Return ``v_m_s`` within the speed limit and, from ``v_prev_m_s``, the acceleration limit.

    Args:
        v_m_s: (3,) requested tool velocity, m/s.
        v_prev_m_s: (3,) the previous commanded tool velocity, m/s.
        dt_s: the step, s.
        config: ``ControllerConfig``.
    """
    v = np.asarray(v_m_s, dtype=float)
    speed = np.linalg.norm(v)
    if speed > config.max_speed_m_s:
        v = v * (config.max_speed_m_s / speed)
    dv = v - v_prev_m_s
    step = config.max_acceleration_m_s2 * dt_s
    size = np.linalg.norm(dv)
    if size > step:
        v = v_prev_m_s + dv * (step / size)
    return v


def keep_in_box(position_m, v_m_s, dt_s, lower_m, upper_m) -> np.ndarray:
    """Return ``v_m_s`` with the components that would leave the box ``[lower, upper]`` zeroed.

    A tool already outside may move back in, never further out.
    """
    v = np.array(v_m_s, dtype=float)
    nxt = np.asarray(position_m) + v * dt_s
    out = ((nxt < lower_m) & (v < 0)) | ((nxt > upper_m) & (v > 0))
    v[out] = 0.0
    return v


def limit_joint_speed(qd_rad_s, max_rad_s, secondary_rad_s=None) -> np.ndarray:
    """Return ``qd_rad_s`` within ``max_rad_s`` on every joint, the secondary task given up first.

    ``secondary_rad_s`` is the part of ``qd_rad_s`` that serves a task of lower priority (the
    tool orientation, in the null space of the tool velocity): it is scaled down first, as far
    as needed, so that the tool velocity keeps its size; only if the rest alone is too fast is
    the whole scaled down (direction kept).

    Args:
        qd_rad_s: (n,) joint velocity, rad/s.
        max_rad_s: the largest joint speed, rad/s.
        secondary_rad_s: (n,) the part of ``qd_rad_s`` of lower priority (None: none).

    Returns:
        (n,) joint velocity, rad/s.
    """
    qd = np.asarray(qd_rad_s, dtype=float)
    peak = float(np.max(np.abs(qd))) if qd.size else 0.0
    if peak <= max_rad_s:
        return qd
    if secondary_rad_s is not None:
        base = qd - np.asarray(secondary_rad_s, dtype=float)
        if float(np.max(np.abs(base))) <= max_rad_s:
            # the largest a in [0, 1] with |base + a sec| <= max on every joint (a = 0 holds)
            sec = qd - base
            moving = np.abs(sec) > 0.0
            room = max_rad_s - np.sign(sec[moving]) * base[moving]
            a = min(1.0, float(np.min(room / np.abs(sec[moving]))))
            return base + max(a, 0.0) * sec
        qd = base
        peak = float(np.max(np.abs(qd)))
    return qd * (max_rad_s / peak) if peak > max_rad_s else qd
