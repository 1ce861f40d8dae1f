"""Regenerate docs/nodes.md from the nodes' own declarations and paste it into README.md.

    python tools/update_docs.py        (or: make docs)
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = '<!-- nodes:begin -->', '<!-- nodes:end -->'


def main():
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST', ROS_DOMAIN_ID=str(200 + os.getpid() % 30))
    text = subprocess.run([sys.executable, '-m', 'robot_id_ros.ros.docs'], check=True, capture_output=True,
                          text=True, env=env).stdout
    (ROOT / 'docs' / 'nodes.md').write_text(text)
    readme = (ROOT / 'README.md').read_text()
    i, j = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    (ROOT / 'README.md').write_text(readme[:i] + '\n' + text.strip('\n') + '\n' + readme[j:])
    print('updated docs/nodes.md and README.md')


if __name__ == '__main__':
    main()
