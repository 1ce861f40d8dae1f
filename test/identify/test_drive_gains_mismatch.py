# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Drive gains from currents alone on an arm whose friction the core model structure misses.

The Kinova arm of the mismatch bench (test/identify/mismatch_cases.py): hidden truth, a
viscous-dominated friction law with a wider smooth sign than the core default, efforts recorded
as motor currents through an exact sensor, gains unknown to the identification. The gains are
fitted again on the model structure the option search chose (identify/pipeline.py).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mismatch_cases import drive_gains, effects_for, mismatch_arm  # noqa: E402
from bench_synthetic_arms import ARMS  # noqa: E402

from robot_id_ros.identify import IdentificationOptions, identify, validate  # noqa: E402
from robot_id_ros.sim.drive_effects import CurrentSensor, record_drives  # noqa: E402


def recorded(train_periods):
    """Return (arm, drive gains, recordings 'train' and 'excitation' by an exact sensor)."""
    arm = mismatch_arm(ARMS['kinova'], 0, train_periods=train_periods)
    gains = drive_gains(arm)
    fx = effects_for('none', arm)
    fx.current_sensor = CurrentSensor(gains)
    rng = np.random.default_rng(2000)
    runs = {k: record_drives(arm.truth, arm.law, *arm.motions[k], fx, arm.sigma, rng,
                             arm.exact_sign) for k in ('train', 'excitation')}
    return arm, gains, runs


def test_gains_unknown_recovered_up_to_the_urdf_scale_and_currents_predicted():
    arm, gains, runs = recorded(train_periods=2)
    res = identify(arm.robot, [runs['train'].series],
                   options=IdentificationOptions(effort_unit='current'))
    k = res.model.drive_gains_nm_per_a
    ratio = k / gains
    # one common scale (the URDF's masses) is not observable from currents: the ratios are
    relative = ratio / np.exp(np.mean(np.log(ratio)))
    assert np.all(np.abs(relative - 1) < 0.03), relative
    assert all(res.model.identification['drive_gains']['ratio_identifiable'].values())
    # the held-out excitation's current: at the noise on every joint
    v = validate(res.model, runs['excitation'].series,
                 IdentificationOptions(effort_unit='current'))
    noise_a = arm.sigma / gains
    worst = np.max(np.asarray(v.metrics['rmse_nm']) / k / noise_a)
    assert worst < 1.1, worst


def test_options_chosen_with_gains_unknown_predict_as_with_gains_told():
    # the core structure's gains are 18 % off on joint 1 (its torque mostly friction): options
    # scored on the torques they make chose a fit without physical consistency, which lost
    # 3 % on that joint in another excitation; scored again with the refitted gains they match
    # the options chosen with the gains told
    arm, gains, runs = recorded(train_periods=3)
    rmse_a = {}
    for name, told in (('identified', None), ('told', list(gains))):
        res = identify(arm.robot, [runs['train'].series], options=IdentificationOptions(
            effort_unit='current', drive_gains_nm_per_a=told), given=())
        k = res.model.drive_gains_nm_per_a
        v = validate(res.model, runs['excitation'].series,
                     IdentificationOptions(effort_unit='current', drive_gains_nm_per_a=list(k)))
        rmse_a[name] = np.asarray(v.metrics['rmse_nm']) / k
    ratio = rmse_a['identified'] / rmse_a['told']
    assert np.all(ratio < 1.015), ratio
