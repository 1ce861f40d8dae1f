# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""URDFs used by the tests: the bundled youBot and arms from the example-robot-data wheel."""
import sys
from pathlib import Path

import pytest


def example_robot_data_dir():
    for p in map(Path, sys.path):
        d = p / 'cmeel.prefix' / 'share' / 'example-robot-data' / 'robots'
        if d.is_dir():
            return d
    pytest.skip('example-robot-data is not installed (pip install example-robot-data)')


def panda():
    return (example_robot_data_dir() / 'panda_description' / 'urdf' / 'panda.urdf',
            [f'panda_joint{i}' for i in range(1, 8)])


def ur5():
    return (example_robot_data_dir() / 'ur_description' / 'urdf' / 'ur5_robot.urdf', [
        'shoulder_pan_joint', 'shoulder_lift_joint', 'elbow_joint', 'wrist_1_joint',
        'wrist_2_joint', 'wrist_3_joint'
    ])


SHARED_DATA = Path(__file__).resolve().parents[1].parent / 'shared' / 'data'
