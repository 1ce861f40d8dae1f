# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Residual statistics learnt from contact-free data (``calibrate``).

A model's residual statistics come from its identification; a model made from a URDF has none,
and another robot of the same type or a new payload makes them wrong. A calibration measures
them where they are used: the estimator's own external joint torque over a stretch the user
declares contact-free. Per joint it fits

    tau_ext = mean + e,
    var(e) = std^2 + (model_relative_error * model torque)^2 + (speed_error * joint speed)^2,

by least squares on e^2 with non-negative terms: the mean is subtracted from then on (as a tare),
``std`` is the spread the model leaves at rest, ``model_relative_error`` the share of the
predicted torque it misses (a URDF's masses, drives it does not describe) and ``speed_error`` the
error that grows with the joint's speed (friction it does not have). Samples beyond
``OUTLIER_SIGMAS`` of a fit are left out of the next one, so a spike does not widen it.

A push is not noise: a stretch is refused where more than ``CONTACT_SHARE`` of its samples are
beyond the contact threshold of the fit (a contact on part of it), or where a joint's mean is
beyond the contact threshold the estimator had without the calibration (a steady contact). A
push on a large part of the stretch widens the fit instead; the result then says, joint by joint,
how far the calibration raises the contact threshold at rest over the one without it, so that
raising it is never silent.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import nnls

from robot_id_ros.errors import InputError
from robot_id_ros.estimate.statistics import residual_statistics
from robot_id_ros.io.calibration_file import ResidualCalibration

OUTLIER_SIGMAS = 5.0     # samples beyond this many std of a fit are left out of the next
FIT_ROUNDS = 3
# share of samples beyond the contact threshold that means a contact: real model error has
# heavier tails than a normal distribution (a few % beyond 5 std in fast motion)
CONTACT_SHARE = 0.05
MIN_SAMPLES = 100
MIN_DURATION_S = 0.5
SETTLE_TIME_CONSTANTS = 5.0   # the residual's time constants skipped at a stretch's start


class CalibrationError(InputError):
    """A stretch that cannot calibrate the estimator (too short, holds a contact)."""

    kind = 'calibration'


def settle_s(bandwidth_hz) -> float:
    """Return the time (s) the residual needs to forget what came before a stretch.

    A first-order residual lags the external torque by 1 / (2 pi bandwidth); after five of those
    a contact that ended at the stretch's start has decayed below 1 % of its size.
    """
    return SETTLE_TIME_CONSTANTS / (2.0 * np.pi * float(bandwidth_hz))


def _noise_floor(x):
    """Per-joint std of the sample-to-sample change over sqrt(2): the white part of ``x``."""
    return np.std(np.diff(x, axis=0), axis=0) / np.sqrt(2.0)


def _fit_joint(x, m, v, floor):
    """Return (mean, std, model relative error, speed error, z) of one joint.

    ``m`` the model torque, ``v`` the joint speed; ``z`` every sample's |x - mean| over the
    fit's std there.
    """
    inliers = np.ones(len(x), dtype=bool)
    for _ in range(FIT_ROUNDS):
        mean = float(np.mean(x[inliers]))
        e2 = (x[inliers] - mean) ** 2
        terms = np.column_stack([np.ones(len(e2)), m[inliers] ** 2, v[inliers] ** 2])
        (s2, r2, c2), _ = nnls(terms, e2)
        std, rel, speed = max(float(np.sqrt(s2)), floor), float(np.sqrt(r2)), float(np.sqrt(c2))
        z = np.abs(x - mean) / np.sqrt(std ** 2 + (rel * m) ** 2 + (speed * v) ** 2)
        kept = z <= OUTLIER_SIGMAS
        if np.array_equal(kept, inliers) or kept.sum() < MIN_SAMPLES:
            break
        inliers = kept
    return mean, std, rel, speed, z


def _check_stretch(stamp_ns, x, m, source):
    """Raise CalibrationError for a stretch too short or not finite; return its duration, s."""
    duration_s = float(stamp_ns[-1] - stamp_ns[0]) * 1e-9 if len(stamp_ns) else 0.0
    if len(x) < MIN_SAMPLES or duration_s < MIN_DURATION_S:
        raise CalibrationError(
            f'calibration stretch {source}: {len(x)} samples over {duration_s:.2f} s; it needs '
            f'at least {MIN_SAMPLES} samples and {MIN_DURATION_S:g} s of contact-free data')
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(m))):
        raise CalibrationError(f'calibration stretch {source}: non-finite external torque')
    return duration_s


def _check_no_contact(stamp_ns, fit, z, contact_sigmas, reference_nm, names, source):
    """Raise CalibrationError where the stretch looks like it holds a contact."""
    beyond = np.sqrt((z ** 2).sum(axis=0)) > contact_sigmas
    if beyond.mean() > CONTACT_SHARE:
        t0 = (stamp_ns[int(np.argmax(beyond))] - stamp_ns[0]) * 1e-9
        raise CalibrationError(
            f'calibration stretch {source} looks like it holds a contact: '
            f'{100 * beyond.mean():.1f} % of its samples are beyond the contact threshold '
            f'({contact_sigmas:g} std) of the rest, the first {t0:.2f} s into it; calibrate on '
            'a stretch without contact')
    off = np.abs(fit[:, 0]) > reference_nm
    if off.any():
        j = int(np.argmax(off))
        raise CalibrationError(
            f'calibration stretch {source}: the mean external torque of {names[j]} is '
            f'{fit[j, 0]:+.3f} Nm, beyond the contact threshold without calibration '
            f'({reference_nm[j]:.3f} Nm): a steady contact (or a model far off); calibrate on '
            'a stretch without contact')


def calibrate(stamp_ns, tau_ext_nm, model_torque_nm, qd_rad_s, joint_names, method,
              bandwidth_hz, contact_sigmas, reference_threshold_nm, source=''):
    """Fit the residual statistics of a contact-free stretch.

    Args:
        stamp_ns: (N,) the samples' stamps, ns.
        tau_ext_nm: (N, n) the estimator's external joint torque over the stretch (untared);
            the samples within ``settle_s(bandwidth_hz)`` of the first are left out.
        model_torque_nm: (N, n) the model's torque there (tau_ext + the measured torque).
        qd_rad_s: (N, n) the joint velocities there.
        joint_names: n names.
        method: the estimator's residual ('momentum' or 'direct').
        bandwidth_hz: its bandwidth, Hz.
        contact_sigmas: the contact threshold in std.
        reference_threshold_nm: (n,) the contact threshold without this calibration, Nm.
        source: where the stretch comes from, for the file and messages.

    Returns:
        ``ResidualCalibration``; its ``notes`` name each joint whose contact threshold (median
        over the stretch) it raises over ``reference_threshold_nm``.

    Raises:
        CalibrationError: too few samples, too short, or a contact in the stretch.
    """
    stamp_ns = np.asarray(stamp_ns, dtype=np.int64)
    settled = stamp_ns >= stamp_ns[0] + int(settle_s(bandwidth_hz) * 1e9) if len(stamp_ns) \
        else np.zeros(0, dtype=bool)
    stamp_ns = stamp_ns[settled]
    x = np.asarray(tau_ext_nm, dtype=float)[settled]
    m = np.asarray(model_torque_nm, dtype=float)[settled]
    reference_nm = np.asarray(reference_threshold_nm, dtype=float)
    duration_s = _check_stretch(stamp_ns, x, m, source)
    v = np.abs(np.asarray(qd_rad_s, dtype=float))[settled]
    floor = np.maximum(_noise_floor(x), 1e-9)
    fits = [_fit_joint(x[:, j], m[:, j], v[:, j], floor[j]) for j in range(x.shape[1])]
    fit = np.array([f[:4] for f in fits])
    _check_no_contact(stamp_ns, fit, np.array([f[4] for f in fits]), contact_sigmas,
                      reference_nm, joint_names, source)
    # the threshold over the stretch, as the estimator will set it sample by sample
    typical = contact_sigmas * np.median(np.sqrt(
        fit[:, 1] ** 2 + (fit[:, 2] * m) ** 2 + (fit[:, 3] * v) ** 2), axis=0)
    notes = [f'the contact threshold of {n} rises from {r:.3f} to {a:.3f} Nm (median over the '
             'stretch): the model misses that much here; if the stretch held a contact, '
             'calibrate again on another'
             for n, r, a in zip(joint_names, reference_nm, typical) if a > r]
    return ResidualCalibration(tuple(joint_names), fit[:, 0], fit[:, 1], fit[:, 2], fit[:, 3],
                               method, float(bandwidth_hz), len(x), duration_s, source, notes)


def calibrate_estimator(est, stamp_ns, tau_ext_nm, model_torque_nm, qd_rad_s, source=''):
    """Fit the residual statistics of a contact-free stretch for the estimator ``est``.

    ``calibrate`` with ``est``'s joints, residual and contact threshold; the reference threshold
    is the one ``est``'s model and settings give without a calibration. ``tau_ext_nm`` untared.

    Raises:
        CalibrationError: a stretch too short or that looks like it holds a contact.
    """
    c = est.config
    reference_nm = c.contact_threshold_sigma * residual_statistics(est.model, c).std_nm
    return calibrate(stamp_ns, tau_ext_nm, model_torque_nm, qd_rad_s, est.model.joint_names,
                     c.method, c.residual_bandwidth_hz, c.contact_threshold_sigma, reference_nm,
                     source)
