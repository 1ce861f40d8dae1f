# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulator's TRUE parameters: the URDF's inertial set perturbed within stated bounds.

Deterministic per seed.  For every link (uniform draws, bounds from ``SimConfig``):
- mass scaled by U[1 - mass_rel_bound, 1 + mass_rel_bound];
- centre of mass shifted by U[-com_abs_bound_m, com_abs_bound_m] per coordinate;
- rotational inertia about the COM: its principal second moments of mass
  (sigma_i = tr(I_c)/2 - I_c,ii, all >= 0 for a physical body) scaled by
  U[1 - inertia_rel_bound, 1 + inertia_rel_bound] and its principal axes rotated by an angle
  up to inertia_rotation_bound_rad; the result is physically consistent by construction
  (positive mass, triangle inequality of the principal moments);
- rotor inertia J_m * N^2 with J_m scaled by U[1 - rotor_inertia_rel_bound, 1 + ...];
- Coulomb friction fc+ = fc (1 + a / 2), fc- = fc (1 - a / 2) with a in
  U[-coulomb_asymmetry_bound, coulomb_asymmetry_bound]; viscous as configured; stiction
  breakaway = breakaway_ratio * Coulomb per direction, reached through a Stribeck bump;
- with ``friction_drift``, the law by which that friction follows the joints' temperatures and
  loads (``friction_drift``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.friction_drift import FrictionDriftLaw


@dataclass
class TrueParameters:
    # 10 n, Pinocchio order per link (core.regressor.INERTIAL_NAMES)
    standard_parameters: np.ndarray
    nominal_parameters: np.ndarray    # the URDF's, same layout
    rotor_inertia_kg_m2: np.ndarray   # (n,) at the joint, J_m N^2
    friction: FrictionModel           # at the ambient temperature and no load
    friction_drift: FrictionDriftLaw | None = None   # how it changes (None: it does not)


def _rotation(axis_angle):
    return pin.exp3(np.asarray(axis_angle, dtype=float))


def perturb_inertia(inertia: pin.Inertia, rng, cfg: SimConfig) -> pin.Inertia:
    m = inertia.mass * rng.uniform(1 - cfg.mass_rel_bound, 1 + cfg.mass_rel_bound)
    c = np.array(inertia.lever) + rng.uniform(-cfg.com_abs_bound_m, cfg.com_abs_bound_m, 3)
    Ic = np.array(inertia.inertia)
    Ic = 0.5 * (Ic + Ic.T)
    w, R = np.linalg.eigh(Ic)
    sigma = np.maximum(0.5 * w.sum() - w, 0.0)          # principal second moments of mass
    sigma = sigma * rng.uniform(1 - cfg.inertia_rel_bound, 1 + cfg.inertia_rel_bound, 3)
    # keep the same mass-specific spread: the second moments scale with the mass as well
    sigma = sigma * (m / inertia.mass)
    w_new = sigma.sum() - sigma
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    Rp = _rotation(axis * rng.uniform(0, cfg.inertia_rotation_bound_rad)) @ R
    Ic_new = Rp @ np.diag(w_new) @ Rp.T
    return pin.Inertia(m, c, 0.5 * (Ic_new + Ic_new.T))


def make_true_parameters(nominal: RobotModel, cfg: SimConfig) -> TrueParameters:
    """Draw the true parameters of ``nominal`` (a RobotModel of the URDF) for ``cfg.seed``."""
    rng = np.random.default_rng([cfg.seed, 0x5eed])
    n = nominal.n
    theta0 = nominal.standard_parameters()
    theta = []
    for i in range(1, n + 1):
        theta.append(perturb_inertia(nominal.model.inertias[i], rng, cfg).toDynamicParameters())
    theta = np.concatenate(theta)
    N = np.asarray(cfg.gear_ratios)
    jm = cfg.rotor_inertia_motor_kg_m2 * rng.uniform(1 - cfg.rotor_inertia_rel_bound,
                                                     1 + cfg.rotor_inertia_rel_bound, n)
    rotor = jm * N ** 2
    fc = np.asarray(cfg.coulomb_nm)
    a = rng.uniform(-cfg.coulomb_asymmetry_bound, cfg.coulomb_asymmetry_bound, n)
    fcp = fc * (1 + a / 2)
    fcn = fc * (1 - a / 2)
    fric = FrictionModel(
        coulomb_pos_nm=fcp, coulomb_neg_nm=fcn,
        viscous_nm_s_rad=np.asarray(cfg.viscous_nm_s_rad), offset_nm=np.zeros(n),
        stribeck_nm=(cfg.breakaway_ratio - 1.0) * fc,
        stribeck_velocity_rad_s=np.full(n, cfg.stribeck_velocity_rad_s),
        breakaway_nm=cfg.breakaway_ratio * np.maximum(fcp, fcn),
    )
    return TrueParameters(theta, theta0, rotor, fric, FrictionDriftLaw.from_config(cfg))
