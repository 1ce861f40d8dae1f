# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Call a std_srvs/srv/Trigger service once and exit with its answer.

    python -m robot_id_ros.ros.trigger_call /identification/identify

The identification stage of identification_session.launch.py runs this in place of
``ros2 service call``: it waits for the service (``--wait-s``), calls it, waits for the answer as
long as it takes (a fit takes minutes), prints it and exits 0 when the answer is a success, 1
when it is not (its message is the reason), 2 when the service never appeared, 3 when stopped.
"""
from __future__ import annotations

import argparse
import sys

from robot_id_ros.ros.main import EXIT_BAD_INPUT, EXIT_CANCELLED, EXIT_FAILED, EXIT_OK

DEFAULT_WAIT_S = 120.0      # a node's start on a loaded machine (imports, model checks)


def call(service: str, wait_s: float = DEFAULT_WAIT_S, args=None) -> int:
    """Call ``service`` once; return the exit code (see the module doc)."""
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from std_srvs.srv import Trigger

    context = Context()
    rclpy.init(context=context, args=args)
    try:
        node = rclpy.create_node('trigger_call', context=context,
                                 start_parameter_services=False)
        client = node.create_client(Trigger, service)
        if not client.wait_for_service(timeout_sec=wait_s):
            print(f'trigger_call: service {client.srv_name} did not appear within {wait_s:g} s '
                  '(is its node running, in this namespace and ROS domain?)', file=sys.stderr)
            return EXIT_BAD_INPUT
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        future = client.call_async(Trigger.Request())
        executor.spin_until_future_complete(future)
        answer = future.result()
        if answer is None:
            print(f'trigger_call: {client.srv_name} gave no answer', file=sys.stderr)
            return EXIT_FAILED
        print(f'{client.srv_name}: {answer.message}', file=sys.stdout if answer.success
              else sys.stderr)
        return EXIT_OK if answer.success else EXIT_FAILED
    finally:
        if context.ok():
            rclpy.shutdown(context=context)


def main(argv=None) -> int:
    """Parse the command line and call the service; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('service', help='the service, e.g. /identification/identify')
    parser.add_argument('--wait-s', type=float, default=DEFAULT_WAIT_S,
                        help='how long to wait for the service to appear [s]')
    ns, ros_args = parser.parse_known_args(argv)
    from rclpy.executors import ExternalShutdownException
    try:
        return call(ns.service, ns.wait_s, args=['trigger_call'] + ros_args)
    except (KeyboardInterrupt, ExternalShutdownException):
        return EXIT_CANCELLED      # the launch stops (Ctrl-C, or its node is gone)


if __name__ == '__main__':
    sys.exit(main())
