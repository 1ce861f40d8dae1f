# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The estimator benchmarks run to the end on a tiny input (their figures are not asserted: speed
is shown by the full runs quoted in the README, not by timed tests). A benchmark that no longer
runs (e.g. after a change to the settings it combines) fails here instead of at the next README
update."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(args, timeout_s):
    r = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout_s)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


def test_cost_benchmark_runs():
    out = _run(['benchmarks/bench_estimator_cost.py', '--samples', '300'], 120)
    for label in ('reference', 'floor', 'update     default', 'update     demo',
                  'process    default', 'process    demo', 'offline', 'reproduce:'):
        assert label in out, out


def test_latency_benchmark_runs_with_the_youbot_settings():
    # the benchmark picks its own isolated ROS domain
    out = _run([
        'benchmarks/bench_estimator_latency.py', '--seconds', '1', '--rate', '200',
        '--youbot-settings'
    ], 120)
    assert 'estimator settings: config/wrench_estimator.yaml (youBot)' in out, out
    assert 'input-to-output latency: p50' in out and 'outputs received' in out, out


def test_node_breakdown_benchmark_runs():
    # the benchmark picks its own isolated ROS domain
    out = _run(['benchmarks/bench_node_breakdown.py', '--samples', '20', '--rounds', '2'], 120)
    for label in ('take', 'convert', 'update', 'monitor', 'publish', 'other', 'total',
                  'reproduce:'):
        assert label in out, out


def test_friction_drift_benchmark_runs():
    # a short warm-up: the table, the pushes and the command are printed (not the figures)
    out = _run(['benchmarks/bench_friction_drift.py', '--minutes', '1', '--bin', '1'], 600)
    for label in ('scenario: seed 0', 'cold/fl', 'track/fl', 'coverage', '10 N push held 10 s',
                  'reproduce:'):
        assert label in out, out
