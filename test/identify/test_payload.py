# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Payload mass/COM from static poses and drive gains, on synthetic truth made with the core."""
import numpy as np
import pytest

from robot_id_ros.identify import IdentificationError, StaticPoses
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.io.model_file import Payload, nominal_model
from robot_id_ros.identify.drive_gains import estimate_drive_gains
from robot_id_ros.identify.payload import identify_payload, payload_regressor

from test_identification import perturbed

PAYLOAD = Payload(0.3, np.array([0.01, -0.005, 0.03]))
GAINS = np.array([5.226, 5.226, 3.35, 3.621, 3.479])


def _poses(model, Q, rng, payload=None, noise=0.005, stiction=0.02):
    Z = np.zeros(model.n)
    model.set_payload(payload)
    tau = np.array([model.torque(q, Z, Z) for q in Q])
    model.set_payload(None)
    tau += rng.normal(size=tau.shape) * noise + rng.uniform(-stiction, stiction, tau.shape)
    return StaticPoses(Q, tau, np.full_like(tau, noise), np.full(len(Q), 200), np.zeros(len(Q)))


@pytest.fixture(scope='module')
def world():
    robot = youbot_model()
    rng = np.random.default_rng(3)
    truth = nominal_model(perturbed(robot, rng))
    Q = robot.random_configurations(30, rng, 0.2)
    return robot, truth, Q, rng


def test_regressor_matches_model_payload(world):
    robot, truth, Q, _ = world
    Z = np.zeros(robot.n)
    g0 = np.array([truth.torque(q, Z, Z) for q in Q[:5]])
    truth.set_payload(PAYLOAD)
    g1 = np.array([truth.torque(q, Z, Z) for q in Q[:5]])
    truth.set_payload(None)
    x = np.r_[PAYLOAD.mass_kg, PAYLOAD.mass_kg * PAYLOAD.com_m]
    assert np.allclose(payload_regressor(robot, Q[:5]) @ x, (g1 - g0).ravel(), atol=1e-12)


def test_payload_paired_within_2_percent_and_5_mm(world):
    robot, truth, Q, rng = world
    without = _poses(truth, Q, rng)
    with_ = _poses(truth, Q + rng.normal(size=Q.shape) * 1e-4, rng, PAYLOAD)
    r = identify_payload(robot, with_, without)
    assert r.method == 'paired'
    assert abs(r.payload.mass_kg - 0.3) / 0.3 < 0.02
    assert np.linalg.norm(r.payload.com_m - PAYLOAD.com_m) < 0.005
    # the reported standard deviations are of the right size (errors within ~4 sigma)
    assert abs(r.payload.mass_kg - 0.3) < 4 * r.payload.mass_std_kg + 1e-4
    assert np.all(r.payload.com_std_m > 0)


def test_payload_against_model(world):
    robot, truth, Q, rng = world
    with_ = _poses(truth, Q, rng, PAYLOAD)
    r = identify_payload(truth, with_)
    assert r.method == 'model'
    assert abs(r.payload.mass_kg - 0.3) / 0.3 < 0.02
    assert np.linalg.norm(r.payload.com_m - PAYLOAD.com_m) < 0.005


def test_drive_gains_from_known_payload(world):
    robot, truth, Q, rng = world
    wo = _poses(truth, Q, rng, noise=0.0, stiction=0.0)
    wi = _poses(truth, Q, rng, PAYLOAD, noise=0.0, stiction=0.0)
    cur = lambda p: StaticPoses(
        p.q,
        p.tau / GAINS + rng.normal(size=p.tau.shape) * 0.001,
        p.tau_std,  # noqa: E731
        p.samples,
        p.approach)
    r = estimate_drive_gains(robot, PAYLOAD, cur(wi), cur(wo))
    assert np.isnan(r.gains_nm_per_a[0])  # joint 1 (vertical axis) is not loaded by a payload
    assert np.allclose(r.gains_nm_per_a[1:4], GAINS[1:4], rtol=0.02)


def test_payload_bad_input(world):
    robot, truth, Q, rng = world
    few = _poses(truth, Q[:1], rng, PAYLOAD)
    with pytest.raises(IdentificationError, match='too few'):
        identify_payload(truth, few)
    other = _poses(truth, robot.random_configurations(5, rng, 0.2), rng)
    with pytest.raises(IdentificationError, match='match'):
        identify_payload(robot, _poses(truth, Q, rng, PAYLOAD), other)
    with pytest.raises(IdentificationError, match='not significantly positive'):
        identify_payload(truth, _poses(truth, Q, rng))
