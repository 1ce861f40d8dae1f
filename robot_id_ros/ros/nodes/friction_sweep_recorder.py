"""friction_sweep_recorder: constant-velocity sweeps of single joints for friction identification.

For each joint of ``sweep_joints``: the other joints hold ``hold_configuration`` (default: the
pose at start); the joint moves at constant velocity from one end of its sweep range to the other
and back, at every speed of ``speeds_rad_s``. The range is c +- ``amplitude_rad`` (reduced to
fit the limits with margin) about the angle c where the joint's gravity torque is extreme or zero
(``sweep_center``: extreme, zero or auto), so pairing a forward with a backward pass at the same
positions cancels gravity: half their torque difference is the friction at that speed.

One ``constant_velocity`` sidecar segment per completed pass (its constant-velocity part, trimmed by
``cruise_trim_s`` at the start), written after the bag part holding it is on disk; a restarted
recorder continues after the last completed pass. At the end the pairing is done on the recorded
data and the Coulomb + viscous estimate per joint goes into the sidecar info and the log.

Passive mode: records until cancelled (or ``passive_duration_s``), no segments.
"""
from __future__ import annotations

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.ros.params import desc, float_desc
from robot_id_ros.ros.recorder_base import RecorderBase, run_node


def parameters():
    return {
        'sweep_joints': (['arm_joint_2', 'arm_joint_3', 'arm_joint_4'], desc(
            'joints to sweep, one after the other (names from joint_names)', True)),
        'speeds_rad_s': ([0.1, 0.2, 0.35], desc('constant sweep speeds, rad/s (each at most max_velocity_rad_s)',
                                                True)),
        'amplitude_rad': (0.5, float_desc('half range of a sweep about its centre, rad (reduced to fit the '
                                          'limits with margin)', 0.05, 3.2, True)),
        'min_amplitude_rad': (0.15, float_desc('fail a joint whose sweep range would be shorter than +- this, rad',
                                               0.01, 3.0, True)),
        'sweep_center': ('auto', desc("centre of each sweep: 'extreme' (gravity torque extreme), 'zero' (gravity "
                                      "torque zero) or 'auto' (extreme unless zero allows a clearly longer sweep)",
                                      True)),
        'hold_configuration': ([0.0], desc('configuration of the other joints, rad, one per joint of joint_names; '
                                           '[0.0] (one value) = the measured pose at start', True)),
        'cruise_trim_s': (0.3, float_desc('drop this much after the end of the acceleration from each '
                                          "segment's window (tracking transient), s", 0.0, 10.0, True)),
        'settle_s': (0.5, float_desc('pause before each pass, s', 0.0, 30.0, True)),
        'passive_duration_s': (0.0, float_desc('passive mode: stop after this long (ROS time), 0 = until '
                                               'cancelled', 0.0, 1e6, True)),
    }


class FrictionSweepRecorder(RecorderBase):
    KIND = 'friction_sweep'
    NODE_NAME = 'friction_sweep_recorder'

    def __init__(self, node_name=None, **kwargs):
        super().__init__(node_name, parameters(), **kwargs)
        unknown = [j for j in self.p['sweep_joints'] if j not in self.joint_names]
        if unknown:
            raise ValueError(f'sweep_joints {unknown} are not in joint_names {list(self.joint_names)}')
        if self.p['sweep_center'] not in ('auto', 'extreme', 'zero'):
            raise ValueError(f"sweep_center must be 'auto', 'extreme' or 'zero', got {self.p['sweep_center']!r}")
        hc = list(self.p['hold_configuration'])
        if len(hc) not in (1, self.n):
            raise ValueError(f'hold_configuration needs {self.n} values (or one: the pose at start), got {len(hc)}')
        self.hold = np.array(hc) if len(hc) == self.n else None
        if self.hold is not None and not self.p['passive']:
            self._plans(self.hold)  # unreachable or bad sweeps: a clear error at start

    def _plans(self, q_config):
        return [rec.plan_friction_sweep(self.robot, q_config, self.joint_names.index(j), self.p['speeds_rad_s'],
                                        self.p['amplitude_rad'], self.limits, self.p['sweep_center'],
                                        self.p['min_amplitude_rad'])
                for j in self.p['sweep_joints']]

    def run_experiment(self):
        info = self.sidecar['info']
        if 'hold_configuration_rad' in info:
            q_config = np.array(info['hold_configuration_rad'])
        else:
            q_config = self.hold if self.hold is not None else self.latest()[1].copy()
            bad = self.robot.check_in_limits(q_config, self.p['joint_limit_margin_rad'])
            swept = set(self.p['sweep_joints'])
            bad = [b for b in bad if b not in swept]
            if bad:
                raise rec.PoseError(f'hold configuration puts {", ".join(bad)} outside the limits with margin')
            info['hold_configuration_rad'] = q_config.tolist()
        plans = self._plans(q_config)
        info['sweeps'] = [{'joint': p.joint_name, 'center_rad': p.center_rad, 'center_mode': p.center_mode,
                           'gravity_at_center_nm': p.gravity_at_center_nm, 'amplitude_rad': p.amplitude_rad}
                          for p in plans]
        self.save_sidecar()
        for p in plans:
            self.log.info(f'{p.joint_name}: sweep {p.center_rad - p.amplitude_rad:.3f} .. '
                          f'{p.center_rad + p.amplitude_rad:.3f} rad about the gravity {p.center_mode} '
                          f'({p.gravity_at_center_nm:+.3f} Nm there), {len(p.passes)} passes, {p.duration_s:.1f} s')
        passes = [s for p in plans for s in p.passes]
        total = len(passes)
        done = {(s['joint'], s['speed_index'], s['direction']) for s in self.sidecar['segments']}
        for k, sp in enumerate(passes):
            if (sp.joint_name, sp.speed_index, sp.direction) in done:
                continue
            self.set_progress(k, total, f'{sp.joint_name} at {sp.speed_rad_s:g} rad/s, direction {sp.direction:+d}')
            self._maybe_progress(force=True)
            m = sp.motion
            q_start = m.evaluate(0.0)[0]
            if np.max(np.abs(self.latest()[1] - q_start)) > 1e-3:
                self.move_to(q_start)
            if self.p['settle_s'] > 0:
                self.sleep_ros(self.p['settle_s'])
            start = self.send_motion(m)
            self.wait_until_stamp(start + int(m.duration_s * 1e9))
            c0, c1 = m.cruise
            t0 = start + int((c0 + self.p['cruise_trim_s']) * 1e9)
            t1 = start + int(c1 * 1e9)
            if t1 <= t0:
                raise rec.RecordingError(f'cruise_trim_s {self.p["cruise_trim_s"]} leaves nothing of the '
                                         f'{c1 - c0:.2f} s constant-velocity part at {sp.speed_rad_s} rad/s')
            self.add_segment({'type': 'constant_velocity', 't_start_ns': t0, 't_end_ns': t1, 'joint': sp.joint_name,
                              'velocity_rad_s': sp.direction * sp.speed_rad_s, 'direction': sp.direction,
                              'speed_index': sp.speed_index, 'speed_rad_s': sp.speed_rad_s,
                              'q_from_rad': float(m.a), 'q_to_rad': float(m.b)})

    def finish_info(self, info):
        """Pair the recorded passes (from memory) and store the Coulomb + viscous estimates."""
        est = {}
        j_of = {n: i for i, n in enumerate(self.joint_names)}
        segs = self.sidecar['segments']
        for jn in sorted({s['joint'] for s in segs}):
            j = j_of[jn]
            speeds, fr = [], []
            for si in sorted({s['speed_index'] for s in segs if s['joint'] == jn}):
                pair = {s['direction']: s for s in segs if s['joint'] == jn and s['speed_index'] == si}
                if set(pair) != {1, -1}:
                    continue
                data = []
                for d in (1, -1):
                    S = self.samples_between(pair[d]['t_start_ns'], pair[d]['t_end_ns'])
                    if len(S) < 5 or S[0][3] is None:
                        break
                    data.append((np.array([s[1][j] for s in S]), np.array([s[3][j] for s in S])))
                if len(data) != 2:
                    continue
                try:
                    f, _, _, _ = rec.pair_sweep_passes(data[0][0], data[0][1], data[1][0], data[1][1])
                except ValueError:
                    continue
                speeds.append(pair[1]['speed_rad_s'])
                fr.append(f)
            if len(speeds) >= 2:
                fc, fv = rec.fit_coulomb_viscous(speeds, fr)
                est[jn] = {'coulomb_nm': fc, 'viscous_nm_s_rad': fv, 'speeds_rad_s': speeds, 'friction_nm': fr}
                self.log.info(f'{jn}: friction from paired passes: Coulomb {fc:.3f} Nm, viscous {fv:.3f} Nm s/rad')
        if est:
            info['friction_estimate'] = est


def main(args=None):
    run_node(FrictionSweepRecorder, args)


if __name__ == '__main__':
    main()


__all__ = ['FrictionSweepRecorder', 'main']
