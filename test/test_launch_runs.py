# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The launch files run for real (tools/run_launch_files.py), where ROS 2 launch is installed.

Skipped without the launch libraries or without the package in an ament index (this checkout's
CI: there test_launch_evaluation.py evaluates them). A few short runs: the README's push read on
its axis and stopped with Ctrl-C (status 0), the estimator without a model and the
identification stage without bags (status non-zero with the reason).
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'tools'))

from run_launch_files import missing_requirements  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.slow]
RUNS = ('sim_push', 'estimator_no_model', 'session_identification_no_bags')


def test_launch_files_run_for_real(tmp_path):
    why = missing_requirements()
    if why:
        pytest.skip(f'the launch files cannot run here: {why}')
    r = subprocess.run([sys.executable, str(ROOT / 'tools' / 'run_launch_files.py'),
                        '--workdir', str(tmp_path), '--only', *RUNS],
                       capture_output=True, text=True, timeout=1800)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith(('PASS', 'FAIL'))]
    assert len(lines) == len(RUNS) and r.returncode == 0, r.stdout + r.stderr
