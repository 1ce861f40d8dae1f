# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the option search of ``identify.selection`` scored and chose (ROS-free).

``Candidate`` is one set of options with its held-out error; ``Selection`` the choice, every
candidate, and how it is printed and written into the model file.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from robot_id_ros.identify.options import IdentificationOptions

FOLDS = 5     # blocks each training run is cut into for the cross-validation


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
class Selection:
    """The chosen options and every candidate scored, with the search's cost (s)."""

    options: IdentificationOptions
    candidates: list = field(default_factory=list)
    searched: list = field(default_factory=list)
    given: list = field(default_factory=list)
    folds: int = FOLDS
    samples: int = 0
    time_s: float = 0.0
    score_velocity_rad_s: float | None = None   # rows scored: joints at least this fast
    band_ratios: object = None    # (n, bands) stick-slip residual ratios (identify/stick_slip.py)
    stick_slip_velocity_rad_s: float | None = None   # read from the runs (used or not)

    def chosen(self) -> dict:
        """Return the chosen value of every searched option."""
        return {k: getattr(self.options, k) for k in self.searched}

    def to_dict(self) -> dict:
        """Return the model file's ``identification.selection`` entry."""
        return {'method': f'blocked cross-validation, {self.folds} folds, greedy passes',
                'searched': list(self.searched), 'given': list(self.given),
                'chosen': self.chosen(), 'samples': self.samples, 'time_s': self.time_s,
                'scored_rows_min_velocity_rad_s': self.score_velocity_rad_s,
                'stick_slip_velocity_rad_s': self.stick_slip_velocity_rad_s,
                'candidates': [c.to_dict() for c in self.candidates]}

    def summary_lines(self) -> list:
        """Return the lines the identification summary prints: candidates and the choice."""
        lines = [f'options chosen by {self.folds}-fold blocked cross-validation on the training '
                 f'data ({self.samples} samples, {self.time_s:.1f} s); held-out relative error '
                 'above the noise floor'
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
