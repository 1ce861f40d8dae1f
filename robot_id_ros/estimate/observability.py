# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Which wrench axes the joints sense at the current pose, and why not (ROS-free).

The wrench F is seen through tau_ext = J^T F: axis i of the wrench is sensed by a set of joints
when, restricted to those joints' rows of J^T, less than half of the unit axis e_i lies in the
directions whose singular value is below the mapper's ``sigma_guard`` (``weak_fraction``). Two
reasons for an axis not to be sensed are told apart:

* near-singular: even with every joint, the axis lies mostly in the directions J^T barely maps
  (the pose is close to a singularity: sigma_min below the guard); the estimate there is the
  damped one, pulled towards zero;
* stuck: with every joint it is sensed, but not through the joints outside their stiction band:
  a stuck joint's torque is known only to within its band (friction of unknown sign), so along
  that axis the estimate rests on friction, not on a measured torque. A joint counts as stuck
  while its band is wider than its residual std (the friction uncertainty dominates the noise).

``observability_values`` gives this as key/value pairs for a diagnostics message.
"""
from __future__ import annotations

import numpy as np

AXES = ('fx', 'fy', 'fz', 'mx', 'my', 'mz')
WEAK_SHARE = 0.5    # an axis with more than this share of its unit vector in weak directions


def weak_fraction(Jt, guard):
    """Return the share (m,) of each wrench axis lying in the weak directions of ``Jt``.

    Args:
        Jt: (k, m) the rows of J_s^T of the joints that count (k may be 0).
        guard: singular values of ``Jt`` below this are weak (m or 1, as the mapper's guard).

    Returns:
        (m,) in [0, 1]: sum over weak right singular vectors v of v_i^2 (1 with no joints).
    """
    m = Jt.shape[1]
    if Jt.shape[0] == 0:
        return np.ones(m)
    _, s, Vt = np.linalg.svd(Jt, full_matrices=True)
    strong = np.zeros(m, dtype=bool)
    strong[:len(s)] = s >= guard
    return np.sum(Vt[~strong] ** 2, axis=0)


def axis_observability(J, rows, stuck, guard):
    """Return per estimated axis (state, detail): 'ok', 'near-singular' or 'stuck'.

    Args:
        J: (6, n) the tool Jacobian in the wrench's frame.
        rows: the estimated wrench rows.
        stuck: (n,) bool, joints inside their stiction band.
        guard: the mapper's ``sigma_guard``.

    Returns:
        ({axis name: (state, detail)}, sigma_min of J_s^T); ``detail`` names the smallest
        singular value (near-singular) or the stuck joints that sense the axis (by index).
    """
    Jt = np.asarray(J)[rows].T                      # (n, m)
    smin = float(np.linalg.svd(Jt, compute_uv=False)[-1]) if Jt.shape[0] >= Jt.shape[1] else 0.0
    all_weak = weak_fraction(Jt, guard)
    free_weak = weak_fraction(Jt[~np.asarray(stuck, bool)], guard)
    out = {}
    for i, r in enumerate(rows):
        if all_weak[i] > WEAK_SHARE:
            out[AXES[r]] = ('near-singular', f'sigma_min {smin:.4g} < guard {guard:.4g}')
        elif free_weak[i] > WEAK_SHARE:
            sensing = np.flatnonzero(np.asarray(stuck, bool) & (np.abs(Jt[:, i]) >= guard))
            out[AXES[r]] = ('stuck', sensing)
        else:
            out[AXES[r]] = ('ok', '')
    return out, smin


def observability_values(est):
    """Return diagnostics key/value pairs on the wrench axes the estimator senses now.

    Call once per diagnostics period, after ``update`` has taken a sample.

    Args:
        est: ``WrenchEstimator`` (its last sample's ``last_q`` and ``stiction_band``).

    Returns:
        [(key, value)] strings: 'observability <axis>' -> 'ok', 'near-singular: sigma_min ... <
        guard ...' or 'stuck: sensed only through <joints> inside their stiction band', and
        'weak axes' -> the axes not 'ok' (comma separated, '' for none); [] after a reset.
    """
    if est.last_q is None or est.stiction_band is None:
        return []
    J = est.robot.tool_jacobian(est.last_q, est.config.frame)
    stuck = np.asarray(est.stiction_band) > est.residual_std_nm
    states, _ = axis_observability(J, est.mapper.rows, stuck, est.mapper.sigma_guard)
    names = est.robot.joint_names
    values, weak = [], []
    for axis, (state, detail) in states.items():
        if state == 'stuck':
            joints = ', '.join(names[j] for j in detail) or 'no joint'
            text = f'stuck: sensed only through {joints} inside their stiction band'
        elif state == 'near-singular':
            text = f'near-singular: {detail}'
        else:
            text = 'ok'
        if state != 'ok':
            weak.append(axis)
        values.append((f'observability {axis}', text))
    values.append(('weak axes', ', '.join(weak)))
    return values
