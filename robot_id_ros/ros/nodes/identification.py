"""identification node: runs the identification on recorded bags when its ``~/identify`` service
(std_srvs/srv/Trigger) is called, and writes the model file (and a report).

The fit runs in its own mutually exclusive callback group on a multi-threaded executor, so the
node keeps answering (parameters, other services) while it works. Parameters (see
config/identification.yaml): bag lists, or ``recordings_dir`` to take the recorders' latest
bags of each kind; the robot; the output paths; fit options. Every parameter is read at each
call, so all of them can be changed between calls (none is read-only).
"""
from __future__ import annotations

import sys
import threading
import traceback
from pathlib import Path

import rclpy
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.exceptions import ParameterException
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from std_srvs.srv import Trigger

from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.identify import IdentificationOptions, identify
from robot_id_ros.model.robot import YOUBOT_JOINTS, YOUBOT_TOOL_FRAME, RobotModel, default_urdf_path
from robot_id_ros.io.sidecar import SidecarError, find_sidecar, read_sidecar
from robot_id_ros.ros.params import NO_STRINGS, desc, float_desc, refuse_renamed, string_list

# name: (default, descriptor). Every parameter is read at each ~/identify call (none is fixed at
# start, so none is read-only): change them with ros2 param set between calls.
PARAMETERS = {
    'urdf_path': ('', desc("the robot's URDF; '' = the bundled youBot arm")),
    'joint_names': (list(NO_STRINGS), desc("actuated joints, base to tip; [''] = the youBot arm joints (bundled "
                                           'URDF) or every 1-DoF joint of urdf_path')),
    'tool_frame': ('', desc("tool frame; '' = the youBot tool point (bundled URDF) or the last frame")),
    'data_bags': (list(NO_STRINGS), desc("excitation trajectory bags; [''] = none")),
    'static_bags': (list(NO_STRINGS), desc("static pose bags; [''] = none")),
    'sweep_bags': (list(NO_STRINGS), desc("friction sweep bags; [''] = none")),
    'recordings_dir': ('', desc('when the bag lists are empty: take the latest bag of each kind (by its sidecar) '
                                'here')),
    'output_model': ('identified_model.yaml', desc('model file to write')),
    'report_dir': ('', desc("folder for report.md and plots; '' = no report")),
    'topic': ('/joint_states', desc('JointState topic in the bags')),
    'effort_unit': ('torque', desc("effort in the bags: 'torque' (Nm) or 'current' (motor current, A; needs "
                                   'drive_gains_nm_per_a)')),
    'drive_gains_nm_per_a': ([0.0], desc('drive gains per joint, Nm/A, for effort_unit current; [0.0] = none '
                                         'given')),
    'weighting': ('wls', desc("'wls' (weighted by the per-joint noise variance) or 'ols'")),
    'physical_consistency': (False, desc('constrain the inertias to be physically valid (LMI)')),
    'prior_weight': (0.0, float_desc('damped least squares toward the URDF values, relative to a unit regressor '
                                     'column (dimensionless; 0 = none)', 0.0, 1.0e6)),
    'rotor_inertia': (False, desc('identify reflected rotor inertia per joint')),
    'coulomb_asymmetric': (False, desc('direction-dependent Coulomb friction')),
    'offset': (True, desc('a constant torque offset per joint')),
    'stribeck_column': (False, desc('a Stribeck term per joint in the trajectory fit (velocity from the sweeps, '
                                    'else chosen by the fit)')),
    'derivative_method': ('auto', desc("positions to velocities/accelerations: 'auto' (periodic when periodic), "
                                       "'periodic', 'savgol', 'spline' or 'central'")),
    'cutoff_hz': (0.0, float_desc('position band limit for the derivatives, Hz; 0 = from the spectrum (periodic) '
                                  'or 10 Hz', 0.0, 1000.0)),
    'sidecar_window': (False, desc("fit only inside the sidecars' excitation periods")),
    'min_velocity_rad_s': (0.0, float_desc("leave a joint's samples out of the trajectory fit where its |velocity| is "
                                           'below this, rad/s (stick-slip regime); 0 = keep all', 0.0, 10.0)),
}
RENAMED = {'urdf': 'urdf_path', 'joints': 'joint_names', 'drive_gains': 'drive_gains_nm_per_a'}

KIND_OF = {'trajectory': 'data_bags', 'static': 'static_bags', 'friction_sweep': 'sweep_bags'}


def latest_recordings(folder):
    """{'data_bags' | 'static_bags' | 'sweep_bags': [path]} of the newest bag of each kind in ``folder``."""
    best = {}
    for sc in Path(folder).glob('*.segments.yaml'):
        try:
            kind = read_sidecar(sc).get('kind')
        except SidecarError:
            continue
        key = KIND_OF.get(kind)
        if key is None:
            continue
        stem = sc.name[:-len('.segments.yaml')]
        for cand in (sc.parent / stem, sc.parent / (stem + '.mcap'), sc.parent / (stem + '.db3')):
            if cand.exists():
                t = sc.stat().st_mtime
                if key not in best or t > best[key][0]:
                    best[key] = (t, str(cand))
                break
    return {k: [v[1]] for k, v in best.items()}


class IdentificationNode(Node):
    def __init__(self, **kwargs):
        super().__init__('identification', **kwargs)
        refuse_renamed(self, RENAMED)
        for name, (default, descriptor) in PARAMETERS.items():
            self.declare_parameter(name, default, descriptor)
        self._busy = threading.Lock()
        self._group = MutuallyExclusiveCallbackGroup()
        self.create_service(Trigger, '~/identify', self._on_identify, callback_group=self._group)
        self.get_logger().info('ready: call ~/identify (std_srvs/srv/Trigger) to identify')

    def p(self, name):
        return self.get_parameter(name).value

    def _robot(self):
        urdf = self.p('urdf_path')
        joints = string_list(self.p('joint_names')) or None
        tool = self.p('tool_frame') or None
        if not urdf:
            return RobotModel(default_urdf_path(), joints or YOUBOT_JOINTS, tool or YOUBOT_TOOL_FRAME)
        return RobotModel(urdf, joints, tool)

    def run_identification(self):
        """Returns (success, message)."""
        robot = self._robot()
        bags = {k: string_list(self.p(k)) for k in ('data_bags', 'static_bags', 'sweep_bags')}
        if not any(bags.values()) and self.p('recordings_dir'):
            bags.update(latest_recordings(self.p('recordings_dir')))
        if not bags['data_bags'] and not bags['static_bags']:
            return False, 'no bags: set data_bags and/or static_bags, or recordings_dir holding recordings'
        gains = [float(x) for x in self.p('drive_gains_nm_per_a')]
        gains = gains if any(gains) else None
        opts = IdentificationOptions(weighting=self.p('weighting'), effort_unit=self.p('effort_unit'),
                                     drive_gains_nm_per_a=gains, physical_consistency=self.p('physical_consistency'),
                                     prior_weight=float(self.p('prior_weight')), rotor_inertia=self.p('rotor_inertia'),
                                     coulomb_asymmetric=self.p('coulomb_asymmetric'), offset=self.p('offset'),
                                     stribeck_column=self.p('stribeck_column'),
                                     derivative_method=self.p('derivative_method'),
                                     cutoff_hz=float(self.p('cutoff_hz')) or None,
                                     sidecar_window=self.p('sidecar_window'),
                                     min_velocity_rad_s=float(self.p('min_velocity_rad_s')))

        def load(paths):
            return [(read_joint_states(b, robot.joint_names, self.p('topic')), find_sidecar(b)) for b in paths]

        res = identify(robot, load(bags['data_bags']), load(bags['static_bags']), load(bags['sweep_bags']),
                       options=opts)
        out = Path(self.p('output_model'))
        res.model.save(out)
        if self.p('report_dir'):
            from robot_id_ros.identify.report import write_report
            write_report(res, self.p('report_dir'))
        return True, f'model written to {out}\n' + res.summary()

    def _on_identify(self, request, response):
        if not self._busy.acquire(blocking=False):
            response.success, response.message = False, 'an identification is already running'
            return response
        try:
            self.get_logger().info('identification started')
            ok, msg = self.run_identification()
        except (ValueError, OSError) as exc:
            ok, msg = False, f'identification failed: {exc}'
        except Exception as exc:  # noqa: BLE001 - report, keep the node alive
            ok, msg = False, f'identification failed unexpectedly: {type(exc).__name__}: {exc}'
            self.get_logger().error(traceback.format_exc())
        finally:
            self._busy.release()
        if ok:  # separate call sites: rclpy refuses one call site logging at two severities
            self.get_logger().info(msg)
        else:
            self.get_logger().error(msg)
        response.success, response.message = ok, msg
        return response


def main(args=None):
    rclpy.init(args=args)
    try:
        node = IdentificationNode()
    except (ValueError, ParameterException) as exc:
        print(f'identification: cannot start: {" ".join(str(exc).split())}', file=sys.stderr, flush=True)
        rclpy.try_shutdown()
        sys.exit(2)
    executor = MultiThreadedExecutor(num_threads=2)
    executor.add_node(node)
    try:
        executor.spin()
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        executor.shutdown()
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()


if __name__ == '__main__':
    main()
