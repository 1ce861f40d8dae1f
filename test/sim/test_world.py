# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulated arm's world: a contact plane and a scripted hand (ROS-free).

Physics checked: the arm pressed into the plane settles where an independent static solve of
drive springs, gravity and plane spring puts it; no force off the plane; friction bounded by
mu Fn and opposing sliding; a free drop onto the damped plane loses energy and settles; the
hand's scripted wrench is exactly the ground truth, and hand and plane add up.
"""
import numpy as np
import pinocchio as pin
import pytest
from scipy.optimize import fsolve

from robot_id_ros.model.robot import youbot_model
from robot_id_ros.sim.config import SimConfig, SimConfigError
from robot_id_ros.sim.world import ContactPlane
from robot_id_ros.sim.youbot_arm import SimInputError, SimulatedArm

BENT = np.array([2.9496, 1.6, -2.0, 2.2, 2.9])  # forward-leaning, tool at about (0.45, 0, 0.35)
UP = np.array([0.0, 0.0, 1.0])
FRICTIONLESS = dict(coulomb_nm=(1e-4,) * 5, viscous_nm_s_rad=(0.5,) * 5, quantize=False,
                    current_noise_a=0.0)


@pytest.fixture(scope='module')
def nominal():
    return youbot_model()


def tool_point(nominal, q):
    return nominal.tool_placement(q).translation.copy()


def tool_velocity(nominal, q, qd):
    return nominal.tool_jacobian(q, 'base')[:3] @ qd


def test_plane_force_law_never_pulls_and_friction_is_bounded_and_opposing():
    plane = ContactPlane([0, 0, 0.1], [0, 0, 2.0], 2000.0, 30.0, 0.4, 0.005)
    assert np.allclose(plane.normal, UP)                     # normalised
    assert not np.any(plane.force([0.3, 0, 0.101], [0, 0, -1.0]))   # outside: nothing
    assert np.allclose(plane.force([0.3, 0, 0.095], [0, 0, 0]), [0, 0, 10.0])  # k * 5 mm
    # inside but leaving faster than k depth / d: damping would pull, so nothing
    assert not np.any(plane.force([0.3, 0, 0.095], [0, 0, 0.34]))
    rng = np.random.default_rng(4)
    for _ in range(500):
        p = np.r_[rng.uniform(-1, 1, 2), 0.1 - rng.uniform(0, 0.02)]
        v = rng.normal(0, 0.05, 3) * rng.choice([1e-3, 1, 10])
        f = plane.force(p, v)
        fn = max(0.0, 2000.0 * (0.1 - p[2]) - 30.0 * v[2])
        assert f[2] == pytest.approx(fn, rel=1e-12, abs=1e-12)
        ft, vt = f[:2], v[:2]
        assert np.linalg.norm(ft) <= 0.4 * fn + 1e-12
        assert np.dot(ft, vt) <= 0 and abs(ft[0] * vt[1] - ft[1] * vt[0]) < 1e-9 * (1 + fn)
        if np.linalg.norm(vt) > 0.05:                        # sliding: Coulomb, not a damper
            assert np.linalg.norm(ft) >= 0.99 * 0.4 * fn
    with pytest.raises(SimInputError, match='no direction'):
        ContactPlane([0, 0, 0], [0, 0, 0], 2000.0, 0.0)
    with pytest.raises(SimInputError, match='stiffness'):
        ContactPlane([0, 0, 0], UP, -1.0, 0.0)


def static_equilibrium(arm, nominal, q_cmd, plane):
    """Solve kp (q_cmd - q) + Jc^T F(q) = g(q), F = k max(0, depth) n: drives, gravity, plane."""
    kp = np.asarray(arm.kp)

    def residual(q):
        depth = max(0.0, plane.depth_m(tool_point(nominal, q)))
        J = nominal.tool_jacobian(q, 'base')[:3]
        return kp * (q_cmd - q) + J.T @ (plane.stiffness_n_m * depth * plane.normal) - \
            arm.true_gravity_torque(q)
    q, info, ok, msg = fsolve(residual, q_cmd, full_output=True, xtol=1e-13)
    assert ok == 1, msg
    return q


def test_pressing_a_commanded_pose_into_the_plane_settles_at_the_static_equilibrium(nominal):
    # drives without integral action (finite stiffness kp), no Coulomb friction: the rest pose is
    # where drive springs, gravity and the plane's spring balance
    cfg = SimConfig(seed=3, ki_nm_rad_s=(0.0,) * 5, initial_positions_rad=tuple(BENT),
                    **FRICTIONLESS)
    arm = SimulatedArm(cfg, model=nominal)
    arm.advance(1.5)                                    # sag under gravity, off the plane
    z_free = tool_point(nominal, arm.q)[2]
    plane = ContactPlane(tool_point(nominal, arm.q) - [0, 0, 0.01], UP, 2000.0, 20.0)
    arm.set_contact_plane(plane)
    J = nominal.tool_jacobian(BENT, 'base')[:3]
    q_cmd = BENT + np.linalg.lstsq(J, [0, 0, -0.03], rcond=None)[0]   # 2 cm below the surface
    arm.move_to(q_cmd, 0.5)
    arm.advance(4.0)
    m = arm.measure()
    q_eq = static_equilibrium(arm, nominal, q_cmd, plane)
    depth = plane.depth_m(tool_point(nominal, q_eq))
    assert 0.002 < depth < 0.02 and tool_point(nominal, q_eq)[2] < z_free
    assert np.max(np.abs(arm.qd)) < 1e-4
    np.testing.assert_allclose(arm.q, q_eq, atol=2e-5)
    # the force is the plane's spring at the equilibrium depth, along the normal
    np.testing.assert_allclose(arm.contact_force_n(), 2000.0 * depth * UP, atol=0.05)
    assert m.in_contact_with_surface
    np.testing.assert_allclose(m.true_contact_force_n, arm.contact_force_n())
    np.testing.assert_allclose(m.true_wrench_base[:3], arm.contact_force_n())
    np.testing.assert_allclose(m.true_wrench_base[3:], 0.0, atol=1e-12)
    Jm = nominal.tool_jacobian(arm.q, 'base')
    np.testing.assert_allclose(m.true_external_torque_nm, Jm.T @ m.true_wrench_base, atol=1e-9)
    # the drives hold the rest: motor torque = g - J^T F (no friction at rest here)
    np.testing.assert_allclose(m.effort_nm, arm.true_gravity_torque() - Jm.T @ m.true_wrench_base,
                               atol=2e-3)


def test_default_drives_press_and_the_effort_carries_minus_jacobian_transpose_f(nominal):
    """YouBot drives (PID, stiction, quantisation): at rest effort = g - J^T F within friction."""
    arm = SimulatedArm(SimConfig(seed=5, current_noise_a=0.0, initial_positions_rad=tuple(BENT)),
                       model=nominal)
    p0 = tool_point(nominal, BENT)
    arm.set_contact_plane(ContactPlane(p0 - [0, 0, 0.005], UP, 2000.0, 20.0, 0.3))
    J = nominal.tool_jacobian(BENT, 'base')[:3]
    arm.move_to(BENT + np.linalg.lstsq(J, [0, 0, -0.015], rcond=None)[0], 0.5)
    arm.advance(3.0)
    while arm.t < 10.0 and not np.all(arm.dir == 0):    # the integral winds up, then all stick
        arm.advance(0.1)
    arm.advance(0.1)
    m = arm.measure()
    f = arm.contact_force_n()
    assert np.all(arm.dir == 0) and f[2] > 5.0
    Jm = nominal.tool_jacobian(arm.q, 'base')
    tau_f = Jm.T @ m.true_wrench_base
    np.testing.assert_allclose(m.true_external_torque_nm, tau_f, atol=1e-9)
    static = m.effort_nm + tau_f - arm.true_gravity_torque()
    assert np.all((static <= arm.breakaway_pos + 0.01) & (static >= -arm.breakaway_neg - 0.01))
    assert np.all(np.abs(tau_f[1:4]) > arm.breakaway_pos[1:4])   # not vacuous on J2..J4


def test_no_force_off_the_plane(nominal):
    arm = SimulatedArm(SimConfig(seed=2, initial_positions_rad=tuple(BENT)), model=nominal)
    plane = ContactPlane(tool_point(nominal, BENT) - [0, 0, 0.05], UP, 2000.0, 20.0, 0.5)
    arm.set_contact_plane(plane)
    arm.move_to(BENT + [0.3, -0.1, 0.1, 0.1, 0.3], 1.0)
    for _ in range(1200):
        arm.step()
        assert plane.depth_m(tool_point(nominal, arm.q)) < -0.02
        assert not np.any(arm.contact_force_n()) and not np.any(arm.tau_ext)
    m = arm.measure()
    assert not m.in_contact_with_surface and not np.any(m.true_wrench_base)


def test_sliding_on_the_plane_friction_opposes_the_motion_within_mu_fn(nominal):
    mu = 0.5
    arm = SimulatedArm(SimConfig(seed=3, initial_positions_rad=tuple(BENT)), model=nominal)
    plane = ContactPlane(tool_point(nominal, BENT) - [0, 0, 0.02], UP, 2000.0, 20.0, mu)
    arm.set_contact_plane(plane)
    J = nominal.tool_jacobian(BENT, 'base')[:3]
    q_cmd = BENT + np.linalg.lstsq(J, [0, 0, -0.03], rcond=None)[0]
    arm.move_to(q_cmd, 1.0)
    arm.advance(2.0)
    assert arm.contact_force_n()[2] > 5.0
    arm.move_to(q_cmd + [0.2, 0, 0, 0, 0], 2.0)         # J1 turns: the tool slides sideways
    sliding = 0
    for _ in range(2000):
        v = tool_velocity(nominal, arm.q, arm.qd)     # the state the step's force is taken at
        arm.step()
        f = arm.contact_force_n()
        fn, ft, vt = f[2], f[:2], v[:2]
        assert fn > 5.0                                     # contact kept, no chatter off it
        assert np.linalg.norm(ft) <= mu * fn * (1 + 1e-12)
        assert np.dot(ft, vt) <= 0.0
        if np.linalg.norm(vt) > 0.04:                  # sliding: Coulomb friction, mu Fn
            sliding += 1
            assert np.dot(ft, vt) / np.linalg.norm(vt) < -0.95 * mu * fn
    assert sliding > 300


def energy(arm, plane, nominal):
    """Kinetic (rotors included) + gravity + plane spring energy of the true arm [J]."""
    pm, pd = arm.model.model, arm.model.model.createData()
    M = pin.crba(pm, pd, arm.q)
    M = np.triu(M) + np.triu(M, 1).T
    depth = max(0.0, plane.depth_m(tool_point(nominal, arm.q)))
    return 0.5 * arm.qd @ M @ arm.qd + pin.computePotentialEnergy(pm, pd, arm.q) + \
        0.5 * plane.stiffness_n_m * depth ** 2


def drop(nominal, damping_n_s_m, mu, steps=3000):
    """Drives off, J2 free and frictionless, the other joints held by stiction: gravity swings
    the tool down onto a plane 4 cm below.

    Returns the arm, the plane, the energy and whether the plane pushed, each step.
    """
    cfg = SimConfig(seed=3, kp_nm_rad=(0.0,) * 5, kd_nm_s_rad=(0.0,) * 5, ki_nm_rad_s=(0.0,) * 5,
                    initial_positions_rad=tuple(BENT), coulomb_nm=(50.0, 1e-4, 50.0, 50.0, 50.0),
                    viscous_nm_s_rad=(0.0,) * 5, quantize=False)
    arm = SimulatedArm(cfg, model=nominal)
    plane = ContactPlane(tool_point(nominal, BENT) - [0, 0, 0.04], UP, 2000.0, damping_n_s_m, mu)
    arm.set_contact_plane(plane)
    E, touch = [energy(arm, plane, nominal)], [False]
    for _ in range(steps):
        arm.step()
        E.append(energy(arm, plane, nominal))
        touch.append(bool(np.any(arm.contact_force_n())))
    return arm, plane, np.array(E), np.array(touch)


def test_free_drop_onto_the_plane_creates_no_energy_and_settles_with_damping(nominal):
    arm, plane, E, _ = drop(nominal, 30.0, 0.5)
    m = arm.measure()
    lost = E[0] - E[-1]
    assert lost > 0.3                                   # it fell (0.7 J) and stayed down
    assert np.max(E - np.minimum.accumulate(E)) < 0.01 * lost     # never gains energy
    assert np.max(np.abs(arm.qd)) < 1e-4 and m.in_contact_with_surface     # settled on it
    # at rest the plane carries the free joint's gravity torque (J2 has no friction)
    assert m.true_external_torque_nm[1] == pytest.approx(arm.true_gravity_torque()[1], abs=1e-3)
    assert arm.contact_force_n()[2] > 5.0
    # without damping and friction the plane is a spring: the tool bounces, energy is kept
    _, _, E0, touch = drop(nominal, 0.0, 0.0)
    assert np.max(np.abs(E0 - E0[0])) < 0.02 * lost
    assert np.count_nonzero(np.diff(touch.astype(int)) == 1) >= 3     # lands again and again


def test_hand_profile_is_exactly_the_ground_truth_and_adds_to_the_plane(nominal):
    arm = SimulatedArm(SimConfig(seed=1, initial_positions_rad=tuple(BENT)), model=nominal)
    steps = [(0.1, [0, 0, -4.0, 0, 0, 0]), (0.3, [2.0, 1.0, -6.0, 0, 0, 0.1])]
    arm.set_hand_profile(steps)
    for _ in range(500):
        q0 = arm.q.copy()
        arm.step()
        m = arm.measure()
        want = np.zeros(6) if m.t_s < 0.1 - 1e-9 else np.asarray(
            steps[0][1] if m.t_s < 0.3 - 1e-9 else steps[1][1], float)
        np.testing.assert_array_equal(m.true_wrench_base, want)
        np.testing.assert_allclose(arm.tau_ext, nominal.tool_jacobian(q0, 'base').T @ want,
                                   atol=1e-12)

    def push(t):
        return np.r_[0.0, 0.0, -20.0 * min(t / 0.5, 1.0), 0, 0, 0]
    arm.set_hand_profile(push, axes='tool')
    arm.advance(0.25)
    _, tool = arm.true_wrench()
    np.testing.assert_allclose(tool, push(arm.t), atol=1e-12)
    # the hand pushes the tool down into a plane: the truth is their sum
    arm.set_hand_profile(push)
    arm.set_contact_plane(ContactPlane(tool_point(nominal, arm.q) - [0, 0, 0.002], UP, 2000.0,
                                       20.0, 0.3))
    arm.advance(2.0)
    m = arm.measure()
    f = arm.contact_force_n()
    assert m.in_contact_with_surface and f[2] > 1.0
    np.testing.assert_allclose(m.true_wrench_base[:3], f + push(arm.t)[:3], atol=1e-12)
    J = nominal.tool_jacobian(arm.q, 'base')
    np.testing.assert_allclose(m.true_external_torque_nm, J.T @ m.true_wrench_base, atol=1e-6)
    arm.set_hand_profile(None)
    arm.step()
    np.testing.assert_allclose(arm.measure().true_wrench_base[:3], arm.contact_force_n())
    with pytest.raises(SimInputError, match='sorted'):
        arm.set_hand_profile([(1.0, np.zeros(6)), (0.5, np.zeros(6))])


def test_contact_plane_from_settings(nominal):
    p = tool_point(nominal, BENT)
    cfg = SimConfig(seed=1, initial_positions_rad=tuple(BENT), contact_plane_enabled=True,
                    contact_plane_point_m=tuple(p + 0.01 * UP), contact_plane_normal=(0, 0, 3.0),
                    contact_stiffness_n_m=1500.0, contact_friction_coefficient=0.2)
    arm = SimulatedArm(cfg, model=nominal)
    plane = arm.loads.plane
    assert plane.stiffness_n_m == 1500.0 and plane.friction_coefficient == 0.2
    np.testing.assert_allclose(arm.contact_force_n(), [0, 0, 15.0], atol=1e-9)   # 1 cm deep
    assert SimulatedArm(SimConfig(initial_positions_rad=tuple(BENT)), model=nominal).loads.plane \
        is None
    with pytest.raises(SimConfigError, match='normal'):
        SimulatedArm(SimConfig(contact_plane_enabled=True, contact_plane_normal=(0, 0, 0)),
                     model=nominal)
