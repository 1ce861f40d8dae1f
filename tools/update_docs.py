"""Regenerate docs/nodes.md from the nodes' own declarations (robot_id_ros.ros.docs).

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


def main():
    """Writes docs/nodes.md; the nodes are instantiated on a private ROS domain of this machine."""
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               ROS_DOMAIN_ID=str(200 + os.getpid() % 30))
    text = subprocess.run([sys.executable, '-m', 'robot_id_ros.ros.docs'], check=True,
                          capture_output=True, text=True, env=env).stdout
    NODES_MD.write_text(text)
    print(f'updated {NODES_MD.relative_to(ROOT)}')


if __name__ == '__main__':
    main()
