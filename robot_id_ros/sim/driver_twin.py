# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What makes the simulated driver behave like the real youBot driver (ROS-free).

- ``JointStateLayout``: the joint state message's layout, as ``SimConfig`` asks: with the gripper,
  the arm joints then the two fingers (velocity and effort 0; positions read at
  ``finger_read_rate_hz`` and held between reads, names '' before the first read, as the real
  driver fills them); without, the arm joints only, and with ``effort_length_quirk`` an effort
  array still 7 long (the real driver resizes effort for the fingers whether or not there is a
  gripper).
- ``PoweredArm``: the arm as the real-time clock advances it. With the motors on the physics runs;
  with them off the arm is held where it is (no motion; the driver reports zero effort) while
  the simulation time goes on. Its ``lock`` is held while the physics runs one publish
  period: a command handled on another thread changes the arm between.
"""
from __future__ import annotations

import threading

FINGER_POSITION_M = 0.0     # the simulated gripper stays closed


class JointStateLayout:
    """The names and arrays of a published joint state (see the module doc).

    Args:
        arm_joint_names: the arm's joints, base to tip.
        finger_names: the gripper fingers' joint names.
        config: the ``SimConfig`` (``gripper``, ``effort_length_quirk``,
            ``finger_read_rate_hz``).
        t0_s: simulation time at start [s]; the first finger read is one read period later.
    """

    def __init__(self, arm_joint_names, finger_names, config, t0_s=0.0):
        self.arm_names = list(arm_joint_names)
        self.finger_names = list(finger_names)
        self.gripper = bool(config.gripper)
        self.effort_quirk = bool(config.effort_length_quirk) and not self.gripper
        rate = float(config.finger_read_rate_hz)
        self.read_period_s = 1.0 / rate if rate > 0 else 0.0
        self._last_read_s = float(t0_s)
        fresh = self.read_period_s == 0.0
        self._fingers = (list(self.finger_names) if fresh else [''] * len(self.finger_names),
                         [FINGER_POSITION_M] * len(self.finger_names))
        self.finger_reads = 0

    def _read_fingers(self, t_s):
        """Return the finger names and positions at ``t_s`` [s] (read again after a period)."""
        if self.read_period_s == 0.0 or t_s - self._last_read_s > self.read_period_s - 1e-9:
            self._fingers = (list(self.finger_names),
                             [FINGER_POSITION_M] * len(self.finger_names))
            self._last_read_s = t_s
            self.finger_reads += 1
        return self._fingers

    def arrays(self, t_s, position_rad, velocity_rad_s, effort):
        """Return ``(names, position, velocity, effort)`` lists of one joint state.

        Args:
            t_s: simulation time of the sample [s].
            position_rad: arm joint positions [rad].
            velocity_rad_s: arm joint velocities [rad/s].
            effort: arm joint efforts (Nm or A).
        """
        q, qd, e = list(position_rad), list(velocity_rad_s), list(effort)
        zeros = [0.0] * len(self.finger_names)
        if self.gripper:
            names, positions = self._read_fingers(t_s)
            return self.arm_names + names, q + positions, qd + zeros, e + zeros
        return list(self.arm_names), q, qd, e + (zeros if self.effort_quirk else [])


class PoweredArm:
    """The arm as ``RealTimeClock`` drives it: physics with the motors on, held still when off.

    Args:
        arm: the ``SimulatedArm``.
    """

    def __init__(self, arm):
        self.arm = arm
        self.motors_on = True
        self.lock = threading.RLock()

    @property
    def t(self):
        """Simulation time [s]."""
        return self.arm.t

    def advance_to(self, t_s):
        """Run the physics to ``t_s`` [s]; with the motors off keep the arm at rest where it is."""
        with self.lock:
            if self.motors_on:
                self.arm.advance_to(t_s)
            else:
                self.arm.reset(self.arm.q, t_s)

    def measure(self):
        """Return the arm's ``Measurement``."""
        return self.arm.measure()


__all__ = ['JointStateLayout', 'PoweredArm']
