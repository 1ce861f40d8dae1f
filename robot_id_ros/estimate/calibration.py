# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Residual statistics learnt from contact-free data (``ResidualCalibration``, ``calibrate``).

A model's residual statistics come from its identification; a model made from a URDF has none,
and another robot of the same type or a new payload makes them wrong. A calibration measures
them where they are used: the estimator's own external joint torque over a stretch the user
declares contact-free. Per joint it fits

    tau_ext = mean + e,
    var(e) = std^2 + (model_relative_error * model torque)^2 + (speed_error * joint speed)^2,

the mean being subtracted from then on (as a tare), ``std`` the spread at rest,
``model_relative_error`` the share of the predicted torque the model misses (a URDF's masses,
unmodelled rotor and transmission dynamics) and ``speed_error`` the error that grows with the
joint's speed (friction a model does not have). The fit is robust (samples beyond
``OUTLIER_SIGMAS`` of the fit are left out and the fit repeated), so a short bump does not widen
the statistics; a stretch where more than ``CONTACT_SHARE`` of the samples stay beyond the contact
threshold of the fit holds a contact and is refused.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import nnls

from robot_id_ros.errors import InputError
from robot_id_ros.io.calibration_file import ResidualCalibration

OUTLIER_SIGMAS = 3.0     # samples beyond this many std of the fit are left out of the next fit
FIT_ROUNDS = 6
# samples beyond the bulk are model error in motion when the arm moves this many times faster
# there (median joint speed) than in the bulk
MOTION_SPEED_RATIO = 2.0
MAD_TO_STD = 1.4826    # the std of a normal distribution over its median absolute deviation
CONTACT_SHARE = 0.01     # share of samples beyond the contact threshold that means a contact
MIN_SAMPLES = 100
MIN_DURATION_S = 0.5


class CalibrationError(InputError):
    """A stretch that cannot calibrate the estimator (too short, holds a contact)."""

    kind = 'calibration'


def _noise_floor(x):
    """Per-joint std of the sample-to-sample change over sqrt(2): the white part of ``x``."""
    return np.std(np.diff(x, axis=0), axis=0) / np.sqrt(2.0)


def _fit(x, m, v, floor, inliers, rounds):
    """(mean, std, relative error, speed error, z) of one joint fitted on ``inliers``.

    Trimmed ``rounds`` times; ``m`` the model torque, ``v`` the joint speed.

    ``z``: every sample's |x - mean| over the fit's std there.
    """
    for _ in range(rounds):
        mean = float(np.mean(x[inliers]))
        e2 = (x[inliers] - mean) ** 2
        (s2, r2, c2), _ = nnls(np.column_stack([np.ones(len(e2)), m[inliers] ** 2,
                                                v[inliers] ** 2]), e2)
        std, rel, speed = max(float(np.sqrt(s2)), floor), float(np.sqrt(r2)), float(np.sqrt(c2))
        z = np.abs(x - mean) / np.sqrt(std ** 2 + (rel * m) ** 2 + (speed * v) ** 2)
        kept = z <= OUTLIER_SIGMAS
        if kept.sum() < MIN_SAMPLES // 2 or np.array_equal(kept, inliers):
            break
        inliers = kept
    return mean, std, rel, speed, z


def _robust_fit(x, m, v, floor):
    """The bulk's fit: from the median and the median absolute deviation, trimmed.

    A contact on less than half of the stretch moves neither starting value.
    """
    mean = float(np.median(x))
    std = max(MAD_TO_STD * float(np.median(np.abs(x - mean))), floor)
    return _fit(x, m, v, floor, np.abs(x - mean) <= OUTLIER_SIGMAS * std, FIT_ROUNDS)


def _share_beyond(z, contact_sigmas):
    """Share of samples whose combined statistic sqrt(sum_j z_j^2) is beyond the threshold."""
    return np.sqrt((np.asarray(z) ** 2).sum(axis=0)) > contact_sigmas


def _fits(x, m, v, contact_sigmas):
    """Return ((n, 4) mean, std, rel, speed error per joint, beyond (N,) bool, note).

    The bulk's robust fit; but where the samples beyond it are samples in motion (a model's
    error grows with motion; a contact at rest does not move the arm), the fit of every sample,
    when it leaves nothing beyond the threshold.
    """
    floor = np.maximum(_noise_floor(x), 1e-9)
    n = x.shape[1]
    robust = [_robust_fit(x[:, j], m[:, j], v[:, j], floor[j]) for j in range(n)]
    beyond = _share_beyond([f[4] for f in robust], contact_sigmas)
    fit = np.array([f[:4] for f in robust])
    if beyond.mean() <= CONTACT_SHARE:
        return fit, beyond, ''
    every = np.ones(len(x), dtype=bool)
    whole = [_fit(x[:, j], m[:, j], v[:, j], floor[j], every, 1) for j in range(n)]
    whole_beyond = _share_beyond([f[4] for f in whole], contact_sigmas)
    speed = np.linalg.norm(v, axis=1)
    in_motion = np.median(speed[beyond]) >= MOTION_SPEED_RATIO * np.median(speed[~beyond])
    if whole_beyond.mean() <= CONTACT_SHARE and in_motion:
        return np.array([f[:4] for f in whole]), whole_beyond, (
            f'{100 * beyond.mean():.1f} % of the stretch, all in motion, deviates from the rest: '
            'taken as model error in motion')
    return fit, beyond, ''


def calibrate(stamp_ns, tau_ext_nm, model_torque_nm, qd_rad_s, joint_names, method,
              bandwidth_hz, contact_sigmas, reference_threshold_nm, source=''):
    """Fit the residual statistics of a contact-free stretch.

    Args:
        stamp_ns: (N,) the samples' stamps, ns.
        tau_ext_nm: (N, n) the estimator's external joint torque over the stretch (untared).
        model_torque_nm: (N, n) the model's torque there (tau_ext + the measured torque).
        qd_rad_s: (N, n) the joint velocities there.
        joint_names: n names.
        method: the estimator's residual ('momentum' or 'direct').
        bandwidth_hz: its bandwidth, Hz.
        contact_sigmas: the contact threshold in std (a stretch beyond it is refused).
        reference_threshold_nm: (n,) the contact threshold without this calibration, Nm: a
            stretch whose mean is beyond it on a joint (a steady push) is refused.
        source: where the stretch comes from, for the file and messages.

    Returns:
        ``ResidualCalibration``.

    Raises:
        CalibrationError: too few samples, too short, a contact in the stretch, or a mean
            beyond the reference threshold.
    """
    x = np.asarray(tau_ext_nm, dtype=float)
    m = np.asarray(model_torque_nm, dtype=float)
    stamp_ns = np.asarray(stamp_ns, dtype=np.int64)
    duration_s = float(stamp_ns[-1] - stamp_ns[0]) * 1e-9 if len(stamp_ns) else 0.0
    if len(x) < MIN_SAMPLES or duration_s < MIN_DURATION_S:
        raise CalibrationError(
            f'calibration stretch {source}: {len(x)} samples over {duration_s:.2f} s; it needs '
            f'at least {MIN_SAMPLES} samples and {MIN_DURATION_S:g} s of contact-free data')
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(m))):
        raise CalibrationError(f'calibration stretch {source}: non-finite external torque')
    fit, beyond, note = _fits(x, m, np.abs(np.asarray(qd_rad_s, dtype=float)), contact_sigmas)
    if beyond.mean() > CONTACT_SHARE:
        k = int(np.argmax(beyond))
        t0 = (stamp_ns[k] - stamp_ns[0]) * 1e-9
        raise CalibrationError(
            f'calibration stretch {source} looks like it holds a contact: '
            f'{100 * beyond.mean():.1f} % of its samples are beyond the contact threshold '
            f'({contact_sigmas:g} std) of the rest, the first {t0:.2f} s into it; calibrate on '
            'a stretch without contact')
    off = np.abs(fit[:, 0]) > np.asarray(reference_threshold_nm, dtype=float)
    if off.any():
        j = int(np.argmax(off))
        raise CalibrationError(
            f'calibration stretch {source}: the mean external torque of {joint_names[j]} is '
            f'{fit[j, 0]:+.3f} Nm, beyond the contact threshold without calibration '
            f'({reference_threshold_nm[j]:.3f} Nm): a steady contact (or a model far off); '
            'calibrate on a stretch without contact')
    return ResidualCalibration(tuple(joint_names), fit[:, 0], fit[:, 1], fit[:, 2], fit[:, 3],
                               method, float(bandwidth_hz), len(x), duration_s, source,
                               [note] if note else [])
