# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The documented examples around the launch files do what they say.

- every excitation design the youBot session shows (``robot-id design-excitation`` in
  docs/youbot.md and the launch files) stays within the limits the trajectory recorder enforces
  (its config), so the recorder plays the file it writes;
- every documented push on the simulated tool (``ros2 topic pub ... /sim/wrench``) is one the
  estimator can feel in the simulator's start pose: its force makes joint torque well above the
  estimator's contact threshold (in the candle pose a vertical push makes almost none).
"""
import ast
import shlex

import numpy as np
import pytest
import yaml

from launch_evaluation import DOCUMENTS, ROOT


def _texts():
    out = [(p.relative_to(ROOT), p.read_text()) for p in DOCUMENTS]
    for p in sorted((ROOT / 'launch').glob('*.launch.py')):
        out.append((p.relative_to(ROOT), ast.get_docstring(ast.parse(p.read_text())) or ''))
    return out


def _commands(start):
    """[(source, words)] of every documented command line starting with ``start``."""
    found = []
    for source, text in _texts():
        for line in text.replace('\\\n', ' ').splitlines():
            at = line.find(start)
            if at >= 0 and (at == 0 or line[at - 1] in ' `$'):
                found.append((str(source), shlex.split(line[at:].split('`')[0].split(' # ')[0])))
    return found


DESIGNS = [(s, w) for s, w in _commands('robot-id design-excitation')
           if s == 'docs/youbot.md' or s.startswith('launch/')]
PUSHES = [(s, w) for s, w in _commands('ros2 topic pub') if '/sim/wrench' in w]


def _flag(words, name):
    return words[words.index(name) + 1] if name in words else None


def test_the_examples_are_found():
    sources = {s for s, _ in DESIGNS}
    assert {'docs/youbot.md', 'launch/identification_session.launch.py'} <= sources, sources
    assert {'README.md', 'launch/youbot_sim.launch.py'} <= {s for s, _ in PUSHES}


@pytest.mark.parametrize('source, words', DESIGNS, ids=[s for s, _ in DESIGNS])
def test_documented_excitation_designs_fit_the_recorder_limits(source, words):
    section, = yaml.safe_load((ROOT / 'config' / 'trajectory_recorder.yaml').read_text()).values()
    limits = section['ros__parameters']
    for flag, key in (('--velocity-limits', 'max_velocity_rad_s'),
                      ('--acceleration-limits', 'max_acceleration_rad_s2')):
        given = _flag(words, flag)
        assert given is not None, (
            f'{source}: {" ".join(words)} designs for the URDF limits; the trajectory recorder '
            f'refuses more than {key} {limits[key]}: give {flag}')
        values = [float(v) for v in given.split(',')]
        assert max(values) <= limits[key], (source, flag, values, key, limits[key])


def _start_pose():
    section, = yaml.safe_load((ROOT / 'config' / 'youbot_sim.yaml').read_text()).values()
    return np.array(section['ros__parameters']['initial_positions'])


@pytest.mark.parametrize('source, words', PUSHES, ids=[s for s, _ in PUSHES])
def test_documented_push_is_felt_in_the_start_pose(source, words):
    """The push's force, against the standard deviation of a force estimate along its axis from
    the default residual torque noise, clears the contact threshold with room."""
    from robot_id_ros.estimate.config import EstimatorConfig
    from robot_id_ros.model.robot import youbot_model

    body = yaml.safe_load(words[-1])
    force = np.array([float(body['wrench']['force'].get(k, 0.0)) for k in 'xyz'])
    size = np.linalg.norm(force)
    assert size > 0, f'{source}: the push has no force'
    jacobian = youbot_model().tool_jacobian(_start_pose())[:3]
    config = EstimatorConfig()
    # the force estimate's variance along u: sigma_tau^2 u^T (J J^T)^-1 u
    u = force / size
    sigma_n = config.default_residual_std_nm * np.sqrt(u @ np.linalg.solve(
        jacobian @ jacobian.T, u))
    assert size >= 2 * config.contact_threshold_sigma * sigma_n, (
        f'{source}: {words[-1]} ({size:g} N) is felt with a standard deviation of {sigma_n:.2f} N '
        'in the start pose (candle): push across the arm, e.g. along x')
