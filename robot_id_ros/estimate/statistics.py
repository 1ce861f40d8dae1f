# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The residual statistics the estimator rests on, and where they come from.

The contact thresholds and the published sigma rest on them. In order of precedence: a
calibration on contact-free data (``robot-id calibrate``, the node's ``~/calibrate``), the model
file's identification residual, else the fallback settings (``default_*``), which the estimator
names at start and in its diagnostics: a model made from a URDF alone has no statistics of its own.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.io.calibration_file import ResidualCalibration


@dataclass(frozen=True)
class ResidualStatistics:
    """Per joint: the error model of tau_ext without contact.

    tau_ext = mean + e, var(e) = std^2 (times the residual filter's noise gain unless
    ``at_output``) + (model_relative_error * model torque)^2 + (speed_error * |qd|)^2, and the
    published sigma adds (effort_relative_error * measured torque)^2: the measured torque's scale
    (motor current times a torque constant) is known only so well, and no contact-free data can
    show it.
    """

    std_nm: np.ndarray
    mean_nm: np.ndarray
    model_relative_error: np.ndarray
    speed_error_nm_s_rad: np.ndarray
    effort_relative_error: np.ndarray
    at_output: bool        # measured on the estimator's own output (not reduced by its filter)
    source: str
    fallback: bool

    @property
    def model_error(self) -> bool:
        """Whether the error grows with the model torque or the joint speed."""
        return bool(np.any(self.model_relative_error > 0) or np.any(self.speed_error_nm_s_rad > 0))


def residual_statistics(model, config, calibration: ResidualCalibration | None = None
                        ) -> ResidualStatistics:
    """Return the statistics for ``model`` under ``config`` (and ``calibration`` if given).

    Raises:
        CalibrationFileError: a calibration for other joints or another residual setup.
    """
    n = model.n
    zero = np.zeros(n)
    std = model.residual_std_nm
    identified = std is not None and np.all(np.isfinite(std)) and np.all(np.asarray(std) > 0)
    effort = np.full(n, 0.0 if identified else config.default_effort_relative_error)
    if calibration is not None:
        calibration.check_for(model.joint_names, config.method, config.residual_bandwidth_hz,
                              f'({calibration.source})' if calibration.source else '')
        return ResidualStatistics(
            np.asarray(calibration.std_nm, float), np.asarray(calibration.mean_nm, float),
            np.asarray(calibration.model_relative_error, float),
            np.asarray(calibration.speed_error_nm_s_rad, float), effort, True,
            f'calibration {calibration.source}'.strip(), False)
    if identified:
        return ResidualStatistics(np.asarray(std, float), zero, zero, zero, effort, False,
                                  'model residual std', False)
    return ResidualStatistics(
        np.full(n, config.default_residual_std_nm), zero,
        np.full(n, config.default_model_relative_error), zero, effort, False,
        f'fallback statistics: residual std {config.default_residual_std_nm:g} Nm, '
        f'{100 * config.default_model_relative_error:g} % of the model torque, '
        f'{100 * config.default_effort_relative_error:g} % of the measured torque (the model '
        'file has none: calibrate on contact-free data)', True)
