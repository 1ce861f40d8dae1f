# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Lost messages (issue 13): the gap a run is cut at follows its sample interval and motion.

A 50 Hz driver that drops 3 messages leaves a 0.08 s gap. The fixed rule (cut above 0.05 s and
3 intervals) cut a 50 Hz run at each such gap: with a burst every 0.8 s every piece was shorter
than 1 s and identify and validate refused the run ('no piece between gaps is 1 s long'). The
spline bridges a gap of 0.05 of the motion's shortest period (acceleration within ~1 % of that
harmonic's) where the effort is one smooth curve across it; a gap near a joint's reversal, where
the effort steps with the friction, and a real pause are still cut.
"""
import numpy as np
import pytest

from robots import ur5
from robot_id_ros.identify import validate
from robot_id_ros.identify.options import IdentificationError
from robot_id_ros.identify.samples import SPLIT_GAP_MAX_S, split_at_gaps
from robot_id_ros.signals import velocity_bandwidth_hz
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import RobotModel

PERIOD_S = 10.0
STAMP0_NS = 1_700_000_000 * 10 ** 9
NOISE_NM = 0.02
COULOMB_NM = 0.5
SIGN_VELOCITY_RAD_S = 0.02


def _friction(n):
    fc = np.full(n, COULOMB_NM)
    return FrictionModel(fc, fc, np.zeros(n), np.zeros(n), sign_velocity_rad_s=SIGN_VELOCITY_RAD_S)


@pytest.fixture(scope='module')
def robot():
    urdf, joints = ur5()
    return RobotModel(urdf, joints)


def _run(robot, rate_hz, periods=3):
    """(t, Q, QD, effort): a two-harmonic motion (0.1 and 0.3 Hz) of the first three joints,
    RNEA + a smooth Coulomb friction + noise, Nm."""
    t = np.arange(int(periods * PERIOD_S * rate_hz)) / rate_hz
    w = 2 * np.pi / PERIOD_S
    amp = np.array([0.8, 1.0, 1.2, 0.0, 0.0, 0.0])       # the wrist at rest
    ph = np.linspace(0.0, 2.5, robot.n)
    Q = 0.3 + amp * (np.sin(w * t[:, None] + ph) + 0.3 * np.sin(3 * w * t[:, None] + 2 * ph))
    QD = amp * w * (np.cos(w * t[:, None] + ph) + 0.9 * np.cos(3 * w * t[:, None] + 2 * ph))
    QDD = -amp * w ** 2 * (np.sin(w * t[:, None] + ph)
                           + 2.7 * np.sin(3 * w * t[:, None] + 2 * ph))
    E = np.array([robot.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    E += _friction(robot.n).torque(QD)
    E += NOISE_NM * np.random.default_rng(5).standard_normal(E.shape)
    return t, Q, QD, E


def _series(robot, t, Q, QD, E, keep):
    stamps = STAMP0_NS + np.round(t[keep] * 1e9).astype(np.int64)
    return JointStateSeries(robot.joint_names, stamps, Q[keep], QD[keep], E[keep], 'run')


def _reversals(QD):
    """(N,) bool: a joint's velocity changes sign between this sample and the next."""
    r = np.zeros(len(QD), bool)
    r[:-1] = (np.sign(QD[:-1]) != np.sign(QD[1:])).any(axis=1)
    return r


def _bursts(t, QD, every_s, lost, clear_s=0.1):
    """Keep mask: ``lost`` messages dropped every ``every_s`` s where every joint moves.

    Each burst lies ``clear_s`` or more from any sample with a moving joint slower than 5 x the
    friction sign velocity (where the friction, and so the effort, turns).
    """
    keep = np.ones(len(t), bool)
    moving = np.abs(QD).max(axis=0) > 0
    slow = np.flatnonzero((np.abs(QD[:, moving]) < 5 * SIGN_VELOCITY_RAD_S).any(axis=1))
    rate = 1 / (t[1] - t[0])
    k = int(rate)
    while k + lost + 2 < len(t):
        if slow.size and np.min(np.abs(t[slow] - t[k])) < clear_s + lost / rate:
            k += 1
            continue
        keep[k:k + lost] = False
        k += int(every_s * rate)
    return keep


@pytest.mark.parametrize('rate_hz,lost', [(50.0, 3), (200.0, 15)])
def test_lost_messages_are_bridged(robot, rate_hz, lost):
    """0.08 s gaps every 0.8 s: one run, and the true model's error stays the noise's."""
    t, Q, QD, E = _run(robot, rate_hz)
    keep = _bursts(t, QD, 0.8, lost)
    assert (~keep).sum() >= 15 * lost
    lossy = _series(robot, t, Q, QD, E, keep)
    pieces, lines = split_at_gaps(lossy)
    assert len(pieces) == 1 and lines == [], lines
    truth = nominal_model(robot, _friction(robot.n))
    clean = validate(truth, _series(robot, t, Q, QD, E, np.ones(len(t), bool))).metrics
    m = validate(truth, lossy).metrics
    assert m['relative_error'] < 1.2 * clean['relative_error'], (m, clean)
    assert np.allclose(m['rmse_nm'], NOISE_NM, rtol=0.25), m['rmse_nm']


def test_a_gap_at_a_reversal_and_a_pause_are_still_cut(robot):
    t, Q, QD, E = _run(robot, 50.0)
    keep = np.ones(len(t), bool)
    i = np.flatnonzero(_reversals(QD) & (t > 5.0))[0]
    keep[i - 1:i + 2] = False                              # 3 lost around a reversal
    j = np.searchsorted(t, 20.0)
    keep[j:j + int(1.2 * SPLIT_GAP_MAX_S * 50)] = False       # a pause of 0.3 s
    pieces, lines = split_at_gaps(_series(robot, t, Q, QD, E, keep))
    assert len(pieces) == 3, lines
    text = '\n'.join(lines)
    assert 'cut at 2 gap(s)' in text and '1 of them' in text and 'effort stepping' in text, text


def test_every_piece_short_is_one_clear_error(robot):
    t, Q, QD, E = _run(robot, 50.0, periods=1)
    keep = np.ones(len(t), bool)
    keep[::20] = False
    keep[1::20] = False
    keep[2::20] = False
    keep[3::20] = False
    keep[4::20] = False
    keep[5::20] = False
    keep[6::20] = False
    keep[7::20] = False                                     # 0.18 s gaps every 0.4 s
    with pytest.raises(IdentificationError, match='no piece between gaps is 1 s long'):
        split_at_gaps(_series(robot, t, Q, QD, E, keep))


def test_velocity_bandwidth_of_a_band_limited_motion():
    rate = 50.0
    t = np.arange(int(60 * rate)) / rate
    X = np.column_stack([np.sin(2 * np.pi * 0.1 * t), 0.2 * np.sin(2 * np.pi * 0.5 * t + 1)])
    keep = np.ones(len(t), bool)
    keep[500:504] = False                                   # gaps are allowed
    assert velocity_bandwidth_hz(t[keep], X[keep]) == pytest.approx(0.5, abs=0.03)
    assert velocity_bandwidth_hz(t, np.zeros((len(t), 2))) is None


def test_a_piece_before_the_excitation_periods_is_left_out_of_the_held_out_figures(robot):
    """A recorder starts recording before the excitation (the wait and the ramp in); a pause
    there (a loaded machine's late messages) cuts the held-out run into a piece before the
    sidecar's excitation periods and one holding them. The figures are over the periods, so the
    first piece has nothing to add; it was cut to no sample and validate stopped with an
    IndexError traceback."""
    t, Q, QD, E = _run(robot, 50.0)
    keep = np.ones(len(t), bool)
    j = np.searchsorted(t, 5.0)
    keep[j:j + int(1.2 * SPLIT_GAP_MAX_S * 50)] = False       # a pause of 0.3 s at 5 s
    paused = _series(robot, t, Q, QD, E, keep)
    assert len(split_at_gaps(paused)[0]) == 2
    periods = {'kind': 'trajectory', 'segments': [
        {'type': 'excitation_period', 't_start_ns': STAMP0_NS + int((k + 1) * PERIOD_S * 1e9),
         't_end_ns': STAMP0_NS + int((k + 2) * PERIOD_S * 1e9)} for k in range(2)]}
    truth = nominal_model(robot, _friction(robot.n))
    m = validate(truth, paused, None, periods).metrics
    whole = validate(truth, _series(robot, t, Q, QD, E, np.ones(len(t), bool)), None,
                     periods).metrics
    assert m['samples'] == whole['samples'], (m['samples'], whole['samples'])
    np.testing.assert_allclose(m['rmse_nm'], whole['rmse_nm'], rtol=1e-9)
