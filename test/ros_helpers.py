# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Test helpers for real-DDS integration tests: an isolated ROS domain per test, and one harness
that spins nodes from the test thread, calls services and cleans up.
"""
import itertools
import os
import subprocess
import time

_counter = itertools.count()


def unique_domain_id():
    """A ROS domain id (1..200) distinct for every call within a test session, spread by pid so
    two pytest processes on one machine rarely collide.

    Under pytest-xdist each worker takes its own residue class modulo the worker count (worker k
    of N: ids = k mod N), so two workers never share a domain however their counters advance.
    """
    worker = os.environ.get('PYTEST_XDIST_WORKER', '')
    count = max(1, int(os.environ.get('PYTEST_XDIST_WORKER_COUNT', '1'))) if worker else 1
    index = int(worker[2:]) % count if worker[2:].isdigit() else 0
    span = 200 - 200 % count
    start = (os.getpid() * 7) % span // count * count
    return 1 + (start + index + count * next(_counter)) % span


def isolated_env(domain_id):
    """Environment for a subprocess node on ``domain_id``, discovery limited to this machine."""
    env = dict(os.environ)
    env['ROS_DOMAIN_ID'] = str(domain_id)
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    env['ROS_LOCALHOST_ONLY'] = '1' if 'ROS_LOCALHOST_ONLY' in os.environ else env.get(
        'ROS_LOCALHOST_ONLY', '')
    if not env['ROS_LOCALHOST_ONLY']:
        del env['ROS_LOCALHOST_ONLY']
    env['PYTHONUNBUFFERED'] = '1'
    return env


def stop_node(proc):
    """Terminate a node process (kill it after 10 s) and return what it printed."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.stdout.read() if proc.stdout else ''


class RosHarness:
    """Nodes spun from the test thread, with one single-threaded executor per rclpy context.

    ``private_context(domain_id)`` gives a node its own context on the same ROS domain (a second
    participant, as a separate process would be); ``close()`` destroys the nodes and shuts down the
    executors and the private contexts.
    """

    def __init__(self, step_s=0.001):
        self.step_s = step_s
        self.executors = {}        # context -> executor
        self.nodes = []
        self.contexts = []

    def private_context(self, domain_id):
        """A new initialised rclpy context on ``domain_id``, shut down by ``close()``."""
        import rclpy
        from rclpy.context import Context

        ctx = Context()
        rclpy.init(context=ctx, domain_id=domain_id)
        self.contexts.append(ctx)
        return ctx

    def add(self, node):
        """Spin ``node`` (on the executor of its context) from now on; returns it."""
        from rclpy.executors import SingleThreadedExecutor

        ex = self.executors.get(node.context)
        if ex is None:
            ex = self.executors[node.context] = SingleThreadedExecutor(context=node.context)
        ex.add_node(node)
        self.nodes.append(node)
        return node

    def spin_once(self, timeout_sec=None):
        """Let every executor run at most one callback, waiting up to ``timeout_sec`` each."""
        for ex in self.executors.values():
            ex.spin_once(timeout_sec=self.step_s if timeout_sec is None else timeout_sec)

    def spin(self, seconds=0.0, until=None, timeout=10.0):
        """Spin for ``seconds``, or until ``until()`` is true (at most ``timeout`` s).

        Returns:
            True when ``until`` became true (or none was given), False on the timeout.
        """
        end = time.monotonic() + (seconds if until is None else timeout)
        while time.monotonic() < end:
            self.spin_once()
            if until is not None and until():
                return True
        return until is None

    def call(self, client, request=None, timeout=10.0):
        """Call a service and spin until it answers; returns the response (asserts on timeouts)."""
        assert client.wait_for_service(timeout_sec=timeout), f'no service {client.srv_name}'
        fut = client.call_async(client.srv_type.Request() if request is None else request)
        assert self.spin(until=fut.done, timeout=timeout), f'{client.srv_name} did not answer'
        return fut.result()

    def close(self):
        import rclpy

        for ex in self.executors.values():
            ex.shutdown()
        for node in reversed(self.nodes):
            node.destroy_node()
        for ctx in self.contexts:
            if ctx.ok():
                rclpy.shutdown(context=ctx)
        self.executors, self.nodes, self.contexts = {}, [], []


def refuse_first_write(publisher):
    """Make ``publisher.publish`` raise as rclpy does when the middleware refuses a write (Fast
    DDS "cannot publish data"), once, then publish as before; return the list of messages passed.
    """
    real, sent = publisher.publish, []

    def publish(msg):
        sent.append(msg)
        if len(sent) == 1:
            raise RuntimeError('Failed to publish: cannot publish data, at rmw_publish.cpp')
        real(msg)
    publisher.publish = publish
    return sent
