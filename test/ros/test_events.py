# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""ros.events: the publisher ``matched`` event where rclpy has it, None on Humble's rclpy."""
from robot_id_ros.ros import events as Q


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
