# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Checks of a model file's numbers: each refusal is one line naming the field and the fix.

A model file decides the torques the estimator subtracts and the kinematics the force controller
moves the arm with, so nothing in it is taken on trust: the file's size and YAML structure are
bounded (``io.yaml_input``), and every number is finite and within what an arm can have.

- Gravity: three finite numbers, at most ``MAX_GRAVITY_M_S2`` (``model.robot.check_gravity``).
- Parameters, their std, friction, drive gains, payload, residual: finite and within
  ``ABSURD_MAGNITUDE`` in SI units; standard deviations not negative.
- Link masses not negative. A model identified with physical consistency (its
  ``identification.options.physical_consistency``) has every link's pseudo-inertia positive
  semi-definite (positive mass, a positive definite inertia, the triangle inequality). A plain
  least-squares fit does not: its standard parameters are one torque-equivalent set among many,
  and its inertias need not be realisable (only the masses' sign is checked there).
- The base parameters' covariance: square of the base parameter count, finite, symmetric and
  positive semi-definite (within rounding).
- Friction's velocity scales: the smooth sign's positive, Stribeck and presliding not negative.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.model.pseudo_inertia import is_physically_consistent

# A model file of a real arm, its URDF included, is a few hundred kilobytes; ten times the
# largest is still far below what takes the YAML parser long.
MAX_MODEL_FILE_BYTES = 4 * 1024 * 1024
# a parameter beyond this magnitude (SI units: kg, kg m, kg m^2, Nm, Nm s/rad, Nm/A) is no arm's
ABSURD_MAGNITUDE = 1e6
# rounding accepted in the covariance, relative to its largest entry (an inverse of an
# ill-conditioned normal matrix), and in a consistent fit's pseudo-inertias, relative to their
# largest entry (the fit keeps a margin far above it)
COVARIANCE_ROUNDING = 1e-6
PSEUDO_INERTIA_ROUNDING = 1e-9
_REFIT = 'identify again'


class ModelFileError(InputError):
    """A model file that cannot be used; the message says why and what to do."""


def check_numbers(path, names, theta, theta_std, friction, joints, base_values, gains, payload,
                  res):
    """Refuse non-finite or absurd numbers, and negative deviations, naming the first few."""
    bad = []

    def look(label, values, positive=False, deviation=False):
        labels = label if isinstance(label, list) else [
            f'{label}[{i}]' for i in range(np.size(values))]
        for name, v in zip(labels, np.ravel(np.asarray(values, dtype=float))):
            if (not np.isfinite(v) or abs(v) > ABSURD_MAGNITUDE or (positive and v <= 0)
                    or (deviation and v < 0)):
                bad.append(f'{name} = {v:g}')

    look(list(names), theta)
    if theta_std is not None:
        look([f'std of {n}' for n in names], theta_std, deviation=True)
    for attr, value in vars(friction).items():
        if isinstance(value, np.ndarray) and value.dtype.kind == 'f':
            look(f'friction {attr}', value)
    if base_values is not None:
        look('base parameter', base_values)
    if gains is not None:
        look([f'drive gain of {j}' for j in joints], gains, positive=True)
    if payload is not None:
        look('payload mass_kg', [payload.mass_kg])
        look('payload com_m', payload.com_m)
    if res is not None:
        look([f'residual std of {j}' for j in joints], res, deviation=True)
    if bad:
        more = f' and {len(bad) - 5} more' if len(bad) > 5 else ''
        raise ModelFileError(
            f'model file {path} has non-finite or absurd values: {", ".join(bad[:5])}{more} '
            f'(|value| must be finite and <= {ABSURD_MAGNITUDE:g} in SI units, a std >= 0; '
            f'{_REFIT})')


def check_velocity_scales(path, options, friction):
    """Refuse a smooth sign, Stribeck or presliding scale that makes the friction law NaN."""
    values = [('regressor.sign_velocity_rad_s', options.sign_velocity_rad_s, True),
              ('regressor.stribeck_velocity_rad_s', options.stribeck_velocity_rad_s, True),
              ('regressor.presliding_rad', options.presliding_rad, False),
              ('friction.sign_velocity_rad_s', friction.sign_velocity_rad_s, True)]
    values += [(f'friction stribeck_velocity_rad_s[{i}]', v, False)
               for i, v in enumerate(np.ravel(friction.stribeck_velocity_rad_s))]
    values += [(f'friction presliding_rad[{i}]', v, False)
               for i, v in enumerate(np.ravel(friction.presliding_rad))]
    for name, v, positive in values:
        v = float(v)
        if not np.isfinite(v) or v < 0 or (positive and v == 0) or v > ABSURD_MAGNITUDE:
            need = 'positive' if positive else 'zero or positive'
            raise ModelFileError(f'model file {path}: {name} = {v:g} must be finite and {need} '
                                 f'(a velocity or angle scale); {_REFIT}')


def check_masses_and_inertias(path, names, theta, n, identification):
    """Refuse a negative link mass; for a consistent fit, any unrealisable link inertia.

    Args:
        path: the model file (named in the message).
        names: the standard parameters' names (``Regressor.names``).
        theta: the standard parameter vector (10 per link first).
        n: number of links.
        identification: the file's ``identification`` section.
    """
    masses = np.asarray(theta[0:10 * n:10], dtype=float)
    negative = [f'{names[10 * i]} = {m:g} kg' for i, m in enumerate(masses) if m < 0]
    if negative:
        raise ModelFileError(f'model file {path}: link mass {", ".join(negative)} is negative '
                             '(no body has one): identify again, with --physical-consistency '
                             'for inertias that a body can have')
    options = identification.get('options') if isinstance(identification, dict) else None
    if not (isinstance(options, dict) and options.get('physical_consistency') is True):
        return
    scale = max(1.0, float(np.max(np.abs(theta[:10 * n]))))
    ok, mins = is_physically_consistent(theta, n, tol=PSEUDO_INERTIA_ROUNDING * scale)
    if not ok:
        i = int(np.argmin(mins))
        raise ModelFileError(
            f'model file {path}: link {i + 1} ({names[10 * i]}..{names[10 * i + 9]}) has an '
            f'inertia no body can have (pseudo-inertia eigenvalue {mins[i]:.3g}: a negative '
            'principal moment or a broken triangle inequality) although the file says it was '
            f'fitted with physical consistency: {_REFIT} with --physical-consistency')


def check_base_parameters(path, n_base, values, covariance):
    """Refuse base values that are not one per base parameter, or a covariance that is not one."""
    if values is not None and len(values) != n_base:
        raise ModelFileError(f'model file {path}: base_parameters has {len(values)} values for '
                             f'{n_base} base parameters; {_REFIT}')
    if covariance is not None:
        check_covariance(path, covariance, n_base)


def check_residual_by_speed(path, rms_nm):
    """Refuse a negative or absurd residual RMS per speed band (NaN: too few samples, allowed)."""
    rms = np.asarray(rms_nm, dtype=float)
    rms = rms[np.isfinite(rms)]
    if np.any(rms < 0) or np.any(rms > ABSURD_MAGNITUDE):
        raise ModelFileError(f'model file {path}: residual.by_speed.rms_nm must be within '
                             f'0..{ABSURD_MAGNITUDE:g} Nm; {_REFIT}')


def check_covariance(path, covariance, n_base):
    """Refuse a base covariance of the wrong shape, non-finite, asymmetric or indefinite."""
    field = 'base_parameters.covariance'
    c = np.asarray(covariance, dtype=float)
    if c.shape != (n_base, n_base):
        raise ModelFileError(f'model file {path}: {field} is {"x".join(map(str, c.shape))}, '
                             f'must be {n_base}x{n_base} (one row per base parameter); '
                             f'{_REFIT}')
    if not np.all(np.isfinite(c)):
        raise ModelFileError(f'model file {path}: {field} has non-finite entries; {_REFIT}')
    scale = float(np.max(np.abs(c))) if c.size else 0.0
    rounding = COVARIANCE_ROUNDING * scale
    if np.max(np.abs(c - c.T), initial=0.0) > rounding:
        raise ModelFileError(f'model file {path}: {field} is not symmetric (a covariance is); '
                             f'{_REFIT}')
    smallest = float(np.linalg.eigvalsh(c).min()) if c.size else 0.0
    if smallest < -rounding:
        raise ModelFileError(f'model file {path}: {field} is not positive semi-definite '
                             f'(eigenvalue {smallest:.3g}: a negative variance); {_REFIT}')
