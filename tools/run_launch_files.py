# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Run the package's launch files for real, as ``ros2 launch`` does, and check how each ends.

Needs the ROS 2 ``launch`` and ``launch_ros`` libraries and the package in an ament index
(``colcon build`` and ``source install/setup.bash``); without them it says so and exits 2.

    python tools/run_launch_files.py --list             # the runs, with their arguments
    python tools/run_launch_files.py                    # all of them (several minutes)
    python tools/run_launch_files.py --only sim_push    # some of them
    python tools/run_launch_files.py --launch youbot_sim.launch.py model:=m.yaml   # one launch

Each run gets its own ROS domain and a work folder (``--workdir``) with a model of the youBot's
URDF parameters, the documented excitation trajectory and a params file that makes the recording
stages short. A run that serves (the estimator, the simulator) is checked while it runs (its
topics publish, the documented push reads on its axis) and then stopped with Ctrl-C (SIGINT): it
must end with status 0. A stage must end by itself with status 0, and a run that must fail must
end non-zero with its reason in the output. Prints one line per run and exits 1 when any run
did not end as expected.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from launch_runs import RUNS, prepare_workdir, probe_serving  # noqa: E402

PACKAGE = 'robot_id_ros'
STOP_TIMEOUT_S = 60.0


def missing_requirements():
    """Return why the launch files cannot run here ('' when they can)."""
    for module in ('launch', 'launch_ros', 'ament_index_python'):
        if importlib.util.find_spec(module) is None:
            return f'{module} is not importable (a ROS 2 installation, or its sources on ' \
                   'PYTHONPATH)'
    from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    try:
        get_package_share_directory(PACKAGE)
    except PackageNotFoundError:
        return f'{PACKAGE} is not in the ament index (colcon build; source install/setup.bash)'
    return ''


def launch_one(file_name, launch_args):
    """Run one launch file of the package like ``ros2 launch``; return its exit status."""
    from ament_index_python.packages import get_package_share_directory
    from launch import LaunchDescription, LaunchService
    from launch.actions import IncludeLaunchDescription
    from launch.launch_description_sources import PythonLaunchDescriptionSource

    path = Path(get_package_share_directory(PACKAGE)) / 'launch' / file_name
    pairs = [tuple(a.split(':=', 1)) for a in launch_args]
    bad = [a for a, p in zip(launch_args, pairs) if len(p) != 2]
    if bad:
        print(f'run_launch_files: arguments are name:=value, not {bad}', file=sys.stderr)
        return 2
    service = LaunchService(argv=list(launch_args))
    service.include_launch_description(LaunchDescription([IncludeLaunchDescription(
        PythonLaunchDescriptionSource(str(path)), launch_arguments=pairs)]))
    return service.run()


def _start(run, workdir, domain_id, log_path):
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain_id), ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               PYTHONUNBUFFERED='1')
    cmd = [sys.executable, __file__, '--launch', run.file, *run.arguments(workdir)]
    log = open(log_path, 'w')
    log.write('$ ros2 launch robot_id_ros ' + ' '.join(cmd[3:]) + '\n')
    log.flush()
    return subprocess.Popen(cmd, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True), log


def _stop(proc):
    """Ctrl-C the launch (its process group, as a terminal does); return its status."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    try:
        return proc.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return 'killed (did not stop within %g s of Ctrl-C)' % STOP_TIMEOUT_S


def execute(run, workdir, domain_id):
    """Run one entry of RUNS; return (passed, one-line outcome)."""
    log_path = Path(workdir) / f'{run.name}.log'
    start = time.monotonic()
    proc, log = _start(run, workdir, domain_id, log_path)
    try:
        if run.expect == 'serves':
            checked = probe_serving(run, workdir, domain_id, proc)
            status = _stop(proc) if proc.poll() is None else proc.returncode
            passed = checked.ok and status == 0
            outcome = f'{checked.text}; after Ctrl-C status {status}'
        else:
            try:
                status = proc.wait(run.timeout_s)
            except subprocess.TimeoutExpired:
                status = f'still running after {run.timeout_s:g} s, stopped: {_stop(proc)}'
            text = log_path.read_text(errors='replace')
            reason = run.reason_in(text)
            if run.expect == 'done':
                passed = status == 0
            else:
                passed = isinstance(status, int) and status != 0 and bool(reason)
            outcome = f'status {status}' + (f'; reason: {reason}' if reason else '')
    finally:
        if proc.poll() is None:         # interrupted: leave nothing running
            _stop(proc)
        log.close()
    return passed, f'{outcome} ({time.monotonic() - start:.0f} s, log {log_path})'


def main(argv=None):
    """Run the selected launches; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--launch', help='run this one launch file (then name:=value arguments)')
    parser.add_argument('--list', action='store_true', help='list the runs and exit')
    parser.add_argument('--only', nargs='+', default=[], help='run only these runs')
    parser.add_argument('--workdir', default='launch_runs', help='folder for files and logs')
    parser.add_argument('--domain-id', type=int, default=None,
                        help='first ROS domain id (default: from the process id)')
    args, rest = parser.parse_known_args(argv)
    if args.launch:
        return launch_one(args.launch, rest)
    workdir = Path(args.workdir).resolve()
    selected = [r for r in RUNS if not args.only or r.name in args.only]
    if args.list:
        for r in selected:
            print(f'{r.name:28s} ros2 launch robot_id_ros {r.file} '
                  f'{" ".join(r.arguments(workdir))}  -> {r.expect}')
        return 0
    why = missing_requirements()
    if why:
        print(f'run_launch_files: cannot run the launch files here: {why}', file=sys.stderr)
        return 2
    prepare_workdir(workdir, selected)
    first = args.domain_id if args.domain_id is not None else 100 + os.getpid() % 100
    failed = 0
    for i, run in enumerate(selected):
        passed, outcome = execute(run, workdir, first + i)
        failed += not passed
        print(f'{"PASS" if passed else "FAIL"} {run.name}: ros2 launch robot_id_ros {run.file} '
              f'{" ".join(run.arguments(workdir))} -> {outcome}', flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
