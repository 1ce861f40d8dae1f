# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Plausibility of a dynamic fit: what physics and the data allow, judged before a model is made.

A least-squares fit is checked for what no body and no drive has, each counted only where it
exceeds the fit's own uncertainty (the interval at ``confidence``, from the data alone, without
the prior):

- ``negative``: a rotor inertia, viscous or Coulomb friction below zero, or a link mass below
  zero in the written parameter set (no loader takes it);
- ``offset``: a torque offset larger than the largest torque the joint recorded in the fitted
  runs;
- ``unrealisable``: no physically consistent parameter set (``identify.consistency``) within the
  fit's confidence region: the nearest one raises the weighted residual by more than the
  chi-square quantile of that many base parameters, in units of the fit's noise;
- ``unsupported``: an inertial base parameter farther from the URDF's value than the typical size
  of its parameters (``typical_parameter_size``: the URDF's masses times body scales) while the
  data cannot tell it from the URDF's value (the difference lies inside its interval).

A fit with any finding falls back to the physically consistent fit, with each torque offset
bounded by the recorded torque and each unsupported base parameter held at the URDF's value;
what the fallback cannot make (the LMI unsolved) is refused with one line. A fit the options made
consistent is checked for the offsets and unsupported parameters and refitted with them bounded
and held, keeping its own pull toward the URDF (the fit the option search scored).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.stats

from robot_id_ros.identify.consistency import (NON_NEGATIVE_KINDS, URDF_PULL_WEIGHT,
                                               ConsistencyResult, physically_consistent_fit,
                                               typical_parameter_size)
from robot_id_ros.identify.dynamics import DynamicsResult
from robot_id_ros.identify.options import IdentificationError

KINDS = ('negative', 'offset', 'unrealisable', 'unsupported')
_UNITS = {'Ia': 'kg m^2', 'fv': 'Nm s/rad', 'fc': 'Nm', 'fcp': 'Nm', 'fcn': 'Nm', 'fo': 'Nm',
          'fcl': 'Nm/Nm'}
_WHAT = {'Ia': 'rotor inertia', 'fv': 'viscous friction', 'fc': 'Coulomb friction',
         'fcp': 'Coulomb friction (+)', 'fcn': 'Coulomb friction (-)',
         'fcl': 'load-dependent Coulomb friction'}
# an eigenvalue of the scaled normal matrix below this fraction of the largest carries no data
_NO_INFORMATION = 1e-12


@dataclass
class Finding:
    """One implausible value: its kind (``KINDS``), the parameter's name and a line saying why."""

    kind: str
    parameter: str
    text: str


@dataclass
class Plausibility:
    """The judgement of a dynamic fit and what was done about it.

    ``action``: 'accepted' (the fit as made), 'fallback' (the least-squares fit had findings:
    the physically consistent fit replaces it), 'adjusted' (a consistent fit refitted with its
    offsets bounded or unsupported parameters held at the URDF's values) or 'kept' (findings,
    but the fallback was turned off: the fit as made). ``findings`` are those
    of the fit as first made; ``held`` the base parameters held at the URDF's values;
    ``offset_max_nm`` the bound on each joint's offset (the largest recorded |torque|).
    """

    action: str
    findings: list = field(default_factory=list)
    held: list = field(default_factory=list)
    offset_max_nm: list = field(default_factory=list)
    realisable_chi2: float | None = None
    realisable_limit: float | None = None
    consistency: ConsistencyResult | None = None
    prior_noise_factor: float | None = None   # of the URDF prior of a refit (``judge_fit``)
    unseen: list = field(default_factory=list)  # lines: parameters moved where data are blind

    def summary_lines(self):
        """Return the lines for the identification summary and the report."""
        if self.action == 'accepted':
            what = ('the consistent fit: offsets within the recorded torque, no unsupported '
                    'departure from the URDF' if self.consistency is not None else
                    'no negative rotor inertia or friction, offsets within the recorded torque, '
                    'inertias realisable within the fit\'s uncertainty, no unsupported '
                    'departure from the URDF')
            lines = [f'plausibility: accepted ({what})']
        else:
            head = {'fallback': 'the least-squares fit is physically implausible; the '
                                'physically consistent fit with the URDF as prior replaces it',
                    'adjusted': 'the consistent fit is implausible; refitted with its offsets '
                                'bounded and unsupported parameters held at the URDF',
                    'kept': 'the fit is physically implausible; kept as made (the fallback '
                            'is off)'}[self.action]
            lines = [f'plausibility: {head}:'] + [f'  {f.text}' for f in self.findings]
            if self.held:
                lines.append('  held at the URDF\'s values: ' + ', '.join(self.held))
            c = self.consistency
            if self.action == 'kept':
                return lines
            prior = ('the consistent fit\'s own pull toward the URDF'
                     if self.prior_noise_factor is None else
                     f'the prior weighs the fit\'s noise x {self.prior_noise_factor:.3g}, the '
                     'mismatch the realisability test measured')
            lines.append(f'  cost: relative fit error {100 * c.relative_error_ls:.4g} % -> '
                         f'{100 * c.relative_error:.4g} % ({prior})')
        if self.unseen:
            lines.append('  moved by the consistency constraints where the data are blind '
                         '(more than their typical size from the URDF): ' + '; '.join(self.unseen))
        return lines

    def to_dict(self):
        """Return the judgement as plain data (the model file's ``plausibility`` entry)."""
        return {'action': self.action,
                'findings': [{'kind': f.kind, 'parameter': f.parameter, 'text': f.text}
                             for f in self.findings],
                'held_at_urdf': list(self.held),
                'offset_max_nm': [float(x) for x in self.offset_max_nm],
                'realisable_chi2': self.realisable_chi2,
                'realisable_limit': self.realisable_limit,
                'prior_noise_factor': self.prior_noise_factor,
                'unseen_moves': list(self.unseen)}


@dataclass
class _DataInformation:
    """What the data alone say about the base parameters.

    ``A`` the weighted normal matrix, ``noise`` the weighted residual sum of squares per degree
    of freedom at the fit (so that (d' A d) / noise is a chi-square), ``std`` each base
    parameter's standard deviation from the data alone (inf where they carry none).
    """

    A: np.ndarray
    noise: float
    std: np.ndarray

    def chi2(self, d):
        """Return the rise of the fit's chi-square when its base values move by ``d``."""
        return float(d @ self.A @ d) / self.noise


def _information(dyn: DynamicsResult) -> _DataInformation:
    """Return the data's information on the base parameters (without the fit's prior)."""
    ls, neq = dyn.ls, dyn.neq
    A = np.einsum('j,jik->ik', ls.weights, neq.A)
    noise = max(float(ls.weights @ neq.residual_ss(ls.beta)) / ls.dof, 1e-300)
    d = np.sqrt(np.clip(np.diag(A), 0, None))
    S = np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 0.0)
    w, V = np.linalg.eigh(A * S[:, None] * S[None, :])
    seen = w > _NO_INFORMATION * max(w[-1], 1e-300)
    var = (V[:, seen] ** 2) @ (1.0 / w[seen])
    blind = (np.abs(V[:, ~seen]) > np.sqrt(_NO_INFORMATION)).any(axis=1) | (d == 0)
    std = np.where(blind, np.inf, np.sqrt(noise * var) * S)
    return _DataInformation(A, noise, std)


def _half_width(dyn: DynamicsResult, confidence):
    """Return the t quantile of the fit's intervals."""
    return float(scipy.stats.t.ppf(0.5 + confidence / 2, dyn.ls.dof))


def _joint_columns(dyn: DynamicsResult, kind):
    """Return the standard indices of the per-joint columns of ``kind`` (one per joint)."""
    reg = dyn.regressor
    if kind not in reg.joint_kinds:
        return []
    nk = len(reg.joint_kinds)
    return [reg.n_inertial + j * nk + reg.joint_kinds.index(kind) for j in range(reg.n)]


def _standard_std(dyn: DynamicsResult, info: _DataInformation):
    """Return the data's std of each standard parameter (0 where it is held at the reference)."""
    std = np.zeros(dyn.regressor.p)
    std[dyn.base.independent] = info.std
    return std


def _negatives(dyn, theta, std, tq):
    """Return the findings of non-negative parameters below zero beyond their interval."""
    reg, out = dyn.regressor, []
    for kind in NON_NEGATIVE_KINDS:
        for k in _joint_columns(dyn, kind):
            # a load coefficient below zero is refused by the friction law at any size
            if theta[k] < (0.0 if kind == 'fcl' else -tq * std[k]):
                out.append(Finding('negative', reg.names[k], (
                    f'{_WHAT[kind]} {reg.names[k]} = {theta[k]:.4g} {_UNITS[kind]} is negative '
                    f'beyond its interval (+/- {tq * std[k]:.3g}): no drive has one')))
    masses = theta[0:reg.n_inertial:10]
    for i in np.flatnonzero(masses < 0):
        out.append(Finding('negative', reg.names[10 * i], (
            f'link mass {reg.names[10 * i]} = {masses[i]:.4g} kg is negative in the '
            'parameter set written (no body has one, no loader takes it)')))
    return out


def recorded_torque_bound(trajectories, n):
    """Return the largest |torque| (Nm) each joint recorded over the fitted runs, (n,)."""
    out = np.zeros(n)
    for tr in trajectories:
        if len(tr):
            out = np.maximum(out, np.max(np.abs(tr.tau), axis=0))
    return out


def _offsets(dyn, theta, std, tq, bound):
    """Return the findings of torque offsets beyond the recorded torque and interval."""
    reg, out = dyn.regressor, []
    for j, k in enumerate(_joint_columns(dyn, 'fo')):
        if abs(theta[k]) - tq * std[k] > bound[j]:
            out.append(Finding('offset', reg.names[k], (
                f'torque offset {reg.names[k]} = {theta[k]:.4g} Nm (+/- {tq * std[k]:.3g}) is '
                f'beyond the torque joint {reg.robot.joint_names[j]} recorded (|tau| <= '
                f'{bound[j]:.4g} Nm)')))
    return out


def _unsupported(dyn, beta, info, tq):
    """Return (indices, findings) of the inertial base parameters the data do not support.

    Farther from the URDF's value than the typical size of their parameters, and inside their
    interval (from the data alone) around it.
    """
    reg, base = dyn.regressor, dyn.base
    B = base.matrix(reg.p)
    ref = B @ dyn.theta_reference
    size = np.abs(B) @ typical_parameter_size(dyn.theta_reference, reg.n, reg.p, reg.n_inertial)
    inertial = np.any(np.abs(B[:, :reg.n_inertial]) > 0, axis=1)
    d = beta - ref
    idx = np.flatnonzero(inertial & (np.abs(d) > size) & (np.abs(d) <= tq * info.std))
    exprs = base.expressions()
    names = base.names
    found = [Finding('unsupported', names[i], (
        f'{exprs[i]} = {beta[i]:.4g} is {abs(d[i]) / size[i]:.3g} x its typical size from the '
        f'URDF\'s {ref[i]:.4g}, and the data cannot tell it from that value ('
        + (f'+/- {tq * info.std[i]:.3g}' if np.isfinite(info.std[i]) else 'they do not excite it')
        + '): nothing in the data supports it')) for i in idx]
    return [int(i) for i in idx], found


def _realisability(dyn, info, consistent: ConsistencyResult, confidence):
    """Return (chi-square of the nearest consistent set, its limit, findings)."""
    b = dyn.base.n_base
    chi2 = info.chi2(consistent.beta - dyn.ls.beta)
    limit = float(scipy.stats.chi2.ppf(confidence, b))
    found = []
    if chi2 > limit:
        found.append(Finding('unrealisable', '', (
            f'no physically consistent parameter set lies within the fit\'s confidence region: '
            f'the nearest one raises its chi-square by {chi2:.4g} (the {100 * confidence:g} % '
            f'limit for {b} base parameters is {limit:.4g})')))
    return chi2, limit, found


def _unseen_moves(dyn, theta):
    """Return lines naming the standard parameters moved where the data are blind.

    The part of ``theta``'s departure from the URDF that its base values do not ask for (their
    smallest departure, in typical sizes), where it exceeds the parameter's typical size.
    """
    reg = dyn.regressor
    ref = dyn.theta_reference
    size = typical_parameter_size(ref, reg.n, reg.p, reg.n_inertial)
    B = dyn.base.matrix(reg.p)
    d = theta - ref
    BD = B * size[None, :] ** 2
    asked = BD.T @ np.linalg.lstsq(BD @ B.T, B @ d, rcond=None)[0]
    excess = (d - asked) / size
    return [f'{reg.names[k]} {theta[k]:.4g} (URDF {ref[k]:.4g})'
            for k in np.argsort(-np.abs(excess)) if abs(excess[k]) > 1.0]


def _consistent(dyn, bound, held, mu):
    """Return the physically consistent fit with bounded offsets and ``held`` base parameters."""
    try:
        return physically_consistent_fit(dyn, mu=mu, offset_max_nm=bound, fixed_base=held)
    except IdentificationError as exc:
        raise IdentificationError(
            f'the fit is physically implausible and no physically consistent fit could be made '
            f'({str(exc).split(":", 1)[-1].strip()}): record motion that excites every joint, '
            'or use the URDF\'s parameters (robot-id model)') from None


def judge_fit(dyn: DynamicsResult, trajectories, confidence,
              consistent: ConsistencyResult | None = None, fallback=True):
    """Judge the dynamic fit ``dyn``; return (standard parameters to use, ``Plausibility``).

    The fit that replaces an implausible one is the physically consistent fit with the URDF as
    its prior: a parameter's typical size away from the URDF costs one unit of chi-square, the
    fit's noise scaled by the mismatch the realisability test measured (its chi-square per base
    parameter, at least 1), so that parameters the data cannot see stay near the URDF.

    Args:
        dyn: the least-squares fit.
        trajectories: the fitted runs (their recorded torque bounds the offsets).
        confidence: level of the intervals and of the realisability test.
        consistent: the physically consistent fit the options asked for, or None.
        fallback: False: a fit with findings is kept as made (action 'kept'), the findings
            only reported.

    Returns:
        (theta, plausibility). ``plausibility.consistency`` is the consistent fit the theta
        comes from, or None when the least-squares fit stands. Raises ``IdentificationError``
        when the fit is implausible and no consistent fit can be made.
    """
    info = _information(dyn)
    tq = _half_width(dyn, confidence)
    bound = recorded_torque_bound(trajectories, dyn.regressor.n)
    std = _standard_std(dyn, info)
    held, unsupported = _unsupported(dyn, dyn.ls.beta, info, tq)
    nearest = consistent
    if nearest is None:
        nearest = _consistent(dyn, None, [], URDF_PULL_WEIGHT)
    chi2, limit, unrealisable = _realisability(dyn, info, nearest, confidence)
    factor = max(1.0, chi2 / dyn.base.n_base)
    names = [dyn.base.names[i] for i in held]
    if consistent is not None:
        findings = _offsets(dyn, consistent.theta, std, tq, bound) + unsupported
        if not findings:
            return consistent.theta, Plausibility(
                'accepted', offset_max_nm=bound.tolist(), realisable_chi2=chi2,
                realisable_limit=limit, consistency=consistent,
                unseen=_unseen_moves(dyn, consistent.theta))
        action = 'adjusted'
    else:
        findings = (_negatives(dyn, dyn.theta, std, tq)
                    + _offsets(dyn, dyn.theta, std, tq, bound) + unrealisable + unsupported)
        if not findings:
            return dyn.theta, Plausibility('accepted', offset_max_nm=bound.tolist(),
                                           realisable_chi2=chi2, realisable_limit=limit)
        action = 'fallback'
    if not fallback:
        made = consistent.theta if consistent is not None else dyn.theta
        return made, Plausibility('kept', findings, [], bound.tolist(), chi2, limit, consistent)
    if action == 'adjusted':
        # the consistent fit the options asked for (and the option search scored), with only
        # its offsets bounded and its unsupported parameters held: a stronger pull toward the
        # URDF would make a fit that no candidate was scored as
        mu, factor = URDF_PULL_WEIGHT, None
    else:
        mu = info.noise * factor
    pc = _consistent(dyn, bound, held, mu)
    return pc.theta, Plausibility(action, findings, names, bound.tolist(), chi2, limit, pc,
                                  factor, _unseen_moves(dyn, pc.theta))
