# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The poses and static holds of static_pose_recorder.

Its pose list (from a file or generated, the stored one when resuming); waiting until the arm
settles; averaging a window of joint states; the ``static_hold`` sidecar segment (shared by its
active and passive runs).
"""
from __future__ import annotations

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.io.yaml_input import read_yaml


def make_poses(recorder):
    """Return the poses of ``poses_file``, or generated; sets ``recorder.condition_number``.

    Returns:
        (k, n) array of joint positions, rad.

    Raises:
        PoseError: unreadable file, or a pose outside the limits or below the floor.
    """
    p = recorder.p
    floor = p['floor_z_m'] if p['check_floor'] else None
    if p['poses_file']:
        data = read_yaml(p['poses_file'], 'poses_file', rec.PoseError)
        poses = rec.load_pose_list(data, recorder.joint_names)
        rec.check_poses(recorder.robot, poses, p['joint_limit_margin_rad'], floor,
                        p['floor_clearance_m'])
        cond = rec.static_condition_number(recorder.robot, poses)
        source = p['poses_file']
    else:
        ps = rec.generate_poses(recorder.robot, p['pose_count'], p['joint_limit_margin_rad'],
                                floor, p['floor_clearance_m'], seed=p['pose_seed'],
                                candidates=p['pose_candidates'])
        poses, cond = ps.poses, ps.condition_number
        source = f'generated (seed {p["pose_seed"]})'
    recorder.condition_number = cond
    recorder.log.info(f'{len(poses)} poses, {source}; condition number of the base gravity '
                      f'regressor: {cond:.2f}')
    return poses


def resumed_poses(recorder, info):
    """Return the poses of this recording.

    They are stored into the sidecar ``info`` on a new recording, read back from it when resuming
    (a warning when the parameters now give others).
    """
    if 'poses_rad' not in info:
        info['poses_rad'] = recorder.poses.tolist()
        info['gravity_regressor_condition_number'] = float(recorder.condition_number)
        recorder.session.save()
        return recorder.poses
    stored = np.array(info['poses_rad'])
    if stored.shape != recorder.poses.shape or not np.allclose(stored, recorder.poses):
        recorder.log.warning('resuming with the pose list stored in the sidecar (the parameters '
                             'give another)')
    return stored


def wait_settled(recorder, motion_end_ns):
    """When the arm settled after its motion ended (ns), or the problem (str) on a timeout.

    Args:
        recorder: the running ``StaticPoseRecorder`` (parameters, joint states).
        motion_end_ns: end of the commanded motion (driver time, ns); only later samples count.
    """
    p = recorder.p
    det = rec.SettleDetector(p['settle_velocity_rad_s'], p['settle_dwell_s'],
                             p['settle_timeout_s'])
    det.start(motion_end_ns * 1e-9)
    for st, q, qd, _ in recorder.follow(motion_end_ns - 1):
        state = det.update(st * 1e-9, q, qd)
        if state == 'settled':
            return st
        if state == 'timeout':
            return (f'not settled within {p["settle_timeout_s"]:g} s (|velocity| up to '
                    f'{det.max_velocity:.4f} rad/s > {p["settle_velocity_rad_s"]:g})')
    return None  # pragma: no cover - follow() never ends


def record_window(recorder, settled_at_ns, target):
    """Wait for ``window_s`` of joint states after ``settled_at_ns`` and average them.

    Args:
        recorder: the running ``StaticPoseRecorder``.
        settled_at_ns: start of the window (driver time, ns).
        target: the commanded pose (rad), checked against the mean; None in passive mode, where
            the window runs to the first sample after ``window_s`` and the arm must stay still.

    Returns:
        The averaged window (``record.average_window``), or the problem (str).
    """
    p = recorder.p
    window_ns = int(p['window_s'] * 1e9)
    t_end = recorder.wait_until_stamp(settled_at_ns + window_ns).stamp_ns
    if target is not None:
        return average(recorder, recorder.buffer.between(settled_at_ns, settled_at_ns + window_ns),
                       target)
    samples = recorder.buffer.between(settled_at_ns, t_end)
    if not samples or max(np.ptp(np.array([s.q for s in samples]), axis=0)) \
            >= p['position_tolerance_rad']:
        return 'moved during the window'
    return average(recorder, samples, None)


def average(recorder, samples, target):
    """Low-pass and average ``samples`` (``StampedSample``s); the window or the problem (str).

    Raises:
        RecordingError: the driver publishes no effort.
    """
    if not samples:
        return 'no joint state in the averaging window'
    stamps = np.array([s.stamp_ns for s in samples], dtype=np.int64)
    q = np.array([s.q for s in samples])
    if any(s.effort is None for s in samples):
        raise rec.RecordingError('the driver publishes no effort; static poses need the joint '
                                 'torques (or motor currents) in JointState.effort')
    effort = np.array([s.effort for s in samples])
    tol = recorder.p['position_tolerance_rad']
    if target is not None:
        off = np.abs(q.mean(0) - target)
        j = int(np.argmax(off))
        if off[j] > tol:
            return (f'unreachable: the arm holds {recorder.joint_names[j]} at {q.mean(0)[j]:.4f} '
                    f'rad, {off[j]:.4f} rad from the target {target[j]:.4f} (tolerance '
                    f'{tol:g}); blocked or out of reach?')
    try:
        return rec.average_window(stamps, q, effort, recorder.p['filter_cutoff_hz'])
    except rec.RecordingError as exc:
        return str(exc)


def hold_segment(w, pose_index, approach, approach_per_joint, target=None):
    """Return the ``static_hold`` sidecar segment of the averaged window ``w``.

    Args:
        w: the averaged window (stamps ns, positions rad, efforts in the effort unit).
        pose_index: index of the pose (passive: running count of holds).
        approach: +1 or -1, the direction the pose was approached from.
        approach_per_joint: the approach sign per joint (0: no room at a limit).
        target: the commanded pose (rad), or None (passive).
    """
    seg = {'type': 'static_hold', 't_start_ns': w.t_start_ns, 't_end_ns': w.t_end_ns,
           'pose_index': pose_index, 'approach': approach, 'q_mean_rad': w.q_mean,
           'effort_mean': w.effort_mean, 'effort_std': w.effort_std, 'samples': w.samples}
    if target is not None:
        seg['q_target_rad'] = target
    seg.update(approach_per_joint=approach_per_joint, effort_std_filtered=w.effort_std_filtered,
               rate_hz=w.rate_hz)
    return seg


__all__ = ['average', 'hold_segment', 'make_poses', 'record_window', 'resumed_poses',
           'wait_settled']
