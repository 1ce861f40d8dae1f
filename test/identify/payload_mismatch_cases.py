# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A known payload on the mismatch bench's arms: a loaded run recorded through the drive effects.

The arm of ``mismatch_cases.mismatch_arm`` (its hidden truth, friction law and noise) carries
``PAYLOAD_KG`` at ``PAYLOAD_COM_M`` (tool frame) with a solid's inertia, and plays a 50 s
excitation of its own (``LOADED_PERIODS`` periods of a 10 s Fourier series, faded in and out
between rests); the drives record it with the same effect (``mismatch_cases.effects_for``) as
the unloaded training run, so a load-dependent friction sees the payload's torque too.
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mismatch_cases import effects_for  # noqa: E402
from bench_synthetic_arms import bounded_limits, windowed  # noqa: E402
from test_identification import fourier_trajectory  # noqa: E402

from robot_id_ros.sim.drive_effects import FrictionEffects, record_drives  # noqa: E402

PAYLOAD_KG = 2.8
PAYLOAD_COM_M = np.array([0.01, -0.02, 0.06])
# a 2.8 kg solid of about 10 x 8 x 12 cm, about its centre of mass, tool axes (kg m^2)
PAYLOAD_INERTIA_KG_M2 = np.diag([0.0049, 0.0057, 0.0038])
LOADED_PERIODS = 5


def loaded_truth(truth, mass_kg=PAYLOAD_KG, com_m=PAYLOAD_COM_M,
                 inertia_kg_m2=PAYLOAD_INERTIA_KG_M2):
    """Return a copy of the ``RobotModel`` ``truth`` with the payload fixed at its tool frame."""
    r = truth.copy()
    tool = r.model.frames[r.tool_frame_id].placement
    body = tool.act(pin.Inertia(float(mass_kg), np.asarray(com_m, float),
                                np.asarray(inertia_kg_m2, float)))
    j = r.model.njoints - 1
    r.model.inertias[j] = r.model.inertias[j] + body
    return r


def loaded_motion(arm, periods=LOADED_PERIODS):
    """Return (t, Q, QD, QDD) of the loaded excitation (its own Fourier series, 10 s period)."""
    b = bounded_limits(arm.robot)
    traj = fourier_trajectory(b, np.random.default_rng(arm.seed + 31), period_s=10.0,
                              periods=periods)
    return windowed(*traj, traj[1].mean(axis=0))


def payload_effects(arm, effect, load_coulomb_per_nm=None):
    """Return ``effects_for(effect, arm)``, its load-dependent Coulomb friction set where given.

    ``load_coulomb_per_nm`` (Nm per Nm, every joint) replaces the effect's own (0.1 where it has
    one) on the effects that have friction effects, and adds it alone to those that have none.
    """
    fx = effects_for(effect, arm)
    if load_coulomb_per_nm is not None:
        fx.friction = dataclasses.replace(fx.friction or FrictionEffects(),
                                          load_coulomb_per_nm=load_coulomb_per_nm)
    return fx


def payload_runs(arm, effect, load_coulomb_per_nm=None, periods=LOADED_PERIODS,
                 mass_kg=PAYLOAD_KG):
    """Return the ``DriveRun`` of the unloaded training run and of the loaded excitation.

    Both under ``payload_effects(arm, effect, load_coulomb_per_nm)``; the training run is the
    arm's 'train' motion (``mismatch_cases.motions``).
    """
    fx = payload_effects(arm, effect, load_coulomb_per_nm)
    rng = np.random.default_rng(3000 + arm.seed)
    train = record_drives(arm.truth, arm.law, *arm.motions['train'], fx, arm.sigma, rng,
                          arm.exact_sign, source='train')
    loaded = record_drives(loaded_truth(arm.truth, mass_kg), arm.law,
                           *loaded_motion(arm, periods), fx, arm.sigma, rng, arm.exact_sign,
                           source='loaded')
    return train, loaded
