# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
import pytest

from robot_id_ros.model.robot import youbot_model


@pytest.fixture(scope='module')
def robot():
    """The youBot arm model (the URDF the package ships)."""
    return youbot_model()
