# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The rclpy event API under its Humble and its later names.

Humble's rclpy names the event module ``rclpy.qos_event`` (``rclpy.event_handler`` from Iron on)
and has no ``matched`` event: ``publisher_matched_callbacks`` returns None there, and the waiters
that a match would wake still wake on every joint state.
"""
from __future__ import annotations

try:
    from rclpy.event_handler import PublisherEventCallbacks
except ImportError:     # Humble (rclpy 3): the module's former name
    from rclpy.qos_event import PublisherEventCallbacks


def publisher_matched_callbacks(on_matched):
    """Return ``PublisherEventCallbacks`` calling ``on_matched(info)`` when a subscriber matches.

    None where rclpy has no ``matched`` publisher event (Humble): pass it as a publisher's
    ``event_callbacks`` either way.
    """
    try:
        return PublisherEventCallbacks(matched=on_matched)
    except TypeError:
        return None


__all__ = ['PublisherEventCallbacks', 'publisher_matched_callbacks']
