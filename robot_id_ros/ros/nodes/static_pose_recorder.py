# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
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

Topics, services and common parameters: see robot_id_ros.ros.recorders.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.record.session import eta_text
from robot_id_ros.ros.main import run_node
from robot_id_ros.ros.recorders import RecorderBase, static_pose_parameters
from robot_id_ros.ros.recorders.static_poses import (hold_segment, make_poses, record_window,
                                                     resumed_poses, wait_settled)


class StaticPoseRecorder(RecorderBase):
    """Static poses, each settled and averaged (see the module doc)."""

    KIND = 'static'
    NODE_NAME = 'static_pose_recorder'

    def __init__(self, node_name=None, **kwargs):
        super().__init__(node_name, static_pose_parameters(), **kwargs)
        self.condition_number = None
        self.poses = None if self.p['passive'] else make_poses(self)  # bad poses: fail at start

    # ----------------------------------------------------------------- active run
    def run_experiment(self):
        info = self.session.info
        self.poses = resumed_poses(self, info)
        dirs = [1, -1] if self.p['both_directions'] else [1]
        visits = [(i, d) for i in range(len(self.poses)) for d in dirs]
        failed = info.setdefault('failed_poses', [])
        done = {(s['pose_index'], s['approach']) for s in self.session.segments}
        skip = done | {(f['pose_index'], f['approach']) for f in failed}
        todo = [v for v in visits if v not in skip]
        total, n_poses = len(visits), len(self.poses)
        if done:
            self.log.info(f'{len(done)} of {total} pose visits already recorded; continuing')
        t0 = time.monotonic()
        for k, (i, d) in enumerate(todo):
            n_done = total - len(todo) + k
            self.progress.set(n_done, total, f'pose {i + 1} of {n_poses}, approach {d:+d}')
            el = time.monotonic() - t0
            self.log.info(f'pose {i + 1} of {n_poses} (approach {d:+d}; visit {n_done + 1} of '
                          f'{total}), elapsed {el:.0f} s, estimated time left '
                          f'{eta_text(el, k, len(todo) - k)}')
            problem = self._visit(i, d)
            if problem:
                self.log.error(f'pose {i + 1}: {problem}; skipped')
                failed.append({'pose_index': i, 'approach': d, 'reason': problem})
                self.session.save()
        if failed:
            self.log.warning(f'{len(failed)} pose visit(s) failed: ' + '; '.join(
                f'pose {f["pose_index"] + 1} ({f["approach"]:+d}): {f["reason"]}' for f in failed))

    def _visit(self, i, d):
        """Approach pose ``i`` from direction ``d``, settle, average; the problem or None."""
        target = self.poses[i]
        motion, signs = rec.plan_approach(self.latest().q, target, d,
                                          self.p['approach_overshoot_rad'], self.limits,
                                          self.lower, self.upper)
        start = self.commander.send_motion(motion)
        motion_end = start + int(motion.duration_s * 1e9)
        self.wait_until_stamp(motion_end)
        settled_at = wait_settled(self, motion_end)
        if isinstance(settled_at, str):
            return settled_at
        w = record_window(self, settled_at, target)
        if isinstance(w, str):
            return w
        seg = hold_segment(w, i, d, signs, target)
        seg['settle_time_s'] = (settled_at - start) * 1e-9 - motion.duration_s
        self.add_segment(seg)
        return None

    # ----------------------------------------------------------------- passive run
    def run_passive(self):
        """Record a static hold segment each time the arm (moved by something else) settles."""
        v_settle = self.p['settle_velocity_rad_s']
        t_stop = self.passive_stop_ns()
        det = rec.SettleDetector(v_settle, self.p['settle_dwell_s'], 1e18)
        moving_dir = np.zeros(self.n)
        while True:
            k = len(self.session.segments)
            self.progress.set(k, k, f'passive: {k} static hold(s) recorded')
            last_seen = self.latest().stamp_ns
            det.start(last_seen * 1e-9)
            settled_at = None
            for st, q, qd, _ in self.follow(last_seen):
                if qd is not None:
                    moving_dir = np.where(np.abs(qd) > v_settle, np.sign(qd), moving_dir)
                if det.update(st * 1e-9, q, qd) == 'settled':
                    settled_at = st
                    break
                if self._ended(t_stop):
                    return
            w = record_window(self, settled_at, None)
            if not isinstance(w, str):
                dom = int(np.argmax(np.abs(moving_dir))) if np.any(moving_dir) else 0
                self.add_segment(hold_segment(w, k, int(moving_dir[dom]) or 1,
                                              moving_dir.astype(int)))
                self.log.info(f'passive: static hold {k + 1} recorded')
            # wait for the next motion before looking for the next hold
            self.wait_for(lambda: self._ended(t_stop) or self._moving(3 * v_settle) or None)
            if self._ended(t_stop):
                return

    def _ended(self, t_stop):
        return t_stop is not None and self.latest().stamp_ns >= t_stop

    def _moving(self, v_min):
        qd = self.latest().qd
        return qd is not None and np.max(np.abs(qd)) > v_min

    def finish_info(self, info):
        info['poses_recorded'] = len(self.session.segments)


def main(args=None):
    """Run the node; returns the exit code (see robot_id_ros.ros.main)."""
    return run_node(StaticPoseRecorder, StaticPoseRecorder.NODE_NAME, args)


if __name__ == '__main__':
    sys.exit(main())


__all__ = ['StaticPoseRecorder', 'main']
