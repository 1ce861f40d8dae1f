"""ROS-free building blocks of the recorders (static poses, excitation trajectory, friction sweeps).

* ``SafetyLimits``: joint-limit margin, maximum velocity and acceleration of every commanded motion.
* Poses: ``check_poses`` (limits with margin, floor plane), ``generate_poses`` (a set of N poses
  whose stacked gravity regressor is well conditioned; condition number reported),
  ``order_poses`` (short travel).
* Motions: ``plan_point_to_point`` (quintic time scaling, synchronised joints, duration chosen so
  velocity and acceleration stay within limits), ``plan_transition`` (quintic between two full
  states, for ramping into and out of an excitation), ``plan_approach`` (overshoot waypoint so a
  pose is reached moving in a chosen direction), ``sample_for_command`` (points for a
  JointTrajectory message).
* Holding still: ``SettleDetector`` (velocity below a threshold for a dwell time, with a timeout)
  and ``average_window`` (zero-phase low-pass then average; mean, standard deviation, count).
* Friction sweeps: ``plan_friction_sweep`` (constant-velocity passes of one joint, symmetric about
  the angle where its gravity torque is extreme or zero, forward and back at each speed) and
  ``pair_sweep_passes`` (forward/backward pairing: half difference = friction, gravity cancels).
* Driver statistics: ``timing_stats`` (rate, jitter, gaps) and ``TrackingMonitor``.
* ``PartedBagWriter``: a rosbag2 bag directory written in parts; each ``commit()`` closes the
  current MCAP part and atomically rewrites ``metadata.yaml`` to list every completed part, so a
  recorder killed with SIGKILL leaves a bag that ``bag_io.read_joint_states`` reads (holding every
  committed part), and ``resume=True`` continues it.
"""
from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from robot_id_ros.io.files import atomic_write_text
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.errors import InputError, OperationError


class RecordingError(OperationError):
    """A recording that cannot go on; the message says what happened and where the data is."""


class PoseError(InputError):
    """A pose (or pose list) that cannot be used; the message names the pose and the joint."""


# ---------------------------------------------------------------------------------------------
# safety limits
# ---------------------------------------------------------------------------------------------
# Conservative defaults for a real youBot (data sheet: 90 deg/s per axis; URDF velocity pi/2):
YOUBOT_SAFE_MARGIN_RAD = 0.10         # 5.7 deg inside every mechanical limit
YOUBOT_SAFE_VELOCITY_RAD_S = 0.5      # about a third of the 1.57 rad/s drive limit
YOUBOT_SAFE_ACCELERATION_RAD_S2 = 1.0


@dataclass
class SafetyLimits:
    margin_rad: float = YOUBOT_SAFE_MARGIN_RAD
    max_velocity_rad_s: np.ndarray | float = YOUBOT_SAFE_VELOCITY_RAD_S
    max_acceleration_rad_s2: np.ndarray | float = YOUBOT_SAFE_ACCELERATION_RAD_S2

    def vectors(self, n):
        v = np.broadcast_to(np.asarray(self.max_velocity_rad_s, float), (n,)).copy()
        a = np.broadcast_to(np.asarray(self.max_acceleration_rad_s2, float), (n,)).copy()
        if not (np.all(v > 0) and np.all(a > 0) and np.all(np.isfinite(v)) and np.all(np.isfinite(a))):
            raise ValueError(f'velocity and acceleration limits must be positive and finite, got {v}, {a}')
        if not self.margin_rad >= 0:
            raise ValueError(f'joint limit margin must be >= 0, got {self.margin_rad}')
        return v, a

    def bounds(self, robot: RobotModel):
        lo = robot.limits.lower_rad + self.margin_rad
        hi = robot.limits.upper_rad - self.margin_rad
        return np.where(np.isfinite(lo), lo, -np.pi), np.where(np.isfinite(hi), hi, np.pi)


# ---------------------------------------------------------------------------------------------
# poses
# ---------------------------------------------------------------------------------------------
def floor_check_frames(robot: RobotModel, first_joint=2):
    """Frame ids whose origins must stay above the floor: every body from joint ``first_joint``
    (0-based) outward, plus the tool frame."""
    import pinocchio as pin

    ids = []
    for fid, f in enumerate(robot.model.frames):
        if f.parentJoint >= first_joint + 1 and f.type == pin.FrameType.BODY:
            ids.append(fid)
    ids.append(robot.tool_frame_id)
    return sorted(set(ids))


def lowest_point_z(robot: RobotModel, q, frame_ids=None):
    """(z, frame name) of the lowest checked frame origin at q, in the URDF root frame."""
    import pinocchio as pin

    frame_ids = floor_check_frames(robot) if frame_ids is None else frame_ids
    pin.framesForwardKinematics(robot.model, robot.data, robot.q_pin(q))
    zs = [(robot.data.oMf[i].translation[2], robot.model.frames[i].name) for i in frame_ids]
    return min(zs)


def check_poses(robot: RobotModel, poses, margin_rad, floor_z_m=None, floor_clearance_m=0.0):
    """Raise ``PoseError`` for the first pose outside the limits (with margin) or below the floor."""
    poses = np.asarray(poses, dtype=float)
    if poses.ndim != 2 or poses.shape[1] != robot.n:
        raise PoseError(f'poses must be a list of {robot.n}-value joint vectors ({", ".join(robot.joint_names)}), '
                        f'got an array of shape {poses.shape}')
    if poses.shape[0] == 0:
        raise PoseError('the pose list is empty')
    frames = floor_check_frames(robot)
    for i, q in enumerate(poses):
        if not np.all(np.isfinite(q)):
            raise PoseError(f'pose {i} has a non-finite value: {q.tolist()}')
        for j in range(robot.n):
            lo = robot.limits.lower_rad[j] + margin_rad
            hi = robot.limits.upper_rad[j] - margin_rad
            if not lo <= q[j] <= hi:
                raise PoseError(f'pose {i}: {robot.joint_names[j]} = {q[j]:.4f} rad is outside its limits '
                                f'with margin [{lo:.4f}, {hi:.4f}] rad (limits [{robot.limits.lower_rad[j]:.4f}, '
                                f'{robot.limits.upper_rad[j]:.4f}], margin {margin_rad:.3f})')
        if floor_z_m is not None:
            z, name = lowest_point_z(robot, q, frames)
            if z < floor_z_m + floor_clearance_m:
                raise PoseError(f'pose {i} is unreachable: frame {name} would be at z = {z:.3f} m, below the floor '
                                f'plane z = {floor_z_m:.3f} m + clearance {floor_clearance_m:.3f} m')
    return poses


def gravity_free_joints(robot: RobotModel, rng=None, tol=1e-9):
    """Indices of joints whose angle never changes any gravity torque (e.g. a first joint with a
    vertical axis): static poses need not vary them."""
    rng = np.random.default_rng(0) if rng is None else rng
    Q = robot.random_configurations(8, rng)
    free = []
    for j in range(robot.n):
        diff = 0.0
        for q in Q:
            q2 = q.copy()
            q2[j] = q[j] + 0.7
            diff = max(diff, np.max(np.abs(robot.gravity_torque(q) - robot.gravity_torque(q2))))
        if diff < tol:
            free.append(j)
    return free


@dataclass
class PoseSet:
    poses: np.ndarray                 # (N, n)
    condition_number: float           # of the column-normalised base static regressor
    n_base: int
    base_names: tuple
    candidates: int = 0


def static_base(robot: RobotModel, offset=False):
    """(Regressor, BaseParameters) of the static (gravity) regressor."""
    from robot_id_ros.model.base_parameters import compute_base_parameters
    from robot_id_ros.model.regressor import Regressor, RegressorOptions

    reg = Regressor(robot, RegressorOptions(offset=offset))
    return reg, compute_base_parameters(reg, static=True)


def static_condition_number(robot: RobotModel, poses, base=None, regressor=None):
    """Condition number of the column-normalised base gravity regressor of ``poses``."""
    if base is None:
        regressor, base = static_base(robot)
    W = base.base_regressor(regressor.static(np.asarray(poses, float)))
    return _cond_normalised(W)


def _cond_normalised(W):
    norms = np.linalg.norm(W, axis=0)
    norms[norms == 0] = 1.0
    s = np.linalg.svd(W / norms, compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else float('inf')


def generate_poses(robot: RobotModel, count, margin_rad, floor_z_m=None, floor_clearance_m=0.0, seed=0,
                   candidates=400, hold=None, hold_free_joints=True, swap_passes=2) -> PoseSet:
    """N poses within limits (with margin) and above the floor that make the base gravity
    regressor well conditioned: greedy D-optimal selection from random candidates, then
    swap passes minimising the condition number.

    hold: {joint index: angle} held fixed in every pose; with ``hold_free_joints``, joints that do
    not change gravity (``gravity_free_joints``) are held at the middle of their range unless given.
    """
    regressor, base = static_base(robot)
    nb = base.n_base
    count = int(count)
    if count * robot.n < nb or count < 2:
        raise PoseError(f'{count} poses cannot identify the {nb} base gravity parameters; use at least '
                        f'{max(2, math.ceil(nb / robot.n))} (several times that is better)')
    rng = np.random.default_rng(seed)
    lo = robot.limits.lower_rad + margin_rad
    hi = robot.limits.upper_rad - margin_rad
    if np.any(lo >= hi):
        raise PoseError(f'joint limit margin {margin_rad} rad leaves no range for '
                        f'{robot.joint_names[int(np.argmax(lo >= hi))]}')
    hold = dict(hold or {})
    if hold_free_joints:
        for j in gravity_free_joints(robot):
            hold.setdefault(j, 0.5 * (lo[j] + hi[j]))
    frames = floor_check_frames(robot)
    cand, tries = [], 0
    while len(cand) < candidates:
        tries += 1
        if tries > 50 * candidates:
            break
        q = lo + (hi - lo) * rng.random(robot.n)
        for j, v in hold.items():
            q[j] = v
        if floor_z_m is not None and lowest_point_z(robot, q, frames)[0] < floor_z_m + floor_clearance_m:
            continue
        cand.append(q)
    if len(cand) < count:
        raise PoseError(f'only {len(cand)} of {tries} random poses are above the floor with clearance; '
                        'lower the floor, the clearance or the joint margin')
    cand = np.array(cand)
    blocks = np.stack([base.base_regressor(regressor.static(q[None])) for q in cand])  # (C, n, nb)
    scale = np.linalg.norm(blocks.reshape(-1, nb), axis=0)
    scale[scale == 0] = 1.0
    blocks = blocks / scale
    # greedy D-optimal with a small ridge so the first picks are defined
    chosen = []
    info = 1e-6 * np.eye(nb)
    for _ in range(count):
        best, best_val = None, -np.inf
        for c in range(len(cand)):
            if c in chosen:
                continue
            val = np.linalg.slogdet(info + blocks[c].T @ blocks[c])[1]
            if val > best_val:
                best, best_val = c, val
        chosen.append(best)
        info = info + blocks[best].T @ blocks[best]

    def cond_of(idx):
        return _cond_normalised(np.concatenate([blocks[i] for i in idx]))

    cur = cond_of(chosen)
    for _ in range(swap_passes):
        improved = False
        for k in range(count):
            for c in rng.permutation(len(cand))[:60]:
                if c in chosen:
                    continue
                trial = chosen.copy()
                trial[k] = c
                v = cond_of(trial)
                if v < cur:
                    chosen, cur, improved = trial, v, True
        if not improved:
            break
    poses = order_poses(cand[chosen])
    return PoseSet(poses, static_condition_number(robot, poses, base, regressor), nb, base.names, len(cand))


def order_poses(poses, start=None, weights=None):
    """Nearest-neighbour ordering (max-joint distance) to keep travel between poses short."""
    poses = np.asarray(poses, float)
    w = np.ones(poses.shape[1]) if weights is None else np.asarray(weights, float)
    left = list(range(len(poses)))
    cur = poses[0] if start is None else np.asarray(start, float)
    out = []
    while left:
        d = [np.max(np.abs(poses[i] - cur) * w) for i in left]
        i = left.pop(int(np.argmin(d)))
        out.append(poses[i])
        cur = poses[i]
    return np.array(out)


def load_pose_list(data, joint_names):
    """Poses from a parsed YAML: a list of joint vectors, or of {joint name: angle} mappings, or a
    dict with key ``poses`` holding either. Returns an (N, n) array in ``joint_names`` order."""
    if isinstance(data, dict) and 'poses' in data:
        data = data['poses']
    if not isinstance(data, (list, tuple)) or not data:
        raise PoseError('pose file must hold a non-empty list of poses (or a mapping with key "poses")')
    out = []
    for i, p in enumerate(data):
        if isinstance(p, dict):
            missing = [n for n in joint_names if n not in p]
            if missing:
                raise PoseError(f'pose {i} has no value for joint(s) {", ".join(missing)}')
            out.append([float(p[n]) for n in joint_names])
        else:
            try:
                v = [float(x) for x in p]
            except (TypeError, ValueError) as exc:
                raise PoseError(f'pose {i} is not a list of numbers: {p!r}') from exc
            if len(v) != len(joint_names):
                raise PoseError(f'pose {i} has {len(v)} values for {len(joint_names)} joints '
                                f'({", ".join(joint_names)})')
            out.append(v)
    return np.array(out)


# ---------------------------------------------------------------------------------------------
# motions
# ---------------------------------------------------------------------------------------------
# quintic 10s^3 - 15s^4 + 6s^5: peak ds/dtau = 15/8, peak d2s/dtau2 = 10/sqrt(3)
_QV, _QA = 15.0 / 8.0, 10.0 / math.sqrt(3.0)


class Motion:
    """A planned joint motion: ``evaluate(t)`` -> (q, qd, qdd) for 0 <= t <= duration_s (held after)."""

    duration_s: float

    def evaluate(self, t):  # pragma: no cover - interface
        raise NotImplementedError


class QuinticMove(Motion):
    """Straight line in joint space from q0 to q1 with quintic time scaling (rest to rest)."""

    def __init__(self, q0, q1, duration_s):
        self.q0 = np.asarray(q0, float)
        self.q1 = np.asarray(q1, float)
        self.duration_s = float(duration_s)

    def evaluate(self, t):
        T = self.duration_s
        d = self.q1 - self.q0
        if T <= 0:
            return self.q1.copy(), np.zeros_like(d), np.zeros_like(d)
        s = min(max(t / T, 0.0), 1.0)
        p = 10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5
        v = (30 * s ** 2 - 60 * s ** 3 + 30 * s ** 4) / T
        a = (60 * s - 180 * s ** 2 + 120 * s ** 3) / T ** 2
        return self.q0 + p * d, v * d, a * d


def point_to_point_duration(q0, q1, max_velocity, max_acceleration, min_duration_s=0.0):
    d = np.abs(np.asarray(q1, float) - np.asarray(q0, float))
    tv = _QV * d / max_velocity
    ta = np.sqrt(_QA * d / max_acceleration)
    return float(max(min_duration_s, np.max(tv), np.max(ta)))


def plan_point_to_point(q0, q1, limits: SafetyLimits, min_duration_s=0.0):
    v, a = limits.vectors(len(np.atleast_1d(q0)))
    return QuinticMove(q0, q1, point_to_point_duration(q0, q1, v, a, min_duration_s))


class Sequence(Motion):
    """Motions one after the other."""

    def __init__(self, parts):
        self.parts = list(parts)
        self.starts = np.cumsum([0.0] + [p.duration_s for p in self.parts])
        self.duration_s = float(self.starts[-1])

    def evaluate(self, t):
        k = int(np.clip(np.searchsorted(self.starts, t, side='right') - 1, 0, len(self.parts) - 1))
        return self.parts[k].evaluate(t - self.starts[k])


def plan_approach(q_from, q_to, direction, overshoot_rad, limits: SafetyLimits, lower, upper, settle_s=0.0):
    """Move to ``q_to`` arriving with every joint moving in ``direction`` (+1 or -1): first to the
    waypoint q_to - direction * overshoot (clipped to [lower, upper]), then to q_to.

    Returns (Motion, per-joint approach sign actually achieved: +-1, or 0 where the limit left no room).
    """
    q_to = np.asarray(q_to, float)
    via = np.clip(q_to - direction * overshoot_rad, lower, upper)
    moved = q_to - via
    signs = np.where(np.abs(moved) > 1e-6, np.sign(moved), 0.0).astype(int)
    first = plan_point_to_point(q_from, via, limits)
    second = plan_point_to_point(via, q_to, limits)
    parts = [first, second]
    if settle_s > 0:
        parts.insert(1, QuinticMove(via, via, settle_s))
    return Sequence(parts), signs


class QuinticTransition(Motion):
    """Quintic polynomial per joint between two full states (q, qd, qdd) over ``duration_s``."""

    def __init__(self, start, end, duration_s):
        self.duration_s = T = float(duration_s)
        q0, v0, a0 = (np.asarray(x, float) for x in start)
        q1, v1, a1 = (np.asarray(x, float) for x in end)
        M = np.array([[T ** 3, T ** 4, T ** 5], [3 * T ** 2, 4 * T ** 3, 5 * T ** 4], [6 * T, 12 * T ** 2, 20 * T ** 3]])
        rhs = np.stack([q1 - q0 - v0 * T - 0.5 * a0 * T ** 2, v1 - v0 - a0 * T, a1 - a0])
        c345 = np.linalg.solve(M, rhs)
        self.c = np.stack([q0, v0, 0.5 * a0, *c345])  # (6, n)

    def evaluate(self, t):
        t = min(max(t, 0.0), self.duration_s)
        c = self.c
        q = sum(c[k] * t ** k for k in range(6))
        qd = sum(k * c[k] * t ** (k - 1) for k in range(1, 6))
        qdd = sum(k * (k - 1) * c[k] * t ** (k - 2) for k in range(2, 6))
        return q, qd, qdd


def motion_peaks(motion: Motion, dt=0.01):
    """(max |qd|, max |qdd|, min q, max q) per joint over the motion, by sampling."""
    ts = np.arange(0.0, motion.duration_s + dt, dt)
    S = [motion.evaluate(t) for t in ts]
    Q = np.array([s[0] for s in S])
    V = np.array([s[1] for s in S])
    A = np.array([s[2] for s in S])
    return np.max(np.abs(V), 0), np.max(np.abs(A), 0), Q.min(0), Q.max(0)


def plan_transition(start, end, limits: SafetyLimits, lower, upper, min_duration_s=0.5, max_duration_s=120.0):
    """The shortest ``QuinticTransition`` (in steps of 10 %) within the velocity, acceleration and
    position limits. Raises ``RecordingError`` when none up to ``max_duration_s`` is."""
    n = len(np.atleast_1d(start[0]))
    v, a = limits.vectors(n)
    T = max(min_duration_s, point_to_point_duration(start[0], end[0], v, a))
    while T <= max_duration_s:
        m = QuinticTransition(start, end, T)
        vp, ap, qmin, qmax = motion_peaks(m, dt=min(0.02, T / 200))
        if np.all(vp <= v * 1.0001) and np.all(ap <= a * 1.0001) and np.all(qmin >= lower - 1e-9) \
                and np.all(qmax <= upper + 1e-9):
            return m
        T *= 1.1
    raise RecordingError('no smooth transition within the velocity/acceleration/position limits up to '
                         f'{max_duration_s:.0f} s: the excitation starts or ends too fast or too close to a limit')


def sample_for_command(motion: Motion, t0_s, t1_s, dt_s):
    """(times relative to t0, positions, velocities) sampled on [t0, t1] every dt (t1 included)."""
    ts = np.arange(t0_s, t1_s, dt_s)
    if len(ts) == 0 or ts[-1] < t1_s - 1e-9:
        ts = np.append(ts, t1_s)
    S = [motion.evaluate(t) for t in ts]
    return ts - t0_s, np.array([s[0] for s in S]), np.array([s[1] for s in S])


# ---------------------------------------------------------------------------------------------
# settling and averaging
# ---------------------------------------------------------------------------------------------
class SettleDetector:
    """Settled when every |velocity| stays below ``velocity_threshold`` for ``dwell_s``; timed out
    when that has not happened ``timeout_s`` after ``start``. Feed samples with ``update``.

    Velocity is the message's, or the position difference quotient when it has none.
    """

    def __init__(self, velocity_threshold_rad_s, dwell_s, timeout_s):
        self.threshold = float(velocity_threshold_rad_s)
        self.dwell_s = float(dwell_s)
        self.timeout_s = float(timeout_s)
        self.t_begin = None
        self.quiet_since = None
        self._last = None
        self.max_velocity = np.inf

    def start(self, t_s):
        self.t_begin = float(t_s)
        self.quiet_since = None
        self._last = None

    def update(self, t_s, q, qd=None):
        """'settling', 'settled' or 'timeout'."""
        if self.t_begin is None:
            self.start(t_s)
        q = np.asarray(q, float)
        if qd is None:
            if self._last is None or t_s <= self._last[0]:
                self._last = (t_s, q)
                return self._state(t_s)
            qd = (q - self._last[1]) / (t_s - self._last[0])
        self._last = (t_s, q)
        self.max_velocity = float(np.max(np.abs(qd)))
        if self.max_velocity < self.threshold:
            if self.quiet_since is None:
                self.quiet_since = t_s
        else:
            self.quiet_since = None
        return self._state(t_s)

    def _state(self, t_s):
        if self.quiet_since is not None and t_s - self.quiet_since >= self.dwell_s:
            return 'settled'
        if t_s - self.t_begin > self.timeout_s:
            return 'timeout'
        return 'settling'


@dataclass
class WindowStats:
    q_mean: np.ndarray
    effort_mean: np.ndarray        # of the low-pass filtered effort
    effort_std: np.ndarray         # of the raw effort samples (noise level)
    effort_std_filtered: np.ndarray
    samples: int
    rate_hz: float
    t_start_ns: int
    t_end_ns: int


def average_window(stamp_ns, q, effort, cutoff_hz=2.0, order=2):
    """Low-pass (zero phase, Butterworth) the efforts of a static window and average them.

    Falls back to the plain mean when the window is too short for the filter (a window of
    fewer than 20 samples raises). The filter cut-off is capped below Nyquist.
    """
    from robot_id_ros.identify.signals import lowpass_zero_phase

    stamp_ns = np.asarray(stamp_ns, dtype=np.int64)
    q = np.asarray(q, float)
    E = np.asarray(effort, float)
    N = len(stamp_ns)
    if N < 20:
        raise RecordingError(f'averaging window holds {N} samples; at least 20 are needed '
                             '(record a longer window or check the driver rate)')
    if E.shape[0] != N or q.shape[0] != N:
        raise ValueError('stamp, position and effort arrays differ in length')
    if not np.all(np.isfinite(E)):
        raise RecordingError('effort in the window is NaN/inf (does the driver publish effort?)')
    span = (stamp_ns[-1] - stamp_ns[0]) * 1e-9
    rate = (N - 1) / span if span > 0 else float('nan')
    if np.isfinite(rate) and cutoff_hz and cutoff_hz < 0.45 * rate and N > 6 * (2 * order + 1) * 2:
        F = lowpass_zero_phase(E, rate, cutoff_hz, order)
    else:
        F = E
    return WindowStats(q.mean(0), F.mean(0), E.std(0, ddof=1), F.std(0, ddof=1), N,
                       float(rate), int(stamp_ns[0]), int(stamp_ns[-1]))


# ---------------------------------------------------------------------------------------------
# friction sweeps
# ---------------------------------------------------------------------------------------------
def gravity_center(robot: RobotModel, q_config, joint, lower, upper, mode='extreme', grid=721):
    """The angle of ``joint`` (others at q_config) within [lower, upper] where its gravity torque is
    extreme (the interior local extreme with the largest |g|) or zero (the crossing closest to the
    middle of the range). Returns (angle, g there).
    Where gravity does not act on the joint at all, returns the middle of the range."""
    qs = np.linspace(lower, upper, grid)
    g = np.empty(grid)
    q = np.asarray(q_config, float).copy()
    for k, v in enumerate(qs):
        q[joint] = v
        g[k] = robot.gravity_torque(q)[joint]
    mid = 0.5 * (lower + upper)
    if np.max(np.abs(g)) < 1e-4:  # gravity does not act on this joint here
        return mid, float(g[grid // 2])
    if mode == 'extreme':
        # interior local extrema of g (dg/dq changes sign); the one with the largest |g|
        dg = np.diff(g)
        ext = np.flatnonzero(np.sign(dg[:-1]) * np.sign(dg[1:]) < 0) + 1
        if len(ext) == 0:
            raise PoseError(f'gravity torque of {robot.joint_names[joint]} has no extreme inside '
                            f'[{lower:.3f}, {upper:.3f}] rad in this configuration; use sweep center "zero" '
                            'or change the held configuration')
        k = int(ext[np.argmax(np.abs(g[ext]))])
        # parabolic refinement through the three grid points around the extreme
        den = g[k - 1] - 2 * g[k] + g[k + 1]
        off = 0.5 * (g[k - 1] - g[k + 1]) / den if den != 0 else 0.0
        q[joint] = float(qs[k] + np.clip(off, -1, 1) * (qs[1] - qs[0]))
        return q[joint], float(robot.gravity_torque(q)[joint])
    if mode != 'zero':
        raise ValueError(f"sweep center mode must be 'extreme', 'zero' or 'auto', got {mode!r}")
    crossings = np.flatnonzero(np.sign(g[:-1]) * np.sign(g[1:]) <= 0)
    if len(crossings) == 0:
        raise PoseError(f'gravity torque of {robot.joint_names[joint]} has no zero within '
                        f'[{lower:.3f}, {upper:.3f}] rad in this configuration; use sweep center "extreme" '
                        'or change the held configuration')
    # linear interpolation at each crossing; the one nearest the middle
    zs = []
    for c in crossings:
        g0, g1 = g[c], g[c + 1]
        zs.append(qs[c] if g1 == g0 else qs[c] - g0 * (qs[c + 1] - qs[c]) / (g1 - g0))
    zs = np.array(zs)
    z = float(zs[np.argmin(np.abs(zs - mid))])
    q[joint] = z
    return z, float(robot.gravity_torque(q)[joint])


class ConstantVelocityPass(Motion):
    """One joint from a to b: accelerate at ``accel`` to ``speed``, cruise, decelerate (trapezoid).
    ``cruise`` = (t_start, t_end) of the constant-velocity part."""

    def __init__(self, q_config, joint, a, b, speed, accel):
        self.q = np.asarray(q_config, float).copy()
        self.j, self.a, self.b = joint, float(a), float(b)
        self.dir = 1.0 if b >= a else -1.0
        dist = abs(b - a)
        ta = speed / accel
        if accel * ta ** 2 > dist:  # never reaches the speed
            raise PoseError(f'sweep of {dist:.3f} rad is too short to reach {speed:.3f} rad/s at '
                            f'{accel:.3f} rad/s^2 (needs {speed ** 2 / accel:.3f} rad)')
        self.speed, self.accel, self.ta = float(speed), float(accel), ta
        tc = (dist - accel * ta ** 2) / speed
        self.tc = tc
        self.duration_s = 2 * ta + tc
        self.cruise = (ta, ta + tc)

    def evaluate(self, t):
        t = min(max(t, 0.0), self.duration_s)
        ta, tc, v, acc = self.ta, self.tc, self.speed, self.accel
        if t < ta:
            s, sd, sdd = 0.5 * acc * t ** 2, acc * t, acc
        elif t < ta + tc:
            s, sd, sdd = 0.5 * acc * ta ** 2 + v * (t - ta), v, 0.0
        else:
            r = self.duration_s - t
            s, sd, sdd = abs(self.b - self.a) - 0.5 * acc * r ** 2, acc * r, -acc
        q = self.q.copy()
        qd = np.zeros_like(q)
        qdd = np.zeros_like(q)
        q[self.j] = self.a + self.dir * s
        qd[self.j] = self.dir * sd
        qdd[self.j] = self.dir * sdd
        return q, qd, qdd


@dataclass
class SweepPass:
    joint: int
    joint_name: str
    speed_index: int
    speed_rad_s: float
    direction: int
    motion: ConstantVelocityPass


@dataclass
class SweepPlan:
    joint: int
    joint_name: str
    center_rad: float
    gravity_at_center_nm: float
    amplitude_rad: float
    configuration: np.ndarray       # held configuration with the joint at the start extreme
    passes: list = field(default_factory=list)
    center_mode: str = 'extreme'

    @property
    def duration_s(self):
        return sum(p.motion.duration_s for p in self.passes)


def plan_friction_sweep(robot: RobotModel, q_config, joint, speeds, amplitude_rad, limits: SafetyLimits,
                        center_mode='extreme', min_amplitude_rad=0.1) -> SweepPlan:
    """Constant-velocity passes of ``joint``: centre c where gravity is extreme/zero, range
    c +- a (a = amplitude, reduced to fit the limits with margin), forward then backward at each
    speed (sorted ascending). Speeds above the velocity limit raise."""
    lower, upper = limits.bounds(robot)
    vmax, amax = limits.vectors(robot.n)
    speeds = [float(s) for s in speeds]
    if not speeds or any(not s > 0 for s in speeds):
        raise PoseError(f'sweep speeds must be a non-empty list of positive values, got {speeds}')
    if max(speeds) > vmax[joint]:
        raise PoseError(f'sweep speed {max(speeds):.3f} rad/s of {robot.joint_names[joint]} exceeds the '
                        f'velocity limit {vmax[joint]:.3f} rad/s')
    q_config = np.asarray(q_config, float).copy()
    others = [k for k in range(robot.n) if k != joint]
    bad = [robot.joint_names[k] for k in others if not lower[k] <= q_config[k] <= upper[k]]
    if bad:
        raise PoseError(f'held sweep configuration puts {", ".join(bad)} outside the limits with margin')
    options = []
    for mode in (('extreme', 'zero') if center_mode == 'auto' else (center_mode,)):
        try:
            c, gc = gravity_center(robot, q_config, joint, lower[joint], upper[joint], mode)
        except PoseError:
            if center_mode != 'auto':
                raise
            continue
        options.append((min(float(amplitude_rad), c - lower[joint], upper[joint] - c), mode, c, gc))
    if not options:
        raise PoseError(f'{robot.joint_names[joint]}: gravity torque has neither an extreme nor a zero inside '
                        'the limits in this configuration; hold the other joints elsewhere')
    # auto: the extreme unless the zero allows a clearly longer sweep
    a, center_mode, c, gc = options[0]
    if len(options) > 1 and options[1][0] > 1.25 * a:
        a, center_mode, c, gc = options[1]
    if a < min_amplitude_rad:
        raise PoseError(f'sweep of {robot.joint_names[joint]} about {c:.3f} rad ({center_mode} gravity) has only '
                        f'+-{a:.3f} rad inside the limits with margin (need {min_amplitude_rad:.3f}); hold the '
                        'other joints elsewhere or use the other centre mode')
    q_config[joint] = c - a
    plan = SweepPlan(joint, robot.joint_names[joint], c, gc, a, q_config.copy(), center_mode=center_mode)
    for si, v in enumerate(sorted(speeds)):
        plan.passes.append(SweepPass(joint, robot.joint_names[joint], si, v, 1,
                                     ConstantVelocityPass(q_config, joint, c - a, c + a, v, amax[joint])))
        plan.passes.append(SweepPass(joint, robot.joint_names[joint], si, v, -1,
                                     ConstantVelocityPass(q_config, joint, c + a, c - a, v, amax[joint])))
    return plan


def pair_sweep_passes(q_fwd, tau_fwd, q_bwd, tau_bwd, bins=20):
    """Pair a forward and a backward constant-velocity pass of one joint by position.

    Over the common position range (``bins`` bins), half the difference of the mean torques is the
    friction magnitude at that speed (gravity and any position-dependent torque cancel) and half the
    sum is the position-dependent part. Returns (friction_nm, friction_std_nm, q_centres, half_sum).
    """
    q_fwd, tau_fwd, q_bwd, tau_bwd = (np.asarray(x, float) for x in (q_fwd, tau_fwd, q_bwd, tau_bwd))
    lo = max(q_fwd.min(), q_bwd.min())
    hi = min(q_fwd.max(), q_bwd.max())
    if not hi > lo:
        raise ValueError('forward and backward passes do not overlap in position')
    edges = np.linspace(lo, hi, bins + 1)
    diffs, centres, sums = [], [], []
    for k in range(bins):
        mf = (q_fwd >= edges[k]) & (q_fwd < edges[k + 1])
        mb = (q_bwd >= edges[k]) & (q_bwd < edges[k + 1])
        if mf.sum() and mb.sum():
            tf, tb = tau_fwd[mf].mean(), tau_bwd[mb].mean()
            diffs.append(0.5 * (tf - tb))
            sums.append(0.5 * (tf + tb))
            centres.append(0.5 * (edges[k] + edges[k + 1]))
    if not diffs:
        raise ValueError('no position bin holds samples of both passes')
    diffs = np.array(diffs)
    return float(diffs.mean()), float(diffs.std(ddof=1) if len(diffs) > 1 else 0.0), np.array(centres), np.array(sums)


def fit_coulomb_viscous(speeds, friction):
    """Least squares f = fc + fv * v over speeds; returns (fc, fv)."""
    v = np.asarray(speeds, float)
    f = np.asarray(friction, float)
    A = np.stack([np.ones_like(v), v], 1)
    fc, fv = np.linalg.lstsq(A, f, rcond=None)[0]
    return float(fc), float(fv)


# ---------------------------------------------------------------------------------------------
# driver statistics
# ---------------------------------------------------------------------------------------------
def timing_stats(stamp_ns, gap_factor=3.0):
    """Rate, jitter and gaps of message stamps: dict with rate_hz, dt_median_s, jitter_std_s,
    dt_max_s, gaps (count of intervals > gap_factor * median), gap_total_s, messages."""
    t = np.asarray(stamp_ns, dtype=np.int64)
    out = {'messages': int(len(t))}
    if len(t) < 3:
        out.update(rate_hz=float('nan'), dt_median_s=float('nan'), jitter_std_s=float('nan'),
                   dt_max_s=float('nan'), gaps=0, gap_total_s=0.0, non_increasing=0)
        return out
    dt = np.diff(t) * 1e-9
    med = float(np.median(dt))
    gaps = dt > gap_factor * med
    out.update(rate_hz=float(1.0 / med) if med > 0 else float('inf'), dt_median_s=med,
               jitter_std_s=float(np.std(dt)), dt_max_s=float(dt.max()), gaps=int(gaps.sum()),
               gap_total_s=float(dt[gaps].sum()), non_increasing=int(np.sum(dt <= 0)))
    return out


class TrackingMonitor:
    """Position tracking error |q_measured - q_desired| per joint: RMS, max, and a limit check
    that trips after ``consecutive`` samples above the limit."""

    def __init__(self, n, limit_rad, consecutive=3):
        self.limit = float(limit_rad)
        self.consecutive = int(consecutive)
        self.sum_sq = np.zeros(n)
        self.max_abs = np.zeros(n)
        self.count = 0
        self._over = 0

    def update(self, q_meas, q_des):
        e = np.abs(np.asarray(q_meas, float) - np.asarray(q_des, float))
        self.sum_sq += e ** 2
        self.max_abs = np.maximum(self.max_abs, e)
        self.count += 1
        self._over = self._over + 1 if np.max(e) > self.limit else 0
        return e

    @property
    def tripped(self):
        return self._over >= self.consecutive

    @property
    def rms(self):
        return np.sqrt(self.sum_sq / max(self.count, 1))

    def report(self):
        return {'samples': self.count, 'rms_rad': self.rms.tolist(), 'max_rad': self.max_abs.tolist(),
                'limit_rad': self.limit}


# ---------------------------------------------------------------------------------------------
# crash-safe bag writing
# ---------------------------------------------------------------------------------------------
class PartedBagWriter:
    """A rosbag2 bag directory (MCAP storage) written as a sequence of closed parts.

    ``write`` appends serialized (CDR) messages to the open part; ``commit`` closes it, moves it
    into the bag as ``<name>_<k>.mcap`` and atomically rewrites ``metadata.yaml`` to list every
    committed part. A process killed at any moment leaves a bag that rosbag2 readers (``rosbags``,
    ``ros2 bag``, ``bag_io.read_joint_states``) open, holding everything up to the last commit;
    the part in progress lives in a hidden ``.part_<k>`` folder that readers never see.

    resume=True continues an existing bag (new parts after the committed ones; leftovers of an
    interrupted part are deleted). Errors (unwritable folder, full disk) raise ``RecordingError``
    naming the path and what is already safe.
    """

    def __init__(self, path, resume=False):
        self.path = Path(path)
        self.name = self.path.name
        self.parts = []            # metadata 'files' entries of committed parts
        self.topics = {}           # topic -> {'topic_metadata': ..., 'message_count': n}
        self._writer = None
        self._conns = {}
        self._part_dir = None
        self._part_count = 0
        self.messages_written = 0
        parent = self.path.parent
        if not parent.is_dir():
            raise RecordingError(f'output folder {parent} does not exist; create it or choose another output path')
        if not os.access(parent, os.W_OK | os.X_OK):
            raise RecordingError(f'output folder {parent} is not writable; choose another output path')
        meta = self.path / 'metadata.yaml'
        if self.path.exists():
            if not resume:
                raise RecordingError(f'output bag {self.path} exists; choose a new path (or resume it)')
            if not self.path.is_dir():
                raise RecordingError(f'{self.path} exists and is not a bag directory')
            if meta.is_file():
                self._load(meta)
            for leftover in self.path.glob('.part_*'):
                shutil.rmtree(leftover, ignore_errors=True)
            listed = {p['path'] for p in self.parts}
            for f in self.path.glob(f'{self.name}_*.mcap'):
                if f.name not in listed:  # moved in but not yet listed when the recorder died
                    f.unlink()
        else:
            try:
                self.path.mkdir()
            except OSError as exc:
                raise RecordingError(f'cannot create bag folder {self.path}: {exc.strerror or exc}') from exc
        self._part_count = len(self.parts)
        self._metadata_template = None

    def _load(self, meta):
        try:
            info = yaml.safe_load(meta.read_text())['rosbag2_bagfile_information']
        except Exception as exc:  # noqa: BLE001
            raise RecordingError(f'cannot resume {self.path}: unreadable metadata.yaml ({exc})') from exc
        self.parts = list(info.get('files') or [])
        for t in info.get('topics_with_message_count') or []:
            self.topics[t['topic_metadata']['name']] = t
        self.messages_written = int(info.get('message_count', 0))
        # next part numbers continue after the highest committed one
        nums = [int(p['path'].rsplit('_', 1)[1].split('.')[0]) for p in self.parts]
        self._next_index = max(nums) + 1 if nums else 0

    @property
    def committed_parts(self):
        return len(self.parts)

    def _open_part(self):
        from rosbags.rosbag2 import StoragePlugin, Writer

        k = getattr(self, '_next_index', len(self.parts))
        self._next_index = k + 1
        self._part_index = k
        self._part_dir = self.path / f'.part_{k:05d}'
        if self._part_dir.exists():
            shutil.rmtree(self._part_dir)
        try:
            self._writer = Writer(self._part_dir, version=8, storage_plugin=StoragePlugin.MCAP)
            self._writer.open()
        except Exception as exc:  # noqa: BLE001
            self._writer = None
            raise self._error('cannot open a new bag part', exc) from exc
        self._conns = {}
        self._part_messages = 0

    def _error(self, what, exc):
        detail = getattr(exc, 'strerror', None) or str(exc)
        return RecordingError(f'{what} in {self.path}: {detail}; the {len(self.parts)} committed part(s) '
                              f'({self.messages_written} messages) are intact and readable')

    def write(self, topic, msgtype, stamp_ns, data: bytes):
        from robot_id_ros.io.bags import typestore

        if self._writer is None:
            self._open_part()
        conn = self._conns.get(topic)
        try:
            if conn is None:
                conn = self._writer.add_connection(topic, msgtype, typestore=typestore())
                self._conns[topic] = conn
            self._writer.write(conn, int(stamp_ns), bytes(data))
        except Exception as exc:  # noqa: BLE001 - OSError from a full disk, rosbags errors
            self.abort_part()
            raise self._error('cannot write to the bag', exc) from exc
        self._part_messages += 1

    def abort_part(self):
        """Drop the part in progress (its data is lost; committed parts are untouched)."""
        w, self._writer = self._writer, None
        if w is not None:
            try:
                w.abort()
            except Exception:  # noqa: BLE001
                pass
        if self._part_dir is not None:
            shutil.rmtree(self._part_dir, ignore_errors=True)
            self._part_dir = None

    def commit(self):
        """Close the part in progress and make it part of the bag. Returns the number of messages
        it held (0: nothing to commit)."""
        if self._writer is None:
            return 0
        if self._part_messages == 0:
            self.abort_part()
            return 0
        w, self._writer = self._writer, None
        k = self._part_index
        final = self.path / f'{self.name}_{k:05d}.mcap'
        try:
            w.close()
            info = yaml.safe_load((self._part_dir / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
            src = self._part_dir / f'{self._part_dir.name}.mcap'
            with open(src, 'rb+') as f:
                os.fsync(f.fileno())
            os.replace(src, final)
            entry = dict(info['files'][0])
            entry['path'] = final.name
            parts = self.parts + [entry]
            topics = {k2: dict(v) for k2, v in self.topics.items()}
            for t in info['topics_with_message_count']:
                name = t['topic_metadata']['name']
                if name in topics:
                    topics[name]['message_count'] = int(topics[name]['message_count']) + int(t['message_count'])
                else:
                    topics[name] = t
            self._write_metadata(parts, topics, info)
        except Exception as exc:  # noqa: BLE001
            shutil.rmtree(self._part_dir, ignore_errors=True)
            self._part_dir = None
            if final.exists() and final.name not in {p['path'] for p in self.parts}:
                final.unlink()
            raise self._error('cannot commit a bag part', exc) from exc
        shutil.rmtree(self._part_dir, ignore_errors=True)
        self._part_dir = None
        self.parts, self.topics = parts, topics
        n = self._part_messages
        self.messages_written += n
        return n

    def _write_metadata(self, parts, topics, template):
        start = min(p['starting_time']['nanoseconds_since_epoch'] for p in parts)
        end = max(p['starting_time']['nanoseconds_since_epoch'] + p['duration']['nanoseconds'] for p in parts)
        meta = {
            'version': template.get('version', 8),
            'storage_identifier': 'mcap',
            'relative_file_paths': [p['path'] for p in parts],
            'duration': {'nanoseconds': int(end - start)},
            'starting_time': {'nanoseconds_since_epoch': int(start)},
            'message_count': int(sum(p['message_count'] for p in parts)),
            'topics_with_message_count': list(topics.values()),
            'compression_format': '',
            'compression_mode': '',
            'files': parts,
            'custom_data': None,
            'ros_distro': template.get('ros_distro', 'rosbags'),
        }
        atomic_write_text(self.path / 'metadata.yaml',
                           yaml.safe_dump({'rosbag2_bagfile_information': meta}, sort_keys=False))

    def close(self):
        """Commit the part in progress. The bag stays valid whether or not this is called."""
        return self.commit()
