# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The runs of tools/run_launch_files.py: each launch file with its documented arguments.

Every run names what it checks: ``serves`` (runs until Ctrl-C; its topics publish, a documented
push reads on its axis), ``done`` (ends by itself with status 0) or ``fails`` (ends non-zero with
its reason). ``{work}`` in an argument is the work folder that ``prepare_workdir`` fills.
"""
from __future__ import annotations

import importlib
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MODEL = '{work}/nominal_youbot_model.yaml'
# the README's push example, and the one it replaced (a push the start pose cannot feel)
PUSH_X = ('ros2 topic pub --once /sim/wrench geometry_msgs/msg/WrenchStamped '
          '"{wrench: {force: {x: 5.0}}}"')
PUSH_Z = ('ros2 topic pub --once /sim/wrench geometry_msgs/msg/WrenchStamped '
          '"{wrench: {force: {z: -5.0}}}"')
# docs/youbot.md and identification_session.launch.py: the excitation the recorder accepts
DESIGN_EXCITATION = ('robot-id design-excitation --out excitation.yaml '
                     '--velocity-limits 0.5,0.5,0.5,0.5,0.5 --acceleration-limits 1,1,1,1,1 '
                     '--velocity-fraction 0.95 --acceleration-fraction 0.95')
# the design identification_session.launch.py showed before (the URDF's limits): refused
FAST_DESIGN_EXCITATION = 'robot-id design-excitation --out fast_excitation.yaml'
# short recording stages (each section applies to its node in any namespace)
QUICK_STAGES = {
    '/**/static_pose_recorder': {'ros__parameters': {'pose_count': 2}},
    '/**/friction_sweep_recorder': {'ros__parameters': {'sweep_joints': ['arm_joint_3'],
                                                        'speeds_rad_s': [0.2]}},
    '/**/trajectory_recorder': {'ros__parameters': {'periods': 1}},
}
JOINT_STATES = ('/joint_states', 'sensor_msgs/msg/JointState')
FAILED_LAUNCH = 'Caught exception in launch'       # how launch reports a raising handler
PUSH_SETTLE_S = 3.0         # simulation seconds the estimate settles before and after the push
PUSH_AVERAGE_S = 2.0
# the push reads on its axis: between half and 1.5 times its size with the URDF-parameter model
# (not identified: its friction is not the simulated arm's); a push it cannot feel under 20 %
PUSH_READS = (0.5, 1.5)
PUSH_UNFELT = 0.2


@dataclass(frozen=True)
class Run:
    """One launch with its arguments and what it must do."""

    name: str
    file: str
    args: tuple
    expect: str                     # 'serves', 'done' or 'fails'
    reasons: tuple = ()             # a line with one of these in the output is the reason
    wait_for: tuple = ()            # (topic, type) that must publish while it serves
    push: str = ''                  # a documented `ros2 topic pub` push to check
    push_reads: bool = True         # the push must read on its axis (False: must read ~0)
    estimator: str = '/wrench_estimator/wrench'
    timeout_s: float = 900.0

    def arguments(self, workdir):
        """Return the launch arguments with ``{work}`` filled in."""
        return [a.format(work=workdir) for a in self.args]

    def reason_in(self, text):
        """Return the last output line naming one of ``reasons`` ('' if none)."""
        marks = self.reasons + (FAILED_LAUNCH,)
        lines = [ln.strip() for ln in text.splitlines() if any(r in ln for r in marks)]
        return lines[-1][-300:] if lines else ''


def _wrench(topic):
    return (topic, 'geometry_msgs/msg/WrenchStamped')


ESTIMATOR_UP = (JOINT_STATES, _wrench('/wrench_estimator/wrench'))
NS_ESTIMATOR_UP = (JOINT_STATES, _wrench('/ns1/wrench_estimator/wrench'))
DONE = ('done',)
SESSION = 'identification_session.launch.py'
BRINGUP = 'youbot_bringup.launch.py'
RUNS = (
    # youbot_sim.launch.py: the README's example and its push; the simulator alone; a namespace
    Run('sim_push', 'youbot_sim.launch.py', (f'model:={MODEL}',), 'serves',
        wait_for=ESTIMATOR_UP, push=PUSH_X),
    Run('sim_old_push_reads_nothing', 'youbot_sim.launch.py', (f'model:={MODEL}',), 'serves',
        wait_for=ESTIMATOR_UP, push=PUSH_Z, push_reads=False),
    Run('sim_alone', 'youbot_sim.launch.py', (), 'serves', wait_for=(JOINT_STATES,)),
    Run('sim_ns1', 'youbot_sim.launch.py', (f'model:={MODEL}', 'namespace:=ns1'), 'serves',
        wait_for=NS_ESTIMATOR_UP),
    # wrench_estimator.launch.py next to the simulator of another launch is youbot_sim's; alone
    # it must fail with its reason when the model is missing
    Run('estimator_no_model', 'wrench_estimator.launch.py', (), 'fails',
        reasons=('wrench_estimator failed',)),
    Run('estimator_missing_model', 'wrench_estimator.launch.py',
        ('model:=/nonexistent/youbot_model.yaml', 'namespace:=ns1'), 'fails',
        reasons=('wrench_estimator failed',)),
    Run('estimator_replay', 'wrench_estimator.launch.py', (f'model:={MODEL}',
                                                           'use_sim_time:=true'), 'serves',
        wait_for=(('/diagnostics', 'diagnostic_msgs/msg/DiagnosticArray'),)),
    # youbot_bringup.launch.py with the simulated twin (the real driver is not on this machine)
    Run('bringup_sim', BRINGUP, ('robot:=sim', f'model:={MODEL}'), 'serves',
        wait_for=ESTIMATOR_UP),
    Run('bringup_sim_ns1', BRINGUP, ('robot:=sim', f'model:={MODEL}', 'namespace:=ns1'),
        'serves', wait_for=NS_ESTIMATOR_UP),
    Run('bringup_sim_record_static', BRINGUP, ('robot:=sim', 'record:=static',
                                               'output_path:=bringup_static_bag'), 'done',
        reasons=DONE),
    Run('bringup_sim_record_trajectory_ns1', BRINGUP,
        ('robot:=sim', 'record:=static', 'command_interface:=trajectory', 'namespace:=ns1',
         'output_path:=bringup_static_ns1_bag'), 'done', reasons=DONE),
    Run('bringup_real_without_driver', BRINGUP, ('robot:=real', f'model:={MODEL}'), 'fails',
        reasons=('youbot_driver',)),
    # identification_session.launch.py: the documented stages on the simulator, then the fit
    Run('session_static', SESSION, ('stage:=static', 'sim:=true',
                                    'params_file:={work}/quick_stages.yaml'), 'done',
        reasons=DONE),
    Run('session_sweeps', SESSION, ('stage:=sweeps', 'sim:=true',
                                    'params_file:={work}/quick_stages.yaml'), 'done',
        reasons=DONE),
    Run('session_excitation', SESSION, ('stage:=excitation', 'trajectory:=excitation.yaml',
                                        'sim:=true', 'params_file:={work}/quick_stages.yaml'),
        'done', reasons=DONE),
    Run('session_identification', SESSION, ('stage:=identification',
                                            'model:=youbot_model.yaml'), 'done',
        reasons=DONE + ('failed',)),
    Run('session_static_ns1', SESSION, ('stage:=static', 'sim:=true', 'namespace:=ns1',
                                        'output_path:=static_ns1_bag',
                                        'params_file:={work}/quick_stages.yaml'), 'done',
        reasons=DONE),
    Run('session_excitation_old_design', SESSION,
        ('stage:=excitation', 'trajectory:=fast_excitation.yaml', 'sim:=true'),
        'fails', reasons=('(trajectory_recorder) failed',)),
    Run('session_identification_no_bags', SESSION, ('stage:=identification',
                                                    'recordings_dir:=/nonexistent'), 'fails',
        reasons=('failed',)),
)


def prepare_workdir(workdir, runs=RUNS):
    """Write the model, the short-stage params file and the excitations ``runs`` use."""
    from robot_id_ros.ros.docs import nominal_model_file

    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    nominal_model_file(workdir)
    (workdir / 'quick_stages.yaml').write_text(yaml.safe_dump(QUICK_STAGES))
    for command in (DESIGN_EXCITATION, FAST_DESIGN_EXCITATION):
        words = shlex.split(command)
        out = _flag(words, '--out')
        if any(f'trajectory:={out}' in r.args for r in runs) and not (workdir / out).exists():
            with open(workdir / f'{out}.log', 'w') as log:
                subprocess.run([sys.executable, '-m', 'robot_id_ros.cli', *words[1:]],
                               cwd=workdir, check=True, stdout=log, stderr=subprocess.STDOUT)


def _flag(words, name):
    return words[words.index(name) + 1]


def _message_type(name):
    package, kind, cls = name.split('/')
    return getattr(importlib.import_module(f'{package}.{kind}'), cls)


@dataclass
class Checked:
    """The outcome of a probe."""

    ok: bool
    text: str


class _Probe:
    """An rclpy node on the run's domain that watches topics and pushes the simulated tool."""

    def __init__(self, domain_id):
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        self.rclpy = rclpy
        self.context = Context()
        rclpy.init(context=self.context, domain_id=domain_id, args=[])
        self.node = rclpy.create_node('launch_run_probe', context=self.context)
        self.seen = {}
        self.forces = []        # (sim stamp s, fx, fy, fz) of the estimator
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def watch(self, topic, type_name, record_force=False):
        def on_message(msg):
            self.seen[topic] = self.seen.get(topic, 0) + 1
            if record_force:
                f, st = msg.wrench.force, msg.header.stamp
                self.forces.append((st.sec + 1e-9 * st.nanosec, f.x, f.y, f.z))
        self.node.create_subscription(_message_type(type_name), topic, on_message, 50)

    def close(self):
        self.executor.shutdown()
        self.rclpy.shutdown(context=self.context)


def _wait(condition, timeout_s, proc):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end and proc.poll() is None:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def _mean_force(probe, after_s, duration_s, proc, timeout_s):
    """Mean estimator force over [after_s, after_s + duration_s] of simulation time."""
    import numpy as np

    start = probe.forces[-1][0] + after_s
    if not _wait(lambda: probe.forces[-1][0] >= start + duration_s, timeout_s, proc):
        return None
    window = [f[1:] for f in list(probe.forces) if start <= f[0] <= start + duration_s]
    return np.mean(window, axis=0)


def _check_push(run, probe, proc):
    """Push as documented; the change of the estimate must read the push (or ~0)."""
    import numpy as np
    from geometry_msgs.msg import WrenchStamped

    words = shlex.split(run.push)
    topic, body = words[4], yaml.safe_load(words[6])
    force = np.array([float(body['wrench']['force'].get(k, 0.0)) for k in 'xyz'])
    before = _mean_force(probe, PUSH_SETTLE_S, PUSH_AVERAGE_S, proc, 120)
    pub = probe.node.create_publisher(WrenchStamped, topic, 10)
    _wait(lambda: pub.get_subscription_count() > 0, 30, proc)
    msg = WrenchStamped()
    msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = force
    pub.publish(msg)
    after = _mean_force(probe, PUSH_SETTLE_S, PUSH_AVERAGE_S, proc, 120)
    if before is None or after is None:
        return Checked(False, 'the estimate stopped before the push was measured')
    delta = after - before
    along = float(delta @ force / np.linalg.norm(force))
    size = float(np.linalg.norm(force))
    text = (f'push ({force[0]:g}, {force[1]:g}, {force[2]:g}) N reads a change of '
            f'({delta[0]:.2f}, {delta[1]:.2f}, {delta[2]:.2f}) N, {along:.2f} N on its axis')
    if run.push_reads:
        return Checked(PUSH_READS[0] * size <= along <= PUSH_READS[1] * size, text)
    return Checked(abs(along) <= PUSH_UNFELT * size, text + ' (reads nothing)')


def probe_serving(run, workdir, domain_id, proc):
    """Wait until every ``wait_for`` topic publishes, check the push; the launch keeps running."""
    probe = _Probe(domain_id)
    try:
        for topic, type_name in run.wait_for:
            probe.watch(topic, type_name, record_force=topic == run.estimator)
        up = _wait(lambda: all(probe.seen.get(t) for t, _ in run.wait_for), 300, proc)
        if not up:
            missing = [t for t, _ in run.wait_for if not probe.seen.get(t)]
            state = 'running' if proc.poll() is None else f'ended with {proc.returncode}'
            return Checked(False, f'no message on {missing} (launch {state})')
        text = 'publishes ' + ', '.join(t for t, _ in run.wait_for)
        if not run.push:
            return Checked(proc.poll() is None, text)
        pushed = _check_push(run, probe, proc)
        return Checked(pushed.ok and proc.poll() is None, f'{text}; {pushed.text}')
    finally:
        probe.close()


__all__ = ['DESIGN_EXCITATION', 'FAST_DESIGN_EXCITATION', 'PUSH_X', 'PUSH_Z', 'RUNS', 'Run',
           'prepare_workdir', 'probe_serving']
