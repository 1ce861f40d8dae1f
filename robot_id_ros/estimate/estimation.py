"""External torque and wrench estimation without a force/torque sensor (ROS-free core).

Conventions
-----------
The arm obeys ``M(q) qdd + C(q, qd) qd + g(q) + f(qd) = tau_m + tau_ext`` where ``tau_m`` is the
measured drive torque (the driver's effort, or motor current x drive gain) and
``tau_ext = J(q)^T F`` is the joint torque caused by the wrench ``F`` that the environment applies
to the tool at the tool frame's origin (De Luca; Haddadin et al. 2017).  Everything this module
reports follows that convention: ``tau_ext`` = model torque - measured torque, and ``wrench`` is
the wrench *applied to the tool* (push the tool down: negative z force in the base frame).

Two residuals estimate ``tau_ext``:

* ``MomentumObserver`` (default): the generalized momentum observer
  ``r = K (p - p0 - integral(tau_m + C^T qd - g - f + r) dt)``, ``p = M qd``; a first-order
  low-pass of tau_ext with bandwidth ``observer_gain_hz``, and no acceleration anywhere.
  Discretisation: ``C^T qd = Mdot qd - C qd``; ``C qd + g`` is Pinocchio's nonLinearEffects and the
  integral of ``Mdot qd`` is taken by the trapezoid rule on M, which makes
  ``p_k - p_{k-1} - integral(Mdot qd) = (M_k + M_{k-1})/2 (qd_k - qd_{k-1})`` exactly.  The
  first-order update ``r_k = a r_{k-1} + (1 - a) delta_k / dt`` with ``a = exp(-K dt)`` is exact for
  a held input and stable for any sample interval (variable rates, gaps).
* ``DirectResidual`` (seed 000): ``tau_ext = M qdd + C qd + g + f - tau_m`` with the
  acceleration from ``CausalDifferentiator`` (see there why it is causal); the torque terms pass
  through the same filter so that both sides carry the same lag.

Friction near zero velocity is not given a sign: within the stiction band
(``|qd| < stiction_velocity``) the friction torque is taken at the centre of its bounds
(the offset) and the band's half-width ``breakaway`` is reported as an interval on tau_ext, adds
``breakaway^2 / 3`` (uniform) to its variance, and enters contact detection as one more standard
deviation of that joint (or is subtracted, with ``contact_test: joint``; see ``ContactDetector``).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pinocchio as pin

from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.io.model_file import IdentifiedModel, Payload
from robot_id_ros.errors import InputError, OperationError

METHODS = ('momentum', 'direct')
FRAMES = ('base', 'tool')
WRENCH_MODES = ('auto', 'force', 'full', 'torque')
STICTION_MODES = ('none', 'deadzone', 'hold')
CONTACT_TESTS = ('combined', 'joint')
CONTACT_NONE, CONTACT, COLLISION = 0, 1, 2
CONTACT_STATE_NAMES = ('none', 'contact', 'collision')


class EstimatorInputError(InputError):
    """A sample the estimator will not use; ``kind`` is one of 'shape', 'nonfinite',
    'duplicate_stamp', 'out_of_order'. The message says what is wrong."""

    def __init__(self, kind, message):
        super().__init__(message, kind)


@dataclass
class EstimatorConfig:
    """Settings of ``WrenchEstimator`` (the node's parameters and the command's flags map here)."""

    method: str = 'momentum'              # 'momentum' | 'direct'
    frame: str = 'base'                   # wrench expressed in 'base' (URDF root) or 'tool' frame
    wrench_mode: str = 'auto'             # 'auto' | 'force' | 'full' | 'torque'
    observer_gain_hz: float = 10.0        # momentum observer bandwidth K / (2 pi)
    direct_filter_hz: float = 10.0        # direct method: differentiator / torque filter bandwidth
    stiction_velocity_rad_s: float = 0.02  # |qd| below: friction unknown within its bounds
    sigma_guard: float = 0.02             # smallest singular value of J^T below which damping starts
    damping: float = 0.02                 # damping at zero singular value (same unit as sigma)
    contact_test: str = 'combined'        # 'combined': one statistic over all joints, each weighted by
    #                                       1 / (residual variance + band^2); 'joint': |tau_ext| - band per
    #                                       joint (see ContactDetector)
    contact_threshold_sigma: float = 5.0  # contact when the test statistic exceeds k residual std
    collision_threshold_sigma: float = 12.0
    contact_release_ratio: float = 0.5    # hysteresis: leave a state below this fraction of its threshold
    contact_threshold_nm: tuple | None = None    # per-joint override of the contact threshold
    collision_threshold_nm: tuple | None = None  # per-joint override of the collision threshold
    default_residual_std_nm: float = 0.1  # used when the model file has no residual statistics
    time_jump_s: float = 0.2              # a stamp this far behind the last one: reset (bag looped)
    max_gap_s: float = 0.5                # a gap longer than this between samples: reset
    covariance_period_s: float = 0.05     # how often the wrench covariance is recomputed
    tare_window_s: float = 0.1            # tare averages tau_ext over this much recent data
    band_weighting: bool = False          # weight each joint in the wrench least squares by 1 / (residual
    #                                       variance + band^2 / 3): a joint in its stiction band counts little
    stiction_mode: str = 'none'           # what a resting joint (friction unknown within its band) gives
    #   the wrench: 'none' its tau_ext as is; 'deadzone' only the part outside the band (the smallest
    #   consistent external torque); 'hold' the external torque it had when it stopped, moved only as
    #   far as the band requires (see stiction_hold). With 'deadzone' or 'hold' a tare removes only
    #   the part of a resting joint's residual its static friction cannot explain.

    def validated(self):
        if self.stiction_mode not in STICTION_MODES:
            raise ValueError(f'stiction_mode must be one of {STICTION_MODES}, got {self.stiction_mode!r}')
        if self.method not in METHODS:
            raise ValueError(f'method must be one of {METHODS}, got {self.method!r}')
        if self.frame not in FRAMES:
            raise ValueError(f'frame must be one of {FRAMES}, got {self.frame!r}')
        if self.wrench_mode not in WRENCH_MODES:
            raise ValueError(f'wrench_mode must be one of {WRENCH_MODES}, got {self.wrench_mode!r}')
        if self.contact_test not in CONTACT_TESTS:
            raise ValueError(f'contact_test must be one of {CONTACT_TESTS}, got {self.contact_test!r}')
        for name in ('observer_gain_hz', 'direct_filter_hz', 'sigma_guard', 'contact_threshold_sigma',
                     'collision_threshold_sigma', 'default_residual_std_nm', 'time_jump_s', 'max_gap_s',
                     'covariance_period_s'):
            if not getattr(self, name) > 0:
                raise ValueError(f'{name} must be > 0, got {getattr(self, name)!r}')
        if not 0 < self.contact_release_ratio < 1:
            raise ValueError('contact_release_ratio must be in (0, 1)')
        if self.collision_threshold_sigma < self.contact_threshold_sigma:
            raise ValueError('collision_threshold_sigma must be >= contact_threshold_sigma')
        if self.damping < 0 or self.stiction_velocity_rad_s < 0 or self.tare_window_s < 0:
            raise ValueError('damping, stiction_velocity_rad_s and tare_window_s must be >= 0')
        return self


def estimator_settings(params_file, node_name='wrench_estimator') -> dict:
    """The ``EstimatorConfig`` fields set in a ROS 2 parameters file of the wrench_estimator node
    (``node_name: ros__parameters: {...}`` or ``/**``), e.g. config/wrench_estimator.yaml (the youBot
    settings): the node, the demo and ``robot-id estimate --params-file`` read the same file. Other
    node parameters (model_file, payload, QoS, ...) are left out. Raises ValueError naming the file
    and the problem."""
    import yaml

    path = Path(params_file)
    try:
        doc = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise ValueError(f'cannot read estimator parameters file {path}: {e}') from None
    section = None
    if isinstance(doc, dict):
        for key in (node_name, '/' + node_name, '/**'):
            if isinstance(doc.get(key), dict) and isinstance(doc[key].get('ros__parameters'), dict):
                section = doc[key]['ros__parameters']
                break
    if section is None:
        raise ValueError(f'{path} has no "{node_name}: ros__parameters:" (or "/**") section: give a '
                         'wrench_estimator parameters file such as config/wrench_estimator.yaml')
    fields = {f.name: f for f in dataclasses.fields(EstimatorConfig)}
    out = {k: v for k, v in section.items() if k in fields}
    try:
        replace(EstimatorConfig(), **out).validated()
    except (TypeError, ValueError) as e:
        raise ValueError(f'{path}: {e}') from None
    return out


def youbot_estimator_settings() -> dict:
    """``estimator_settings`` of the package's config/wrench_estimator.yaml (the youBot settings)."""
    from robot_id_ros.model.robot import package_share_dir

    return estimator_settings(package_share_dir() / 'config' / 'wrench_estimator.yaml')


def effort_scale(model: IdentifiedModel, effort_unit='torque', drive_gains=None):
    """Per-joint factor turning the driver's effort into Nm: ones for 'torque', the drive gains
    (Nm/A: ``drive_gains`` if given, else the model file's) for 'current'."""
    if effort_unit == 'torque':
        return np.ones(model.n)
    if effort_unit != 'current':
        raise ValueError(f"effort unit must be 'torque' or 'current', got {effort_unit!r}")
    gains = drive_gains if drive_gains is not None else model.drive_gains_nm_per_a
    if gains is None:
        raise ValueError('effort unit is current but neither the model file nor the options give drive gains '
                         '(Nm/A per joint): pass --drive-gains / drive_gains_nm_per_a')
    gains = np.asarray(gains, dtype=float)
    if gains.shape != (model.n,) or not np.all(np.isfinite(gains)) or np.any(gains == 0):
        raise ValueError(f'drive gains must be {model.n} finite non-zero values (one per joint '
                         f'{", ".join(model.joint_names)}), got {list(np.atleast_1d(gains))}')
    return gains


BAND_ZERO_NM = 1e-6   # a released band below this is zero
_HOLD_BLOCK = 64.0    # hold_band works in blocks over which the decay exponent grows by at most this


def hold_band(band, dt, rate, starts=None):
    """The stiction band as the residual sees it: when a joint breaks away its band drops to zero at
    once, but the residual (a first-order filter of rate ``rate`` 1/s) still holds the stuck-phase
    friction and lets it go only as exp(-rate t). So the band is released at that rate:

        held_k = max(band_k, H_k),   H_k = held_{k-1} exp(-rate dt_k), set to 0 below BAND_ZERO_NM,

    restarting (held_k = band_k) at the first sample and where ``starts`` is True. ``band`` (N, n) Nm,
    ``dt`` (N,) s (dt[k] is the interval before sample k), ``rate`` 1/s.

    Vectorised: with x_k = rate t_k, let V_k = max over earlier j in the segment of
    band_j exp(-(x_k - x_j)), the decayed value without zeroing (a running maximum of
    log(band_j) + x_j). Then H_k = V_k where V_k >= BAND_ZERO_NM and 0 elsewhere: while nothing has
    been zeroed the two are the same; a value zeroed in the recursion was below the threshold, and so
    is every later decay of it, so dropping it changes no H_k that is at or above the threshold.
    The running maximum is restarted every ``_HOLD_BLOCK`` of x (carrying the last value) so that the
    exponents stay small: the values match the recursion to ~1e-13 relative (only a held value within
    that of BAND_ZERO_NM could be zeroed differently).
    """
    band = np.asarray(band, dtype=float)
    N = len(band)
    out = band.copy()
    if N < 2:
        return out
    restart = np.zeros(N, dtype=bool) if starts is None else np.array(starts, dtype=bool)
    restart[0] = True
    rdt = rate * np.where(restart, 0.0, np.asarray(dt, dtype=float))   # decay exponent of each interval
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


def stiction_hold(tau, band, held):
    """One step of the play (backlash) operator: ``held`` moved just far enough to lie within
    [tau - band, tau + band]. A resting joint's friction is anywhere inside its band, so every
    external torque in that interval explains its reading; this keeps the one closest to what the
    joint felt before (a force does not change while nothing shows it did). A moving joint (band
    0) gives tau itself."""
    return np.minimum(np.maximum(held, tau - band), tau + band)


def stiction_hold_batch(T, band, starts):
    """``stiction_hold`` over N samples (N, n), starting from ``deadzone`` at sample 0 and wherever
    ``starts`` is True (a reset or a tare: no external torque beyond what the band cannot explain).

    Each step is a clip x -> min(max(x, lo_k), hi_k); a restart is the constant clip to the dead-zone
    value. Clips compose into clips (clip_g(clip_f(x)) = clip(x, clip_g(lo_f), clip_g(hi_f))), so the
    recursion is an associative scan, done here in log2(N) vectorised passes. Only min and max are
    involved: the numbers are exactly those of the one-sample recursion."""
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
        lo[s:], hi[s:] = np.minimum(np.maximum(lo[:-s], a), b), np.minimum(np.maximum(hi[:-s], a), b)
        s *= 2
    return lo            # every composed map starts with a constant one: lo == hi is the held value


def deadzone(tau, band):
    """The part of ``tau`` outside [-band, band]: the external torque that cannot be the unknown
    friction of a resting joint (the smallest external torque consistent with the stiction band)."""
    return np.sign(tau) * np.maximum(np.abs(tau) - band, 0.0)


# --- friction with a stiction band ---------------------------------------------------------
class StictionFriction:
    """Friction point estimate and the half-width of its uncertainty band.

    Moving (``|qd| >= 2 v_s``): the model's sliding friction (exact sign of the measured velocity),
    band 0. At rest (``|qd| < v_s``): the centre of ``FrictionModel.friction_bounds`` (the offset),
    band = breakaway. In between, a linear blend so that nothing jumps. Works on (n,) or (N, n).
    ``v_s`` must lie above the velocity noise: a joint measured faster than that is sliding.
    """

    def __init__(self, friction: FrictionModel, stiction_velocity_rad_s):
        self.friction = friction
        self.v_s = float(stiction_velocity_rad_s)

    def __call__(self, qd):
        fr = self.friction
        qd = np.asarray(qd, dtype=float)
        tau = fr.sliding_torque(qd)
        if self.v_s <= 0:
            return tau, np.zeros_like(tau)
        w = np.clip(np.abs(qd) / self.v_s - 1.0, 0.0, 1.0)
        off = fr.offset_nm
        return off + w * (tau - off), (1.0 - w) * fr.breakaway_nm


# --- residuals ------------------------------------------------------------------------------
class MomentumObserver:
    """Generalized momentum observer, one sample at a time (see the module docstring)."""

    def __init__(self, n, gain_hz):
        self.n = n
        self.K = 2.0 * math.pi * float(gain_hz)
        self.reset()

    def reset(self):
        self.r = None
        self._M = None
        self._qd = None
        self._u = None

    @property
    def initialised(self):
        return self.r is not None

    def step(self, dt, M, qd, u):
        """``u = C qd + g + f - tau_m`` at this sample; returns r (an estimate of tau_ext)."""
        if self.r is None or dt <= 0:
            # start from the acceleration-free residual: exact at rest, no slow rise from zero
            self.r = u.copy()
        else:
            delta = 0.5 * ((M + self._M) @ (qd - self._qd)) + (0.5 * dt) * (u + self._u)
            a = math.exp(-self.K * dt)
            self.r = a * self.r + ((1.0 - a) / dt) * delta
        self._M, self._qd, self._u = M, qd, u
        return self.r


def momentum_observer_batch(K, dt, M, QD, U, r0=None):
    """The ``MomentumObserver`` recursion over N samples at once (same numbers, vectorised).

    ``dt[k]`` is the interval before sample k (dt[0] unused). The linear recursion
    ``r_k = a_k r_{k-1} + b_k x_k`` is solved with cumulative products in blocks small enough
    that the products stay far from under/overflow.
    """
    N = len(QD)
    out = np.empty_like(U)
    out[0] = U[0] if r0 is None else r0
    if N == 1:
        return out
    dtk = dt[1:]
    dQD = QD[1:] - QD[:-1]
    Mb = M[1:] + M[:-1]
    delta = 0.5 * np.einsum('kij,kj->ki', Mb, dQD) + (0.5 * dtk)[:, None] * (U[1:] + U[:-1])
    loga = -K * dtk
    a = np.exp(loga)
    x = ((1.0 - a) / dtk)[:, None] * delta
    L = np.cumsum(loga)
    block = np.floor(-L / 300.0).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
    ends = np.r_[starts[1:], len(dtk)]
    r_prev = out[0]
    for s, e in zip(starts, ends):
        Lb = L[s:e] - (L[s - 1] if s > 0 else 0.0)   # log prod a over the block up to k
        P = np.exp(Lb)[:, None]
        seg = P * (r_prev + np.cumsum(x[s:e] / P, axis=0))
        out[1 + s:1 + e] = seg
        r_prev = seg[-1]
    return out


class CausalDifferentiator:
    """Critically damped second-order state-variable filter: per channel

        x1' = x2,   x2' = w^2 (u - x1) - 2 w x2,

    so x1 is u low-passed (unit DC gain) and x2 = d x1 / dt is a filtered derivative of u.  It is
    causal: each output depends only on the current and past samples (a recursive filter,
    discretised exactly for an input held over each interval, closed form for any dt); this is
    what an estimator running online can use, unlike the zero-phase filters of ``signals``.
    """

    def __init__(self, n, bandwidth_hz):
        self.w = 2.0 * math.pi * float(bandwidth_hz)
        self.n = n
        self.reset()

    def reset(self):
        self.x1 = None
        self.x2 = None

    def step(self, u, dt):
        if self.x1 is None or dt <= 0:
            self.x1 = np.array(u, dtype=float)
            self.x2 = np.zeros(self.n)
            return self.x1, self.x2
        w = self.w
        e = math.exp(-w * dt)
        wt = w * dt
        # Phi = e [[1 + wt, dt], [-w^2 dt, 1 - wt]],  Gamma = [1 - e (1 + wt), w^2 dt e]
        d = self.x1 - u            # the input enters through (x1 - u)
        x1 = u + e * ((1.0 + wt) * d + dt * self.x2)
        x2 = e * (-w * w * dt * d + (1.0 - wt) * self.x2)
        self.x1, self.x2 = x1, x2
        return x1, x2


class DirectResidual:
    """tau_ext = M(q) qdd_f + LP[C qd + g + f - tau_m], qdd_f from a ``CausalDifferentiator``."""

    def __init__(self, n, bandwidth_hz):
        self.diff = CausalDifferentiator(n, bandwidth_hz)
        self.lp = CausalDifferentiator(n, bandwidth_hz)

    def reset(self):
        self.diff.reset()
        self.lp.reset()

    @property
    def initialised(self):
        return self.diff.x1 is not None

    def step(self, dt, M, qd, u):
        _, qdd = self.diff.step(qd, dt)
        u_f, _ = self.lp.step(u, dt)
        return M @ qdd + u_f


# --- wrench mapping -------------------------------------------------------------------------
@dataclass
class Mapping:
    rows: np.ndarray          # which of the 6 wrench rows (f, m) are estimated
    label: str


def wrench_rows(mode, n):
    if mode == 'auto':
        mode = 'full' if n >= 6 else 'force'
    return Mapping({'full': np.arange(6), 'force': np.arange(3), 'torque': np.arange(3, 6)}[mode], mode)


def gram3_min_eig_inverse(G):
    """Smallest eigenvalue (N,) and inverse (N, 3, 3) of symmetric 3 x 3 matrices G (N, 3, 3), in
    closed form: the eigenvalue by the trigonometric method, the inverse by cofactors (the
    arithmetic of ``WrenchMapper.map_one``, vectorised). The inverse is NaN/inf where det <= 0."""
    a, d, f = G[:, 0, 0], G[:, 0, 1], G[:, 0, 2]
    b, e, c = G[:, 1, 1], G[:, 1, 2], G[:, 2, 2]
    p1 = d * d + e * e + f * f
    q = (a + b + c) / 3.0
    aq, bq, cq = a - q, b - q, c - q
    p2 = aq * aq + bq * bq + cq * cq + 2.0 * p1
    p = np.sqrt(p2 / 6.0)
    ip = np.divide(1.0, p, out=np.zeros_like(p), where=p2 > 0.0)   # p2 = 0 (G = q I): lam = q
    ba, bb, bc, bd, be, bf = aq * ip, bq * ip, cq * ip, d * ip, e * ip, f * ip
    r = 0.5 * (ba * (bb * bc - be * be) - bd * (bd * bc - be * bf) + bf * (bd * be - bb * bf))
    np.clip(r, -1.0, 1.0, out=r)
    lam = q + 2.0 * p * np.cos(np.arccos(r) / 3.0 + 2.0 * math.pi / 3.0)
    c00, c01, c02 = b * c - e * e, f * e - d * c, d * e - f * b
    c11, c12, c22 = a * c - f * f, d * f - a * e, a * b - d * d
    det = a * c00 + d * c01 + f * c02
    with np.errstate(divide='ignore', invalid='ignore'):
        idet = np.where(det > 0.0, 1.0 / det, np.nan)
    inv = np.stack([c00, c01, c02, c01, c11, c12, c02, c12, c22], axis=-1).reshape(-1, 3, 3) * idet[:, None, None]
    return lam, inv


class WrenchMapper:
    """tau_ext -> wrench at the tool frame origin by damped least squares on J^T.

    Solves ``min |J_s^T F_s - tau|^2 + lambda^2 |F_s|^2`` for the selected rows ``s`` of the
    wrench (all six, the force, or the moment) with the SVD of ``J_s^T``. Damping is zero while the
    smallest singular value is above ``sigma_guard`` and grows to ``damping`` as it reaches zero.
    Also returns the matrix A with ``F_s = A tau`` for covariance propagation.
    """

    def __init__(self, n, mode='auto', sigma_guard=0.02, damping=0.02):
        self.mapping = wrench_rows(mode, n)
        self.rows = self.mapping.rows
        self.sigma_guard = float(sigma_guard)
        self.damping = float(damping)

    def matrices(self, J):
        """J (..., 6, n) -> A (..., 6, n) with wrench = A tau, sigma_min (...,), damped (...,).

        Away from a singularity (sigma_min clearly above ``sigma_guard``: no damping) the damped
        least squares is the plain pseudo-inverse ``A_s = (J_s J_s^T)^-1 J_s``, solved through the
        m x m Gram matrix, whose smallest eigenvalue is sigma_min^2 (for m = 3 in closed form, as in
        ``map_one``: ``gram3_min_eig_inverse``); near one (and for a single matrix) the SVD below is
        used. Both give the same numbers to rounding.
        """
        J = np.asarray(J)
        if J.ndim != 3 or len(J) < 2:
            return self._svd_matrices(J)
        Js = J[:, self.rows, :]
        G = np.einsum('kij,klj->kil', Js, Js)                         # (N, m, m)
        with np.errstate(invalid='ignore'):
            if len(self.rows) == 3:
                lam, Ginv = gram3_min_eig_inverse(G)
                ok = (lam > (self.sigma_guard * 1.01) ** 2) & np.isfinite(Ginv).all(axis=(1, 2))
                As = Ginv @ Js                                        # not used where not ok
            else:
                lam = np.linalg.eigvalsh(G)[:, 0]
                ok = np.isfinite(lam) & (lam > (self.sigma_guard * 1.01) ** 2)
                As = np.zeros_like(Js)
                As[ok] = np.linalg.solve(G[ok], Js[ok])
            smin = np.sqrt(lam)
        A = np.zeros(J.shape[:-2] + (6, J.shape[-1]))
        A[:, self.rows] = As
        damped = np.zeros(len(J), dtype=bool)
        bad = ~ok
        if bad.any():
            A[bad], smin[bad], damped[bad] = self._svd_matrices(J[bad])
        return A, smin, damped

    def map_one(self, J, tau):
        """(wrench (6,), sigma_min, damped) for one J (6, n) and tau (n,) without forming A when it
        can: for 3 mapped rows away from a singularity the 3 x 3 Gram system is solved in closed
        form (eigenvalue by the trigonometric method, inverse by cofactors); otherwise through
        ``matrices``. Same numbers as ``matrices(J)[0] @ tau`` to rounding."""
        rows = self.rows
        if len(rows) == 3:
            Js = J[rows]
            (a, d, f), (_, b, e), (_, _, c) = (Js @ Js.T).tolist()
            y0, y1, y2 = (Js @ tau).tolist()
            p1 = d * d + e * e + f * f
            q = (a + b + c) / 3.0
            aq, bq, cq = a - q, b - q, c - q
            p2 = aq * aq + bq * bq + cq * cq + 2.0 * p1
            if p2 > 0.0:
                p = math.sqrt(p2 / 6.0)
                ip = 1.0 / p
                ba, bb, bc, bd, be, bf = aq * ip, bq * ip, cq * ip, d * ip, e * ip, f * ip
                r = 0.5 * (ba * (bb * bc - be * be) - bd * (bd * bc - be * bf) + bf * (bd * be - bb * bf))
                r = -1.0 if r < -1.0 else (1.0 if r > 1.0 else r)
                lam = q + 2.0 * p * math.cos(math.acos(r) / 3.0 + 2.0 * math.pi / 3.0)
            else:
                lam = q
            if lam > (self.sigma_guard * 1.01) ** 2:
                c00, c01, c02 = b * c - e * e, f * e - d * c, d * e - f * b
                c11, c12, c22 = a * c - f * f, d * f - a * e, a * b - d * d
                det = a * c00 + d * c01 + f * c02
                if det > 0.0:
                    w = np.zeros(6)
                    k0, k1, k2 = rows
                    w[k0] = (c00 * y0 + c01 * y1 + c02 * y2) / det
                    w[k1] = (c01 * y0 + c11 * y1 + c12 * y2) / det
                    w[k2] = (c02 * y0 + c12 * y1 + c22 * y2) / det
                    return w, math.sqrt(lam), False
        A, smin, damped = self._svd_matrices(J)
        return A @ tau, float(smin), bool(damped)

    def _svd_matrices(self, J):
        Js = J[..., self.rows, :]                        # (..., m, n)
        U, s, Vt = np.linalg.svd(np.swapaxes(Js, -1, -2), full_matrices=False)  # J_s^T = U S Vt
        smin = s[..., -1]
        ratio = np.clip(smin / self.sigma_guard, 0.0, 1.0)
        lam2 = (self.damping ** 2) * (1.0 - ratio ** 2)
        gain = s / (s * s + lam2[..., None])
        As = np.einsum('...ji,...j,...kj->...ik', Vt, gain, U)   # V diag(gain) U^T: (..., m, n)
        A = np.zeros(J.shape[:-2] + (6, J.shape[-1]))
        A[..., self.rows, :] = As
        return A, smin, lam2 > 0


# --- contact detection ----------------------------------------------------------------------
class ContactDetector:
    """Contact / collision from the residual with hysteresis; two tests.

    ``'joint'``: ``excess_j = max(|tau_ext_j| - band_j, 0)`` (band: the stiction interval); the
    score is the largest ``excess_j / threshold_j`` over the joints.  A joint inside its band is
    blind up to the band's edge, so a contact that loads mostly joints passing through zero velocity
    waits until they leave it.

    ``'combined'`` (the estimator's default): one statistic over all joints,

        chi = sqrt(sum_j tau_ext_j^2 / (sigma_j^2 + band_j^2)),   sigma_j = threshold_j / k,

    ``k`` the threshold in standard deviations (``contact_sigma``, ``collision_sigma``), so
    ``sigma_j`` is the model's residual std (or a per-joint Nm override divided by ``k``); the
    score is ``chi / k``.  Without bands it is the Mahalanobis norm of tau_ext under the model's
    residual statistics (chi^2 with n degrees of freedom for a Gaussian residual: false-alarm
    probability per sample ``chi2.sf(k^2, n)``; k = 5, n = 5: 1.4e-4 for an unfiltered residual,
    far less for the observer's, which is low-passed) and for one loaded joint it is that joint's
    |tau_ext| / sigma, like the 'joint' test.  A joint in its stiction band counts with the band as
    one more standard deviation: ``band^2`` is the largest variance an error bounded by the band can
    have (all of it at the edges: a joint about to break away holds its friction at the band's edge,
    and just after, the observer still carries it while the band is released), so the joints that
    are free of friction uncertainty carry the detection while the others are in their band.

    Either way the state rises to contact at ``score >= 1`` and to collision at ``collision
    score >= 1``; it falls back below a level only when that level's score is under
    ``release_ratio``.
    """

    def __init__(self, contact_nm, collision_nm, release_ratio=0.5, test='joint', contact_sigma=1.0,
                 collision_sigma=1.0):
        self.contact_nm = np.asarray(contact_nm, dtype=float)
        self.collision_nm = np.asarray(collision_nm, dtype=float)
        if np.any(self.contact_nm <= 0) or np.any(self.collision_nm < self.contact_nm):
            raise ValueError('contact thresholds must be > 0 and collision thresholds >= contact thresholds')
        if test not in CONTACT_TESTS:
            raise ValueError(f'contact test must be one of {CONTACT_TESTS}, got {test!r}')
        if not (contact_sigma > 0 and collision_sigma > 0):
            raise ValueError('contact_sigma and collision_sigma must be > 0')
        self.test = test
        self.combined = test == 'combined'
        self.release_ratio = float(release_ratio)
        # combined score^2 = sum tau^2 / (threshold^2 + k^2 band^2)
        self._c2, self._kc2 = self.contact_nm ** 2, float(contact_sigma) ** 2
        self._k2, self._kk2 = self.collision_nm ** 2, float(collision_sigma) ** 2
        self.state = CONTACT_NONE

    def reset(self):
        self.state = CONTACT_NONE

    def scores(self, tau_ext, band):
        """(contact score, collision score), 1 = at the threshold; (n,) -> floats, (N, n) -> (N,)."""
        # array methods, not np.sum / np.max: this runs once per sample in the node
        if self.combined:
            t2 = tau_ext * tau_ext
            b2 = band * band
            return (np.sqrt((t2 / (self._c2 + self._kc2 * b2)).sum(axis=-1)),
                    np.sqrt((t2 / (self._k2 + self._kk2 * b2)).sum(axis=-1)))
        excess = np.maximum(np.abs(tau_ext) - band, 0.0)
        return (excess / self.contact_nm).max(axis=-1), (excess / self.collision_nm).max(axis=-1)

    def step(self, s_contact, s_collision):
        st, rel = self.state, self.release_ratio
        if s_collision >= 1.0:
            st = COLLISION
        elif st == COLLISION and s_collision < rel:
            st = CONTACT if s_contact >= rel else CONTACT_NONE
        if st == CONTACT_NONE and s_contact >= 1.0:
            st = CONTACT
        elif st == CONTACT and s_contact < rel:
            st = CONTACT_NONE
        self.state = st
        return st

    def states(self, s_contact, s_collision, starts):
        """The states ``step`` gives over N samples (vectorised), from CONTACT_NONE at the first sample
        and where ``starts`` is True; the detector's own state is not changed.

        Because the collision score never exceeds the contact score (collision thresholds >= contact
        thresholds), each step clamps the previous state between a floor, the number of scores >= 1,
        and a ceiling, the number of scores >= the release ratio. So the level ``state >= L`` is a
        latch: set where the floor reaches L, cleared where the ceiling is below L, held otherwise.
        """
        sc, sk = np.asarray(s_contact), np.asarray(s_collision)
        rel = self.release_ratio
        floor = (sc >= 1.0).astype(np.int64) + (sk >= 1.0)
        ceiling = (sc >= rel).astype(np.int64) + (sk >= rel)
        k = np.arange(len(sc))
        restart = np.asarray(starts, dtype=bool) | (k == 0)
        out = np.zeros(len(sc), dtype=np.int64)
        for level in (CONTACT, COLLISION):
            up = floor >= level
            last = np.maximum.accumulate(np.where(up | (ceiling < level) | restart, k, 0))
            out += up[last]
        return out


# --- uncertainty ----------------------------------------------------------------------------
class TorqueUncertainty:
    """Covariance of the model torque: parameters (base covariance of the identification, else the
    standard parameters' std) + identification residual + stiction band."""

    def __init__(self, model: IdentifiedModel, residual_std_nm):
        self.model = model
        self.res_var = np.asarray(residual_std_nm, dtype=float) ** 2
        self.kind = 'none'
        if model.base is not None and model.base_covariance is not None:
            self.kind = 'base'
            self.cov = np.asarray(model.base_covariance, dtype=float)
        elif model.parameter_std is not None:
            self.kind = 'standard'
            self.cov = np.diag(np.asarray(model.parameter_std, dtype=float) ** 2)

    def torque_covariance(self, q, qd, qdd, band):
        """(N, n, n) for (N, n) inputs."""
        N, n = np.shape(q)
        C = np.zeros((N, n, n))
        if self.kind != 'none':
            W = self.model.regressor.stack(q, qd, qdd).reshape(N, n, -1)
            if self.kind == 'base':      # W theta = W_b beta with W_b = W[:, independent]
                W = W[..., self.model.base.independent]
            C += np.einsum('kip,pq,kjq->kij', W, self.cov, W)
        idx = np.arange(n)
        C[:, idx, idx] += self.res_var + np.asarray(band) ** 2 / 3.0
        return C


# --- the estimator --------------------------------------------------------------------------
@dataclass
class EstimateResult:
    """One estimate. ``wrench`` = (fx, fy, fz, mx, my, mz) applied to the tool at the tool origin,
    in ``frame_id``; rows that the mode does not estimate are zero and their covariance too."""

    stamp_ns: int
    tau_ext: np.ndarray           # (n,) Nm, tared
    tau_ext_band: np.ndarray      # (n,) Nm half-width of the stiction interval on tau_ext
    wrench: np.ndarray            # (6,)
    wrench_covariance: np.ndarray  # (6, 6)
    contact_state: int            # CONTACT_NONE / CONTACT / COLLISION
    contact_score: float          # contact statistic / its threshold (1 = at it; see ContactDetector)
    sigma_min: float              # smallest singular value of the mapped Jacobian
    damped: bool                  # damping active (near a singularity)
    frame_id: str
    reset_reason: str | None = None

    @property
    def contact(self):
        return self.contact_state != CONTACT_NONE

    @property
    def collision(self):
        return self.contact_state == COLLISION


@dataclass
class BatchResult:
    """``WrenchEstimator.process`` output: arrays over the accepted samples."""

    stamp_ns: np.ndarray           # (N,)
    tau_ext: np.ndarray            # (N, n)
    wrench: np.ndarray             # (N, 6)
    wrench_std: np.ndarray         # (N, 6) square roots of the covariance diagonal
    contact_state: np.ndarray      # (N,) int
    sigma_min: np.ndarray          # (N,)
    frame_id: str
    index: np.ndarray              # (N,) index of each accepted sample in the input
    rejected: list = field(default_factory=list)   # (input index, reason)
    resets: list = field(default_factory=list)     # (input index, reason)


class WrenchEstimator:
    """External joint torque, tool wrench, its covariance and contact state from joint states.

    ``update`` takes one sample (stamp in ns, q, qd in rad and rad/s, measured torque in Nm, model
    joint order) and returns an ``EstimateResult``; it raises ``EstimatorInputError`` for a sample
    it will not use (state unchanged). ``process`` runs the same estimator over arrays (offline).
    """

    def __init__(self, model: IdentifiedModel, config: EstimatorConfig | None = None):
        self.model = model
        self.config = (config or EstimatorConfig()).validated()
        c = self.config
        self.robot = model.robot
        self.n = model.n
        self._pm, self._pd = self.robot.model, self.robot.data
        self._fid = self.robot.tool_frame_id
        self._ref = pin.LOCAL_WORLD_ALIGNED if c.frame == 'base' else pin.LOCAL
        self.frame_id = self._root_frame() if c.frame == 'base' else self.robot.tool_frame
        self.friction = StictionFriction(model.friction, c.stiction_velocity_rad_s)
        self.mapper = WrenchMapper(self.n, c.wrench_mode, c.sigma_guard, c.damping)
        if model.residual_std_nm is not None and np.all(np.isfinite(model.residual_std_nm)) \
                and np.all(np.asarray(model.residual_std_nm) > 0):
            self.residual_std_nm = np.asarray(model.residual_std_nm, dtype=float)
            self.threshold_source = 'model residual std'
        else:
            self.residual_std_nm = np.full(self.n, c.default_residual_std_nm)
            self.threshold_source = f'default residual std {c.default_residual_std_nm} Nm (model file has none)'
        contact_nm = (np.asarray(c.contact_threshold_nm, float) if c.contact_threshold_nm is not None
                      else c.contact_threshold_sigma * self.residual_std_nm)
        collision_nm = (np.asarray(c.collision_threshold_nm, float) if c.collision_threshold_nm is not None
                        else c.collision_threshold_sigma * self.residual_std_nm)
        for name, v in (('contact_threshold_nm', contact_nm), ('collision_threshold_nm', collision_nm)):
            if v.shape != (self.n,):
                raise ValueError(f'{name} needs {self.n} values, got {v.shape}')
        self.contact = ContactDetector(contact_nm, collision_nm, c.contact_release_ratio, c.contact_test,
                                       c.contact_threshold_sigma, c.collision_threshold_sigma)
        self.uncertainty = TorqueUncertainty(model, self.residual_std_nm)
        if c.method == 'momentum':
            self.residual = MomentumObserver(self.n, c.observer_gain_hz)
        else:
            self.residual = DirectResidual(self.n, c.direct_filter_hz)
        # the residual forgets the stuck-phase friction at its own bandwidth (see hold_band)
        self._band_rate = 2.0 * math.pi * (c.observer_gain_hz if c.method == 'momentum' else c.direct_filter_hz)
        self.bias = np.zeros(self.n)
        self.reset()

    def _joint_scale(self, band):
        """sqrt of the relative least-squares weight of each joint, 1 / (residual variance + band^2 / 3),
        normalised to 1 for the most certain joint (so the mapper's singular-value guard keeps its
        meaning); (n,) or (N, n)."""
        w = 1.0 / (self.residual_std_nm ** 2 + np.asarray(band) ** 2 / 3.0)
        return np.sqrt(w / w.max(axis=-1, keepdims=True))

    def _root_frame(self):
        m = self.robot.model
        # the URDF root link: the first BODY frame, else the universe frame's name
        for f in m.frames:
            if f.type == pin.FrameType.BODY:
                return f.name
        return m.frames[0].name

    # --- state --------------------------------------------------------------------------
    def reset(self, reason='reset'):
        """Restart the residual (observer state, filters) and contact state; keeps the tare."""
        self.residual.reset()
        self.contact.reset()
        self.last_stamp_ns = None
        self._avg = None
        self._qd_prev = None
        self._cov_stamp = None
        self._wrench_cov = np.zeros((6, 6))
        self._band_held = None
        self._held = None
        self.last_reset_reason = reason

    def tare(self):
        """Take the recent average tau_ext (before tare) as bias: the current reading becomes zero.
        With a stiction mode ('deadzone', 'hold') a resting joint's bias is only the part of its
        average outside its stiction band: inside, the residual is static friction that the next
        motion removes, not a bias (taking it would shift that joint by up to its band for good).
        Returns the bias (Nm); raises RuntimeError before any sample."""
        if self._avg is None:
            raise RuntimeError('cannot tare before the first joint state sample')
        self.bias = self._bias_from(self._avg, self._band_held)
        self._held = None
        return self.bias

    def _bias_from(self, avg, band):
        """The tare's bias from the average residual ``avg`` (Nm) and the stiction band then: all of
        it, or with a stiction mode only the part outside the band (see ``tare``)."""
        if self.config.stiction_mode != 'none' and band is not None:
            return deadzone(avg, band)
        return avg.copy()

    def clear_tare(self):
        self.bias = np.zeros(self.n)
        self._held = None

    def set_payload(self, mass_kg=None, com_m=(0.0, 0.0, 0.0)):
        """Attach a payload (kg, COM in the tool frame, m) at the tool, or remove it with None/0."""
        if mass_kg is None or float(mass_kg) == 0.0:
            self.model.set_payload(None)
            return
        com = np.asarray(com_m, dtype=float)
        if not (np.isfinite(mass_kg) and mass_kg > 0 and com.shape == (3,) and np.all(np.isfinite(com))):
            raise ValueError(f'payload needs a mass > 0 kg and a finite 3-vector COM, got {mass_kg}, {com_m}')
        self.model.set_payload(Payload(float(mass_kg), com))

    # --- one sample ---------------------------------------------------------------------
    def _check(self, q, qd, effort):
        n = self.n
        arrs = []
        for name, a in (('q', q), ('qd', qd), ('effort', effort)):
            a = np.array(a, dtype=float)
            if a.shape != (n,):
                raise EstimatorInputError('shape', f'{name} has shape {a.shape}, expected ({n},)')
            if not np.all(np.isfinite(a)):
                raise EstimatorInputError('nonfinite', f'{name} is NaN or inf')
            arrs.append(a)
        return arrs

    def _time(self, stamp_ns):
        """dt (s) to the previous sample, 0 after a reset; raises for a sample to drop."""
        c = self.config
        last = self.last_stamp_ns
        if last is None:
            return 0.0, None
        d = stamp_ns - last
        if d == 0:
            raise EstimatorInputError('duplicate_stamp', f'duplicate stamp {stamp_ns} ns')
        if d < 0:
            if -d >= c.time_jump_s * 1e9:
                self.reset(f'time jumped back {-d * 1e-9:.3f} s')
                return 0.0, self.last_reset_reason
            raise EstimatorInputError('out_of_order', f'stamp {-d * 1e-6:.3f} ms older than the previous sample')
        if d > c.max_gap_s * 1e9:
            self.reset(f'gap of {d * 1e-9:.3f} s in the input')
            return 0.0, self.last_reset_reason
        return d * 1e-9, None

    def _check_fast(self, q, qd, effort):
        """``_check`` for the common case (three length-n finite arrays) in one numpy call; anything
        else goes through ``_check`` for its error message."""
        try:
            a = np.array((q, qd, effort), dtype=float)
        except (ValueError, TypeError):
            return self._check(q, qd, effort)
        if a.shape != (3, self.n) or not np.isfinite(a).all():
            return self._check(q, qd, effort)
        return a[0], a[1], a[2]

    def update(self, stamp_ns, q, qd, effort_nm) -> EstimateResult:
        q, qd, tau_m = self._check_fast(q, qd, effort_nm)
        stamp_ns = int(stamp_ns)
        dt, reason = self._time(stamp_ns)
        c = self.config
        m, d = self._pm, self._pd
        qp = self.robot.q_pin(q)
        pin.crba(m, d, qp, pin.Convention.WORLD)     # M and the joint Jacobians (one forward pass)
        M = d.M.copy()
        pin.nonLinearEffects(m, d, qp, qd)
        J = pin.getFrameJacobian(m, d, self._fid, self._ref)
        f, band = self.friction(qd)
        if self._band_held is not None and dt > 0.0:
            held = self._band_held * math.exp(-self._band_rate * dt)
            held[held < BAND_ZERO_NM] = 0.0
            band = np.maximum(band, held)
        self._band_held = band
        u = d.nle + f - tau_m
        r = self.residual.step(dt, M, qd, u)
        self.last_stamp_ns = stamp_ns
        # running average for tare (first-order, time constant tare_window_s)
        if self._avg is None or dt == 0.0:
            self._avg = r.copy()
        else:
            b = dt / (dt + c.tare_window_s) if c.tare_window_s > 0 else 1.0
            self._avg += b * (r - self._avg)
        tau = r - self.bias
        if c.stiction_mode == 'hold':
            self._held = deadzone(tau, band) if self._held is None else stiction_hold(tau, band, self._held)
            tau_map = self._held
        elif c.stiction_mode == 'deadzone':
            tau_map = deadzone(tau, band)
        else:
            tau_map = tau
        if c.band_weighting:
            sw = self._joint_scale(band)
            wrench, smin, damped = self.mapper.map_one(J * sw, tau_map * sw)
        else:
            sw = None
            wrench, smin, damped = self.mapper.map_one(J, tau_map)
        det = self.contact
        s_c, s_k = det.scores(tau, band)
        s_c, s_k = float(s_c), float(s_k)
        state = det.step(s_c, s_k)
        # covariance, at a reduced rate
        if self._cov_stamp is None or (stamp_ns - self._cov_stamp) >= c.covariance_period_s * 1e9:
            qdd = (qd - self._qd_prev) / dt if (self._qd_prev is not None and dt > 0) else np.zeros(self.n)
            Ct = self.uncertainty.torque_covariance(q[None], qd[None], qdd[None], band[None])[0]
            A = self.mapper._svd_matrices(J)[0] if sw is None else self.mapper._svd_matrices(J * sw)[0] * sw
            self._wrench_cov = A @ Ct @ A.T
            self._cov_stamp = stamp_ns
        self._qd_prev = qd
        return EstimateResult(stamp_ns, tau, band, wrench, self._wrench_cov, state, s_c, smin,
                              damped, self.frame_id, reason)

    # --- many samples -------------------------------------------------------------------
    def process(self, stamp_ns, Q, QD, E, tare_at_s=None, progress=None) -> BatchResult:
        """Run the estimator over N samples (arrays in model order; effort in Nm).

        Samples with NaN/inf, duplicate or slightly older stamps are rejected (listed); a stamp
        jumping back by more than ``time_jump_s`` or a gap over ``max_gap_s`` restarts the
        residual, as ``update`` does. Starts from a reset estimator (the tare is kept). With ``tare_at_s``, tares at the first sample that many
        seconds after the start (all later samples are tared). The numbers equal ``update``'s.
        ``progress(done, total)`` is called now and then.
        """
        c = self.config
        stamp_ns = np.asarray(stamp_ns, dtype=np.int64)
        Q, QD, E = (np.asarray(a, dtype=float) for a in (Q, QD, E))
        N0, n = Q.shape
        if QD.shape != Q.shape or E.shape != Q.shape or stamp_ns.shape != (N0,) or n != self.n:
            raise EstimatorInputError('shape', f'expected (N, {self.n}) arrays and N stamps, got '
                                      f'{Q.shape}, {QD.shape}, {E.shape}, {stamp_ns.shape}')
        finite = np.all(np.isfinite(Q), 1) & np.all(np.isfinite(QD), 1) & np.all(np.isfinite(E), 1)
        rejected, resets = [], []
        keep = np.zeros(N0, dtype=bool)
        seg_start = np.zeros(N0, dtype=bool)
        self.reset('process')
        last = None
        jump_ns, gap_ns = c.time_jump_s * 1e9, c.max_gap_s * 1e9
        for k, (s, ok) in enumerate(zip(stamp_ns.tolist(), finite.tolist())):   # sequential stamp logic
            if not ok:
                rejected.append((k, 'q, qd or effort is NaN or inf'))
                continue
            if last is None:
                seg_start[k] = True
            else:
                dd = s - last
                if dd == 0:
                    rejected.append((k, 'duplicate stamp'))
                    continue
                if dd < 0:
                    if -dd < jump_ns:
                        rejected.append((k, 'stamp older than the previous sample'))
                        continue
                    resets.append((k, f'time jumped back {-dd * 1e-9:.3f} s'))
                    seg_start[k] = True
                elif dd > gap_ns:
                    resets.append((k, f'gap of {dd * 1e-9:.3f} s in the input'))
                    seg_start[k] = True
            keep[k] = True
            last = s
        idx = np.flatnonzero(keep)
        S, Q, QD, E, starts = stamp_ns[idx], Q[idx], QD[idx], E[idx], seg_start[idx]
        N = len(idx)
        if N == 0:
            return BatchResult(S, np.zeros((0, n)), np.zeros((0, 6)), np.zeros((0, 6)), np.zeros(0, int),
                               np.zeros(0), self.frame_id, idx, rejected, resets)
        # Pinocchio terms, one call pair per sample
        Ms = np.empty((N, n, n))
        H = np.empty((N, n))
        Js = np.empty((N, 6, n))
        m, d, fid, ref, qpin = self._pm, self._pd, self._fid, self._ref, self.robot.q_pin
        crba, nle, gfj, world = pin.crba, pin.nonLinearEffects, pin.getFrameJacobian, pin.Convention.WORLD
        step = max(1, N // 20)
        q0 = Q[0]
        QP = Q if qpin(q0) is q0 else np.array([qpin(q) for q in Q])   # no continuous joints: as is
        for k0 in range(0, N, step):       # in chunks, for progress
            k1 = min(k0 + step, N)
            if progress is not None:
                progress(k0, N)
            for qk, qdk, Mk, Hk, Jk in zip(QP[k0:k1], QD[k0:k1], Ms[k0:k1], H[k0:k1], Js[k0:k1]):
                Mk[...] = crba(m, d, qk, world)     # also the joint Jacobians getFrameJacobian reads
                Hk[...] = nle(m, d, qk, qdk)
                Jk[...] = gfj(m, d, fid, ref)
        F, band = self.friction(QD)
        U = H + F - E
        dt = np.zeros(N)
        dt[1:] = (S[1:] - S[:-1]) * 1e-9
        dt[starts] = 0.0
        band = hold_band(band, dt, self._band_rate, starts)
        R = np.empty((N, n))
        seg = np.flatnonzero(starts)
        seg_end = np.r_[seg[1:], N]
        for s0, s1 in zip(seg, seg_end):
            if c.method == 'momentum':
                R[s0:s1] = momentum_observer_batch(self.residual.K, dt[s0:s1], Ms[s0:s1], QD[s0:s1], U[s0:s1])
            else:
                self.residual.reset()
                for k in range(s0, s1):
                    R[k] = self.residual.step(dt[k], Ms[k], QD[k], U[k])
        # tare
        T = R - self.bias
        restart = starts.copy()         # where the stiction hold starts afresh
        if tare_at_s is not None:
            k_t = int(np.searchsorted(S, S[0] + int(tare_at_s * 1e9)))
            if k_t < N:
                avg = R[k_t].copy()
                if c.tare_window_s > 0:   # the same running average as update()
                    avg = R[seg[seg <= k_t][-1]].copy()
                    for k in range(seg[seg <= k_t][-1] + 1, k_t + 1):
                        b = dt[k] / (dt[k] + c.tare_window_s)
                        avg += b * (R[k] - avg)
                self.bias = self._bias_from(avg, band[k_t])
                T[k_t:] = R[k_t:] - self.bias
                restart[k_t] = True
        if c.band_weighting:
            sw = self._joint_scale(band)                      # (N, n)
            A, smin, _ = self.mapper.matrices(Js * sw[:, None, :])
            A = A * sw[:, None, :]                            # wrench = A tau in the original joint units
        else:
            A, smin, _ = self.mapper.matrices(Js)
        if c.stiction_mode == 'hold':
            Tm = stiction_hold_batch(T, band, restart)
        elif c.stiction_mode == 'deadzone':
            Tm = deadzone(T, band)
        else:
            Tm = T
        W = np.einsum('kij,kj->ki', A, Tm)
        sc, sk = self.contact.scores(T, band)
        states = self.contact.states(sc, sk, starts)
        # covariance at covariance_period_s, held in between (as update() does): in each segment the
        # first sample, then each first sample at least the period after the last one
        period_ns = math.ceil(c.covariance_period_s * 1e9)    # integer stamp differences: d >= p <=> d >= ceil(p)
        cov_idx = []
        for s0, s1 in zip(seg.tolist(), seg_end.tolist()):
            rel = S[s0:s1] - S[s0]                             # increasing within a segment
            nxt = np.searchsorted(rel, rel + period_ns).tolist()
            k = 0
            while k < s1 - s0:
                cov_idx.append(s0 + k)
                k = nxt[k]
        cov_idx = np.array(cov_idx)
        qdd = np.zeros((len(cov_idx), n))
        prev_ok = (cov_idx > 0) & ~starts[cov_idx]
        ci = cov_idx[prev_ok]
        qdd[prev_ok] = (QD[ci] - QD[ci - 1]) / dt[ci][:, None]
        Ct = self.uncertainty.torque_covariance(Q[cov_idx], QD[cov_idx], qdd, band[cov_idx])
        Ak = A[cov_idx]
        var = np.einsum('kij,kjl,kil->ki', Ak, Ct, Ak)
        which = np.searchsorted(cov_idx, np.arange(N), side='right') - 1
        wstd = np.sqrt(np.maximum(var[which], 0.0))
        if progress is not None:
            progress(N, N)
        self.reset('process done')   # process() starts from and leaves a reset estimator (tare kept)
        return BatchResult(S, T, W, wstd, states, smin, self.frame_id, idx, rejected, resets)


def config_with(config: EstimatorConfig, **changes) -> EstimatorConfig:
    """A validated copy of ``config`` with some fields changed."""
    return replace(config, **changes).validated()
