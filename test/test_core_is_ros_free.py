import subprocess
import sys
from pathlib import Path

import robot_id_ros.core as core


def test_importing_the_core_does_not_import_rclpy():
    mods = sorted(p.stem for p in Path(core.__file__).parent.glob('*.py') if p.stem != '__init__')
    mods += sorted(p.stem for p in (Path(core.__file__).parent.parent / 'sim').glob('*.py') if p.stem != '__init__')
    code = ('import sys\n'
            + ''.join(f'import robot_id_ros.core.{m}\n' for m in mods if (Path(core.__file__).parent / f'{m}.py').exists())
            + ''.join(f'import robot_id_ros.sim.{m}\n' for m in mods
                      if (Path(core.__file__).parent.parent / 'sim' / f'{m}.py').exists())
            + "bad = [m for m in sys.modules if m.split('.')[0] in ('rclpy', 'rosidl_runtime_py', 'rcl_interfaces')]\n"
            + 'assert not bad, bad\nprint(len(sys.modules))\n')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(mods) >= 8
