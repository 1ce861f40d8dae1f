# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The youBot driver's interface packages (brics_actuator, control_msgs) for tests.

``built_interfaces()`` builds them once with tools/build_interfaces.py (cached by the definitions'
hash under .cache/interfaces, so later sessions reuse the build) and returns their install folder;
``with_interfaces(env, install)`` extends a subprocess environment so its nodes import them. The
test process itself never imports them: the nodes under test run as subprocesses.
"""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location('build_interfaces',
                                                  ROOT / 'tools' / 'build_interfaces.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def built_interfaces():
    """Return the install folder of the built packages; skip when the tools are absent."""
    tool = _tool()
    try:
        return tool.build(verbose=True)
    except tool.BuildToolsMissing as exc:
        pytest.skip(f'cannot build brics_actuator / control_msgs here: {exc}')


def with_interfaces(env, install):
    """Return ``env`` (a dict) extended so subprocess nodes import the built packages."""
    return _tool().runtime_env(install, base=env)
