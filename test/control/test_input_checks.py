# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the force controller accepts from its inputs, and the limit on every new reference.

On the youBot's kinematics without the simulator (``ForceController`` stepped at 200 Hz with the
measured joints at the work pose). Before these checks a NaN force reached the Jacobian's SVD
(LinAlgError) and a forged joint state became the set point of the next stop or enable.
"""
import numpy as np
import pytest

from robot_id_ros.control import ControllerConfig, ForceController, ForceInput
from robot_id_ros.control.input_checks import JointStateCheck, estimate_problem
from robot_id_ros.control.setpoint_guard import limit_reference
from robot_id_ros.model.robot import youbot_model

WORK = np.array([2.9496, 1.2, -1.15, 2.8, 2.9234])
FORGED = WORK + np.array([2.0, 0.0, 0.0, 0.0, 0.0])
DT = 0.005
FRAME = 'arm_link_0'


@pytest.fixture(scope='module')
def robot():
    return youbot_model()


def est(t, force=(0.0, 0.0, 0.0), sigma=(0.3, 0.3, 0.3), frame=FRAME):
    return ForceInput(t, np.asarray(force, float), np.asarray(sigma, float), frame_id=frame)


def running(robot, mode='hold', steps=20, **kw):
    """A controller enabled in ``mode`` and stepped ``steps`` times at WORK; returns (ctl, t)."""
    ctl = ForceController(robot, ControllerConfig(mode=mode, ramp_s=0.0, **kw))
    ctl.step(0.0, WORK, est(0.0))
    ctl.set_enabled(True, 0.0)
    t = 0.0
    for _ in range(steps):
        t += DT
        ctl.step(t, WORK, est(t))
    return ctl, t


def test_joint_state_check_rejects_jumps_and_counts_them():
    check = JointStateCheck(np.full(5, np.pi), 0.005, 0.1, 0.05)
    assert check.problem(0.0) == 'no joint states'
    check.offer(WORK, 1.0, 0.0)
    assert check.problem(0.0) == ('no usable joint states (1 rejected: joint state stamped '
                                  '1.000 s ahead of the clock)')
    assert check.offer(WORK, 0.0, 0.0) is None
    moving = WORK + np.array([0.0, 0.0, 0.0, 0.015, 0.0])       # 3 rad/s over 5 ms: physical
    assert check.offer(moving, DT, DT) is None
    problem = check.offer(FORGED, 2 * DT, 2 * DT)
    assert problem.startswith('joint 1 moved 2.000 rad in 0.005 s'), problem
    assert check.rejected == 2 and np.array_equal(check.q, moving)
    assert check.problem(2 * DT) is None                      # the stream itself is fine
    assert check.problem(2 * DT, strict=True).startswith('joint states inconsistent (2 rejected')
    assert check.problem(0.2, strict=True).startswith('joint states stale')
    assert check.offer(moving, 3 * DT + 1.0, 3 * DT) == \
        'joint state stamped 1.000 s ahead of the clock'
    assert check.offer([np.nan] * 5, 3 * DT, 3 * DT).startswith('joint state not finite')
    assert check.rejected == 4
    check.offer(moving, 0.15, 0.15)
    assert check.problem(0.16, strict=True) is None           # quiet for the window: usable


def test_a_rejected_stream_that_persists_becomes_the_new_start():
    """The first joint state was the wrong one (or the arm moved while none came): the real
    stream is rejected until it has been continuous for joint_state_timeout_s, then taken; the
    joint states count as inconsistent (a stop reason) for that long after."""
    check = JointStateCheck(np.full(5, np.pi), 0.005, 0.1, 0.05)
    check.offer(FORGED, 0.0, 0.0)
    t, answers = 0.0, []
    while check.q is None or not np.array_equal(check.q, WORK):
        t += DT
        answers.append(check.offer(WORK, t, t))
    assert 0.1 <= t < 0.1 + 2 * DT and 'taken as the new start' in answers[-1]
    assert check.problem(t).startswith('joint states inconsistent')
    t_new = t
    while t < t_new + 0.11:
        t += DT
        assert check.offer(WORK, t, t) is None
    assert check.problem(t) is None


@pytest.mark.parametrize('inp, reason', [
    (est(1.0, force=(np.nan, 0.0, 0.0)), 'estimate not finite'),
    (est(1.0, sigma=(0.3, np.nan, 0.3)), 'estimate sigma not finite'),
    (est(1.0, sigma=(0.3, -1.0, 0.3)), 'estimate sigma not finite'),
    (est(3601.0), 'estimate stamped ahead of the clock'),
    (est(0.5), 'stale estimate'),
    (est(1.0, frame='arm_link_5'), "estimate in frame 'arm_link_5', expected 'arm_link_0'"),
    (est(1.0, frame=''), "estimate without a frame_id, expected 'arm_link_0'"),
    (est(1.0 + 0.04), None), (est(1.0, frame=None), None)])
def test_estimate_problems(inp, reason):
    assert estimate_problem(inp, 1.0, 0.05, 0.05, FRAME) == reason


@pytest.mark.parametrize('bad', [
    dict(force=(np.nan, 0.0, 0.0)), dict(sigma=(0.3, np.nan, 0.3)), dict(frame='arm_link_5')])
def test_a_bad_estimate_stops_from_the_reference_and_nothing_is_not_finite(robot, bad):
    """Hand guiding under a 10 N push (the arm one step behind its reference); one bad
    estimate: a stop (no exception, a finite set point continuous with the last), then running
    again on the next good one."""
    ctl, t = running(robot, 'hand_guiding')
    for _ in range(20):
        t += DT
        last = ctl.step(t, ctl.q_ref, est(t, (10.0, 0.0, 0.0)))
    t += DT
    cmd = ctl.step(t, ctl.q_ref, est(t, **{'force': (10.0, 0.0, 0.0), **bad}))
    assert cmd.state == 'stopping' and cmd.reason.startswith('estimate'), cmd.reason
    assert np.all(np.isfinite(cmd.q_rad)) and np.all(np.isfinite(cmd.qd_rad_s))
    assert np.max(np.abs(cmd.q_rad - last.q_rad)) <= ctl.config.max_joint_speed_rad_s * 3 * DT
    t += DT
    assert ctl.step(t, ctl.q_ref, est(t, (10.0, 0.0, 0.0))).reason == ''


def test_an_estimate_stamped_ahead_does_not_keep_the_tool_moving(robot):
    """One estimate stamped an hour ahead and nothing after it: never stale before, it kept
    the tool moving; now it stops at once."""
    ctl, t = running(robot, 'hand_guiding')
    ahead = est(t + 3600.0, (10.0, 0.0, 0.0))
    reasons = []
    for _ in range(40):
        t += DT
        reasons.append(ctl.step(t, WORK, ahead).reason)
    assert set(reasons) == {'estimate stamped ahead of the clock'}
    assert ctl.state == 'stopped'


@pytest.mark.parametrize('when', ['hold', 'stop'])
def test_a_forged_joint_state_is_no_set_point(robot, when):
    """Holding, or at the step a disable arrives, a joint state 2 rad off on joint 1 is not
    used (counted): no set point steps farther than the joint speed limit allows. Before, the
    stop took it as its set point (a 2 rad step)."""
    ctl, t = running(robot, 'hold')
    last = ctl.step(t + DT, WORK, est(t + DT))
    t += 2 * DT
    if when == 'stop':
        ctl.set_enabled(False, t)
    sent = [last.q_rad]
    for q in (FORGED, WORK, FORGED, WORK, FORGED, WORK, WORK, WORK):
        cmd = ctl.step(t, q, est(t))
        if cmd.send:
            sent.append(cmd.q_rad)
        t += DT
    steps = np.max(np.abs(np.diff(sent, axis=0)), axis=1)
    assert np.max(steps) <= ctl.config.max_joint_speed_rad_s * 2 * DT + 1e-9, steps
    assert ctl.joints.rejected == 3
    assert np.max(np.abs(ctl.q_ref - WORK)) < 1e-6


def test_enable_is_refused_while_joint_states_are_absent_or_inconsistent(robot):
    ctl = ForceController(robot, ControllerConfig(mode='hold'))
    assert ctl.enable_problem(0.0) == 'no joint states'
    ctl.step(0.0, WORK, est(0.0))
    assert ctl.enable_problem(0.0) is None
    ctl.step(DT, FORGED, est(DT))
    assert ctl.enable_problem(DT).startswith('joint states inconsistent (1 rejected: joint 1')
    # enabled anyway, the reference is not taken until the joint states are consistent, and
    # then from the accepted ones
    ctl.set_enabled(True, DT)
    t, first = DT, None
    while first is None:
        t += DT
        cmd = ctl.step(t, WORK, est(t))
        first = cmd.q_rad if cmd.send else None
    assert t > ctl.config.joint_state_timeout_s
    np.testing.assert_allclose(first, WORK, atol=1e-9)
    assert ctl.enable_problem(t + 1.0).startswith('joint states stale')


def test_limit_reference_holds_the_speed_the_arm_and_the_box(robot):
    from robot_id_ros.control.kinematics import ToolVelocityMap
    tool = ToolVelocityMap(robot, 0.005, 0.01).tool_position_m
    p = tool(WORK)
    box = (p - 0.5, p + 0.5)
    out = limit_reference(WORK, FORGED, DT, 0.5, tool, box)
    np.testing.assert_allclose(out - WORK, [0.5 * DT, 0, 0, 0, 0], atol=1e-9)
    # onto the measured arm (a joint that gave way): allowed, as far as the arm is
    arm = WORK + np.array([0.0, 0.0, 0.0, 0.3, 0.0])
    np.testing.assert_allclose(limit_reference(WORK, arm, DT, 0.5, tool, box, arm), arm)
    # not past the arm's reach in that time
    out = limit_reference(WORK, FORGED, DT, 0.5, tool, box, arm)
    assert out[0] - WORK[0] == pytest.approx(0.5 * DT)
    # a box whose face is 1 mm ahead along x: the reference stops there
    near = (p - 0.5, np.array([p[0] + 1e-3, p[1] + 0.5, p[2] + 0.5]))
    far = WORK + np.array([0.0, 0.05, -0.05, 0.0, 0.0])
    out = limit_reference(WORK, far, 1.0, 0.5, tool, near)
    assert tool(out)[0] <= p[0] + 1e-3 + 1e-5 < tool(far)[0]
    assert np.array_equal(limit_reference(WORK, WORK * np.nan, DT, 0.5, tool, box), WORK)
