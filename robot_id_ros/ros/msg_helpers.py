# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Message helpers the nodes need beside robot_id_ros.ros.conversions.

Joint states out, trajectory points in (times in seconds, arrays in the order the message gives),
Trigger services.
"""
from __future__ import annotations

from rclpy.serialization import deserialize_message
from sensor_msgs.msg import JointState

from robot_id_ros.ros.conversions import joint_state_fields


def duration_s(duration) -> float:
    """Return a ``builtin_interfaces/Duration`` as seconds (``sec + 1e-9 * nanosec``)."""
    return duration.sec + 1e-9 * duration.nanosec


def joint_state_msg(stamp, names, position=None, velocity=None, effort=None) -> JointState:
    """Return a ``JointState`` with the given stamp (a Time message) and joint names.

    Args:
        stamp: ``builtin_interfaces/Time`` of the sample.
        names: joint names, in the order of the arrays.
        position: positions [rad] (a list or an array), or None to leave the field empty.
        velocity: velocities [rad/s], or None.
        effort: efforts [Nm, or A for a current], or None.

    Returns:
        The message.
    """
    msg = JointState()
    msg.header.stamp = stamp
    msg.name = list(names)
    for field, values in (('position', position), ('velocity', velocity), ('effort', effort)):
        if values is not None:
            setattr(msg, field, values.tolist() if hasattr(values, 'tolist') else list(values))
    return msg


def trajectory_points(msg) -> list:
    """Return the points of a ``JointTrajectory`` as tuples.

    ``(time_from_start_s, positions, velocities, accelerations)`` tuples (lists; velocities and
    accelerations may be empty).
    """
    return [(duration_s(p.time_from_start), list(p.positions), list(p.velocities),
             list(p.accelerations)) for p in msg.points]


def message_taker(subscription, msg_type, raw=False, with_info=False):
    """Return ``take()``: the next message queued on ``subscription``.

    ``take()`` gives None when the queue is empty or the subscription is being destroyed (a
    callback draining its queue while its node shuts down); ``with_info``: ``(msg, info)``
    with its ``MessageInfo`` dict (``source_timestamp``, ``received_timestamp``, ns).

    It takes as rclpy's executors do (``handle.take_message``, the same call in the rclpy of
    Humble, Jazzy and Kilted), so a callback can work off a backlog without a pass of the
    executor per message; ``raw``: the serialized bytes. None when this rclpy has no such call
    (the executor then delivers every message).
    """
    handle = getattr(subscription, 'handle', None)
    if not hasattr(handle, 'take_message'):
        return None

    def take():
        try:
            with handle:
                taken = handle.take_message(msg_type, raw)
        except Exception as exc:      # rclpy's InvalidHandle: the subscription is being destroyed
            if type(exc).__name__ != 'InvalidHandle':
                raise
            return None
        if taken is None:
            return None
        return (taken[0], taken[1]) if with_info else taken[0]
    return take


# messages a draining callback handles before it gives the executor back (its timers and
# services): 2.5 s of the simulator at 200 Hz and 2x real time
DRAIN_BATCH = 1000


def draining_subscription(node, msg_type, topic, handle, qos, batch=DRAIN_BATCH,
                          with_info=False):
    """Subscribe ``handle(msg)`` to ``topic`` so that one executor pass works off the backlog.

    rclpy's executors take one message per subscription and pass of the wait set; a Python node
    starved of CPU then falls behind a 200-400 Hz stream for good, handling a fraction of what a
    process beside it receives. The callback here handles its message, then
    takes what is queued behind it (``message_taker``), up to ``batch`` messages per pass.

    Args:
        with_info: call ``handle(msg, info)`` with the message's ``MessageInfo`` (a dict with
            ``source_timestamp`` and ``received_timestamp``, wall ns); ``info`` is None where
            this rclpy gives no info to a callback (Humble).

    Returns:
        The subscription.
    """
    drain = [lambda: None]            # its queue_drainer, once the subscription exists
    if not with_info:
        def callback(msg):
            handle(msg)
            drain[0]()
    elif callback_takes_info():
        def callback(msg, info):
            handle(msg, info)
            drain[0]()
    else:
        def callback(msg):
            handle(msg, None)
            drain[0]()
    subscription = node.create_subscription(msg_type, topic, callback, qos)
    drain[0] = queue_drainer(subscription, msg_type, handle, batch, with_info)
    return subscription


def queue_drainer(subscription, msg_type, handle, batch=DRAIN_BATCH, with_info=False):
    """Return ``drain()``: ``handle`` up to ``batch`` messages already queued on ``subscription``.

    ``handle(msg)``, or ``handle(msg, info)`` with ``with_info`` (see ``message_taker``).
    ``drain()`` does nothing where this rclpy cannot take messages itself.
    """
    take = message_taker(subscription, msg_type, with_info=with_info)

    def drain():
        for _ in range(batch if take is not None else 0):
            queued = take()
            if queued is None:
                return
            handle(*queued) if with_info else handle(queued)
    return drain


def callback_takes_info() -> bool:
    """Whether this rclpy passes ``MessageInfo`` to a two-argument callback (Iron and later)."""
    from rclpy.subscription import Subscription
    return hasattr(Subscription, 'CallbackType')


def joint_state_taker(subscription):
    """Return ``take()``: the next JointState queued on ``subscription`` as plain fields.

    It takes from the subscription as rclpy's executors do (``handle.take_message``, the same
    call in the rclpy of Humble, Jazzy and Kilted), so a callback can work off a backlog without
    a pass of the executor (its wait set) per message. The message is taken serialized and read
    by ``conversions.joint_state_fields`` (no message object is built; an unusual encoding is
    deserialised by rclpy). ``take()`` returns ``(stamp_sec, stamp_nanosec, names, position,
    velocity, effort)`` or None when the queue is empty.

    Args:
        subscription: an ``rclpy.subscription.Subscription`` of ``sensor_msgs/JointState``.

    Returns:
        The function, or None when this rclpy has no such call (the executor then delivers
        every message).
    """
    take_raw = message_taker(subscription, JointState, raw=True)
    if take_raw is None:
        return None
    names_cache = {}

    def take():
        data = take_raw()
        if data is None:
            return None
        fields = joint_state_fields(data, names_cache)
        if fields is None:
            msg = deserialize_message(data, JointState)
            fields = (msg.header.stamp.sec, msg.header.stamp.nanosec, msg.name, msg.position,
                      msg.velocity, msg.effort)
        return fields
    return take


def trigger_handler(action, on_success=None):
    """Return a ``std_srvs/Trigger`` service callback.

    Args:
        action: called for each request; returns ``(success, message)`` for the response.
        on_success: called with the message after a successful action (e.g. a logger's info).

    Returns:
        The callback for ``Node.create_service``.
    """
    def handle(request, response):
        response.success, response.message = action()
        if response.success and on_success is not None:
            on_success(response.message)
        return response
    return handle


__all__ = ['draining_subscription', 'duration_s', 'joint_state_msg', 'joint_state_taker',
           'queue_drainer', 'trajectory_points', 'trigger_handler']
