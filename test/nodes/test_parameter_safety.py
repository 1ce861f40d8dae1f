# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Nothing a peer can break over DDS (issue 14 item 1): a parameter naming a file or folder is
read-only on every node, every run-time parameter is range-checked or validated, services take
no path, and a service writes only into the output folder fixed at start.

The integration test starts each node once in one rclpy context and sets parameters from a
second context on the same (unique) ROS domain: a separate DDS participant, as another process
would be.
"""
import os

import pytest

rclpy = pytest.importorskip('rclpy')

from robot_id_ros.errors import InputError  # noqa: E402
from robot_id_ros.ros.node_parameters import OutputGuard, is_path_like  # noqa: E402
from ros_helpers import RosHarness  # noqa: E402

# writable parameters with no range whose values the node checks in its set-parameters callback,
# each with a value it must refuse
VALIDATED = {
    'identification': {'joint_names': ['arm joint 1'], 'tool_frame': 'tool;rm -rf',
                       'topic': 'not a topic!', 'effort_unit': 'furlongs',
                       'drive_gains_nm_per_a': [float('nan')], 'weighting': 'magic',
                       'derivative_method': 'guess', 'velocity_source': 'sideways'},
    'youbot_sim': {'effort_unit': 'furlongs'},
    'wrench_estimator': {'payload_com_m': [5.0, 0.0, 0.0]},
    'force_controller': {'mode': 'dance', 'guide_axes': [2.0, 1.0, 1.0],
                         'force_axis': [0.0, 0.0, 0.0], 'dither_amplitude_rad': [float('nan')],
                         'dither_null_rad': [float('nan')]},
}
# service types whose requests carry no string (no path can be passed)
PATHLESS_SERVICES = {'std_srvs/srv/Trigger', 'std_srvs/srv/SetBool', 'std_srvs/srv/Empty'}


def test_path_like_parameters_are_read_only(node_infos):
    seen = set()
    for doc in node_infos:
        for p in doc.parameters:
            if is_path_like(p.name, p):
                seen.add(p.name)
                assert p.read_only, f'{doc.executable}: {p.name} names a path but is writable'
    # the scan finds the known ones (the rule is not vacuous)
    assert {'output_model', 'report_dir', 'data_bags', 'urdf_path', 'true_parameters_file',
            'output_path', 'trajectory_file', 'poses_file', 'model_file',
            'recordings_dir'} <= seen


def test_writable_parameters_have_a_range_or_a_check(node_infos):
    for doc in node_infos:
        for p in doc.parameters:
            if p.read_only or p.type == 'bool' or p.name == 'use_sim_time':
                continue
            assert p.constraints or p.name in VALIDATED.get(doc.executable, {}), (
                f'{doc.executable}: run-time parameter {p.name} has no range and no check')


def test_services_take_no_path(node_infos):
    for doc in node_infos:
        for e in doc.endpoints:
            if e.kind == 'service':
                assert e.type in PATHLESS_SERVICES, (
                    f'{doc.executable}: service {e.name} is {e.type}')


def test_output_guard_refuses_symbolic_links_out_of_the_folder(tmp_path):
    out, outside = tmp_path / 'out', tmp_path / 'outside'
    out.mkdir()
    outside.mkdir()
    secret = outside / 'secret.txt'
    secret.write_text('keep')
    guard = OutputGuard(str(out / 'model.yaml'), 'output_model')
    assert guard.target() == out.resolve() / 'model.yaml'
    for name in ('model.yaml', 'model.yaml.tmp'):
        (out / name).symlink_to(secret)
        with pytest.raises(InputError, match='outside') as exc:
            guard.target()
        assert exc.value.kind == 'outside_output'
        (out / name).unlink()
    (out / 'model.yaml').symlink_to(out / 'other.yaml')        # a link inside is fine
    assert guard.target() == out.resolve() / 'model.yaml'
    report = OutputGuard(str(tmp_path / 'report'), 'report_dir', is_folder=True)
    (tmp_path / 'report').symlink_to(outside)                   # the folder swapped for a link
    with pytest.raises(InputError, match='no longer resolves'):
        report.target()
    assert OutputGuard('', 'report_dir', is_folder=True).target() is None


class Nodes(RosHarness):
    """Every node in one context; a probe in a second context calls their parameter services."""

    def __init__(self, ctx, domain, tmp_path):
        super().__init__(step_s=0.005)
        from rclpy.parameter import Parameter

        from robot_id_ros.ros import docs
        from robot_id_ros.ros.nodes import (force_controller, friction_sweep_recorder,
                                            identification, static_pose_recorder,
                                            trajectory_recorder, wrench_estimator, youbot_sim)
        self.truth = tmp_path / 'truth' / 'truth.yaml'
        given = {
            'youbot_sim': {'true_parameters_file': str(self.truth), 'real_time_factor': 1.0},
            'identification': {'output_model': str(tmp_path / 'id' / 'model.yaml'),
                               'report_dir': str(tmp_path / 'id' / 'report')},
            'wrench_estimator': {'model_file': str(docs.nominal_model_file(tmp_path))},
            'force_controller': {'model_file': str(docs.nominal_model_file(tmp_path))},
            'trajectory_recorder': {'trajectory_file': str(docs.example_trajectory_file(tmp_path)),
                                    'output_path': str(tmp_path / 'rec' / 'traj')},
            'static_pose_recorder': {'output_path': str(tmp_path / 'rec' / 'static')},
            'friction_sweep_recorder': {'output_path': str(tmp_path / 'rec' / 'sweep')},
        }
        modules = {'youbot_sim': youbot_sim, 'identification': identification,
                   'wrench_estimator': wrench_estimator, 'force_controller': force_controller,
                   'trajectory_recorder': trajectory_recorder,
                   'static_pose_recorder': static_pose_recorder,
                   'friction_sweep_recorder': friction_sweep_recorder}
        self.nodes_by_exe = {}
        for exe, values in given.items():
            cls = docs.node_class(modules[exe])
            overrides = [Parameter(k, value=v) for k, v in values.items()]
            self.nodes_by_exe[exe] = self.add(cls(context=ctx, parameter_overrides=overrides))
        self.probe = self.add(rclpy.create_node('peer', context=self.private_context(domain)))
        # one client per service, made before the first call: a client made just before its call
        # can send its request before the server has discovered its reply reader, and the
        # server then drops the reply ('failed to send response (timeout)')
        from rcl_interfaces.srv import SetParameters
        from std_srvs.srv import Trigger
        self.clients = {exe: self.probe.create_client(SetParameters,
                                                      f'/{node.get_name()}/set_parameters')
                        for exe, node in self.nodes_by_exe.items()}
        self.clients['write_truth'] = self.probe.create_client(Trigger,
                                                               '/sim/write_true_parameters')
        for client in self.clients.values():
            assert client.wait_for_service(timeout_sec=20.0), f'no service {client.srv_name}'
        self.spin(1.0)      # the replies' readers discovered too

    def set_remote(self, exe, name, value):
        """SetParameters from the peer; returns the result (successful, reason)."""
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter

        req = SetParameters.Request(parameters=[Parameter(name, value=value).to_parameter_msg()])
        return self.call(self.clients[exe], req, timeout=20.0).results[0]


def bad_value(value, target):
    """A value of the parameter's type that names another path (``target``)."""
    if isinstance(value, list):
        return [str(target)]
    return str(target)


@pytest.mark.integration
def test_a_peer_cannot_change_paths_or_set_implausible_values(rclpy_context, ros_domain_id,
                                                              tmp_path):
    nodes = Nodes(rclpy_context, ros_domain_id, tmp_path)
    target = tmp_path / 'elsewhere' / 'peer_was_here'     # outside every node's folder
    try:
        assert nodes.truth.is_file()          # written at start, the configured file
        for exe, node in nodes.nodes_by_exe.items():
            names = [n for n in node._parameters if n != 'use_sim_time']
            for name, desc in zip(names, node.describe_parameters(names)):
                if not is_path_like(name, desc):
                    continue
                before = node.get_parameter(name).value
                res = nodes.set_remote(exe, name, bad_value(before, target))
                assert not res.successful, f'{exe}: {name} was changed by a peer'
                assert node.get_parameter(name).value == before
            for name, value in VALIDATED.get(exe, {}).items():
                res = nodes.set_remote(exe, name, value)
                assert not res.successful and res.reason, f'{exe}: {name} = {value!r} accepted'
        est = nodes.nodes_by_exe['wrench_estimator']
        res = nodes.set_remote('wrench_estimator', 'payload_mass_kg', 100.0)
        assert not res.successful and 'payload_mass_kg' in res.reason
        assert est.model.payload is None
        assert nodes.set_remote('wrench_estimator', 'payload_mass_kg', 0.3).successful
        assert est.model.payload.mass_kg == 0.3
        res = nodes.set_remote('identification', 'weighting', 'ols')     # fixed by default
        assert not res.successful and 'read-only' in res.reason
        # the truth file's folder now holds a link to a file outside: the service refuses
        secret = tmp_path / 'secret.txt'
        secret.write_text('keep')
        nodes.truth.unlink()
        nodes.truth.symlink_to(secret)
        cli = nodes.clients['write_truth']
        res = nodes.call(cli, timeout=20.0)
        assert not res.success and 'outside' in res.message
        assert secret.read_text() == 'keep'
        nodes.truth.unlink()
        assert nodes.call(cli, timeout=20.0).success and nodes.truth.is_file()
        assert not nodes.truth.is_symlink() and os.stat(nodes.truth).st_size > 0
    finally:
        nodes.close()
    assert not target.exists() and not target.parent.exists()


# run in another process: set each path-like parameter of the nodes named on stdin (node name,
# parameter, bad value as JSON lines) through /<node>/set_parameters; print one JSON line each
PEER_PROCESS = r'''
import json, sys
import rclpy
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
rclpy.init()
node = rclpy.create_node('peer_process')
for line in sys.stdin:
    name, param, value = json.loads(line)
    cli = node.create_client(SetParameters, f'/{name}/set_parameters')
    ok = cli.wait_for_service(timeout_sec=60.0)
    res = None
    if ok:
        fut = cli.call_async(SetParameters.Request(
            parameters=[Parameter(param, value=value).to_parameter_msg()]))
        rclpy.spin_until_future_complete(node, fut, timeout_sec=60.0)
        res = fut.result().results[0] if fut.done() else None
    print(json.dumps([name, param, None if res is None else bool(res.successful),
                      '' if res is None else res.reason]), flush=True)
    node.destroy_client(cli)
node.destroy_node()
rclpy.shutdown()
'''


@pytest.mark.integration
def test_a_separate_process_cannot_change_a_path(rclpy_context, ros_domain_id, tmp_path):
    """Issue 14's acceptance: from a separate process, set_parameters on every path-like
    parameter of every node is refused and the value stays."""
    import json
    import subprocess
    import sys

    from ros_helpers import isolated_env

    nodes = Nodes(rclpy_context, ros_domain_id, tmp_path)
    target = tmp_path / 'elsewhere' / 'peer_was_here'
    asks, before = [], {}
    for exe, node in nodes.nodes_by_exe.items():
        names = [n for n in node._parameters if n != 'use_sim_time']
        for name, desc in zip(names, node.describe_parameters(names)):
            if is_path_like(name, desc):
                value = node.get_parameter(name).value
                before[exe, name] = value
                asks.append((exe, node.get_name(), name, bad_value(value, target)))
    assert len(asks) >= 8, asks
    proc = subprocess.Popen([sys.executable, '-c', PEER_PROCESS], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=isolated_env(ros_domain_id))
    try:
        proc.stdin.write(''.join(json.dumps([n, p, v]) + '\n' for _, n, p, v in asks))
        proc.stdin.close()
        assert nodes.spin(until=lambda: proc.poll() is not None, timeout=600.0), 'peer hung'
        out = [json.loads(x) for x in proc.stdout.read().splitlines() if x.startswith('[')]
        assert len(out) == len(asks), out
        for (exe, _, param, _), (_, _, successful, reason) in zip(asks, out):
            assert successful is False, f'{exe}: {param} changed from another process ({reason})'
            assert nodes.nodes_by_exe[exe].get_parameter(param).value == before[exe, param]
    finally:
        if proc.poll() is None:
            proc.kill()
        nodes.close()
    assert not target.exists() and not target.parent.exists()
