# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
import json
import subprocess
import sys

import pytest

from robots import panda, ur5


def robot_id(*args):
    return subprocess.run([sys.executable, '-m', 'robot_id_ros.cli', *args], capture_output=True,
                          text=True, timeout=120)


def test_describe_youbot_json():
    r = robot_id('describe', '--json')
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d['joint_names'] == [f'arm_joint_{i}' for i in range(1, 6)]
    assert d['tool_frame'] == 'arm_tool_link'
    assert d['n_standard'] == 50 and d['n_base'] == 29 and len(d['base_parameters']) == 29


@pytest.mark.parametrize('arm, flags, n_base', [(panda, [], 43), (panda, ['--friction'], 57),
                                                (ur5, [], 36), (ur5, ['--friction'], 48)])
def test_describe_other_arms(arm, flags, n_base):
    urdf, joints = arm()
    r = robot_id('describe', '--urdf', str(urdf), '--joints', ','.join(joints), *flags, '--json')
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)['n_base'] == n_base


def test_describe_text():
    r = robot_id('describe', '--friction')
    assert r.returncode == 0 and 'parameters  60 standard, 39 base' in r.stdout


@pytest.mark.parametrize('args, msg', [
    (['--urdf', '/no/such.urdf'], 'URDF not found: /no/such.urdf'),
    (['--joints', 'arm_joint_1,bogus'], 'has no joint(s) bogus'),
    (['--tool-frame', 'bogus'], "has no frame 'bogus'"),
])
def test_describe_bad_input_one_line(args, msg):
    r = robot_id('describe', *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and msg in lines[0]
