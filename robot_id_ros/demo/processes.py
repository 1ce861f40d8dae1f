# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo's node processes.

Each of the package's nodes in its own Python process, on a private ROS domain with discovery
limited to this machine, its output in a log file.
"""
from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from robot_id_ros.errors import OperationError

# a wait shows the node's last INFO line this often, wall-clock s
PROGRESS_PERIOD_S = 10.0
# how often a wait polls the process, wall-clock s
POLL_PERIOD_S = 0.2
# longest shown part of a node's log line, characters
PROGRESS_LINE_CHARS = 150


class DemoError(OperationError):
    """A stage of the demo failed; the message names the stage and where its log is."""


def log(msg):
    """Print one line of the demo's progress at once (the demo runs for minutes)."""
    print(msg, flush=True)


def demo_environment(domain_id):
    """Return the environment of the demo's processes.

    ROS domain ``domain_id``, discovery on this machine only, unbuffered output (so the logs show
    progress as it happens).
    """
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain_id), ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               PYTHONUNBUFFERED='1')
    env.pop('ROS_LOCALHOST_ONLY', None)
    return env


# the message package each command interface needs (none: 'trajectory')
INTERFACE_PACKAGES = {'follow_joint_trajectory': 'control_msgs',
                      'brics_position': 'brics_actuator'}
BUILD_TOOL = Path(__file__).resolve().parents[2] / 'tools' / 'build_interfaces.py'


def interface_environment(env, interface):
    """Return ``env`` extended so the nodes import the message package ``interface`` needs.

    An installed package (a ROS 2 installation, a sourced driver workspace) is used as it is;
    else, in a source checkout, it is built (or taken from the cache) with
    tools/build_interfaces.py, the test setup's way, and one line says so. The nodes never build.

    Args:
        env: the processes' environment (``demo_environment``).
        interface: 'trajectory', 'follow_joint_trajectory' or 'brics_position'.

    Returns:
        The environment (``env`` itself for 'trajectory' or an installed package).

    Raises:
        DemoError: the package is neither installed nor buildable here (one line naming it).
    """
    package = INTERFACE_PACKAGES.get(interface)
    if package is None or importlib.util.find_spec(package) is not None:
        return env
    from robot_id_ros.ros.command_adapters import missing_package_message
    if not BUILD_TOOL.is_file():
        raise DemoError(missing_package_message(package))
    spec = importlib.util.spec_from_file_location('build_interfaces', BUILD_TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    t0 = time.monotonic()
    try:
        install = tool.build()
    except tool.BuildToolsMissing as exc:
        raise DemoError(f'{missing_package_message(package)} ({exc})') from exc
    log(f'command interface {interface}: {package} from tools/build_interfaces.py in {install} '
        f'({time.monotonic() - t0:.0f} s)')
    return tool.runtime_env(install, base=env)


class NodeProcess:
    """One of the package's nodes in its own process, parameters from a generated params file.

    Args:
        module: module of the node under ``robot_id_ros.ros.nodes`` (its executable's name).
        node_name: the node's name (``__node:=``); also names its log and params files.
        params: the node's parameters, written to ``<log_dir>/<node_name>.params.yaml``.
        env: the process environment (``demo_environment``).
        log_dir: folder of the node's log ``<node_name>.log``.
    """

    def __init__(self, module, node_name, params, env, log_dir: Path):
        self.name = node_name
        self.log_path = log_dir / f'{node_name}.log'
        pfile = log_dir / f'{node_name}.params.yaml'
        pfile.write_text(yaml.safe_dump({'/**': {'ros__parameters': params}}))
        code = f'import sys; from robot_id_ros.ros.nodes.{module} import main; sys.exit(main())'
        cmd = [sys.executable, '-c', code, '--ros-args', '-r', f'__node:={node_name}',
               '--params-file', str(pfile)]
        self._log = open(self.log_path, 'w')
        self.proc = subprocess.Popen(cmd, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def alive(self):
        """Return True while the process runs."""
        return self.proc.poll() is None

    def last_line(self, contains=''):
        """Return the last line of the node's log that holds ``contains`` ('' if none/no log)."""
        try:
            lines = self.log_path.read_text(errors='replace').splitlines()
        except OSError:
            return ''
        for line in reversed(lines):
            if contains in line:
                return line
        return ''

    def wait(self, timeout_s, progress_every_s=PROGRESS_PERIOD_S):
        """Wait for the process to end, showing its last INFO line every ``progress_every_s``.

        Args:
            timeout_s: wall-clock seconds after which the process is stopped.
            progress_every_s: wall-clock seconds between progress lines.

        Returns:
            The process's exit code.

        Raises:
            DemoError: the process did not end within ``timeout_s``.
        """
        t0 = time.monotonic()
        last = t0
        while self.alive():
            if time.monotonic() - t0 > timeout_s:
                self.stop()
                raise DemoError(f'{self.name} did not finish within {timeout_s:.0f} s '
                                f'(log: {self.log_path})')
            if time.monotonic() - last > progress_every_s:
                line = self.last_line('INFO')
                if line:
                    log('        ' + line.split(']: ', 1)[-1][:PROGRESS_LINE_CHARS])
                last = time.monotonic()
            time.sleep(POLL_PERIOD_S)
        self._log.close()
        return self.proc.returncode

    def stop(self, timeout_s=10.0):
        """SIGINT to the process group (a node's clean shutdown), SIGKILL after ``timeout_s``."""
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
                self.proc.wait(timeout_s)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(5)
        if not self._log.closed:
            self._log.close()


class NodeGroup:
    """The demo's node processes, stopped together (last started first).

    Args:
        env: the processes' environment (``demo_environment``).
        log_dir: folder of their logs and params files.
    """

    def __init__(self, env, log_dir: Path):
        self.env, self.log_dir = env, Path(log_dir)
        self.procs = []

    def start(self, module, node_name, params) -> NodeProcess:
        """Start node ``module`` as ``node_name`` with ``params`` (see ``NodeProcess``)."""
        p = NodeProcess(module, node_name, params, self.env, self.log_dir)
        self.procs.append(p)
        return p

    def stop_all(self):
        """Stop every process still running, in reverse start order."""
        for p in reversed(self.procs):
            p.stop()
