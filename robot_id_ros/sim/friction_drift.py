# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction that lives: joint temperatures that follow the dissipated power, and load.

Per joint j of the simulated arm (``SimConfig.friction_drift``; off by default):

- temperature T_j, a first-order thermal body: the joint dissipates P_j (friction torque times
  velocity, plus the motor's copper losses R I^2) and exchanges heat with the ambient air,

      tau_th dT/dt = T_amb + R_th P - T,

  integrated exactly over a step with P held (so T relaxes to the ambient temperature with time
  constant tau_th when nothing is dissipated, and reaches T_amb + R_th P under a steady power);
- Coulomb and viscous friction that fall with the temperature (the lubricant thins as it warms),
  from their values at the ambient temperature (``SimConfig.coulomb_nm`` and
  ``viscous_nm_s_rad``, the cold arm):

      fc_d(T, tau_l) = fc_d,amb exp(-a_c (T - T_amb)) + mu |tau_l|
      fv(T)          = fv_amb exp(-a_v (T - T_amb))

  with tau_l the torque the gear carries, the torque it passes to the link (the motor torque less
  the friction and the rotor's inertia, which the gear does not carry): Coulomb friction grows
  by mu Nm per Nm of load, the same law as ``drive_effects.FrictionEffects``'s
  ``load_coulomb_per_nm``; the stiction breakaway stays the breakaway ratio times the Coulomb
  friction of each direction.

The state is ground truth: ``SimulatedArm.friction_drift`` (temperatures, the friction now),
``Measurement.true_joint_temperature_c`` and the true-parameters file's ``friction_drift``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from robot_id_ros.model.friction import FrictionModel


@dataclass(frozen=True)
class FrictionDriftLaw:
    """The drift's constants (per joint arrays of n, or scalars for every joint).

    Attributes:
        ambient_temperature_c: T_amb, also the temperature of the cold friction values, degC.
        thermal_time_constant_s: tau_th, s (> 0).
        thermal_resistance_k_w: R_th, steady temperature rise per watt dissipated, K/W.
        coulomb_per_k: a_c, relative fall of the Coulomb friction per kelvin, 1/K.
        viscous_per_k: a_v, relative fall of the viscous friction per kelvin, 1/K.
        load_coulomb_per_nm: mu, Coulomb friction per Nm of load torque.
        winding_resistance_ohm: R, the motor winding's resistance (copper losses), Ohm.
        drive_gains_nm_a: Kt N per joint (the current is the motor torque over it), Nm/A.
    """

    ambient_temperature_c: float
    thermal_time_constant_s: float
    thermal_resistance_k_w: float
    coulomb_per_k: float
    viscous_per_k: float
    load_coulomb_per_nm: float
    winding_resistance_ohm: float
    drive_gains_nm_a: tuple

    @classmethod
    def from_config(cls, cfg) -> FrictionDriftLaw | None:
        """Return the law a ``SimConfig`` declares, None when ``friction_drift`` is off."""
        if not cfg.friction_drift:
            return None
        return cls(cfg.ambient_temperature_c, cfg.thermal_time_constant_s,
                   cfg.thermal_resistance_k_w, cfg.coulomb_temperature_coefficient_per_k,
                   cfg.viscous_temperature_coefficient_per_k, cfg.load_coulomb_per_nm,
                   cfg.winding_resistance_ohm, tuple(float(g) for g in cfg.drive_gains_nm_a))

    @classmethod
    def from_dict(cls, d, drive_gains_nm_a) -> FrictionDriftLaw:
        """Return the law ``to_dict`` wrote (the true-parameters file) with the drives' gains."""
        return cls(float(d['ambient_temperature_c']), float(d['thermal_time_constant_s']),
                   float(d['thermal_resistance_k_w']), float(d['coulomb_per_k']),
                   float(d['viscous_per_k']), float(d['load_coulomb_per_nm']),
                   float(d['winding_resistance_ohm']), tuple(float(g) for g in drive_gains_nm_a))

    def temperature_factor(self, temperature_c, per_k):
        """Return exp(-per_k (T - T_amb)): the friction at T over the friction when cold."""
        return np.exp(-per_k * (np.asarray(temperature_c, dtype=float)
                                - self.ambient_temperature_c))

    def friction_at(self, cold: FrictionModel, temperature_c, load_nm=0.0) -> FrictionModel:
        """Return the friction law at joint temperatures ``temperature_c`` and load ``load_nm``.

        Args:
            cold: the friction at the ambient temperature and no load (the true parameters).
            temperature_c: (n,) degC.
            load_nm: (n,) or one torque the gears carry, Nm (its magnitude counts).

        Returns:
            a ``FrictionModel`` with the Coulomb, viscous, Stribeck and breakaway terms scaled
            (the breakaway and Stribeck terms in proportion to the Coulomb friction).
        """
        kc = self.temperature_factor(temperature_c, self.coulomb_per_k)
        kv = self.temperature_factor(temperature_c, self.viscous_per_k)
        extra = self.load_coulomb_per_nm * np.abs(np.asarray(load_nm, dtype=float))
        fcp = cold.coulomb_pos_nm * kc + extra
        fcn = cold.coulomb_neg_nm * kc + extra
        fc0 = np.maximum(cold.coulomb_pos_nm, cold.coulomb_neg_nm)
        with np.errstate(divide='ignore', invalid='ignore'):
            scale = np.where(fc0 > 0, np.maximum(fcp, fcn) / np.where(fc0 > 0, fc0, 1.0), kc)
        return FrictionModel(
            coulomb_pos_nm=fcp, coulomb_neg_nm=fcn, viscous_nm_s_rad=cold.viscous_nm_s_rad * kv,
            offset_nm=cold.offset_nm.copy(), stribeck_nm=cold.stribeck_nm * scale,
            stribeck_velocity_rad_s=cold.stribeck_velocity_rad_s.copy(),
            breakaway_nm=cold.breakaway_nm * scale,
            sign_velocity_rad_s=cold.sign_velocity_rad_s)

    def friction_with_load_term(self, cold: FrictionModel, temperature_c) -> FrictionModel:
        """Return the friction law at ``temperature_c`` (n,) with the load as a term of its own.

        As ``friction_at`` at no load, plus ``load_coulomb_per_nm`` (mu per joint), which the
        estimator applies to the gear's load (the measured torque less the friction): the truth
        at any load, not at one.
        """
        return replace(self.friction_at(cold, temperature_c), load_coulomb_per_nm=np.full(
            np.shape(temperature_c)[0], self.load_coulomb_per_nm))

    def to_dict(self) -> dict:
        """Return the law as plain values (the true-parameters file)."""
        return {
            'model': ('tau_th dT/dt = T_amb + R_th (friction power + R I^2) - T; '
                      'fc_d = fc_d,cold exp(-a_c (T - T_amb)) + mu |link torque|; '
                      'fv = fv_cold exp(-a_v (T - T_amb)); breakaway = ratio * fc_d'),
            'ambient_temperature_c': float(self.ambient_temperature_c),
            'thermal_time_constant_s': float(self.thermal_time_constant_s),
            'thermal_resistance_k_w': float(self.thermal_resistance_k_w),
            'coulomb_per_k': float(self.coulomb_per_k),
            'viscous_per_k': float(self.viscous_per_k),
            'load_coulomb_per_nm': float(self.load_coulomb_per_nm),
            'winding_resistance_ohm': float(self.winding_resistance_ohm),
        }


class JointThermalState:
    """The joints' temperatures and the friction they give, stepped with the arm (floats).

    Args:
        law: the ``FrictionDriftLaw``.
        coulomb_pos_nm, coulomb_neg_nm, viscous_nm_s_rad: the cold friction per joint.
        dt_s: the physics step, s.
    """

    def __init__(self, law: FrictionDriftLaw, coulomb_pos_nm, coulomb_neg_nm, viscous_nm_s_rad,
                 dt_s):
        self.law = law
        self.n = n = len(coulomb_pos_nm)
        self._fcp0 = np.asarray(coulomb_pos_nm, dtype=float).tolist()
        self._fcn0 = np.asarray(coulomb_neg_nm, dtype=float).tolist()
        self._fv0 = np.asarray(viscous_nm_s_rad, dtype=float).tolist()
        self._gains = list(law.drive_gains_nm_a)
        if len(self._gains) != n:
            raise ValueError(f'drive_gains_nm_a must have {n} values, got {self._gains}')
        self.temperature_c = [float(law.ambient_temperature_c)] * n
        self.load_nm = [0.0] * n
        self.power_w = [0.0] * n
        # the exact relaxation of one step towards the equilibrium temperature
        self._relax = -math.expm1(-dt_s / law.thermal_time_constant_s)

    def friction(self, load_nm):
        """Return (fc+, fc-, fv) lists at the present temperatures and the gears' load ``load_nm``.

        ``load_nm``: the torque each gear passes to its link, Nm (its magnitude counts).
        """
        law = self.law
        t_amb, ac, av, mu = (law.ambient_temperature_c, law.coulomb_per_k, law.viscous_per_k,
                             law.load_coulomb_per_nm)
        self.load_nm = [abs(x) for x in load_nm]
        kc = [math.exp(-ac * (t - t_amb)) for t in self.temperature_c]
        fcp = [f * k + mu * x for f, k, x in zip(self._fcp0, kc, self.load_nm)]
        fcn = [f * k + mu * x for f, k, x in zip(self._fcn0, kc, self.load_nm)]
        fv = [f * math.exp(-av * (t - t_amb)) for f, t in zip(self._fv0, self.temperature_c)]
        return fcp, fcn, fv

    def heat(self, friction_power_w, tau_motor_nm):
        """Advance the temperatures one step with the friction power and the copper losses."""
        law = self.law
        r_w, r_th, t_amb, relax = (law.winding_resistance_ohm, law.thermal_resistance_k_w,
                                   law.ambient_temperature_c, self._relax)
        power = [p + r_w * (t / g) ** 2
                 for p, t, g in zip(friction_power_w, tau_motor_nm, self._gains)]
        self.power_w = power
        self.temperature_c = [t + (t_amb + r_th * p - t) * relax
                              for t, p in zip(self.temperature_c, power)]

    def set_temperature(self, temperature_c):
        """Set the joints' temperatures, degC (one value or n)."""
        t = np.broadcast_to(np.asarray(temperature_c, dtype=float), (self.n,))
        if not np.all(np.isfinite(t)):
            raise ValueError(f'temperatures must be finite, got {t.tolist()}')
        self.temperature_c = t.tolist()

    def state_dict(self, joint_names, cold: FrictionModel) -> dict:
        """Return the present state and the friction it gives, plain values per joint."""
        now = self.law.friction_at(cold, self.temperature_c, self.load_nm)
        return {name: {
            'temperature_c': float(self.temperature_c[j]),
            'load_nm': float(self.load_nm[j]),
            'power_w': float(self.power_w[j]),
            'coulomb_pos_nm': float(now.coulomb_pos_nm[j]),
            'coulomb_neg_nm': float(now.coulomb_neg_nm[j]),
            'viscous_nm_s_rad': float(now.viscous_nm_s_rad[j]),
            'breakaway_nm': float(now.breakaway_nm[j]),
        } for j, name in enumerate(joint_names)}


__all__ = ['FrictionDriftLaw', 'JointThermalState']
