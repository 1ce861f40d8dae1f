# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The one-command demo: the whole pipeline on the simulated youBot over real DDS."""
