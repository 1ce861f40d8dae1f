# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The force controller's parts on the youBot's kinematics, without the simulator."""
import numpy as np
import pytest

from robot_id_ros.control import ControllerConfig, ForceController, ForceInput
from robot_id_ros.control.admittance import admittance_velocity, dead_band
from robot_id_ros.control.kinematics import ToolVelocityMap
from robot_id_ros.errors import InputError
from robot_id_ros.model.robot import youbot_model

WORK = np.array([2.9496, 1.2, -1.15, 2.8, 2.9234])
CANDLE = np.array([2.9496, 1.1344, -2.5482, 1.789, 2.9234])   # tool 6 cm from joint 1's axis


@pytest.fixture(scope='module')
def robot():
    return youbot_model()


def still(t, force=(0.0, 0.0, 0.0), sigma=(0.5, 0.5, 0.5)):
    return ForceInput(t, np.asarray(force, float), np.asarray(sigma, float))


def test_dead_band_and_modes():
    np.testing.assert_allclose(dead_band([10.0, -3.0, 1.0], [2.0, 2.0, 2.0]), [8.0, -1.0, 0.0])
    c = ControllerConfig(guide_axes=(1.0, 0.0, 1.0), admittance_m_s_n=0.01, dead_band_sigma=2.0)
    v = admittance_velocity('hand_guiding', c, still(0.0, (10.0, 10.0, -10.0), (1.0, 1.0, 1.0)))
    np.testing.assert_allclose(v, [0.08, 0.0, -0.08])          # y not enabled
    c = ControllerConfig(force_axis=(0.0, 0.0, -2.0), force_setpoint_n=5.0,
                         force_admittance_m_s_n=0.002)
    # free space: approach along the axis at admittance x set force; pressed with 5 N: stop
    np.testing.assert_allclose(admittance_velocity('force_hold', c, still(0.0)), [0, 0, -0.01])
    np.testing.assert_allclose(
        admittance_velocity('force_hold', c, still(0.0, (0.0, 0.0, 5.0))), [0, 0, 0], atol=1e-12)
    assert not admittance_velocity('hold', c, still(0.0, (30.0, 0, 0))).any()


def test_config_is_checked():
    with pytest.raises(InputError, match='force_axis'):
        ControllerConfig(force_axis=(0.0, 0.0, 0.0)).validated()
    with pytest.raises(InputError, match='workspace_min_m'):
        ControllerConfig(workspace_min_m=(0.0, 0.0, 1.0), workspace_max_m=(1, 1, 1)).validated()
    with pytest.raises(InputError, match='dither_amplitude_rad'):
        ControllerConfig(dither_amplitude_rad=(0.001, 0.002)).dither_rad(5)


def test_tool_velocity_is_realised_along_every_axis(robot):
    kin = ToolVelocityMap(robot, 0.005, 0.01)
    for axis in range(3):
        v = np.zeros(3)
        v[axis] = 0.02
        jv = kin.map(WORK, v)
        np.testing.assert_allclose(jv.achieved_m_s, v, atol=2e-4)
        assert not jv.unreachable_m_s.any()
        # the tool's orientation is held where the arm can: no pitch or roll rate
        w = robot.tool_jacobian(WORK)[3:] @ jv.qd_rad_s
        assert abs(w[1]) < 1e-3, w


def test_unreachable_direction_is_dropped_and_reported(robot):
    """At the candle pose the tool is 6 cm from joint 1's axis: with a 0.1 m cut-off the
    sideways direction (joint 1 alone) is unreachable; the request along it is reported, not
    commanded."""
    kin = ToolVelocityMap(robot, 0.005, 0.1)
    jv = kin.map(CANDLE, [0.0, 0.02, 0.0])
    assert jv.sigma_min_m < 0.1
    assert np.linalg.norm(jv.unreachable_m_s) > 0.019
    assert np.linalg.norm(jv.achieved_m_s) < 1e-3


def test_null_space_dither_leaves_the_tool_where_it_is(robot):
    kin = ToolVelocityMap(robot, 0.005, 0.01)
    d = kin.null_space_direction(WORK, [0.0, 0.004, 0.004, 0.004, 0.0])
    assert np.max(np.abs(d)) == pytest.approx(0.004)
    assert np.all(np.abs(d[1:4]) > 0.001)                     # joints 2-4 all move
    assert np.linalg.norm(kin.position_jacobian(WORK) @ d) < 1e-9
    p0 = robot.tool_placement(WORK).translation
    assert np.linalg.norm(robot.tool_placement(WORK + d).translation - p0) < 2e-5


def _running(robot, **kw):
    kw.setdefault('ramp_s', 0.5)
    ctl = ForceController(robot, ControllerConfig(mode='hand_guiding', **kw))
    ctl.set_enabled(True, 0.0)
    return ctl


def test_ramp_after_enable_and_mode_change(robot):
    ctl = _running(robot, max_acceleration_m_s2=10.0)
    push = (10.0, 0.0, 0.0)
    speeds = []
    for k in range(1, 121):
        t = k * 0.005
        speeds.append(ctl.step(t, WORK, still(t, push)).tool_velocity_m_s[0])
    want = ctl.config.admittance_m_s_n * (10.0 - 3 * 0.5)
    # the ramp starts at the first step after enabling (5 ms): 0.095 s into a 0.5 s ramp
    assert speeds[19] == pytest.approx(want * 0.19, rel=0.02)
    assert speeds[-1] == pytest.approx(want, rel=0.01)
    ctl.set_mode('force_hold', 0.6)
    cmd = ctl.step(0.605, WORK, still(0.605, push))
    assert cmd.ramp == pytest.approx(0.01)


def test_time_jump_latches_until_enabled_again(robot):
    ctl = _running(robot)
    ctl.step(0.0, WORK, still(0.0))
    cmd = ctl.step(1.0, WORK, still(1.0, (10.0, 0, 0)))          # 1 s step: a time jump
    assert cmd.reason == 'time jump' and not cmd.tool_velocity_m_s.any()
    assert ctl.step(1.005, WORK, still(1.005, (10.0, 0, 0))).reason == 'time jump'
    ctl.set_enabled(True, 1.01)
    assert ctl.step(1.01, WORK, still(1.01, (10.0, 0, 0))).reason == ''


def test_a_joint_that_gave_way_latches_a_stop_at_the_arm(robot):
    """A push its drive cannot hold turns the wrist at a physical speed (1.5 rad/s, the
    youBot's URDF limit is pi/2): 0.2 rad off the reference is within max_joint_deviation_rad
    (0.25), beyond it the joint gave way; the set point is then where the arm is."""
    ctl = _running(robot)
    ctl.step(0.0, WORK, still(0.0))
    t, q = 0.0, WORK.copy()
    reasons = []
    while not reasons or reasons[-1] == '':
        t += 0.005
        q[3] += 1.5 * 0.005
        reasons.append(ctl.step(t, q, still(t)).reason)
    assert reasons[-1] == 'joint gave way' and ctl.joints.rejected == 0
    assert 0.25 < q[3] - WORK[3] < 0.27
    np.testing.assert_allclose(ctl.q_ref, q)         # the set point is where the arm is now
    # a stale measurement of a joint moving at its reference speed is not a joint that gave way
    ctl.qd_ref = np.array([0.0, 0.0, 0.0, 3.0, 0.0])
    late = ctl.q_ref.copy()
    late[3] -= 0.3                                   # 0.1 s old at 3 rad/s: 0.3 rad behind
    assert not ctl._gave_way(late, 0.1) and ctl._gave_way(late, 0.0)
    ctl.qd_ref = np.zeros(5)
    assert ctl.step(t + 0.005, q, still(t + 0.005)).reason == 'joint gave way'    # latched
    ctl.set_enabled(True, t + 0.01)
    assert ctl.step(t + 0.01, q, still(t + 0.01)).reason == ''


def test_disabled_sends_nothing_and_stale_or_uncertain_stops(robot):
    ctl = ForceController(robot, ControllerConfig(mode='hand_guiding'))
    assert not ctl.step(0.0, WORK, still(0.0, (10.0, 0, 0))).send
    ctl.set_enabled(True, 0.0)
    assert ctl.step(0.005, WORK, still(0.005)).send
    assert ctl.step(0.2, WORK, still(0.1)).reason == 'stale estimate'
    big = (10.0, 10.0, 10.0)
    ctl.step(0.205, WORK, still(0.205, sigma=big))               # one sample: not yet
    assert ctl.step(0.21, WORK, still(0.21, sigma=big)).reason == ''
    assert ctl.step(0.26, WORK, still(0.26, sigma=big)).reason == 'sigma above bound'
    assert ctl.step(0.265, WORK, still(0.265, (50.0, 0, 0))).reason == 'collision'


def test_workspace_box_stops_the_tool_at_its_face(robot):
    p = robot.tool_placement(WORK).translation
    ctl = _running(robot, ramp_s=0.0, workspace_min_m=tuple(p - 0.5),
                   workspace_max_m=(p[0] + 0.002, p[1] + 0.5, p[2] + 0.5))
    for k in range(1, 400):
        t = k * 0.005
        ctl.step(t, WORK, still(t, (10.0, 0.0, 0.0)))
    x = robot.tool_placement(ctl.q_ref).translation[0]
    assert p[0] + 0.001 < x <= p[0] + 0.002 + 1e-4


def _stopped_with_offset(robot, relax_s):
    """A controller disabled after running at WORK; the arm then rests 4 mrad past the set
    point on joints 2 and 3 (as a hand pushing on holds it). Returns (controller, arm pose)."""
    ctl = _running(robot, stop_relax_s=relax_s)
    for k in range(1, 21):
        ctl.step(k * 0.005, WORK, still(k * 0.005, (10.0, 0, 0)))
    ctl.set_enabled(False, 0.1)
    for k in range(21, 41):                                   # the stop brakes, completes
        ctl.step(k * 0.005, WORK, still(k * 0.005, (10.0, 0, 0)))
    rest = ctl.q_ref + np.array([0.0, -0.004, 0.004, 0.0, 0.0])
    return ctl, rest


def test_held_set_point_relaxes_to_where_the_arm_rests(robot):
    """After a stop the set point moves to the resting arm at the stop_relax_s rate (the
    drives' integral takes over the P term's torque: no pull back), and is sent while it does,
    disabled or not; then nothing is sent."""
    ctl, rest = _stopped_with_offset(robot, 0.5)
    gap0 = np.max(np.abs(rest - ctl.q_ref))
    sent, gaps = [], []
    for k in range(41, 41 + 200):                             # 1 s
        t = k * 0.005
        cmd = ctl.step(t, rest, still(t, (10.0, 0, 0)))
        sent.append(cmd.send)
        gaps.append(np.max(np.abs(rest - ctl.q_ref)))
    assert cmd.state == 'disabled'
    assert np.all(np.diff(gaps) <= 1e-12)                     # only ever closer to the arm
    # rest detected after REST_S (0.02 s), then exp(-t / 0.5): about exp(-0.98 / 0.5) left
    assert gaps[-1] == pytest.approx(gap0 * np.exp(-0.975 / 0.5), rel=0.1)
    assert all(sent[6:])
    for k in range(241, 241 + 1000):                          # 5 s more: within RELAXED_RAD
        cmd = ctl.step(k * 0.005, rest, still(k * 0.005))
    assert np.max(np.abs(rest - ctl.q_ref)) < 1e-4 and not cmd.send


def test_held_set_point_stays_without_relax_or_while_the_arm_moves(robot):
    ctl, rest = _stopped_with_offset(robot, 0.0)
    q0 = ctl.q_ref.copy()
    for k in range(41, 141):
        ctl.step(k * 0.005, rest, still(k * 0.005))
    assert np.array_equal(ctl.q_ref, q0)
    ctl, rest = _stopped_with_offset(robot, 0.5)
    q0 = ctl.q_ref.copy()
    for k in range(41, 141):                                  # the arm moving: 10 mrad/s
        ctl.step(k * 0.005, rest + 0.01 * k * 0.005, still(k * 0.005))
    assert np.array_equal(ctl.q_ref, q0)


def test_contact_probe_of_a_blocked_tool_does_not_wind_up(robot):
    """Without dither force_hold presses at the approach speed until the estimate reads the set
    force (the contact probe); a tool that does not follow (blocked: the measured joints do
    not move, the estimate reads 1 N informatively) ends the probe once the reference leads by
    force_max_lead_m: from then on the lead only creeps (the admittance law's bound). Without
    the guard the reference ran on at 10 mm/s (20 mm in 2 s)."""
    c = ControllerConfig(force_axis=(0.0, 0.0, -1.0), force_setpoint_n=5.0,
                         force_admittance_m_s_n=0.002, ramp_s=0.0, force_max_lead_m=0.001)
    ctl = ForceController(robot, c)
    ctl.set_mode('force_hold', 0.0)
    ctl.set_enabled(True, 0.0)
    assert ctl._probe == 'press'
    for k in range(400):                          # 2 s at 200 Hz, the tool blocked at WORK
        t = k / 200.0
        ctl.step(t, WORK, still(t, (0.0, 0.0, 1.0), (0.2, 0.2, 0.2)))
    lead = ctl.kin.tool_position_m(WORK)[2] - ctl.kin.tool_position_m(ctl.q_ref)[2]
    assert ctl._probe is None
    assert 0.0 < lead < 0.004, lead
    dithered = ForceController(robot, ControllerConfig(dither_amplitude_rad=(0.004,)))
    dithered.set_enabled(True, 0.0)
    assert dithered._probe is None                # with dither the estimate needs no probe


def _dither_rad(ctl, cmd):
    """Return the dither in a running command: the set point minus the reference's."""
    period = cmd.t_s - ctl._t_prev
    return cmd.q_rad - (ctl.q_ref + ctl.qd_ref * period)


def test_dither_switches_off_on_a_joint_the_reference_moves(robot):
    """Joint 1 guided along the arm plane's normal at ~0.1 rad/s against its dither's peak
    0.004 rad x 2 pi x 4 Hz = 0.1 rad/s would graze zero velocity once a period (and stick):
    its dither goes off once its reference moves faster than a tenth of that, at a zero
    crossing of the dither (the set point continuous), and fades back in once the push ends.
    The null-space dither (joints 2-4, which do not move) stays."""
    ctl = _running(robot, dither_amplitude_rad=(0.004, 0.0, 0.0, 0.0, 0.0),
                   dither_null_rad=(0.0, 0.004, 0.004, 0.004, 0.0), dither_frequency_hz=4.0,
                   max_acceleration_m_s2=10.0)
    peak = 0.004 * 2.0 * np.pi * 4.0
    dt = 0.005

    def run(t0, t1, force):
        out = []
        for k in range(int(round(t0 / dt)), int(round(t1 / dt))):
            t = (k + 1) * dt
            cmd = ctl.step(t, WORK, still(t, force))
            out.append((abs(ctl.qd_ref[0]), _dither_rad(ctl, cmd), cmd.q_rad[0]))
        return (np.array([o[0] for o in out]), np.array([o[1] for o in out]),
                np.array([o[2] for o in out]))

    _, d, _ = run(0.0, 1.0, (0.0, 0.0, 0.0))                   # at rest: full dither
    assert np.max(np.abs(d[-50:, 0])) == pytest.approx(0.004, rel=0.02)
    speed, d, q1 = run(1.0, 2.0, (0.0, 10.0, 0.0))             # pushed along y
    assert np.min(speed[-50:]) > peak                           # joint 1's reference moves
    assert np.max(np.abs(d[-50:, 0])) < 1e-5                   # ... without its dither
    assert np.max(np.abs(d[-50:, 1:4])) > 0.003                # the null-space dither stays
    # no jump in the set point: each step at most the reference's and the dither's peak speed
    assert np.max(np.abs(np.diff(q1))) < 1.05 * (np.max(speed) + peak) * dt
    _, d, _ = run(2.0, 3.0, (0.0, 0.0, 0.0))                   # the push ends
    assert np.max(np.abs(d[-50:, 0])) == pytest.approx(0.004, rel=0.02)
