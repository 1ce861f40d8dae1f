# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id identify on weak data: every failure is one line on stderr naming the fix, never a
traceback, and nothing is written; a fit it can make says in its summary what its plausibility
check did."""
import numpy as np
import pytest

from robot_id_ros.cli.main import main
from robot_id_ros.io.bags import BagWriter
from robot_id_ros.model.robot import youbot_model

RATE_HZ = 200.0


def _bag(path, samples, still=(), rest=False, seed=0):
    """A youBot bag without velocity: gravity torque plus noise along slow sines.

    ``still``: joints held at their middle; ``rest``: every joint still (encoder jitter only).
    """
    robot = youbot_model()
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / RATE_HZ
    mid = 0.5 * (robot.limits.lower_rad + robot.limits.upper_rad)
    Q = mid + 0.4 * np.sin(2 * np.pi * np.array([0.3, 0.4, 0.5, 0.35, 0.45]) * t[:, None])
    for j in still:
        Q[:, j] = mid[j]
    if rest:
        Q = mid + 2e-4 * rng.standard_normal(Q.shape)
    E = np.array([robot.gravity_torque(q) for q in Q]) + 0.02 * rng.standard_normal(Q.shape)
    S = (1_700_000_000 * 10 ** 9 + np.round(t * 1e9)).astype(np.int64)
    with BagWriter(path) as bw:
        for k in range(samples):
            msg = bw.joint_state(S[k], robot.joint_names, Q[k], (), E[k])
            bw.write('/joint_states', S[k], msg)
    return path


def _identify(capsys, bag, out, *flags):
    rc = main(['identify', '--data', str(bag), '--out', str(out), *map(str, flags)])
    cap = capsys.readouterr()
    assert 'Traceback' not in cap.err
    return rc, cap


@pytest.mark.parametrize('samples, still, flags, fix', [
    (5, (), (), 'record a longer run'),
    (30, (), (), 'record longer'),                              # no velocity and too short
    (600, (4,), ('--no-auto-options',), '--known NAME=VALUE'),  # a joint that never moves
    (600, (), ('--velocity-source', 'measured'), '--velocity-source position'),
])
def test_weak_data_fail_in_one_line_with_the_fix(tmp_path, capsys, samples, still, flags, fix):
    bag = _bag(tmp_path / 'run.mcap', samples, still)
    rc, cap = _identify(capsys, bag, tmp_path / 'm.yaml', *flags)
    lines = [x for x in cap.err.splitlines() if 'error:' in x]
    assert rc == 2 and len(lines) == 1, cap.err
    assert lines[0].startswith('robot-id identify: error:') and fix in lines[0], lines[0]
    assert not (tmp_path / 'm.yaml').exists()


def test_at_rest_with_a_prior_gives_a_model_and_says_what_was_held(tmp_path, capsys):
    """Every joint still, --prior-weight 1: the option search's slow-row candidates left no row
    to weigh the joints by, and numpy's LinAlgError ended the command. Now the model is written,
    and its summary says which inertial combinations were held at the URDF's values."""
    bag = _bag(tmp_path / 'rest.mcap', 600, rest=True)
    rc, cap = _identify(capsys, bag, tmp_path / 'm.yaml', '--prior-weight', '1')
    assert rc == 0, cap.err
    assert 'plausibility:' in cap.out and "held at the URDF's values" in cap.out
    assert (tmp_path / 'm.yaml').exists()
