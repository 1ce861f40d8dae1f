# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Friction near zero velocity: the stiction band and what a resting joint gives the wrench.

The friction follows the model's law (its smooth sign and Stribeck term) or, where configured,
the exact sign of the measured velocity. Within the stiction band (``|qd| < stiction_velocity``,
by default derived from the model and its residual std: ``derived_stiction_velocity``) the
friction torque of a resting joint is anywhere within offset +- breakaway: that interval is
carried along as a band (half-width, Nm) on tau_ext around the point estimate (the model's law,
or with the exact sign the centre of the interval, the offset) (``StictionFriction``). The
residual forgets the stuck-phase friction only at its own bandwidth, so the band is released at
that rate (``hold_band``). A resting joint's external torque is anywhere in that interval:
``deadzone`` keeps the smallest consistent one, ``stiction_hold_batch`` the one closest to what
the joint felt before. ``update`` runs the same rules one sample at a time in its compiled step
(``sample_step``).
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.estimate.over_samples import stiction_point_and_band_over
from robot_id_ros.estimate.sample_step import BAND_ZERO_NM
from robot_id_ros.model.friction import FrictionModel, smooth_sign

_HOLD_BLOCK = 64.0    # hold_band works in blocks over which the decay exponent grows by at most
#                       this
# derived_stiction_velocity searches this velocity grid (rad/s, log-spaced)
_DERIVE_V_MIN_RAD_S, _DERIVE_V_MAX_RAD_S, _DERIVE_POINTS = 1e-5, 1.0, 500


def hold_band(band, dt, rate, starts=None):
    """Return the stiction band as the residual sees it, over N samples.

    When a joint breaks away its band drops to zero at once, but the residual (a first-order filter
    of rate ``rate`` 1/s) still holds the stuck-phase friction and lets it go only as
    exp(-rate t). So the band is released at that rate:

        held_k = max(band_k, H_k),   H_k = held_{k-1} exp(-rate dt_k), 0 below BAND_ZERO_NM,

    restarting (held_k = band_k) at the first sample and where ``starts`` is True (update's
    compiled step, ``sample_step._friction``, runs the recursion itself).

    Vectorised: with x_k = rate t_k, let V_k = max over earlier j in the segment of
    band_j exp(-(x_k - x_j)), the decayed value without zeroing (a running maximum of
    log(band_j) + x_j). Then H_k = V_k where V_k >= BAND_ZERO_NM and 0 elsewhere: while nothing
    has been zeroed the two are the same; a value zeroed in the recursion was below the threshold,
    and so is every later decay of it, so dropping it changes no H_k that is at or above the
    threshold. The running maximum is restarted every ``_HOLD_BLOCK`` of x (carrying the last
    value) so that the exponents stay small: the values match the recursion to ~1e-13 relative
    (only a held value within that of BAND_ZERO_NM could be zeroed differently).

    Args:
        band: (N, n) Nm, the stiction band of each sample.
        dt: (N,) s, dt[k] is the interval before sample k.
        rate: 1/s, the residual's rate.
        starts: (N,) bool, where the recursion restarts (besides sample 0); None: nowhere.

    Returns:
        (N, n) Nm, the held band.
    """
    band = np.asarray(band, dtype=float)
    N = len(band)
    out = band.copy()
    if N < 2:
        return out
    restart = np.zeros(N, dtype=bool) if starts is None else np.array(starts, dtype=bool)
    restart[0] = True
    # the decay exponent of each interval
    rdt = rate * np.where(restart, 0.0, np.asarray(dt, dtype=float))
    block = np.floor(np.cumsum(rdt) / _HOLD_BLOCK)
    first = restart.copy()
    first[1:] |= block[1:] != block[:-1]
    b0 = np.flatnonzero(first)
    b1 = np.r_[b0[1:], N]
    logb = np.full(band.shape, -np.inf)
    np.log(band, out=logb, where=band > 0.0)
    carry = None                       # log of the un-zeroed held value at the previous sample
    for s, e in zip(b0, b1):
        xb = np.cumsum(rdt[s:e])[:, None]
        xb -= xb[0]                    # x_k - x_s, summed within the block (small: accurate)
        y = logb[s:e] + xb             # log(band_j) + x_j - x_s
        cand = np.empty_like(y)        # row k: the candidates before sample k
        cand[0] = -np.inf if restart[s] else carry - rdt[s]
        cand[1:] = y[:-1]
        np.maximum.accumulate(cand, axis=0, out=cand)
        decayed = np.exp(cand - xb)
        carry = np.maximum(y[-1], cand[-1]) - xb[-1]
        decayed[decayed < BAND_ZERO_NM] = 0.0
        np.maximum(band[s:e], decayed, out=out[s:e])
    out[restart] = band[restart]
    return out


def stiction_hold_batch(T, band, starts):
    """Return the stiction hold (the play, or backlash, operator) over N samples.

    At each sample the held torque is moved just far enough to lie within [tau - band,
    tau + band]: a resting joint's friction is anywhere inside its band, so every external torque
    in that interval explains its reading, and this keeps the one closest to what the joint felt
    before (a force does not change while nothing shows it did); a moving joint (band 0) gives tau
    itself. Starts from ``deadzone`` at sample 0 and wherever ``starts`` is True (a reset or a
    tare: no external torque beyond what the band cannot explain). Each step is a clip
    x -> min(max(x, lo_k), hi_k); a restart is the constant clip to the dead-zone value. Clips
    compose into clips (clip_g(clip_f(x)) = clip(x, clip_g(lo_f), clip_g(hi_f))), so the recursion
    is an associative scan, done here in log2(N) vectorised passes. Only min and max are involved:
    the numbers are exactly those of the one-sample recursion.

    Args:
        T: (N, n) Nm, tau_ext.
        band: (N, n) Nm, the (held) stiction band.
        starts: (N,) bool, restarts.

    Returns:
        (N, n) Nm, the held external torque.
    """
    T = np.asarray(T, dtype=float)
    band = np.asarray(band, dtype=float)
    N = len(T)
    restart = np.asarray(starts, dtype=bool).copy()
    restart[0] = True
    d = deadzone(T, band)
    lo = np.where(restart[:, None], d, T - band)
    hi = np.where(restart[:, None], d, T + band)
    s = 1
    while s < N:           # map k becomes (map k) o (map k - s): the composition of s more steps
        a, b = lo[s:], hi[s:]
        lo[s:], hi[s:] = (np.minimum(np.maximum(lo[:-s], a), b),
                          np.minimum(np.maximum(hi[:-s], a), b))
        s *= 2
    return lo            # every composed map starts with a constant one: lo == hi is the value


def stiction_batch(mode, T, band, restart):
    """Return the torque that goes into the wrench over N samples.

    ``update`` runs the same rule one sample at a time (``sample_step._stiction_torque``).

    Args:
        mode: 'none', 'deadzone' or 'hold' (``stiction_mode``).
        T: (N, n) Nm, tau_ext.
        band: (N, n) Nm, the (held) stiction band.
        restart: (N,) bool, where the hold starts afresh (``stiction_hold_batch``).

    Returns:
        (N, n) Nm.
    """
    if mode == 'hold':
        return stiction_hold_batch(T, band, restart)
    if mode == 'deadzone':
        return deadzone(T, band)
    return T


def deadzone(tau, band):
    """Return the part of ``tau`` outside [-band, band].

    That is the external torque that cannot be the unknown friction of a resting joint (the
    smallest external torque consistent with the stiction band).

    Args:
        tau: (..., n) Nm.
        band: (..., n) Nm, half-width of the band.

    Returns:
        (..., n) Nm.
    """
    return np.sign(tau) * np.maximum(np.abs(tau) - band, 0.0)


def derived_stiction_velocity(friction: FrictionModel, residual_std_nm):
    """Return the stiction velocity of each joint from the model (``stiction_velocity`` unset).

    Half the velocity above which the model's friction law (its smooth sign and Stribeck term)
    and the exact sign law (``FrictionModel.sliding_torque``) differ by at most the
    identification residual std, in either direction. Above twice the result, the friction is
    known within the noise the model already carries whether the joint's friction is smooth near
    zero (as the model states) or jumps there (stiction, Coulomb friction with the exact sign);
    below, it is not, and the stiction band covers it. A smooth law (large
    ``sign_velocity_rad_s``) or Coulomb friction far above the noise gives a wide band, Coulomb
    friction below the residual std none.

    Args:
        friction: the model's friction.
        residual_std_nm: (n,) Nm, the identification residual std per joint.

    Returns:
        (n,) rad/s, at most 0.5 (0 where the two laws never differ by the residual std).
    """
    n = friction.n
    v = np.broadcast_to(np.geomspace(_DERIVE_V_MIN_RAD_S, _DERIVE_V_MAX_RAD_S,
                                     _DERIVE_POINTS)[:, None], (_DERIVE_POINTS, n))
    diff = np.maximum(np.abs(friction.torque(v) - friction.sliding_torque(v)),
                      np.abs(friction.torque(-v) - friction.sliding_torque(-v)))
    # above v[k] the laws agree within the std when no later grid point differs by more
    above = np.maximum.accumulate(diff[::-1], axis=0)[::-1] > np.asarray(residual_std_nm, float)
    last = np.where(above.any(axis=0), len(v) - 1 - np.argmax(above[::-1], axis=0), -1)
    return np.where(last >= 0, 0.5 * v[np.minimum(last + 1, len(v) - 1), 0], 0.0)


class StictionFriction:
    """Friction point estimate and the half-width of its uncertainty band.

    Moving (``|qd| >= 2 v_s``): the friction law, band 0. The law is the model's (``law``
    'model': its smooth sign and Stribeck term, ``FrictionModel.torque``) or the exact sign of the
    measured velocity (``law`` 'exact': ``FrictionModel.sliding_torque``). At rest
    (``|qd| < v_s``) the friction torque is anywhere within the offset +- breakaway (stiction).
    With the model's law the point estimate stays the law (it is smooth through zero) and the
    band covers that interval around it: breakaway + |law - offset|. With the exact sign the
    point is the centre of the interval (the offset: the exact sign would switch with velocity
    noise), band = breakaway. In between, a linear blend so that nothing jumps. Works on (n,) or
    (N, n). ``v_s`` (per joint) must lie above the velocity noise: a joint measured faster than
    that is sliding. update's compiled step (``sample_step._friction``) runs the same law on one
    sample.

    Args:
        friction: the model's friction.
        stiction_velocity_rad_s: v_s, rad/s (a number or one per joint; 0: no band); None:
            from the model (``derived_stiction_velocity``).
        law: 'model' or 'exact' (``EstimatorConfig.friction_sign``).
        residual_std_nm: (n,) Nm, the identification residual std (for a derived v_s).
    """

    def __init__(self, friction: FrictionModel, stiction_velocity_rad_s, law='model',
                 residual_std_nm=None):
        self.friction = friction
        self.law = law
        self.derived = stiction_velocity_rad_s is None
        if self.derived:
            stiction_velocity_rad_s = derived_stiction_velocity(friction, residual_std_nm)
        self.v_s = np.broadcast_to(np.asarray(stiction_velocity_rad_s, dtype=float),
                                   (friction.n,)).copy()

    def __call__(self, qd, presliding_state=None, measured_nm=None):
        """Friction at the measured velocity.

        Args:
            qd: (n,) or (N, n) rad/s.
            presliding_state: the Dahl state z of the model's presliding joints, shaped like
                ``qd`` (``presliding_start`` and ``FrictionModel.presliding_state``); None: the
                smooth sign stands in. The exact-sign law has no presliding.
            measured_nm: the measured torque, Nm, shaped like ``qd``: less the friction, the
                load of the load-dependent Coulomb term (``friction.gear_load_nm``; None: that
                term left out).

        Returns:
            (point estimate, band half-width), both Nm and shaped like ``qd``.
        """
        fr = self.friction
        qd = np.asarray(qd, dtype=float)
        model_law = self.law == 'model'
        tau = (fr.torque(qd, presliding_state, measured_nm=measured_nm) if model_law
               else fr.sliding_torque(qd, measured_nm=measured_nm))
        if not (self.v_s > 0).any():
            return tau, np.zeros_like(tau)
        n = fr.n
        T, QD = np.atleast_2d(tau), np.atleast_2d(qd)
        point, band = stiction_point_and_band_over(
            np.ascontiguousarray(T, dtype=float), np.ascontiguousarray(QD, dtype=float), self.v_s,
            np.broadcast_to(np.asarray(fr.offset_nm, dtype=float), (n,)).copy(),
            np.broadcast_to(np.asarray(fr.breakaway_nm, dtype=float), (n,)).copy(), model_law)
        return point.reshape(tau.shape), band.reshape(tau.shape)

    def presliding_start(self, qd):
        """Return the Dahl state (n,) a run starts from at velocity ``qd`` (n,) rad/s.

        With no history the law's smooth sign stands in: a joint found moving has z = +-1, one at
        rest 0. 0 for joints without presliding and for the exact-sign law.
        """
        fr = self.friction
        if self.law != 'model' or not fr.has_presliding:
            return np.zeros(fr.n)
        return np.where(fr.presliding_rad > 0,
                        smooth_sign(np.asarray(qd, dtype=float), fr.sign_velocity_rad_s), 0.0)

    def describe(self) -> str:
        """Return one line: the friction law and the stiction velocity (for a start-up log)."""
        lo, hi = float(self.v_s.min()), float(self.v_s.max())
        v = f'{lo:.3g}' if lo == hi else f'{lo:.3g}-{hi:.3g}'
        where = 'from the model' if self.derived else 'set'
        law = ("the model's friction law" if self.law == 'model'
               else 'exact-sign friction')
        return f'{law}, stiction band below {v} rad/s ({where})'
