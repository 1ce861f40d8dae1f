# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The passes of friction_sweep_recorder.

The ``constant_velocity`` sidecar segment of a pass, and the end-of-run friction estimate from
the recorded passes (ROS-free).
"""
from __future__ import annotations

import numpy as np

from robot_id_ros import record as rec

MIN_PASS_SAMPLES = 5     # a pass with fewer samples in memory is left out of the estimate


def sweep_segment(sp, start_ns, cruise_trim_s):
    """Return the sidecar segment of pass ``sp`` (a ``SweepPass``) started at ``start_ns``.

    It is the constant-velocity part, trimmed by ``cruise_trim_s`` (s) at the start.

    Raises:
        RecordingError: the trim leaves nothing of the constant-velocity part.
    """
    m = sp.motion
    c0, c1 = m.cruise
    t0 = start_ns + int((c0 + cruise_trim_s) * 1e9)
    t1 = start_ns + int(c1 * 1e9)
    if t1 <= t0:
        raise rec.RecordingError(f'cruise_trim_s {cruise_trim_s} leaves nothing of the '
                                 f'{c1 - c0:.2f} s constant-velocity part at {sp.speed_rad_s} '
                                 'rad/s')
    return {'type': 'constant_velocity', 't_start_ns': t0, 't_end_ns': t1,
            'joint': sp.joint_name, 'velocity_rad_s': sp.direction * sp.speed_rad_s,
            'direction': sp.direction, 'speed_index': sp.speed_index,
            'speed_rad_s': sp.speed_rad_s, 'q_from_rad': float(m.a), 'q_to_rad': float(m.b)}


def _pair_friction(pair, j, samples_between):
    """Friction (Nm) of joint ``j`` from a forward and a backward pass, or None."""
    data = []
    for d in (1, -1):
        s = samples_between(pair[d]['t_start_ns'], pair[d]['t_end_ns'])
        if len(s) < MIN_PASS_SAMPLES or s[0].effort is None:
            return None
        data.append((np.array([x.q[j] for x in s]), np.array([x.effort[j] for x in s])))
    try:
        f, _, _, _ = rec.pair_sweep_passes(data[0][0], data[0][1], data[1][0], data[1][1])
    except ValueError:
        return None
    return f


def friction_estimate(segments, joint_names, samples_between):
    """Coulomb + viscous friction per swept joint from the recorded passes.

    Args:
        segments: the sidecar's ``constant_velocity`` segments.
        joint_names: the recorded joints (sample order).
        samples_between: callable(t0_ns, t1_ns) -> ``StampedSample``s in memory.

    Returns:
        {joint: {coulomb_nm, viscous_nm_s_rad, speeds_rad_s, friction_nm}} for every joint
        with paired passes at two speeds or more (sorted by joint name).
    """
    est = {}
    for jn in sorted({s['joint'] for s in segments}):
        j = joint_names.index(jn)
        speeds, fr = [], []
        for si in sorted({s['speed_index'] for s in segments if s['joint'] == jn}):
            pair = {s['direction']: s for s in segments
                    if s['joint'] == jn and s['speed_index'] == si}
            f = _pair_friction(pair, j, samples_between) if set(pair) == {1, -1} else None
            if f is not None:
                speeds.append(pair[1]['speed_rad_s'])
                fr.append(f)
        if len(speeds) >= 2:
            fc, fv = rec.fit_coulomb_viscous(speeds, fr)
            est[jn] = {'coulomb_nm': fc, 'viscous_nm_s_rad': fv, 'speeds_rad_s': speeds,
                       'friction_nm': fr}
    return est


__all__ = ['MIN_PASS_SAMPLES', 'friction_estimate', 'sweep_segment']
