# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The wrench_estimator node with friction_tracking: it follows a drifting friction over DDS,
shows it in /diagnostics, writes it with ~/save_friction, and a node restarted on that file
starts at the force floor."""
import dataclasses

import numpy as np
from std_srvs.srv import Trigger

from robot_id_ros.io.model_file import load_model, nominal_model
from robot_id_ros.model.robot import youbot_model
from test_wrench_estimator_node import NAMES, Rig, stamp_of
from estimate.estimate_cases import BENT, measured, trajectory, youbot_friction

RATE_HZ, SECONDS, DRIFT_S = 200.0, 30.0, (2.0, 20.0)
T0_NS = 1_700_000_000 * 10 ** 9


def model_with(friction):
    model = nominal_model(youbot_model(), friction)
    model.residual_std_nm = np.full(5, 0.03)
    return model


def drifting_run():
    """Joint states of a youBot whose friction drifts from the model's to a warm one."""
    start = youbot_friction()
    warm = dataclasses.replace(start, coulomb_pos_nm=start.coulomb_pos_nm * 0.6,
                               coulomb_neg_nm=start.coulomb_neg_nm * 0.6,
                               viscous_nm_s_rad=start.viscous_nm_s_rad * 0.7)
    t, Q, QD, QDD = trajectory(BENT, SECONDS, 0.4, [0.31, 0.37, 0.43, 0.47, 0.53], RATE_HZ)
    zero = np.zeros((len(t), 6))
    share = np.clip((t - DRIFT_S[0]) / (DRIFT_S[1] - DRIFT_S[0]), 0.0, 1.0)[:, None]
    E = ((1 - share) * measured(model_with(start), Q, QD, QDD, zero)
         + share * measured(model_with(warm), Q, QD, QDD, zero))
    E += np.random.default_rng(5).normal(0.0, 0.02, E.shape)
    stamps = T0_NS + (t * 1e9).round().astype(np.int64)
    return model_with(start), stamps, Q, QD, E


def feed_all(rig, stamps, Q, QD, E):
    """Publish every sample (reliable) and wait until the node has estimated the last one."""
    for k in range(len(stamps)):
        rig.send(int(stamps[k]), Q[k], QD[k], E[k], names=NAMES[:5])
        if k % 20 == 0:
            rig.spin(0.002)
    assert rig.spin(until=lambda: rig.wrench and stamp_of(rig.wrench[-1]) == stamps[-1],
                    timeout=60)


def diag_value(rig, key):
    """The latest /diagnostics value of ``key`` from the estimator, or None."""
    for array in reversed(rig.diag):
        for status in array.status:
            for kv in status.values:
                if kv.key == key:
                    return kv.value
    return None


def last_forces(rig, after_ns):
    return np.array([[m.wrench.force.x, m.wrench.force.y, m.wrench.force.z]
                     for m in rig.wrench if stamp_of(m) > after_ns])


def test_tracked_friction_saved_and_restarted_at_the_floor(rclpy_context, ros_domain_id,
                                                           tmp_path):
    model, stamps, Q, QD, E = drifting_run()
    path = tmp_path / 'model.yaml'
    model.save(path)
    tracked_path = tmp_path / 'tracked' / 'model.yaml'
    warm_from = int(stamps[0] + 25e9)          # the last 5 s: warm, steady
    rig = Rig(rclpy_context, ros_domain_id, path, reliable=True, friction_tracking=True,
              tracked_model_file=str(tracked_path), diagnostics_period_s=0.2)
    try:
        save = rig.feeder.create_client(Trigger, 'wrench_estimator/save_friction')
        rig.connect()
        feed_all(rig, stamps, Q, QD, E)
        assert np.max(np.abs(last_forces(rig, warm_from))) < 1.0     # followed: no 3-6 N error
        assert rig.contact[-1].data is False
        assert rig.spin(until=lambda: diag_value(rig, 'friction_tracking') == 'True'
                        and float(diag_value(rig, 'friction_coulomb_change_max_nm')) > 0.05,
                        timeout=10)
        answer = rig.call(save)
        assert answer.success and str(tracked_path) in answer.message, answer.message
    finally:
        rig.close()
    saved = load_model(tracked_path)
    assert np.all(saved.friction.coulomb_pos_nm < 0.8 * model.friction.coulomb_pos_nm + 0.02)
    # restarted on the saved file, without tracking: at the floor from its first seconds
    warm = stamps >= warm_from
    for model_file, floor_n in ((tracked_path, 1.0), (path, None)):
        rig = Rig(rclpy_context, ros_domain_id, model_file, reliable=True)
        try:
            save = rig.feeder.create_client(Trigger, 'wrench_estimator/save_friction')
            rig.connect()
            feed_all(rig, stamps[warm], Q[warm], QD[warm], E[warm])
            forces = last_forces(rig, warm_from + int(0.5e9))
            if floor_n is not None:
                assert np.max(np.abs(forces)) < floor_n and rig.contact[-1].data is False
                answer = rig.call(save)         # tracking off: refused, says how to turn it on
                assert not answer.success and 'friction_tracking:=true' in answer.message
            else:                               # the model file as identified: the drift bites
                assert np.max(np.abs(forces)) > 2.0
        finally:
            rig.close()
