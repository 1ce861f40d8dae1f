# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The ROS packaging: colcon build in a scratch workspace gives the layout ros2 run/launch need."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _console_scripts():
    text = (ROOT / 'setup.py').read_text()
    block = text[text.index('NODES = {'):text.index('}', text.index('NODES = {'))]
    return re.findall(r"'([\w-]+)': 'robot_id_ros\.", block)


def test_console_scripts_are_the_contract_executables():
    assert set(_console_scripts()) == {
        'youbot_sim', 'static_pose_recorder', 'trajectory_recorder', 'friction_sweep_recorder',
        'identification', 'wrench_estimator', 'force_controller', 'robot-id'
    }


def test_package_xml_format3_lists_runtime_dependencies():
    import xml.etree.ElementTree as ET
    root = ET.parse(ROOT / 'package.xml').getroot()
    assert root.get('format') == '3' and root.findtext('name') == 'robot_id_ros'
    deps = {e.text for e in root.findall('exec_depend')}
    for d in ('rclpy', 'sensor_msgs', 'geometry_msgs', 'std_msgs', 'std_srvs', 'trajectory_msgs',
              'diagnostic_msgs', 'launch', 'launch_ros', 'python3-numpy', 'python3-scipy',
              'pinocchio', 'python3-yaml'):
        assert d in deps, d
    assert root.find('export/build_type').text == 'ament_python'


def test_colcon_build_installs_ros_layout(tmp_path):
    colcon = shutil.which('colcon') or str(Path(sys.executable).parent / 'colcon')
    if not Path(colcon).exists():
        pytest.skip('colcon not installed (pip install colcon-common-extensions)')
    src = tmp_path / 'ws' / 'src' / 'robot_id_ros'
    shutil.copytree(
        ROOT, src, ignore=shutil.ignore_patterns('.venv', '.git', 'build', 'install', 'log',
                                                 '*.egg-info', '__pycache__', 'demo_out'))
    r = subprocess.run([colcon, 'build', '--packages-select', 'robot_id_ros'], cwd=tmp_path / 'ws',
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    inst = tmp_path / 'ws' / 'install' / 'robot_id_ros'
    for name in _console_scripts():
        assert (inst / 'lib' / 'robot_id_ros' / name).is_file(), name
    share = inst / 'share' / 'robot_id_ros'
    assert (inst / 'share' / 'ament_index' / 'resource_index' / 'packages' /
            'robot_id_ros').is_file()
    assert (share / 'package.xml').is_file()
    assert (share / 'urdf' / 'youbot_arm.urdf').is_file()
    for sub in ('launch', 'config'):
        want = sorted(p.name
                      for p in (ROOT / sub).glob('*.launch.py' if sub == 'launch' else '*.yaml'))
        got = sorted(p.name for p in (share / sub).glob('*'))
        assert got == want, (sub, got, want)
