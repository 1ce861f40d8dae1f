"""Excitation trajectories for dynamic identification: finite Fourier series, optimised.

Trajectory (Swevers et al. 1997, "seed 001", eq. 30), per joint j, w_f = 2 pi / period_s:

    q_j(t)   = q0_j + sum_{l=1..N} a_jl / (w_f l) sin(w_f l t) - b_jl / (w_f l) cos(w_f l t)
    qd_j(t)  = sum_l a_jl cos(w_f l t) + b_jl sin(w_f l t)
    qdd_j(t) = sum_l -a_jl w_f l sin(w_f l t) + b_jl w_f l cos(w_f l t)

a, b in rad/s (velocity amplitudes), q0 in rad. The trajectory is periodic, so it ends where it
starts. ``design_excitation`` makes it start (and end) at rest at a given pose ``q_start``:
qd(0) = sum_l a_jl = 0, qdd(0) = sum_l l b_jl = 0, q(0) = q0 - sum_l b_jl / (w_f l) = q_start; these
fix a_jN, b_jN and q0, the other 2 (N - 1) coefficients per joint are optimised.

Design criterion: the condition number of the base-parameter observation matrix W_b (the stacked
regressor of samples over one period, base columns only, unscaled, as in seed 001), or
``criterion='logdet'``: maximise log det(W_b^T W_b) (D-optimality). Friction / rotor-inertia / offset
columns are included when the ``RegressorOptions`` ask for them.

Constraints, on a grid of ``constraint_samples`` points per period during the optimisation and then
verified on a dense grid (``DENSE_SAMPLES_PER_HARMONIC`` x N points); if the dense check finds a
violation the trajectory is scaled about q_start until it passes:

* position within ``position_fraction`` (default 0.8) of each joint's range, centred in the range;
* velocity within ``velocity_fraction`` (0.7) of the URDF velocity limit;
* acceleration within ``acceleration_fraction`` (0.7) of the acceleration limit. URDFs carry no
  acceleration limits: give them, or the default is ``DEFAULT_ACCELERATION_PER_VELOCITY_S`` x the
  velocity limit (an assumption: full speed in 0.5 s);
* the tool frame origin at least ``floor_z_m`` high (z of the URDF root frame; None: no floor).

Trajectory file (YAML, ``FourierTrajectory.save`` / ``load``), schema ``robot_id_ros/excitation``:

    schema: robot_id_ros/excitation
    schema_version: 1
    robot_name: str                    # URDF robot name (informative)
    joint_names: [str, ...]            # n joints, the order of every per-joint list below
    period_s: float                    # T
    base_frequency_hz: float           # 1 / T
    harmonics: int                     # N
    bandwidth_hz: float                # N / T, highest frequency in q
    q0_rad: [float] * n                # offsets
    coefficients:                      # eq. 30 above, n rows of N values, rad/s
      a: [[float] * N] * n
      b: [[float] * N] * n
    q_start_rad: [float] * n           # q(0) = q(T); qd = qdd = 0 there
    formula: str                       # eq. 30 in words
    design: {...}                      # how it was made: criterion, cond, logdet, limits, options
    samples:                           # one period, t = 0 .. T - 1/rate (the table repeats)
      rate_hz: float
      t_s: [float] * M
      q_rad: [[float] * n] * M         # one row per sample
      qd_rad_s: [[float] * n] * M
      qdd_rad_s2: [[float] * n] * M

A player loops the table (or evaluates the series) for as many periods as it records, starting
from rest at q_start_rad.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.optimize

from robot_id_ros.model.base_parameters import compute_base_parameters
from robot_id_ros.io.files import to_plain
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.model.regressor import Regressor, RegressorOptions
from robot_id_ros.errors import InputError

SCHEMA = 'robot_id_ros/excitation'
SCHEMA_VERSION = 1
DEFAULT_ACCELERATION_PER_VELOCITY_S = 2.0   # default acc. limit = 2 /s x velocity limit
DENSE_SAMPLES_PER_HARMONIC = 100            # dense verification grid: 100 N points per period
TABLE_RATE_HZ_DEFAULT = 100.0
OPTIMISATION_MARGIN = 0.015                 # limits tightened by 1.5 % during the optimisation
FLOOR_MARGIN_M = 0.01                       # and the floor raised by 1 cm
MAX_USABLE_COND = 1e6                       # a design worse than this is reported as an error


class ExcitationError(InputError):
    """Inputs no excitation trajectory can be designed from; the message says what to change."""


# ---------------------------------------------------------------------------------------------
# the trajectory
# ---------------------------------------------------------------------------------------------
@dataclass
class FourierTrajectory:
    """Finite Fourier series trajectory (eq. 30). a, b: (n, N) rad/s; q0: (n,) rad."""

    joint_names: tuple
    period_s: float
    a: np.ndarray
    b: np.ndarray
    q0: np.ndarray
    design: dict = field(default_factory=dict)
    robot_name: str = ''

    def __post_init__(self):
        self.joint_names = tuple(self.joint_names)
        self.a = np.atleast_2d(np.asarray(self.a, dtype=float))
        self.b = np.atleast_2d(np.asarray(self.b, dtype=float))
        self.q0 = np.asarray(self.q0, dtype=float).reshape(-1)
        n = len(self.joint_names)
        if self.a.shape != self.b.shape or self.a.shape[0] != n or self.q0.shape != (n,):
            raise ExcitationError(f'trajectory coefficients do not match {n} joints: a {self.a.shape}, '
                                  f'b {self.b.shape}, q0 {self.q0.shape}')
        if not (np.isfinite(self.period_s) and self.period_s > 0):
            raise ExcitationError(f'period_s must be positive, got {self.period_s}')
        if not (np.all(np.isfinite(self.a)) and np.all(np.isfinite(self.b)) and np.all(np.isfinite(self.q0))):
            raise ExcitationError('trajectory coefficients contain NaN or inf')

    @property
    def n(self):
        return len(self.joint_names)

    @property
    def harmonics(self):
        return self.a.shape[1]

    @property
    def base_frequency_hz(self):
        return 1.0 / self.period_s

    @property
    def omega_f(self):
        return 2 * np.pi / self.period_s

    @property
    def bandwidth_hz(self):
        return self.harmonics / self.period_s

    def evaluate(self, t_s):
        """(q, qd, qdd), each (len(t), n), in rad, rad/s, rad/s^2."""
        t = np.atleast_1d(np.asarray(t_s, dtype=float))
        wl = self.omega_f * np.arange(1, self.harmonics + 1)
        ph = np.outer(t, wl)
        S, C = np.sin(ph), np.cos(ph)
        q = self.q0 + (S / wl) @ self.a.T - (C / wl) @ self.b.T
        qd = C @ self.a.T + S @ self.b.T
        qdd = -(S * wl) @ self.a.T + (C * wl) @ self.b.T
        return q, qd, qdd

    def sample_table(self, rate_hz=TABLE_RATE_HZ_DEFAULT):
        """(t, q, qd, qdd) over one period at ``rate_hz`` (t from 0 to T - 1/rate)."""
        rate_hz = float(rate_hz)
        if not rate_hz > 2 * self.bandwidth_hz:
            raise ExcitationError(f'sample rate {rate_hz:g} Hz is too low for {self.harmonics} harmonics of a '
                                  f'{self.period_s:g} s period (bandwidth {self.bandwidth_hz:g} Hz); use more than '
                                  f'{2 * self.bandwidth_hz:g} Hz')
        M = int(round(self.period_s * rate_hz))
        t = np.arange(M) / rate_hz
        return (t, *self.evaluate(t))

    def to_dict(self, table_rate_hz=TABLE_RATE_HZ_DEFAULT):
        t, q, qd, qdd = self.sample_table(table_rate_hz)
        q_start = self.evaluate([0.0])[0][0]
        return {
            'schema': SCHEMA,
            'schema_version': SCHEMA_VERSION,
            'robot_name': self.robot_name,
            'joint_names': list(self.joint_names),
            'period_s': float(self.period_s),
            'base_frequency_hz': float(self.base_frequency_hz),
            'harmonics': int(self.harmonics),
            'bandwidth_hz': float(self.bandwidth_hz),
            'q0_rad': self.q0.tolist(),
            'coefficients': {'a': self.a.tolist(), 'b': self.b.tolist(), 'unit': 'rad/s'},
            'q_start_rad': q_start.tolist(),
            'formula': 'q_j(t) = q0_j + sum_{l=1..N} a_jl/(w_f l) sin(w_f l t) - b_jl/(w_f l) cos(w_f l t), '
                       'w_f = 2 pi / period_s',
            'design': to_plain(self.design),
            'samples': {'rate_hz': float(table_rate_hz), 't_s': t.tolist(), 'q_rad': q.tolist(),
                        'qd_rad_s': qd.tolist(), 'qdd_rad_s2': qdd.tolist()},
        }

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, dict) or d.get('schema') != SCHEMA:
            raise ExcitationError(f'not an excitation trajectory file (schema must be {SCHEMA!r})')
        if int(d.get('schema_version', -1)) > SCHEMA_VERSION:
            raise ExcitationError(f'trajectory schema_version {d.get("schema_version")} is newer than this '
                                  f'reader ({SCHEMA_VERSION}); update robot_id_ros')
        try:
            c = d['coefficients']
            return cls(d['joint_names'], float(d['period_s']), c['a'], c['b'], d['q0_rad'],
                       design=d.get('design', {}) or {}, robot_name=d.get('robot_name', ''))
        except KeyError as exc:
            raise ExcitationError(f'trajectory file lacks field {exc}') from exc

    def save(self, path, table_rate_hz=TABLE_RATE_HZ_DEFAULT):
        import yaml

        d = self.to_dict(table_rate_hz)
        Path(path).write_text(yaml.safe_dump(d, sort_keys=False, default_flow_style=None, width=1_000_000))

    @classmethod
    def load(cls, path):
        import yaml

        path = Path(path)
        if not path.is_file():
            raise ExcitationError(f'trajectory file not found: {path}')
        return cls.from_dict(yaml.safe_load(path.read_text()))


# ---------------------------------------------------------------------------------------------
# constraints
# ---------------------------------------------------------------------------------------------
@dataclass
class ExcitationLimits:
    """Bounds a trajectory must respect (already multiplied by the fractions).

    q_lower/q_upper: rad (+-inf for unlimited joints); qd_max: rad/s; qdd_max: rad/s^2;
    floor_z_m: lowest tool-frame height in the root frame (None: no floor)."""

    q_lower: np.ndarray
    q_upper: np.ndarray
    qd_max: np.ndarray
    qdd_max: np.ndarray
    floor_z_m: float | None = None

    @classmethod
    def from_robot(cls, robot: RobotModel, position_fraction=0.8, velocity_fraction=0.7,
                   acceleration_fraction=0.7, acceleration_limits_rad_s2=None, velocity_limits_rad_s=None,
                   floor_z_m=0.0):
        for name, f in (('position', position_fraction), ('velocity', velocity_fraction),
                        ('acceleration', acceleration_fraction)):
            if not (np.isfinite(f) and 0 < f <= 1):
                raise ExcitationError(f'{name} fraction must be in (0, 1], got {f}')
        lim = robot.limits
        lo, hi = lim.lower_rad, lim.upper_rad
        finite = np.isfinite(lo) & np.isfinite(hi)
        mid = np.where(finite, 0.5 * (lo + hi), 0.0)
        half = np.where(finite, 0.5 * (hi - lo) * position_fraction, np.inf)
        bad = [robot.joint_names[i] for i in np.flatnonzero(finite & (hi - lo <= 0))]
        if bad:
            raise ExcitationError(f'joint(s) {", ".join(bad)} have an empty position range in the URDF; '
                                  f'leave them out with --joints')
        v = lim.velocity_rad_s if velocity_limits_rad_s is None else _per_joint(velocity_limits_rad_s, robot.n,
                                                                                'velocity limits')
        v = np.asarray(v, dtype=float)
        bad = [robot.joint_names[i] for i in np.flatnonzero(~(np.isfinite(v) & (v > 0)))]
        if bad:
            src = 'the URDF velocity limit is 0 or missing' if velocity_limits_rad_s is None else 'given as <= 0'
            raise ExcitationError(f'no usable velocity limit for joint(s) {", ".join(bad)} ({src}); '
                                  f'give positive velocity limits (--velocity-limits)')
        if acceleration_limits_rad_s2 is None:
            acc = DEFAULT_ACCELERATION_PER_VELOCITY_S * v
        else:
            acc = _per_joint(acceleration_limits_rad_s2, robot.n, 'acceleration limits')
            bad = [robot.joint_names[i] for i in np.flatnonzero(~(np.isfinite(acc) & (acc > 0)))]
            if bad:
                raise ExcitationError(f'acceleration limit of joint(s) {", ".join(bad)} must be positive')
        return cls(mid - half, mid + half, velocity_fraction * v, acceleration_fraction * acc,
                   None if floor_z_m is None else float(floor_z_m))

    def to_dict(self):
        return {'q_lower_rad': self.q_lower.tolist(), 'q_upper_rad': self.q_upper.tolist(),
                'qd_max_rad_s': self.qd_max.tolist(), 'qdd_max_rad_s2': self.qdd_max.tolist(),
                'floor_z_m': self.floor_z_m}


def _per_joint(v, n, what):
    a = np.asarray(v, dtype=float).reshape(-1)
    if a.size == 1:
        a = np.full(n, a.item())
    if a.shape != (n,):
        raise ExcitationError(f'{what}: expected 1 or {n} values, got {a.size}')
    return a


def tool_heights(robot: RobotModel, Q):
    """z (root frame) of the tool frame origin at each row of Q."""
    import pinocchio as pin

    z = np.empty(len(Q))
    for k, q in enumerate(Q):
        pin.framesForwardKinematics(robot.model, robot.data, robot.q_pin(q))
        z[k] = robot.data.oMf[robot.tool_frame_id].translation[2]
    return z


def constraint_report(robot: RobotModel, traj: FourierTrajectory, limits: ExcitationLimits, samples=None):
    """Worst use of each limit over a dense grid of one period, as ratios (<= 1 means satisfied):
    position (excursion / allowed half-band, about the band centre), velocity, acceleration, and
    the floor clearance (min tool z - floor, m; >= 0 satisfied). Also 'ok' and 'samples'."""
    if samples is None:
        samples = DENSE_SAMPLES_PER_HARMONIC * traj.harmonics + 1
    t = np.linspace(0.0, traj.period_s, int(samples), endpoint=False)
    q, qd, qdd = traj.evaluate(t)
    return _report(robot, q, qd, qdd, limits) | {'samples': int(samples)}


def _report(robot, q, qd, qdd, limits):
    mid = 0.5 * (limits.q_lower + limits.q_upper)
    half = 0.5 * (limits.q_upper - limits.q_lower)
    fin = np.isfinite(half)
    pos = float(np.max(np.abs(q[:, fin] - mid[fin]) / half[fin])) if fin.any() else 0.0
    vel = float(np.max(np.abs(qd) / limits.qd_max))
    acc = float(np.max(np.abs(qdd) / limits.qdd_max))
    clearance = None
    if limits.floor_z_m is not None:
        clearance = float(np.min(tool_heights(robot, q)) - limits.floor_z_m)
    ok = pos <= 1 + 1e-9 and vel <= 1 + 1e-9 and acc <= 1 + 1e-9 and (clearance is None or clearance >= -1e-9)
    return {'position_ratio': pos, 'velocity_ratio': vel, 'acceleration_ratio': acc,
            'floor_clearance_m': clearance, 'ok': bool(ok)}


# ---------------------------------------------------------------------------------------------
# the design problem
# ---------------------------------------------------------------------------------------------
class ExcitationProblem:
    """Parametrisation (rest at q_start), bases on time grids, criterion and constraints.

    The decision vector x holds, per joint, a_j1..a_j(N-1) then b_j1..b_j(N-1) (rad/s); q(t) is
    q_start + B_q(t) x_j per joint (linear), likewise qd and qdd.
    """

    def __init__(self, robot: RobotModel, regressor_options=RegressorOptions(), period_s=10.0, harmonics=5,
                 limits: ExcitationLimits = None, q_start=None, criterion='cond', observation_samples=None,
                 constraint_samples=None):
        self.robot = robot
        n = robot.n
        self.n = n
        period_s = float(period_s)
        if not (np.isfinite(period_s) and period_s > 0):
            raise ExcitationError(f'period must be a positive number of seconds, got {period_s}')
        harmonics = int(harmonics)
        if harmonics < 2:
            raise ExcitationError(f'need at least 2 harmonics to start and end at rest, got {harmonics}')
        if criterion not in ('cond', 'logdet'):
            raise ExcitationError(f'unknown criterion {criterion!r}; use "cond" or "logdet"')
        self.period_s, self.N, self.criterion = period_s, harmonics, criterion
        self.w = 2 * np.pi / period_s
        self.limits = limits or ExcitationLimits.from_robot(robot)
        self.regressor = Regressor(robot, regressor_options)
        self.base = compute_base_parameters(self.regressor)
        nb = self.base.n_base
        if observation_samples is None:
            observation_samples = max(8 * harmonics, int(np.ceil(3 * nb / n)), 40)
        observation_samples = int(observation_samples)
        need = max(2 * harmonics + 1, int(np.ceil(nb / n)))
        if observation_samples < need:
            raise ExcitationError(f'{observation_samples} observation samples per period are too few for '
                                  f'{harmonics} harmonics and {nb} base parameters; use at least {need}')
        if constraint_samples is None:
            constraint_samples = max(24 * harmonics, 96)
        constraint_samples = int(constraint_samples)
        if constraint_samples < 4 * harmonics:
            raise ExcitationError(f'{constraint_samples} constraint samples per period are too few for '
                                  f'{harmonics} harmonics; use at least {4 * harmonics}')
        # start pose
        lim = self.limits
        if q_start is None:
            q_start = np.where(np.isfinite(lim.q_lower + lim.q_upper), 0.5 * (lim.q_lower + lim.q_upper), 0.0)
        q_start = _per_joint(q_start, n, 'start pose')
        outside = [f'{robot.joint_names[i]} ({q_start[i]:.3f} not in [{lim.q_lower[i]:.3f}, {lim.q_upper[i]:.3f}])'
                   for i in range(n) if not lim.q_lower[i] <= q_start[i] <= lim.q_upper[i]]
        if outside:
            raise ExcitationError(f'start pose is outside the allowed position band for {"; ".join(outside)}; '
                                  f'choose another start pose or raise the position fraction')
        self.q_start = q_start
        if lim.floor_z_m is not None:
            z0 = tool_heights(robot, q_start[None])[0]
            if z0 < lim.floor_z_m:
                raise ExcitationError(f'the tool is {z0:.3f} m high at the start pose, below the floor at '
                                      f'{lim.floor_z_m:.3f} m; lower --floor-z or choose another start pose')
        self.t_obs = np.arange(observation_samples) * period_s / observation_samples
        self.t_con = np.arange(constraint_samples) * period_s / constraint_samples
        self.Bobs = self._bases(self.t_obs)
        self.Bcon = self._bases(self.t_con)
        self.nx_joint = 2 * (harmonics - 1)
        self.nx = n * self.nx_joint

    # --- parametrisation ----------------------------------------------------------------
    def _bases(self, t):
        """(Bq, Bqd, Bqdd), each (len(t), 2(N-1)): per-joint maps from [a_1..a_{N-1}, b_1..b_{N-1}]."""
        N, w = self.N, self.w
        l = np.arange(1, N + 1)
        ph = np.outer(t, w * l)
        S, C = np.sin(ph), np.cos(ph)
        Ea = np.vstack([np.eye(N - 1), -np.ones((1, N - 1))])                 # a = Ea xa
        Eb = np.vstack([np.eye(N - 1), -(l[:-1] / N)[None, :]])                # b = Eb xb
        wl = w * l
        Bq = np.hstack([(S / wl) @ Ea, ((1 - C) / wl) @ Eb])
        Bqd = np.hstack([C @ Ea, S @ Eb])
        Bqdd = np.hstack([(-S * wl) @ Ea, (C * wl) @ Eb])
        return Bq, Bqd, Bqdd

    def coefficients(self, x):
        """(a, b, q0) of the trajectory of x."""
        X = np.asarray(x, dtype=float).reshape(self.n, self.nx_joint)
        N, w = self.N, self.w
        l = np.arange(1, N + 1)
        xa, xb = X[:, :N - 1], X[:, N - 1:]
        a = np.hstack([xa, -xa.sum(axis=1, keepdims=True)])
        b = np.hstack([xb, -(xb @ l[:-1])[:, None] / N])
        q0 = self.q_start + (b / (w * l)).sum(axis=1)
        return a, b, q0

    def trajectory(self, x, design=None):
        a, b, q0 = self.coefficients(x)
        return FourierTrajectory(self.robot.joint_names, self.period_s, a, b, q0, design=design or {},
                                 robot_name=self.robot.robot_name)

    def states(self, x, bases):
        X = np.asarray(x, dtype=float).reshape(self.n, self.nx_joint)
        Bq, Bqd, Bqdd = bases
        return self.q_start + Bq @ X.T, Bqd @ X.T, Bqdd @ X.T

    # --- criterion ----------------------------------------------------------------------
    def observation_matrix(self, x):
        Q, QD, QDD = self.states(x, self.Bobs)
        return self.base.base_regressor(self.regressor.stack(Q, QD, QDD))

    def measures(self, x):
        """(cond, logdet) of the base observation matrix; logdet = log det(W_b^T W_b)."""
        s = np.linalg.svd(self.observation_matrix(x), compute_uv=False)
        if s[-1] <= 0 or not np.isfinite(s).all():
            return np.inf, -np.inf
        return float(s[0] / s[-1]), float(2 * np.sum(np.log(s)))

    def objective(self, x):
        cond, logdet = self.measures(x)
        if self.criterion == 'cond':
            return np.log(cond) if np.isfinite(cond) else 1e3
        return -logdet / self.base.n_base if np.isfinite(logdet) else 1e3

    # --- constraints (>= 0 when satisfied), with exact Jacobians ------------------------
    def _linear_constraints(self, margin):
        lim = self.limits
        Bq, Bqd, Bqdd = self.Bcon
        n, k = self.n, self.nx_joint
        A_rows, b_rows = [], []
        fin = np.isfinite(lim.q_lower)
        for j in range(n):
            blocks = []
            if fin[j]:
                mid = 0.5 * (lim.q_lower[j] + lim.q_upper[j])
                half = 0.5 * (lim.q_upper[j] - lim.q_lower[j]) * (1 - margin)
                # mid - half <= q_start + Bq x <= mid + half
                blocks += [(-Bq, mid + half - self.q_start[j]), (Bq, self.q_start[j] - (mid - half))]
            vm, am = lim.qd_max[j] * (1 - margin), lim.qdd_max[j] * (1 - margin)
            blocks += [(-Bqd, vm), (Bqd, vm), (-Bqdd, am), (Bqdd, am)]
            for B, c in blocks:
                A = np.zeros((B.shape[0], self.nx))
                A[:, j * k:(j + 1) * k] = B
                A_rows.append(A)
                b_rows.append(np.full(B.shape[0], c))
        A = np.vstack(A_rows)
        c = np.concatenate(b_rows)
        # A x + c >= 0
        return A, c

    def _floor(self, x, margin_m=0.0):
        Q = self.states(x, self.Bcon)[0]
        return tool_heights(self.robot, Q) - self.limits.floor_z_m - margin_m

    def _floor_jac(self, x):
        import pinocchio as pin

        robot = self.robot
        Q = self.states(x, self.Bcon)[0]
        Bq = self.Bcon[0]
        k = self.nx_joint
        J = np.zeros((len(Q), self.nx))
        for g, q in enumerate(Q):
            Jf = pin.computeFrameJacobian(robot.model, robot.data, robot.q_pin(q), robot.tool_frame_id,
                                          pin.LOCAL_WORLD_ALIGNED)
            for j in range(self.n):
                J[g, j * k:(j + 1) * k] = Jf[2, j] * Bq[g]
        return J

    def report(self, x, samples=None):
        return constraint_report(self.robot, self.trajectory(x), self.limits, samples)

    # --- feasibility by scaling about q_start --------------------------------------------
    def max_feasible_scale(self, x, samples=None):
        """Largest s <= ~ the linear-limit bound such that s x satisfies every limit on the dense grid."""
        if samples is None:
            samples = DENSE_SAMPLES_PER_HARMONIC * self.N + 1
        t = np.linspace(0.0, self.period_s, int(samples), endpoint=False)
        B = self._bases(t)
        q, qd, qdd = self.states(x, B)
        dq = q - self.q_start
        lim = self.limits
        s = np.inf
        with np.errstate(divide='ignore', invalid='ignore'):
            up = np.where(dq > 0, (lim.q_upper - self.q_start) / dq, np.inf)
            dn = np.where(dq < 0, (lim.q_lower - self.q_start) / dq, np.inf)
            s = min(s, np.nanmin(up), np.nanmin(dn),
                    np.nanmin(lim.qd_max / np.abs(qd).max(axis=0)),
                    np.nanmin(lim.qdd_max / np.abs(qdd).max(axis=0)))
        if not np.isfinite(s):
            return 0.0
        s *= 1 - 1e-9
        if lim.floor_z_m is not None:
            for _ in range(60):
                qs = self.q_start + s * dq
                if np.min(tool_heights(self.robot, qs)) >= lim.floor_z_m:
                    break
                s *= 0.95
            else:
                return 0.0
        return float(s)

    def random_x(self, rng):
        """Random coefficients on every harmonic (uniform), scaled to the largest feasible size."""
        x = rng.uniform(-1.0, 1.0, self.nx)
        return x * self.max_feasible_scale(x)


@dataclass
class ExcitationResult:
    trajectory: FourierTrajectory
    cond: float                 # condition number of the base observation matrix
    logdet: float               # log det(W_b^T W_b)
    initial_cond: float         # of the (feasible, random) starting trajectory
    criterion: str
    iterations: int
    evaluations: int
    time_s: float
    n_base: int
    observation_samples: int
    constraints: dict           # dense-grid constraint_report of the result
    message: str = ''


def design_excitation(robot: RobotModel, regressor_options=RegressorOptions(), period_s=10.0, harmonics=5, *,
                      q_start=None, position_fraction=0.8, velocity_fraction=0.7, acceleration_fraction=0.7,
                      acceleration_limits_rad_s2=None, velocity_limits_rad_s=None, floor_z_m=0.0,
                      criterion='cond', max_iterations=100, restarts=1, observation_samples=None,
                      constraint_samples=None, progress=None, seed=0, max_cond=MAX_USABLE_COND) -> ExcitationResult:
    """Optimise a finite-Fourier-series excitation (see the module docstring).

    robot: the arm; regressor_options: which friction / rotor / offset columns are identified with
    the inertia (their columns enter the observation matrix); period_s: T (s); harmonics: N;
    q_start: start/end pose (rad; default the middle of each joint's range); fractions of the
    position range, velocity and acceleration limits; floor_z_m: lowest tool height (m) in the
    root frame, None for no floor; criterion: 'cond' (minimise the condition number) or 'logdet'
    (maximise log det W_b^T W_b); max_iterations: SLSQP iterations per start; restarts: random
    starts (the best is kept); progress: callable(dict) with keys stage, start, iteration, cond,
    logdet, elapsed_s, called at every iteration; seed: random seed of the starting points;
    max_cond: a best design whose condition number is above this is an error (the limits leave too
    little motion to identify the base parameters).

    Returns an ExcitationResult whose trajectory satisfies every limit on the dense grid.
    """
    t0 = time.monotonic()
    limits = ExcitationLimits.from_robot(robot, position_fraction, velocity_fraction, acceleration_fraction,
                                         acceleration_limits_rad_s2, velocity_limits_rad_s, floor_z_m)
    prob = ExcitationProblem(robot, regressor_options, period_s, harmonics, limits, q_start, criterion,
                             observation_samples, constraint_samples)
    rng = np.random.default_rng(seed)
    # SLSQP sees the limits on the coarser constraint grid, tightened so that its final iterates
    # (which may violate constraints slightly) pass the dense check without being scaled down
    A, c = prob._linear_constraints(OPTIMISATION_MARGIN)
    cons = [{'type': 'ineq', 'fun': lambda x: A @ x + c, 'jac': lambda x: A}]
    if limits.floor_z_m is not None:
        cons.append({'type': 'ineq', 'fun': lambda x: prob._floor(x, FLOOR_MARGIN_M), 'jac': prob._floor_jac})
    counter = {'evals': 0, 'iterations': 0}

    def fun(x):
        counter['evals'] += 1
        return prob.objective(x)

    def emit(stage, start, it, x):
        if progress is not None:
            cond, logdet = prob.measures(x)
            progress({'stage': stage, 'start': start, 'iteration': it, 'cond': cond, 'logdet': logdet,
                      'elapsed_s': time.monotonic() - t0})

    restarts = max(1, int(restarts))
    best = {'x': None, 'val': np.inf, 'msg': ''}
    initial_cond = None

    def feasible(x):
        return prob.report(x)['ok']

    def repair(x_good, x_bad, steps=10):
        """Largest step from the feasible x_good towards x_bad that is feasible on the dense grid."""
        lo, hi = 0.0, 1.0
        for _ in range(steps):
            mid = 0.5 * (lo + hi)
            if feasible(x_good + mid * (x_bad - x_good)):
                lo = mid
            else:
                hi = mid
        return x_good + lo * (x_bad - x_good)

    # SLSQP may leave the feasible set (and can get trapped against the floor at a joint-limit
    # corner). It runs in chunks; each chunk restarts from the best design that passes the dense
    # check, found among the iterates or by a line search back from the last iterate.
    chunk = max(5, min(20, int(max_iterations)))
    for r in range(restarts):
        x0 = prob.random_x(rng)
        if not np.any(x0):
            raise ExcitationError('no trajectory fits the limits: even a small motion from the start pose '
                                  'violates them; widen the fractions, lower --floor-z or move the start pose')
        c0 = prob.measures(x0)[0]
        if initial_cond is None:
            initial_cond = c0
        start = {'x': x0, 'val': prob.objective(x0)}
        emit('start', r, 0, x0)
        it = {'k': 0}

        def cb(xk, r=r, it=it):
            it['k'] += 1
            counter['iterations'] += 1
            val = prob.objective(xk)
            if val < start['val'] and feasible(xk):
                start['x'], start['val'] = xk.copy(), val
            emit('optimise', r, it['k'], xk)

        while it['k'] < max_iterations:
            before = start['val']
            res = scipy.optimize.minimize(fun, start['x'], method='SLSQP', constraints=cons, callback=cb,
                                          options={'maxiter': min(chunk, int(max_iterations) - it['k']),
                                                   'ftol': 1e-7})
            best['msg'] = res.message
            if not feasible(res.x):
                xr = repair(start['x'], res.x)
                vr = prob.objective(xr)
                if vr < start['val']:
                    start['x'], start['val'] = xr, vr
            elif prob.objective(res.x) < start['val']:
                start['x'], start['val'] = res.x.copy(), prob.objective(res.x)
            if res.success or start['val'] > before - 1e-4:
                break   # converged, or a chunk brought no progress
        if start['val'] < best['val']:
            best['x'], best['val'] = start['x'], start['val']
    x = best['x']
    rep = prob.report(x)
    msg = best['msg']
    cond, logdet = prob.measures(x)
    if not np.isfinite(cond) or cond > max_cond:
        raise ExcitationError(f'the limits allow no trajectory that excites all {prob.base.n_base} base parameters '
                              f'(best condition number {cond:.3g} > {max_cond:.3g}); widen the position, velocity '
                              f'or acceleration limits, or add harmonics')
    if not rep['ok']:
        raise ExcitationError(f'no trajectory satisfying every limit was found ({rep}); widen the limits')
    elapsed = time.monotonic() - t0
    design = {
        'criterion': criterion, 'cond': cond, 'logdet': logdet, 'initial_cond': initial_cond,
        'n_base': prob.base.n_base, 'observation_samples': len(prob.t_obs),
        'regressor_options': regressor_options.to_dict(), 'tool_frame': robot.tool_frame,
        'position_fraction': position_fraction, 'velocity_fraction': velocity_fraction,
        'acceleration_fraction': acceleration_fraction,
        'acceleration_limits_default': acceleration_limits_rad_s2 is None,
        'limits': limits.to_dict(), 'constraints_dense_grid': rep, 'optimisation_time_s': elapsed,
        'seed': seed, 'restarts': restarts, 'urdf_sha256': robot.urdf_sha256,
    }
    traj = prob.trajectory(x, design)
    emit('done', restarts - 1, counter['iterations'], x)
    return ExcitationResult(traj, cond, logdet, initial_cond, criterion, counter['iterations'], counter['evals'],
                            elapsed, prob.base.n_base, len(prob.t_obs), rep, str(msg))


def peak_torque_fraction(robot: RobotModel, traj: FourierTrajectory, samples=2000, friction=None):
    """Largest |tau_j| / effort limit_j along one period, with the URDF's rigid-body model (plus
    ``friction``, a FrictionModel, when given): a trajectory the drives cannot follow saturates them
    and its tracking error grows. Returns (overall max, per-joint max)."""
    t = np.linspace(0.0, traj.period_s, samples, endpoint=False)
    Q, QD, QDD = traj.evaluate(t)
    tau = np.array([robot.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    if friction is not None:
        tau = tau + np.abs(friction.torque(QD))
    per_joint = np.abs(tau).max(axis=0) / robot.limits.effort_nm
    return float(per_joint.max()), per_joint


def design_within_torque(robot: RobotModel, regressor_options=RegressorOptions(), *, max_torque_fraction=0.8,
                         attempts=8, friction=None, seed=0, report=None, **design_kwargs):
    """``design_excitation`` until a design needs at most ``max_torque_fraction`` of every drive's
    torque limit (``peak_torque_fraction``, URDF model plus ``friction`` when given): the design's
    constraints are kinematic, and a trajectory that saturates a drive is not followed. Tries the
    seeds seed, seed + 1, ...; ``report(seed, peak)`` is called for every rejected design.
    Returns (ExcitationResult, peak fraction, per-joint fractions, seed used)."""
    best = None
    for k in range(attempts):
        res = design_excitation(robot, regressor_options, seed=seed + k, **design_kwargs)
        peak, per_joint = peak_torque_fraction(robot, res.trajectory, friction=friction)
        if peak <= max_torque_fraction:
            return res, peak, per_joint, seed + k
        if report is not None:
            report(seed + k, peak)
        if best is None or peak < best:
            best = peak
    raise ExcitationError(f'no design within {100 * max_torque_fraction:.0f} % of the drives\' torque limits in '
                          f'{attempts} attempts (best {100 * best:.0f} %): lower --velocity-fraction / '
                          '--acceleration-fraction or --position-fraction, or raise --max-torque-fraction')


def trajectory_measures(robot: RobotModel, traj: FourierTrajectory, regressor_options=RegressorOptions(),
                        observation_samples=None):
    """(cond, logdet) of the base observation matrix of ``traj`` over one period, sampled like
    ``design_excitation`` (default max(8 N, 3 n_base / n, 40) samples per period)."""
    reg = Regressor(robot, regressor_options)
    base = compute_base_parameters(reg)
    if tuple(traj.joint_names) != tuple(robot.joint_names):
        raise ExcitationError(f'trajectory joints {traj.joint_names} do not match the model {robot.joint_names}')
    if observation_samples is None:
        observation_samples = max(8 * traj.harmonics, int(np.ceil(3 * base.n_base / robot.n)), 40)
    t = np.arange(int(observation_samples)) * traj.period_s / int(observation_samples)
    W = base.base_regressor(reg.stack(*traj.evaluate(t)))
    s = np.linalg.svd(W, compute_uv=False)
    if s[-1] <= 0:
        return np.inf, -np.inf
    return float(s[0] / s[-1]), float(2 * np.sum(np.log(s)))


def plot_trajectory(traj: FourierTrajectory, path, limits: ExcitationLimits = None, title=None):
    """PNG of q, qd, qdd over one period (dashed: limits when given)."""
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    t = np.linspace(0, traj.period_s, DENSE_SAMPLES_PER_HARMONIC * traj.harmonics + 1)
    q, qd, qdd = traj.evaluate(t)
    fig, axes = plt.subplots(3, 1, figsize=(10, 9), sharex=True)
    for ax, Y, lab in zip(axes, (q, qd, qdd), ('position (rad)', 'velocity (rad/s)', 'acceleration (rad/s$^2$)')):
        for j in range(traj.n):
            ax.plot(t, Y[:, j], label=traj.joint_names[j], color=f'C{j}')
        ax.set_ylabel(lab)
        ax.grid(alpha=0.3)
    if limits is not None:
        for j in range(traj.n):
            col = f'C{j}'
            if np.isfinite(limits.q_lower[j]):
                axes[0].axhline(limits.q_lower[j], color=col, ls='--', lw=0.8)
                axes[0].axhline(limits.q_upper[j], color=col, ls='--', lw=0.8)
            for ax, m in ((axes[1], limits.qd_max[j]), (axes[2], limits.qdd_max[j])):
                ax.axhline(m, color=col, ls='--', lw=0.8)
                ax.axhline(-m, color=col, ls='--', lw=0.8)
    axes[0].legend(loc='upper right', fontsize=8, ncol=min(traj.n, 4))
    axes[-1].set_xlabel('time (s)')
    cond = traj.design.get('cond')
    axes[0].set_title(title or (f'excitation: T = {traj.period_s:g} s, N = {traj.harmonics}'
                                + (f', cond = {cond:.4g}' if cond is not None else '')))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
