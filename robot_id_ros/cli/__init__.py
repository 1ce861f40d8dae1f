# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The ``robot-id`` command line.

``main`` parses the subcommand, one module per subcommand (``add_parser(subparsers)`` and
``run(args) -> exit code``).
"""
from robot_id_ros.cli.main import main

__all__ = ['main']
