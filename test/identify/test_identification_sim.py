# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identification on the ROS-free simulated youBot (issue 6's simulator acceptance, reduced to a
test).

Data as the recorders make them, without ROS: ``SimulatedArm`` (stiction with breakaway ratio 1.3,
Stribeck velocity 0.05 rad/s, direction-dependent Coulomb, 10 mA current noise + 1 mA quantisation,
encoder and integer-rpm quantisation, PID drives) commanded like ``trajectory_recorder`` (quintic
ramp-in, whole periods of a designed excitation, ramp-out; points every 50 ms) and like
``static_pose_recorder`` (each pose approached from both directions through an overshoot, settled,
averaged), read with ``measure()`` at 200 Hz. The sidecars carry the ``excitation_period`` and
``static_hold`` segments the recorders write.

Metric (``validate``): RMSE of measured effort minus predicted torque per joint on a held-out run
of a second excitation, over the excitation periods, divided by the sensing noise floor
sqrt(10 mA^2 + 1 mA^2 / 12) * Kt * N. "In motion": joint j's samples with processed |qd_j| >=
0.05 rad/s (at rest the friction is anywhere in the stiction band, which no function of q, qd, qdd
predicts; the all-samples figure is bounded from below by that, even for the true parameters).
"""
import numpy as np
import pytest

from robot_id_ros import record as rec
from robot_id_ros.io.bags import JointStateSeries
from robot_id_ros.record.excitation import design_excitation
from robot_id_ros.identify import (IdentificationOptions, StaticPoses, identify, identify_gravity,
                                   static_poses, validate)
from robot_id_ros.model.robot import youbot_model
from robot_id_ros.model.regressor import RegressorOptions
from robot_id_ros.sim.config import SimConfig
from robot_id_ros.sim.youbot_arm import SimulatedArm

RATE_HZ = 200.0
VELOCITY_RAD_S = 1.2          # as the demo's excitation
ACCELERATION_RAD_S2 = 3.0
MIN_VELOCITY_RAD_S = 0.05     # the in-motion threshold of the metric and the fit

# the identification this test (and the demo) uses on recorder data of the simulated youBot
SIM_OPTIONS = dict(friction=True, offset=False, rotor_inertia=True, coulomb_asymmetric=True,
                   stribeck_column=True, derivative_method='savgol', cutoff_hz=25.0,
                   sidecar_window=True, min_velocity_rad_s=MIN_VELOCITY_RAD_S)


def noise_floor_nm(cfg: SimConfig):
    """Standard deviation of the effort's sensing noise per joint (Nm): current noise and
    quantisation."""
    return np.sqrt(cfg.current_noise_a**2 +
                   cfg.current_resolution_a**2 / 12) * cfg.drive_gains_nm_a


class _Periods(rec.Motion):
    def __init__(self, traj, periods):
        self.traj, self.duration_s = traj, periods * traj.period_s

    def evaluate(self, t):
        q, qd, qdd = self.traj.evaluate(min(max(t, 0.0), self.duration_s))
        return q[0], qd[0], qdd[0]


def _series(arm, rows, source):
    t = np.array([r[0] for r in rows])
    q, qd, eff = (np.array([r[k] for r in rows]) for k in (1, 2, 3))
    return JointStateSeries(tuple(arm.joint_names),
                            np.round(t * 1e9).astype(np.int64), q, qd, eff, source)


def _record(arm, duration_s, rows):
    k = int(round(1.0 / (RATE_HZ * arm.dt)))
    t_end = arm.t + duration_s
    while arm.t < t_end - 1e-9:
        arm.advance(k * arm.dt)
        m = arm.measure()
        rows.append((m.t_s, m.position_rad, m.velocity_rad_s, m.effort_nm))


def run_excitation(arm: SimulatedArm, traj, periods, source='excitation'):
    """Play ``traj`` for ``periods`` periods as ``trajectory_recorder`` does; (series, sidecar)."""
    lim = rec.SafetyLimits(0.1, VELOCITY_RAD_S, ACCELERATION_RAD_S2)
    ex = _Periods(traj, periods)
    zero = np.zeros(arm.n)
    ramp_in = rec.plan_transition((arm.q.copy(), zero, zero), ex.evaluate(0.0), lim, arm.lower,
                                  arm.upper, 1.0)
    s1 = ex.evaluate(ex.duration_s)
    q_rest = np.clip(s1[0] + 0.5 * s1[1], arm.lower, arm.upper)
    ramp_out = rec.plan_transition(s1, (q_rest, zero, zero), lim, arm.lower, arm.upper, 1.0)
    motion = rec.Sequence([ramp_in, ex, ramp_out])
    rel, Q, V = rec.sample_for_command(motion, 0.0, motion.duration_s, 0.05)
    t_start = arm.t + 0.3
    arm.set_trajectory(arm.joint_names,
                       [(float(t), q, v, []) for t, q, v in zip(rel, Q, V) if t > 0],
                       start_time_s=t_start)
    rows = []
    _record(arm, t_start - arm.t + motion.duration_s + 0.5, rows)
    exc0 = t_start + ramp_in.duration_s
    T = traj.period_s
    segs = [{'type': 'excitation_period', 't_start_ns': int(round((exc0 + i * T) * 1e9)),
             't_end_ns': int(round((exc0 + (i + 1) * T) * 1e9))} for i in range(periods)]
    return _series(arm, rows, source), {'kind': 'trajectory', 'segments': segs}


def run_static(arm: SimulatedArm, poses, window_s=1.5, settle_s=1.5, source='static'):
    """Visit each pose from both directions (overshoot 0.08 rad) as ``static_pose_recorder`` does,
    wait ``settle_s``, record ``window_s``; (series, sidecar with static_hold segments)."""
    lim = rec.SafetyLimits(0.1, 0.5, 1.0)
    rows, segs = [], []
    for i, target in enumerate(poses):
        for d in (1, -1):
            motion, signs = rec.plan_approach(arm.q.copy(), target, d, 0.08, lim, arm.lower,
                                              arm.upper)
            arm.set_trajectory(
                arm.joint_names,
                [(float(t), q, v, [])
                 for t, q, v in zip(*rec.sample_for_command(motion, 0.0, motion.duration_s, 0.05))
                 if t > 0])
            _record(arm, motion.duration_s + settle_s, rows)
            t0 = rows[-1][0]
            _record(arm, window_s, rows)
            segs.append({'type': 'static_hold', 't_start_ns': int(round(t0 * 1e9)) + 1,
                         't_end_ns': int(round(rows[-1][0] * 1e9)), 'pose_index': i, 'approach': d,
                         'approach_per_joint': [int(s) for s in signs]})
    return _series(arm, rows, source), {'kind': 'static', 'segments': segs}


def design(robot, seed, period_s, iterations=20):
    return design_excitation(robot, RegressorOptions(friction=True, rotor_inertia=True),
                             period_s=period_s, harmonics=5, seed=seed, max_iterations=iterations,
                             velocity_limits_rad_s=np.full(robot.n, VELOCITY_RAD_S),
                             acceleration_limits_rad_s2=np.full(robot.n, ACCELERATION_RAD_S2),
                             velocity_fraction=0.9, acceleration_fraction=0.9).trajectory


def static_leave_pose_out(robot, poses: StaticPoses, pose_index, options):
    """Gravity of each pose predicted by the static fit of the other poses: (P, n) predictions."""
    pred = np.zeros_like(poses.tau)
    for k in np.unique(pose_index):
        keep = pose_index != k
        sub = StaticPoses(poses.q[keep], poses.tau[keep], poses.tau_std[keep], poses.samples[keep],
                          poses.approach[keep], poses.source)
        pred[~keep] = identify_gravity(robot, sub, options).predict(robot, poses.q[~keep])
    return pred


def make_data(seed=3, periods=2, period_s=8.0, static_pose_count=0):
    """Excitation run, held-out run of another excitation, optionally static poses; one
    SimulatedArm."""
    robot = youbot_model()
    cfg = SimConfig(seed=seed)
    arm = SimulatedArm(cfg)
    ident = run_excitation(arm, design(robot, 100 * seed + 1, period_s), periods, 'excitation')
    held = run_excitation(arm, design(robot, 100 * seed + 2, period_s), periods, 'validation')
    static = None
    if static_pose_count:
        ps = rec.generate_poses(robot, static_pose_count, 0.1, 0.0, 0.05, seed=seed)
        static = run_static(arm, ps.poses)
    return robot, cfg, arm, ident, held, static


@pytest.fixture(scope='module')
def sim_data():
    return make_data(seed=3, periods=4, period_s=8.0, static_pose_count=12)


def test_held_out_in_motion_within_1_2_noise_floor(sim_data):
    robot, cfg, arm, ident, held, static = sim_data
    res = identify(robot, data=[ident], options=IdentificationOptions(**SIM_OPTIONS))
    v = validate(res.model, held[0], None, held[1])
    noise = noise_floor_nm(cfg)
    in_motion = np.array(v.metrics['rmse_in_motion_nm']) / noise
    every = np.array(v.metrics['rmse_nm']) / noise
    assert v.metrics['min_velocity_rad_s'] == MIN_VELOCITY_RAD_S
    assert min(v.metrics['in_motion_fraction']) > 0.7
    # achieved on this data: 1.01 1.05 1.05 1.00 1.01 (the true parameters: 1.00-1.03)
    assert np.all(in_motion < 1.12), in_motion
    # all samples: bounded below by the stiction band at rest (the true parameters give 1.7-2.8
    # here); achieved 2.77 2.01 2.32 1.71 1.93
    assert np.all(every < 3.0), every
    # the Stribeck velocity chosen by the fit is the simulator's (0.05 rad/s) within one grid step
    assert 0.03 <= res.model.regressor_options.stribeck_velocity_rad_s <= 0.07


def test_former_demo_options_miss_the_in_motion_figure(sim_data):
    """The check above can fail: the demo's former identification (periodic derivatives, symmetric
    Coulomb, no Stribeck, every sample in the fit) stays above 1.12 on some joint in motion (1.58
    1.91 1.37 1.18 1.08 here)."""
    robot, cfg, arm, ident, held, static = sim_data
    opts = IdentificationOptions(friction=True, offset=False, rotor_inertia=True,
                                 coulomb_asymmetric=False, auto_options=False)  # fixed options
    res = identify(robot, data=[ident], options=opts)
    v = validate(res.model, held[0], None, held[1], min_velocity_rad_s=MIN_VELOCITY_RAD_S)
    in_motion = np.array(v.metrics['rmse_in_motion_nm']) / noise_floor_nm(cfg)
    assert np.max(in_motion) > 1.12, in_motion


def test_static_leave_pose_out_within_stiction_band(sim_data):
    robot, cfg, arm, ident, held, static = sim_data
    opts = IdentificationOptions()
    poses = static_poses(static[0], opts, static[1], robot)
    pose_index = np.array([s['pose_index'] for s in static[1]['segments']])
    assert len(poses) == len(pose_index) == 24
    pred = static_leave_pose_out(robot, poses, pose_index, opts)
    # evaluation only: the simulator's breakaway torques and true gravity
    bp, bn = arm.breakaway_pos, arm.breakaway_neg
    g_true = np.array([arm.true_gravity_torque(q) for q in poses.q])
    e_true = poses.tau - g_true
    # the holds sit at the edge of the band (the drive pushes until the joint sticks): even the
    # true gravity leaves measured - predicted at ~1.0 x the breakaway torque
    assert np.max(np.where(e_true > 0, e_true / bp, -e_true / bn)) < 1.05
    e = poses.tau - pred
    ratio = np.where(e > 0, e / bp, -e / bn)
    g_err = np.abs(g_true - pred)
    # the static-only gravity fit (11 poses for each prediction) does NOT put every held-out hold
    # inside the band: achieved max 1.00 1.32 1.26 1.25 1.24 x band, gravity error up to 0.52 x
    # band
    assert np.max(ratio) < 1.4, ratio.max(axis=0)
    assert np.all(g_err.max(axis=0) < 0.6 * np.minimum(bp, bn)), g_err.max(axis=0)


def test_dynamic_model_gravity_predicts_static_holds_within_band(sim_data):
    """The model identified from the excitation alone (the static holds are held out) predicts
    every static hold within the stiction band (to the 5 % the holds themselves reach)."""
    robot, cfg, arm, ident, held, static = sim_data
    res = identify(robot, data=[ident], options=IdentificationOptions(**SIM_OPTIONS))
    poses = static_poses(static[0], IdentificationOptions(), static[1], robot)
    pred = np.array([res.model.robot.gravity_torque(q) for q in poses.q])
    e = poses.tau - pred
    ratio = np.where(e > 0, e / arm.breakaway_pos, -e / arm.breakaway_neg)
    g_err = np.abs(np.array([arm.true_gravity_torque(q) for q in poses.q]) - pred)
    assert np.max(ratio) < 1.05, ratio.max(axis=0)
    assert np.all(g_err.max(axis=0) < 0.05 *
                  np.minimum(arm.breakaway_pos, arm.breakaway_neg)), g_err.max(axis=0)
