# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``python -m robot_id_ros.cli``: the robot-id command."""
import sys

from robot_id_ros.cli.main import main

sys.exit(main())
