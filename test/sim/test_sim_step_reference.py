# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The fast ``SimulatedArm.step`` (Python floats) equals the plain numpy step it replaced.

``reference_step.py`` keeps the former array code. A seeded scenario passes every path of the
step: at rest inside the stiction band (the stiction solve), a Hermite and a linear trajectory
(every joint slipping: the ABA path; stick-slip at the reversals, mixed stuck and slipping
joints), an end stop, a hand wrench in base and tool axes, a scripted hand, a payload and a
contact plane with friction. Before every step the reference computes the next state from the
arm's state; after the step both must agree to 1e-12, and so must the measurements. One step
at a time: a run is chaotic (the quantised controller and stick-slip turn a 1e-12 change into
0.1 rad within a second), a single step is not.
"""
import numpy as np
from reference_step import reference_measurement, reference_step

from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.world import ContactPlane
from robot_id_ros.sim.youbot_arm import SimulatedArm

BENT = np.array([2.9496, 1.6, -2.0, 2.2, 2.9])
TOL = 1e-12


def _run(arm, duration_s, step, measure, steps_per_measure=5):
    for _ in range(int(round(duration_s / arm.dt / steps_per_measure))):
        for _ in range(steps_per_measure):
            step(arm)
        measure(arm)


def _tool_point(arm):
    import pinocchio as pin
    pin.framesForwardKinematics(arm._pm, arm._pd, arm.q)
    return arm._pd.oMf[arm.model.tool_frame_id].translation.copy()


def run_scenario(step, measure):
    """Run a seeded scenario through every path of the step; ``step(arm)`` must step the arm."""
    arm = SimulatedArm(SimConfig(seed=5))
    _run(arm, 0.2, step, measure)                               # at rest: stiction solve
    q0 = np.asarray(arm.q, dtype=float)
    amp = np.array([0.5, 0.3, 0.4, 0.5, 0.5])
    w = 2 * np.pi / 2.5
    ts = np.arange(0.05, 1.2 + 1e-9, 0.05)
    arm.set_trajectory(arm.joint_names,
                       [(t, q0 + amp * np.sin(w * t), amp * w * np.cos(w * t), []) for t in ts])
    _run(arm, 0.6, step, measure)                               # Hermite: slipping, reversals
    arm.apply_wrench([3.0, -2.0, 5.0, 0.2, 0.0, -0.1])
    _run(arm, 0.3, step, measure)
    arm.apply_wrench([0.0, 4.0, -3.0, 0.0, 0.1, 0.0], axes='tool')
    arm.attach_payload(0.4, (0.01, 0.0, 0.03))
    _run(arm, 0.4, step, measure)
    arm.clear_wrench()
    arm.set_trajectory(arm.joint_names[3:4], [(0.3, [arm.upper[3]], [], [])])  # linear, stop
    _run(arm, 0.5, step, measure)
    arm.set_hand_profile([(arm.t + 0.05, [0, 0, -8.0, 0, 0, 0]), (arm.t + 0.2, np.zeros(6))])
    _run(arm, 0.3, step, measure)
    arm.set_hand_profile(None)
    arm.detach_payload()
    arm.move_to(BENT, 0.6)
    _run(arm, 0.8, step, measure)
    arm.set_contact_plane(ContactPlane(_tool_point(arm) - [0, 0, 0.01], [0, 0, 1.0],
                                       2000.0, 20.0, 0.4))
    arm.move_to(BENT + [0.0, 0.05, 0.0, 0.0, 0.0], 0.3)
    _run(arm, 0.5, step, measure)


def test_every_step_and_measurement_of_the_run_equals_the_array_reference():
    worst, seen = {}, set()

    def record(name, got, ref):
        worst[name] = max(worst.get(name, 0.0), float(np.max(np.abs(np.asarray(got) - ref))))

    def step(arm):
        ref = reference_step(arm)
        seen.add('rest' if not arm.dir.any() else 'slip' if arm.dir.all() else 'mixed')
        seen.update(k for k, on in (('stop', arm.stop.any()), ('plane', arm.loads.in_contact),
                                    ('hand', np.any(arm.tau_ext != 0.0))) if on)
        arm.step()
        for k, v in ref.items():
            record(k, getattr(arm, k), v)

    def measure(arm):
        pos, vel, cur = reference_measurement(arm)
        m = arm.measure()
        record('position_rad', m.position_rad, pos)
        record('velocity_rad_s', m.velocity_rad_s, vel)
        record('current_a', m.current_a, cur)

    run_scenario(step, measure)
    assert seen == {'rest', 'slip', 'mixed', 'stop', 'plane', 'hand'}
    assert all(err <= TOL for err in worst.values()), worst
