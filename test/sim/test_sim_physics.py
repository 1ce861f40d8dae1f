# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Physics of the simulated youBot (no ROS)."""
import numpy as np
import pinocchio as pin
import pytest

from robot_id_ros.model.robot import youbot_model
from robot_id_ros.sim.config import SimConfig, SimConfigError
from robot_id_ros.sim.drives import DriveModel
from robot_id_ros.sim.trajectory import TrajectoryError
from robot_id_ros.sim.youbot_arm import SimInputError, SimulatedArm

CANDLE = np.array([2.9496, 1.1344, -2.5482, 1.789, 2.9234])
BENT = np.array([2.9496, 1.6, -2.0, 2.2, 2.9])  # forward-leaning: large gravity torques


def band(arm, sigmas=4.0):
    """Stiction band + current noise + quantisation, per joint (Nm)."""
    g = arm.drives.drive_gains_nm_a
    return (np.maximum(arm.breakaway_pos, arm.breakaway_neg)
            + sigmas * arm.config.current_noise_a * g + 1e-3 * g)


@pytest.fixture(scope='module')
def nominal():
    return youbot_model()


def test_true_parameters_differ_from_urdf_within_bounds_and_are_deterministic(nominal):
    cfg = SimConfig(seed=7)
    a = SimulatedArm(cfg, model=nominal)
    b = SimulatedArm(SimConfig(seed=7), model=nominal)
    c = SimulatedArm(SimConfig(seed=8), model=nominal)
    th, th0 = a.true.standard_parameters, a.true.nominal_parameters
    assert np.array_equal(th, b.true.standard_parameters)
    assert not np.allclose(th, c.true.standard_parameters)
    m, m0 = th[0::10], th0[0::10]
    assert np.all(np.abs(m / m0 - 1) <= cfg.mass_rel_bound + 1e-12)
    assert np.any(np.abs(m / m0 - 1) > 0.02)
    for i in range(a.n):
        Y = pin.Inertia.FromDynamicParameters(th[10 * i:10 * i + 10])
        Y0 = pin.Inertia.FromDynamicParameters(th0[10 * i:10 * i + 10])
        assert np.all(np.abs(Y.lever - Y0.lever) <= cfg.com_abs_bound_m + 1e-12)
        w = np.linalg.eigvalsh(Y.inertia)     # physically consistent: triangle inequality
        assert w.min() > 0 and w.sum() - 2 * w.max() >= -1e-12
    rot = a.true.rotor_inertia_kg_m2 / (np.asarray(cfg.gear_ratios)**2 *
                                        cfg.rotor_inertia_motor_kg_m2)
    assert np.all(np.abs(rot - 1) <= cfg.rotor_inertia_rel_bound + 1e-12)
    asym = np.abs(a._fcp - a._fcn) / np.asarray(cfg.coulomb_nm)
    assert np.all(asym <= cfg.coulomb_asymmetry_bound + 1e-12) and np.any(asym > 0.01)
    assert np.allclose(a.breakaway_pos, 1.3 * a._fcp) and np.allclose(
        a.breakaway_neg, 1.3 * a._fcn)
    # the URDF model handed in is not modified
    assert np.array_equal(nominal.standard_parameters(), th0)


def test_noise_is_deterministic_per_seed(nominal):
    runs = []
    for _ in range(2):
        arm = SimulatedArm(SimConfig(seed=3), model=nominal)
        arm.advance(0.05)
        runs.append(np.array([arm.measure().current_a for _ in range(5)]))
    assert np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize('q', [CANDLE, BENT, np.array([1.0, 0.6, -1.0, 3.0, 1.0])])
def test_at_rest_effort_is_true_gravity_within_stiction_and_noise(nominal, q):
    arm = SimulatedArm(SimConfig(seed=11, initial_positions_rad=tuple(q)), model=nominal)
    arm.advance(0.5)
    assert np.all(arm.dir == 0) and np.all(arm.qd == 0)          # held by stiction: really at rest
    eff = np.array([arm.measure().effort_nm for _ in range(200)])
    g_true = arm.true_gravity_torque()
    assert np.all(np.abs(eff.mean(0) - g_true) <= band(arm, sigmas=1.0))
    assert np.all(np.abs(eff - g_true) <= band(arm))
    # and the URDF's nominal gravity is off by exactly what the perturbation says
    g_nom = arm.nominal_gravity_torque()
    model_true = arm.model.copy()
    assert np.allclose(g_true - g_nom,
                       model_true.gravity_torque(arm.q) - nominal.gravity_torque(arm.q))
    if not np.allclose(q, CANDLE):
        assert np.abs(g_true - g_nom).max() > 0.05


def test_current_is_quantised_to_1ma_and_noise_has_configured_level(nominal):
    arm = SimulatedArm(SimConfig(seed=2, current_noise_a=0.01), model=nominal)
    cur = np.array([arm.measure().current_a for _ in range(2000)])
    assert np.allclose(cur * 1000, np.round(cur * 1000), atol=1e-9)
    expected = arm.tau_motor / arm.drives.drive_gains_nm_a
    assert np.allclose(cur.mean(0), expected, atol=0.002)
    assert np.allclose(cur.std(0), 0.01, rtol=0.1)
    eff = arm.measure().effort_nm
    ma = eff / arm.drives.drive_gains_nm_a * 1000
    assert np.allclose(ma, np.round(ma), atol=1e-6)
    quiet = SimulatedArm(SimConfig(seed=2, current_noise_a=0.0), model=nominal)
    i = quiet.measure().current_a
    assert np.array_equal(i, np.round(quiet.tau_motor / quiet.drives.drive_gains_nm_a, 3))


def test_drive_quantisation_of_position_and_velocity():
    d = DriveModel([156, 100], [0.0335, 0.0335], 4000, 0.001, 0.0)
    res = 2 * np.pi / (4000 * np.array([156, 100]))
    q = np.array([1.23456789, -0.5])
    qm = d.measure_position(q)
    assert np.all(np.abs(qm - q) <= res / 2 + 1e-15) and np.allclose(qm / res, np.round(qm / res))
    qd = np.array([0.1234, -0.01])
    rpm = d.measure_velocity(qd) * 60 / (2 * np.pi) * np.array([156, 100])
    assert np.allclose(rpm, np.round(rpm)) and np.allclose(rpm, [184, -10])
    assert np.allclose(d.current_to_torque(d.measure_current([5.226, 3.35])), [5.226, 3.35])
    assert np.allclose(d.drive_gains_nm_a, [5.226, 3.35])


def test_stiction_holds_a_joint_inside_breakaway_and_releases_above(nominal):
    cfg = SimConfig(seed=5, current_noise_a=0.0, kp_nm_rad=(0.0,) * 5, kd_nm_s_rad=(0.0,) * 5,
                    ki_nm_rad_s=(0.0,) * 5)
    arm = SimulatedArm(cfg, model=nominal)
    # J1 has a vertical axis: no gravity; with no controller only friction and the wrench act
    arm.reset(CANDLE)
    arm.integral[:] = 0.0
    z = np.zeros(5)

    def run_with_j1_torque(tau1, seconds=0.3):
        arm.reset(CANDLE)
        arm.kp = arm.ki = arm.kd = z
        arm.integral[:] = 0.0
        # constant motor torque on J1, others get their true gravity (so they stay put)
        g = arm.true_gravity_torque()
        arm.torque_limit = np.full(5, 100.0)
        for _ in range(int(seconds / arm.dt)):
            arm.integral = np.zeros(5)
            arm.kp = z
            # emulate a torque-controlled drive: bias through the integral term
            arm.ki = np.ones(5)
            arm.integral = g + np.array([tau1, 0, 0, 0, 0])
            arm.config.integral_deadband_rad = 1e9   # freeze the integral
            arm.step()
        return arm.q[0] - CANDLE[0], arm.qd[0]

    below = 0.95 * arm.breakaway_pos[0]
    dq, qd = run_with_j1_torque(below)
    assert dq == 0.0 and qd == 0.0
    # between Coulomb and breakaway: a joint at rest stays at rest
    mid = 0.5 * (arm._fcp[0] + arm.breakaway_pos[0])
    dq, _ = run_with_j1_torque(mid)
    assert dq == 0.0
    above = 1.1 * arm.breakaway_pos[0]
    dq, qd = run_with_j1_torque(above)
    assert dq > 1e-3 and qd > 0
    # negative direction uses its own breakaway
    dq, _ = run_with_j1_torque(-0.95 * arm.breakaway_neg[0])
    assert dq == 0.0
    dq, _ = run_with_j1_torque(-1.1 * arm.breakaway_neg[0])
    assert dq < -1e-3


def test_moving_joint_with_torque_between_coulomb_and_breakaway_keeps_moving_then_sticks(nominal):
    cfg = SimConfig(seed=5, current_noise_a=0.0)
    arm = SimulatedArm(cfg, model=nominal)
    arm.move_to(CANDLE + np.array([0.6, 0, 0, 0, 0]), 1.5)
    arm.advance(0.75)
    assert arm.dir[0] == 1 and arm.qd[0] > 0.3        # slipping at speed
    arm.advance(3.0)
    assert arm.dir[0] == 0 and arm.qd[0] == 0.0       # stuck again after the move
    assert abs(arm.q[0] - CANDLE[0] - 0.6) < 3e-3


def test_wrench_at_rest_changes_effort_by_minus_jacobian_transpose(nominal):
    arm = SimulatedArm(SimConfig(seed=9, current_noise_a=0.0, initial_positions_rad=tuple(BENT)),
                       model=nominal)
    arm.advance(0.3)
    e0 = arm.measure().effort_nm
    F = np.array([0.0, 5.0, 10.0, 0.0, 0.0, 0.0])
    arm.apply_wrench(F, axes='base')
    arm.advance(3.0)
    assert np.all(arm.dir == 0)
    m = arm.measure()
    J = nominal.tool_jacobian(arm.q, 'base')
    tau_ext = J.T @ F
    assert np.allclose(m.true_external_torque_nm, tau_ext)
    assert np.allclose(m.true_wrench_base, F)
    dg = arm.true_gravity_torque() - arm.true_gravity_torque(BENT)
    change = m.effort_nm - e0 - dg
    both = 2 * np.maximum(arm.breakaway_pos, arm.breakaway_neg) + 0.01
    assert np.all(np.abs(change + tau_ext) <= both)
    assert np.all(np.abs(tau_ext[:4]) > both[:4] / 2)
    # exact statement at rest: motor torque + J^T F - g is the static friction, inside the band
    static = m.effort_nm + tau_ext - arm.true_gravity_torque()
    assert np.all((static <= arm.breakaway_pos + 0.01) & (static >= -arm.breakaway_neg - 0.01))


def test_wrench_in_tool_axes_and_at_another_frame_are_consistent(nominal):
    arm = SimulatedArm(SimConfig(seed=9, initial_positions_rad=tuple(BENT)), model=nominal)
    F_tool = np.array([1.0, -2.0, 3.0, 0.1, 0.2, -0.3])
    arm.apply_wrench(F_tool, axes='tool')
    base, tool = arm.true_wrench()
    assert np.allclose(tool, F_tool)
    R = nominal.tool_placement(arm.q).rotation
    assert np.allclose(base[:3], R @ F_tool[:3]) and np.allclose(base[3:], R @ F_tool[3:])
    tau_tool = arm.tau_ext.copy()
    arm.apply_wrench(base, axes='base')
    assert np.allclose(arm.tau_ext, tau_tool)
    # the same force applied at the palm frame, moved to the tool point, gives the same torques
    arm.apply_wrench(np.r_[base[:3], 0, 0, 0], frame='gripper_palm_link', axes='base')
    b2, _ = arm.true_wrench()
    J = nominal.tool_jacobian(arm.q, 'base')
    assert np.allclose(arm.tau_ext, J.T @ b2)
    with pytest.raises(SimInputError, match='6 values'):
        arm.apply_wrench([1, 2, 3])
    with pytest.raises(SimInputError, match='non-finite'):
        arm.apply_wrench([np.nan, 0, 0, 0, 0, 0])
    with pytest.raises(SimInputError, match='no frame'):
        arm.apply_wrench(np.ones(6), frame='nowhere')


def test_payload_adds_its_gravity_and_detaches(nominal):
    arm = SimulatedArm(SimConfig(seed=1, initial_positions_rad=tuple(BENT)), model=nominal)
    g0 = arm.true_gravity_torque()
    arm.attach_payload(0.4, [0.0, 0.0, 0.03])
    g1 = arm.true_gravity_torque()
    # the payload weighs like a 0.4 kg point force at its COM
    oMt = nominal.tool_placement(arm.q)
    import pinocchio as pin
    pm = arm.model.model
    fid = pm.addFrame(
        pin.Frame(
            'payload_com', pm.frames[arm.model.tool_frame_id].parentJoint,
            pm.frames[arm.model.tool_frame_id].placement *
            pin.SE3(np.eye(3), np.array([0, 0, 0.03])), pin.FrameType.OP_FRAME)
    ) if not pm.existFrame('payload_com') else pm.getFrameId('payload_com')
    d = pm.createData()
    Jc = pin.computeFrameJacobian(pm, d, arm.q, fid, pin.LOCAL_WORLD_ALIGNED)
    assert np.allclose(g1 - g0, -Jc[:3].T @ np.array([0, 0, -9.81 * 0.4]), atol=1e-9)
    assert oMt.translation[0] > 0.2
    arm.advance(1.0)
    assert np.all(np.abs(arm.measure().effort_nm - g1) <= band(arm))
    arm.attach_payload(0.0)
    assert np.allclose(arm.true_gravity_torque(BENT), g0)
    with pytest.raises(SimInputError, match='payload mass'):
        arm.attach_payload(-1.0)
    with pytest.raises(SimInputError, match='COM'):
        arm.attach_payload(0.2, [0, np.nan, 0])
    with pytest.raises(SimInputError, match='not physical'):
        arm.attach_payload(0.2, [0, 0, 0], [1.0, 0, 0.1, 0, 0, 0.1])


def test_trajectory_is_tracked_with_bounded_error_and_limits_respected(nominal):
    arm = SimulatedArm(SimConfig(seed=2), model=nominal)
    t = np.arange(0.05, 6.0 + 1e-9, 0.05)
    amp = np.array([0.6, 0.4, 0.5, 0.6, 0.8])
    w = 1.2
    pts = [(ti, CANDLE + amp * np.sin(w * ti), amp * w * np.cos(w * ti), []) for ti in t]
    arm.set_trajectory(arm.joint_names, pts)
    err = []
    for _ in range(int(6.0 / arm.dt)):
        arm.step()
        if arm.plan is not None:
            qd_ref, _ = arm.plan.sample(arm.t)
            err.append(np.abs(qd_ref - arm.q))
        assert np.all(arm.q >= arm.lower) and np.all(arm.q <= arm.upper)
    err = np.array(err)
    assert err.max() < 0.03, err.max(0)
    assert np.all(np.abs(arm.tau_motor) <= arm.torque_limit)


def test_end_stop_holds_the_joint_at_its_limit(nominal):
    cfg = SimConfig(seed=3, current_noise_a=0.0)
    arm = SimulatedArm(cfg, model=nominal)
    # J4 at 0.05 rad from its upper limit, drive pushed beyond it by a wrench-free trick:
    q = CANDLE.copy()
    q[3] = arm.upper[3] - 0.05
    arm.reset(q)
    arm.move_to(np.r_[q[:3], arm.upper[3], q[4]], 0.2)
    arm.advance(0.2)
    # a large external torque about J4 (through a tool torque) pushes it into the stop
    J = nominal.tool_jacobian(arm.q, 'base')
    tau_dir = np.linalg.lstsq(J.T, np.array([0, 0, 0, 3.0, 0]), rcond=None)[0]
    arm.apply_wrench(tau_dir, axes='base')
    arm.advance(1.0)
    assert arm.q[3] == arm.upper[3] and arm.qd[3] == 0.0 and arm.stop[3] == 1
    # J2 leaning forward near its upper stop, drives switched off: the arm falls onto the stop
    arm2 = SimulatedArm(
        SimConfig(seed=3, kp_nm_rad=(0.0, ) * 5, ki_nm_rad_s=(0.0, ) * 5,
                  initial_positions_rad=(2.9496, 2.55, -2.5482, 1.789, 2.9234)), model=nominal)
    assert arm2.true_gravity_torque()[1] < -2 * arm2.breakaway_pos[1]  # gravity pulls J2 towards +
    qmax = arm2.q.copy()
    for _ in range(2000):
        arm2.step()
        assert np.all(arm2.q >= arm2.lower) and np.all(arm2.q <= arm2.upper)
        qmax = np.maximum(qmax, arm2.q)
    assert arm2.q[1] == arm2.upper[1] and arm2.stop[1] == 1 and arm2.qd[1] == 0.0


def test_bad_commands_are_rejected_and_nothing_changes(nominal):
    arm = SimulatedArm(SimConfig(seed=1), model=nominal)
    names = list(arm.joint_names)
    cases = [
        (['arm_joint_7'], [(1.0, [0.1], [], [])], 'unknown joint'),
        (['arm_joint_1', 'arm_joint_1'], [(1.0, [0.1, 0.2], [], [])], 'more than once'),
        ([], [(1.0, [], [], [])], 'no joints'),
        (['arm_joint_1'], [], 'no points'),
        (['arm_joint_1'], [(1.0, [np.nan], [], [])], 'not finite'),
        (['arm_joint_1'], [(1.0, [1.0, 2.0], [], [])], '2 positions for 1'),
        (['arm_joint_1'], [(1.0, [1.0], [0.1, 0.2], [])], 'velocities'),
        (['arm_joint_1'], [(1.0, [1.0], [], []), (0.5, [1.2], [], [])], 'increase strictly'),
        (['arm_joint_1'], [(-1.0, [1.0], [], [])], 'negative'),
        (['arm_joint_2'], [(1.0, [3.0], [], [])], 'outside its limits'),
        (['arm_joint_1'], [(1.0, [1.0], [5.0], [])], 'exceeds its limit'),
        (['arm_joint_1'], [(1.0, [1.0], [0.1], []), (2.0, [1.1], [], [])], 'no velocities'),
    ]
    for jn, pts, msg in cases:
        with pytest.raises(TrajectoryError, match=msg):
            arm.set_trajectory(jn, pts)
    assert arm.plan is None
    arm.advance(0.2)
    assert np.allclose(arm.q, CANDLE, atol=1e-3)
    with pytest.raises(SimConfigError, match='coulomb_nm'):
        SimConfig(coulomb_nm=(1.0, 2.0))
    with pytest.raises(SimConfigError, match='breakaway_ratio'):
        SimConfig(breakaway_ratio=0.5)
    with pytest.raises(SimInputError, match='outside'):
        arm.reset(np.r_[CANDLE[:4], 10.0])
    assert names == list(arm.joint_names)


def test_true_parameter_file(nominal, tmp_path):
    import yaml
    arm = SimulatedArm(SimConfig(seed=12), model=nominal)
    p = arm.write_true_parameters(tmp_path / 'sub' / 'truth.yaml')
    d = yaml.safe_load(p.read_text())
    assert d['seed'] == 12 and d['joint_names'] == list(arm.joint_names)
    assert list(
        d['links_true']) == ['arm_link_1', 'arm_link_2', 'arm_link_3', 'arm_link_4', 'arm_link_5']
    assert d['links_true']['arm_link_2']['m'] == pytest.approx(arm.true.standard_parameters[10])
    assert d['friction']['arm_joint_1']['viscous_nm_s_rad'] == 1.0
    assert d['drive_gains_nm_a']['arm_joint_2'] == pytest.approx(5.226)
