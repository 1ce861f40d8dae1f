# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""trajectory_recorder: play a periodic excitation trajectory and record the joint states.

Loads ``trajectory_file`` (written by ``robot-id design-excitation``), plans a smooth quintic
ramp-in from the measured pose to the trajectory's start state, ``periods`` full periods and a
ramp-out to rest, checks the whole motion against the joint limits (with margin) and the
velocity/acceleration limits, and commands it as JointTrajectory (one message with a future start
stamp, or streamed in chunks). The bag holds every joint state of the run; the sidecar gets one
``excitation_period`` segment per completed period, written after the bag part holding it is on
disk. While playing, the position tracking error (measured vs planned) is checked: above
``max_tracking_error_rad`` the arm is stopped and the run ends with an error (data kept). The
driver's message rate, jitter and gaps and the tracking error statistics go into the sidecar info.

Passive mode: records until cancelled (or ``passive_duration_s``), no segments.
"""
from __future__ import annotations

import sys

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.ros.main import run_node
from robot_id_ros.ros.recorders import RecorderBase, trajectory_parameters
from robot_id_ros.ros.recorders.excitation import ExcitationMotion, load_excitation

MAX_START_LAG_S = 2.0   # a motion the driver starts later than this: the command is lost


class TrajectoryRecorder(RecorderBase):
    """Periods of an excitation trajectory, tracking checked (see the module doc)."""

    KIND = 'trajectory'
    NODE_NAME = 'trajectory_recorder'

    def __init__(self, node_name=None, **kwargs):
        super().__init__(node_name, trajectory_parameters(), **kwargs)
        self.monitor = None
        self.traj = None if self.p['passive'] else load_excitation(self)

    def _plan(self, periods):
        """Ramp-in from the measured pose, ``periods`` periods, ramp-out to rest."""
        ex = ExcitationMotion(self.traj, periods)
        rest = np.zeros(self.n)
        s0, s1 = ex.evaluate(0.0), ex.evaluate(ex.duration_s)
        ramp_in = rec.plan_transition((self.latest().q, rest, rest), s0, self.limits, self.lower,
                                      self.upper, self.p['ramp_min_s'])
        q_rest = np.clip(s1[0] + 0.5 * s1[1] * self.p['ramp_min_s'], self.lower, self.upper)
        ramp_out = rec.plan_transition(s1, (q_rest, rest, rest), self.limits, self.lower,
                                       self.upper, self.p['ramp_min_s'])
        return ramp_in, ramp_out, rec.Sequence([ramp_in, ex, ramp_out])

    def run_experiment(self):
        T, periods, segs = self.traj.period_s, self.p['periods'], self.session.segments
        base_index = len(segs)
        if segs:
            self.log.warning(f'resuming: {len(segs)} period(s) already recorded; the excitation '
                             'is played again from the start and its periods are numbered on')
        ramp_in, ramp_out, motion = self._plan(periods)
        self.log.info(f'playing: ramp-in {ramp_in.duration_s:.1f} s, {periods} periods of {T:g} '
                      f's, ramp-out {ramp_out.duration_s:.1f} s')
        self.monitor = rec.TrackingMonitor(self.n, self.p['max_tracking_error_rad'],
                                           self.p['tracking_error_samples'])
        # the tracker listens before the motion is sent (its start is known once sent): the
        # driver's samples between the two are checked too; set points that keep their own
        # times are caught up with after a late first one, so only a single command shifts
        tracker = rec.LateStartTracker(
            motion, None, self.monitor, MAX_START_LAG_S,
            shifts=not getattr(self.commander.adapter, 'timed_setpoints', False))
        track = self._tracker(tracker, motion.duration_s)
        self.commander.add_listener(track)
        try:
            # its start time is taken once the message is built (see send_motion)
            start = tracker.start_ns = self.commander.send_motion(
                motion, background=True, lead_s=self.p['command_lead_s'])
            # a command that reached the driver late starts late: its periods are shifted by
            # the measured lag (known once the arm leaves the start pose, during the ramp-in)
            lag = self.commander.wait_for(lambda: tracker.lag_ns)
            if lag:
                self.log.warning(f'the driver started the motion {lag * 1e-9:.3f} s late (the '
                                 'command reached it after its start time): periods shifted')
            elif tracker.departure_delay_ns:
                late_s = tracker.departure_delay_ns * 1e-9
                self.log.warning(f'the arm left its start pose {late_s:.3f} s late (the first '
                                 'set points reached the driver late); the later ones keep '
                                 'their times: periods not shifted')
            start += lag
            exc_start = start + int(ramp_in.duration_s * 1e9)
            end = start + int(motion.duration_s * 1e9)
            self.session.info.setdefault('runs', []).append(
                {'start_ns': start, 'excitation_start_ns': exc_start, 'period_s': T,
                 'periods': periods, 'ramp_in_s': ramp_in.duration_s,
                 'ramp_out_s': ramp_out.duration_s, 'start_lag_s': lag * 1e-9})
            self.session.save()
            for k in range(periods):
                t0, t1 = exc_start + int(k * T * 1e9), exc_start + int((k + 1) * T * 1e9)
                self.progress.set(k, periods, f'period {k + 1} of {periods}')
                self.wait_until_stamp(t1)
                self.add_segment({'type': 'excitation_period', 't_start_ns': t0, 't_end_ns': t1,
                                  'period_index': base_index + k, 'period_s': T,
                                  'tracking_rms_rad': self.monitor.rms})
                self.log.info(f'period {k + 1} of {periods} recorded; tracking error max '
                              f'{self.monitor.max_abs.max():.4f} rad')
            self.wait_until_stamp(end)
        finally:
            self.commander.remove_listener(track)

    def _tracker(self, tracker, duration_s):
        """Joint-state listener: feeds the tracking monitor, fails the run when it trips.

        ``tracker`` is the ``LateStartTracker``; samples before its ``start_ns`` is set, before
        the start and after the motion's ``duration_s`` (plus the start lag) are not checked.
        """
        def track(stamp, _msg, s):
            start = tracker.start_ns
            if s is None or start is None or not (
                    start <= stamp <= start + int(duration_s * 1e9) + (tracker.lag_ns or 0)):
                return
            e, _planned = tracker.update(stamp, s.q)
            if self.monitor.tripped and self.commander.error is None:
                j = int(np.argmax(e))
                lost = (f'; the arm never left its start pose in the {MAX_START_LAG_S:g} s '
                        'after the planned start: was the command lost?'
                        if tracker.never_started(stamp) else '')
                self.commander.fail(rec.RecordingError(
                    f'tracking error {e[j]:.3f} rad of {self.joint_names[j]} at t = '
                    f'{(stamp - start) * 1e-9:.2f} s exceeds max_tracking_error_rad '
                    f'{self.p["max_tracking_error_rad"]:g}: arm stopped{lost}'))
        return track

    def finish_info(self, info):
        if self.monitor is not None:
            info['tracking'] = self.monitor.report()
        t = info.get('driver_timing', {})
        self.log.info(f'driver: {t.get("rate_hz", float("nan")):.1f} Hz, jitter '
                      f'{1e3 * t.get("jitter_std_s", 0):.2f} ms, {t.get("gaps", 0)} gap(s), '
                      f'largest interval {1e3 * (t.get("dt_max_s") or 0):.1f} ms')


def main(args=None):
    """Run the node; returns the exit code (see robot_id_ros.ros.main)."""
    return run_node(TrajectoryRecorder, TrajectoryRecorder.NODE_NAME, args)


if __name__ == '__main__':
    sys.exit(main())


__all__ = ['TrajectoryRecorder', 'main']
