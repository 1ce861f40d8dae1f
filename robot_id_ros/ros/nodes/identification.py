# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""identification node: runs the identification on recorded bags and writes the model file.

It runs when its ``~/identify`` service (std_srvs/srv/Trigger) is called, and writes the model
file (and a report).

The fit runs in its own mutually exclusive callback group on a multi-threaded executor, so the
node keeps answering (parameters, other services) while it works. Parameters (see
config/identification.yaml): bag lists, or ``recordings_dir`` to take the recorders' latest
bags of each kind; the robot; the output paths; fit options. Every parameter is read at each
call, and every one is read-only by default: fixed at start, so a peer can neither make the node
read another path, nor write elsewhere, nor change the model it writes. The outputs are written
only into the folders resolved at start (``OutputGuard``). Started with
``allow_run_time_changes``, the fit options, ``joint_names``, ``tool_frame`` and ``topic`` can be
changed between calls (a value outside its range or choices is refused with the reason); the
paths stay fixed. An existing model file is never lost: before it is replaced, its previous
version is kept beside it (``robot_id_ros.io.backups``) and the answer names the copy.
"""
from __future__ import annotations

import threading
import traceback
from pathlib import Path

from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from std_srvs.srv import Trigger

from robot_id_ros.errors import RobotIdError
from robot_id_ros.identify import IdentificationOptions, identify
from robot_id_ros.io.backups import replace_keeping_previous
from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.io.sidecar import SidecarError, find_sidecar, read_sidecar
from robot_id_ros.model.robot import (YOUBOT_JOINTS, YOUBOT_TOOL_FRAME, RobotModel,
                                      default_urdf_path)
from robot_id_ros.ros import parameter_tables as tables
from robot_id_ros.ros.main import run_node
from robot_id_ros.ros.msg_helpers import trigger_handler
from robot_id_ros.ros.node_parameters import (OutputGuard, declare_table, read_table,
                                              refuse_renamed, run_time_problem,
                                              settings_from_params, string_list)

KIND_OF = {'trajectory': 'data_bags', 'static': 'static_bags', 'friction_sweep': 'sweep_bags'}
BAG_LISTS = ('data_bags', 'static_bags', 'sweep_bags')


def latest_recordings(folder):
    """Return the newest bag of each kind in ``folder``, found by its sidecar.

    ``{'data_bags' | 'static_bags' | 'sweep_bags': [path]}``.
    """
    best = {}
    for sc in Path(folder).glob('*.segments.yaml'):
        try:
            key = KIND_OF.get(read_sidecar(sc).get('kind'))
        except SidecarError:
            continue
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
    """Identification on request: ``~/identify`` fits the bags and writes the model file."""

    def __init__(self, **kwargs):
        super().__init__('identification', **kwargs)
        refuse_renamed(self, tables.IDENTIFICATION_FORMER_NAMES)
        p = declare_table(self, self._parameter_table())
        self._model_out = OutputGuard(p['output_model'], 'output_model')
        self._report_out = OutputGuard(p['report_dir'], 'report_dir', is_folder=True)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._busy = threading.Lock()
        self._group = MutuallyExclusiveCallbackGroup()
        self.create_service(Trigger, '~/identify', trigger_handler(self._identify),
                            callback_group=self._group)
        self.get_logger().info('ready: call ~/identify (std_srvs/srv/Trigger) to identify')

    def _parameter_table(self):
        """Return the table to declare: read-only throughout unless the operator allows changes.

        The switch is declared first (read-only itself): the others' descriptors depend on it.
        """
        default, descriptor = tables.IDENTIFICATION_PARAMETERS[tables.RUN_TIME_SWITCH]
        allow = self.declare_parameter(tables.RUN_TIME_SWITCH, default, descriptor).value
        table = tables.identification_parameters(run_time_changes=bool(allow))
        return {k: v for k, v in table.items() if k != tables.RUN_TIME_SWITCH}

    def run_identification(self):
        """Identify with the current parameters.

        Returns:
            ``(success, message)``: the model path and the fit summary, or why nothing was done.
        """
        p = read_table(self, tables.IDENTIFICATION_PARAMETERS)
        bundled = not p['urdf_path']          # the youBot arm: its joints and tool by default
        robot = RobotModel(p['urdf_path'] or default_urdf_path(),
                           string_list(p['joint_names']) or (YOUBOT_JOINTS if bundled else None),
                           p['tool_frame'] or (YOUBOT_TOOL_FRAME if bundled else None))
        bags = {k: string_list(p[k]) for k in BAG_LISTS}
        if not any(bags.values()) and p['recordings_dir']:
            bags.update(latest_recordings(p['recordings_dir']))
        if not bags['data_bags'] and not bags['static_bags']:
            return False, ('no bags: set data_bags and/or static_bags, or recordings_dir holding '
                           'recordings')
        gains = [float(x) for x in p['drive_gains_nm_per_a']]
        opts = settings_from_params(IdentificationOptions, {    # all-zero gains: none given
            **p, 'drive_gains_nm_per_a': gains if any(gains) else [0.0]})
        data = [[(read_joint_states(b, robot.joint_names, p['topic']), find_sidecar(b))
                 for b in bags[k]] for k in BAG_LISTS]
        res = identify(robot, *data, options=opts)
        out, report = self._model_out.target(), self._report_out.target()
        kept = replace_keeping_previous(out, res.model.save)
        if report is not None:
            from robot_id_ros.identify.report import write_report
            write_report(res, report)
        previous = f' (the previous one kept as {kept})' if kept is not None else ''
        return True, f'model written to {out}{previous}\n' + res.summary()

    def _on_set_parameters(self, params):
        reason = run_time_problem(
            {prm.name: prm.value for prm in params}, choices=tables.IDENTIFICATION_CHOICES,
            names=('joint_names', 'tool_frame'), topics=('topic',),
            numbers={'drive_gains_nm_per_a': (0.0, 1.0e4)})
        return SetParametersResult(successful=reason is None, reason=reason or '')

    def _identify(self):
        if not self._busy.acquire(blocking=False):
            return False, 'an identification is already running'
        try:
            self.get_logger().info('identification started')
            ok, msg = self.run_identification()
        except (RobotIdError, OSError) as exc:
            ok, msg = False, f'identification failed: {exc}'
        except Exception as exc:  # noqa: BLE001 - a bug: report it, keep the node alive
            ok, msg = False, f'identification failed unexpectedly: {type(exc).__name__}: {exc}'
            self.get_logger().error(traceback.format_exc())
        finally:
            self._busy.release()
        if ok:  # separate call sites: rclpy refuses one call site logging at two severities
            self.get_logger().info(msg)
        else:
            self.get_logger().error(msg)
        return ok, msg


def main(args=None):
    return run_node(IdentificationNode, 'identification', args,
                    executor_factory=lambda: MultiThreadedExecutor(num_threads=2))


if __name__ == '__main__':
    raise SystemExit(main())
