"""static_pose_recorder: drive the arm through static poses and record averaged holding efforts.

For each pose (from ``poses_file`` or generated for a well-conditioned gravity regressor): move
there along a quintic within the velocity/acceleration limits, approaching from a chosen direction
(through an overshoot waypoint); wait until settled (all |velocity| < ``settle_velocity_rad_s``
for ``settle_dwell_s``, at most ``settle_timeout_s``); record ``window_s``; low-pass and average.
With ``both_directions`` every pose is visited twice, approached from above and from below, so
stiction biases cancel in the average. One ``static_hold`` sidecar segment per completed visit,
written after the bag part holding it is on disk: a killed recorder loses at most the visit in
progress and a restarted one (same output_path) continues after the last completed visit.

Passive mode: records a ``static_hold`` segment every time the arm (moved by something else)
settles, until cancelled or ``passive_duration_s``.

Topics, services and common parameters: see recorder_base.
"""
from __future__ import annotations

import time

import numpy as np
import yaml

from robot_id_ros import record as rec
from robot_id_ros.ros.params import desc, float_desc, int_desc
from robot_id_ros.ros.recorder_base import RecorderBase, run_node


def parameters():
    return {
        'poses_file': ('', desc("YAML list of poses (joint vectors in joint_names order, or {joint: angle} "
                                "maps; optionally under key 'poses'); '' = generate pose_count poses", True)),
        'pose_count': (12, int_desc('number of generated poses', 2, 500, True)),
        'pose_seed': (0, int_desc('random seed of the pose generation', 0, 2 ** 31 - 1, True)),
        'pose_candidates': (300, int_desc('random candidate poses the generator chooses from', 10, 100000, True)),
        'floor_z_m': (0.0, float_desc('floor plane height in the URDF root frame, m: every link beyond joint 2 '
                                      'and the tool stay above it', -10.0, 10.0, True)),
        'floor_clearance_m': (0.05, float_desc('extra height above the floor, m', 0.0, 2.0, True)),
        'check_floor': (True, desc('reject poses that put the tool or a link below the floor', True)),
        'both_directions': (True, desc('visit every pose twice, approached from opposite directions', True)),
        'approach_overshoot_rad': (0.08, float_desc('overshoot of the approach waypoint, rad', 0.0, 1.0, True)),
        'settle_velocity_rad_s': (0.005, float_desc('settled: every |joint velocity| below this, rad/s',
                                                    1e-5, 1.0, True)),
        'settle_dwell_s': (0.5, float_desc('settled: velocity below the threshold this long, s', 0.0, 60.0, True)),
        'settle_timeout_s': (10.0, float_desc('give up on a pose not settled this long after the move, s',
                                              0.1, 600.0, True)),
        'position_tolerance_rad': (0.05, float_desc(
            'a pose counts as reached when every joint is this close to its target, rad', 1e-4, 1.0, True)),
        'window_s': (2.0, float_desc('length of the averaging window at each pose, s', 0.2, 600.0, True)),
        'filter_cutoff_hz': (2.0, float_desc('zero-phase low-pass cut-off applied to the efforts before '
                                             'averaging, Hz (capped below Nyquist)', 0.01, 500.0, True)),
        'passive_duration_s': (0.0, float_desc('passive mode: stop after this long (ROS time), 0 = until '
                                               'cancelled', 0.0, 1e6, True)),
    }


class StaticPoseRecorder(RecorderBase):
    KIND = 'static'
    NODE_NAME = 'static_pose_recorder'

    def __init__(self, node_name=None, **kwargs):
        super().__init__(node_name, parameters(), **kwargs)
        self.poses = None
        if not self.p['passive']:
            self.poses = self._make_poses()  # bad poses: a clear error at start

    # ----------------------------------------------------------------- poses
    def _make_poses(self):
        p = self.p
        floor = p['floor_z_m'] if p['check_floor'] else None
        if p['poses_file']:
            try:
                data = yaml.safe_load(open(p['poses_file']))
            except (OSError, yaml.YAMLError) as exc:
                raise rec.PoseError(f'cannot read poses_file {p["poses_file"]}: {exc}') from exc
            poses = rec.load_pose_list(data, self.joint_names)
            rec.check_poses(self.robot, poses, p['joint_limit_margin_rad'], floor, p['floor_clearance_m'])
            cond = rec.static_condition_number(self.robot, poses)
            source = p['poses_file']
        else:
            ps = rec.generate_poses(self.robot, p['pose_count'], p['joint_limit_margin_rad'], floor,
                                    p['floor_clearance_m'], seed=p['pose_seed'], candidates=p['pose_candidates'])
            poses, cond, source = ps.poses, ps.condition_number, f'generated (seed {p["pose_seed"]})'
        self.condition_number = cond
        self.log.info(f'{len(poses)} poses, {source}; condition number of the base gravity regressor: {cond:.2f}')
        return poses

    # ----------------------------------------------------------------- active run
    def run_experiment(self):
        info = self.sidecar['info']
        if 'poses_rad' in info:
            stored = np.array(info['poses_rad'])
            if stored.shape != self.poses.shape or not np.allclose(stored, self.poses):
                self.log.warning('resuming with the pose list stored in the sidecar (the parameters give another)')
            self.poses = stored
        else:
            info['poses_rad'] = self.poses.tolist()
            info['gravity_regressor_condition_number'] = float(self.condition_number)
            self.save_sidecar()
        dirs = [1, -1] if self.p['both_directions'] else [1]
        visits = [(i, d) for i in range(len(self.poses)) for d in dirs]
        done = {(s['pose_index'], s['approach']) for s in self.sidecar['segments']}
        failed = info.setdefault('failed_poses', [])
        failed_keys = {(f['pose_index'], f['approach']) for f in failed}
        todo = [v for v in visits if v not in done and v not in failed_keys]
        total = len(visits)
        if done:
            self.log.info(f'{len(done)} of {total} pose visits already recorded; continuing')
        t0 = time.monotonic()
        for k, (i, d) in enumerate(todo):
            n_done = total - len(todo) + k
            self.set_progress(n_done, total, f'pose {i + 1} of {len(self.poses)}, approach {d:+d}')
            el = time.monotonic() - t0
            left = el / k * (len(todo) - k) if k else float('nan')
            self.log.info(f'pose {i + 1} of {len(self.poses)} (approach {d:+d}; visit {n_done + 1} of {total}), '
                          f'elapsed {el:.0f} s, estimated time left '
                          + (f'{left:.0f} s' if np.isfinite(left) else 'unknown'))
            problem = self._visit(i, d)
            if problem:
                self.log.error(f'pose {i + 1}: {problem}; skipped')
                failed.append({'pose_index': i, 'approach': d, 'reason': problem})
                self.save_sidecar()
        if failed:
            self.log.warning(f'{len(failed)} pose visit(s) failed: '
                             + '; '.join(f'pose {f["pose_index"] + 1} ({f["approach"]:+d}): {f["reason"]}'
                                         for f in failed))

    def _visit(self, i, d):
        target = self.poses[i]
        q0 = self.latest()[1]
        motion, signs = rec.plan_approach(q0, target, d, self.p['approach_overshoot_rad'], self.limits,
                                          self.lower, self.upper)
        start = self.send_motion(motion)
        motion_end = start + int(motion.duration_s * 1e9)
        self.wait_until_stamp(motion_end)
        det = rec.SettleDetector(self.p['settle_velocity_rad_s'], self.p['settle_dwell_s'], self.p['settle_timeout_s'])
        det.start(motion_end * 1e-9)
        last_seen = motion_end - 1  # only samples after the end of the commanded motion
        while True:
            self.check()
            samples = self.samples_between(last_seen + 1, 2 ** 63 - 1)
            state = 'settling'
            for st, q, qd, _ in samples:
                state = det.update(st * 1e-9, q, qd)
                last_seen = st
                if state != 'settling':
                    break
            if state == 'settled':
                break
            if state == 'timeout':
                return (f'not settled within {self.p["settle_timeout_s"]:g} s (|velocity| up to '
                        f'{det.max_velocity:.4f} rad/s > {self.p["settle_velocity_rad_s"]:g})')
            time.sleep(0.005)
        settled_at = last_seen
        t_end = self.wait_until_stamp(settled_at + int(self.p['window_s'] * 1e9))[0]
        S = self.samples_between(settled_at, settled_at + int(self.p['window_s'] * 1e9))
        err = self._window(S, target)
        if isinstance(err, str):
            return err
        w = err
        seg = {'type': 'static_hold', 't_start_ns': w.t_start_ns, 't_end_ns': w.t_end_ns, 'pose_index': i,
               'approach': d, 'q_mean_rad': w.q_mean, 'effort_mean': w.effort_mean, 'effort_std': w.effort_std,
               'samples': w.samples, 'q_target_rad': target, 'approach_per_joint': signs,
               'effort_std_filtered': w.effort_std_filtered, 'rate_hz': w.rate_hz,
               'settle_time_s': (settled_at - start) * 1e-9 - motion.duration_s}
        self.add_segment(seg)
        del t_end
        return None

    def _window(self, S, target):
        if not S:
            return 'no joint state in the averaging window'
        stamps = np.array([s[0] for s in S], dtype=np.int64)
        Q = np.array([s[1] for s in S])
        if any(s[3] is None for s in S):
            raise rec.RecordingError('the driver publishes no effort; static poses need the joint torques '
                                     '(or motor currents) in JointState.effort')
        E = np.array([s[3] for s in S])
        if target is not None:
            off = np.abs(Q.mean(0) - target)
            j = int(np.argmax(off))
            if off[j] > self.p['position_tolerance_rad']:
                return (f'unreachable: the arm holds {self.joint_names[j]} at {Q.mean(0)[j]:.4f} rad, '
                        f'{off[j]:.4f} rad from the target {target[j]:.4f} (tolerance '
                        f'{self.p["position_tolerance_rad"]:g}); blocked or out of reach?')
        try:
            return rec.average_window(stamps, Q, E, self.p['filter_cutoff_hz'])
        except rec.RecordingError as exc:
            return str(exc)

    # ----------------------------------------------------------------- passive run
    def run_passive(self):
        dur = self.p['passive_duration_s']
        t_stop = self.latest()[0] + int(dur * 1e9) if dur > 0 else None
        k = len(self.sidecar['segments'])
        det = rec.SettleDetector(self.p['settle_velocity_rad_s'], self.p['settle_dwell_s'], 1e18)
        last_seen = self.latest()[0]
        det.start(last_seen * 1e-9)
        moving_dir = np.zeros(self.n)
        while t_stop is None or last_seen < t_stop:
            self.check()
            self.set_progress(k, k, f'passive: {k} static hold(s) recorded')
            self._maybe_progress()
            self._maybe_commit()
            for st, q, qd, _ in self.samples_between(last_seen + 1, 2 ** 63 - 1):
                last_seen = st
                if qd is not None:
                    moving = np.abs(qd) > self.p['settle_velocity_rad_s']
                    moving_dir = np.where(moving, np.sign(qd), moving_dir)
                if det.update(st * 1e-9, q, qd) == 'settled':
                    t_end = self.wait_until_stamp(st + int(self.p['window_s'] * 1e9))[0]
                    S = self.samples_between(st, t_end)
                    Q = np.array([s[1] for s in S])
                    still = max(np.ptp(Q, axis=0)) < self.p['position_tolerance_rad'] if len(S) else False
                    w = self._window(S, None) if still else 'moved during the window'
                    if not isinstance(w, str):
                        dom = int(np.argmax(np.abs(moving_dir))) if np.any(moving_dir) else 0
                        self.add_segment({'type': 'static_hold', 't_start_ns': w.t_start_ns, 't_end_ns': w.t_end_ns,
                                          'pose_index': k, 'approach': int(moving_dir[dom]) or 1,
                                          'q_mean_rad': w.q_mean, 'effort_mean': w.effort_mean,
                                          'effort_std': w.effort_std, 'samples': w.samples,
                                          'approach_per_joint': moving_dir.astype(int),
                                          'effort_std_filtered': w.effort_std_filtered, 'rate_hz': w.rate_hz})
                        self.log.info(f'passive: static hold {k + 1} recorded')
                        k += 1
                    # wait for the next motion before looking for the next hold
                    self._wait_motion(t_stop)
                    last_seen = self.latest()[0]
                    det.start(last_seen * 1e-9)
                    break
            time.sleep(0.01)

    def _wait_motion(self, t_stop):
        while True:
            self.check()
            self._maybe_commit()
            last = self.latest()
            if t_stop is not None and last[0] >= t_stop:
                return
            if last[2] is not None and np.max(np.abs(last[2])) > 3 * self.p['settle_velocity_rad_s']:
                return
            time.sleep(0.01)

    def finish_info(self, info):
        segs = self.sidecar['segments']
        info['poses_recorded'] = len(segs)


def main(args=None):
    run_node(StaticPoseRecorder, args)


if __name__ == '__main__':
    main()


__all__ = ['StaticPoseRecorder', 'main']
