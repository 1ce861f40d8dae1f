# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the estimation tests."""
import pytest
from estimate_cases import youbot_friction

from robot_id_ros.io.model_file import nominal_model
from robot_id_ros.model.robot import youbot_model


@pytest.fixture(scope='module')
def youbot():
    """The youBot with the test friction model (breakaway band), no residual statistics."""
    return nominal_model(youbot_model(), youbot_friction())
