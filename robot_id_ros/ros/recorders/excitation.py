# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The excitation trajectory of trajectory_recorder.

It is loaded, checked against the safety limits, and played as a ``record.Motion`` (also by the
demo's director).
"""
from __future__ import annotations

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.errors import InputError

LIMIT_SLACK = 1.0001    # sampled peaks may exceed the velocity/acceleration limits this much
LIMIT_TOLERANCE_RAD = 1e-9


class ExcitationMotion(rec.Motion):
    """``periods`` periods of a ``FourierTrajectory`` as a Motion (held at its ends)."""

    def __init__(self, traj, periods):
        """Args: traj: the FourierTrajectory; periods: how many periods (may be fractional)."""
        self.traj = traj
        self.duration_s = periods * traj.period_s

    def evaluate(self, t):
        """(q rad, qd rad/s, qdd rad/s^2) at ``t`` seconds from the start."""
        q, qd, qdd = self.traj.evaluate(min(max(t, 0.0), self.duration_s))
        return q[0], qd[0], qdd[0]


def load_excitation(recorder):
    """Load the ``trajectory_file`` of ``recorder``, checked against its joints and limits.

    Raises:
        InputError: no file, unreadable, or made for other joints.
        PoseError: the trajectory leaves the limits (the message names joint and peak).
    """
    path = recorder.p['trajectory_file']
    if not path:
        raise InputError('parameter trajectory_file is empty: give the YAML of robot-id '
                         'design-excitation')
    try:
        traj = rec.FourierTrajectory.load(path)
    except OSError as exc:
        raise InputError(f'cannot read trajectory_file {path}: {exc}') from exc
    names = recorder.joint_names
    if tuple(traj.joint_names) != names:
        raise InputError(f'trajectory_file {path} is for joints {list(traj.joint_names)}, this '
                         f'recorder drives {list(names)}')
    vp, ap, qmin, qmax = rec.motion_peaks(ExcitationMotion(traj, 1),
                                          dt=min(0.01, traj.period_s / 500))
    v, a = recorder.limits.per_joint(recorder.n)
    for label, bad in (('position below the lower limit',
                        qmin < recorder.lower - LIMIT_TOLERANCE_RAD),
                       ('position above the upper limit',
                        qmax > recorder.upper + LIMIT_TOLERANCE_RAD),
                       ('velocity above max_velocity_rad_s', vp > v * LIMIT_SLACK),
                       ('acceleration above max_acceleration_rad_s2', ap > a * LIMIT_SLACK)):
        if np.any(bad):
            j = int(np.argmax(bad))
            raise rec.PoseError(
                f'excitation {path} exceeds the safety limits: {names[j]} {label} (with margin '
                f'{recorder.p["joint_limit_margin_rad"]:g} rad; peaks: q {qmin[j]:.3f}..'
                f'{qmax[j]:.3f}, qd {vp[j]:.3f}, qdd {ap[j]:.3f}); redesign it or raise the '
                'limits')
    recorder.log.info(f'excitation {path}: period {traj.period_s:g} s, {traj.harmonics} '
                      f'harmonics, peak speed {vp.max():.3f} rad/s')
    return traj


__all__ = ['LIMIT_SLACK', 'ExcitationMotion', 'load_excitation']
