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

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.ros.params import desc, float_desc, int_desc
from robot_id_ros.ros.recorder_base import RecorderBase, run_node


def parameters():
    return {
        'trajectory_file': ('', desc('excitation trajectory YAML written by robot-id design-excitation', True)),
        'periods': (5, int_desc('number of full periods to play', 1, 10000, True)),
        'max_tracking_error_rad': (0.15, float_desc('abort when |measured - planned position| of a joint exceeds '
                                                    'this for tracking_error_samples samples in a row, rad',
                                                    1e-3, 3.0, True)),
        'tracking_error_samples': (3, int_desc('consecutive samples over the limit that abort', 1, 1000, True)),
        'ramp_min_s': (1.0, float_desc('shortest ramp-in / ramp-out, s', 0.1, 60.0, True)),
        'passive_duration_s': (0.0, float_desc('passive mode: stop after this long (ROS time), 0 = until '
                                               'cancelled', 0.0, 1e6, True)),
    }


class _Excitation(rec.Motion):
    def __init__(self, traj, periods):
        self.traj = traj
        self.duration_s = periods * traj.period_s

    def evaluate(self, t):
        q, qd, qdd = self.traj.evaluate(min(max(t, 0.0), self.duration_s))
        return q[0], qd[0], qdd[0]


class TrajectoryRecorder(RecorderBase):
    KIND = 'trajectory'
    NODE_NAME = 'trajectory_recorder'

    def __init__(self, node_name=None, **kwargs):
        super().__init__(node_name, parameters(), **kwargs)
        self.traj = None
        self.monitor = None
        if not self.p['passive']:
            self.traj = self._load()

    def _load(self):
        from robot_id_ros.record import FourierTrajectory

        path = self.p['trajectory_file']
        if not path:
            raise ValueError('parameter trajectory_file is empty: give the YAML of robot-id design-excitation')
        try:
            traj = FourierTrajectory.load(path)
        except OSError as exc:
            raise ValueError(f'cannot read trajectory_file {path}: {exc}') from exc
        if tuple(traj.joint_names) != self.joint_names:
            raise ValueError(f'trajectory_file {path} is for joints {list(traj.joint_names)}, this recorder '
                             f'drives {list(self.joint_names)}')
        ex = _Excitation(traj, 1)
        vp, ap, qmin, qmax = rec.motion_peaks(ex, dt=min(0.01, traj.period_s / 500))
        v, a = self.limits.vectors(self.n)
        for label, bad in (('position below the lower limit', qmin < self.lower - 1e-9),
                           ('position above the upper limit', qmax > self.upper + 1e-9),
                           ('velocity above max_velocity_rad_s', vp > v * 1.0001),
                           ('acceleration above max_acceleration_rad_s2', ap > a * 1.0001)):
            if np.any(bad):
                j = int(np.argmax(bad))
                raise rec.PoseError(f'excitation {path} exceeds the safety limits: {self.joint_names[j]} '
                                    f'{label} (with margin {self.p["joint_limit_margin_rad"]:g} rad; peaks: '
                                    f'q {qmin[j]:.3f}..{qmax[j]:.3f}, qd {vp[j]:.3f}, qdd {ap[j]:.3f}); redesign it '
                                    'or raise the limits')
        self.log.info(f'excitation {path}: period {traj.period_s:g} s, {traj.harmonics} harmonics, '
                      f'peak speed {vp.max():.3f} rad/s')
        return traj

    def run_experiment(self):
        traj, T = self.traj, self.traj.period_s
        segs = self.sidecar['segments']
        if segs:
            self.log.warning(f'resuming: {len(segs)} period(s) already recorded; the excitation is played again from '
                             'the start and its periods are numbered on')
        periods = self.p['periods']
        ex = _Excitation(traj, periods)
        q0 = self.latest()[1]
        s0 = ex.evaluate(0.0)
        s1 = ex.evaluate(ex.duration_s)
        ramp_in = rec.plan_transition((q0, np.zeros(self.n), np.zeros(self.n)), s0, self.limits, self.lower,
                                      self.upper, self.p['ramp_min_s'])
        q_rest = np.clip(s1[0] + 0.5 * s1[1] * self.p['ramp_min_s'], self.lower, self.upper)
        ramp_out = rec.plan_transition(s1, (q_rest, np.zeros(self.n), np.zeros(self.n)), self.limits, self.lower,
                                       self.upper, self.p['ramp_min_s'])
        motion = rec.Sequence([ramp_in, ex, ramp_out])
        self.log.info(f'playing: ramp-in {ramp_in.duration_s:.1f} s, {periods} periods of {T:g} s, '
                      f'ramp-out {ramp_out.duration_s:.1f} s')
        self.monitor = rec.TrackingMonitor(self.n, self.p['max_tracking_error_rad'], self.p['tracking_error_samples'])
        start = self.time_ref_ns() + int(self.p['command_lead_s'] * 1e9)
        exc_start = start + int(ramp_in.duration_s * 1e9)
        info = self.sidecar['info']
        info.setdefault('runs', []).append({'start_ns': start, 'excitation_start_ns': exc_start, 'period_s': T,
                                            'periods': periods, 'ramp_in_s': ramp_in.duration_s,
                                            'ramp_out_s': ramp_out.duration_s})
        self.save_sidecar()
        end = start + int(motion.duration_s * 1e9)

        def track(stamp, s):
            if start <= stamp <= end:
                self.monitor.update(s.q, motion.evaluate((stamp - start) * 1e-9)[0])
                if self.monitor.tripped and self.error is None:
                    e = np.abs(s.q - motion.evaluate((stamp - start) * 1e-9)[0])
                    j = int(np.argmax(e))
                    self._fail_async(rec.RecordingError(
                        f'tracking error {e[j]:.3f} rad of {self.joint_names[j]} at t = {(stamp - start) * 1e-9:.2f} s '
                        f'exceeds max_tracking_error_rad {self.p["max_tracking_error_rad"]:g}: arm stopped'))

        self._sample_hooks.append(track)
        try:
            if self.p['command_interface'] == 'trajectory_stream':
                import threading
                th = threading.Thread(target=self._stream_guarded, args=(motion, start), daemon=True)
                th.start()
            else:
                self.send_motion(motion, start)
            base_index = len(segs)
            for k in range(periods):
                t0 = exc_start + int(k * T * 1e9)
                t1 = exc_start + int((k + 1) * T * 1e9)
                self.set_progress(k, periods, f'period {k + 1} of {periods}')
                self.wait_until_stamp(t1)
                self.add_segment({'type': 'excitation_period', 't_start_ns': t0, 't_end_ns': t1,
                                  'period_index': base_index + k, 'period_s': T,
                                  'tracking_rms_rad': self.monitor.rms})
                self.log.info(f'period {k + 1} of {periods} recorded; tracking error max '
                              f'{self.monitor.max_abs.max():.4f} rad')
            self.wait_until_stamp(end)
        finally:
            self._sample_hooks.remove(track)

    def _stream_guarded(self, motion, start):
        try:
            self.send_motion(motion, start)
        except Exception as exc:  # noqa: BLE001 - the worker reports it
            if self.error is None and not self._cancel.is_set():
                self._fail_async(rec.RecordingError(f'streaming the trajectory failed: {exc}'))

    def finish_info(self, info):
        if self.monitor is not None:
            info['tracking'] = self.monitor.report()
        t = info.get('driver_timing', {})
        self.log.info(f'driver: {t.get("rate_hz", float("nan")):.1f} Hz, jitter {1e3 * t.get("jitter_std_s", 0):.2f} ms, '
                      f'{t.get("gaps", 0)} gap(s), largest interval {1e3 * (t.get("dt_max_s") or 0):.1f} ms')


def main(args=None):
    run_node(TrajectoryRecorder, args)


if __name__ == '__main__':
    main()


__all__ = ['TrajectoryRecorder', 'main']
