# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Commands with defaults on URDFs and recordings this package did not make (issue 13)."""
import warnings

import pytest

from robots import example_robot_data_dir
from robot_id_ros.cli.main import main


def test_design_excitation_on_continuous_joints_without_limits_says_one_line(tmp_path, capsys):
    """double_pendulum_continuous: no position and no velocity limit; one line, no warning."""
    urdf = (example_robot_data_dir() / 'double_pendulum_description' / 'urdf'
            / 'double_pendulum_continuous.urdf')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        rc = main(['design-excitation', '--urdf', str(urdf), '--out', str(tmp_path / 't.yaml')])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err[-1].startswith('robot-id design-excitation: error: '), err
    assert 'no usable velocity limit for joint(s) joint1, joint2' in err[-1]
    assert '--velocity-limits' in err[-1] and not any('Warning' in x for x in err), err


def test_help_states_the_wrench_sign_convention(capsys):
    """Issue 13 item 6: which way the wrench points, in robot-id --help and estimate --help."""

    for argv in (['--help'], ['estimate', '--help']):
        with pytest.raises(SystemExit):
            main(argv)
        text = ' '.join(capsys.readouterr().out.split())
        assert 'the environment applies to the robot' in text, argv
        assert "tool frame's origin" in text and 'along +x reads +fx' in text, argv
