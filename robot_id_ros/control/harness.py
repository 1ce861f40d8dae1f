# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Closed loop without ROS: simulated arm -> estimator -> force controller -> arm (``ClosedLoop``).

At each sample (``rate_hz``, the rate the estimator runs at) the arm's physics advances to the
sample time, the driver's measurement goes through ``WrenchEstimator.update``, the estimate
through ``ForceController.step``, and the set point is streamed to the arm as the youBot's
position set points are (``SimDriver.position_setpoint``: a one-point trajectory reached one
sample later, with its velocity). Deterministic for a given arm seed. A test or a benchmark
scripts the hand (``SimulatedArm.apply_wrench``), stale estimates and collision flags through
the ``Script`` it passes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from robot_id_ros.control.admittance import ForceInput
from robot_id_ros.control.controller import ForceController


@dataclass
class Script:
    """What happens to the loop at each sample; every callable gets the sim time, s.

    Attributes:
        hand: returns the hand's wrench (6,) at the tool, base axes (None: no hand).
        estimate_lost: returns True while estimates do not reach the controller (stale).
        collision: returns True to raise the estimator's collision flag.
        at: {time s: callable(loop)} run once when the time is reached (enable, mode, ...).
    """

    hand: Callable | None = None
    estimate_lost: Callable | None = None
    collision: Callable | None = None
    at: dict = field(default_factory=dict)


@dataclass
class Trace:
    """Per sample records of a run (arrays after ``ClosedLoop.run``)."""

    t_s: list = field(default_factory=list)
    tool_m: list = field(default_factory=list)            # true tool position, base frame
    tool_velocity_m_s: list = field(default_factory=list)  # true, base frame
    force_est_n: list = field(default_factory=list)       # estimate (force on the tool)
    sigma_n: list = field(default_factory=list)
    force_true_n: list = field(default_factory=list)      # hand + surface, on the tool (truth)
    contact_n: list = field(default_factory=list)         # the surface's force, when there is one
    command_m_s: list = field(default_factory=list)       # the controller's tool velocity
    state: list = field(default_factory=list)
    reason: list = field(default_factory=list)

    def arrays(self):
        """Return the records as numpy arrays by name (the state strings as lists)."""
        return {k: (v if k in ('state', 'reason') else np.asarray(v))
                for k, v in self.__dict__.items()}


class ClosedLoop:
    """The controller in the loop with the simulated arm and the estimator.

    Args:
        arm: ``robot_id_ros.sim.youbot_arm.SimulatedArm``.
        estimator: ``robot_id_ros.estimate.WrenchEstimator`` (frame 'base').
        controller: ``ForceController``.
        rate_hz: sample rate of the joint states, the estimator and the controller, Hz.
    """

    def __init__(self, arm, estimator, controller: ForceController, rate_hz: float = 200.0):
        self.arm, self.estimator, self.controller = arm, estimator, controller
        self.period_s = 1.0 / float(rate_hz)
        self.last_input = None
        self.last_result = None

    def settle(self, duration_s: float = 1.0, tare: bool = True):
        """Run the estimator with the controller disabled for ``duration_s``; then tare it."""
        self.run(duration_s)
        if tare:
            self.estimator.tare()

    def tool_state(self):
        """Return the true tool position and linear velocity (base frame), m and m/s."""
        arm = self.arm
        pos = arm.model.tool_placement(arm.q).translation.copy()
        vel = arm.model.tool_jacobian(arm.q, 'base')[:3] @ arm.qd
        return pos, vel

    def run(self, duration_s: float, script: Script | None = None) -> dict:
        """Run the loop for ``duration_s``; returns ``Trace.arrays()``."""
        script = script or Script()
        trace, arm = Trace(), self.arm
        pending = dict(sorted(script.at.items()))
        t_end = arm.t + duration_s
        while arm.t < t_end - 1e-9:
            arm.advance_to(arm.t + self.period_s)
            t = arm.t
            for when in [w for w in pending if w <= t + 1e-9]:
                pending.pop(when)(self)
            self._hand(script, t)
            m = arm.measure()
            inp = self._estimate(m, script, t)
            cmd = self.controller.step(t, m.position_rad, inp)
            if cmd.send:
                arm.set_trajectory(arm.joint_names,
                                   [(max(cmd.t_s - t, arm.dt), cmd.q_rad, cmd.qd_rad_s, [])])
            self._record(trace, m, inp, cmd)
        return trace.arrays()

    def _hand(self, script, t):
        if script.hand is None:
            return
        w = script.hand(t)
        if w is None:
            self.arm.clear_wrench()
        else:
            self.arm.apply_wrench(np.asarray(w, dtype=float))

    def _estimate(self, m, script, t):
        res = self.estimator.update(int(round(m.t_s * 1e9)), m.position_rad, m.velocity_rad_s,
                                    m.effort_nm)
        self.last_result = res
        if script.estimate_lost is not None and script.estimate_lost(t):
            return self.last_input       # the controller keeps the last one it got
        inp = ForceInput.from_estimate(res, t)
        inp.collision = ((inp.collision and self.controller.config.estimator_collision) or
                         (script.collision is not None and bool(script.collision(t))))
        self.last_input = inp
        return inp

    def _record(self, trace, m, inp, cmd):
        pos, vel = self.tool_state()
        contact = self.contact_force_n()
        trace.t_s.append(m.t_s)
        trace.tool_m.append(pos)
        trace.tool_velocity_m_s.append(vel)
        trace.force_est_n.append(inp.force_n if inp is not None else np.full(3, np.nan))
        trace.sigma_n.append(inp.sigma_n if inp is not None else np.full(3, np.nan))
        trace.force_true_n.append(m.true_wrench_base[:3])
        trace.contact_n.append(contact)
        trace.command_m_s.append(cmd.tool_velocity_m_s)
        trace.state.append(cmd.state)
        trace.reason.append(cmd.reason)

    def contact_force_n(self) -> np.ndarray:
        """Return the force (3,) the simulated surface applies to the tool (zeros: none)."""
        return np.asarray(self.arm.contact_force_n(), dtype=float)[:3]
