# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The admittance law: tool velocity from the estimated tool force, per mode.

Forces follow the estimator's convention (``robot_id_ros.estimate.estimator``): the force the
environment applies to the tool, base frame. A hand pushing the tool along +x reads +fx; a
surface the tool presses into along ``force_axis`` d pushes back, so the pressing force is
``-F . d``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.errors import InputError


@dataclass
class ForceInput:
    """What the controller takes from one estimate.

    Attributes:
        stamp_s: the estimate's time, s (the clock the controller steps on).
        force_n: (3,) force applied to the tool, base frame, N.
        sigma_n: (3,) the estimate's standard deviation per axis, N.
        collision: a collision flag (an external safety signal; the estimator's flag where
            ``ControllerConfig.estimator_collision``): the controller stops until re-enabled.
        frame_id: the frame the force is in (None: not said; not checked).
    """

    stamp_s: float
    force_n: np.ndarray
    sigma_n: np.ndarray
    collision: bool = False
    frame_id: str | None = None

    @classmethod
    def from_estimate(cls, result, stamp_s: float | None = None) -> ForceInput:
        """Return the input of an ``EstimateResult`` (base frame).

        Args:
            result: ``robot_id_ros.estimate.EstimateResult`` with ``frame_id`` the base frame.
            stamp_s: its time, s (default: its stamp).

        Raises:
            InputError: the estimate is not finite.
        """
        force = np.asarray(result.wrench[:3], dtype=float)
        var = np.diag(np.asarray(result.wrench_covariance, dtype=float))[:3]
        if not (np.all(np.isfinite(force)) and np.all(np.isfinite(var))):
            raise InputError('estimate is not finite: the controller does not use it', 'estimate')
        t = result.stamp_ns * 1e-9 if stamp_s is None else float(stamp_s)
        return cls(t, force, np.sqrt(np.maximum(var, 0.0)), bool(result.collision),
                   result.frame_id)


def unit(v) -> np.ndarray:
    """Return ``v`` (3,) normalised."""
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def dead_band(force_n, band_n) -> np.ndarray:
    """Return the force beyond a per-axis dead band: ``sign(F) max(|F| - band, 0)``.

    Args:
        force_n: (3,) force, N.
        band_n: (3,) dead band half-width per axis, N.
    """
    f = np.asarray(force_n, dtype=float)
    return np.sign(f) * np.maximum(np.abs(f) - np.asarray(band_n, dtype=float), 0.0)


def pressing_force_n(force_n, axis) -> float:
    """Return how hard the tool presses along ``axis``: the reaction ``-F . axis``, N."""
    return float(-np.dot(np.asarray(force_n, dtype=float), unit(axis)))


def admittance_velocity(mode: str, config, inp: ForceInput,
                        pressing_n: float | None = None) -> np.ndarray:
    """Return the tool linear velocity (3,), base frame, m/s, that the mode asks for.

    - ``hold``: zero.
    - ``hand_guiding``: ``admittance x (F - dead band)`` on the enabled axes, the dead band
      ``dead_band_sigma`` x the estimate's own standard deviation per axis.
    - ``force_hold``: along ``force_axis`` d, ``force_admittance x (set force - pressing
      force)``: the tool approaches at ``force_admittance x set force`` in free space and stops
      where the pressing force is the set force; zero across d.

    Args:
        mode: one of ``MODES``.
        config: ``ControllerConfig``.
        inp: the estimate.
        pressing_n: force_hold: the pressing force to use, N (None: the estimate's).
    """
    if mode == 'hand_guiding':
        axes = np.asarray(config.guide_axes, dtype=float)
        beyond = dead_band(inp.force_n, config.dead_band_sigma * inp.sigma_n)
        return config.admittance_m_s_n * beyond * axes
    if mode == 'force_hold':
        d = unit(config.force_axis)
        if pressing_n is None:
            pressing_n = pressing_force_n(inp.force_n, d)
        error = config.force_setpoint_n - pressing_n
        return config.force_admittance_m_s_n * error * d
    return np.zeros(3)


def sigma_along_n(sigma_n, axis) -> float:
    """Return the standard deviation (N) along ``axis`` of per-axis ones (independent)."""
    return float(np.sqrt(np.sum((unit(axis) * np.asarray(sigma_n, dtype=float)) ** 2)))


def used_axes(mode: str, config) -> np.ndarray:
    """Return the mask (3,) of the force axes the mode reads (their sigma is checked)."""
    if mode == 'hand_guiding':
        return np.asarray(config.guide_axes, dtype=float) > 0
    if mode == 'force_hold':
        return np.abs(unit(config.force_axis)) > 1e-6
    return np.zeros(3, dtype=bool)
