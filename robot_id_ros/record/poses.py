# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Static poses: limit and floor checks, well-conditioned pose sets, short travel, pose files.

* ``check_poses``: limits with margin, floor plane.
* ``generate_poses``: a set of N poses whose stacked gravity regressor is well conditioned
  (condition number reported).
* ``order_poses``: nearest-neighbour order (short travel).
* ``load_pose_list``: poses from a parsed YAML pose file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.model.robot import RobotModel

GRAVITY_PROBE_CONFIGURATIONS = 8   # random configurations gravity_free_joints compares
GRAVITY_PROBE_STEP_RAD = 0.7       # joint offset there; no gravity torque change: gravity-free
CANDIDATE_TRIES_PER_CANDIDATE = 50  # generate_poses gives up after this many tries per candidate
D_OPTIMAL_RIDGE = 1e-6             # information-matrix ridge: the first greedy picks are defined
SWAP_CANDIDATES_PER_SLOT = 60      # random candidates drawn in each slot of a swap pass


class PoseError(InputError):
    """A pose (or pose list) that cannot be used; the message names the pose and the joint."""


def floor_check_frames(robot: RobotModel, first_joint=2):
    """Return the frame ids whose origins must stay above the floor.

    Every body from joint ``first_joint`` (0-based) outward, plus the tool frame.
    """
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
    """Check a pose list against the joint limits (with margin) and the floor.

    Args:
        robot: the arm.
        poses: (N, n) joint angles, rad.
        margin_rad: distance kept inside every joint limit, rad.
        floor_z_m: floor height in the URDF root frame, m (None: no floor check).
        floor_clearance_m: height every checked frame keeps above the floor, m.

    Returns:
        The poses as an (N, n) float array.

    Raises:
        PoseError: for the first pose outside the limits (with margin) or below the floor.
    """
    poses = np.asarray(poses, dtype=float)
    if poses.ndim != 2 or poses.shape[1] != robot.n:
        raise PoseError(f'poses must be a list of {robot.n}-value joint vectors '
                        f'({", ".join(robot.joint_names)}), got an array of shape {poses.shape}')
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
                lim_lo, lim_hi = robot.limits.lower_rad[j], robot.limits.upper_rad[j]
                raise PoseError(f'pose {i}: {robot.joint_names[j]} = {q[j]:.4f} rad is outside '
                                f'its limits with margin [{lo:.4f}, {hi:.4f}] rad (limits '
                                f'[{lim_lo:.4f}, {lim_hi:.4f}], margin {margin_rad:.3f})')
        if floor_z_m is not None:
            z, name = lowest_point_z(robot, q, frames)
            if z < floor_z_m + floor_clearance_m:
                raise PoseError(f'pose {i} is unreachable: frame {name} would be at '
                                f'z = {z:.3f} m, below the floor plane z = {floor_z_m:.3f} m + '
                                f'clearance {floor_clearance_m:.3f} m')
    return poses


def gravity_free_joints(robot: RobotModel, rng=None, tol=1e-9):
    """Return the indices of joints whose angle never changes any gravity torque.

    E.g. a first joint with a vertical axis: static poses need not vary them.
    """
    rng = np.random.default_rng(0) if rng is None else rng
    Q = robot.random_configurations(GRAVITY_PROBE_CONFIGURATIONS, rng)
    free = []
    for j in range(robot.n):
        diff = 0.0
        for q in Q:
            q2 = q.copy()
            q2[j] = q[j] + GRAVITY_PROBE_STEP_RAD
            diff = max(diff, np.max(np.abs(robot.gravity_torque(q) - robot.gravity_torque(q2))))
        if diff < tol:
            free.append(j)
    return free


@dataclass
class PoseSet:
    """Poses chosen by ``generate_poses``."""

    poses: np.ndarray                 # (N, n), rad
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
    """Condition number of the column-normalised base gravity regressor of ``poses`` (rad)."""
    if base is None:
        regressor, base = static_base(robot)
    W = base.base_regressor(regressor.static(np.asarray(poses, float)))
    return _cond_normalised(W)


def _cond_normalised(W):
    norms = np.linalg.norm(W, axis=0)
    norms[norms == 0] = 1.0
    s = np.linalg.svd(W / norms, compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else float('inf')


def generate_poses(robot: RobotModel, count, margin_rad, floor_z_m=None, floor_clearance_m=0.0,
                   seed=0, candidates=400, hold=None, hold_free_joints=True,
                   swap_passes=2) -> PoseSet:
    """N poses that make the base gravity regressor well conditioned.

    Greedy D-optimal selection from random candidates within the limits (with margin) and above
    the floor, then swap passes minimising the condition number.

    Args:
        robot: the arm.
        count: N, the number of poses.
        margin_rad: distance kept inside every joint limit, rad.
        floor_z_m: floor height in the URDF root frame, m (None: no floor).
        floor_clearance_m: height every checked frame keeps above the floor, m.
        seed: random seed of the candidates and the swaps.
        candidates: number of random candidate poses.
        hold: {joint index: angle (rad)} held fixed in every pose.
        hold_free_joints: hold joints that do not change gravity (``gravity_free_joints``) at the
            middle of their range unless ``hold`` gives them.
        swap_passes: at most this many passes of swaps.

    Returns:
        A PoseSet, the poses in short-travel order.

    Raises:
        PoseError: too few poses for the base parameters, no range left by the margin, or too
            few candidates above the floor.
    """
    regressor, base = static_base(robot)
    nb = base.n_base
    count = int(count)
    if count * robot.n < nb or count < 2:
        raise PoseError(f'{count} poses cannot identify the {nb} base gravity parameters; use at '
                        f'least {max(2, math.ceil(nb / robot.n))} (several times that is better)')
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
    cand = _candidate_poses(robot, rng, lo, hi, hold, candidates, count, floor_z_m,
                            floor_clearance_m)
    blocks = np.stack([base.base_regressor(regressor.static(q[None])) for q in cand])  # (C, n, nb)
    scale = np.linalg.norm(blocks.reshape(-1, nb), axis=0)
    scale[scale == 0] = 1.0
    blocks = blocks / scale
    chosen = _greedy_d_optimal(blocks, count)
    chosen = _swap_for_condition(blocks, chosen, rng, swap_passes)
    poses = order_poses(cand[chosen])
    return PoseSet(poses, static_condition_number(robot, poses, base, regressor), nb, base.names,
                   len(cand))


def _candidate_poses(robot, rng, lo, hi, hold, candidates, count, floor_z_m, floor_clearance_m):
    """(C, n) random poses in [lo, hi] with ``hold`` applied, above the floor with clearance."""
    frames = floor_check_frames(robot)
    cand, tries = [], 0
    while len(cand) < candidates:
        tries += 1
        if tries > CANDIDATE_TRIES_PER_CANDIDATE * candidates:
            break
        q = lo + (hi - lo) * rng.random(robot.n)
        for j, v in hold.items():
            q[j] = v
        if floor_z_m is not None and \
                lowest_point_z(robot, q, frames)[0] < floor_z_m + floor_clearance_m:
            continue
        cand.append(q)
    if len(cand) < count:
        raise PoseError(f'only {len(cand)} of {tries} random poses are above the floor with '
                        'clearance; lower the floor, the clearance or the joint margin')
    return np.array(cand)


def _greedy_d_optimal(blocks, count):
    """Pick ``count`` blocks greedily for D-optimality; return their indices.

    Indices of ``count`` blocks (C, n, nb) picked one by one, each maximising log det of the
    information matrix so far (with a small ridge so the first picks are defined).
    """
    nb = blocks.shape[2]
    chosen = []
    info = D_OPTIMAL_RIDGE * np.eye(nb)
    for _ in range(count):
        best, best_val = None, -np.inf
        for c in range(len(blocks)):
            if c in chosen:
                continue
            val = np.linalg.slogdet(info + blocks[c].T @ blocks[c])[1]
            if val > best_val:
                best, best_val = c, val
        chosen.append(best)
        info = info + blocks[best].T @ blocks[best]
    return chosen


def _swap_for_condition(blocks, chosen, rng, swap_passes):
    """Swap chosen blocks for random others while the condition number of the stack falls."""
    def cond_of(idx):
        return _cond_normalised(np.concatenate([blocks[i] for i in idx]))

    cur = cond_of(chosen)
    for _ in range(swap_passes):
        improved = False
        for k in range(len(chosen)):
            for c in rng.permutation(len(blocks))[:SWAP_CANDIDATES_PER_SLOT]:
                if c in chosen:
                    continue
                trial = chosen.copy()
                trial[k] = c
                v = cond_of(trial)
                if v < cur:
                    chosen, cur, improved = trial, v, True
        if not improved:
            break
    return chosen


def order_poses(poses, start=None, weights=None):
    """Nearest-neighbour ordering (max-joint distance) to keep travel between poses short.

    Args:
        poses: (N, n) joint angles, rad.
        start: the pose the arm is at (default: the first pose).
        weights: (n,) per-joint weights of the distance (default 1).

    Returns:
        The (N, n) poses in travel order.
    """
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
    """Poses from a parsed YAML pose file.

    Args:
        data: a list of joint vectors, or of {joint name: angle} mappings, or a dict with key
            ``poses`` holding either (angles in rad).
        joint_names: the model's joints, in order.

    Returns:
        An (N, n) array in ``joint_names`` order.

    Raises:
        PoseError: an empty list, a missing joint, a non-number or a wrong number of values.
    """
    if isinstance(data, dict) and 'poses' in data:
        data = data['poses']
    if not isinstance(data, (list, tuple)) or not data:
        raise PoseError('pose file must hold a non-empty list of poses (or a mapping with key '
                        '"poses")')
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
