# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Whether the friction of a run differs from the model's (``friction_change``).

A model identified on a cold arm, or before its load changed, reads the change of its joints'
friction as an external torque that follows each joint's velocity, and a large change is flagged
as a contact. Over the samples of a run in which a joint slides (faster than twice its stiction
velocity), the residual is fitted per joint with the model's friction regressors (sign+, sign-,
qd, 1: the tracked terms' and the offset's, ``CHANGE_TERMS``) passed through the residual's own
filter. Where the fitted change explains more than twice the residual std, and at least half of
the residual it keeps (the fit is made again without the samples it misses by far, such as a
push, which does not follow the sign of a joint's velocity), the model's friction is not this
run's: the estimate says so, how much, and on what share of flagged samples.
"""
from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np
from scipy.signal import lfilter

from robot_id_ros.estimate.friction_tracking import TERMS as TRACKED_TERMS, friction_regressors

EXPLAINED_STD = 2.0       # a change explaining more than this many residual std is reported
EXPLAINED_SHARE = 0.5     # ... and at least this share of the residual's sum of squares
MIN_SAMPLES = 200         # fewer sliding samples: nothing is said
TRIM_PASSES, TRIM_SPREADS = 3, 3.0     # refits leaving out samples beyond 3 spreads of the fit
# the terms a run's change is fitted with: the tracked ones and the offset, the model's whole law
# in sliding (the tracker keeps the model's offset; a run's fit names its change as well)
CHANGE_TERMS = TRACKED_TERMS + ('offset_nm',)


def change_regressors(qd, sign_velocity_rad_s):
    """Return the regressors (..., 4) of ``CHANGE_TERMS`` at joint velocities ``qd`` (rad/s)."""
    phi = friction_regressors(qd, sign_velocity_rad_s)
    return np.concatenate([phi, np.ones_like(phi[..., :1])], -1)


@dataclass
class FrictionChange:
    """One joint's friction in a run against the model's: the fitted change of each term."""

    joint: str
    change: dict              # {term name: fitted change} (Nm, Nm s/rad)
    explained_rms_nm: float   # RMS of the torque the change explains over the samples fitted
    residual_std_nm: float
    contact_share: float      # of the samples fitted, the share flagged in contact

    def line(self) -> str:
        """Return the note's line for this joint (changes of the magnitudes, run - model)."""
        c, ratio = self.change, self.explained_rms_nm / self.residual_std_nm
        return (f'{self.joint}: the residual follows the friction law by '
                f'{self.explained_rms_nm:.3g} Nm RMS ({ratio:.1f} residual std): Coulomb '
                f'{c["coulomb_pos_nm"]:+.3g} / {c["coulomb_neg_nm"]:+.3g} Nm, viscous '
                f'{c["viscous_nm_s_rad"]:+.3g} Nm s/rad, offset {c["offset_nm"]:+.3g} Nm '
                'against the model' + (f' (over samples {100 * self.contact_share:.0f} % flagged '
                                       'in contact)' if self.contact_share else '')
                + self.reading())

    def reading(self) -> str:
        """Return what the Coulomb change says of the arm (empty when its two signs differ).

        Gear friction falls as a joint warms and grows with its load: Coulomb friction lower in
        both directions reads as a warmer arm (or a lighter load), higher as a colder one (or a
        heavier load).
        """
        pos, neg = self.change['coulomb_pos_nm'], self.change['coulomb_neg_nm']
        if pos < 0 and neg < 0:
            return ': less friction, the arm is warmer (or the load lighter) than when identified'
        if pos > 0 and neg > 0:
            return ': more friction, the arm is colder (or the load heavier) than when identified'
        return ''


def friction_change(est, result, QD) -> list:
    """Return a ``FrictionChange`` per joint whose run friction differs from the model's.

    Args:
        est: the ``WrenchEstimator`` that made ``result`` (its model, statistics, bandwidth).
        result: its ``BatchResult`` (``process``).
        QD: (N, n) rad/s, the velocities of ``result``'s samples (``result.index`` applied).
    """
    QD = np.asarray(QD, dtype=float)
    dt = np.diff(result.stamp_ns) * 1e-9
    if len(dt) == 0:
        return []
    a = math.exp(-2.0 * math.pi * est.config.residual_bandwidth_hz * float(np.median(dt)))
    phi = change_regressors(QD, est.sign_velocity_rad_s)     # (N, n, 4)
    phi_f = lfilter([0.5 * (1 - a), 0.5 * (1 - a)], [1.0, -a], phi, axis=0)
    free = result.contact_state == 0
    std = est.residual_std_nm
    out = []
    for j, name in enumerate(est.model.joint_names):
        rows = np.abs(QD[:, j]) > 2.0 * est.friction.v_s[j]
        rows[:int(5 / (1 - a))] = False          # the filters settle
        if rows.sum() < MIN_SAMPLES:
            continue
        H, tau = phi_f[rows, j], result.tau_ext[rows, j]
        # without contact tau_ext is the filtered model friction minus the run's; a push is an
        # outlier to that fit, left out as the fit is made again on the samples it explains
        keep = np.ones(len(tau), dtype=bool)
        for _ in range(TRIM_PASSES):
            change = np.linalg.lstsq(H[keep], -tau[keep], rcond=None)[0]
            miss = tau + H @ change
            spread = 1.4826 * np.median(np.abs(miss[keep]))      # the MAD as a std
            keep = np.abs(miss) <= TRIM_SPREADS * spread + std[j]
        H, tau = H[keep], tau[keep]
        explained = H @ change
        share = float(np.sum(explained ** 2) / max(np.sum(tau ** 2), 1e-300))
        rms = float(np.sqrt(np.mean(explained ** 2)))
        if rms > EXPLAINED_STD * std[j] and share >= EXPLAINED_SHARE:
            out.append(FrictionChange(name, dict(zip(CHANGE_TERMS, change.tolist())), rms,
                                      float(std[j]), float(np.mean(~free[rows][keep]))))
    return out


def friction_notes(est, result, QD) -> list:
    """Return the lines an offline estimate prints about the run's friction and the model's.

    With ``friction_tracking`` the terms it ended with against the model's; else the joints
    whose friction in the run differs from the model's (``friction_change``), and what to do.
    """
    if est.tracker is not None:
        terms = est.tracker.terms()
        return [f'friction tracked from {est.tracker.samples_used.min()} samples (the fewest of '
                'a joint): ' + '; '.join(
                    f'{name} Coulomb {terms["coulomb_pos_nm"][j]:.3g} / '
                    f'{terms["coulomb_neg_nm"][j]:.3g} Nm (model '
                    f'{est.model.friction.coulomb_pos_nm[j]:.3g} / '
                    f'{est.model.friction.coulomb_neg_nm[j]:.3g})'
                    for j, name in enumerate(est.model.joint_names))]
    changed = friction_change(est, result, QD)
    if not changed:
        return []
    return [c.line() for c in changed] + [
        "the model's friction is not this run's (a model older or colder than the data, or "
        'another load): --friction-tracking follows it, or identify again on such data']
