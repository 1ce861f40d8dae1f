# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The friction-drift scenario: a cold arm warmed up by 30 minutes of work (ROS-free).

The simulated youBot with ``friction_drift`` on (``scenario_sim_config``) starts at the ambient
temperature and is worked by ``warm_up_scenario``: blocks of mixed motion (smooth moves through
random poses, every other block with a force step on the tool while moving), each followed by a
rest pose with a contact-free hold and a force step held at rest; the first and the last rest
carry a constant 10 N push held for 10 s. The scenario is a plan: one trajectory for the drives
and the hand's force steps over time, with the phases that say what each stretch is, so that the
simulator core plays it as fast as it computes (``play``) and a benchmark scores each phase.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from robot_id_ros.demo.force_script import feasible_forces, rest_poses
from robot_id_ros.demo.results import ForceTimeline, Phase
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.sim.config import SimConfig

SCENARIO_NAME = 'friction_drift'
PUSH_LABEL = 'constant push'
WARM_UP_S = 1800.0
PUSH_N = 10.0                 # the constant push held at the first and the last rest
PUSH_HOLD_S = 10.0
MOTION_S = 40.0               # motion per block
REST_S = 4.0                  # contact-free hold at each rest pose, before its force step
FORCE_HOLD_S = 4.0            # a force step at rest
MOTION_FORCE_HOLD_S = 3.0     # a force step while moving
AFTER_FORCE_S = 3.0           # at rest after the force is released
PEAK_SPEED_RAD_S = 0.9        # fastest joint speed of a move
MARGIN_RAD = 0.3              # random poses keep this far from the joint limits
FLOOR_Z_M = 0.1               # the tool stays above this height at the waypoints
# candidate forces (N, base axes) at rest and in motion; those the drives can hold are used
REST_FORCES_N = [(10, 0, 0), (0, 0, -10), (0, 10, 0), (-10, 0, 0), (0, 0, 10), (0, -10, 0),
                 (5, 0, 0), (0, 0, -5), (0, 5, 0)]
MOTION_FORCES_N = [(5, 0, 0), (0, 0, -5), (0, 5, 0), (-5, 0, 0), (0, 0, 5), (0, -5, 0)]


@dataclass
class WarmUpScenario:
    """The plan: the drives' trajectory, the hand's force steps and the phases.

    Attributes:
        joint_names: the arm's joints, the order of the waypoints.
        waypoints: (time_from_start_s, positions rad, velocities rad/s) of one trajectory.
        force_steps: (t_s, wrench (6,) N and Nm, base axes at the tool) held until the next.
        phases: what each stretch is, in time order (``demo.results.Phase``, s from the start):
            kind 'motion_free' / 'rest_free' contact-free, 'motion' / 'rest' with a force held
            (label ``PUSH_LABEL`` for the constant push).
        duration_s: its length, s.
    """

    joint_names: list
    waypoints: list = field(default_factory=list)
    force_steps: list = field(default_factory=list)
    phases: list = field(default_factory=list)
    duration_s: float = 0.0

    def timeline(self, t0_s=0.0) -> ForceTimeline:
        """Return the applied force (base axes, N) over time, the start at ``t0_s``."""
        return ForceTimeline(np.array([t0_s + t for t, _ in self.force_steps]),
                             np.array([w[:3] for _, w in self.force_steps]).reshape(-1, 3))

    def phases_at(self, t0_s=0.0, kinds=None) -> list:
        """Return the phases (of ``kinds``, default all) with the start at ``t0_s``."""
        return [Phase(p.kind, t0_s + p.t0_s, t0_s + p.t1_s, p.label) for p in self.phases
                if kinds is None or p.kind in kinds]

    def play(self, arm, rate_hz=200.0, on_sample=None, until_s=None):
        """Run ``arm`` (a ``SimulatedArm`` at rest at the first waypoint) through the scenario.

        The arm is driven as fast as the simulator computes; ``on_sample(measurement)`` is
        called at ``rate_hz`` (sim time) with ``arm.measure()``. ``until_s``: stop there (s
        from the start; default the end).
        """
        t0 = arm.t
        arm.set_trajectory(self.joint_names, [(t, q, qd, []) for t, q, qd in self.waypoints])
        arm.set_hand_profile([(t0 + t, w) for t, w in self.force_steps])
        end = self.duration_s if until_s is None else min(float(until_s), self.duration_s)
        period = 1.0 / float(rate_hz)
        k = 1
        while k * period <= end + 1e-9:
            arm.advance_to(t0 + k * period)
            if on_sample is not None:
                on_sample(arm.measure())
            k += 1


def scenario_sim_config(seed=0, **changes) -> SimConfig:
    """Return the simulated youBot of the scenario: the defaults with ``friction_drift`` on."""
    return dataclasses.replace(SimConfig(seed=seed), friction_drift=True, **changes)


def _move_time(q_from, q_to):
    """Return a cubic move's duration, s: its fastest joint peaks at ``PEAK_SPEED_RAD_S``."""
    return max(1.0, 1.5 * float(np.max(np.abs(q_to - q_from))) / PEAK_SPEED_RAD_S)


class _Builder:
    """Appends waypoints, force steps and phases in time order."""

    def __init__(self, scenario: WarmUpScenario, q0):
        self.sc, self.t, self.q = scenario, 0.0, np.asarray(q0, dtype=float)
        self.zero = np.zeros(len(self.q))
        self.sc.waypoints.append((0.0, self.q.copy(), self.zero.copy()))

    def move(self, q, velocity=None):
        q = np.asarray(q, dtype=float)
        self.t += _move_time(self.q, q)
        v = self.zero if velocity is None else velocity
        self.sc.waypoints.append((self.t, q.copy(), np.array(v, dtype=float)))
        self.q = q

    def hold(self, duration_s, force=None, label=''):
        """Hold the pose for ``duration_s``, with ``force`` (3,) N on the tool or contact-free."""
        start = self.t
        self.t += duration_s
        self.sc.waypoints.append((self.t, self.q.copy(), self.zero.copy()))
        if force is not None:
            self.force(start, force)
            self.force(self.t, None)
        self.sc.phases.append(Phase('rest_free' if force is None else 'rest', start, self.t,
                                    label))

    def force(self, t, force):
        w = np.zeros(6)
        if force is not None:
            w[:3] = force
        self.sc.force_steps.append((float(t), w))


def _motion_poses(robot: RobotModel, rng, count):
    """Return ``count`` random poses inside the limits with the tool above the floor."""
    out = []
    while len(out) < count:
        q = robot.random_configurations(1, rng, MARGIN_RAD)[0]
        if robot.tool_placement(q).translation[2] >= FLOOR_Z_M:
            out.append(q)
    return out


def _via_velocities(poses, times):
    """Return each waypoint's velocity: the mean slope of its two moves, capped (Catmull-Rom)."""
    v = [np.zeros(len(poses[0]))]
    for k in range(1, len(poses) - 1):
        slope = (poses[k + 1] - poses[k - 1]) / (times[k + 1] - times[k - 1])
        v.append(np.clip(slope, -0.5 * PEAK_SPEED_RAD_S, 0.5 * PEAK_SPEED_RAD_S))
    v.append(np.zeros(len(poses[0])))
    return v


def _motion_block(b: _Builder, robot, rng, with_force, turn):
    """Move through random poses for about ``MOTION_S``; ``with_force``: one step midway.

    The step is a candidate that the drives can hold at every pose of the block.
    """
    start = b.t
    poses, times = [b.q], [b.t]
    while times[-1] - start < MOTION_S:
        q = _motion_poses(robot, rng, 1)[0]
        times.append(times[-1] + _move_time(poses[-1], q))
        poses.append(q)
    for q, v in zip(poses[1:], _via_velocities(poses, times)[1:]):
        b.move(q, v)
    cand = feasible_forces(robot, poses, MOTION_FORCES_N, 0.6) if with_force else []
    if not cand:
        b.sc.phases.append(Phase('motion_free', start, b.t))
        return
    force = cand[turn % len(cand)]
    # the step acts over the middle of the block
    on = start + 0.5 * (b.t - start)
    off = min(on + MOTION_FORCE_HOLD_S, b.t)
    b.sc.phases += [Phase('motion_free', start, on), Phase('motion', on, off),
                    Phase('motion_free', off, b.t)]
    b.force(on, force)
    b.force(off, None)


def _rest_block(b: _Builder, pose, force, hold_s=FORCE_HOLD_S, label=''):
    """Move to ``pose``, hold contact-free, hold ``force``, release and rest."""
    start = b.t
    b.move(pose)
    b.sc.phases.append(Phase('motion_free', start, b.t))
    b.hold(REST_S)
    if force is not None:
        b.hold(hold_s, force, label)
    b.hold(AFTER_FORCE_S)


def warm_up_scenario(robot: RobotModel, duration_s=WARM_UP_S, seed=0, q_start=None,
                     rest_pose_count=3) -> WarmUpScenario:
    """Plan the cold start and warm-up: mixed motion with force steps and holds.

    Args:
        robot: the arm's model (its limits, kinematics and gravity choose poses and forces).
        duration_s: about how long the work lasts, s (blocks of about a minute; the last block
            ends with the constant push).
        seed: the seed of the poses and of the order of the forces.
        q_start: the pose the arm starts at (default the first rest pose).
        rest_pose_count: the rest poses the blocks cycle through.

    Returns:
        the ``WarmUpScenario``.
    """
    rng = np.random.default_rng([int(seed), 0xd41f7])
    poses = rest_poses(robot, rest_pose_count, rng)
    rest_forces = [feasible_forces(robot, [q], REST_FORCES_N, 0.8) for q in poses]
    push_pose = next((k for k, f in enumerate(rest_forces) if any(
        abs(np.linalg.norm(x) - PUSH_N) < 1e-9 for x in f)), None)
    if push_pose is None:
        raise ValueError(f'no rest pose of this arm can hold a {PUSH_N:g} N push')
    push = next(f for f in rest_forces[push_pose] if abs(np.linalg.norm(f) - PUSH_N) < 1e-9)
    q0 = poses[push_pose] if q_start is None else np.asarray(q_start, dtype=float)
    sc = WarmUpScenario(list(robot.joint_names))
    b = _Builder(sc, q0)
    _rest_block(b, poses[push_pose], push, PUSH_HOLD_S, PUSH_LABEL)      # the cold push
    block = 0
    while b.t < duration_s - (MOTION_S + 2 * PUSH_HOLD_S):
        _motion_block(b, robot, rng, block % 2 == 1, block // 2)
        k = block % len(poses)
        forces = rest_forces[k]
        _rest_block(b, poses[k], forces[block % len(forces)] if forces else None)
        block += 1
    _motion_block(b, robot, rng, False, 0)
    _rest_block(b, poses[push_pose], push, PUSH_HOLD_S, PUSH_LABEL)      # the warm push
    sc.force_steps.sort(key=lambda s: s[0])
    sc.duration_s = b.t
    return sc


__all__ = ['PUSH_HOLD_S', 'PUSH_LABEL', 'PUSH_N', 'SCENARIO_NAME', 'WARM_UP_S', 'WarmUpScenario',
           'scenario_sim_config', 'warm_up_scenario']
