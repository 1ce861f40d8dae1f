# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""One ``main`` for every node: init, construct, spin, shut down, with one set of exit codes.

Exit codes: 0 a clean stop (Ctrl-C, SIGTERM, ``ros2 lifecycle``/launch shutdown, or the node's
own finished work), 1 the node's work failed, 2 it could not start (bad parameters or input: one
line on stderr), 3 its work was cancelled. A node reports 1 or 3 by setting ``exit_code``.
"""
from __future__ import annotations

import sys

import rclpy
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException

from robot_id_ros.errors import RobotIdError, one_line

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_CANCELLED = 0, 1, 2, 3


def run_node(factory, name: str, args=None, executor_factory=None) -> int:
    """Run the node ``factory()`` until shutdown and return the exit code (see the module doc).

    ``executor_factory``: makes the executor to spin with, called after ``rclpy.init`` (e.g.
    ``lambda: MultiThreadedExecutor(num_threads=2)``; default: rclpy's single-threaded one). A
    node may define ``stop()``, called before ``destroy_node`` to end its own threads.
    """
    rclpy.init(args=args)
    node = executor = None
    code = EXIT_OK
    try:
        node = factory()
        if executor_factory is None:
            rclpy.spin(node)
        else:
            executor = executor_factory()
            executor.add_node(node)
            executor.spin()
    except (RobotIdError, ParameterException, OSError) as exc:
        print(f'{name}: cannot start: {" ".join(one_line(exc).split())}', file=sys.stderr,
              flush=True)
        code = EXIT_BAD_INPUT
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:  # noqa: BLE001 - a signal shut the context down inside the executor's wait
        if rclpy.ok():
            raise
    finally:
        if executor is not None:
            executor.shutdown()
        if node is not None:
            stop = getattr(node, 'stop', None)
            if stop is not None:
                stop()
            code = code or int(getattr(node, 'exit_code', EXIT_OK))
            node.destroy_node()
        rclpy.try_shutdown()
    return code
