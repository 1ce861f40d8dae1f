# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Parts of ``WrenchEstimator.update`` (one sample) that are cheaper in plain float arithmetic.

Numpy costs about a microsecond per call whatever the size, far more than the sums on the few
values of one sample; ``process`` keeps the vectorised forms (the same numbers, to rounding:
test/estimate/test_float_twins.py checks each float form against its vectorised one).
"""
from __future__ import annotations

import math


def joint_scale_one(res_var, band):
    """``WrenchEstimator._joint_scale`` of one sample.

    Args:
        res_var: n floats, Nm^2, the residual variance of each joint.
        band: n floats, Nm, the stiction band.

    Returns:
        list of n floats: sqrt(w / max(w)), w = 1 / (res_var + band^2 / 3).
    """
    w = [1.0 / (v + b * b / 3.0) for v, b in zip(res_var, band)]
    w_max = max(w)
    return [math.sqrt(x / w_max) for x in w]


def deadzone_one(tau, band):
    """``stiction.deadzone`` of one sample.

    Args:
        tau: n floats, Nm.
        band: n floats, Nm.

    Returns:
        list of n floats, Nm: the part of each tau outside [-band, band].
    """
    out = []
    for t, b in zip(tau, band):
        x = abs(t) - b
        out.append(math.copysign(x, t) if x > 0.0 else 0.0 * t)
    return out


def stiction_hold_one(tau, band, held):
    """``stiction.stiction_hold`` of one sample: ``held`` moved into [tau - band, tau + band].

    Args:
        tau: n floats, Nm.
        band: n floats, Nm.
        held: n floats, Nm.

    Returns:
        list of n floats, Nm.
    """
    out = []
    for t, b, h in zip(tau, band, held):
        lo, hi = t - b, t + b
        out.append(lo if h < lo else (hi if h > hi else h))
    return out


def stiction_one(mode, tau, band, free, held):
    """Return the torque that goes into the wrench at this sample (see ``stiction_mode``).

    Args:
        mode: 'none', 'deadzone' or 'hold'.
        tau: n floats, Nm, tau_ext.
        band: n floats, Nm, the (held) stiction band.
        free: no joint in its stiction band (band all 0): deadzone and the hold give tau itself
            (their calls are skipped).
        held: the held torque at the previous sample ('hold'), None after a restart.

    Returns:
        (torque, n floats, Nm; the held torque to keep).
    """
    if mode == 'none':
        return tau, held
    if mode == 'hold':
        if not free:
            tau = (deadzone_one(tau, band) if held is None
                   else stiction_hold_one(tau, band, held))
        return tau, tau
    return (tau if free else deadzone_one(tau, band)), held
