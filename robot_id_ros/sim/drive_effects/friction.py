# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Joint friction beyond a ``FrictionModel`` law: position, cogging, load and drift.

Per joint, with f(qd) the law's friction, fo its constant offset and s(qd) its sign (the law's
own: exact or smooth), at motor-side position q, load torque tau_l and time t since the run's
start:

    tau_f = fo + d(t) [(1 + a sin(2 pi q / P_a + phi_a)) (f(qd) - fo) + mu |tau_l| s(qd)]
            + c sin(2 pi q / P_c + phi_c),      d(t) = 1 - delta (1 - exp(-t / T))

- position-dependent friction: the sliding friction varies by +-a over a position period P_a
  (gear teeth, bearing preload varying around a turn);
- cogging: a torque of amplitude c and position period P_c that acts at rest too (the motor's
  magnets and slots, a gear's ripple);
- load-dependent Coulomb friction: mu Nm more per Nm the gear transmits (tooth forces grow with
  the load: a gear's efficiency below 1);
- drift: the sliding friction falls by the fraction delta with time constant T (the lubricant
  warms up as the joint works).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.model.friction import FrictionModel, smooth_sign


@dataclass
class FrictionEffects:
    """Per joint (scalars apply to every joint): the effects of the module docstring.

    All off by default (amplitudes, mu and delta 0).
    """

    ripple_fraction: object = 0.0          # a, relative (0 <= a < 1)
    ripple_period_rad: object = 1.0        # P_a, rad
    ripple_phase_rad: object = 0.0         # phi_a, rad
    cogging_nm: object = 0.0               # c, Nm
    cogging_period_rad: object = 0.05      # P_c, rad
    cogging_phase_rad: object = 0.0        # phi_c, rad
    load_coulomb_per_nm: object = 0.0      # mu, Nm of friction per Nm of load (>= 0)
    drift_fraction: object = 0.0           # delta, relative (0 <= delta < 1)
    drift_time_constant_s: float = 60.0    # T, s

    def __post_init__(self):
        for name in ('ripple_fraction', 'ripple_period_rad', 'ripple_phase_rad', 'cogging_nm',
                     'cogging_period_rad', 'cogging_phase_rad', 'load_coulomb_per_nm',
                     'drift_fraction'):
            v = np.atleast_1d(np.asarray(getattr(self, name), dtype=float))
            if v.ndim != 1 or not np.all(np.isfinite(v)):
                raise ValueError(f'{name} must be a finite number or one per joint, got {v}')
            setattr(self, name, v)
        for name in ('ripple_fraction', 'drift_fraction'):
            v = getattr(self, name)
            if np.any(v < 0) or np.any(v >= 1):
                raise ValueError(f'{name} must be in [0, 1), got {v}')
        if np.any(self.ripple_period_rad <= 0) or np.any(self.cogging_period_rad <= 0):
            raise ValueError('ripple_period_rad and cogging_period_rad must be > 0')
        if np.any(self.load_coulomb_per_nm < 0) or np.any(self.cogging_nm < 0):
            raise ValueError('load_coulomb_per_nm and cogging_nm must be >= 0')
        if not self.drift_time_constant_s > 0:
            raise ValueError('drift_time_constant_s must be > 0')

    def ripple(self, Q):
        """Return the factor 1 + a sin(2 pi q / P_a + phi_a), the shape of ``Q`` (N, n) rad."""
        return 1.0 + self.ripple_fraction * np.sin(
            2 * np.pi * np.asarray(Q, dtype=float) / self.ripple_period_rad
            + self.ripple_phase_rad)

    def cogging(self, Q):
        """Return the cogging torque c sin(2 pi q / P_c + phi_c), Nm, at ``Q`` (N, n) rad."""
        return self.cogging_nm * np.sin(2 * np.pi * np.asarray(Q, dtype=float)
                                        / self.cogging_period_rad + self.cogging_phase_rad)

    def drift(self, t_s):
        """Return the factor d(t) (N, n) at ``t_s`` (N,) s since the run's start."""
        t = np.asarray(t_s, dtype=float)[:, None]
        return 1.0 - self.drift_fraction * (1.0 - np.exp(-t / self.drift_time_constant_s))


def law_sign(law: FrictionModel, QD, exact_sign=False):
    """Return the sign s(qd) of the law's Coulomb term: exact, or its smooth sign."""
    QD = np.asarray(QD, dtype=float)
    return np.sign(QD) if exact_sign else smooth_sign(QD, law.sign_velocity_rad_s)


def joint_friction(law: FrictionModel, Q, QD, t_s, load_nm=None,
                   effects: FrictionEffects | None = None, exact_sign=False):
    """Return the friction torque (N, n), Nm, of a time-ordered run.

    Args:
        law: the friction law the effects modify.
        Q, QD: (N, n) motor-side position (rad) and velocity (rad/s), at the joint's scale.
        t_s: (N,) time, s; the drift counts from ``t_s[0]``.
        load_nm: (N, n) torque the gear transmits to the link, Nm (needed for mu > 0).
        effects: the effects; None: the law alone.
        exact_sign: the law's exact sign (``sliding_torque``) instead of its smooth one.
    """
    base = law.sliding_torque(QD) if exact_sign else law.torque_along(Q, QD)
    if effects is None:
        return base
    sliding = effects.ripple(Q) * (base - law.offset_nm)
    if np.any(effects.load_coulomb_per_nm > 0):
        if load_nm is None:
            raise ValueError('load-dependent friction needs the load torque (load_nm)')
        sliding = sliding + (effects.load_coulomb_per_nm * np.abs(load_nm)
                             * law_sign(law, QD, exact_sign))
    t = np.asarray(t_s, dtype=float)
    return law.offset_nm + effects.drift(t - t[0]) * sliding + effects.cogging(Q)
