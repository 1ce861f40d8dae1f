# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The fast ``SimulatedArm.step`` reproduces a seeded run recorded with the earlier numpy code.

``data/sim_step_reference.npz`` was written by ``python test/sim/test_sim_step_reference.py``
with the simulator before its step was rewritten in plain float arithmetic (main at 3f307be).
The scenario passes every path of the step: at rest inside the stiction band (the stiction
solve), a Hermite and a linear trajectory (every joint slipping: the ABA path; reversals),
an end stop, a hand wrench in base and tool axes, a scripted hand, a payload and a contact plane
with friction.  Positions, velocities, motor and external torques, the driver's measurements and
the ground truth must agree to 1e-12 at every measurement.
"""
import sys
from pathlib import Path

import numpy as np

from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.world import ContactPlane
from robot_id_ros.sim.youbot_arm import SimulatedArm

FIXTURE = Path(__file__).parent / 'data' / 'sim_step_reference.npz'
BENT = np.array([2.9496, 1.6, -2.0, 2.2, 2.9])
FIELDS = ('position_rad', 'velocity_rad_s', 'current_a', 'effort_nm', 'true_position_rad',
          'true_velocity_rad_s', 'true_motor_torque_nm', 'true_external_torque_nm',
          'true_wrench_base', 'true_wrench_tool', 'stuck', 'true_contact_force_n')


def _run_phase(arm, rec, duration_s, steps_per_measure=5):
    for _ in range(int(round(duration_s / arm.dt / steps_per_measure))):
        for _ in range(steps_per_measure):
            arm.step()
        m = arm.measure()
        for f in FIELDS:
            rec.setdefault(f, []).append(np.array(getattr(m, f), dtype=float))
        rec.setdefault('t_s', []).append(m.t_s)
        rec.setdefault('in_contact', []).append(float(m.in_contact_with_surface))
        rec.setdefault('qdd', []).append(arm.qdd.copy())
        rec.setdefault('integral', []).append(arm.integral.copy())


def run_scenario():
    """Return {name: (k, ...) array} of a seeded run through every path of the step."""
    arm = SimulatedArm(SimConfig(seed=5))
    rec = {}
    _run_phase(arm, rec, 0.2)                               # at rest: stiction solve
    q0 = np.asarray(arm.q, dtype=float)
    amp = np.array([0.5, 0.3, 0.4, 0.5, 0.5])
    w = 2 * np.pi / 2.5
    ts = np.arange(0.05, 1.2 + 1e-9, 0.05)
    arm.set_trajectory(arm.joint_names,
                       [(t, q0 + amp * np.sin(w * t), amp * w * np.cos(w * t), []) for t in ts])
    _run_phase(arm, rec, 0.6)                               # Hermite: slipping, reversals
    arm.apply_wrench([3.0, -2.0, 5.0, 0.2, 0.0, -0.1])
    _run_phase(arm, rec, 0.3)
    arm.apply_wrench([0.0, 4.0, -3.0, 0.0, 0.1, 0.0], axes='tool')
    arm.attach_payload(0.4, (0.01, 0.0, 0.03))
    _run_phase(arm, rec, 0.4)
    arm.clear_wrench()
    arm.set_trajectory(arm.joint_names[3:4], [(0.3, [arm.upper[3]], [], [])])  # linear, stop
    _run_phase(arm, rec, 0.5)
    arm.set_hand_profile([(arm.t + 0.05, [0, 0, -8.0, 0, 0, 0]), (arm.t + 0.2, np.zeros(6))])
    _run_phase(arm, rec, 0.3)
    arm.set_hand_profile(None)
    arm.detach_payload()
    arm.move_to(BENT, 0.6)
    _run_phase(arm, rec, 0.8)
    arm.set_contact_plane(ContactPlane(_tool_point(arm) - [0, 0, 0.01], [0, 0, 1.0],
                                       2000.0, 20.0, 0.4))
    arm.move_to(BENT + [0.0, 0.05, 0.0, 0.0, 0.0], 0.3)
    _run_phase(arm, rec, 0.5)
    return {k: np.array(v) for k, v in rec.items()}


def _tool_point(arm):
    import pinocchio as pin
    pin.framesForwardKinematics(arm._pm, arm._pd, arm.q)
    return arm._pd.oMf[arm.model.tool_frame_id].translation.copy()


def test_step_reproduces_the_recorded_reference_run():
    ref = np.load(FIXTURE)
    new = run_scenario()
    assert sorted(new) == sorted(ref.files)
    assert ref['in_contact'].any() and ref['stuck'].any() and not ref['stuck'].all()
    for k in ref.files:
        assert new[k].shape == ref[k].shape, k
        err = np.max(np.abs(new[k] - ref[k]))
        assert err <= 1e-12, f'{k}: {err:.3g} from the reference run'


if __name__ == '__main__':
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURE
    np.savez_compressed(out, **run_scenario())
    print('wrote', out)
