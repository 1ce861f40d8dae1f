import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')

from ros_helpers import unique_domain_id  # noqa: E402


@pytest.fixture
def ros_domain_id(monkeypatch):
    """A fresh ROS domain id for this test, also exported for subprocesses."""
    d = unique_domain_id()
    monkeypatch.setenv('ROS_DOMAIN_ID', str(d))
    monkeypatch.setenv('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    return d


@pytest.fixture
def rclpy_context(ros_domain_id):
    """An initialised rclpy Context on its own domain; shut down after the test."""
    import rclpy
    from rclpy.context import Context

    ctx = Context()
    rclpy.init(context=ctx, domain_id=ros_domain_id)
    yield ctx
    if ctx.ok():
        rclpy.shutdown(context=ctx)
