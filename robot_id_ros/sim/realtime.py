# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Running the simulated arm against a wall clock (ROS-free).

``RealTimeClock`` ties simulation time to a steady wall clock scaled by the real-time factor
(simulation seconds per wall second) and hands out evenly spaced publish instants in simulation
time; a change of either rate re-anchors it. Behind the wall clock, it catches up at most
``MAX_CATCH_UP_S`` of wall time (a timer's jitter) and drops the rest of the backlog: after a pause
of the process (an OS preemption, a GC pass) simulation time resumes where it stopped instead of
racing. A race of a whole pause puts the simulated seconds of the pause into a few milliseconds of
wall time, faster than any command stream can follow; a set point stream sent 0.4 s ahead then
falls behind it and the arm waits at its last set point, the shape of a demo excitation run's
stall through brics (still 0.3 s, then a jump: 0.26 rad; inferred, not caught again). A real
driver never races either. Stamps are integer nanoseconds: ``start_ns`` plus the simulation time.
"""
from __future__ import annotations

import time

CATCH_UP_BUDGET_S = 0.05    # wall time one run() may spend before returning (stay responsive)
# behind by more than max(this, 2 publish periods) x factor: the rest of the backlog is dropped
# (wall s; 0.05 s at factor 4 is 0.2 s of simulation time, half the demo's brics lead)
MAX_CATCH_UP_S = 0.05
MAX_LAG_S = 1.0             # a backlog above max(this, 2 publish periods) x factor is reported
TIMER_PERIOD_BOUNDS_S = (0.001, 0.02)


class RealTimeClock:
    """Simulation time paced by a wall clock.

    Args:
        arm: the ``SimulatedArm`` (its ``t`` [s] is the simulation time).
        publish_period_s: time between published samples, in simulation time [s].
        real_time_factor: simulation seconds per wall second.
        start_time_s: stamp of simulation time 0 [s since the epoch]; < 0: the wall time now.
        clock: monotonic wall clock [s].
    """

    def __init__(self, arm, publish_period_s, real_time_factor, start_time_s=-1.0,
                 clock=time.monotonic):
        self.arm, self.clock = arm, clock
        self.publish_period_s = float(publish_period_s)
        self.real_time_factor = float(real_time_factor)
        start = float(start_time_s)
        self.start_ns = int(time.time() * 1e9) if start < 0 else int(round(start * 1e9))
        self.anchor()
        self._rate_wall, self._rate_sim = clock(), arm.t
        self.achieved_factor = float('nan')
        self.dropped_backlog_s = 0.0     # simulation time not caught up after pauses, s

    def anchor(self):
        """Tie simulation time to wall time from now on (after a rate change)."""
        self._wall0 = self.clock()
        self._sim0 = self.arm.t
        self._pub_t0 = self.arm.t
        self._pub_k = 1

    def set_rates(self, publish_period_s=None, real_time_factor=None):
        """Change the publish period [s] and/or the real-time factor, then re-anchor."""
        if publish_period_s is not None:
            self.publish_period_s = float(publish_period_s)
        if real_time_factor is not None:
            self.real_time_factor = float(real_time_factor)
        self.anchor()

    @property
    def timer_period_s(self) -> float:
        """How often (wall time [s]) to call ``run``: a publish period in wall time, bounded."""
        lo, hi = TIMER_PERIOD_BOUNDS_S
        return min(max(self.publish_period_s / self.real_time_factor, lo), hi)

    def run(self, publish, before_step=None):
        """Advance the arm to each publish instant that is due and call ``publish(measurement)``.

        ``before_step()``, when given, is called before each step (the commands that arrived
        while the previous steps ran are followed from the next step on, not after the catch-up).

        Returns:
            None, or a problem text when the simulation fell more than ``MAX_LAG_S`` behind the
            requested factor (the backlog beyond ``MAX_CATCH_UP_S`` is dropped either way).
        """
        arm, period, factor = self.arm, self.publish_period_s, self.real_time_factor
        wall = self.clock()
        target = self._sim0 + (wall - self._wall0) * factor
        lag, problem = target - arm.t, None
        allowed = max(MAX_CATCH_UP_S, 2 * period) * factor
        if lag > allowed:
            # move the wall anchor on (the publish grid in simulation time stays)
            self._wall0 += (lag - allowed) / factor
            self.dropped_backlog_s += lag - allowed
            target = arm.t + allowed
            if lag > max(MAX_LAG_S, 2 * period) * factor:
                problem = (f'simulation fell {lag:.2f} s behind the requested real-time factor '
                           f'{factor:g}; {lag - allowed:.2f} s of it dropped')
        deadline = wall + CATCH_UP_BUDGET_S
        while True:
            t_pub = self._pub_t0 + self._pub_k * period
            if t_pub > target + 1e-12:
                break
            if before_step is not None:
                before_step()
            arm.advance_to(t_pub)
            publish(arm.measure())
            self._pub_k += 1
            if self.clock() > deadline:
                break
        return problem

    def stamp_ns(self, t_s) -> int:
        """Return the stamp [ns] of simulation time ``t_s`` [s]."""
        return self.start_ns + int(round(t_s * 1e9))

    def measure_factor(self) -> float:
        """Return the real-time factor achieved since the last call (NaN before a wall tick)."""
        wall = self.clock()
        if wall > self._rate_wall:
            self.achieved_factor = (self.arm.t - self._rate_sim) / (wall - self._rate_wall)
        self._rate_wall, self._rate_sim = wall, self.arm.t
        return self.achieved_factor

    @property
    def slow(self) -> bool:
        """The achieved factor is below 90 % of the requested one (False before it is known)."""
        return self.achieved_factor < 0.9 * self.real_time_factor
