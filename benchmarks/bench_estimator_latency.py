# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Latency of the wrench_estimator node fed at 1 kHz over loopback DDS by a separate process.

The node runs in a subprocess (python -m robot_id_ros.ros.nodes.wrench_estimator); this process
publishes JointState at --rate Hz (best effort, stamped with the wall clock at publish) for
--seconds and subscribes to ~/wrench. Latency = receive wall time - input stamp (same clock,
same machine): input-to-output through DDS, the node and DDS back. Dropped = inputs without an
output.

Reproduce:
    .venv/bin/python benchmarks/bench_estimator_latency.py [--seconds 60] [--rate 1000]
        [--youbot-settings]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'test'))

import rclpy  # noqa: E402
from geometry_msgs.msg import WrenchStamped  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from robot_id_ros.model.friction import FrictionModel  # noqa: E402
from robot_id_ros.model.robot import youbot_model  # noqa: E402
from robot_id_ros.io.model_file import nominal_model  # noqa: E402
from ros_helpers import isolated_env, unique_domain_id  # noqa: E402

BENT = np.array([2.9496, 1.6344, -1.6482, 2.189, 2.9234])


def bench_model():
    """Return the benchmarks' youBot model: nominal URDF parameters, simple friction."""
    fr = FrictionModel(coulomb_pos_nm=[0.3] * 5, coulomb_neg_nm=[0.3] * 5,
                       viscous_nm_s_rad=[0.2] * 5, offset_nm=0.0)
    model = nominal_model(youbot_model(), fr)
    model.residual_std_nm = np.full(5, 0.05)
    return model


def start_node(model, domain, youbot_settings=True, extra_args=(), python_args=()):
    """Start the wrench_estimator node on ``domain`` in a subprocess; return the Popen.

    Args:
        model: the ``IdentifiedModel`` it loads (saved to a temporary file).
        domain: ROS domain id (discovery limited to this machine).
        youbot_settings: the estimator settings of config/wrench_estimator.yaml, not the core
            defaults.
        extra_args: more ``--ros-args`` arguments (e.g. ``['-p', 'qos_depth:=1000']``).
        python_args: interpreter arguments before ``-m`` (e.g. ``['-X', 'importtime']``).

    Returns:
        The ``subprocess.Popen`` (stdout and stderr piped together, text).
    """
    settings = []
    if youbot_settings:
        settings = ['--params-file', str(ROOT / 'config' / 'wrench_estimator.yaml')]
    tmp = Path(tempfile.mkdtemp())
    model.save(tmp / 'model.yaml')
    return subprocess.Popen([
        sys.executable, *python_args, '-m', 'robot_id_ros.ros.nodes.wrench_estimator',
        '--ros-args', *settings,
        '-p', f'model_file:={tmp / "model.yaml"}', *extra_args
    ], env=isolated_env(domain), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seconds', type=float, default=60.0)
    ap.add_argument('--rate', type=float, default=1000.0)
    ap.add_argument(
        '--youbot-settings', action='store_true',
        help="the estimator settings of config/wrench_estimator.yaml (the demo's), not the core "
        'defaults')
    a = ap.parse_args()
    model = bench_model()
    domain = unique_domain_id() + 20
    node = start_node(model, domain, a.youbot_settings, ['-p', 'qos_depth:=1000'])
    os.environ['ROS_DOMAIN_ID'] = str(domain)
    rclpy.init(domain_id=domain)
    feeder = rclpy.create_node('latency_feeder')
    pub = feeder.create_publisher(
        JointState, 'joint_states',
        QoSProfile(depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT))
    lat, got = [], set()

    def on_wrench(msg):
        now = time.time_ns()
        s = msg.header.stamp.sec * 10 ** 9 + msg.header.stamp.nanosec
        got.add(s)
        lat.append(now - s)

    feeder.create_subscription(WrenchStamped, 'wrench_estimator/wrench', on_wrench,
                               QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    ex = SingleThreadedExecutor()
    ex.add_node(feeder)
    spin = threading.Thread(target=ex.spin, daemon=True)
    spin.start()
    t_end = time.monotonic() + 30
    while pub.get_subscription_count() == 0 or feeder.count_publishers(
            'wrench_estimator/wrench') == 0:
        if time.monotonic() > t_end or node.poll() is not None:
            print('node did not come up:', node.stdout.read() if node.poll() is not None else '')
            return 1
        time.sleep(0.05)
    time.sleep(1.0)
    effort = model.robot.gravity_torque(BENT)
    names = list(model.joint_names)
    period = 1.0 / a.rate
    sent = []
    t0 = time.perf_counter()
    k = 0
    total = int(a.seconds * a.rate)
    while k < total:
        target = t0 + k * period
        wait = target - time.perf_counter()
        if wait > 0:
            time.sleep(wait)     # sleep, not busy-wait: the receiving thread needs the GIL
        m = JointState()
        s = time.time_ns()
        m.header.stamp.sec, m.header.stamp.nanosec = s // 10 ** 9, s % 10 ** 9
        m.name = names
        m.position = BENT.tolist()
        m.velocity = [0.0] * 5
        m.effort = effort.tolist()
        pub.publish(m)
        sent.append(s)
        k += 1
    elapsed = time.perf_counter() - t0
    time.sleep(1.0)
    ex.shutdown()
    feeder.destroy_node()
    rclpy.shutdown()
    node.terminate()
    try:
        node.wait(timeout=10)
    except subprocess.TimeoutExpired:
        node.kill()
    L = np.array(lat) * 1e-6
    dropped = len(set(sent) - got)
    print(
        'estimator settings: '
        f'{"config/wrench_estimator.yaml (youBot)" if a.youbot_settings else "core defaults"}')
    print(
        f'wrench_estimator fed at {a.rate:.0f} Hz for {a.seconds:.0f} s ({len(sent)} samples, '
        'achieved '
        f'{len(sent) / elapsed:.0f} Hz) over loopback DDS from a separate process')
    if len(L):
        print(
            f'input-to-output latency: p50 {np.percentile(L, 50):.3f} ms, '
            f'p99 {np.percentile(L, 99):.3f} ms, '
            f'max {L.max():.3f} ms')
    print(f'outputs received {len(got)}, dropped samples {dropped}')
    print(
        'reproduce: .venv/bin/python benchmarks/bench_estimator_latency.py '
        f'--seconds {a.seconds:g} '
        f'--rate {a.rate:g}' + (' --youbot-settings' if a.youbot_settings else ''))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
