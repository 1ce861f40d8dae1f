# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Which hand-guiding pushes the youBot's drives can hold at all (statics, simulator truth).

Issue 17 asks for a 10 N push in every direction. The wrist (joint 4, a 2 Nm drive) carries the
push's moment about its axis: 10 N times the tool's 0.21 m from that axis in the direction
across the push, plus gravity on links 4-5. Along +-x and +-z together that needs more than
2 Nm at every tool pitch, so no pose exists where all six pushes are within the drive limits;
at the work pose the largest -x push the wrist holds is about 5.8 N with its Coulomb friction.
"""
import numpy as np
import scenarios as sc

WRIST_LIMIT_NM = 2.0


def test_no_pitch_lets_the_wrist_hold_10_n_along_x_and_z():
    r = sc.wrist_torque_by_pitch(10.0)
    assert r['limit_nm'] == WRIST_LIMIT_NM
    assert np.all(r['lever_m'] > 0.2 / np.sqrt(2.0))         # 0.21 m from the wrist axis
    assert r['worst_nm'].min() > WRIST_LIMIT_NM, r['worst_nm'].min()
    # the best pitch is the tool vertical (no gravity moment on the wrist)
    i = int(np.argmin(r['worst_nm']))
    assert abs(r['gravity_nm'][i]) < 0.05
    assert 9.0 < r['max_push_n'].max() < 10.0


def test_work_pose_holds_5_n_along_minus_x_but_not_10():
    _, limits = sc.true_arm()
    ten = np.abs(sc.static_drive_torque_nm([-10.0, 0.0, 0.0])) / limits
    five = np.abs(sc.static_drive_torque_nm([-5.0, 0.0, 0.0])) / limits
    assert ten[sc.WRIST] > 1.2                                # 2.5 Nm
    assert five.max() < 0.9                                   # room for Coulomb (0.2 Nm)
    # +x takes from gravity's moment on the wrist: within its limit
    assert np.abs(sc.static_drive_torque_nm([10.0, 0.0, 0.0]))[sc.WRIST] < 1.0


def test_with_the_tool_along_x_the_wrist_holds_10_n_along_minus_x_and_it_is_guided():
    """The -x row is the wrist's limit at the work pose, not the controller's: from a pose with
    the tool along x the same 10 N push needs a fraction of the drives and is guided at the
    admittance law's speed (closed loop, dither on)."""
    _, limits = sc.true_arm()
    load = np.abs(sc.static_drive_torque_nm([-10.0, 0.0, 0.0], pose=sc.TOOL_ALONG_X_POSE_RAD))
    assert load[sc.WRIST] / limits[sc.WRIST] < 0.2 and (load / limits).max() < 0.6
    r = sc.hand_guiding(0, -1.0, 10.0, pose=sc.TOOL_ALONG_X_POSE_RAD)
    assert r['stopped_for'] == ''
    assert abs(r['ratio'] - 1.0) <= 0.2, r                   # achieved 0.99 (seed 3)
