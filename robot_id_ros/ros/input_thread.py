# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A subscription served by a thread of its own: one wait per batch, no executor pass.

rclpy's executors rebuild their wait set in Python on every pass (every entity of the node:
parameter services, timers, guard conditions), which costs more than the estimator's own work
per sample at 1 kHz. ``InputThread`` waits on the one subscription with rclpy's own wait set,
used the way ``rclpy.wait_for_message`` uses it (``WaitSet(1, 1, 0, 0, 0, 0, context)``,
``clear_entities``, ``add_subscription``, ``add_guard_condition``, ``wait``: the same calls in
the rclpy of Humble, Jazzy and Kilted), and hands each wake-up to a callback that takes every
queued message (``msg_helpers.joint_state_taker``). When messages come faster than 2 /
``batch_period_s`` (a running mean of the interval, as the executor path's batching) it sleeps
for the rest of ``batch_period_s`` after each wake-up, so a 1 kHz input wakes it every
``batch_period_s`` and not per message. The subscription's callback group must keep the
executor away from it (``InputGroup`` with ``batched`` set).
"""
from __future__ import annotations

import threading
import time

from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy

# the longest wait: a stop is seen within it (and at once through the guard condition)
WAIT_TIMEOUT_NS = 500_000_000


def input_thread_available() -> bool:
    """Return True when this rclpy has the wait-set calls ``InputThread`` makes."""
    ws, gc = getattr(_rclpy, 'WaitSet', None), getattr(_rclpy, 'GuardCondition', None)
    return ws is not None and gc is not None and all(
        hasattr(ws, name) for name in ('clear_entities', 'add_subscription',
                                       'add_guard_condition', 'wait'))


class InputThread:
    """Wait for messages on ``subscription`` in a thread and call ``on_wake()`` for them.

    Args:
        subscription: the ``rclpy.subscription.Subscription`` (left out of the executor).
        context: its ``rclpy.context.Context``.
        on_wake: called in the thread when messages are queued; takes them all and returns how
            many it took.
        batch_period_s: above 2 / this rate, one wake-up per this period (0: per message).
        on_error: called with an exception ``on_wake`` raised (the thread goes on).

    Raises:
        Exception: whatever rclpy raises when its wait-set calls differ from those used here
            (each is made once at construction): take the input through the executor then.
    """

    def __init__(self, subscription, context, on_wake, batch_period_s, on_error):
        self._sub, self._context = subscription, context
        self._on_wake, self._on_error = on_wake, on_error
        self.batch_period_s = float(batch_period_s)
        self._stop = threading.Event()
        self._guard = _rclpy.GuardCondition(context.handle)
        with context.handle:
            self._wait_set = _rclpy.WaitSet(1, 1, 0, 0, 0, 0, context.handle)
        self._wait(0)        # every call once here: a mismatch raises now, not in the thread
        self.batched = False           # sleeping out the batch period after each wake-up
        self._thread = threading.Thread(target=self._run, name='input', daemon=True)

    def _wait(self, timeout_ns):
        """Wait until a message is queued, the guard is triggered or ``timeout_ns`` passed."""
        ws = self._wait_set
        ws.clear_entities()
        with self._sub.handle:
            ws.add_subscription(self._sub.handle)
        ws.add_guard_condition(self._guard)
        ws.wait(timeout_ns)

    def start(self):
        """Start the thread."""
        self._thread.start()

    def stop(self):
        """Stop the thread and wait for it (before the subscription is destroyed)."""
        self._stop.set()
        try:
            self._guard.trigger_guard_condition()
        except Exception:  # noqa: BLE001 - the context is already shut down: the wait ends
            pass
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)

    def _run(self):
        last_wake_s, interval_s = -1.0, self.batch_period_s
        while not self._stop.is_set():
            try:
                self._wait(WAIT_TIMEOUT_NS)
            except Exception:  # noqa: BLE001 - the context or the subscription is gone
                return
            if self._stop.is_set():
                return
            now = time.monotonic()
            try:
                taken = self._on_wake()
            except Exception as exc:  # noqa: BLE001 - a bug: reported, the input goes on
                if not self._context.ok():
                    return
                self._on_error(exc)
                taken = 0
            if taken == 0:       # a timeout: the input paused, start the interval afresh
                last_wake_s, interval_s, self.batched = -1.0, self.batch_period_s, False
                continue
            if last_wake_s >= 0.0:
                interval_s += 0.5 * ((now - last_wake_s) / taken - interval_s)
            last_wake_s = now
            self.batched = interval_s < 0.5 * self.batch_period_s
            if self.batched:     # fast input: wake again when the batch period is over
                self._stop.wait(now + self.batch_period_s - time.monotonic())
