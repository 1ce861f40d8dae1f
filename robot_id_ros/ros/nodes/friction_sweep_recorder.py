# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""friction_sweep_recorder: constant-velocity sweeps of single joints for friction identification.

For each joint of ``sweep_joints``: the other joints hold ``hold_configuration`` (default: the
pose at start); the joint moves at constant velocity from one end of its sweep range to the other
and back, at every speed of ``speeds_rad_s``. The range is c +- ``amplitude_rad`` (reduced to
fit the limits with margin) about the angle c where the joint's gravity torque is extreme or zero
(``sweep_center``: extreme, zero or auto), so pairing a forward with a backward pass at the same
positions cancels gravity: half their torque difference is the friction at that speed.

One ``constant_velocity`` sidecar segment per completed pass (its constant-velocity part, trimmed
by ``cruise_trim_s`` at the start), written after the bag part holding it is on disk; a restarted
recorder continues after the last completed pass. At the end the pairing is done on the recorded
data and the Coulomb + viscous estimate per joint goes into the sidecar info and the log.

Passive mode: records until cancelled (or ``passive_duration_s``), no segments.
"""
from __future__ import annotations

import sys

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.errors import InputError
from robot_id_ros.ros.main import run_node
from robot_id_ros.ros.recorders import RecorderBase, friction_sweep_parameters
from robot_id_ros.ros.recorders.sweeps import friction_estimate, sweep_segment

AT_START_TOLERANCE_RAD = 1e-3   # closer than this to a pass's start: no move there first
SWEEP_CENTERS = ('auto', 'extreme', 'zero')


class FrictionSweepRecorder(RecorderBase):
    """Constant-velocity passes of single joints (see the module doc)."""

    KIND = 'friction_sweep'
    NODE_NAME = 'friction_sweep_recorder'

    def __init__(self, node_name=None, **kwargs):
        super().__init__(node_name, friction_sweep_parameters(), **kwargs)
        unknown = [j for j in self.p['sweep_joints'] if j not in self.joint_names]
        if unknown:
            raise InputError(f'sweep_joints {unknown} are not in joint_names '
                             f'{list(self.joint_names)}')
        if self.p['sweep_center'] not in SWEEP_CENTERS:
            raise InputError("sweep_center must be 'auto', 'extreme' or 'zero', got "
                             f"{self.p['sweep_center']!r}")
        hc = list(self.p['hold_configuration'])
        if len(hc) not in (1, self.n):
            raise InputError(f'hold_configuration needs {self.n} values (or one: the pose at '
                             f'start), got {len(hc)}')
        self.hold = np.array(hc) if len(hc) == self.n else None
        if self.hold is not None and not self.p['passive']:
            self._plans(self.hold)  # unreachable or bad sweeps: a clear error at start

    def _plans(self, q_config):
        p = self.p
        return [rec.plan_friction_sweep(self.robot, q_config, self.joint_names.index(j),
                                        p['speeds_rad_s'], p['amplitude_rad'], self.limits,
                                        p['sweep_center'], p['min_amplitude_rad'])
                for j in p['sweep_joints']]

    def _hold_configuration(self, info):
        """Return the configuration the other joints hold (in the sidecar info, for resuming)."""
        if 'hold_configuration_rad' in info:
            return np.array(info['hold_configuration_rad'])
        q_config = self.hold if self.hold is not None else self.latest().q.copy()
        swept = set(self.p['sweep_joints'])
        bad = [b for b in self.robot.check_in_limits(q_config, self.p['joint_limit_margin_rad'])
               if b not in swept]
        if bad:
            raise rec.PoseError(f'hold configuration puts {", ".join(bad)} outside the limits '
                                'with margin')
        info['hold_configuration_rad'] = q_config.tolist()
        return q_config

    def run_experiment(self):
        info = self.session.info
        plans = self._plans(self._hold_configuration(info))
        info['sweeps'] = [{'joint': p.joint_name, 'center_rad': p.center_rad,
                           'center_mode': p.center_mode,
                           'gravity_at_center_nm': p.gravity_at_center_nm,
                           'amplitude_rad': p.amplitude_rad} for p in plans]
        self.session.save()
        for p in plans:
            self.log.info(f'{p.joint_name}: sweep {p.center_rad - p.amplitude_rad:.3f} .. '
                          f'{p.center_rad + p.amplitude_rad:.3f} rad about the gravity '
                          f'{p.center_mode} ({p.gravity_at_center_nm:+.3f} Nm there), '
                          f'{len(p.passes)} passes, {p.duration_s:.1f} s')
        passes = [s for p in plans for s in p.passes]
        done = {(s['joint'], s['speed_index'], s['direction']) for s in self.session.segments}
        for k, sp in enumerate(passes):
            if (sp.joint_name, sp.speed_index, sp.direction) not in done:
                self.progress.set(k, len(passes), f'{sp.joint_name} at {sp.speed_rad_s:g} rad/s, '
                                  f'direction {sp.direction:+d}')
                self.progress.report(force=True)
                self._pass(sp)

    def _pass(self, sp):
        """Move to the start of pass ``sp``, pause, sweep, and add its segment."""
        m = sp.motion
        if np.max(np.abs(self.latest().q - m.evaluate(0.0)[0])) > AT_START_TOLERANCE_RAD:
            self.commander.move_to(m.evaluate(0.0)[0], idle=self._idle)
        if self.p['settle_s'] > 0:
            self.commander.sleep(self.p['settle_s'], idle=self._idle)
        start = self.commander.send_motion(m)
        self.wait_until_stamp(start + int(m.duration_s * 1e9))
        self.add_segment(sweep_segment(sp, start, self.p['cruise_trim_s']))

    def finish_info(self, info):
        """Pair the recorded passes (from memory) and store the Coulomb + viscous estimates."""
        est = friction_estimate(self.session.segments, self.joint_names, self.buffer.between)
        for jn, e in est.items():
            self.log.info(f'{jn}: friction from paired passes: Coulomb {e["coulomb_nm"]:.3f} Nm, '
                          f'viscous {e["viscous_nm_s_rad"]:.3f} Nm s/rad')
        if est:
            info['friction_estimate'] = est


def main(args=None):
    """Run the node; returns the exit code (see robot_id_ros.ros.main)."""
    return run_node(FrictionSweepRecorder, FrictionSweepRecorder.NODE_NAME, args)


if __name__ == '__main__':
    sys.exit(main())


__all__ = ['FrictionSweepRecorder', 'main']
