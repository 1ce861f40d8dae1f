# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identified drive gains: their deviations, what is identifiable, the advice and the file entry.

The result of the drive-gain fit (identify/drive_gain_fit.py, identify/drive_gains.py), ROS-free.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SCALE_SOURCES = ('payload', 'known', 'urdf')
# a gain is identifiable when its 95 % interval half-width is within this fraction of it
GAIN_TOLERANCE = 0.05
_Z95 = 1.96


@dataclass
class DriveGainsResult:
    """Identified drive gains.

    gains_nm_per_a and std (n,), NaN where not identified; scale_source in ``SCALE_SOURCES``;
    note: one line saying how the scale was fixed; beta: the base parameters of the fit;
    residual_rms_a (n,) current residual; iterations of the alternating fit. std is the largest of
    std_noise (white-noise Fisher information), std_blocks (delete-one-block jackknife over
    time blocks, NaN when not computed) and std_structure (the shift with a Stribeck column,
    None when not computed); ratio_identifiable (n,) bool: 1.96 std within ``GAIN_TOLERANCE`` of
    the gain, whichever deviations std holds (the gain up to the common scale); identifiable
    (n,) bool: the same where the scale is the data's (payload, known), all False on the URDF's.
    """

    gains_nm_per_a: np.ndarray
    std: np.ndarray
    scale_source: str
    note: str
    beta: np.ndarray
    residual_rms_a: np.ndarray
    iterations: int
    samples: int = 0
    std_noise: np.ndarray | None = None
    std_blocks: np.ndarray | None = None
    blocks: int = 0
    std_structure: np.ndarray | None = None

    @property
    def ratio_identifiable(self):
        """(n,) bool: the gain's 95 % interval is within ``GAIN_TOLERANCE`` of it.

        The gain up to the common scale, which the interval leaves out on the URDF's scale.
        """
        return np.isfinite(self.std) & (_Z95 * self.std
                                        <= GAIN_TOLERANCE * np.abs(self.gains_nm_per_a))

    @property
    def identifiable(self):
        """(n,) bool: the gain itself is known within ``GAIN_TOLERANCE`` (95 %).

        ``ratio_identifiable`` where the scale comes from the data (a payload run, a known
        parameter); all False on the URDF's scale, whose error the intervals cannot hold.
        """
        if self.scale_source == 'urdf':
            return np.zeros(len(self.std), dtype=bool)
        return self.ratio_identifiable

    def advice(self, joint_names):
        """One line on the gains that are not identifiable and the fix; '' when all are."""
        bad = [n for n, ok in zip(joint_names, self.ratio_identifiable) if not ok]
        lines = []
        if self.scale_source == 'urdf':
            good = [n for n in joint_names if n not in bad]
            lines.append('drive gains rest on the URDF\'s mass scale: identifiable only up to '
                         f'that common scale ({", ".join(good) or "none"} within '
                         f'+-{100 * GAIN_TOLERANCE:g} % of each other); for the gains themselves '
                         'record a payload run (--gains-payload-data) or give a known parameter '
                         '(--known)')
        if bad:
            lines.append(f'drive gain(s) of {", ".join(bad)} not identifiable (95 % interval '
                         f'wider than +-{100 * GAIN_TOLERANCE:g} %: their torque is mostly '
                         'friction or too small): record a payload run that loads them '
                         '(--gains-payload-data), or give the gains with --drive-gains')
        return '; '.join(lines)

    @property
    def poses(self):
        """Rows per joint (poses of a static experiment)."""
        return self.samples

    def to_dict(self, joint_names):
        """Return the model file's ``identification.drive_gains`` entry (NaN as None)."""
        def plain(v):
            return {n: (float(x) if np.isfinite(x) else None) for n, x in zip(joint_names, v)}
        d = {'scale_source': self.scale_source, 'note': self.note,
             'gains_nm_per_a': plain(self.gains_nm_per_a), 'std_nm_per_a': plain(self.std),
             'residual_rms_a': plain(self.residual_rms_a), 'iterations': int(self.iterations),
             'identifiable': {n: bool(x) for n, x in zip(joint_names, self.identifiable)},
             'ratio_identifiable': {
                 n: bool(x) for n, x in zip(joint_names, self.ratio_identifiable)},
             'tolerance': GAIN_TOLERANCE}
        if self.std_noise is not None:
            d['std_noise_nm_per_a'] = plain(self.std_noise)
        if self.std_blocks is not None:
            d['std_blocks_nm_per_a'] = plain(self.std_blocks)
            d['blocks'] = int(self.blocks)
        if self.std_structure is not None:
            d['shift_stribeck_nm_per_a'] = plain(self.std_structure)
        return d
