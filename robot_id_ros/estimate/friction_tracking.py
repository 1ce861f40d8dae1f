# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction that follows the arm while it works (``FrictionTracker``).

A gear's friction changes during work: it falls as the gear warms and its Coulomb part grows with
the load it carries. A model identified once then reads the change as an external torque. While
the arm moves without contact the residual is the model's friction error, so the tracker follows
each joint's friction terms from it: Coulomb in either direction and viscous, the terms of the
model's law (its offset and Stribeck term are the model's, its stiction band follows the Coulomb
terms). Above the learning speed the sign is saturated, so an offset and the two Coulomb terms
moving opposite ways give the same friction: an offset that moves shows there as the Coulomb
terms, and the offset a resting joint's band is centred on stays the identified one, not a term
of the tracker.

Per joint a Kalman filter over theta = (Coulomb +, Coulomb -, viscous) (``TERMS``):

- **change:** a random walk; a term may drift by its own size (plus the residual std) in
  ``friction_tracking_time_s``, so the filter's confidence fades at that pace when it learns
  nothing, never beyond that size;
- **measurement:** the residual is a first-order low-pass (the residual's bandwidth) of the
  model's friction minus the true one. The model's tracked terms' friction under the same filter
  minus the residual is then the true one under that filter (the offset, the model's in both,
  cancels), linear in theta with the filtered regressors (sign+, sign-, qd): that is the
  measurement, its noise the residual variance counted once per independent sample of the
  filtered residual;
- **when it learns:** only with no contact flagged, the contact statistic below the release level
  for ``friction_tracking_holdoff_s`` (a push held, or one released a moment ago, is never
  learned), after the residual has settled from a restart, and per joint only while it moves
  faster than twice its stiction and Stribeck velocities (``learning_speed_rad_s``).

The estimator writes the tracked terms into its step at each covariance recomputation; the
variance the tracked terms still carry at the current regressors widens the published sigma and
the contact test (a model off by more than its threshold is followed, not flagged for good). One
sample is one compiled call (``track_sample``).
"""
from __future__ import annotations

import math

import numpy as np

from robot_id_ros.estimate.calibration import settle_s
from robot_id_ros.estimate.compiled import compiled
from robot_id_ros.estimate.step_state import zero_record

# a sample whose innovation is beyond this many of its predicted std is not learnt from: the
# filter's own prediction and noise say it is not the friction's slow change
INNOVATION_GATE_SIGMAS = 3.0
# the residual's spread where the tracker learns is measured over this fraction of the time a
# term takes to drift by its own size: long beside the residual's filter, short beside a drift
INNOVATION_WINDOWS_PER_DRIFT = 20.0
# the tracked terms, in the order of the filter's state and of ``friction_regressors``; all
# three resist the motion (never below 0). The model's offset is not one (see the module doc).
TERMS = ('coulomb_pos_nm', 'coulomb_neg_nm', 'viscous_nm_s_rad')
N_TERMS = len(TERMS)


def learning_speed_rad_s(friction, stiction_velocity_rad_s):
    """Return (n,) the speed above which a joint's residual teaches the tracked terms, rad/s.

    Twice the stiction velocity and twice the Stribeck velocity where the law has a Stribeck
    term: below, a breakaway's friction is the bump's and the stiction band's, which the tracker
    does not estimate (the bump stays as identified, the band follows the Coulomb terms), and a
    joint starting to move would teach the Coulomb terms its breakaway.
    """
    stribeck = np.where(np.asarray(friction.stribeck_nm) > 0,
                        np.asarray(friction.stribeck_velocity_rad_s, float), 0.0)
    return 2.0 * np.maximum(np.asarray(stiction_velocity_rad_s, float), stribeck)


def friction_regressors(qd, sign_velocity_rad_s):
    """Return the regressors (..., ``N_TERMS``) of ``TERMS`` at joint velocities ``qd`` (rad/s).

    The model's law: Coulomb + times the smooth sign where it is positive, Coulomb - where it is
    negative and viscous times qd (``sign_velocity_rad_s`` 0: the exact sign).
    """
    qd = np.asarray(qd, dtype=float)
    sign = np.tanh(qd / sign_velocity_rad_s) if sign_velocity_rad_s > 0 else np.sign(qd)
    return np.stack([np.maximum(sign, 0.0), np.minimum(sign, 0.0), qd], -1)


@compiled
def track_sample(tracked, qd, tau_ext_nm, dt_s, learn):
    """Take one sample into the record ``tracked`` (``FrictionTracker.state``), in place.

    Filters the regressors and the model's tracked friction as the residual is filtered, lets
    the terms' variance grow by their random walk, and with ``learn`` updates the terms of each
    joint faster than its learning speed (``FrictionTracker`` says how).
    """
    tr = tracked[0]
    n = qd.shape[0]
    a = math.exp(-tr.bandwidth_rad_s * dt_s) if dt_s > 0.0 else 0.0
    first = not tr.have_filter or dt_s <= 0.0
    phi = np.empty(N_TERMS)
    ph = np.empty(N_TERMS)
    for j in range(n):
        v = qd[j]
        if tr.sign_velocity_rad_s > 0.0:
            sg = math.tanh(v / tr.sign_velocity_rad_s)
        else:
            sg = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)
        phi[0], phi[1], phi[2] = max(sg, 0.0), min(sg, 0.0), v  # in the order of TERMS
        model = 0.0
        for k in range(N_TERMS):
            model += phi[k] * tr.applied[j, k]
        for k in range(N_TERMS):  # the residual's own discrete filter (trapezoidal input)
            tr.phi_f[j, k] = phi[k] if first else (
                a * tr.phi_f[j, k] + (1.0 - a) * 0.5 * (phi[k] + tr.last_phi[j, k]))
            tr.last_phi[j, k] = phi[k]
        tr.model_f[j] = model if first else (
            a * tr.model_f[j] + (1.0 - a) * 0.5 * (model + tr.last_model[j]))
        tr.last_model[j] = model
        if dt_s <= 0.0:
            continue
        for k in range(N_TERMS):  # the random walk, up to the term's size squared
            room = max(tr.max_var[j, k] - tr.cov[j, k, k], 0.0)
            tr.cov[j, k, k] += min(tr.walk_var_per_s[j, k] * dt_s, room)
        if not learn or abs(v) <= tr.learn_speed_rad_s[j]:
            continue
        innovation = tr.model_f[j] - tau_ext_nm[j]
        for k in range(N_TERMS):
            innovation -= tr.phi_f[j, k] * tr.theta[j, k]
        # the residual's spread where it learns, not only at identification: what the terms
        # cannot say (friction that follows the load, a model's own error) is noise to them
        w = math.exp(-dt_s / tr.innovation_window_s)
        tr.innovation_var_nm2[j] = w * tr.innovation_var_nm2[j] + (1.0 - w) * innovation ** 2
        noise = max(tr.residual_var_nm2[j], tr.innovation_var_nm2[j])
        # a filtered residual has about bandwidth / pi independent samples a second
        s = noise * max(1.0, math.pi / (tr.bandwidth_rad_s * dt_s))
        for k in range(N_TERMS):
            ph[k] = 0.0
            for m in range(N_TERMS):
                ph[k] += tr.cov[j, k, m] * tr.phi_f[j, m]
            s += tr.phi_f[j, k] * ph[k]
        if innovation * innovation > INNOVATION_GATE_SIGMAS ** 2 * s:
            continue            # not friction: a push building below the contact threshold
        for k in range(N_TERMS):
            tr.theta[j, k] += ph[k] / s * innovation
            if tr.theta[j, k] < 0.0:  # Coulomb and viscous friction resist
                tr.theta[j, k] = 0.0
            for m in range(N_TERMS):
                tr.cov[j, k, m] -= ph[k] * ph[m] / s
        tr.used[j] += 1
    tr.have_filter = True


def tracker_fields(n):
    """Return the fields of ``FrictionTracker.state`` for n joints (the kernel reads them)."""
    k = N_TERMS
    return [('theta', np.float64, (n, k)), ('cov', np.float64, (n, k, k)),
            ('applied', np.float64, (n, k)),          # the terms the step runs with
            ('phi_f', np.float64, (n, k)), ('model_f', np.float64, (n,)),
            ('last_phi', np.float64, (n, k)), ('last_model', np.float64, (n,)),
            ('walk_var_per_s', np.float64, (n, k)), ('max_var', np.float64, (n, k)),
            ('residual_var_nm2', np.float64, (n,)), ('learn_speed_rad_s', np.float64, (n,)),
            ('innovation_var_nm2', np.float64, (n,)), ('innovation_window_s', np.float64),
            ('used', np.int64, (n,)), ('sign_velocity_rad_s', np.float64),
            ('bandwidth_rad_s', np.float64), ('have_filter', np.bool_)]


class FrictionTracker:
    """Follow each joint's friction terms (``TERMS``) from the residual while the arm moves freely.

    The model's offset and Stribeck term are not tracked: the tracked law keeps the model's.

    Args:
        friction: the model's ``FrictionModel`` (the start, and the size of each term).
        sign_velocity_rad_s: the sign of the friction law the estimator runs: tanh(qd / this),
            0 the exact sign (``friction_sign``).
        residual_std_nm: (n,) Nm, the residual std the estimator runs on.
        bandwidth_hz: the residual's bandwidth, Hz.
        learn_speed_rad_s: (n,) rad/s, a joint learns only faster than this.
        time_s: a term may drift by its own size in this time, s.
        holdoff_s: no learning for this long after the contact statistic was at its release
            level, s.
    """

    def __init__(self, friction, sign_velocity_rad_s, residual_std_nm, bandwidth_hz,
                 learn_speed_rad_s, time_s, holdoff_s):
        start = np.stack([np.asarray(getattr(friction, t), float) for t in TERMS], -1)
        self.breakaway_start_nm = np.asarray(friction.breakaway_nm, float).copy()
        self.coulomb_start_nm = np.maximum(np.asarray(friction.coulomb_pos_nm, float),
                                           np.asarray(friction.coulomb_neg_nm, float))
        self.n = n = start.shape[0]
        self.state = zero_record(tracker_fields, n)
        tr = self.state[0]
        var = np.asarray(residual_std_nm, float) ** 2
        size = np.abs(start) + np.sqrt(var)[:, None]
        tr['theta'], tr['applied'] = start, start
        tr['walk_var_per_s'], tr['max_var'] = size ** 2 / float(time_s), size ** 2
        tr['residual_var_nm2'] = var
        tr['innovation_var_nm2'] = var
        tr['innovation_window_s'] = float(time_s) / INNOVATION_WINDOWS_PER_DRIFT
        tr['learn_speed_rad_s'] = np.broadcast_to(np.asarray(learn_speed_rad_s, float), (n,))
        tr['sign_velocity_rad_s'] = float(sign_velocity_rad_s)
        tr['bandwidth_rad_s'] = 2.0 * math.pi * float(bandwidth_hz)
        self.settle_s = settle_s(bandwidth_hz)
        self.holdoff_s = float(holdoff_s)
        self.restart()

    @property
    def samples_used(self):
        """(n,) how many samples each joint has learnt from."""
        return self.state[0]['used'].copy()

    def restart(self):
        """Forget the filters' state (the residual restarted); keep what was learnt."""
        self.state[0]['have_filter'] = False
        self._quiet_s = -self.settle_s      # the residual settles after a restart

    def observe(self, dt_s, qd, tau_ext_nm, free):
        """Take one sample, which the estimator's step ran on the terms of ``take_terms``.

        Args:
            dt_s: s since the previous sample (0 after a restart).
            qd: (n,) rad/s.
            tau_ext_nm: (n,) Nm, the residual as the contact test sees it.
            free: no contact flagged and the contact statistic below its release level.
        """
        self._quiet_s = self._quiet_s + dt_s if free else -self.holdoff_s
        track_sample(self.state, np.asarray(qd, float), np.asarray(tau_ext_nm, float),
                     float(dt_s), bool(self._quiet_s >= 0.0 and dt_s > 0.0))

    def model_terms(self):
        """Return {friction term name: (n,) values} of the friction law as tracked.

        The tracked terms, and the stiction band scaled as the larger Coulomb term moved. The
        Stribeck bump stays as identified: the tracker learns nothing at the speeds it shapes,
        and a tracked Coulomb term that moved is as often the identification's split between
        Coulomb and Stribeck friction as a change of the gear; scaled with it, the bump turned
        that split into false contacts wherever the arm slowed down.
        """
        terms = self.terms()
        now = np.maximum(terms['coulomb_pos_nm'], terms['coulomb_neg_nm'])
        ratio = np.divide(now, self.coulomb_start_nm, out=np.ones(self.n),
                          where=self.coulomb_start_nm > 0)
        return {**terms, 'breakaway_nm': self.breakaway_start_nm * ratio}

    def take_terms(self):
        """Return ``model_terms`` for the estimator's step, which runs on them from now on."""
        terms = self.model_terms()
        self.state[0]['applied'] = np.stack([terms[name] for name in TERMS], -1)
        return terms

    def variance_nm2(self, qd):
        """Return the variance (n,) Nm^2 the tracked terms carry at joint velocities ``qd``."""
        phi = friction_regressors(qd, float(self.state[0]['sign_velocity_rad_s']))
        return np.einsum('ja,jab,jb->j', phi, self.state[0]['cov'], phi)

    def terms(self):
        """Return {term name: (n,) values} of the tracked terms."""
        theta = self.state[0]['theta']
        return {name: theta[:, k].copy() for k, name in enumerate(TERMS)}

    def term_std(self):
        """Return {term name: (n,) standard deviations} of the tracked terms."""
        diag = np.sqrt(np.maximum(np.einsum('jii->ji', self.state[0]['cov']), 0.0))
        return {name: diag[:, k].copy() for k, name in enumerate(TERMS)}
