# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The compiled step's names: its stages, its stiction modes, its parameters and state by field.

``sample_step`` runs one sample on two numpy records (structured arrays of one): the fixed
parameters (``step_parameters``, fields ``parameter_fields``) and the state (``new_state``, fields
``state_fields``). numba reads and writes their fields by name (``st.band``, ``pr.observer_k``);
Python reads and writes the state through ``field_views``.
"""
from __future__ import annotations

from enum import IntEnum
import functools
import math
from types import SimpleNamespace

import numpy as np

# each field of the records sits on its natural boundary (align=True in _record_dtype); numba
# dispatches a plain ndarray fastest, plain Python reads fields by attribute (np.recarray)
try:
    import numba  # noqa: F401
    _RECORDS = np.ndarray
except ImportError:
    _RECORDS = np.recarray


class StictionMode(IntEnum):
    """What a joint in its stiction band gives the wrench (``EstimatorConfig.stiction_mode``)."""

    NONE = 0         # tau_ext itself
    DEADZONE = 1     # the part of tau_ext outside the band (stiction.deadzone)
    HOLD = 2         # the held torque moved just into the band (stiction.stiction_hold_batch)


class Stage(IntEnum):
    """The stages of one sample, in order; ``run_sample`` returns the next one to run."""

    FRICTION_AND_RESIDUAL = 0
    MAP_AND_CONTACT = 1      # after the residual (Python: the direct residual)
    UNCERTAINTY = 2          # after the map (Python: a damped map, a recomputed covariance)
    DONE = 3
    NONFINITE = 4            # the state became non-finite


def parameter_fields(n):
    """Return the fields of the fixed parameters of an n-joint arm (``step_parameters``)."""
    joint = ('coulomb_pos_nm', 'coulomb_neg_nm', 'viscous_nm_s_rad', 'offset_nm', 'stribeck_nm',
             'stribeck_velocity_rad_s', 'stiction_velocity_rad_s', 'breakaway_nm',
             'residual_var_nm2', 'contact_nm', 'collision_nm',
             'scale_free', 'presliding_rad', 'model_relative_error', 'speed_error_nm_s_rad',
             'load_coulomb_per_nm', 'tracking_var_nm2')
    return ([(name, np.float64, (n,)) for name in joint] + [
        ('sign_velocity_rad_s', np.float64),   # 0: the exact sign of the velocity
        ('banded', np.bool_),                  # some joint has a stiction band
        ('band_rate', np.float64),             # 1/s, the band's release rate
        ('observer_k', np.float64),            # 1/s, the momentum observer's gain
        ('momentum', np.bool_),                # the momentum observer (else the direct residual)
        ('weighted', np.bool_),                # band weighting of the joints
        ('stiction_mode', np.int64),           # a StictionMode
        ('combined', np.bool_),                # the 'combined' contact test (else 'joint')
        ('model_error', np.bool_),             # the contact test widens with model torque, speed
                                               # and the tracked friction's variance
        ('contact_k2', np.float64), ('collision_k2', np.float64),   # the thresholds' k^2
        ('release_ratio', np.float64),
        ('lag_k', np.float64),                 # 1/s, LagVariance.K
        ('lam_min', np.float64),               # the smallest undamped Gram eigenvalue
        ('block0', np.int64),                  # the first of 3 consecutive mapped rows, or -1
        ('full_rows', np.bool_),               # all six wrench rows are mapped
        ('envelope_period_s', np.float64),
        ('tare_window_s', np.float64)])


def state_fields(n):
    """Return the fields of the state of an n-joint arm (``new_state``)."""
    joint = ('residual', 'residual_prev', 'qd_prev', 'u_prev', 'band', 'held', 'tare_avg',
             'tare_bias', 'tau_ext', 'tau_map', 'joint_scale', 'u', 'dahl_z', 'q_prev',
             'measured_nm', 'velocity_rad_s')
    flags = ('have_residual', 'have_residual_prev', 'have_band', 'band_any', 'have_held',
             'have_avg', 'mapped', 'damped', 'cov_finite', 'have_bias', 'have_dahl')
    return ([(name, np.float64, (n,)) for name in joint]
            + [(name, np.bool_) for name in flags]
            + [('contact_level', np.int64), ('sigma_min', np.float64),
               ('score_contact', np.float64), ('score_collision', np.float64),
               ('lag', np.float64, (6,)), ('envelope', np.float64, (6,)),
               ('wrench', np.float64, (6,)), ('damping_bias', np.float64, (6,)),
               ('mass_prev', np.float64, (n, n)), ('cov_rows', np.float64, (6, n)),
               ('held_cov', np.float64, (6, 6))])


def step_parameters(n, friction, stiction_velocity_rad_s, law, statistics, detector,
                    config, band_rate, lag_k, lam_min, block0, scale_free, full_rows=False):
    """Return the kernel's fixed parameters: a structured array of one (``parameter_fields``).

    Args:
        n: joints.
        friction: the model's ``FrictionModel``.
        stiction_velocity_rad_s: (n,) rad/s (``StictionFriction.v_s``).
        law: 'model' or 'exact'.
        statistics: the ``ResidualStatistics``.
        detector: the ``ContactDetector``.
        config: the validated ``EstimatorConfig``.
        band_rate: 1/s, the rate at which the residual forgets (its bandwidth, rad/s).
        lag_k: 1/s, ``LagVariance.K``.
        lam_min: the mapper's smallest undamped Gram eigenvalue.
        block0: the first of three consecutive mapped rows, -1 if the rows are not such.
        scale_free: (n,) the joint weights with no joint in a band.
        full_rows: all six wrench rows are mapped (the step maps them through their Gram
            matrix when it is not near singular).
    """
    model_law = law == 'model'
    values = {
        'coulomb_pos_nm': friction.coulomb_pos_nm, 'coulomb_neg_nm': friction.coulomb_neg_nm,
        'viscous_nm_s_rad': friction.viscous_nm_s_rad, 'offset_nm': friction.offset_nm,
        'stribeck_nm': friction.stribeck_nm,
        'stribeck_velocity_rad_s': friction.stribeck_velocity_rad_s,
        'stiction_velocity_rad_s': stiction_velocity_rad_s, 'breakaway_nm': friction.breakaway_nm,
        'residual_var_nm2': statistics.std_nm ** 2,
        'model_relative_error': statistics.model_relative_error,
        'speed_error_nm_s_rad': statistics.speed_error_nm_s_rad,
        'model_error': statistics.model_error or bool(config.friction_tracking),
        'contact_nm': detector.contact_nm, 'collision_nm': detector.collision_nm,
        'scale_free': scale_free,
        'presliding_rad': friction.presliding_rad if model_law else 0.0,
        'load_coulomb_per_nm': friction.load_coulomb_per_nm,
        'tracking_var_nm2': 0.0,      # set from the friction tracker, when it tracks
        'sign_velocity_rad_s': friction.sign_velocity_rad_s if model_law else 0.0,
        'banded': bool((np.asarray(stiction_velocity_rad_s) > 0).any()),
        'band_rate': band_rate, 'observer_k': 2.0 * math.pi * config.observer_gain_hz,
        'momentum': config.method == 'momentum', 'weighted': bool(config.band_weighting),
        'stiction_mode': StictionMode[config.stiction_mode.upper()],
        'combined': bool(detector.combined),
        'contact_k2': detector.contact_sigma2, 'collision_k2': detector.collision_sigma2,
        'release_ratio': detector.release_ratio, 'lag_k': lag_k, 'lam_min': lam_min,
        'block0': block0, 'full_rows': bool(full_rows),
        'envelope_period_s': config.covariance_period_s,
        'tare_window_s': config.tare_window_s}
    params = zero_record(parameter_fields, n)
    for name, value in values.items():
        params[name] = value
    return params


@functools.lru_cache(maxsize=None)
def _record_dtype(fields, n):
    """Return the aligned record dtype of ``fields(n)``: one object per n.

    numba dispatches quickly only on a record dtype object it has seen before.
    """
    return np.dtype(fields(n), align=True)


def zero_record(fields, n):
    """Return a zero structured array of one record of ``fields(n)``."""
    return np.zeros(1, dtype=_record_dtype(fields, n)).view(_RECORDS)


def new_state(n):
    """Return a reset state: a structured array of one (``state_fields``)."""
    state = zero_record(state_fields, n)
    state['cov_finite'] = True
    return state


def field_views(record_array):
    """Return views of the fields of a structured array of one, by name (Python's reads, writes).

    An array field is its array; a scalar field a (1,) array (read and write ``[0]``).
    """
    one = np.asarray(record_array).view(np.ndarray)
    return SimpleNamespace(**{name: (one[name][0] if one.dtype[name].shape else one[name])
                              for name in one.dtype.names})
