# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The identification pipeline's option search, and the drive gains fitted again on its choice.

ROS-free glue between ``identify.selection`` (the search) and ``identify.drive_gains`` (gains
from motor currents), used by ``identify.pipeline.identify``.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from robot_id_ros.identify.drive_gains import drive_gains_step
from robot_id_ros.identify.selection import given_fields, select_options

# with drive gains identified: a gain that moves by more than this fraction when fitted again on
# the chosen model structure changes the torques the option search scored, so it searches again
GAIN_SHIFT_SEARCH_AGAIN = 0.02
# at most this many option searches, the gains fitted again after each
MAX_GAIN_SEARCHES = 2


def sweep_stribeck_velocity(res):
    """Return the sweeps' Stribeck velocity (rad/s, median over the joints that have one).

    ``res``: the ``IdentificationResult`` so far; None without sweeps or a Stribeck term.
    """
    sw = res.friction_sweeps
    if sw is None or not np.any(sw.friction.stribeck_nm > 0):
        return None
    fs = sw.friction
    return float(np.median(fs.stribeck_velocity_rad_s[fs.stribeck_nm > 0]))


def choose_options(robot, data, options, given, res):
    """Return the options with those not ``given`` chosen by cross-validation (``selection``).

    Unchanged without trajectories, with ``auto_options`` off, or when every searched option is
    given; else the candidates and the choice join ``res`` (the ``IdentificationResult``): its
    summary, selection, options and timings.
    """
    if not data or not options.auto_options:
        return options
    sel = select_options(robot, data, options, given_fields(options) if given is None else given,
                         sweep_stribeck_velocity(res))
    if sel is None:
        return options
    res.selection = sel
    res.summary_lines.extend(sel.summary_lines())
    res.timings_s['selection'] = res.timings_s.get('selection', 0.0) + sel.time_s
    res.options = sel.options
    return sel.options


def choose_with_gains(robot, data, options, given, res, gains, drive_gain_runs):
    """Return (gains, options): the options chosen, and identified gains refitted on them.

    The search scores its candidates on torques made from the gains of the core model
    structure, which absorb the friction it misses (most on a joint whose torque is mostly
    friction). The gains are fitted again on the chosen structure; where one moves by more than
    ``GAIN_SHIFT_SEARCH_AGAIN``, the search runs again on the torques those gains make (at
    most ``MAX_GAIN_SEARCHES`` searches).
    """
    chosen = choose_options(robot, data, options, given, res)
    for k in range(MAX_GAIN_SEARCHES):
        if gains is None or res.selection is None:
            break
        before = np.asarray(chosen.drive_gains_nm_per_a, float)
        gains, chosen = drive_gains_step(
            robot, data, dataclasses.replace(chosen, drive_gains_nm_per_a=None),
            drive_gain_runs, res, 'on the chosen model structure')
        shift = float(np.max(np.abs(gains.gains_nm_per_a / before - 1.0)))
        if k + 1 == MAX_GAIN_SEARCHES or shift <= GAIN_SHIFT_SEARCH_AGAIN:
            break
        res.summary_lines.append(f'  a gain moved by {100 * shift:.3g} % on the chosen model '
                                 'structure: the options are chosen again with these gains')
        chosen = choose_options(robot, data, dataclasses.replace(
            options, drive_gains_nm_per_a=chosen.drive_gains_nm_per_a), given, res)
    return gains, chosen
