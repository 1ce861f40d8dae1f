# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo director's script of known forces, planned ROS-free.

Rest poses with forces the drives can hold, then the held-out excitation trajectory with a
contact-free stretch followed by force steps; the ``Director`` (demo/director.py) plays it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.model.robot import RobotModel

REST_FORCES_N = [(5, 0, 0), (0, 0, -15), (0, 5, 0), (0, 0, 15), (-15, 0, 0), (0, -5, 0),
                 (15, 0, 0), (0, 15, 0)]
MOTION_FORCES_N = [(5, 0, 0), (0, 0, -5), (0, 5, 0), (0, 0, 15), (-5, 0, 0), (0, -15, 0),
                   (15, 0, 0)]


@dataclass
class Action:
    """One step of a ForceScript."""

    # 'move', 'trajectory', 'wait', 'at_trajectory_time', 'tare', 'clear_tare', 'force',
    # 'clear', 'phase_start', 'phase_end'; 'at_trajectory_time' waits until the last
    # trajectory's own time (s from its start) reaches ``value``, its duration_s is the planned
    # wait (for the script's length)
    kind: str
    duration_s: float = 0.0
    value: object = None


@dataclass
class ForceScript:
    """The director's actions, in order."""

    actions: list = field(default_factory=list)

    @classmethod
    def default(cls, robot: RobotModel, trajectory: rec.FourierTrajectory, quick=False,
                hold_s=2.0, gap_s=1.0, seed=0):
        """Plan the default script: two rest poses, then force steps along the trajectory.

        Two rest poses where the arm is far from singular (the force is observable) with forces
        that keep every joint within 80 % of its torque limit; then the trajectory: one
        contact-free period, then force steps placed where the drives can carry them along the
        path.
        """
        acts = []
        n_rest = 3 if quick else 4
        poses = rest_poses(robot, 2, np.random.default_rng(seed))
        for i, q in enumerate(poses):
            forces = feasible_forces(robot, [q], REST_FORCES_N, 0.8)[:n_rest]
            acts += [Action('move', 4.0, q), Action('wait', 2.0), Action('tare'),
                     Action('wait', 0.5),
                     Action('phase_start', value=('rest', f'rest pose {i + 1}'))]
            for f in forces:
                acts += [Action('force', hold_s, np.array(f, float)), Action('clear', gap_s)]
            acts.append(Action('phase_end'))
        T = trajectory.period_s
        periods = 2 if quick else 3
        q_start = trajectory.evaluate(np.array([0.0]))[0][0]
        # no tare before motion: a bias taken at rest holds stiction friction that motion removes
        acts += [Action('move', 4.0, q_start), Action('wait', 1.5), Action('clear_tare'),
                 Action('wait', 0.3), Action('trajectory', 0.0, (trajectory, periods * T)),
                 Action('phase_start', value=('motion_free', 'contact-free motion')),
                 Action('at_trajectory_time', T, T), Action('phase_end'),
                 Action('phase_start', value=('motion', 'motion with forces'))]
        # each force on and off at its planned trajectory time, not after the waits before it: a
        # service call's latency (seconds of sim time on a loaded machine) would otherwise move
        # every later force to another point of the path than the one planned for it
        t = T   # trajectory time now
        plan = motion_force_plan(robot, trajectory, T, periods * T - 0.5, MOTION_FORCES_N, hold_s,
                                 gap_s)
        for t_on, f in plan[:(4 if quick else 8)]:
            acts += [Action('at_trajectory_time', t_on - t, t_on),
                     Action('force', 0.0, np.array(f, float)),
                     Action('at_trajectory_time', hold_s, t_on + hold_s), Action('clear')]
            t = t_on + hold_s
        acts += [Action('at_trajectory_time', max(periods * T - t, 0.0), periods * T),
                 Action('phase_end'), Action('wait', 0.5)]
        return cls(acts)

    def duration_s(self):
        """Sim seconds the script takes (the sum of its actions' durations)."""
        return sum(a.duration_s for a in self.actions)


def rest_poses(robot: RobotModel, count, rng, candidates=400, floor_z_m=0.1):
    """Choose ``count`` rest poses where forces are best observable.

    Poses well inside the limits, tool above the floor, chosen for the largest smallest singular
    value of the force Jacobian (forces best observable), spread apart.
    """
    Q = robot.random_configurations(candidates, rng, 0.3)
    scored = []
    for q in Q:
        if robot.tool_placement(q).translation[2] < floor_z_m:
            continue
        s = np.linalg.svd(robot.tool_jacobian(q, 'base')[:3], compute_uv=False)[-1]
        scored.append((s, q))
    scored.sort(key=lambda x: -x[0])
    out = []
    for s, q in scored:
        if all(np.abs(q - p)[1:4].max() > 0.4 for p in out):
            out.append(q)
        if len(out) == count:
            break
    return out


def feasible_forces(robot: RobotModel, Q, candidates, fraction):
    """Return the candidate forces the drives can hold at every configuration in Q.

    Forces in base axes, at the tool point, whose static joint torques g(q) - J^T F stay within
    ``fraction`` of the torque limits at every configuration in Q.
    """
    out = []
    lim = fraction * robot.limits.effort_nm
    for f in candidates:
        f = np.array(f, float)
        if all(np.all(np.abs(robot.gravity_torque(q) - robot.tool_jacobian(q, 'base')[:3].T @ f)
                      <= lim) for q in Q):
            out.append(tuple(f))
    return out


def motion_force_plan(robot: RobotModel, trajectory: rec.FourierTrajectory, t_from, t_to,
                      candidates, hold_s, gap_s, fraction=0.9, dt=0.05):
    """Plan (onset time, force) steps along the trajectory.

    Each step is held ``hold_s`` where the drives can carry it: |ID(q, qd, qdd) - J^T F| within
    ``fraction`` of the torque limits over the whole hold.
    """
    t = np.arange(t_from, t_to, dt)
    Q, QD, QDD = trajectory.evaluate(t)
    lim = fraction * robot.limits.effort_nm
    tau = np.array([robot.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    JT = np.array([robot.tool_jacobian(q, 'base')[:3].T for q in Q])
    plan, k, c = [], 0, 0
    n_hold = int(round(hold_s / dt))
    while k + n_hold < len(t):
        placed = False
        for i in range(len(candidates)):
            f = np.array(candidates[(c + i) % len(candidates)], float)
            if np.all(np.abs(tau[k:k + n_hold] - JT[k:k + n_hold] @ f) <= lim):
                plan.append((float(t[k]), tuple(f)))
                c += i + 1
                k += n_hold + int(round(gap_s / dt))
                placed = True
                break
        if not placed:
            k += int(round(0.25 / dt))
    return plan


__all__ = ['Action', 'ForceScript', 'feasible_forces', 'motion_force_plan', 'rest_poses']
