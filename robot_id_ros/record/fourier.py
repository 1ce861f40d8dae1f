# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The finite Fourier series trajectory (eq. 30 of Swevers et al. 1997) and its YAML file."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.io.files import to_plain

SCHEMA = 'robot_id_ros/excitation'
SCHEMA_VERSION = 1
TABLE_RATE_HZ_DEFAULT = 100.0
YAML_LINE_WIDTH = 1_000_000       # one table row per line in the trajectory file


class ExcitationError(InputError):
    """Inputs no excitation trajectory can be designed from; the message says what to change."""


@dataclass
class FourierTrajectory:
    """Finite Fourier series trajectory (eq. 30). a, b: (n, N) rad/s; q0: (n,) rad."""

    joint_names: tuple
    period_s: float
    a: np.ndarray
    b: np.ndarray
    q0: np.ndarray
    design: dict = field(default_factory=dict)
    robot_name: str = ''

    def __post_init__(self):
        self.joint_names = tuple(self.joint_names)
        self.a = np.atleast_2d(np.asarray(self.a, dtype=float))
        self.b = np.atleast_2d(np.asarray(self.b, dtype=float))
        self.q0 = np.asarray(self.q0, dtype=float).reshape(-1)
        n = len(self.joint_names)
        if self.a.shape != self.b.shape or self.a.shape[0] != n or self.q0.shape != (n,):
            raise ExcitationError(f'trajectory coefficients do not match {n} joints: a '
                                  f'{self.a.shape}, b {self.b.shape}, q0 {self.q0.shape}')
        if not (np.isfinite(self.period_s) and self.period_s > 0):
            raise ExcitationError(f'period_s must be positive, got {self.period_s}')
        if not (np.all(np.isfinite(self.a)) and np.all(np.isfinite(self.b))
                and np.all(np.isfinite(self.q0))):
            raise ExcitationError('trajectory coefficients contain NaN or inf')

    @property
    def n(self):
        """Number of joints."""
        return len(self.joint_names)

    @property
    def harmonics(self):
        """N, the number of harmonics."""
        return self.a.shape[1]

    @property
    def base_frequency_hz(self):
        """1 / period, Hz."""
        return 1.0 / self.period_s

    @property
    def omega_f(self):
        """Base angular frequency w_f, rad/s."""
        return 2 * np.pi / self.period_s

    @property
    def bandwidth_hz(self):
        """Highest frequency in q, N / period, Hz."""
        return self.harmonics / self.period_s

    def evaluate(self, t_s):
        """(q, qd, qdd), each (len(t), n), in rad, rad/s, rad/s^2, at times ``t_s`` (s)."""
        t = np.atleast_1d(np.asarray(t_s, dtype=float))
        wl = self.omega_f * np.arange(1, self.harmonics + 1)
        ph = np.outer(t, wl)
        S, C = np.sin(ph), np.cos(ph)
        q = self.q0 + (S / wl) @ self.a.T - (C / wl) @ self.b.T
        qd = C @ self.a.T + S @ self.b.T
        qdd = -(S * wl) @ self.a.T + (C * wl) @ self.b.T
        return q, qd, qdd

    def sample_table(self, rate_hz=TABLE_RATE_HZ_DEFAULT):
        """One period sampled at ``rate_hz``.

        Args:
            rate_hz: sample rate, Hz (above twice the bandwidth).

        Returns:
            (t s, q, qd, qdd), t from 0 to T - 1/rate.

        Raises:
            ExcitationError: a rate too low for the harmonics.
        """
        rate_hz = float(rate_hz)
        if not rate_hz > 2 * self.bandwidth_hz:
            raise ExcitationError(f'sample rate {rate_hz:g} Hz is too low for {self.harmonics} '
                                  f'harmonics of a {self.period_s:g} s period (bandwidth '
                                  f'{self.bandwidth_hz:g} Hz); use more than '
                                  f'{2 * self.bandwidth_hz:g} Hz')
        M = int(round(self.period_s * rate_hz))
        t = np.arange(M) / rate_hz
        return (t, *self.evaluate(t))

    def to_dict(self, table_rate_hz=TABLE_RATE_HZ_DEFAULT):
        """Return the trajectory file's content (schema in ``robot_id_ros.record.excitation``)."""
        t, q, qd, qdd = self.sample_table(table_rate_hz)
        q_start = self.evaluate([0.0])[0][0]
        return {
            'schema': SCHEMA,
            'schema_version': SCHEMA_VERSION,
            'robot_name': self.robot_name,
            'joint_names': list(self.joint_names),
            'period_s': float(self.period_s),
            'base_frequency_hz': float(self.base_frequency_hz),
            'harmonics': int(self.harmonics),
            'bandwidth_hz': float(self.bandwidth_hz),
            'q0_rad': self.q0.tolist(),
            'coefficients': {'a': self.a.tolist(), 'b': self.b.tolist(), 'unit': 'rad/s'},
            'q_start_rad': q_start.tolist(),
            'formula': 'q_j(t) = q0_j + sum_{l=1..N} a_jl/(w_f l) sin(w_f l t) - b_jl/(w_f l) '
                       'cos(w_f l t), w_f = 2 pi / period_s',
            'design': to_plain(self.design),
            'samples': {'rate_hz': float(table_rate_hz), 't_s': t.tolist(), 'q_rad': q.tolist(),
                        'qd_rad_s': qd.tolist(), 'qdd_rad_s2': qdd.tolist()},
        }

    @classmethod
    def from_dict(cls, d):
        """Build the trajectory of a trajectory file's content; ExcitationError if not one."""
        if not isinstance(d, dict) or d.get('schema') != SCHEMA:
            raise ExcitationError(f'not an excitation trajectory file (schema must be {SCHEMA!r})')
        if int(d.get('schema_version', -1)) > SCHEMA_VERSION:
            raise ExcitationError(f'trajectory schema_version {d.get("schema_version")} is newer '
                                  f'than this reader ({SCHEMA_VERSION}); update robot_id_ros')
        try:
            c = d['coefficients']
            return cls(d['joint_names'], float(d['period_s']), c['a'], c['b'], d['q0_rad'],
                       design=d.get('design', {}) or {}, robot_name=d.get('robot_name', ''))
        except KeyError as exc:
            raise ExcitationError(f'trajectory file lacks field {exc}') from exc

    def save(self, path, table_rate_hz=TABLE_RATE_HZ_DEFAULT):
        """Write the trajectory file (YAML) with a table sampled at ``table_rate_hz`` (Hz)."""
        import yaml

        d = self.to_dict(table_rate_hz)
        Path(path).write_text(yaml.safe_dump(d, sort_keys=False, default_flow_style=None,
                                             width=YAML_LINE_WIDTH))

    @classmethod
    def load(cls, path):
        """Read a trajectory file; ExcitationError when it is missing or not one."""
        from robot_id_ros.io.yaml_input import read_yaml

        path = Path(path)
        if not path.is_file():
            raise ExcitationError(f'trajectory file not found: {path}')
        return cls.from_dict(read_yaml(path, 'trajectory file', ExcitationError))
