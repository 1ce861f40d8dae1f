import pytest

from robot_id_ros.model.robot import youbot_model


@pytest.fixture(scope='module')
def robot():
    """The youBot arm model (the URDF the package ships)."""
    return youbot_model()
