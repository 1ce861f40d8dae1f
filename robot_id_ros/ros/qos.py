# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""QoS choices of the nodes, and the rclpy event API under its Humble and its later names.

``ReliabilityFollowingSubscription`` subscribes to a driver's stream (joint states) RELIABLE while
every publisher of the topic offers RELIABLE, and BEST_EFFORT once one does not, as rosbag2
records. A best-effort reader loses what the transport drops: on a loaded 2-core machine a
recorder reading the simulator best effort lost whole bursts of joint states (stamp gaps of 0.7
and 1.95 s) although its queue had room for 10 s of them. A reliable reader has the writer send
again what it missed (the simulator's writer keeps 5 s). A reliable reader does not match a
best-effort writer (``ros2_control``'s broadcaster can be configured so, many sensor drivers
are): the publishers' offers are read at creation and twice a second, and the subscription is
made again best effort, with one log line, as soon as one offers only best effort.

Humble's rclpy names the event module ``rclpy.qos_event`` (``rclpy.event_handler`` from Iron on)
and has no ``matched`` event: ``publisher_matched_callbacks`` returns None there, and the waiters
that a match would wake still wake on every joint state.
"""
from __future__ import annotations

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from rclpy.clock import Clock, ClockType

try:
    from rclpy.event_handler import PublisherEventCallbacks
except ImportError:     # Humble (rclpy 3): the module's former name
    from rclpy.qos_event import PublisherEventCallbacks

CHECK_PERIOD_S = 0.5    # how often a reliable reader reads the publishers' offers (wall s)


def publisher_matched_callbacks(on_matched):
    """Return ``PublisherEventCallbacks`` calling ``on_matched(info)`` when a subscriber matches.

    None where rclpy has no ``matched`` publisher event (Humble): pass it as a publisher's
    ``event_callbacks`` either way.
    """
    try:
        return PublisherEventCallbacks(matched=on_matched)
    except TypeError:
        return None


def stream_qos(depth: int, reliable: bool) -> QoSProfile:
    """Return the QoS of a reader of a driver's stream: keep last ``depth``, volatile."""
    return QoSProfile(depth=int(depth), durability=DurabilityPolicy.VOLATILE,
                      reliability=(ReliabilityPolicy.RELIABLE if reliable
                                   else ReliabilityPolicy.BEST_EFFORT))


def offers_best_effort(node, topic_name: str) -> bool:
    """Return True when a publisher of the (resolved) ``topic_name`` offers only best effort."""
    return any(info.qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT
               for info in node.get_publishers_info_by_topic(topic_name))


class ReliabilityFollowingSubscription:
    """A subscription that is reliable while every publisher is (see the module doc).

    Args:
        node: the rclpy node (spun elsewhere; the switch happens in its executor).
        msg_type, topic, callback: as ``Node.create_subscription``.
        depth: messages queued (keep last).
        log: called with one line when the subscription turns best effort.
        on_switch: called with the new ``rclpy`` subscription after a switch (a taker holding the
            old one's handle must take it anew).
        check_period_s: how often (steady wall clock) the publishers' offers are read.
        prefer_reliable: False: best effort from the start (a reader that wants only the newest
            sample: reliable resends to a starved process fill its transport queue, and
            best-effort samples of other topics to that process are dropped there).

    ``subscription`` is the current rclpy subscription, ``reliable`` its reliability. The offers
    are read from the ROS graph (``get_publishers_info_by_topic``, as rosbag2 does) at creation
    and every ``check_period_s`` while reliable; the graph query is cheap and needs no QoS event
    API (whose module and events differ between Humble and later rclpy).
    """

    def __init__(self, node, msg_type, topic, callback, depth, log=None, on_switch=None,
                 check_period_s=CHECK_PERIOD_S, prefer_reliable=True):
        self._node, self._type, self._topic, self._callback = node, msg_type, topic, callback
        self._depth, self._log, self._on_switch = int(depth), log, on_switch
        self.reliable = bool(prefer_reliable)
        self.subscription = self._create(self.reliable)
        self._timer = None
        if not self.reliable:
            return
        if offers_best_effort(node, self.subscription.topic_name):
            self._switch()
        else:
            self._timer = node.create_timer(check_period_s, self._check,
                                            clock=Clock(clock_type=ClockType.STEADY_TIME))

    @property
    def topic_name(self) -> str:
        """The resolved topic name."""
        return self.subscription.topic_name

    def _create(self, reliable):
        return self._node.create_subscription(self._type, self._topic, self._callback,
                                              stream_qos(self._depth, reliable))

    def _check(self) -> None:
        if offers_best_effort(self._node, self.subscription.topic_name):
            self._switch()

    def _switch(self) -> None:
        if not self.reliable:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._node.destroy_timer(self._timer)
            self._timer = None
        old = self.subscription
        self.reliable = False
        self.subscription = self._create(False)
        self._node.destroy_subscription(old)
        if self._log is not None:
            self._log(f'{self.subscription.topic_name}: a publisher offers only best effort; '
                      'subscribed best effort (samples the transport drops are lost)')
        if self._on_switch is not None:
            self._on_switch(self.subscription)


__all__ = ['CHECK_PERIOD_S', 'PublisherEventCallbacks', 'ReliabilityFollowingSubscription',
           'offers_best_effort', 'publisher_matched_callbacks', 'stream_qos']
