# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The numeric core imports no ROS: every module of every ROS-free sub-package, found
recursively."""
import subprocess
import sys
from pathlib import Path

import robot_id_ros

PACKAGE = Path(robot_id_ros.__file__).parent
ROS_FREE = ('model', 'io', 'signals', 'record', 'identify', 'estimate', 'sim', 'control')
ROS_MODULES = ('rclpy', 'rosidl_runtime_py', 'rcl_interfaces', 'builtin_interfaces', 'sensor_msgs',
               'geometry_msgs', 'std_msgs', 'std_srvs', 'trajectory_msgs', 'diagnostic_msgs')


def ros_free_modules():
    """Dotted names of every module under the ROS-free sub-packages (recursive) and errors.py."""
    names = ['robot_id_ros.errors'] if (PACKAGE / 'errors.py').exists() else []
    for sub in ROS_FREE:
        for path in sorted((PACKAGE / sub).rglob('*.py')):
            rel = path.relative_to(PACKAGE.parent).with_suffix('')
            parts = rel.parts[:-1] if rel.name == '__init__' else rel.parts
            names.append('.'.join(parts))
    return names


def test_every_ros_free_subpackage_is_scanned_recursively():
    mods = ros_free_modules()
    for sub in ROS_FREE:
        assert f'robot_id_ros.{sub}' in mods, sub
    # a module in a nested package is found too
    # every module file of a nested package (its __init__ included) is listed
    deep = {p for sub in ROS_FREE for p in (PACKAGE / sub).rglob('*/*.py')}
    listed = {PACKAGE.parent.joinpath(*m.split('.')) for m in mods}
    for path in deep:
        as_module = path.parent if path.name == '__init__.py' else path.with_suffix('')
        assert as_module in listed, path
    assert len(mods) >= 25


def test_importing_the_core_does_not_import_rclpy():
    mods = ros_free_modules()
    code = ('import sys\n' + ''.join(f'import {m}\n' for m in mods)
            + f'bad = [m for m in sys.modules if m.split(".")[0] in {ROS_MODULES!r}]\n'
            + 'assert not bad, bad\n')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
