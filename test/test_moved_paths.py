# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The old import paths of the flat layout keep working for one release, with a warning."""
import subprocess
import sys

from robot_id_ros._moved import MOVED


def test_every_old_path_imports_its_new_module_with_a_deprecation_warning():
    code = '\n'.join([
        'import importlib, warnings',
        'from robot_id_ros._moved import MOVED',
        'for old, new in MOVED.items():',
        '    with warnings.catch_warnings(record=True) as w:',
        '        warnings.simplefilter("always")',
        '        mod = importlib.import_module(old)',
        '    assert mod is importlib.import_module(new), old',
        '    assert any(issubclass(x.category, DeprecationWarning) and new in str(x.message) '
        'for x in w), old',
        'from robot_id_ros.core.model import RobotModel',
        'from robot_id_ros.model.robot import RobotModel as R2',
        'assert RobotModel is R2',
        'print(len(MOVED))',
    ])
    r = subprocess.run([sys.executable, '-W', 'ignore::DeprecationWarning', '-c', code],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) == len(MOVED) >= 30
