# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""How a model was made: the model file's ``identification:`` section, as records (ROS-free).

The steps of ``identify.pipeline.identify`` fill an ``IdentificationRecord``; ``to_dict`` gives
the section.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


def _fields(record):
    """Return a record's fields as a dict, in declaration order (values not copied)."""
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}


@dataclass
class StaticFitRecord:
    """The ``static`` entry of the section when static poses were fitted (residuals in Nm)."""

    poses: int
    residual_rms_nm: list
    dropped: list                   # [{'name', 'expression', 'reason'}]
    point_mass_kg: list
    point_mass_residual_rms_nm: list


@dataclass
class DynamicsRecord:
    """The dynamic fit's entries.

    Samples, base parameters, condition numbers, relative error, residual RMS per joint (Nm), the
    known parameters, the unidentifiable standard parameters, per trajectory the position cut-off
    (Hz) and derivative method, the torque cut-off (Hz).
    """

    samples: int
    n_base: int
    condition_number: float
    condition_number_scaled: float
    relative_error: float
    residual_rms_nm: list
    known_parameters: dict
    unidentifiable: list
    cutoff_hz: list
    torque_cutoff_hz: float
    derivative_method: list


@dataclass
class GravityModelRecord:
    """The entries of a static-only model.

    Poses, the identified gravity combinations with their values and standard deviations, the
    dropped ones, condition numbers.
    """

    poses: int
    gravity_combinations: list
    gravity_values: list
    gravity_std: list
    dropped: list
    condition_number: float
    condition_number_scaled: float


@dataclass
class IdentificationRecord:
    """How a model was made: the model file's ``identification:`` section.

    ``to_dict`` gives the section: method, options, the data, static and sweep sources (``static``
    is the ``StaticFitRecord`` when static poses were fitted), then the entries of ``dynamics``
    or of ``gravity`` (a static-only model) at the top level, plausibility (the judgement of a
    dynamic fit, ``identify.plausibility``), fit_metrics (in-sample, with trajectories) and
    timings_s (s per step).
    """

    method: str
    options: dict
    data: list
    static_sources: list
    sweeps: list
    static: StaticFitRecord | None = None
    dynamics: DynamicsRecord | None = None
    gravity: GravityModelRecord | None = None
    fit_metrics: dict | None = None
    timings_s: dict = field(default_factory=dict)
    selection: dict | None = None
    plausibility: dict | None = None     # ``identify.plausibility``: the judgement of the fit

    def to_dict(self) -> dict:
        """Return the section as plain data (key order as in the model file)."""
        d = {'method': self.method, 'options': self.options,
             **({'selection': self.selection} if self.selection is not None else {}),
             'data': self.data,
             'static': self.static_sources if self.static is None else _fields(self.static),
             'sweeps': self.sweeps}
        for part in (self.dynamics, self.gravity):
            if part is not None:
                d.update(_fields(part))
        if self.plausibility is not None:
            d['plausibility'] = self.plausibility
        if self.fit_metrics is not None:
            d['fit_metrics'] = self.fit_metrics
        d['timings_s'] = dict(self.timings_s)
        return d
