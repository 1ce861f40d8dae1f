# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Without numba installed the estimator still runs: the one-sample step's functions run as
plain Python (``compiled.COMPILED`` False), with the same numbers as the compiled step, and the
start-up summary says how to install it.

A child process hides numba (``sys.modules['numba'] = None``: ``import numba`` raises
ImportError there, as on a machine without it), runs ``update`` over a motion with a push and a
presliding joint, and writes its wrenches; this process runs the compiled step on the same
samples."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from robot_id_ros.estimate import compiled

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

SCRIPT = textwrap.dedent('''
    import json, sys
    sys.modules['numba'] = None                 # as if numba were not installed
    sys.path.insert(0, {here!r})
    import numpy as np
    from robot_id_ros.estimate import compiled
    from robot_id_ros.estimate.monitor import startup_summary
    from test_without_numba import run
    est, W = run()
    np.save({out!r}, W)
    print(json.dumps({{'compiled': compiled.COMPILED,
                       'summary': startup_summary('m.yaml', est.model, est)}}))
''')


def run():
    """Return (estimator, wrenches (N, 6)) of ``update`` over 3 s with a push at the tool."""
    from estimate_cases import BENT, measured, stamps, trajectory, youbot_friction

    from robot_id_ros.estimate import EstimatorConfig, WrenchEstimator
    from robot_id_ros.io.model_file import nominal_model
    from robot_id_ros.model.robot import youbot_model

    friction = youbot_friction()
    friction.presliding_rad = np.array([0.003, 0.0, 0.002, 0.0, 0.0])
    model = nominal_model(youbot_model(), friction)
    t, Q, QD, QDD = trajectory(BENT, 3.0, 0.2, [0.3, 0.4, 0.5, 0.6, 0.7])
    F = np.zeros((len(t), 6))
    F[(t > 1.0) & (t < 2.0), 2] = -8.0
    E = measured(model, Q, QD, QDD, F, noise_nm=0.01, seed=1)
    est = WrenchEstimator(model, EstimatorConfig(stiction_mode='hold', band_weighting=True,
                                                 friction_tracking=True))
    S = stamps(t)
    W = np.array([est.update(S[k], Q[k], QD[k], E[k]).wrench for k in range(len(t))])
    return est, W


def test_the_step_runs_as_plain_python_without_numba_with_the_same_numbers(tmp_path):
    out = tmp_path / 'wrench.npy'
    p = subprocess.run([sys.executable, '-c', SCRIPT.format(here=str(HERE), out=str(out))],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    child = json.loads(p.stdout.strip().splitlines()[-1])
    assert child['compiled'] is False and compiled.COMPILED is True
    assert 'numba is not installed' in child['summary'] and 'python3-numba' in child['summary']
    _, W = run()
    np.testing.assert_allclose(np.load(out), W, rtol=1e-9, atol=1e-9 * np.abs(W).max())
    # the push is seen (the run is not a trivial one)
    assert np.abs(W[:, 2]).max() > 6.0
