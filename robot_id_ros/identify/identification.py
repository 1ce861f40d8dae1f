"""Identification of the dynamic model from joint states (ROS-free).

Three data kinds, each optional (at least one of trajectories or static poses is needed):

* **trajectories** (seed 001, Swevers et al. 1997): excitation runs. Positions are resampled to
  a uniform grid, then differentiated zero-phase (``core.signals``): by the exact band-limited
  Fourier series when the run is periodic (period from the sidecar's ``excitation_period``
  segments or detected), else by Savitzky-Golay at ``cutoff_hz``. The measured torque enters the
  fit *as recorded* (not filtered): the regressor is band-limited, so the least-squares projection
  filters it anyway, and the residual stays white, which keeps the confidence intervals honest.
  The fit is on base parameters (``BaseParameters``) with friction and optionally rotor inertia
  and offsets, by OLS or WLS with per-joint noise variance (iterated from the OLS residual),
  with column scaling (eq. 25-26), a damped-least-squares prior toward the URDF values
  (eq. 27-29), subtraction of known standard parameters (eq. 16-18) and confidence intervals from
  the covariance (eq. 20-22). The normal equations are accumulated per joint in chunks, so memory
  does not grow with the record and per-joint residuals come out exactly.
* **static poses** (seeds 000, 003): averaged efforts at rest, fitted with the static (gravity)
  regressor truncated to the combinations the poses identify; combinations the poses do not
  excite are dropped (kept at the URDF value) and reported. A point-mass model (weightless rods,
  point masses, potential energy differentiated) is offered as a baseline.
* **friction sweeps** (seed 000): constant-velocity passes forward and backward over the same
  positions; half their difference at matched positions is pure friction (gravity cancels),
  fitted per joint as Coulomb + viscous (+ Stribeck).

``identify`` runs the whole thing and returns an ``IdentificationResult`` holding the
``IdentifiedModel`` to save.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import scipy.optimize
import scipy.stats

from robot_id_ros.identify import signals
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.model.base_parameters import BaseParameters, base_parameters_of, random_states
from robot_id_ros.model.friction import SIGN_VELOCITY_RAD_S_DEFAULT, FrictionModel
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.io.model_file import IdentifiedModel
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.errors import InputError


class IdentificationError(InputError):
    """Data or options that cannot give a model; the message says what is wrong and what to do."""


# candidate Stribeck velocities (rad/s) when the Stribeck column's velocity is chosen by the fit
STRIBECK_VELOCITY_GRID_RAD_S = (0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3)


# ---------------------------------------------------------------------------------------------
# options
# ---------------------------------------------------------------------------------------------
@dataclass
class IdentificationOptions:
    """How to identify. Defaults suit joint-torque data; see each field."""

    # model structure
    friction: bool = True                 # Coulomb + viscous per joint
    coulomb_asymmetric: bool = False      # fc+ / fc- instead of one fc
    offset: bool = True                   # constant torque offset per joint
    rotor_inertia: bool = False           # reflected rotor inertia per joint
    sign_velocity_rad_s: float = SIGN_VELOCITY_RAD_S_DEFAULT
    stribeck_column: bool = False         # a Stribeck column fs * s * exp(-(qd/vs)^2) per joint (linear in fs)
    stribeck_velocity_rad_s: float | None = None  # vs of that column; None: from the sweeps' Stribeck fit
    #                                       when they have one, else the best of a grid by the fit residual
    # rows left out of the fit (and of the in-motion validation metric)
    min_velocity_rad_s: float = 0.0       # joint j's row of a sample is left out where |qd_j| < this (the
    #                                       stick / Stribeck regime the friction model cannot represent); 0: none
    min_velocity_scope: str = 'joint'     # 'joint': only joint j's own velocity; 'all': any joint below it
    #                                       (a stuck joint's kink also corrupts the coupled joints' qdd)
    min_velocity_margin_s: float = 0.0    # also leave out rows within this time of such a sample
    # estimator
    weighting: str = 'wls'                # 'ols' or 'wls' (per-joint noise variance)
    column_scaling: bool = True           # eq. 25-26
    prior_weight: float = 0.0             # eq. 27-29: damping toward the URDF (0 = none); relative to a unit column
    known_parameters: dict = field(default_factory=dict)   # eq. 16-18: {standard name: value}
    confidence: float = 0.95
    max_condition: float = 1e5            # scaled condition number above which the data are rank deficient
    # signal processing
    derivative_method: str = 'auto'       # 'auto' (periodic if periodic), 'periodic', 'savgol', 'spline', 'central'
    cutoff_hz: float | None = None        # position band limit; None: from the spectrum (periodic) or 10 Hz
    torque_cutoff_hz: float | None = None  # for the filtered validation metric; None: cutoff_hz
    period_s: float | None = None         # excitation period; None: sidecar or detected
    sidecar_window: bool = False          # non-periodic methods too: keep only the sidecar's excitation periods
    resample_hz: float | None = None      # None: the median input rate
    max_samples: int | None = None        # decimate processed trajectories to at most this many samples
    trim_s: float | None = None           # dropped at both ends of non-periodic data; None: 1/cutoff
    torque_filter: bool = False           # fit the torque low-passed at the position cut-off (parallel filtering)
    velocity_source: str = 'position'     # 'position' (differentiate q) or 'measured' (filter and differentiate qd)
    effort_unit: str = 'torque'           # 'torque' (Nm) or 'current' (A, needs drive_gains)
    drive_gains_nm_per_a: list | None = None
    # static poses
    static_min_duration_s: float = 0.5
    static_velocity_threshold_rad_s: float = 0.005
    static_offset: bool = False           # a torque offset per joint in the static fit
    # sweeps
    stribeck: bool = False
    # physical consistency
    physical_consistency: bool = False
    chunk_samples: int = 4000

    def regressor_options(self) -> RegressorOptions:
        vs = self.stribeck_velocity_rad_s
        return RegressorOptions(friction=self.friction, coulomb_asymmetric=self.coulomb_asymmetric,
                                offset=self.offset, rotor_inertia=self.rotor_inertia,
                                sign_velocity_rad_s=self.sign_velocity_rad_s,
                                stribeck=bool(self.stribeck_column and self.friction),
                                stribeck_velocity_rad_s=float(vs) if vs is not None else 0.1)

    def to_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})

    def check(self):
        if self.weighting not in ('ols', 'wls'):
            raise IdentificationError(f'weighting must be "ols" or "wls", got {self.weighting!r}')
        if self.derivative_method not in ('auto', 'periodic', 'savgol', 'spline', 'central'):
            raise IdentificationError(f'unknown derivative method {self.derivative_method!r}; use auto, '
                                      'periodic, savgol, spline or central')
        if self.effort_unit not in ('torque', 'current'):
            raise IdentificationError(f'effort_unit must be "torque" or "current", got {self.effort_unit!r}')
        if self.effort_unit == 'current' and self.drive_gains_nm_per_a is None:
            raise IdentificationError('effort_unit "current" needs drive gains (Nm/A per joint): give '
                                      '--drive-gains or a model that has them')
        if not 0 < self.confidence < 1:
            raise IdentificationError('confidence must be in (0, 1)')
        if self.prior_weight < 0:
            raise IdentificationError('prior_weight must be >= 0')
        if not self.min_velocity_rad_s >= 0 or not self.min_velocity_margin_s >= 0:
            raise IdentificationError('min_velocity_rad_s and min_velocity_margin_s must be >= 0')
        if self.min_velocity_scope not in ('joint', 'all'):
            raise IdentificationError(f'min_velocity_scope must be "joint" or "all", got {self.min_velocity_scope!r}')
        if self.stribeck_column and not self.friction:
            raise IdentificationError('stribeck_column needs friction')
        if self.stribeck_velocity_rad_s is not None and not self.stribeck_velocity_rad_s > 0:
            raise IdentificationError('stribeck_velocity_rad_s must be > 0 (or None: from the sweeps or the fit)')


def motion_mask(qd, rate_hz, min_velocity_rad_s, scope='joint', margin_s=0.0):
    """(N, n) bool, True where joint j's row of a sample is kept: |qd_j| >= ``min_velocity_rad_s``
    (``scope`` 'joint'), or every joint's |qd| >= it (``scope`` 'all'), and no such slow sample within
    ``margin_s``. All True when ``min_velocity_rad_s`` is 0."""
    qd = np.atleast_2d(np.asarray(qd, float))
    if not min_velocity_rad_s > 0:
        return np.ones(qd.shape, dtype=bool)
    slow = np.abs(qd) < min_velocity_rad_s
    if scope == 'all':
        slow = np.repeat(slow.any(axis=1, keepdims=True), qd.shape[1], axis=1)
    k = int(round(margin_s * rate_hz)) if rate_hz else 0
    if k > 0 and slow.any():
        import scipy.ndimage
        slow = scipy.ndimage.binary_dilation(slow, structure=np.ones((2 * k + 1, 1), dtype=bool))
    return ~slow


def effort_to_torque(effort, options: IdentificationOptions, n):
    """Effort as recorded -> joint torque in Nm (current times drive gain when in current)."""
    if options.effort_unit == 'torque':
        return np.asarray(effort, dtype=float)
    g = np.asarray(options.drive_gains_nm_per_a, dtype=float)
    if g.shape != (n,):
        raise IdentificationError(f'need {n} drive gains, got {g.shape}')
    return np.asarray(effort, dtype=float) * g


def _check_series(series: JointStateSeries, robot: RobotModel, what):
    if tuple(series.joint_names) != tuple(robot.joint_names):
        raise IdentificationError(f'{what} {series.source or ""}: joints {", ".join(series.joint_names)} do not '
                                  f'match the model joints {", ".join(robot.joint_names)}')
    if series.effort is None:
        raise IdentificationError(f'{what} {series.source or ""} has no effort: identification needs measured '
                                  'torque or current in JointState.effort')
    if len(series) < 10:
        raise IdentificationError(f'{what} {series.source or ""} has only {len(series)} samples')
    bad = robot.check_in_limits(np.median(series.q, axis=0), margin_rad=-0.5)
    if len(bad) == robot.n:
        raise IdentificationError(f'{what} {series.source or ""}: positions are far outside the URDF limits of '
                                  f'every joint: is this the right URDF?')


# ---------------------------------------------------------------------------------------------
# trajectories: resample, differentiate
# ---------------------------------------------------------------------------------------------
@dataclass
class Trajectory:
    """One processed trajectory on a uniform grid: states, torque as recorded (Nm)."""

    t_s: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    rate_hz: float
    method: str
    cutoff_hz: float
    period_s: float | None = None
    source: str = ''
    cycles: int = 0
    noise_variance: np.ndarray | None = None   # per joint, from cycle averaging (eq. 31-32)
    notes: list = field(default_factory=list)

    def __len__(self):
        return len(self.t_s)

    def decimated(self, max_samples):
        if max_samples is None or len(self) <= max_samples:
            return self
        k = int(np.ceil(len(self) / max_samples))
        s = slice(None, None, k)
        return Trajectory(self.t_s[s], self.q[s], self.qd[s], self.qdd[s], self.tau[s], self.rate_hz / k,
                          self.method, self.cutoff_hz, self.period_s, self.source, self.cycles,
                          self.noise_variance, self.notes + [f'decimated by {k}'])


def _periodic_window(series, sidecar):
    """(t0_ns, t1_ns, period_s) from the sidecar's excitation_period segments, or None."""
    if not sidecar:
        return None
    segs = [s for s in sidecar.get('segments', []) if s.get('type') == 'excitation_period']
    if not segs:
        return None
    segs.sort(key=lambda s: s['t_start_ns'])
    durations = np.array([(s['t_end_ns'] - s['t_start_ns']) * 1e-9 for s in segs])
    return segs[0]['t_start_ns'], segs[-1]['t_end_ns'], float(np.median(durations))


def _acceleration_bandwidth(q, rate, period_s, snr=30.0):
    """Cut-off (Hz) just above the highest harmonic of the period that stands out of the noise.

    Over the whole cycles of ``q``, the amplitude of every harmonic k/period is compared with the
    noise floor (median amplitude of the upper half of the harmonics, or of the bins between
    harmonics if larger); harmonics more than ``snr`` times the floor are signal.
    """
    P = period_s * rate
    m = int(np.floor(len(q) / P + 1e-9))
    if m < 1:
        return None
    L = int(round(m * P))
    F = np.abs(np.fft.rfft(q[:L] - q[:L].mean(axis=0), axis=0))
    bins = np.arange(F.shape[0])
    harm = bins[::m][1:]
    if len(harm) < 4:
        return None
    # periodic noise (e.g. encoder quantisation of an exactly repeated motion) sits on the harmonics
    # too: the floor is the larger of the between-harmonics median and the upper-half-harmonics median
    floor = np.median(F[harm[len(harm) // 2:]], axis=0)
    if m >= 2:
        floor = np.maximum(floor, np.median(F[np.setdiff1d(bins[1:], harm)], axis=0))
    strong = (F[harm] > snr * np.maximum(floor, 1e-300)).any(axis=1)
    if not strong.any():
        return None
    K = int(harm[np.flatnonzero(strong)[-1]] // m)
    return (K + 0.5) / period_s


def _refine_period(Q, P0, harmonics=15, max_points=4000):
    """Period (samples) minimising the misfit of a ``harmonics``-term Fourier series to Q, searched
    within +-1 % of ``P0``: with few cycles the autocorrelation peak is not precise enough for
    exact periodic differentiation (a wrong period leaks into every harmonic)."""
    N = Q.shape[0]
    step = max(1, N // max_points)
    idx = np.arange(0, N, step)
    Y = Q[idx] - Q[idx].mean(axis=0)
    k = np.arange(1, harmonics + 1)

    def misfit(P):
        ph = np.outer(idx * (2 * np.pi / P), k)
        B = np.hstack([np.ones((len(idx), 1)), np.cos(ph), np.sin(ph)])
        c, *_ = np.linalg.lstsq(B, Y, rcond=None)
        return float(np.sum((Y - B @ c) ** 2))

    r = scipy.optimize.minimize_scalar(misfit, bounds=(0.99 * P0, 1.01 * P0), method='bounded',
                                       options={'xatol': 1e-3})
    return float(r.x) if r.success and misfit(r.x) <= misfit(P0) else float(P0)


def _is_periodic(q, rate):
    """Detected period (s) when q repeats (>= 2 cycles, cycle mismatch < 2 % of its spread), else None."""
    try:
        P = signals.detect_period(q, rate)
    except (signals.SignalError, IndexError):  # IndexError: detect_period when every peak is negative
        return None
    if P < 10 or len(q) < 2 * P * 0.98:
        return None
    Pi = int(round(P))
    a, b = q[:Pi], q[Pi:2 * Pi] if len(q) >= 2 * Pi else q[len(q) - Pi:]
    spread = np.std(q, axis=0).max()
    mismatch = np.sqrt(np.mean((a - b) ** 2))
    if spread <= 0 or mismatch > 0.02 * spread:
        return None
    return P / rate


def prepare_trajectory(series: JointStateSeries, options: IdentificationOptions, sidecar=None,
                       robot: RobotModel | None = None) -> Trajectory:
    """Uniform resampling, zero-phase derivatives, torque in Nm. See the module docstring."""
    if robot is not None:
        _check_series(series, robot, 'trajectory')
    n = len(series.joint_names)
    tau = effort_to_torque(series.effort, options, n)
    window = (_periodic_window(series, sidecar)
              if options.derivative_method in ('auto', 'periodic') or options.sidecar_window else None)
    notes = []
    if window is not None:
        t0, t1, period_from_sidecar = window
        series = series.slice_stamp(t0, t1)
        tau = effort_to_torque(series.effort, options, n)
        notes.append(f'excitation periods from the sidecar: {period_from_sidecar:.4g} s')
        if options.derivative_method not in ('auto', 'periodic'):
            window = None  # the window is applied; the periodic path does not follow
    use_v = options.velocity_source == 'measured'
    if use_v and series.qd is None:
        raise IdentificationError(f'trajectory {series.source} has no velocity; use velocity_source "position"')
    try:
        res = signals.resample_uniform(series.t_s, np.hstack([series.q, tau] + ([series.qd] if use_v else [])),
                                       options.resample_hz)
    except signals.SignalError as exc:
        raise IdentificationError(f'trajectory {series.source}: {exc}') from exc
    rate = res.rate_hz
    Q, TAU = res.X[:, :n], res.X[:, n:2 * n]
    V = res.X[:, 2 * n:] if use_v else None
    t = res.t_s - res.t_s[0]
    if res.gaps:
        notes.append(res.report())
    method = options.derivative_method
    period = options.period_s
    if method in ('auto', 'periodic'):
        if period is None and window is not None:
            period = window[2]
        if period is None:
            period = _is_periodic(Q, rate)
        if period is None:
            if method == 'periodic':
                raise IdentificationError(f'trajectory {series.source}: no period found; give period_s, or use a '
                                          'non-periodic derivative method (savgol)')
            method = 'savgol'
        else:
            method = 'periodic'
    if method == 'periodic':
        P = period * rate
        if window is None:
            # refine the period on the data and drop a partial cycle at the end
            try:
                P = signals.detect_period(Q, rate, approx_period_s=period, search_fraction=0.05)
            except (signals.SignalError, IndexError):
                pass
            P = _refine_period(Q, P)
            if abs(P - round(P)) < 0.02:   # a whole number of samples: the exact FFT path
                P = float(round(P))
            period = P / rate
        cycles = int(np.floor(len(t) / P + 1e-6))
        if cycles < 1:
            raise IdentificationError(f'trajectory {series.source}: shorter than one period ({period:.3g} s)')
        L = min(len(t), int(np.floor(cycles * P + 1e-6)))
        Q, TAU, t = Q[:L], TAU[:L], t[:L]
        V = V[:L] if V is not None else None
        cutoff = options.cutoff_hz or _acceleration_bandwidth(Q, rate, period) or 0.1 * rate
        cutoff = min(cutoff, 0.45 * rate)
        try:
            Qf, QD, QDD = signals.periodic_derivatives(Q, rate, period, cutoff)
            if V is not None:
                QD, QDD, _ = signals.periodic_derivatives(V, rate, period, cutoff)
        except signals.SignalError as exc:
            raise IdentificationError(f'trajectory {series.source}: {exc}') from exc
        if options.torque_filter:
            TAU = signals.periodic_lowpass(TAU, rate, period, min(2 * cutoff, 0.45 * rate))
        noise = None
        if cycles >= 4:
            try:
                noise = np.atleast_1d(signals.cycle_average(TAU, P).noise_variance)
            except signals.SignalError:
                noise = None
        return Trajectory(t, Qf, QD, QDD, TAU, rate, 'periodic', float(cutoff), float(period), series.source,
                          cycles, noise, notes)
    cutoff = options.cutoff_hz or min(10.0, 0.2 * rate)
    try:
        Qf, QD, QDD = signals.derivatives(Q, rate, cutoff, method=method)
        if V is not None:
            QD, QDD, _ = signals.derivatives(V, rate, cutoff, method=method)
    except signals.SignalError as exc:
        raise IdentificationError(f'trajectory {series.source}: {exc}') from exc
    if options.torque_filter:
        TAU = signals.lowpass_zero_phase(TAU, rate, cutoff)
    trim_s = options.trim_s if options.trim_s is not None else 1.0 / cutoff
    k = min(int(round(trim_s * rate)), len(t) // 10)
    s = slice(k, len(t) - k if k else None)
    return Trajectory(t[s], Qf[s], QD[s], QDD[s], TAU[s], rate, method, float(cutoff), None, series.source, 0,
                      None, notes)


# ---------------------------------------------------------------------------------------------
# static poses
# ---------------------------------------------------------------------------------------------
@dataclass
class StaticPoses:
    """Averaged static holds: q (P, n) rad, tau (P, n) Nm, tau_std (P, n), samples (P,), approach (P,)."""

    q: np.ndarray
    tau: np.ndarray
    tau_std: np.ndarray
    samples: np.ndarray
    approach: np.ndarray
    source: str = ''

    def __len__(self):
        return len(self.q)

    @classmethod
    def concatenate(cls, items):
        items = list(items)
        if not items:
            raise IdentificationError('no static poses')
        return cls(*(np.concatenate([getattr(p, f) for p in items]) for f in
                     ('q', 'tau', 'tau_std', 'samples', 'approach')), source=', '.join(p.source for p in items))


def static_poses(series: JointStateSeries, options: IdentificationOptions, sidecar=None,
                 robot: RobotModel | None = None) -> StaticPoses:
    """Static holds of a bag: the sidecar's ``static_hold`` segments (averaged over their window in
    the bag) or, without a sidecar, stretches where every joint rests (|qd| below the threshold) for
    at least ``static_min_duration_s``; the middle 60 % of each is averaged."""
    if robot is not None:
        _check_series(series, robot, 'static bag')
    n = len(series.joint_names)
    tau = effort_to_torque(series.effort, options, n)
    windows = []
    if sidecar:
        for s in sidecar.get('segments', []):
            if s.get('type') == 'static_hold':
                m = (series.stamp_ns >= s['t_start_ns']) & (series.stamp_ns <= s['t_end_ns'])
                windows.append((np.flatnonzero(m), int(s.get('approach', 0) or 0)))
    else:
        t = series.t_s
        if series.qd is not None:
            v = np.abs(series.qd).max(axis=1)
        else:
            v = np.abs(np.gradient(series.q, t, axis=0)).max(axis=1)
            if len(t) > 5:
                v = np.convolve(v, np.ones(5) / 5, mode='same')
        rest = v < options.static_velocity_threshold_rad_s
        edges = np.flatnonzero(np.diff(np.concatenate([[0], rest.astype(int), [0]])))
        for a, b in zip(edges[::2], edges[1::2]):
            if t[b - 1] - t[a] >= options.static_min_duration_s:
                L = b - a
                idx = np.arange(a + int(0.2 * L), b - int(0.2 * L))
                # approach direction: sign of the motion before the hold (summed over joints)
                pre = series.q[a] - series.q[max(0, a - max(1, L // 4))]
                approach = int(np.sign(pre[np.argmax(np.abs(pre))])) if np.any(pre) else 0
                windows.append((idx, approach))
    rows = [(series.q[i].mean(0), tau[i].mean(0), tau[i].std(0), len(i), a) for i, a in windows if len(i) >= 3]
    if not rows:
        raise IdentificationError(f'static bag {series.source}: no static hold found (need every joint at rest, '
                                  f'|qd| < {options.static_velocity_threshold_rad_s} rad/s, for '
                                  f'{options.static_min_duration_s} s, or a sidecar with static_hold segments)')
    q, tm, ts, cnt, ap = (np.array(x) for x in zip(*rows))
    return StaticPoses(q, tm, ts, cnt, ap, series.source)


# ---------------------------------------------------------------------------------------------
# base parameters with known parameters removed
# ---------------------------------------------------------------------------------------------
def free_columns(regressor: Regressor, known: dict):
    idx = {nm: i for i, nm in enumerate(regressor.names)}
    unknown = [k for k in known if k not in idx]
    if unknown:
        raise IdentificationError(f'known parameter(s) {", ".join(unknown)} are not parameters of this model '
                                  f'(names like m3, mx2, ZZ1, fv2: see robot-id describe)')
    known_idx = np.array(sorted(idx[k] for k in known), dtype=int)
    free = np.array([i for i in range(regressor.p) if i not in set(known_idx)], dtype=int)
    return free, known_idx


def structural_base(regressor: Regressor, free, static=False, seed=0) -> BaseParameters:
    """Base parameters of the free columns (index space of the full standard vector)."""
    rng = np.random.default_rng(seed)
    samples = max(60, int(4 * regressor.p / regressor.n) + 20)
    Q, QD, QDD = random_states(regressor, samples, rng)
    W = regressor.static(Q) if static else regressor.stack(Q, QD, QDD)
    if static:
        cols = set(regressor.static_columns().tolist())
        free = np.array([c for c in free if c in cols], dtype=int)
    order_full = regressor.grouping_order()
    pos = {c: i for i, c in enumerate(free)}
    order = np.array([pos[c] for c in order_full if c in pos], dtype=int)
    sub = base_parameters_of(W[:, free], [regressor.names[c] for c in free], order)
    return BaseParameters(regressor.names, free[sub.independent], free[sub.dependent], sub.K, sub.tolerance)


def base_matrix(base: BaseParameters, p):
    """B (b x p) with beta = B theta (the to_base map as a matrix)."""
    B = np.zeros((base.n_base, p))
    B[np.arange(base.n_base), base.independent] = 1.0
    if len(base.dependent):
        B[:, base.dependent] = base.K
    return B


# ---------------------------------------------------------------------------------------------
# least squares machinery
# ---------------------------------------------------------------------------------------------
@dataclass
class NormalEquations:
    """Per-joint normal equations of y_j = W_j beta over all samples: A[j] = W_j' W_j,
    c[j] = W_j' y_j, yy[j] = y_j' y_j, count[j] rows."""

    A: np.ndarray
    c: np.ndarray
    yy: np.ndarray
    count: np.ndarray

    @classmethod
    def zeros(cls, n, b):
        return cls(np.zeros((n, b, b)), np.zeros((n, b)), np.zeros(n), np.zeros(n, dtype=int))

    def add(self, Wb, Y, mask=None):
        """Wb (N*n, b) sample-major, Y (N, n); ``mask`` (N, n) bool: only rows where True."""
        n = self.A.shape[0]
        W3 = Wb.reshape(-1, n, Wb.shape[1])
        for j in range(n):
            Wj = W3[:, j, :]
            yj = Y[:, j]
            if mask is not None:
                Wj, yj = Wj[mask[:, j]], yj[mask[:, j]]
            self.A[j] += Wj.T @ Wj
            self.c[j] += Wj.T @ yj
            self.yy[j] += yj @ yj
            self.count[j] += len(yj)

    def residual_ss(self, beta):
        """Per-joint residual sum of squares at beta (exact up to round-off)."""
        return np.maximum(self.yy - 2 * self.c @ beta + np.einsum('i,jik,k->j', beta, self.A, beta), 0.0)

    def __iadd__(self, other):
        self.A += other.A
        self.c += other.c
        self.yy += other.yy
        self.count += other.count
        return self


def accumulate(regressor: Regressor, columns, Q, QD, QDD, TAU, known_idx=(), known_values=(),
               chunk=4000, neq=None, progress=None, mask=None, stribeck_velocities=None):
    """Normal equations of TAU - W[:, known] theta_known = W[:, columns] beta, over the rows where
    ``mask`` (N, n) is True (all when None).

    ``stribeck_velocities``: a list of Stribeck velocities; then ``neq`` is (or is returned as) a list
    of normal equations, one per velocity, the Stribeck columns ``fs`` recomputed for each (the
    rigid-body regressor is computed once)."""
    N = Q.shape[0]
    known_idx = np.asarray(known_idx, dtype=int)
    multi = stribeck_velocities is not None
    if multi:
        neqs = neq if neq is not None else [NormalEquations.zeros(regressor.n, len(columns))
                                            for _ in stribeck_velocities]
        kinds = regressor.joint_kinds
        nk = len(kinds)
        fs_cols = regressor.n_inertial + kinds.index('fs') + nk * np.arange(regressor.n)
        sv = regressor.options.sign_velocity_rad_s
    else:
        neq = neq if neq is not None else NormalEquations.zeros(regressor.n, len(columns))
    for s in range(0, N, chunk):
        e = min(N, s + chunk)
        W = regressor.stack(Q[s:e], QD[s:e], QDD[s:e])
        m = None if mask is None else mask[s:e]
        variants = [(neq, None)] if not multi else list(zip(neqs, stribeck_velocities))
        for target, vs in variants:
            if vs is not None:
                qd = QD[s:e]
                W3 = W.reshape(e - s, regressor.n, regressor.p)
                W3[:, np.arange(regressor.n), fs_cols] = (np.tanh(qd / sv) * np.exp(-(qd / vs) ** 2))
            Y = TAU[s:e]
            if len(known_idx):
                Y = Y - (W[:, known_idx] @ np.asarray(known_values, float)).reshape(Y.shape)
            target.add(W[:, columns], Y, m)
        if progress is not None:
            progress(e, N)
    return neqs if multi else neq


@dataclass
class LeastSquaresResult:
    """A (weighted, scaled, possibly damped) least-squares fit of base parameters."""

    beta: np.ndarray
    covariance: np.ndarray
    std: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    sigma_nm: np.ndarray             # per-joint residual std used as noise std
    residual_rms_nm: np.ndarray      # per-joint RMS residual at beta
    weights: np.ndarray              # per-joint weights 1/sigma^2 (ones for OLS)
    condition_number: float          # of the (weighted) base regressor, unscaled
    condition_number_scaled: float   # with unit-norm columns (eq. 25-26)
    dof: int
    method: str
    relative_error: float            # ||y - W beta|| / ||y|| over the fit data
    weak_directions: list = field(default_factory=list)

    def to_dict(self, names=None):
        d = {'method': self.method, 'condition_number': self.condition_number,
             'condition_number_scaled': self.condition_number_scaled, 'dof': self.dof,
             'relative_error': self.relative_error, 'residual_rms_nm': self.residual_rms_nm.tolist(),
             'sigma_nm': self.sigma_nm.tolist()}
        return d


def _cond_from_normal(A):
    w = np.linalg.eigvalsh(A)
    w = np.clip(w, 0, None)
    return float(np.sqrt(w[-1] / w[0])) if w[0] > 0 else float('inf')


def solve_least_squares(neq: NormalEquations, weighting='wls', column_scaling=True, prior=None,
                        prior_weight=0.0, confidence=0.95, sigma_nm=None, names=None,
                        max_condition=np.inf) -> LeastSquaresResult:
    """OLS / WLS on accumulated normal equations.

    weighting 'wls': per-joint noise variance from the OLS residual (or ``sigma_nm``), weights
    1/sigma_j^2, re-solved (Swevers eq. 23-24). ``column_scaling``: unit-norm columns (eq. 25-26);
    the condition number is reported both ways. ``prior``/``prior_weight``: damped least squares
    toward ``prior`` (eq. 27-29), the penalty lambda^2 ||S^-1 (beta - prior)||^2 in scaled units (a
    weight of 1 weighs the prior like one unit-norm column). Covariance (eq. 20-22): sigma^2 (W'W)^-1
    for OLS, (sum_j W_j'W_j / sigma_j^2)^-1 for WLS (the posterior with a prior); intervals use
    Student's t at ``confidence``.
    """
    n, b = neq.c.shape
    N_rows = int(neq.count.sum())
    dof = max(N_rows - b, 1)

    def solve(weights):
        A = np.einsum('j,jik->ik', weights, neq.A)
        c = weights @ neq.c
        d = np.sqrt(np.clip(np.diag(A), 0, None))
        zero = d <= 1e-12 * max(d.max(), 1e-300)
        if zero.any() and not (prior is not None and prior_weight > 0):
            bad = [names[i] if names else str(i) for i in np.flatnonzero(zero)]
            raise IdentificationError(f'the data do not excite parameter(s) {", ".join(bad)} at all '
                                      '(joint never moves, or never accelerates)')
        S = np.where(zero, 1.0, 1.0 / np.where(zero, 1.0, d)) if column_scaling else np.ones(b)
        As = A * S[:, None] * S[None, :]
        cs = c * S
        if prior is not None and prior_weight > 0:
            lam2 = prior_weight ** 2 * (np.trace(As) / b)
            As_p = As + lam2 * np.eye(b)
            cs = cs + lam2 * (np.asarray(prior) / S)
        else:
            As_p = As
        try:
            L = np.linalg.cholesky(As_p)
            bs = np.linalg.solve(L.T, np.linalg.solve(L, cs))
            inv = np.linalg.inv(As_p)
        except np.linalg.LinAlgError:
            bs = np.linalg.lstsq(As_p, cs, rcond=None)[0]
            inv = np.linalg.pinv(As_p)
        beta = bs * S
        return beta, A, As, As_p, inv, S

    w = np.ones(n)
    beta, A, As, As_p, inv, S = solve(w)
    ss = neq.residual_ss(beta)
    sigma2 = ss / np.maximum(neq.count - b / n, 1)
    method = 'ols'
    if weighting == 'wls':
        s2 = (np.asarray(sigma_nm, float) ** 2) if sigma_nm is not None else sigma2
        s2 = np.maximum(s2, 1e-12 * max(s2.max(), 1e-300))
        w = 1.0 / s2
        beta, A, As, As_p, inv, S = solve(w)
        ss = neq.residual_ss(beta)
        method = 'wls'
    # condition numbers (of the weighted regressor W' = diag(sqrt w) W)
    cond = _cond_from_normal(A)
    cond_s = _cond_from_normal(As)
    # weak directions: eigenvectors of the scaled normal matrix with tiny eigenvalues
    weak = []
    ev, V = np.linalg.eigh(As)
    lim = ev[-1] / max_condition ** 2
    for k in np.flatnonzero(ev < lim):
        comp = np.abs(V[:, k])
        idx = np.flatnonzero(comp > 0.3 * comp.max())
        weak.append([names[i] if names else str(i) for i in idx])
    if weighting == 'wls':
        cov = (inv * S[:, None] * S[None, :])
        sigma_used = np.sqrt(1.0 / w)
        # rescale by the WLS goodness of fit (chi2 / dof), close to 1 when the weights are right
        chi2 = float(w @ ss) / dof
        cov = cov * chi2
    else:
        s2_all = float(ss.sum()) / dof
        cov = s2_all * (inv * S[:, None] * S[None, :])
        sigma_used = np.full(n, np.sqrt(s2_all))
    std = np.sqrt(np.clip(np.diag(cov), 0, None))
    tq = scipy.stats.t.ppf(0.5 + confidence / 2, dof)
    rms = np.sqrt(ss / np.maximum(neq.count, 1))
    rel = float(np.sqrt(ss.sum() / max(neq.yy.sum(), 1e-300)))
    if prior is not None and prior_weight > 0:
        method += f' + prior (weight {prior_weight:g})'
    return LeastSquaresResult(beta, cov, std, beta - tq * std, beta + tq * std, sigma_used, rms, w, cond, cond_s,
                              dof, method, rel, weak)


# ---------------------------------------------------------------------------------------------
# gravity from static poses
# ---------------------------------------------------------------------------------------------
@dataclass
class GravityResult:
    base: BaseParameters            # identified static combinations (structurally identifiable AND excited)
    values: np.ndarray
    ls: LeastSquaresResult
    theta: np.ndarray               # standard vector (inertias of the URDF, dropped combinations at the URDF)
    offsets_nm: np.ndarray          # per-joint static offset (zeros unless static_offset)
    dropped: list                   # [{'expression', 'reason'}]
    structural: list                # expressions of the structural static base
    poses: StaticPoses
    residual_nm: np.ndarray         # (P, n) measured - model at the poses

    def predict(self, robot: RobotModel, Q):
        r = robot.copy()
        r.set_standard_parameters(self.theta[:10 * r.n])
        return np.array([r.gravity_torque(q) for q in np.atleast_2d(Q)]) + self.offsets_nm


def identify_gravity(robot: RobotModel, poses: StaticPoses, options: IdentificationOptions) -> GravityResult:
    """Gravity parameters from averaged static efforts (seeds 000/003).

    The static regressor has only the m, mx, my, mz columns; its structural base (random poses)
    is further truncated to what these poses identify: a pivoted QR of the scaled base regressor
    of the actual poses drops combinations whose column is (near) a combination of the others
    (rank tolerance 1/max_condition), keeping them at the URDF value; each dropped one is reported
    with the reason.
    """
    n = robot.n
    if len(poses) < 2:
        raise IdentificationError(f'only {len(poses)} static pose(s): record at least a few poses spread over the '
                                  'workspace')
    opts = RegressorOptions(offset=options.static_offset)
    reg = Regressor(robot, opts)
    free, known_idx = free_columns(reg, {k: v for k, v in options.known_parameters.items() if k in reg.names})
    base_s = structural_base(reg, free, static=True)
    structural = base_s.expressions()
    W = reg.static(poses.q)
    Wb = W[:, base_s.independent]
    theta_ref = reg.reference_parameters()
    for k, v in options.known_parameters.items():
        if k in reg.names:
            theta_ref[reg.names.index(k)] = v
    Y = poses.tau.copy()
    if len(known_idx):
        Y = Y - (W[:, known_idx] @ theta_ref[known_idx]).reshape(Y.shape)
    norms = np.linalg.norm(Wb, axis=0)
    import scipy.linalg
    scale = np.where(norms > 0, norms, 1.0)
    _, R, piv = scipy.linalg.qr(Wb / scale, mode='economic', pivoting=True)
    diag = np.abs(np.diag(R))
    tol = diag.max() / options.max_condition if diag.size else 0.0
    rank = int(np.sum(diag > tol))
    keep_local = np.sort(piv[:rank])
    drop_local = np.sort(piv[rank:])
    names_b = base_s.names
    exprs = base_s.expressions()
    dropped = []
    for i in drop_local:
        reason = ('no pose excites it (its column is zero)' if norms[i] <= 1e-12 * max(norms.max(), 1e-300) else
                  'its effect over these poses is a combination of the kept ones (rank deficiency); '
                  'add poses that move the joints it depends on')
        dropped.append({'name': names_b[i], 'expression': exprs[i], 'reason': reason})
    if rank == 0 or len(dropped) > len(names_b) / 2:
        raise IdentificationError(
            f'too few or too similar static poses: {len(poses)} pose(s) identify {rank} of {len(names_b)} gravity '
            f'combinations; unidentifiable: {"; ".join(d["expression"] for d in dropped[:6])}. Record more poses, '
            'spread over every joint range')
    # dropped combinations: fixed at their URDF (reference) value, subtracted
    beta_ref = base_s.to_base(theta_ref)
    Yk = Y - (Wb[:, drop_local] @ beta_ref[drop_local]).reshape(Y.shape)
    neq = NormalEquations.zeros(n, rank)
    neq.add(Wb[:, keep_local], Yk)
    names_keep = [names_b[i] for i in keep_local]
    ls = solve_least_squares(neq, options.weighting if len(poses) * n > 2 * rank else 'ols',
                             options.column_scaling, confidence=options.confidence, names=names_keep)
    beta = beta_ref.copy()
    beta[keep_local] = ls.beta
    theta = base_s.to_standard(beta, theta_ref)
    kept = BaseParameters(reg.names, base_s.independent[keep_local], base_s.dependent, base_s.K[keep_local],
                          base_s.tolerance)
    offsets = np.zeros(n)
    if options.static_offset:
        k = reg.joint_kinds.index('fo')
        offsets = theta[reg.n_inertial + k::len(reg.joint_kinds)]
    pred = (W[:, base_s.independent] @ beta).reshape(-1, n)
    if len(known_idx):
        pred = pred + (W[:, known_idx] @ theta_ref[known_idx]).reshape(pred.shape)
    return GravityResult(kept, ls.beta, ls, theta, offsets, dropped, structural, poses,
                         poses.tau - pred)


@dataclass
class PointMassResult:
    """Seed 000's gravity model: weightless rods, one point mass per body at the URDF centre of mass."""

    masses_kg: np.ndarray
    points: list                    # per body, the point (m) in the body's joint frame
    residual_nm: np.ndarray

    def predict(self, robot: RobotModel, Q):
        return np.array([_point_mass_gravity_columns(robot, self.points, q) @ self.masses_kg
                         for q in np.atleast_2d(Q)])


def _point_mass_gravity_columns(robot: RobotModel, points, q, h=1e-6):
    """dV/dq for unit point masses (n x bodies): the potential energy V = -m g.p(q) differentiated
    by central differences."""
    import pinocchio as pin
    m, d = robot.model, robot.data
    g = robot.gravity_m_s2

    def V(qq):
        pin.forwardKinematics(m, d, robot.q_pin(qq))
        return np.array([-g @ d.oMi[i + 1].act(points[i]) for i in range(robot.n)])

    cols = np.zeros((robot.n, robot.n))
    for j in range(robot.n):
        e = np.zeros(robot.n)
        e[j] = h
        cols[j] = (V(q + e) - V(q - e)) / (2 * h)
    return cols


def point_mass_gravity(robot: RobotModel, poses: StaticPoses) -> PointMassResult:
    """Fit the point masses (non-negative least squares) to the averaged static efforts."""
    points = [np.array(robot.model.inertias[i + 1].lever) for i in range(robot.n)]
    G = np.vstack([_point_mass_gravity_columns(robot, points, q) for q in poses.q])
    y = poses.tau.reshape(-1)
    active = np.linalg.norm(G, axis=0) > 1e-9
    masses = np.zeros(robot.n)
    if active.any():
        masses[active] = scipy.optimize.nnls(G[:, active], y)[0]
    res = (y - G @ masses).reshape(-1, robot.n)
    return PointMassResult(masses, points, res)


# ---------------------------------------------------------------------------------------------
# friction from sweeps
# ---------------------------------------------------------------------------------------------
@dataclass
class FrictionSweepResult:
    friction: FrictionModel
    points: dict        # joint name -> {'speed': [...], 'half_difference': [...], 'asymmetry': [...]}
    residual_nm: np.ndarray
    joints_fitted: list


def identify_friction_sweeps(robot: RobotModel, sweeps, options: IdentificationOptions,
                             gravity=None) -> FrictionSweepResult:
    """Friction per joint from constant-velocity sweeps (seed 000).

    ``sweeps``: list of (JointStateSeries, sidecar) with ``constant_velocity`` segments. For each
    joint and speed, forward and backward passes are matched by position (the backward torque is
    interpolated at the forward positions over their common range); half their difference is
    friction only: d(v) = fc + fv v (+ fs exp(-(v/vs)^2)). Half their sum minus the gravity model
    (``gravity(Q) -> tau``, when given) is (fc+ - fc-)/2 + offset, the direction-dependent part.
    """
    n = robot.n
    by = {}
    for series, sidecar in sweeps:
        if not sidecar:
            raise IdentificationError(f'sweep bag {series.source} has no sidecar with constant_velocity segments '
                                      '(record it with friction_sweep_recorder)')
        tau = effort_to_torque(series.effort, options, n)
        for s in sidecar.get('segments', []):
            if s.get('type') != 'constant_velocity':
                continue
            j = robot.joint_names.index(s['joint']) if s['joint'] in robot.joint_names else None
            if j is None:
                continue
            m = (series.stamp_ns >= s['t_start_ns']) & (series.stamp_ns <= s['t_end_ns'])
            if m.sum() < 5:
                continue
            key = (j, int(s.get('speed_index', 0)))
            by.setdefault(key, {}).setdefault(int(np.sign(s.get('direction', np.sign(s['velocity_rad_s'])))), []
                                              ).append((series.q[m], tau[m], abs(float(s['velocity_rad_s']))))
    points = {}
    fr = FrictionModel.zeros(n)
    stribeck_v = np.full(n, 0.1)
    stribeck = np.zeros(n)
    fitted = []
    residual = np.zeros(n)
    for j in range(n):
        speeds, diffs, asyms = [], [], []
        for (jj, _), d in sorted(by.items()):
            if jj != j or 1 not in d or -1 not in d:
                continue
            qf = np.concatenate([x[0][:, j] for x in d[1]])
            tf = np.concatenate([x[1][:, j] for x in d[1]])
            qb = np.concatenate([x[0][:, j] for x in d[-1]])
            tb = np.concatenate([x[1][:, j] for x in d[-1]])
            Qf = np.concatenate([x[0] for x in d[1]])
            v = float(np.mean([x[2] for x in d[1] + d[-1]]))
            ob = np.argsort(qb)
            lo, hi = max(qf.min(), qb.min()), min(qf.max(), qb.max())
            inside = (qf >= lo) & (qf <= hi)
            if inside.sum() < 5:
                continue
            tb_at = np.interp(qf[inside], qb[ob], tb[ob])
            speeds.append(v)
            diffs.append(float(np.mean(0.5 * (tf[inside] - tb_at))))
            if gravity is not None:
                g = np.asarray(gravity(Qf[inside]))[:, j]
                asyms.append(float(np.mean(0.5 * (tf[inside] + tb_at) - g)))
        if not speeds:
            continue
        speeds, diffs = np.array(speeds), np.array(diffs)
        fitted.append(robot.joint_names[j])
        if len(speeds) == 1:
            fc, fv = diffs[0], 0.0
        else:
            A = np.column_stack([np.ones_like(speeds), speeds])
            fc, fv = np.linalg.lstsq(A, diffs, rcond=None)[0]
        if options.stribeck and len(speeds) >= 4:
            def f(p):
                return p[0] + p[1] * speeds + p[2] * np.exp(-(speeds / p[3]) ** 2) - diffs
            r = scipy.optimize.least_squares(f, [fc, fv, 0.0, max(0.5 * speeds.min(), 1e-3)],
                                             bounds=([-np.inf, -np.inf, 0, 1e-4], [np.inf, np.inf, np.inf, 10]))
            fc, fv, stribeck[j], stribeck_v[j] = r.x
        pred = fc + fv * speeds + stribeck[j] * np.exp(-(speeds / stribeck_v[j]) ** 2)
        residual[j] = float(np.sqrt(np.mean((diffs - pred) ** 2)))
        a = float(np.mean(asyms)) if asyms else 0.0
        fr.coulomb_pos_nm[j] = fc + a
        fr.coulomb_neg_nm[j] = fc - a
        fr.viscous_nm_s_rad[j] = fv
        points[robot.joint_names[j]] = {'speed_rad_s': speeds.tolist(), 'half_difference_nm': diffs.tolist(),
                                        'asymmetry_nm': asyms}
    if not fitted:
        raise IdentificationError('the sweep bags hold no joint with both a forward and a backward '
                                  'constant-velocity pass')
    out = FrictionModel(fr.coulomb_pos_nm, fr.coulomb_neg_nm, fr.viscous_nm_s_rad, np.zeros(n), stribeck,
                        stribeck_v, sign_velocity_rad_s=options.sign_velocity_rad_s)
    return FrictionSweepResult(out, points, residual, fitted)


# ---------------------------------------------------------------------------------------------
# full dynamics
# ---------------------------------------------------------------------------------------------
@dataclass
class DynamicsResult:
    regressor: Regressor
    base: BaseParameters
    ls: LeastSquaresResult
    theta: np.ndarray
    theta_reference: np.ndarray
    known_idx: np.ndarray
    neq: NormalEquations
    samples: int
    time_s: dict


def identify_dynamics(robot: RobotModel, trajectories, options: IdentificationOptions,
                      progress=None) -> DynamicsResult:
    """Base-parameter fit on processed trajectories (see ``solve_least_squares``).

    With ``options.min_velocity_rad_s`` the rows of slow joints are left out (``motion_mask``). With
    ``options.stribeck_column`` and no ``stribeck_velocity_rad_s``, the Stribeck velocity is the one
    of ``STRIBECK_VELOCITY_GRID_RAD_S`` whose OLS fit has the highest Gaussian likelihood (per-joint
    variances); the regressor of the result carries the chosen velocity."""
    t0 = time.perf_counter()
    reg = Regressor(robot, options.regressor_options())
    grid = None
    if reg.options.stribeck and options.stribeck_velocity_rad_s is None:
        grid = list(STRIBECK_VELOCITY_GRID_RAD_S)
    free, known_idx = free_columns(reg, options.known_parameters)
    base = structural_base(reg, free)
    theta_ref = reg.reference_parameters()
    for k, v in options.known_parameters.items():
        theta_ref[reg.names.index(k)] = v
    t1 = time.perf_counter()
    neq = NormalEquations.zeros(robot.n, base.n_base)
    neqs = [NormalEquations.zeros(robot.n, base.n_base) for _ in grid] if grid else None
    total = sum(len(tr) for tr in trajectories)
    done = [0]

    def prog(e, N):
        if progress is not None:
            progress(done[0] + e, total)

    for tr in trajectories:
        mask = None
        if options.min_velocity_rad_s > 0:
            mask = motion_mask(tr.qd, tr.rate_hz, options.min_velocity_rad_s, options.min_velocity_scope,
                               options.min_velocity_margin_s)
        if grid:
            accumulate(reg, base.independent, tr.q, tr.qd, tr.qdd, tr.tau, known_idx, theta_ref[known_idx],
                       options.chunk_samples, neqs, prog, mask, grid)
        else:
            accumulate(reg, base.independent, tr.q, tr.qd, tr.qdd, tr.tau, known_idx, theta_ref[known_idx],
                       options.chunk_samples, neq, prog, mask)
        done[0] += len(tr)
    c = (neqs[0] if grid else neq).count
    if options.min_velocity_rad_s > 0 and c.min() <= base.n_base:
        raise IdentificationError(f'only {int(c.min())} rows left for joint {int(np.argmin(c)) + 1} after leaving out '
                                  f'|qd| < {options.min_velocity_rad_s:g} rad/s: lower min_velocity_rad_s')
    if grid:
        scores = []
        for ne in neqs:
            try:
                ols = solve_least_squares(ne, 'ols', options.column_scaling, names=list(base.names))
                ss = ne.residual_ss(ols.beta)
                scores.append(float(np.sum(ne.count * np.log(np.maximum(ss, 1e-300) / ne.count))))
            except IdentificationError:
                scores.append(np.inf)
        k = int(np.argmin(scores))
        neq = neqs[k]
        reg = Regressor(robot, dataclasses.replace(reg.options, stribeck_velocity_rad_s=float(grid[k])))
    t2 = time.perf_counter()
    prior = base.to_base(theta_ref) if options.prior_weight > 0 else None
    ls = solve_least_squares(neq, options.weighting, options.column_scaling, prior, options.prior_weight,
                             options.confidence, names=list(base.names), max_condition=options.max_condition)
    if ls.weak_directions and not options.prior_weight > 0:
        exprs = dict(zip(base.names, base.expressions()))
        groups = ['{' + ', '.join(exprs[nm] for nm in g) + '}' for g in ls.weak_directions]
        raise IdentificationError(
            f'too little excitation: the data identify only {base.n_base - len(groups)} of {base.n_base} base '
            f'parameters (scaled condition number {ls.condition_number_scaled:.3g} > {options.max_condition:g}); '
            f'unidentifiable groups: {"; ".join(groups[:8])}. Use a richer excitation (robot-id design-excitation), '
            'or a prior (prior_weight > 0)')
    theta = base.to_standard(ls.beta, theta_ref)
    t3 = time.perf_counter()
    return DynamicsResult(reg, base, ls, theta, theta_ref, known_idx, neq, total,
                          {'base': t1 - t0, 'regressor': t2 - t1, 'solve': t3 - t2, 'least_squares_total': t3 - t0})


# ---------------------------------------------------------------------------------------------
# validation metrics
# ---------------------------------------------------------------------------------------------
def validation_metrics(measured, predicted, rate_hz=None, filter_hz=None, joint_names=None, mask=None):
    """RMSE per joint, relative errors, and the same against the measured torque low-passed at
    ``filter_hz`` (zero phase) when given. Keys as ``robot-id validate --json``.

    ``mask`` (N, n) bool (``motion_mask``): also the in-motion figures over the rows where it is True
    (``rmse_in_motion_nm``, ``relative_error_in_motion``, ``in_motion_fraction`` per joint)."""
    measured = np.asarray(measured, float)
    predicted = np.asarray(predicted, float)
    e = measured - predicted
    out = {
        'joint_names': list(joint_names) if joint_names is not None else None,
        'samples': int(measured.shape[0]),
        'rmse_nm': np.sqrt(np.mean(e ** 2, axis=0)).tolist(),
        'per_joint_relative_error': (np.linalg.norm(e, axis=0) / np.maximum(np.linalg.norm(measured, axis=0),
                                                                             1e-300)).tolist(),
        'relative_error': float(np.linalg.norm(e) / max(np.linalg.norm(measured), 1e-300)),
    }
    if filter_hz is not None and rate_hz is not None:
        mf = signals.lowpass_zero_phase(measured, rate_hz, min(filter_hz, 0.45 * rate_hz))
        ef = mf - predicted
        out['filter_hz'] = float(filter_hz)
        out['relative_error_filtered'] = float(np.linalg.norm(ef) / max(np.linalg.norm(mf), 1e-300))
        out['rmse_filtered_nm'] = np.sqrt(np.mean(ef ** 2, axis=0)).tolist()
    if mask is not None:
        mask = np.asarray(mask, bool)
        cnt = mask.sum(axis=0)
        em = np.where(mask, e, 0.0)
        out['in_motion_samples'] = cnt.tolist()
        out['in_motion_fraction'] = (cnt / max(measured.shape[0], 1)).tolist()
        out['rmse_in_motion_nm'] = np.where(cnt > 0, np.sqrt(np.sum(em ** 2, axis=0) / np.maximum(cnt, 1)),
                                            np.nan).tolist()
        out['relative_error_in_motion'] = float(np.linalg.norm(em) / max(np.linalg.norm(np.where(mask, measured, 0.0)),
                                                                         1e-300))
    return out


def processing_options(model: IdentifiedModel, base: IdentificationOptions | None = None) -> IdentificationOptions:
    """The options a model was identified with (its 'processing' section), for processing new data alike."""
    d = dict(model.identification.get('options', {}))
    opts = IdentificationOptions.from_dict(d) if d else (base or IdentificationOptions())
    if base is not None:
        for k in ('effort_unit', 'drive_gains_nm_per_a', 'derivative_method', 'cutoff_hz', 'period_s'):
            v = getattr(base, k)
            if v is not None and v != getattr(IdentificationOptions, k, None):
                setattr(opts, k, v)
    if opts.effort_unit == 'current' and opts.drive_gains_nm_per_a is None and model.drive_gains_nm_per_a is not None:
        opts.drive_gains_nm_per_a = list(model.drive_gains_nm_per_a)
    opts.period_s = base.period_s if base is not None else None
    return opts


@dataclass
class ValidationResult:
    metrics: dict
    trajectory: Trajectory
    predicted: np.ndarray


def validate(model: IdentifiedModel, series: JointStateSeries, options: IdentificationOptions | None = None,
             sidecar=None, filter_hz=None, min_velocity_rad_s=None, min_velocity_scope=None,
             min_velocity_margin_s=None) -> ValidationResult:
    """Prediction error of ``model`` on held-out data, processed as at identification.

    All samples always (``rmse_nm`` ...); with a minimum velocity (argument, else the one the model
    was identified with, if any) also the in-motion figures over the rows ``motion_mask`` keeps
    (``rmse_in_motion_nm`` ...): joint j's rows where |qd_j| (processed) >= ``min_velocity_rad_s``
    (``min_velocity_scope`` 'all': every joint's), outside ``min_velocity_margin_s`` of a slower sample.
    """
    opts = processing_options(model, options)
    tr = prepare_trajectory(series, opts, sidecar, model.robot)
    pred = model.predict(tr.q, tr.qd, tr.qdd)
    if filter_hz is None:
        filter_hz = model.identification.get('torque_cutoff_hz') or tr.cutoff_hz
    vmin = opts.min_velocity_rad_s if min_velocity_rad_s is None else float(min_velocity_rad_s)
    scope = opts.min_velocity_scope if min_velocity_scope is None else min_velocity_scope
    margin = opts.min_velocity_margin_s if min_velocity_margin_s is None else float(min_velocity_margin_s)
    if scope not in ('joint', 'all'):
        raise IdentificationError(f'min_velocity_scope must be "joint" or "all", got {scope!r}')
    if not (vmin >= 0 and margin >= 0):
        raise IdentificationError('min_velocity_rad_s and min_velocity_margin_s must be >= 0')
    mask = motion_mask(tr.qd, tr.rate_hz, vmin, scope, margin) if vmin > 0 else None
    m = validation_metrics(tr.tau, pred, tr.rate_hz, filter_hz, model.joint_names, mask)
    if mask is not None:
        m.update({'min_velocity_rad_s': vmin, 'min_velocity_scope': scope, 'min_velocity_margin_s': margin})
    m['source'] = series.source
    m['derivative_method'] = tr.method
    return ValidationResult(m, tr, pred)


# ---------------------------------------------------------------------------------------------
# the whole identification
# ---------------------------------------------------------------------------------------------
@dataclass
class IdentificationResult:
    model: IdentifiedModel
    options: IdentificationOptions
    dynamics: DynamicsResult | None = None
    gravity: GravityResult | None = None
    point_mass: PointMassResult | None = None
    friction_sweeps: FrictionSweepResult | None = None
    consistency: object | None = None              # physical_consistency.ConsistencyResult
    trajectories: list = field(default_factory=list)
    fit_metrics: dict = field(default_factory=dict)
    fit_predicted: list = field(default_factory=list)
    timings_s: dict = field(default_factory=dict)
    summary_lines: list = field(default_factory=list)

    def summary(self):
        return '\n'.join(self.summary_lines)


def _pair(item, sidecars):
    if isinstance(item, tuple):
        return item
    sc = None
    if sidecars is not None:
        sc = sidecars.get(item.source)
    return item, sc


def identify(robot: RobotModel, data=(), static=(), sweeps=(), sidecars=None,
             options: IdentificationOptions | None = None, progress=None) -> IdentificationResult:
    """Identify ``robot`` from excitation runs (``data``), static poses (``static``) and friction
    sweeps (``sweeps``).

    Each item is a ``JointStateSeries`` or a ``(series, sidecar_dict)`` pair; ``sidecars`` maps a
    series' ``source`` to its sidecar. With trajectories the model is the full dynamic fit (static
    poses and sweeps are fitted and reported alongside; sweep friction fills Stribeck/breakaway).
    With static poses only, the model is the gravity fit (URDF inertias, friction from sweeps if
    any). Raises ``IdentificationError`` on unusable input; nothing is written here.
    """
    options = options or IdentificationOptions()
    options.check()
    data = [_pair(x, sidecars) for x in data]
    static = [_pair(x, sidecars) for x in static]
    sweeps = [_pair(x, sidecars) for x in sweeps]
    if not data and not static:
        raise IdentificationError('nothing to identify: give excitation trajectories (--data) and/or static '
                                  'poses (--static)')
    res = IdentificationResult(model=None, options=options)
    lines = res.summary_lines
    t_start = time.perf_counter()
    n = robot.n
    # static poses
    if static:
        poses = StaticPoses.concatenate(static_poses(s, options, sc, robot) for s, sc in static)
        res.gravity = identify_gravity(robot, poses, options)
        res.point_mass = point_mass_gravity(robot, poses)
        g = res.gravity
        lines.append(f'static: {len(poses)} poses, {len(g.values)} of {len(g.structural)} gravity combinations '
                     f'identified, residual RMS {np.sqrt(np.mean(g.residual_nm ** 2)):.4g} Nm '
                     f'(point-mass baseline {np.sqrt(np.mean(res.point_mass.residual_nm ** 2)):.4g} Nm)')
        for d in g.dropped:
            lines.append(f'  dropped {d["expression"]}: {d["reason"]}')
    # sweeps
    if sweeps:
        grav = None
        if res.gravity is not None:
            gr = res.gravity

            def grav(Q, gr=gr):
                return gr.predict(robot, Q)
        res.friction_sweeps = identify_friction_sweeps(robot, sweeps, options, grav)
        lines.append(f'sweeps: friction of {", ".join(res.friction_sweeps.joints_fitted)} from forward/backward pairs')
    t_prep = time.perf_counter()
    trajectories = [prepare_trajectory(s, options, sc, robot).decimated(options.max_samples) for s, sc in data]
    res.trajectories = trajectories
    res.timings_s['preprocessing'] = time.perf_counter() - t_prep
    reg_opts = options.regressor_options() if data else RegressorOptions(offset=options.static_offset)
    ident = {'method': '', 'options': options.to_dict(), 'data': [tr.source for tr in trajectories],
             'static': [s.source for s, _ in static], 'sweeps': [s.source for s, _ in sweeps]}
    if trajectories:
        for tr in trajectories:
            lines.append(f'trajectory {tr.source or "(memory)"}: {len(tr)} samples at {tr.rate_hz:.5g} Hz, '
                         f'{tr.method} derivatives, cut-off {tr.cutoff_hz:.3g} Hz'
                         + (f', period {tr.period_s:.4g} s x {tr.cycles}' if tr.period_s else ''))
        dyn_options = options
        if options.stribeck_column and options.friction and options.stribeck_velocity_rad_s is None \
                and res.friction_sweeps is not None and np.any(res.friction_sweeps.friction.stribeck_nm > 0):
            fs = res.friction_sweeps.friction
            vs = float(np.median(fs.stribeck_velocity_rad_s[fs.stribeck_nm > 0]))
            dyn_options = dataclasses.replace(options, stribeck_velocity_rad_s=vs)
            lines.append(f'Stribeck velocity from the sweeps: {vs:.4g} rad/s')
        dyn = identify_dynamics(robot, trajectories, dyn_options, progress)
        res.dynamics = dyn
        reg_opts = dyn.regressor.options
        if reg_opts.stribeck and dyn_options.stribeck_velocity_rad_s is None:
            lines.append(f'Stribeck velocity chosen by the fit: {reg_opts.stribeck_velocity_rad_s:.4g} rad/s')
        res.timings_s.update(dyn.time_s)
        theta = dyn.theta
        ls = dyn.ls
        J = dyn.base.standard_jacobian()
        theta_std = np.sqrt(np.clip(np.einsum('ij,jk,ik->i', J, ls.covariance, J), 0, None))
        friction = FrictionModel.zeros(n)
        if reg_opts.stribeck:
            pass  # the fitted Stribeck column is the friction's Stribeck term (below, from the final theta)
        elif res.friction_sweeps is not None:
            fs = res.friction_sweeps.friction
            friction.stribeck_nm = fs.stribeck_nm.copy()
            friction.stribeck_velocity_rad_s = fs.stribeck_velocity_rad_s.copy()
        if options.physical_consistency:
            from robot_id_ros.identify.consistency import physically_consistent_fit
            pc = physically_consistent_fit(dyn, options)
            res.consistency = pc
            res.timings_s['physical_consistency'] = pc.time_s
            theta = pc.theta
            lines.append(pc.summary())
        if reg_opts.stribeck:
            kinds = dyn.regressor.joint_kinds
            friction.stribeck_nm = theta[dyn.regressor.n_inertial + kinds.index('fs')::len(kinds)].copy()
            friction.stribeck_velocity_rad_s = np.full(n, reg_opts.stribeck_velocity_rad_s)
        model = IdentifiedModel(robot.copy(), reg_opts, theta, friction, theta_std, dyn.base,
                                dyn.base.to_base(theta) if options.physical_consistency else ls.beta,
                                ls.std, ls.covariance)
        f = model.friction
        f.breakaway_nm = np.maximum(f.coulomb_pos_nm, f.coulomb_neg_nm) + f.stribeck_nm
        if res.friction_sweeps is not None:  # breakaway from the sweeps where larger
            f.breakaway_nm = np.maximum(f.breakaway_nm, res.friction_sweeps.friction.breakaway_nm)
        model.residual_std_nm = ls.residual_rms_nm.copy()
        ident['method'] = ls.method + (' + physical consistency (LMI)' if options.physical_consistency else '')
        ident.update({'samples': int(dyn.samples), 'n_base': int(dyn.base.n_base),
                      'condition_number': ls.condition_number, 'condition_number_scaled': ls.condition_number_scaled,
                      'relative_error': ls.relative_error, 'residual_rms_nm': ls.residual_rms_nm.tolist(),
                      'known_parameters': dict(options.known_parameters),
                      'unidentifiable': dyn.base.unidentifiable(),
                      'cutoff_hz': [tr.cutoff_hz for tr in trajectories],
                      'torque_cutoff_hz': options.torque_cutoff_hz or float(np.median([tr.cutoff_hz
                                                                                         for tr in trajectories])),
                      'derivative_method': [tr.method for tr in trajectories]})
        lines.append(f'dynamics: {dyn.base.n_base} base parameters from {dyn.samples} samples, {ls.method}, '
                     f'condition number {ls.condition_number:.4g} (scaled {ls.condition_number_scaled:.4g}), '
                     f'relative error {100 * ls.relative_error:.3g} %')
        lines.append('  residual RMS per joint (Nm): ' + ', '.join(f'{x:.4g}' for x in ls.residual_rms_nm))
    else:
        g = res.gravity
        theta = g.theta
        friction = res.friction_sweeps.friction if res.friction_sweeps is not None else FrictionModel.zeros(n)
        if options.static_offset:
            friction.offset_nm = g.offsets_nm.copy()
        reg = Regressor(robot, reg_opts)
        J = np.zeros((reg.p, len(g.values)))
        J[g.base.independent, np.arange(len(g.values))] = 1.0
        theta_std = np.sqrt(np.clip(np.einsum('ij,jk,ik->i', J, g.ls.covariance, J), 0, None))
        model = IdentifiedModel(robot.copy(), reg_opts, theta, friction, theta_std, None, None, None, None)
        model.residual_std_nm = np.sqrt(np.mean(g.residual_nm ** 2, axis=0))
        ident['method'] = 'static gravity (' + g.ls.method + ')'
        ident.update({'poses': len(g.poses), 'gravity_combinations': list(g.base.expressions()),
                      'gravity_values': g.values.tolist(), 'gravity_std': g.ls.std.tolist(),
                      'dropped': g.dropped, 'condition_number': g.ls.condition_number,
                      'condition_number_scaled': g.ls.condition_number_scaled})
    if res.gravity is not None:
        ident['static'] = {'poses': len(res.gravity.poses), 'residual_rms_nm':
                           np.sqrt(np.mean(res.gravity.residual_nm ** 2, axis=0)).tolist(),
                           'dropped': res.gravity.dropped,
                           'point_mass_kg': res.point_mass.masses_kg.tolist(),
                           'point_mass_residual_rms_nm':
                               np.sqrt(np.mean(res.point_mass.residual_nm ** 2, axis=0)).tolist()}
    if options.effort_unit == 'current':
        model.drive_gains_nm_per_a = np.asarray(options.drive_gains_nm_per_a, float)
    model.identification = ident
    res.model = model
    # in-sample metrics
    if trajectories:
        preds, meas, masks = [], [], []
        for tr in trajectories:
            p = model.predict(tr.q, tr.qd, tr.qdd)
            preds.append(p)
            meas.append(tr.tau)
            masks.append(motion_mask(tr.qd, tr.rate_hz, options.min_velocity_rad_s, options.min_velocity_scope,
                                     options.min_velocity_margin_s))
        res.fit_predicted = preds
        res.fit_metrics = validation_metrics(np.vstack(meas), np.vstack(preds), trajectories[0].rate_hz,
                                             ident['torque_cutoff_hz'], robot.joint_names,
                                             np.vstack(masks) if options.min_velocity_rad_s > 0 else None)
        ident['fit_metrics'] = {k: v for k, v in res.fit_metrics.items() if k != 'joint_names'}
    res.timings_s['total'] = time.perf_counter() - t_start
    ident['timings_s'] = dict(res.timings_s)
    return res
