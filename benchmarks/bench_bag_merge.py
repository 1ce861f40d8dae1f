# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Time and peak memory of merging a parted recording into one bag (PartedBagWriter.finalize).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_bag_merge.py [--seconds 60] [--rate 1000]

Writes ``--seconds`` of ``--rate`` Hz 5-joint JointState (the youBot arm) with a PartedBagWriter
committing every ``--commit-s`` seconds of data (the recorders' commit_period_s default, 5 s),
then merges it in a fresh child process, which reports the wall time of ``finalize()`` and its
peak resident memory (VmHWM, reset before the merge) above the same process before the merge.
A second child measures the peak of Python allocations with tracemalloc (slower; its time is
not reported).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

JOINTS = [f'arm_joint_{i}' for i in range(1, 6)]


def write_parted(bag, seconds, rate_hz, commit_s):
    """Write a parted bag of ``seconds`` x ``rate_hz`` JointStates; return (messages, parts)."""
    from robot_id_ros.io.bags import JOINT_STATE_TYPE, BagWriter
    from robot_id_ros.io.parted_bag import PartedBagWriter

    n = int(seconds * rate_hz)
    stamps = 1_700_000_000_000_000_000 + np.arange(n, dtype=np.int64) * int(1e9 / rate_hz)
    t = (stamps - stamps[0]) * 1e-9
    q = np.sin(np.outer(t, np.arange(1, 6)))
    # cdr_joint_state serialises without opening the (never created) bag it belongs to
    raws = BagWriter(bag.parent / 'unused').cdr_joint_state(stamps, JOINTS, q, np.cos(q), 2 * q)
    w = PartedBagWriter(bag)
    per_part = int(commit_s * rate_hz)
    for k, (s, raw) in enumerate(zip(stamps, raws)):
        w.write('/joint_states', JOINT_STATE_TYPE, s, raw)
        if (k + 1) % per_part == 0:
            w.commit()
    w.commit()
    return n, w.committed_parts


def _peak_rss_kib():
    """Peak resident memory of this process, KiB (VmHWM; ru_maxrss where /proc is missing)."""
    try:
        for line in Path('/proc/self/status').read_text().splitlines():
            if line.startswith('VmHWM:'):
                return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _reset_peak_rss_kib():
    """Reset the peak to the current resident memory (Linux clear_refs); returns the peak."""
    try:
        Path('/proc/self/clear_refs').write_text('5')
    except OSError:
        pass
    return _peak_rss_kib()


def child(bag, trace):
    """Merge ``bag`` in this process; print a JSON line of the figures."""
    import rosbags.rosbag2  # noqa: F401 - imported before the baseline is taken

    from robot_id_ros.io.parted_bag import finalize_bag

    if trace:
        import tracemalloc

        tracemalloc.start()
    rss0 = _reset_peak_rss_kib()
    t0 = time.perf_counter()
    res = finalize_bag(bag)
    wall = time.perf_counter() - t0
    rss1 = _peak_rss_kib()
    out = {'wall_s': wall, 'rss_before_mib': rss0 / 1024, 'rss_peak_mib': rss1 / 1024,
           'messages': res.message_count, 'parts': res.parts_merged}
    if trace:
        out['py_peak_mib'] = tracemalloc.get_traced_memory()[1] / 2**20
    print(json.dumps(out))


def run_child(bag, trace):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    out = subprocess.run([sys.executable, __file__, '--child', str(bag)]
                         + (['--trace'] if trace else []),
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--seconds', type=float, default=60.0)
    ap.add_argument('--rate', type=float, default=1000.0)
    ap.add_argument('--commit-s', type=float, default=5.0)
    ap.add_argument('--child', help=argparse.SUPPRESS)
    ap.add_argument('--trace', action='store_true', help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(Path(a.child), a.trace)
        return
    from robot_id_ros.io.bags import read_joint_states

    with tempfile.TemporaryDirectory() as d:
        figures = []
        for trace in (False, True):
            bag = Path(d) / f'run{int(trace)}'
            n, parts = write_parted(bag, a.seconds, a.rate, a.commit_s)
            size = sum(f.stat().st_size for f in bag.glob('*.mcap')) / 2**20
            figures.append(run_child(bag, trace))
        s = read_joint_states(bag, JOINTS)
        assert len(s) == n and sorted(p.name for p in bag.iterdir()) == [
            'metadata.yaml', f'{bag.name}.mcap']
        r, tr = figures
        print(f'{n} JointState messages ({a.seconds:g} s at {a.rate:g} Hz, 5 joints) in {parts} '
              f'parts, {size:.1f} MiB of MCAP')
        print(f'merge + read-back check: {r["wall_s"]:.2f} s wall, '
              f'{r["wall_s"] / n * 1e6:.1f} us/message')
        print(f'peak RSS {r["rss_peak_mib"]:.0f} MiB (process before the merge '
              f'{r["rss_before_mib"]:.0f} MiB, +{r["rss_peak_mib"] - r["rss_before_mib"]:.0f} '
              f'MiB); peak Python allocations {tr["py_peak_mib"]:.1f} MiB')


if __name__ == '__main__':
    main()
