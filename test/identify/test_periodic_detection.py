# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Periodic processing only for runs whose every whole cycle repeats (issue 13, foreign runs)."""
import numpy as np

from robots import ur5
from robot_id_ros.identify import IdentificationOptions
from robot_id_ros.identify.trajectories import prepare_trajectory
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.model.robot import RobotModel

RATE_HZ = 200.0
PERIOD_S = 4.0


def _run(robot, fade):
    """Four 4-s cycles of a multi-sine; with ``fade`` the fourth fades out to rest and stays."""
    t = np.arange(int(4 * PERIOD_S * RATE_HZ)) / RATE_HZ
    w = 2 * np.pi / PERIOD_S
    amp = np.linspace(0.3, 0.6, robot.n)
    s, ds = np.sin(w * t) + 0.3 * np.sin(3 * w * t), w * (np.cos(w * t) + 0.9 * np.cos(3 * w * t))
    x = np.clip((t - 3 * PERIOD_S) / 2.0, 0.0, 1.0) if fade else np.zeros_like(t)
    win = 0.5 * (1 + np.cos(np.pi * x))
    dwin = np.where((x > 0) & (x < 1), -0.5 * np.pi * np.sin(np.pi * x) / 2.0, 0.0)
    Q = 0.3 + amp * (win * s)[:, None]
    QD = amp * (dwin * s + win * ds)[:, None]
    E = np.array([robot.inverse_dynamics(q, qd, 0 * qd) for q, qd in zip(Q, QD)])
    stamps = 1_700_000_000 * 10 ** 9 + np.round(t * 1e9).astype(np.int64)
    return JointStateSeries(robot.joint_names, stamps, Q, QD, E, 'run'), t, QD


def test_a_run_that_stops_after_its_cycles_is_not_processed_as_periodic():
    """Three cycles, then a fade-out to rest over the fourth: Fourier derivatives would wrap.

    Before, only the first two cycles were compared: the run was called periodic (4 cycles) and
    its velocity over the fade-out and rest was off by up to 0.3 rad/s; now it takes the
    non-periodic path and follows the truth there.
    """
    robot = RobotModel(*ur5())
    opts = IdentificationOptions()
    s, t, QD = _run(robot, fade=False)
    assert prepare_trajectory(s, opts, None, robot).method == 'periodic'
    s, t, QD = _run(robot, fade=True)
    tr = prepare_trajectory(s, opts, None, robot)
    assert tr.method != 'periodic', tr.method
    end = tr.t_s > 3 * PERIOD_S
    truth = np.array([np.interp(tr.t_s[end], t, QD[:, j]) for j in range(robot.n)]).T
    assert np.abs(tr.qd[end] - truth).max() < 0.02, np.abs(tr.qd[end] - truth).max()


def test_a_start_up_transient_is_left_out_of_the_periodic_path():
    """A first cycle that settles (a 5 mrad offset decaying over 0.5 s, the arm's controller
    starting from rest) would get the cycles' mean velocity from the Fourier series. It is left out
    (three cycles stay, with a note), and the velocity follows the truth on every kept sample; a
    run whose cycles repeat keeps all four."""
    robot = RobotModel(*ur5())
    opts = IdentificationOptions(period_s=PERIOD_S)
    s, t, QD = _run(robot, fade=False)
    tr = prepare_trajectory(s, opts, None, robot)
    assert tr.cycles == 4, tr.notes
    offset = 0.005 * np.exp(-t / 0.5)
    s.q = s.q + offset[:, None]
    truth_qd = QD - (offset / 0.5)[:, None]
    tr = prepare_trajectory(s, opts, None, robot)
    assert tr.method == 'periodic' and tr.cycles == 3, (tr.method, tr.cycles)
    assert tr.t_s[0] >= PERIOD_S - 1.0 / RATE_HZ
    assert any('start-up transient' in n for n in tr.notes), tr.notes
    truth = np.array([np.interp(tr.t_s, t, truth_qd[:, j]) for j in range(robot.n)]).T
    err = np.abs(tr.qd - truth).max()
    assert err < 2e-3, err
