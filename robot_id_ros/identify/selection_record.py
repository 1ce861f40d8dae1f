# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the option search of ``identify.selection`` scored and chose (ROS-free).

``Candidate`` is one set of options with its held-out error; ``ExpectedError`` the chosen
options' held-out error, what to expect on motions other than the training's; ``Selection`` the
choice, every candidate, and how it is printed and written into the model file.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from robot_id_ros.identify.hold_out_folds import HOLD_OUT_VELOCITY, STATE_FOLDS, describe
from robot_id_ros.identify.options import IdentificationOptions


@dataclass
class Candidate:
    """One set of options scored: its dimension, settings, held-out relative error and pass."""

    dimension: str
    settings: dict
    error: float | None = None          # held-out ||e|| / ||tau||; None: the fit failed
    note: str = ''
    chosen: bool = False
    pass_index: int = 1                 # the greedy pass (1, 2, ...) that scored it

    def to_dict(self):
        """Return the candidate as plain data."""
        return {'dimension': self.dimension, 'settings': dict(self.settings),
                'held_out_relative_error': self.error, 'chosen': self.chosen,
                'pass': self.pass_index,
                **({'note': self.note} if self.note else {})}


@dataclass
class ExpectedError:
    """The chosen options' held-out ||e|| / ||tau|| (noise included), over the folds.

    ``relative_error`` over every held-out row together; ``fold_errors`` each fold's alone (NaN:
    a fold without held-out torque); ``above_noise`` as the candidates are compared (the noise
    floor taken off); ``hold_out`` and ``folds`` say how it was estimated
    (identify/hold_out_folds.py).
    """

    relative_error: float
    fold_errors: list
    above_noise: float
    hold_out: str
    folds: int

    @classmethod
    def of(cls, held, hold_out, folds):
        """Return the expected error from the held-out sums ``held`` (``held_out._HeldOut``)."""
        return cls(held.raw_error, [float(x) for x in held.raw_fold_errors()], held.error,
                   hold_out, folds)

    def spread(self):
        """Return (mean, standard deviation, min, max) of the per-fold errors (NaN left out)."""
        e = np.asarray(self.fold_errors, dtype=float)
        e = e[np.isfinite(e)]
        if not len(e):
            return (float('nan'),) * 4
        return (float(e.mean()), float(e.std(ddof=1)) if len(e) > 1 else 0.0,
                float(e.min()), float(e.max()))

    def to_dict(self):
        """Return the model file's ``selection.expected_error`` entry."""
        mean, std, lo, hi = self.spread()
        return {'relative_error': self.relative_error, 'above_noise': self.above_noise,
                'fold_relative_errors': list(self.fold_errors), 'fold_mean': mean,
                'fold_std': std, 'fold_min': lo, 'fold_max': hi,
                'hold_out': self.hold_out, 'folds': self.folds,
                'estimated_by': describe(self.hold_out, self.folds)}

    def line(self):
        """Return the summary's line: the figure, its spread and how it was estimated."""
        mean, std, lo, hi = self.spread()
        return (f'expected relative error on other motions: {100 * self.relative_error:.2f} % '
                f'(||e|| / ||tau||, noise included; per fold {100 * mean:.2f} +- '
                f'{100 * std:.2f} %, {100 * lo:.2f}-{100 * hi:.2f} %), estimated by '
                f'{describe(self.hold_out, self.folds)}')


@dataclass
class Selection:
    """The chosen options and every candidate scored, with the search's cost (s)."""

    options: IdentificationOptions
    candidates: list = field(default_factory=list)
    searched: list = field(default_factory=list)
    given: list = field(default_factory=list)
    folds: int = STATE_FOLDS
    samples: int = 0
    time_s: float = 0.0
    score_velocity_rad_s: float | None = None   # rows scored: joints at least this fast
    band_ratios: object = None    # (n, bands) stick-slip residual ratios (identify/stick_slip.py)
    stick_slip_velocity_rad_s: float | None = None   # read from the runs (used or not)
    hold_out: str = HOLD_OUT_VELOCITY   # what the folds hold out (identify/hold_out_folds.py)
    expected: ExpectedError | None = None   # the chosen options' held-out error

    def chosen(self) -> dict:
        """Return the chosen value of every searched option."""
        return {k: getattr(self.options, k) for k in self.searched}

    def to_dict(self) -> dict:
        """Return the model file's ``identification.selection`` entry."""
        return {'method': f'cross-validation, {describe(self.hold_out, self.folds)}, greedy '
                          'passes, one-standard-error rule',
                'hold_out': self.hold_out, 'folds': self.folds,
                'expected_error': None if self.expected is None else self.expected.to_dict(),
                'searched': list(self.searched), 'given': list(self.given),
                'chosen': self.chosen(), 'samples': self.samples, 'time_s': self.time_s,
                'scored_rows_min_velocity_rad_s': self.score_velocity_rad_s,
                'stick_slip_velocity_rad_s': self.stick_slip_velocity_rad_s,
                'candidates': [c.to_dict() for c in self.candidates]}

    def summary_lines(self) -> list:
        """Return the lines the identification summary prints: candidates and the choice."""
        lines = [f'options chosen by cross-validation, {describe(self.hold_out, self.folds)} '
                 f'({self.samples} samples, {self.time_s:.1f} s); held-out relative error '
                 'above the noise floor (a candidate within one standard error of the fold '
                 'differences: the simpler)'
                 + _scored_rows(self.score_velocity_rad_s, self.stick_slip_velocity_rad_s) + ':']
        for c in self.candidates:
            err = 'failed' if c.error is None else f'{100 * c.error:.3f} %'
            desc = ', '.join(f'{k}={_fmt(v)}' for k, v in c.settings.items())
            dim = c.dimension + (f' (pass {c.pass_index})' if c.pass_index > 1 else '')
            lines.append(f'  {"*" if c.chosen else " "} {dim:<20} {desc:<44} {err}'
                         + (f' ({c.note})' if c.note else ''))
        lines.append('  chosen: ' + ', '.join(f'{k}={_fmt(v)}' for k, v in self.chosen().items()))
        if self.given:
            lines.append('  given (not searched): ' + ', '.join(self.given))
        if self.expected is not None:
            lines.append('  ' + self.expected.line())
        return lines


def _scored_rows(v, read):
    """Return which rows the candidates were scored on, as the summary prints it."""
    if v is not None:
        return (f' on the rows of joints at least {v:g} rad/s fast (stick-slip below) and the '
                'static holds')
    if read:
        return f' (slow-row misfit below {read:g} rad/s: taken for model error, not stick-slip)'
    return ' (no stick-slip seen)' if read == 0 else ''


def _fmt(v):
    """Return a setting's value as the summary prints it."""
    if v is None:
        return 'default'
    return f'{v:g}' if isinstance(v, float) else str(v)
