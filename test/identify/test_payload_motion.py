# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Payload from any motion on synthetic truth (issue 13, item 5): not youBot-specific.

The payload regressor is checked against Pinocchio's RNEA of the arm with the payload body added
(youBot and the UR5 of example-robot-data). Then, on a perturbed UR5 with friction, torques along
a Fourier excitation are synthesised by RNEA with a 1 kg box payload (its own inertia) plus white
noise; the unloaded model is identified (``identify``) on another run without the payload, and
``payload_from_trajectory`` must recover the mass, the COM and (the exact model given) the
inertia about the COM, each within 3 of its reported standard deviations.
"""
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robot_id_ros.identify import IdentificationOptions, Trajectory, identify  # noqa: E402
from robot_id_ros.identify.payload import (identify_payload, payload_from_trajectory,  # noqa
                                           payload_motion_regressor, payload_regressor,
                                           tool_to_joint_parameters)
from robot_id_ros.io.model_file import nominal_model  # noqa: E402
from robot_id_ros.model.friction import FrictionModel  # noqa: E402
from robot_id_ros.model.robot import RobotModel, youbot_model  # noqa: E402

from test_identification import fourier_trajectory, perturbed, synthetic_series  # noqa: E402

MASS_KG = 1.0
COM_TOOL_M = np.array([0.02, -0.01, 0.06])
# a 0.3 x 0.2 x 0.1 m box of 1 kg, turned about z: inertia about its COM in tool axes
_R = pin.utils.rotate('z', 0.4)
INERTIA_COM = _R @ np.diag([0.0042, 0.0083, 0.0108]) @ _R.T
SIX = (INERTIA_COM[0, 0], INERTIA_COM[0, 1], INERTIA_COM[1, 1], INERTIA_COM[0, 2],
       INERTIA_COM[1, 2], INERTIA_COM[2, 2])


def ur5_robot():
    from robots import ur5
    return RobotModel(*ur5())


def with_payload(robot, mass_kg=MASS_KG, com_m=COM_TOOL_M, inertia=INERTIA_COM):
    """A copy of ``robot`` carrying the payload body at its tool frame."""
    r = robot.copy()
    last = r.model.njoints - 1
    tool = r.model.frames[r.tool_frame_id].placement
    r.model.inertias[last] = r.model.inertias[last] + tool.act(pin.Inertia(mass_kg, com_m,
                                                                           inertia))
    return r


@pytest.mark.parametrize('make', [youbot_model, ur5_robot])
def test_payload_regressor_is_the_torque_of_the_payload_body(make):
    robot = make()
    t, Q, QD, QDD = fourier_trajectory(robot, np.random.default_rng(2), periods=1, rate_hz=5.0)
    loaded = with_payload(robot)
    dtau = np.array([loaded.inverse_dynamics(*s) - robot.inverse_dynamics(*s)
                     for s in zip(Q, QD, QDD)])
    pi = pin.Inertia(MASS_KG, COM_TOOL_M, INERTIA_COM).toDynamicParameters()
    Y = payload_motion_regressor(robot, Q, QD, QDD)
    assert np.abs(dtau).max() > 0.5
    assert np.allclose(Y @ pi, dtau.ravel(), atol=1e-10 * np.abs(dtau).max())
    # at rest only (m, m c) act: the static regressor is those columns
    assert np.allclose(payload_motion_regressor(robot, Q[:3])[:, 4:], 0.0)
    assert np.allclose(payload_regressor(robot, Q[:3]),
                       payload_motion_regressor(robot, Q[:3], 0 * Q[:3], 0 * Q[:3])[:, :4])


def test_tool_to_joint_map_is_pinocchios_transformation():
    rng = np.random.default_rng(4)
    M = pin.SE3(pin.utils.rpyToMatrix(*rng.normal(size=3)), rng.normal(size=3) * 0.1)
    body = pin.Inertia(0.7, rng.normal(size=3) * 0.05, INERTIA_COM)
    assert np.allclose(tool_to_joint_parameters(M) @ body.toDynamicParameters(),
                       M.act(body).toDynamicParameters(), atol=1e-12)


SIGMA_NM = np.linspace(0.08, 0.01, 6)
FRICTION = FrictionModel(np.linspace(0.3, 0.05, 6), np.linspace(0.25, 0.04, 6),
                         np.linspace(0.5, 0.03, 6), np.zeros(6))


def _run(truth, seed, rng, periods=4):
    """Trajectory (exact derivatives) of ``truth`` with friction and noise."""
    t, Q, QD, QDD = fourier_trajectory(truth, np.random.default_rng(seed), periods=periods)
    tau = np.array([truth.inverse_dynamics(*s) for s in zip(Q, QD, QDD)]) + FRICTION.torque(QD)
    tau += rng.normal(size=tau.shape) * SIGMA_NM
    return Trajectory(t, Q, QD, QDD, tau, 200.0, 'exact', 0.0, source=f'run {seed}')


def make_ur5_world():
    """(model identified without payload, exact unloaded model, loaded Trajectory) of a UR5."""
    robot = ur5_robot()
    rng = np.random.default_rng(7)
    truth = perturbed(robot, rng)
    t, Q, QD, QDD = fourier_trajectory(robot, np.random.default_rng(11), periods=4)
    train, _ = synthetic_series(truth, FRICTION, t, Q, QD, QDD, SIGMA_NM, rng, source='train')
    opts = IdentificationOptions(max_samples=4000, min_velocity_rad_s=0.0)
    model = identify(robot, data=[train], options=opts).model
    loaded = _run(with_payload(truth), 12, rng)
    exact = nominal_model(truth, FRICTION)
    return model, exact, loaded


@pytest.fixture(scope='module')
def ur5_world():
    return make_ur5_world()


def _within(value, std, truth, k=3.0):
    return np.all(np.abs(np.asarray(value) - truth) < k * np.asarray(std))


def test_ur5_payload_from_a_trajectory_with_an_identified_model(ur5_world):
    model, _, loaded = ur5_world
    r = payload_from_trajectory(model, loaded)
    pl = r.payload
    assert r.method == 'trajectory'
    assert abs(pl.mass_kg - MASS_KG) / MASS_KG < 0.02, (pl.mass_kg, pl.mass_std_kg)
    assert np.linalg.norm(pl.com_m - COM_TOOL_M) < 0.003, (pl.com_m, pl.com_std_m)
    assert _within(pl.mass_kg, pl.mass_std_kg, MASS_KG), (pl.mass_kg, pl.mass_std_kg)
    assert _within(pl.com_m, pl.com_std_m, COM_TOOL_M), (pl.com_m, pl.com_std_m)
    if r.inertia_kg_m2 is not None:   # elements reported are right within their intervals
        ok = np.isfinite(r.inertia_kg_m2)
        assert _within(r.inertia_kg_m2[ok], r.inertia_std_kg_m2[ok], np.array(SIX)[ok])


def test_ur5_payload_inertia_with_the_exact_unloaded_model(ur5_world):
    _, exact, loaded = ur5_world
    r = payload_from_trajectory(exact, loaded)
    pl = r.payload
    assert r.inertia_status == 'excited', r.to_dict()
    assert _within(pl.mass_kg, pl.mass_std_kg, MASS_KG)
    assert _within(pl.com_m, pl.com_std_m, COM_TOOL_M)
    assert _within(r.inertia_kg_m2, r.inertia_std_kg_m2, SIX), (r.inertia_kg_m2,
                                                                r.inertia_std_kg_m2)
    # informative: the principal moments to better than 15 %
    assert np.all(r.inertia_std_kg_m2[[0, 2, 5]] < 0.15 * np.array(SIX)[[0, 2, 5]])
    # a point-mass fit of the same run ignores the inertia, with no inertia reported
    p = payload_from_trajectory(exact, loaded, inertia='none')
    assert p.inertia_kg_m2 is None and p.to_dict()['inertia'] == 'not fitted'
    assert abs(p.payload.mass_kg - MASS_KG) < 0.02 * MASS_KG


def test_static_case_is_the_same_fit_at_rest(ur5_world):
    """Holds of the loaded arm against the exact model: the static fit, same parameters."""
    from robot_id_ros.identify import StaticPoses
    _, exact, _ = ur5_world
    rng = np.random.default_rng(9)
    Q = exact.robot.random_configurations(20, rng, 0.2)
    loaded = with_payload(exact.robot)
    tau = np.array([loaded.gravity_torque(q) for q in Q]) + rng.normal(size=(20, 6)) * SIGMA_NM
    r = identify_payload(exact, StaticPoses(Q, tau, np.tile(SIGMA_NM, (20, 1)),
                                            np.full(20, 200), np.zeros(20)))
    assert r.method == 'model'
    assert _within(r.payload.mass_kg, r.payload.mass_std_kg, MASS_KG)
    assert _within(r.payload.com_m, r.payload.com_std_m, COM_TOOL_M)
    assert abs(r.payload.mass_kg - MASS_KG) < 0.02 * MASS_KG


def test_a_motion_that_starts_and_ends_at_rest_is_a_trajectory_not_static_poses():
    """Without a sidecar, 2 s rests before and after a motion at one pose (10 % of the samples,
    one distinct pose) must not be taken for static poses (they cannot give a COM); holds at
    four poses are."""
    from robot_id_ros.identify.payload import recording_kind
    from robot_id_ros.io.bags import JointStateSeries

    robot = youbot_model()
    rate, rng = 200.0, np.random.default_rng(3)
    q0 = np.array([2.9, 1.6, -1.6, 2.2, 2.9])
    t_move = np.arange(int(20 * rate)) / rate
    w = 2 * np.pi * 0.2
    move = q0 + 0.3 * np.sin(w * t_move)[:, None] * np.sin(np.pi * t_move / 20.0)[:, None]
    rest = np.tile(q0, (int(2 * rate), 1))

    def series(Q):
        t = np.arange(len(Q)) / rate
        QD = np.gradient(Q, 1 / rate, axis=0)
        E = np.array([robot.gravity_torque(q) for q in Q]) + rng.normal(0, 0.01, Q.shape)
        stamps = 1_700_000_000 * 10 ** 9 + np.round(t * 1e9).astype(np.int64)
        return JointStateSeries(robot.joint_names, stamps, Q, QD, E, 'synthetic')

    traj = series(np.vstack([rest, move, rest]))
    assert recording_kind(traj, IdentificationOptions(), None, robot)[0] == 'trajectory'
    poses = [q0 + d for d in (0.0, 0.3, -0.3, 0.5)]
    static = []
    for a, b in zip(poses, poses[1:] + poses[:1]):
        static.append(np.tile(a, (int(3 * rate), 1)))
        s = 0.5 * (1 - np.cos(np.pi * np.arange(int(rate)) / rate))[:, None]
        static.append(a + s * (b - a))
    kind, holds = recording_kind(series(np.vstack(static)), IdentificationOptions(), None, robot)
    assert kind == 'static' and len(holds) >= 4
