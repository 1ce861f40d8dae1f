# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Deprecated: the modules of ``robot_id_ros.commands`` moved (see robot_id_ros._moved.MOVED).

Importing an old module path still works for one release, with a DeprecationWarning.
"""
from robot_id_ros import _moved

_moved.install()
