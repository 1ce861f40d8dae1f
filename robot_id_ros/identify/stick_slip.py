# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The speed below which the joints stick and slip, read from the training runs (ROS-free).

A slow joint sticks and slips: its torque is anywhere inside the stiction band, and no friction
model predicts it. This shows in the runs themselves: fitted on every row with the richest
friction law of the search (asymmetric Coulomb, viscous, Stribeck column), the model's residual
in a band of slow speeds is far above its residual on the same joint's fast rows. The stick-slip
speed is the lowest band edge from which on no band of any joint has a residual RMS above
``STICK_SLIP_RATIO`` times that joint's fast-row residual RMS (fast: at least its median speed).
0 when even the slowest band passes (no stick-slip seen).

The option search (identify/selection.py) scores every candidate on the rows of joints at least
that fast (the rows a friction model can predict, the same for every candidate) and offers it as
a candidate speed below which rows are left out of the fit.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from robot_id_ros.identify.least_squares import NormalEquations, solve_least_squares
from robot_id_ros.model.regressor import Regressor

# edges of the speed bands examined (rad/s or m/s): from 12.5 mrad/s up in steps of sqrt(2)
BAND_EDGES_RAD_S = (0.0,) + tuple(0.0125 * 2 ** (k / 2) for k in range(11))
# a band whose residual RMS is above this multiple of the joint's fast rows' is stick-slip
STICK_SLIP_RATIO = 2.0
# bands with fewer rows of a joint than this are not judged
MIN_BAND_ROWS = 20


def band_ratios(qd, residual):
    """Return each band's residual RMS over the fast rows' residual RMS, per joint.

    Args:
        qd: (N, n) joint velocities (rad/s).
        residual: (N, n) measured minus fitted torque (Nm).

    Returns:
        (n, len(BAND_EDGES_RAD_S)) ratios; NaN for bands with fewer than ``MIN_BAND_ROWS``
        rows (the last band is open above).
    """
    speed = np.abs(np.asarray(qd, float))
    r = np.asarray(residual, float)
    edges = list(BAND_EDGES_RAD_S) + [np.inf]
    out = np.full((speed.shape[1], len(BAND_EDGES_RAD_S)), np.nan)
    for j in range(speed.shape[1]):
        fast = speed[:, j] >= np.median(speed[:, j])
        ref = np.sqrt(np.mean(r[fast, j] ** 2)) if fast.any() else 0.0
        for k, (lo, hi) in enumerate(zip(edges[:-1], edges[1:])):
            m = (speed[:, j] >= lo) & (speed[:, j] < hi)
            if m.sum() >= MIN_BAND_ROWS and ref > 0:
                out[j, k] = np.sqrt(np.mean(r[m, j] ** 2)) / ref
    return out


def speed_from_ratios(ratios) -> float:
    """Return the lowest band edge (rad/s) from which on every judged band is below the ratio.

    Args:
        ratios: (n, bands) from ``band_ratios``.
    """
    bad = np.nan_to_num(ratios, nan=0.0) > STICK_SLIP_RATIO
    bands = np.flatnonzero(bad.any(axis=0))
    if not len(bands):
        return 0.0
    k = int(bands.max()) + 1
    return float(BAND_EDGES_RAD_S[min(k, len(BAND_EDGES_RAD_S) - 1)])


def stick_slip_velocity(reg, base, trajectories, known=None):
    """Return (stick-slip speed in rad/s, band ratios) of the training runs.

    The model with ``reg``'s structure is fitted (ordinary least squares) on every row of every
    run, and its residual judged band by band (``band_ratios``).

    Args:
        reg: the regressor (``model.regressor.Regressor``).
        base: its base parameters (``least_squares.structural_base``).
        trajectories: the prepared runs (``Trajectory``: q, qd, qdd, tau).
        known: per run, the (N, n) torque of known parameters to subtract (Nm), or None.

    Returns:
        (speed_rad_s, ratios (n, bands) of all runs' rows together).
    """
    ne = NormalEquations.zeros(reg.n, base.n_base)
    stacks = []
    for i, tr in enumerate(trajectories):
        Wb = reg.stack_along(tr.q, tr.qd, tr.qdd, tr.t_s)[:, base.independent]
        y = tr.tau - (known[i] if known is not None else 0.0)
        ne.add(Wb, y)
        stacks.append((Wb, y, tr.qd))
    beta = solve_least_squares(ne, 'ols', True, None, 0.0, 0.95, names=list(base.names)).beta
    qd = np.concatenate([s[2] for s in stacks])
    res = np.concatenate([y - (Wb @ beta).reshape(y.shape) for Wb, y, _ in stacks])
    ratios = band_ratios(qd, res)
    return speed_from_ratios(ratios), ratios


def prepared_stick_slip(search, options):
    """Return ``stick_slip_velocity`` of an option search's runs prepared with ``options``.

    Args:
        search: the option search (``held_out.CandidateScorer``: robot, prepared signals, bases).
        options: the options (structure, derivatives, known parameters).

    Returns:
        (speed_rad_s, ratios) as ``stick_slip_velocity``.
    """
    sig = search.signals(options)
    if options.friction:
        # the richest friction the search offers, so that a misfit of a simpler law is not taken
        # for stick-slip (a missing Stribeck term shows in the slow bands too)
        options = dataclasses.replace(options, stribeck_column=True, rotor_inertia=True,
                                      coulomb_asymmetric=True, offset=False)
    reg = Regressor(search.robot, options.regressor_options())
    if reg.options.stribeck:
        vs = search.stribeck_velocity(options, reg, search.base(reg, options)[0], sig)
        reg = Regressor(search.robot, dataclasses.replace(reg.options,
                                                          stribeck_velocity_rad_s=vs))
    base, known_idx = search.base(reg, options)
    known = None
    if len(known_idx):
        theta = reg.reference_parameters()
        for k, v in options.known_parameters.items():
            theta[reg.names.index(k)] = v
        known = [(reg.stack_along(tr.q, tr.qd, tr.qdd, tr.t_s)[:, known_idx]
                  @ theta[known_idx]).reshape(tr.tau.shape) for tr in sig.trajectories]
    return stick_slip_velocity(reg, base, sig.trajectories, known)
