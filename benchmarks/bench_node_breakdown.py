# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Where the wrench_estimator node's CPU per sample goes, stage by stage (in one process).

The node (youBot model of bench_estimator_latency, config/wrench_estimator.yaml, its executor
path: ``input_thread=False``, not spun) and a feeder node share this process and a private ROS
domain; the feeder publishes --samples joint states per round (7 joints as the youBot driver, 1
kHz stamps, reliable) and subscribes to ~/wrench (--all-outputs: ~/wrench_std and
~/external_joint_torques too). Once they are queued, the node's own ``drain`` takes them, with
each stage wrapped in a timer of this thread's CPU clock (``time.thread_time``):
  take        take one serialized sample from the subscription and read it (joint_state_taker)
  convert     JointIndexer.convert (message order -> model order, checks)
  update      WrenchEstimator.update (the numeric step)
  monitor     InputMonitor received / used / published (counters, stamp gaps, latency)
  publish     each publication (rmw publish of the serialized message: the DDS write)
  other       the rest of drain/_process/_publish (drain minus the stages; includes the timers'
              own cost, about 0.5 us per stage)
The figures exclude the wake-ups (executor pass or input thread wait; bench_node_cpu measures
the whole process) and the DDS threads. Each round's figures are per sample; the best round
(least CPU) and the median are printed. A shared machine's load inflates all of them.
--node-tree DIR takes the node from another checkout (e.g. the main branch: a before/after in
the same machine state; a node without the input thread has the same executor path).

Reproduce:
    .venv/bin/python benchmarks/bench_node_breakdown.py [--samples 500] [--rounds 10]
        [--all-outputs] [--node-tree DIR]
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'benchmarks'))
sys.path.insert(0, str(ROOT / 'test'))

import rclpy  # noqa: E402
from geometry_msgs.msg import WrenchStamped  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from bench_estimator_latency import BENT, bench_model  # noqa: E402
from bench_node_cpu import FINGERS, trajectory  # noqa: E402
from ros_helpers import unique_domain_id  # noqa: E402

STAGES = ('take', 'convert', 'update', 'monitor', 'publish')


def timed(fn, stage, acc):
    """Return ``fn`` wrapped: its thread CPU time is added to ``acc[stage]``."""
    clock = time.thread_time

    def wrapper(*args, **kwargs):
        t0 = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            acc[stage] += clock() - t0
    return wrapper


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--samples', type=int, default=500, help='samples per round')
    ap.add_argument('--rounds', type=int, default=10)
    ap.add_argument('--all-outputs', action='store_true',
                    help='subscribe to ~/wrench_std and ~/external_joint_torques as well')
    ap.add_argument('--node-tree', default='', help='take the node from this checkout')
    a = ap.parse_args()
    os.environ['ROS_DOMAIN_ID'] = str(unique_domain_id() + 20)
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    model = bench_model()
    tmp = Path(tempfile.mkdtemp())
    model.save(tmp / 'model.yaml')
    if a.node_tree:       # the node's package from that checkout (the model file is the same)
        for name in [m for m in sys.modules if m.split('.')[0] == 'robot_id_ros']:
            del sys.modules[name]
        sys.path.insert(0, str(Path(a.node_tree).resolve()))
    from robot_id_ros.ros.nodes.wrench_estimator import WrenchEstimatorNode
    rclpy.init(args=['--ros-args', '--params-file', str(ROOT / 'config' / 'wrench_estimator.yaml'),
                     '-p', f'model_file:={tmp / "model.yaml"}'])
    try:
        node = WrenchEstimatorNode(input_thread=False)
    except TypeError:                      # a checkout without the input thread
        node = WrenchEstimatorNode()
    feed = rclpy.create_node('breakdown_feeder')
    pub = feed.create_publisher(JointState, 'joint_states', QoSProfile(
        depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    deep = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    topics = [('wrench', WrenchStamped)]
    if a.all_outputs:
        topics += [('wrench_std', WrenchStamped), ('external_joint_torques', JointState)]
    for topic, typ in topics:
        feed.create_subscription(typ, f'wrench_estimator/{topic}', lambda m: None, deep)
    t_end = time.monotonic() + 30
    while (pub.get_subscription_count() == 0 or any(
            feed.count_publishers(f'wrench_estimator/{t}') == 0 for t, _ in topics)) and \
            time.monotonic() < t_end:
        time.sleep(0.05)
    time.sleep(0.5)
    acc = dict.fromkeys(STAGES, 0.0)
    node.take_queued = timed(node.take_queued, 'take', acc)
    node.indexer.convert = timed(node.indexer.convert, 'convert', acc)
    node.est.update = timed(node.est.update, 'update', acc)
    for name in ('received', 'used', 'published'):
        setattr(node.monitor, name, timed(getattr(node.monitor, name), 'monitor', acc))
    for p in (node.pub_wrench, node.pub_std, node.pub_tau, node.pub_contact):
        p.publish = timed(p.publish, 'publish', acc)
    traj = trajectory(model, np.asarray(BENT), FINGERS, 1000.0)
    names = [f'arm_joint_{i}' for i in range(1, 6)] + FINGERS
    start_ns, k = time.time_ns(), 0
    rows = []
    for _ in range(a.rounds):
        for _ in range(a.samples):
            m = JointState()
            s = start_ns + k * 1_000_000
            m.header.stamp.sec, m.header.stamp.nanosec = s // 10 ** 9, s % 10 ** 9
            m.name = names
            m.position, m.velocity, m.effort = traj[k % len(traj)]
            pub.publish(m)
            k += 1
        time.sleep(0.3)                     # all delivered to the node's queue
        for key in acc:
            acc[key] = 0.0
        node._see_outputs()                 # the subscriber counts, once per wake-up
        t0 = time.thread_time()
        taken = node.drain()
        total = time.thread_time() - t0
        if taken:
            row = {key: v / taken for key, v in acc.items()}
            row['other'] = total / taken - sum(row.values())
            row['total'] = total / taken
            rows.append(row)
    best = min(rows, key=lambda r: r['total'])
    med = {key: float(np.median([r[key] for r in rows])) for key in best}
    import robot_id_ros
    print(f'wrench_estimator per sample (youBot settings, {a.samples} samples x {len(rows)} '
          f'rounds, outputs: {", ".join(t for t, _ in topics)}), CPU of the taking thread; '
          f'node from {Path(robot_id_ros.__file__).parents[1]}:')
    print(f'  {"stage":8s} {"best us":>8s} {"median us":>10s} {"share":>6s}')
    for key in (*STAGES, 'other', 'total'):
        print(f'  {key:8s} {best[key] * 1e6:8.1f} {med[key] * 1e6:10.1f} '
              f'{best[key] / best["total"]:6.0%}')
    node.destroy_node()
    feed.destroy_node()
    rclpy.shutdown()
    print('reproduce: .venv/bin/python benchmarks/bench_node_breakdown.py --samples '
          f'{a.samples} --rounds {a.rounds}' + (' --all-outputs' if a.all_outputs else '') +
          (f' --node-tree {a.node_tree}' if a.node_tree else ''))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
