# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The former ``recording`` module, kept as an alias.

Split into ``safety``, ``poses``, ``motions``, ``settle``, ``sweeps``, ``monitors`` (this package)
and ``robot_id_ros.io.parted_bag``.

Kept so that ``robot_id_ros.record.recording`` (and the old ``robot_id_ros.core.recording``)
still import, with every name the package exports; new code imports from ``robot_id_ros.record``.
"""
from robot_id_ros.record import *  # noqa: F401,F403
from robot_id_ros.record import __all__  # noqa: F401
