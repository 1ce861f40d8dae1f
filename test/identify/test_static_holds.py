# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Static holds in recordings from elsewhere (issue 13 item 2): no sidecar, velocity from encoder
differences (several mrad/s of noise at rest), encoder quantisation, slow drift, moves between
holds (synthetic_static.py). Every hold is found, the moves and a brief pause are not holds (the
pause is reported with its reason), and the gravity parameters of the perturbed truth lie within
the fit's intervals. Unusable samples (NaN, arrays of the wrong length) are reported by count,
field and where, and cost only themselves."""
import numpy as np
import pytest

from robots import panda, ur5
from synthetic_static import perturbed_masses, synthesise, write_bag
from robot_id_ros.cli.main import main
from robot_id_ros.identify import IdentificationOptions, identify_gravity, static_poses
from robot_id_ros.identify.options import IdentificationError
from robot_id_ros.io.bags import JointStateSeries, read_joint_states
from robot_id_ros.model.robot import RobotModel

RATE_HZ = 500.0


@pytest.fixture(scope='module')
def panda_static(tmp_path_factory):
    """(robot, recording, bag without sidecar) of a Panda with perturbed masses."""
    urdf, joints = panda()
    robot = RobotModel(urdf, joints)
    rng = np.random.default_rng(11)
    rec = synthesise(robot, perturbed_masses(robot, rng), rng, rate_hz=RATE_HZ)
    bag = write_bag(tmp_path_factory.mktemp('other_lab') / 'static.mcap', joints, rec)
    return robot, rec, bag


def _at_rest(rec):
    rest = np.zeros(len(rec.t_s), dtype=bool)
    for a, b in rec.hold_spans_s:
        rest |= (rec.t_s >= a) & (rec.t_s <= b)
    return rest


def test_every_hold_found_moves_and_pause_rejected(panda_static):
    robot, rec, bag = panda_static
    # the premise: the recorded velocity at rest is encoder-difference noise of several mrad/s
    rest = _at_rest(rec)
    assert 2e-3 < np.sqrt(np.mean(rec.qd[rest] ** 2)) < 1e-2
    assert np.abs(rec.qd[rest]).max() > 0.01
    assert not (tuple(bag.parent.glob('*.segments.yaml')))
    series = read_joint_states(bag, robot.joint_names)
    poses = static_poses(series, IdentificationOptions(), None, robot)
    assert len(poses) == len(rec.hold_spans_s) == 20
    # each pose is one true hold's mean position (its slow drift included), none a move
    t = series.t_s
    for k, (a, b) in enumerate(rec.hold_spans_s):
        inside = (t >= a) & (t <= b)
        d = np.abs(poses.q - series.q[inside].mean(axis=0)).max(axis=1)
        assert np.sum(d < 2e-4) == 1, (k, np.sort(d)[:2])
    # the torque averaged at each pose is the truth's gravity there (0.05 Nm noise per sample)
    G = np.array([rec.truth.gravity_torque(q) for q in poses.q])
    assert np.abs(poses.tau - G).max() < 0.02
    text = '\n'.join(poses.notes)
    assert '20 hold(s) found without a sidecar' in text
    # the brief pause halfway through a move: rejected, with its time and why
    p0, p1 = rec.pause_span_s
    assert '1 rejected' in text and 'too short' in text, text
    start = float(text.split('1 rejected (')[1].split('-')[0])
    assert p0 - 0.3 < start < p1, (start, rec.pause_span_s)


def test_gravity_parameters_within_their_intervals(panda_static):
    robot, rec, bag = panda_static
    series = read_joint_states(bag, robot.joint_names)
    g = identify_gravity(robot, static_poses(series, IdentificationOptions(), None, robot),
                         IdentificationOptions())
    assert not g.dropped
    truth = g.base.to_base(rec.truth.standard_parameters())
    nominal = g.base.to_base(robot.standard_parameters())
    z = (g.values - truth) / g.ls.std
    inside = (truth >= g.ls.ci_low) & (truth <= g.ls.ci_high)
    assert np.abs(z).max() < 3.3, z                      # none beyond the 99.9 % interval
    assert inside.mean() >= 0.8, z                       # the 95 % intervals hold ~95 %
    # the intervals are tight enough to tell the truth from the URDF the fit started from
    assert np.abs((nominal - truth) / g.ls.std).max() > 10


def test_identify_command_reports_holds(panda_static, tmp_path, capsys):
    """robot-id identify on a UR5 static bag from elsewhere: a static model, holds counted."""
    urdf, joints = ur5()
    robot = RobotModel(urdf, joints)
    rng = np.random.default_rng(12)
    rec = synthesise(robot, perturbed_masses(robot, rng), rng, holds=16, rate_hz=RATE_HZ)
    bag = write_bag(tmp_path / 'ur5_static', joints, rec)
    assert main(['identify', '--urdf', str(urdf), '--joints', ','.join(joints), '--static',
                 str(bag), '--out', str(tmp_path / 'm.yaml')]) == 0
    out = capsys.readouterr().out
    assert '16 hold(s) found without a sidecar' in out, out
    assert 'static: 16 poses' in out and 'too short' in out, out


def test_unusable_samples_reported_and_cost_only_themselves(panda_static, tmp_path):
    robot, rec, _ = panda_static
    names = robot.joint_names
    k0 = int(np.searchsorted(rec.t_s, rec.hold_spans_s[3][0] + 1.0))   # inside hold 4
    k1 = int(np.searchsorted(rec.t_s, rec.hold_spans_s[9][0] + 0.5))   # inside hold 10
    bad = {}
    for k in range(k0, k0 + 5):         # 5 messages: NaN effort on joint 4
        e = rec.effort[k].copy()
        e[3] = np.nan
        bad[k] = (rec.q[k], rec.qd[k], e)
    for k in (k1, k1 + 1, k1 + 2):       # 3 messages: 6 velocities for 7 joints
        bad[k] = (rec.q[k], rec.qd[k][:6], rec.effort[k])
    bag = write_bag(tmp_path / 'glitched.mcap', names, rec, bad)
    series = read_joint_states(bag, names)
    poses = static_poses(series, IdentificationOptions(), None, robot)
    assert len(poses) == 20                                    # no hold lost
    text = '\n'.join(poses.notes)
    line = next(x for x in poses.notes if 'NaN' in x)
    assert (f'5 message(s) left out (joint state effort is NaN or inf for {names[3]}): '
            f'messages {k0}-{k0 + 4}') in line, text
    t_rep = [float(x) for x in line.split(', t ')[1].split(' s')[0].split('-')]
    assert rec.t_s[k0 - 1] - 1e-6 <= t_rep[0] and t_rep[1] <= rec.t_s[k0 + 5] + 1e-6, line
    assert f'3 message(s) left out (joint state velocity has 6 values for 7 names): messages ' \
           f'{k1}-{k1 + 2}' in text, text


def test_in_memory_nan_samples_left_out_with_a_report(panda_static):
    robot, rec, _ = panda_static
    eff = rec.effort.copy()
    eff[1000:1004, 2] = np.inf
    q = rec.q.copy()
    q[20000, 5] = np.nan
    s = JointStateSeries(robot.joint_names, rec.stamps_ns, q, rec.qd, eff, 'memory')
    poses = static_poses(s, IdentificationOptions(), None, robot)
    assert len(poses) == 20
    text = '\n'.join(poses.notes)
    assert f'4 sample(s) left out (effort is NaN or inf for {robot.joint_names[2]}): ' \
           'samples 1000-1003' in text, text
    assert f'1 sample(s) left out (position is NaN or inf for {robot.joint_names[5]}): ' \
           'samples 20000' in text, text


@pytest.mark.parametrize('creep_rad_s, why',
                         [(0.01, 'moving slowly'), (0.05, 'nothing nearly at rest')])
def test_no_hold_says_why(panda_static, creep_rad_s, why):
    """An arm creeping on one joint: no hold, and why."""
    robot, rec, _ = panda_static
    t = np.arange(int(6 * RATE_HZ)) / RATE_HZ
    q = np.tile(rec.q[0], (len(t), 1))
    q[:, 1] += creep_rad_s * t
    s = JointStateSeries(robot.joint_names, rec.stamps_ns[:len(t)], q, None,
                         np.tile(rec.effort[0], (len(t), 1)), 'creep')
    with pytest.raises(IdentificationError) as exc:
        static_poses(s, IdentificationOptions(), None, robot)
    msg = str(exc.value)
    assert 'no static hold found' in msg and why in msg, msg
    assert f'{robot.joint_names[1]} ' in msg and f'at {creep_rad_s:g} rad/s' in msg, msg
