# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What an identification says about load-dependent friction and a drift within its runs.

With ``load_coulomb`` the model's Coulomb friction grows by mu Nm per Nm of rigid-body torque;
with ``friction_drift`` the fit found how much the Coulomb and viscous friction fell (or rose)
from each run's start to its end, and the model's friction is the runs' mean. A model used on
an arm colder than the runs were on average sees more friction than it holds, on a warmer arm
less (``estimate/friction_change.py`` says which).
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.model.friction import FrictionModel


def load_drift_lines(friction: FrictionModel, joint_names) -> list:
    """Return the summary's lines on the load and drift terms of ``friction`` (none: [])."""
    lines = []
    if friction.has_load_coulomb:
        lines.append('load-dependent Coulomb friction (Nm per Nm of rigid-body torque): '
                     + ', '.join(f'{name} {mu:.3g}' for name, mu in
                                 zip(joint_names, friction.load_coulomb_per_nm)))
    if friction.has_drift:
        lines.append(drift_line(friction, joint_names))
    return lines


def drift_line(friction: FrictionModel, joint_names) -> str:
    """Return the line saying how the friction changed over the recordings, per joint."""
    mean = 0.5 * (friction.coulomb_pos_nm + friction.coulomb_neg_nm)
    start = mean + 0.5 * friction.coulomb_drift_nm
    end = mean - 0.5 * friction.coulomb_drift_nm
    with np.errstate(divide='ignore', invalid='ignore'):
        share = np.where(np.abs(start) > 0, friction.coulomb_drift_nm / np.abs(start), np.nan)
    parts = [f'{name} Coulomb {a:.3g} -> {b:.3g} Nm'
             + (f' ({-100 * s:+.0f} %)' if np.isfinite(s) else '')
             + f', viscous {dv:+.3g} Nm s/rad start - end'
             for name, a, b, s, dv in zip(joint_names, start, end, share,
                                          friction.viscous_drift_nm_s_rad)]
    cooler = bool(np.sum(friction.coulomb_drift_nm) > 0)
    return ('friction drift within the recordings (start -> end of each run): '
            + '; '.join(parts) + '. The model holds the runs\' mean friction'
            + (' (an arm used colder than that has more friction than it holds, a warm one '
               'less)' if cooler else ''))
