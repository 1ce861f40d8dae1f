# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Starting the simulator does not import the identification stack (scipy: seconds of CPU)."""
import subprocess
import sys

import pytest

HEAVY = ('scipy', 'robot_id_ros.identify', 'robot_id_ros.estimate')


@pytest.mark.parametrize('module', ['robot_id_ros.sim.driver',
                                    'robot_id_ros.ros.nodes.youbot_sim'])
def test_simulator_modules_import_no_scipy_or_identification(module):
    if module.startswith('robot_id_ros.ros'):
        pytest.importorskip('rclpy')
    code = (f'import sys, {module}\n'
            f'print(sorted({{m.split(".")[0] if m.startswith("scipy") else m for m in sys.modules'
            f' if m.startswith({HEAVY!r})}}))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == '[]', f'importing {module} loads {out}'
