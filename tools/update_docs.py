# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Regenerate docs/nodes.md and the settings' comments in config/*.yaml.

docs/nodes.md from the nodes' own declarations (robot_id_ros.ros.docs), and the comments of the
settings in config/*.yaml from their declarations (robot_id_ros.settings).

    python tools/update_docs.py        (or: make docs)

The node tables live only in docs/nodes.md; README.md links to it (test/test_readme_tables.py
checks both).
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODES_MD = ROOT / 'docs' / 'nodes.md'


def settings_files():
    """(parameters file, settings dataclass) pairs whose comments are generated."""
    from robot_id_ros.control import ControllerConfig
    from robot_id_ros.estimate import EstimatorConfig
    from robot_id_ros.identify import IdentificationOptions
    from robot_id_ros.record import SafetyLimits
    from robot_id_ros.sim.config import SimConfig
    config = ROOT / 'config'
    return [(config / 'wrench_estimator.yaml', EstimatorConfig),
            (config / 'identification.yaml', IdentificationOptions),
            (config / 'youbot_sim.yaml', SimConfig),
            (config / 'force_controller.yaml', ControllerConfig),
            *[(config / f'{name}_recorder.yaml', SafetyLimits)
              for name in ('static_pose', 'trajectory', 'friction_sweep')]]


def update_settings_comments():
    """Rewrite the generated comments of each settings file; returns the files changed."""
    from robot_id_ros.ros.parameter_files import annotate_params_file
    changed = []
    for path, cls in settings_files():
        text = path.read_text()
        new = annotate_params_file(text, cls)
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed


def main():
    """Write docs/nodes.md; the nodes are instantiated on a private ROS domain of this machine."""
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               ROS_DOMAIN_ID=str(200 + os.getpid() % 30))
    text = subprocess.run([sys.executable, '-m', 'robot_id_ros.ros.docs'], check=True,
                          capture_output=True, text=True, env=env).stdout
    NODES_MD.write_text(text)
    print(f'updated {NODES_MD.relative_to(ROOT)}')
    for path in update_settings_comments():
        print(f'updated {path.relative_to(ROOT)}')


if __name__ == '__main__':
    main()
