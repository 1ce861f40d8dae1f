# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Writes the middleware refuses: counted and reported, never fatal to a node.

Fast DDS refused a write under heavy CPU load (rclpy raised ``RCLError: Failed to publish:
cannot publish data``); the exception ended the simulator in the middle of a demo. A driver or an
estimator keeps publishing: the refused message is lost, the next one goes out.
"""
from __future__ import annotations


class RefusedWrites:
    """Run writes of a node; a refused one is counted and passed to ``report(text)``.

    Attributes:
        count: writes refused so far.
    """

    def __init__(self, node, report):
        """Guard the writes of ``node``.

        Args:
            node: the rclpy node (a write refused while it shuts down is raised).
            report: callable taking one line that names the write and the middleware's reason.
        """
        self.node = node
        self.report = report
        self.count = 0

    def write(self, what, publish, *args) -> bool:
        """Call ``publish(*args)``; return False (counted, reported) when the middleware refused.

        Args:
            what: what is written, for the report (a topic name, 'an output').
            publish: the call that writes (``publisher.publish`` or a function publishing
                several messages).
        """
        try:
            publish(*args)
            return True
        except RuntimeError as exc:     # rclpy's RCLError (every distro: a RuntimeError)
            if not self.node.context.ok():      # shutting down: let it end the node
                raise
            self.count += 1
            self.report(f'{what}: the middleware refused a message ({self.count} so far): '
                        f'{" ".join(str(exc).split())}')
            return False


__all__ = ['RefusedWrites']
