# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Joint friction: the model the identification fits and the estimator subtracts.

Per joint j, in motion:

    tau_f = fc+ * pos(s) + fc- * neg(s) + fv * qd + fo + fs * exp(-(qd / vs)^2) * s

with ``s = tanh(qd / sign_velocity_rad_s)`` a smooth sign, ``pos(s) = max(s, 0)`` and
``neg(s) = min(s, 0)`` (so fc- is the positive magnitude of Coulomb friction in the negative
direction), fv viscous, fo a constant offset, and an optional Stribeck bump fs with velocity vs.
For symmetric Coulomb friction fc+ = fc- = fc.

Presliding (optional, per joint, ``presliding_rad`` q0 > 0): the Coulomb term's sign s is
replaced by the Dahl state z in [-1, 1], which builds up with the distance travelled since a
reversal instead of with the speed (dz/dq = (1 - z sign(dq)) / q0; exact over a monotone step:
z' = sign(dq) - (sign(dq) - z) exp(-|dq| / q0)). A joint in sustained motion has z = sign(qd),
today's law; across a reversal the friction turns over within a few q0 of travel, as in a
harmonic drive. The law has a state: ``presliding_state`` runs it along positions; without a
state (one sample, static poses) the smooth sign stands in for z.

Load-dependent Coulomb friction (optional, per joint, ``load_coulomb_per_nm`` mu >= 0): the
Coulomb term grows by mu |tau_load| s, with tau_load the torque the gear passes to the link (a
gear's tooth forces grow with the torque it transmits, an external one included): the rigid-body
torque in identification, the measured torque less the whole friction in the estimator
(``gear_load_nm``). Drift
(``coulomb_drift_nm``, ``viscous_drift_nm_s_rad``): how much higher the Coulomb and viscous
friction were at the start of the identification run than at its end (a warm-up); the law's
own terms are the run's mean, and the drift is not part of the law (it describes the run the
model was identified on).

At rest (|qd| below the stiction band) the friction torque is unknown within offset +-
breakaway; the estimator carries that band (``estimate/stiction.py``).

``FrictionModel.torque`` and ``sliding_torque`` work on arrays; the wrench estimator's one-sample
step runs the same law compiled (``estimate/sample_step.py``, checked against the arrays' numbers
in test/estimate/test_update_equals_process.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SIGN_VELOCITY_RAD_S_DEFAULT = 0.01
# the per-joint terms a model file holds only when identified (absent: 0)
_OPTIONAL_TERMS = ('load_coulomb_per_nm', 'coulomb_drift_nm', 'viscous_drift_nm_s_rad')


def smooth_sign(qd, sign_velocity_rad_s=SIGN_VELOCITY_RAD_S_DEFAULT):
    """tanh(qd / v): a sign function that is smooth through zero velocity."""
    return np.tanh(np.asarray(qd, dtype=float) / sign_velocity_rad_s)


def stribeck_shape(qd, stribeck_velocity_rad_s):
    """exp(-(qd / vs)^2): the Stribeck bump's shape, 1 at rest, falling with the speed."""
    return np.exp(-(np.asarray(qd, dtype=float) / stribeck_velocity_rad_s) ** 2)


def gear_load_nm(measured_nm, friction_nm, load_coulomb_per_nm, coulomb_sign):
    """Return the torque the gears pass to their links from the measured joint torque, Nm.

    The measured (motor) torque less the whole friction, which acts before the gear: the load
    of the load-dependent Coulomb term, a contact's included (the rotor's inertia, also before
    the gear, is left in: a sample has no acceleration). ``friction_nm`` is the friction
    without that term; with it the load L solves L + mu |L| s = measured - friction, s the
    Coulomb term's sign: L = r / (1 + mu s sign(r)), r = measured - friction.
    """
    r = np.asarray(measured_nm, dtype=float) - np.asarray(friction_nm, dtype=float)
    return r / (1.0 + np.asarray(load_coulomb_per_nm, dtype=float) * coulomb_sign * np.sign(r))


@dataclass
class FrictionModel:
    """Friction parameters of n joints (arrays of length n, Nm and Nm s/rad)."""

    coulomb_pos_nm: np.ndarray
    coulomb_neg_nm: np.ndarray
    viscous_nm_s_rad: np.ndarray
    offset_nm: np.ndarray
    stribeck_nm: np.ndarray = None
    stribeck_velocity_rad_s: np.ndarray = None
    breakaway_nm: np.ndarray = None  # stiction: |friction| at rest can reach this
    sign_velocity_rad_s: float = SIGN_VELOCITY_RAD_S_DEFAULT
    extra: dict = field(default_factory=dict)
    presliding_rad: np.ndarray = None  # Dahl q0 per joint, rad; 0: the velocity law
    load_coulomb_per_nm: np.ndarray = None  # Coulomb friction per Nm of the gear's load
    coulomb_drift_nm: np.ndarray = None     # Coulomb at the run's start minus at its end, Nm
    viscous_drift_nm_s_rad: np.ndarray = None  # the same of the viscous term, Nm s/rad

    def __post_init__(self):
        n = len(np.atleast_1d(self.coulomb_pos_nm))
        for name in ('coulomb_pos_nm', 'coulomb_neg_nm', 'viscous_nm_s_rad', 'offset_nm'):
            setattr(self, name, _vec(getattr(self, name), n, name))
        self.stribeck_nm = _vec(self.stribeck_nm, n, 'stribeck_nm', 0.0)
        self.stribeck_velocity_rad_s = _vec(self.stribeck_velocity_rad_s, n,
                                            'stribeck_velocity_rad_s', 0.1)
        if self.breakaway_nm is None:
            self.breakaway_nm = np.maximum(self.coulomb_pos_nm,
                                           self.coulomb_neg_nm) + self.stribeck_nm
        self.breakaway_nm = _vec(self.breakaway_nm, n, 'breakaway_nm')
        self.presliding_rad = _vec(self.presliding_rad, n, 'presliding_rad', 0.0)
        for name in _OPTIONAL_TERMS:
            setattr(self, name, _vec(getattr(self, name), n, name, 0.0))
        if np.any(self.load_coulomb_per_nm < 0) or not np.all(np.isfinite(
                self.load_coulomb_per_nm)):
            raise ValueError(f'load_coulomb_per_nm must be finite and >= 0, got '
                             f'{self.load_coulomb_per_nm}')
        if np.any(self.presliding_rad < 0) or not np.all(np.isfinite(self.presliding_rad)):
            raise ValueError(f'presliding_rad must be finite and >= 0 (0: no presliding), got '
                             f'{self.presliding_rad}')
        if not self.sign_velocity_rad_s > 0:
            raise ValueError('sign_velocity_rad_s must be > 0')

    @property
    def n(self):
        return len(self.coulomb_pos_nm)

    @classmethod
    def zeros(cls, n):
        return cls(np.zeros(n), np.zeros(n), np.zeros(n),
                   np.zeros(n))  # separate arrays: no aliasing

    @property
    def has_presliding(self) -> bool:
        """Whether any joint's Coulomb term follows the presliding (Dahl) law."""
        return bool(np.any(self.presliding_rad > 0))

    @property
    def has_load_coulomb(self) -> bool:
        """Whether any joint's Coulomb friction grows with its load torque."""
        return bool(np.any(self.load_coulomb_per_nm > 0))

    @property
    def has_drift(self) -> bool:
        """Whether the identification run's friction drifted (a warm-up)."""
        return bool(np.any(self.coulomb_drift_nm) or np.any(self.viscous_drift_nm_s_rad))

    def presliding_state(self, Q, z0=None):
        """Return the Dahl state z (N, n) along positions ``Q`` (N, n) rad, time-ordered.

        ``z0`` (n,) the state before ``Q[0]`` (default 0: no history). Joints without
        presliding get 0.
        """
        return presliding_state(Q, self.presliding_rad, z0)

    def torque(self, qd, presliding_state=None, load_nm=None, measured_nm=None):
        """Return the friction torque, Nm, at joint velocities ``qd``, (n,) or (N, n).

        With the smooth sign (the identification's regressor); where a joint has presliding
        and ``presliding_state`` (z, the shape of ``qd``) is given, its Coulomb term takes z.
        The load-dependent Coulomb term takes the gear's load: ``load_nm`` (the shape of ``qd``,
        Nm: the torque each gear passes to its link, e.g. the rigid-body torque), or the
        ``measured_nm`` joint torque less this friction (``gear_load_nm``); neither: that term
        is left out.
        """
        qd = np.asarray(qd, dtype=float)
        s = smooth_sign(qd, self.sign_velocity_rad_s)
        return self._torque(qd, s, self._coulomb_sign(s, presliding_state), load_nm,
                            measured_nm)

    def torque_along(self, Q, QD, load_nm=None):
        """Return the friction torque (N, n), Nm, of a time-ordered run.

        The Dahl state is run along ``Q`` from no history where a joint has presliding;
        ``load_nm`` as ``torque`` takes it.
        """
        return self.torque(QD, self.presliding_state(Q) if self.has_presliding else None,
                           load_nm)

    def drift_torque(self, QD, t_s):
        """Return the drift's friction torque (N, n), Nm, along the identification run at ``t_s``.

        What the run's friction had above the law's (the run's mean): the drift terms times the
        run's drift coordinate (``drift_coordinate``), with the smooth sign.
        """
        QD = np.asarray(QD, dtype=float)
        g = drift_coordinate(t_s)[:, None]
        return g * (self.coulomb_drift_nm * smooth_sign(QD, self.sign_velocity_rad_s)
                    + self.viscous_drift_nm_s_rad * QD)

    def _coulomb_sign(self, s, z):
        if z is None or not self.has_presliding:
            return s
        return np.where(self.presliding_rad > 0, np.asarray(z, dtype=float), s)

    def sliding_torque(self, qd, load_nm=None, measured_nm=None):
        """Return the friction torque, Nm, of joints known to slide in the direction of ``qd``.

        With the exact sign, so a joint creeping at a small but measured velocity gets its full
        Coulomb (+ Stribeck) friction, as the physical law has it; zero velocity gives the offset.
        (n,) or (N, n); ``load_nm`` and ``measured_nm`` as ``torque`` takes them.
        """
        qd = np.asarray(qd, dtype=float)
        return self._torque(qd, np.sign(qd), None, load_nm, measured_nm)

    def _torque(self, qd, s, sc=None, load_nm=None, measured_nm=None):
        """Friction with ``s`` the sign of the Stribeck term, ``sc`` the Coulomb term's (s)."""
        sc = s if sc is None else sc
        tau = (self.coulomb_pos_nm * np.maximum(sc, 0.0)
               + self.coulomb_neg_nm * np.minimum(sc, 0.0)
               + self.viscous_nm_s_rad * qd + self.offset_nm)
        if np.any(self.stribeck_nm):
            tau = tau + self.stribeck_nm * stribeck_shape(qd, self.stribeck_velocity_rad_s) * s
        if not self.has_load_coulomb:
            return tau
        if load_nm is None and measured_nm is not None:
            load_nm = gear_load_nm(measured_nm, tau, self.load_coulomb_per_nm, sc)
        if load_nm is not None:
            tau = tau + self.load_coulomb_nm(load_nm) * sc
        return tau

    def load_coulomb_nm(self, load_nm):
        """Return the Coulomb friction the gears' load ``load_nm`` (Nm) adds, mu |L|, Nm."""
        return self.load_coulomb_per_nm * np.abs(np.asarray(load_nm, dtype=float))

    def to_dict(self, joint_names):
        out = {}
        for j, name in enumerate(joint_names):
            out[name] = {
                'coulomb_pos_nm': float(self.coulomb_pos_nm[j]),
                'coulomb_neg_nm': float(self.coulomb_neg_nm[j]),
                'viscous_nm_s_rad': float(self.viscous_nm_s_rad[j]),
                'offset_nm': float(self.offset_nm[j]),
                'stribeck_nm': float(self.stribeck_nm[j]),
                'stribeck_velocity_rad_s': float(self.stribeck_velocity_rad_s[j]),
                'breakaway_nm': float(self.breakaway_nm[j]),
                'presliding_rad': float(self.presliding_rad[j]),
            }
            # written only where a model has them: files without them stay as they were
            for term in _OPTIONAL_TERMS:
                if np.any(getattr(self, term)):
                    out[name][term] = float(getattr(self, term)[j])
        return {'sign_velocity_rad_s': float(self.sign_velocity_rad_s), 'joints': out}

    @classmethod
    def from_dict(cls, d, joint_names):
        joints = d['joints']
        missing = [n for n in joint_names if n not in joints]
        if missing:
            raise ValueError(f'friction section has no entry for joint(s) {", ".join(missing)}')
        cols = {k: np.array([float(joints[n][k]) for n in joint_names])
                for k in ('coulomb_pos_nm', 'coulomb_neg_nm', 'viscous_nm_s_rad', 'offset_nm',
                          'stribeck_nm', 'stribeck_velocity_rad_s', 'breakaway_nm')}
        # files before presliding have no key: the velocity law
        for name in ('presliding_rad',) + _OPTIONAL_TERMS:
            cols[name] = np.array([float(joints[n].get(name, 0.0)) for n in joint_names])
        return cls(
            sign_velocity_rad_s=float(d.get('sign_velocity_rad_s', SIGN_VELOCITY_RAD_S_DEFAULT)),
            **cols)


def drift_coordinate(t_s):
    """Return the run's drift coordinate (N,): +1/2 at its first sample, falling linearly to -1/2.

    1/2 - (t - t_0) / (t_end - t_0) of the times ``t_s`` (N,) s; zeros for a run without
    duration. The drift columns (``model.regressor``) are the friction terms times it, so their
    coefficients are the start's friction minus the end's, and the law's own terms the run's
    mean: the best constant for another run of the same kind, which warms up again from its
    own start.
    """
    t = np.asarray(t_s, dtype=float)
    span = float(t[-1] - t[0]) if len(t) else 0.0
    if not span > 0:
        return np.zeros(len(t))
    return 0.5 - (t - t[0]) / span


def presliding_state(Q, presliding_rad, z0=None):
    """Return the Dahl state z (N, n) along positions ``Q`` (N, n) rad (see the module doc).

    Args:
        Q: (N, n) rad, time-ordered.
        presliding_rad: (n,) q0 per joint, rad; joints with 0 get z = 0.
        z0: (n,) the state before Q[0]; default 0 (no history).
    """
    Q = np.atleast_2d(np.asarray(Q, dtype=float))
    q0 = np.asarray(presliding_rad, dtype=float)
    on = q0 > 0
    z = np.zeros_like(Q)
    zk = np.zeros(Q.shape[1]) if z0 is None else np.array(z0, dtype=float)
    if not on.any() or len(Q) == 0:
        return z
    z[0] = zk
    dQ = np.diff(Q, axis=0)
    decay = np.exp(-np.abs(dQ) / np.where(on, q0, np.inf))
    S = np.sign(dQ)
    for k in range(len(dQ)):
        s = S[k]
        zk = np.where(s != 0.0, s - (s - zk) * decay[k], zk)
        z[k + 1] = zk
    z[:, ~on] = 0.0
    return z


def _vec(v, n, name, default=None):
    if v is None:
        if default is None:
            raise ValueError(f'{name} is required')
        v = default
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        a = np.full(n, float(a))
    if a.shape != (n,):
        raise ValueError(f'{name} must have {n} entries, got {a.shape}')
    return a
