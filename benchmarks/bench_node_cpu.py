# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""CPU time of the wrench_estimator node per joint-state sample, and the samples it loses.

The node runs in a subprocess (youBot model, config/wrench_estimator.yaml, the shipped QoS;
with --arm ur5 or panda that arm's URDF model and the core defaults);
this process publishes JointState (like the youBot driver: 5 arm joints moving on
0.05 rad sinusoids, efforts from the inverse dynamics, 2 fingers; another arm: its joints) at
each --rates Hz for --seconds, paced by sleep, and subscribes to ~/wrench (reliable, deep queue)
and /diagnostics
(--all-outputs: ~/wrench_std and ~/external_joint_torques too; the node fills a topic only for
subscribers). The node's CPU is the run time of its threads (/proc/<pid>/task/*/schedstat,
exact: executor, DDS, Python) over the feed, divided by the samples sent; the tick counts of
/proc/<pid>/stat (user, system) and the share of each thread are printed beside it. Lost =
samples sent without a ~/wrench out; the node's own /diagnostics counters are printed too. A
node that falls behind (latency p50 of seconds: the machine gave it less CPU than it needs)
works off its backlog in batches, which costs less per sample: compare CPU figures only
between runs that kept up.

--sink EXECUTOR measures the floor instead: a process that only spins a JointState subscription
with an empty callback ('single': rclpy's SingleThreadedExecutor, 'events': the EventsExecutor
of rclpy.experimental, 'bare': SingleThreadedExecutor on a node without parameter and type
description services, 'waitset': one kept rclpy wait set and a take loop, no executor), i.e.
the executor, take and deserialisation without any of the node's work. --hog N runs N
busy-loop processes beside it for the whole run (killed after). --node-tree DIR runs the node
from another checkout (e.g. the main branch, for a before/after in the same machine state);
--profile FILE writes a cProfile of the node's main thread (its own CPU clock) per rate.
The node takes its input in a thread of its own (``input_thread.InputThread``: 'python' in the
per-thread figures, where 'main' is the executor: services, diagnostics); at 1 kHz it wakes
once per ``input_batch_period_s`` (default 4 ms; input_wakeups in the printout); ``--param
input_batch_period_s:=0.0`` measures it waking for every sample instead. Before/after on one
machine state: run twice with ``--node-tree`` (the former checkout, then this one).

Reproduce:
    .venv/bin/python benchmarks/bench_node_cpu.py [--arm youbot|ur5|panda] [--seconds 20]
        [--rates 200 1000] [--hog 2]
        [--feeder-qos reliable|best_effort] [--sink single|events|bare|waitset]
        [--param NAME:=VALUE] [--all-outputs] [--node-tree DIR] [--profile FILE]
"""
import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'benchmarks'))
sys.path.insert(0, str(ROOT / 'test'))

import rclpy  # noqa: E402
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import WrenchStamped  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from bench_estimator_latency import BENT, bench_model, start_node  # noqa: E402
from ros_helpers import isolated_env, unique_domain_id  # noqa: E402

FINGERS = ['gripper_finger_joint_l', 'gripper_finger_joint_r']
SINK = '''
import sys, rclpy
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
rclpy.init()
bare = sys.argv[1] != 'single' and sys.argv[1] != 'events'
n = Node('sink', start_parameter_services=not bare, parameter_overrides=[
    Parameter('start_type_description_service', value=not bare)])
sub = n.create_subscription(JointState, 'joint_states', lambda m: None,
                            QoSProfile(depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT))
if sys.argv[1] == 'waitset':         # one wait set, kept: the floor of any executor
    from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
    ws = _rclpy.WaitSet(1, 0, 0, 0, 0, 0, n.context.handle)
    while rclpy.ok():
        ws.clear_entities()
        ws.add_subscription(sub.handle)
        ws.wait(100_000_000)
        while sub.handle.take_message(JointState, False) is not None:
            pass
    sys.exit(0)
if sys.argv[1] == 'events':
    from rclpy.experimental import EventsExecutor
    ex = EventsExecutor()
else:
    from rclpy.executors import SingleThreadedExecutor
    ex = SingleThreadedExecutor()
ex.add_node(n)
try:
    ex.spin()
except BaseException:
    pass
'''

# the node's main thread under cProfile, timed by that thread's own CPU clock (not wall time)
PROFILE = '''
import cProfile, runpy, sys, time
out, how, what = sys.argv[1:4]
sys.argv = [what] + sys.argv[4:]
prof = cProfile.Profile(time.thread_time)
try:
    if how == '-m':
        prof.runcall(runpy.run_module, what, run_name='__main__')
    else:
        prof.runcall(exec, what, {'__name__': '__main__'})
except SystemExit:
    pass
finally:
    prof.dump_stats(out)
'''


def tick_cpu_s(pid):
    """Return (user, system) CPU time of process ``pid`` so far, s (/proc/<pid>/stat, ticks)."""
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return np.array([int(fields[11]), int(fields[12])]) / os.sysconf('SC_CLK_TCK')


def thread_cpu_s(pid):
    """Return ``{thread name: CPU s so far}`` of process ``pid``, its main thread as 'main'.

    From each thread's /proc/<pid>/task/<tid>/schedstat (run time in ns, exact, where the tick
    counts of /proc/<pid>/stat are sampled at the timer interrupt).
    """
    out = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            with open(f'/proc/{pid}/task/{tid}/comm') as f:
                name = 'main' if tid == str(pid) else f.read().strip()
            with open(f'/proc/{pid}/task/{tid}/schedstat') as f:
                out[name] = out.get(name, 0.0) + int(f.read().split()[0]) * 1e-9
        except OSError:             # the thread ended
            pass
    return out


def cpu_s(pid):
    """Return the CPU time of process ``pid``'s live threads so far, s (``thread_cpu_s``)."""
    return sum(thread_cpu_s(pid).values())


def arm_model(arm):
    """Return (model, centre pose rad, extra joint names) of ``--arm``.

    The youBot: the benchmarks' model at a bent pose, with its two fingers in the joint states.
    Another arm (example-robot-data): its URDF's parameters, the same simple friction and
    residual std, at the middle of its joint ranges.
    """
    if arm == 'youbot':
        return bench_model(), np.asarray(BENT), FINGERS
    from robots import panda, ur5
    from robot_id_ros.io.model_file import nominal_model
    from robot_id_ros.model.friction import FrictionModel
    from robot_id_ros.model.robot import RobotModel

    robot = RobotModel(*{'ur5': ur5, 'panda': panda}[arm]())
    n = robot.n
    model = nominal_model(robot, FrictionModel(coulomb_pos_nm=[0.3] * n,
                                               coulomb_neg_nm=[0.3] * n,
                                               viscous_nm_s_rad=[0.2] * n, offset_nm=0.0))
    model.residual_std_nm = np.full(n, 0.05)
    return model, well_conditioned_pose(robot), []


def well_conditioned_pose(robot, tries=200, seed=0):
    """Return the pose (rad), of ``tries`` within the joint limits, farthest from a singularity.

    The one whose tool Jacobian's smallest singular value is largest: the estimator's usual case,
    not its damped one.
    """
    lo = np.maximum(robot.limits.lower_rad, -np.pi)
    hi = np.minimum(robot.limits.upper_rad, np.pi)
    rows = 6 if robot.n >= 6 else 3
    best, best_s = None, -1.0
    for q in np.random.default_rng(seed).uniform(lo, hi, (tries, robot.n)):
        s = np.linalg.svd(robot.tool_jacobian(q, 'base')[:rows], compute_uv=False)[-1]
        if s > best_s:
            best, best_s = q, s
    return best


def trajectory(model, centre, extra, rate_hz, period_s=2.0):
    """One period of the fed motion: (positions, velocities, efforts) lists per sample.

    The arm joints move on 0.05 rad sinusoids around ``centre`` [rad, rad/s]; the efforts are
    the model's inverse dynamics [Nm]; the ``extra`` joints (fingers) read 0.
    """
    n = int(round(period_s * rate_hz))
    out = []
    w = 2 * np.pi / period_s
    zeros = [0.0] * len(extra)
    for k in range(n):
        t = k / rate_hz
        phase = w * t + np.arange(model.n)
        q, qd = centre + 0.05 * np.sin(phase), 0.05 * w * np.cos(phase)
        tau = model.robot.inverse_dynamics(q, qd, -0.05 * w * w * np.sin(phase))
        out.append(([float(x) for x in q] + zeros, [float(x) for x in qd] + zeros,
                    [float(x) for x in tau] + zeros))
    return out


class Feeder:
    """Publishes joint states and counts the node's outputs (own context, spun in a thread)."""

    def __init__(self, domain, reliable, all_outputs=False):
        self.ctx = rclpy.Context()
        rclpy.init(context=self.ctx, domain_id=domain)
        self.node = rclpy.create_node('cpu_feeder', context=self.ctx)
        rel = ReliabilityPolicy.RELIABLE if reliable else ReliabilityPolicy.BEST_EFFORT
        self.pub = self.node.create_publisher(JointState, 'joint_states',
                                              QoSProfile(depth=100, reliability=rel))
        self.got, self.diag, self.busy_diag, self.rates_hz = set(), {}, {}, []
        self.node.create_subscription(
            WrenchStamped, 'wrench_estimator/wrench',
            lambda m: self.got.add(m.header.stamp.sec * 10 ** 9 + m.header.stamp.nanosec),
            QoSProfile(depth=10000, reliability=ReliabilityPolicy.RELIABLE))
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diag, 10)
        for topic, typ in (('wrench_std', WrenchStamped), ('external_joint_torques', JointState)):
            if all_outputs:          # the node fills and publishes a topic only for subscribers
                self.node.create_subscription(typ, f'wrench_estimator/{topic}', lambda m: None,
                                              QoSProfile(depth=1000,
                                                         reliability=ReliabilityPolicy.RELIABLE))
        self.ex = SingleThreadedExecutor(context=self.ctx)
        self.ex.add_node(self.node)
        threading.Thread(target=self.ex.spin, daemon=True).start()

    def _on_diag(self, msg):
        for st in msg.status:
            if st.name.startswith('wrench_estimator'):
                self.diag = {kv.key: kv.value for kv in st.values}
                if 'latency_ms_p99' in self.diag:
                    self.busy_diag = self.diag      # the last one with samples in its window
                    self.rates_hz.append(float(self.diag['input_rate_hz']))

    def wait_matched(self, proc, outputs=True, timeout_s=60.0):
        """Wait until the node's subscription (and its ~/wrench) matched; False on timeout."""
        t_end = time.monotonic() + timeout_s
        while self.pub.get_subscription_count() == 0 or (outputs and self.node.count_publishers(
                'wrench_estimator/wrench') == 0):
            if time.monotonic() > t_end or proc.poll() is not None:
                return False
            time.sleep(0.05)
        time.sleep(1.0)
        return True

    def feed(self, names, traj, rate_hz, seconds):
        """Publish ``seconds`` of ``traj`` at ``rate_hz``; return the stamps and the time taken.

        Stamped like a driver's clock: the start's wall time plus k periods (a late publication
        does not move its stamp, so a gap in the stamps is a lost sample).
        """
        period, total = 1.0 / rate_hz, int(seconds * rate_hz)
        sent = []
        start_ns, period_ns = time.time_ns(), int(round(1e9 / rate_hz))
        t0 = time.perf_counter()
        for k in range(total):
            wait = t0 + k * period - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            m = JointState()
            s = start_ns + k * period_ns
            m.header.stamp.sec, m.header.stamp.nanosec = s // 10 ** 9, s % 10 ** 9
            m.name = names
            m.position, m.velocity, m.effort = traj[k % len(traj)]
            self.pub.publish(m)
            sent.append(s)
        return sent, time.perf_counter() - t0

    def close(self):
        """Stop spinning and shut the context down."""
        self.ex.shutdown()
        self.node.destroy_node()
        rclpy.shutdown(context=self.ctx)


def stop(proc):
    """Terminate a subprocess (kill it after 10 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def run_rate(arm, rate_hz, a):
    """Feed one node (or sink) at ``rate_hz`` for ``a.seconds``; print and return the figures."""
    domain = unique_domain_id() + 20
    prof = ['-c', PROFILE, f'{a.profile}.{rate_hz:g}'] if a.profile else []
    if a.sink:
        proc = subprocess.Popen([sys.executable, *prof, '-c', SINK, a.sink],
                                env=isolated_env(domain),
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
    else:
        # -P: not the current directory (this checkout) first on sys.path, PYTHONPATH's tree
        safe = ['-P'] if a.node_tree else []
        # the youBot with its shipped settings, another arm with the core defaults
        proc = start_node(arm[0], domain, a.arm == 'youbot',
                          [x for p in a.param for x in ('-p', p)], safe + prof)
    feeder = Feeder(domain, a.feeder_qos == 'reliable', a.all_outputs)
    try:
        if not feeder.wait_matched(proc, outputs=not a.sink):
            print('node did not come up:', proc.stdout.read() if proc.poll() is not None else '')
            return None
        model, centre, extra = arm
        traj = trajectory(model, centre, extra, rate_hz)
        idle0 = cpu_s(proc.pid)
        time.sleep(2.0)
        idle_s = cpu_s(proc.pid) - idle0
        c0, t0, k0 = cpu_s(proc.pid), thread_cpu_s(proc.pid), tick_cpu_s(proc.pid)
        sent, elapsed = feeder.feed(list(model.joint_names) + list(extra), traj, rate_hz,
                                    a.seconds)
        n_prev, t_end = -1, time.monotonic() + 10
        while time.monotonic() < t_end and (a.sink or len(feeder.got) != n_prev):
            n_prev = len(feeder.got)
            time.sleep(0.5)
        used, t1, ticks = cpu_s(proc.pid) - c0, thread_cpu_s(proc.pid), tick_cpu_s(proc.pid) - k0
        time.sleep(0 if a.sink else 1.5)       # a /diagnostics after the last sample
        lost = len(set(sent) - feeder.got)
        diag, busy = feeder.diag, feeder.busy_diag
        # the first and last windows hold the start and end of the feed: the median is its rate
        in_rate = f'{np.median(feeder.rates_hz):.1f}' if feeder.rates_hz else 'n/a'
        n_out = max(len(feeder.got), 1)
        who = f'{a.sink} sink' if a.sink else f'wrench_estimator ({a.arm})'
        print(f'{who} at {rate_hz:g} Hz for '
              f'{a.seconds:g} s ({len(sent) / elapsed:.0f} Hz achieved), feeder '
              f'{a.feeder_qos}, {a.hog} CPU hog(s): CPU {used * 1e3 / len(sent):.3f} ms/sample '
              f'({100 * used / elapsed:.1f} % of a core; idle {idle_s * 50:.2f} %)' +
              ('' if a.sink else f'; {used * 1e3 / n_out:.3f} ms per sample out'))
        if not a.sink:
            print(f'  samples sent {len(sent)}, outputs received {len(feeder.got)}, lost {lost} '
                  f'({100 * lost / len(sent):.2f} %); node diagnostics: samples_in '
                  f'{diag.get("samples_in")}, samples_out {diag.get("samples_out")}, '
                  f'dropped_samples {diag.get("dropped_samples")}, input_rate_hz median '
                  f'{in_rate} (windows with samples), latency_ms_p50 '
                  f'{busy.get("latency_ms_p50")}, '
                  f'p99 {busy.get("latency_ms_p99")} (last busy window), input_wakeups '
                  f'{diag.get("input_wakeups", "n/a")} (batched input: fewer than samples_in)')
        per = {k: (v - t0.get(k, 0.0)) * 1e3 / len(sent) for k, v in t1.items()}
        threads = ', '.join(f'{k} {v:.3f}' for k, v in sorted(per.items(), key=lambda kv: -kv[1])
                            if v >= 0.001)
        print(f'  ticks (/proc stat) user {ticks[0] * 1e3 / len(sent):.3f} system '
              f'{ticks[1] * 1e3 / len(sent):.3f} ms/sample; by thread: {threads}')
        return used * 1e3 / len(sent), lost
    finally:
        feeder.close()
        stop(proc)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seconds', type=float, default=20.0)
    ap.add_argument('--arm', choices=['youbot', 'ur5', 'panda'], default='youbot',
                    help='the model and joint states: the youBot (its shipped settings) or a '
                    '6- or 7-axis arm (the core defaults)')
    ap.add_argument('--near-singularity', action='store_true',
                    help='with --arm ur5: about its zero pose (stretched out: the damped map on '
                    'every sample) instead of its best-conditioned pose')
    ap.add_argument('--rates', type=float, nargs='+', default=[200.0, 1000.0])
    ap.add_argument('--hog', type=int, default=0, help='busy-loop processes beside the node')
    ap.add_argument('--feeder-qos', choices=['reliable', 'best_effort'], default='reliable',
                    help="the feeder's publisher (a driver's joint_states is usually reliable)")
    ap.add_argument('--sink', choices=['single', 'events', 'bare', 'waitset'], default='',
                    help='measure an empty subscriber with this executor instead of the node')
    ap.add_argument('--param', action='append', default=[],
                    help='a node parameter NAME:=VALUE (repeatable), e.g. qos_depth:=1000')
    ap.add_argument('--profile', default='',
                    help='profile the node (main thread CPU), pstats to PROFILE.<rate>')
    ap.add_argument('--all-outputs', action='store_true',
                    help='subscribe to ~/wrench_std and ~/external_joint_torques as well')
    ap.add_argument('--node-tree', default='',
                    help='run the node from this checkout (PYTHONPATH), e.g. to compare a '
                    'former version in the same machine state')
    a = ap.parse_args()
    if a.node_tree:
        os.environ['PYTHONPATH'] = str(Path(a.node_tree).resolve())
    arm = arm_model(a.arm)
    if a.near_singularity:
        if a.arm != 'ur5':
            raise SystemExit('--near-singularity is for --arm ur5 (its zero pose is singular)')
        arm = (arm[0], np.zeros(arm[0].n), arm[2])
    hogs = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(a.hog)]
    try:
        for rate in a.rates:
            run_rate(arm, rate, a)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    print(f'reproduce: .venv/bin/python benchmarks/bench_node_cpu.py --arm {a.arm} --seconds '
          f'{a.seconds:g} --rates {" ".join(f"{r:g}" for r in a.rates)} --hog {a.hog} '
          f'--feeder-qos {a.feeder_qos}' + (f' --sink {a.sink}' if a.sink else '') +
          ''.join(f' --param {p}' for p in a.param) +
          (' --all-outputs' if a.all_outputs else '') +
          (' --near-singularity' if a.near_singularity else '') +
          (f' --node-tree {a.node_tree}' if a.node_tree else ''))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
