# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The residual calibration file: statistics of the estimator's residual on contact-free data.

Written by ``robot-id calibrate`` and by the wrench_estimator node's ``~/calibrate`` service; read
by ``robot-id estimate --calibration`` and the node's ``calibration_file`` at start. The fit is
``robot_id_ros.estimate.calibration``; the fields are in docs/model_file.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np
import yaml

from robot_id_ros.errors import InputError
from robot_id_ros.io.files import atomic_write_text, to_plain, yaml_output
from robot_id_ros.io.yaml_input import read_yaml

KIND = 'robot_id_ros/residual_calibration'
SCHEMA_VERSION = 1
MAX_CALIBRATION_FILE_BYTES = 1024 * 1024
_JOINT_FIELDS = ('mean_nm', 'std_nm', 'model_relative_error', 'speed_error_nm_s_rad')


class CalibrationFileError(InputError):
    """A calibration file that cannot be used (unreadable, malformed, another estimator)."""

    kind = 'calibration_file'


@dataclass
class ResidualCalibration:
    """Residual statistics of one estimator setup, per joint, measured on contact-free data.

    The external torque's error is modelled as a mean (subtracted, as a tare) and a spread of
    variance ``std^2 + (model_relative_error * model torque)^2 + (speed_error * |qd|)^2``.
    ``method`` and ``bandwidth_hz`` are those of the residual they were measured on: a residual's
    spread depends on its filter, so they hold for that estimator setup only.
    """

    joint_names: tuple
    mean_nm: np.ndarray
    std_nm: np.ndarray
    model_relative_error: np.ndarray
    speed_error_nm_s_rad: np.ndarray
    method: str
    bandwidth_hz: float
    samples: int
    duration_s: float
    source: str = ''
    notes: list = field(default_factory=list)

    def describe(self) -> str:
        """Return one line with the statistics per joint."""
        parts = [f'{n}: mean {m:+.4f} Nm, std {s:.4f} Nm, {100 * r:.0f} % of the model torque, '
                 f'{c:.3f} Nm per rad/s'
                 for n, m, s, r, c in zip(self.joint_names, self.mean_nm, self.std_nm,
                                          self.model_relative_error, self.speed_error_nm_s_rad)]
        return '; '.join(parts)

    def to_dict(self) -> dict:
        """Return the file's mapping."""
        return to_plain({
            'kind': KIND, 'schema_version': SCHEMA_VERSION,
            'created': datetime.now(timezone.utc).isoformat(timespec='seconds'),
            'source': self.source, 'samples': self.samples, 'duration_s': self.duration_s,
            'estimator': {'method': self.method, 'bandwidth_hz': self.bandwidth_hz},
            'joints': {n: {f: float(getattr(self, f)[j]) for f in _JOINT_FIELDS}
                       for j, n in enumerate(self.joint_names)},
            'notes': list(self.notes)})

    def save(self, path):
        """Write atomically: a crash leaves the old file or the new one."""
        atomic_write_text(path, yaml.safe_dump(self.to_dict(), sort_keys=False))

    def check_for(self, joint_names, method, bandwidth_hz, where=''):
        """Raise CalibrationFileError unless it fits these joints and this residual."""
        if tuple(joint_names) != tuple(self.joint_names):
            raise CalibrationFileError(
                f'calibration {where} is for joints {", ".join(self.joint_names)}, the model has '
                f'{", ".join(joint_names)}: calibrate this model')
        if method != self.method or not math.isclose(bandwidth_hz, self.bandwidth_hz,
                                                     rel_tol=1e-6):
            raise CalibrationFileError(
                f'calibration {where} was measured on the {self.method} residual at '
                f'{self.bandwidth_hz:g} Hz, this estimator runs {method} at {bandwidth_hz:g} Hz: '
                'calibrate again with these settings')


def _joint_values(d, path, names):
    out = {f: np.zeros(len(names)) for f in _JOINT_FIELDS}
    for j, name in enumerate(names):
        entry = d[name]
        for f in _JOINT_FIELDS:
            v = float(entry[f])
            if not math.isfinite(v) or (f != 'mean_nm' and v < 0):
                raise ValueError(f'joint {name}: {f} = {v} must be finite'
                                 + ('' if f == 'mean_nm' else ' and >= 0'))
            out[f][j] = v
        if out['std_nm'][j] <= 0:
            raise ValueError(f'joint {name}: std_nm must be > 0')
    return out


def load_calibration(path) -> ResidualCalibration:
    """Read a calibration file; CalibrationFileError (one line) when it cannot be used."""
    d = read_yaml(path, 'calibration file', CalibrationFileError, MAX_CALIBRATION_FILE_BYTES,
                  fix='give a file written by robot-id calibrate')
    if not isinstance(d, dict) or d.get('kind') != KIND:
        raise CalibrationFileError(f'{path} is not a residual calibration file (kind {KIND}): '
                                   'give a file written by robot-id calibrate')
    try:
        names = tuple(d['joints'])
        values = _joint_values(d['joints'], path, names)
        est = d['estimator']
        cal = ResidualCalibration(names, *(values[f] for f in _JOINT_FIELDS),
                                  str(est['method']), float(est['bandwidth_hz']),
                                  int(d['samples']), float(d['duration_s']),
                                  str(d.get('source', '')), list(d.get('notes') or []))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CalibrationFileError(f'calibration file {path} is malformed ({exc}): calibrate '
                                   'again') from None
    return cal


CALIBRATION_OUTPUT = yaml_output('residual calibration', lambda d: d.get('kind') == KIND)
