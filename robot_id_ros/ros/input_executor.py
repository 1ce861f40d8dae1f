# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""An executor that serves one high-rate input subscription without rclpy's per-pass overhead.

rclpy's ``SingleThreadedExecutor`` builds a new wait set for every pass (every entity of every
node entered as a context, a new ``WaitSet``), wraps each callback in a ``Task`` and triggers its
guard condition after it, which costs a second full pass per message (an empty subscriber fed
200 Hz: 0.97 ms of CPU per message with it, 0.37 ms with one kept wait set and a take loop;
``benchmarks/bench_node_cpu.py --sink single|waitset``). ``InputFirstExecutor`` keeps one wait
set with the same
entities (rebuilt only when their number changes), and when only the input subscription is
ready it calls the node's drain function directly (it takes every queued message). Anything
else that is ready (a service request, a timer, a parameter change, an executor wake-up) is
handed to the ordinary ``SingleThreadedExecutor`` pass, so those keep rclpy's semantics.
Waitables (QoS event handlers) are served by those ordinary passes (at the latest with the next
timer or service).

The node opts in with an ``input_drain`` attribute: ``(subscription, drain)``. The wait set is
rclpy's own ``WaitSet``, used the way rclpy's ``wait_for_message`` uses it (the same calls from
Humble to Kilted); when this rclpy lacks it, or no node has ``input_drain``, every pass is the
ordinary one.
"""
from __future__ import annotations

from rclpy.executors import SingleThreadedExecutor
from rclpy.utilities import timeout_sec_to_nsec

try:
    from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
    _WAIT_SET = getattr(_rclpy, 'WaitSet', None)
except ImportError:            # pragma: no cover - an rclpy without the implementation module
    _WAIT_SET = None

KINDS = ('subscription', 'guard_condition', 'timer', 'client', 'service')


class InputFirstExecutor(SingleThreadedExecutor):
    """A ``SingleThreadedExecutor`` with a direct path for one node's input subscription."""

    def __init__(self, *, context=None):
        super().__init__(context=context)
        self._wait_set = None
        self._counts = None
        self._input = None         # the input subscription, left out of the ordinary passes

    def can_execute(self, entity) -> bool:
        """Whether an ordinary pass waits on ``entity``: not on the input (drained directly).

        Otherwise a message arriving during an ordinary pass would be handled there, its
        callback's guard trigger would wake the next pass, and so on while input flows.
        """
        return entity is not self._input and super().can_execute(entity)

    def spin(self) -> None:
        """Execute callbacks until the context or the executor shuts down."""
        while self._context.ok() and not self._is_shutdown:
            self.spin_once()

    def spin_once(self, timeout_sec=None) -> None:
        """Wait for work and do it: the input's drain directly, anything else an ordinary pass.

        Args:
            timeout_sec: seconds to wait; None or negative: until something is ready.
        """
        entities = self._entities()
        if entities is None:
            super().spin_once(timeout_sec)
            return
        drain, lists = entities
        ws = self._fill(lists)
        ws.wait(timeout_sec_to_nsec(timeout_sec))
        if self._is_shutdown or not self._context.ok():
            return
        input_ready = ws.is_ready('subscription', 0)
        others = sum(len(ws.get_ready_entities(kind)) for kind in KINDS) - int(input_ready)
        if input_ready:
            drain()
        if others > 0:
            ready_guards = set(ws.get_ready_entities('guard_condition'))
            for gc in lists[1]:          # the wait took their trigger: give it back
                if gc.handle.pointer in ready_guards:
                    gc.trigger()
            for _ in range(others + 1):
                super().spin_once(0)

    def _entities(self):
        """``(drain, [subscriptions, guards, timers, clients, services])`` or None.

        The input subscription first; None when no node has ``input_drain`` or this rclpy has
        no wait set.
        """
        if _WAIT_SET is None:
            return None
        nodes = self.get_nodes()
        found = next((n.input_drain for n in nodes if getattr(n, 'input_drain', None)), None)
        if found is None:
            self._input = None
            return None
        sub, drain = found
        self._input = sub
        lists = [[sub], [], [], [], []]
        for node in nodes:
            lists[0] += [s for s in node.subscriptions if s is not sub]
            lists[1] += list(node.guards)
            lists[2] += list(node.timers)
            lists[3] += list(node.clients)
            lists[4] += list(node.services)
        lists[1] += [gc for gc in (self._guard, getattr(self, '_sigint_gc', None)) if gc]
        return drain, lists

    def _fill(self, lists):
        """Return the kept wait set, holding the entities of ``lists`` (same order as KINDS)."""
        counts = tuple(len(x) for x in lists)
        if counts != self._counts:
            subs, guards, timers, clients, services = counts
            self._wait_set = _WAIT_SET(subs, guards, timers, clients, services, 0,
                                       self._context.handle)
            self._counts = counts
        ws = self._wait_set
        ws.clear_entities()
        for sub in lists[0]:
            ws.add_subscription(sub.handle)
        for gc in lists[1]:
            ws.add_guard_condition(gc.handle)
        for tmr in lists[2]:
            ws.add_timer(tmr.handle)
        for cli in lists[3]:
            ws.add_client(cli.handle)
        for srv in lists[4]:
            ws.add_service(srv.handle)
        return ws


__all__ = ['InputFirstExecutor']
