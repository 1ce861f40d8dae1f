# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""ros.qos: a joint-state reader that is reliable while every publisher is, best effort once one
is not (real DDS on a private domain, two participants), and the Humble fallbacks."""
import pytest
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState

from robot_id_ros.ros import qos as Q
from ros_helpers import RosHarness


@pytest.fixture
def harness(rclpy_context, ros_domain_id):
    h = RosHarness(step_s=0.005)
    h.ctx, h.domain = rclpy_context, ros_domain_id
    yield h
    h.close()


def _publisher(h, reliability, depth=10):
    """A driver node in a participant of its own publishing joint states with ``reliability``."""
    node = h.add(Node('driver', context=h.private_context(h.domain)))
    return node.create_publisher(JointState, 'joint_states',
                                 QoSProfile(depth=depth, reliability=reliability))


def _reader(h, **kw):
    node = h.add(Node('reader', context=h.ctx))
    got, logs = [], []
    sub = Q.ReliabilityFollowingSubscription(node, JointState, 'joint_states', got.append, 100,
                                             log=logs.append, **kw)
    return sub, got, logs


def _deliver(h, pub, got, n=5):
    """Publish until the reader has ``n`` messages; return True when it did."""
    def step():
        msg = JointState()
        msg.name = ['j1']
        msg.position = [0.1]
        pub.publish(msg)
        return len(got) >= n
    return h.spin(until=step, timeout=20.0)


def _matched(h, pub):
    return h.spin(until=lambda: pub.get_subscription_count() > 0, timeout=20.0)


def test_reliable_while_every_publisher_is(harness):
    pub = _publisher(harness, ReliabilityPolicy.RELIABLE)
    sub, got, logs = _reader(harness)
    assert _matched(harness, pub) and _deliver(harness, pub, got)
    assert sub.reliable and not logs
    assert sub.subscription.qos_profile.reliability == ReliabilityPolicy.RELIABLE
    assert sub.topic_name == '/joint_states'


def test_best_effort_publisher_present_at_creation(harness):
    pub = _publisher(harness, ReliabilityPolicy.BEST_EFFORT)
    # the reader's participant must have discovered the publisher before it decides
    node = harness.add(Node('probe', context=harness.ctx))
    assert harness.spin(until=lambda: node.count_publishers('joint_states') > 0, timeout=20.0)
    switched = []
    got, logs = [], []
    sub = Q.ReliabilityFollowingSubscription(node, JointState, 'joint_states', got.append, 100,
                                             log=logs.append, on_switch=switched.append)
    assert not sub.reliable and len(logs) == 1 and 'best effort' in logs[0]
    assert switched == [sub.subscription]
    assert _deliver(harness, pub, got)


def test_best_effort_publisher_appearing_later_switches_once(harness):
    switched = []
    sub, got, logs = _reader(harness, on_switch=switched.append)
    assert sub.reliable
    pub = _publisher(harness, ReliabilityPolicy.BEST_EFFORT)
    # the reliable reader cannot match it: the graph check turns it best effort
    assert harness.spin(until=lambda: not sub.reliable, timeout=20.0), 'never switched'
    assert _deliver(harness, pub, got)
    assert len(logs) == 1 and switched == [sub.subscription]
    assert sub.subscription.qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT
    # a reliable publisher matches the best-effort reader too
    pub2 = _publisher(harness, ReliabilityPolicy.RELIABLE)
    n = len(got)
    assert _deliver(harness, pub2, got, n + 3)
    assert len(logs) == 1


def test_humble_publisher_events_without_matched(monkeypatch):
    class HumbleCallbacks:       # Humble's PublisherEventCallbacks: no ``matched`` argument
        def __init__(self, *, deadline=None, incompatible_qos=None, liveliness=None,
                     use_default_callbacks=True):
            pass
    monkeypatch.setattr(Q, 'PublisherEventCallbacks', HumbleCallbacks)
    assert Q.publisher_matched_callbacks(lambda info: None) is None


def test_matched_callbacks_where_rclpy_has_them():
    cb = Q.publisher_matched_callbacks(lambda info: None)
    assert cb is not None and cb.matched is not None
