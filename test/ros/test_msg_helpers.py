# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""msg_helpers.draining_subscription (and the commander built on it): one executor pass works off
the queued backlog, over real DDS on a private domain."""
import time

import pytest

from robot_id_ros.ros.commander import ArmCommander
from robot_id_ros.ros.msg_helpers import draining_subscription

BACKLOG = 300


def _queue_backlog(ctx, msg_type, topic, count, make):
    """Publish ``count`` messages on ``topic`` from a node of its own; wait until queued."""
    from rclpy.node import Node
    from rclpy.qos import QoSProfile

    pub_node = Node('publisher', context=ctx)
    pub = pub_node.create_publisher(msg_type, topic, QoSProfile(depth=count))
    deadline = time.monotonic() + 20.0
    while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pub.get_subscription_count() == 1, 'the subscription never matched'
    for k in range(count):
        pub.publish(make(k))
    # reliable: every message acknowledged by the subscription is in its queue (no wall margin)
    from rclpy.duration import Duration
    assert pub.wait_for_all_acked(Duration(seconds=60.0)), 'the backlog was not delivered'
    return pub_node


def _one_pass(ctx, node):
    from rclpy.executors import SingleThreadedExecutor

    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(node)
    ex.spin_once(timeout_sec=5.0)
    ex.remove_node(node)


def test_one_executor_pass_handles_the_whole_backlog(rclpy_context):
    from rclpy.node import Node
    from rclpy.qos import QoSProfile
    from std_msgs.msg import Int32

    node = Node('drained', context=rclpy_context)
    got = []
    draining_subscription(node, Int32, 'numbers', lambda m: got.append(m.data),
                          QoSProfile(depth=BACKLOG))
    pub_node = _queue_backlog(rclpy_context, Int32, 'numbers', BACKLOG,
                              lambda k: Int32(data=k))
    _one_pass(rclpy_context, node)
    # in order, none lost, in one pass (an executor alone takes one message per pass)
    assert got == list(range(BACKLOG))
    pub_node.destroy_node()
    node.destroy_node()


def test_batch_bounds_one_pass(rclpy_context):
    from rclpy.node import Node
    from rclpy.qos import QoSProfile
    from std_msgs.msg import Int32

    node = Node('drained', context=rclpy_context)
    got = []
    draining_subscription(node, Int32, 'numbers', lambda m: got.append(m.data),
                          QoSProfile(depth=BACKLOG), batch=49)
    pub_node = _queue_backlog(rclpy_context, Int32, 'numbers', BACKLOG,
                              lambda k: Int32(data=k))
    _one_pass(rclpy_context, node)
    assert got == list(range(50))       # the executor's message and 49 taken behind it
    pub_node.destroy_node()
    node.destroy_node()


def test_commander_listeners_see_a_backlog_in_one_pass(rclpy_context):
    """A recorder (a commander listener) starved of CPU catches up in one pass, losing nothing."""
    from rclpy.node import Node
    from sensor_msgs.msg import JointState

    node = Node('commander', context=rclpy_context)
    commander = ArmCommander(node, ('j1', 'j2'), command_topic='cmd', queue_depth=BACKLOG)
    stamps = []
    commander.add_listener(lambda stamp, msg, sample: stamps.append(stamp))

    def joint_state(k):
        msg = JointState(name=['j1', 'j2'], position=[0.01 * k, 0.0], velocity=[0.0, 0.0],
                         effort=[0.0, 0.0])
        msg.header.stamp.sec, msg.header.stamp.nanosec = 100, 1000 * (k + 1)
        return msg
    pub_node = _queue_backlog(rclpy_context, JointState, 'joint_states', BACKLOG,
                              joint_state)
    _one_pass(rclpy_context, node)
    assert stamps == [100 * 10 ** 9 + 1000 * (k + 1) for k in range(BACKLOG)]
    assert commander.latest().q[0] == pytest.approx(0.01 * (BACKLOG - 1))
    commander.cancel()
    pub_node.destroy_node()
    node.destroy_node()


def test_take_after_destruction_is_none_not_an_error(rclpy_context):
    """A callback draining its queue while the node is destroyed ends quietly (the demo director
    printed an InvalidHandle traceback from its spin thread at shutdown)."""
    from rclpy.node import Node
    from rclpy.qos import QoSProfile
    from std_msgs.msg import Int32

    from robot_id_ros.ros.msg_helpers import message_taker

    node = Node('drained', context=rclpy_context)
    sub = node.create_subscription(Int32, 'numbers', lambda m: None, QoSProfile(depth=5))
    take = message_taker(sub, Int32)
    assert take() is None
    node.destroy_subscription(sub)
    assert take() is None
    node.destroy_node()


def test_with_info_gives_each_message_its_source_timestamp(rclpy_context):
    """The executor's message and the ones taken behind it all come with their MessageInfo (the
    director orders a contact flag among the estimates by it)."""
    from rclpy.node import Node
    from rclpy.qos import QoSProfile
    from std_msgs.msg import Int32

    from robot_id_ros.ros.msg_helpers import callback_takes_info

    node = Node('drained', context=rclpy_context)
    got = []
    draining_subscription(node, Int32, 'numbers', lambda m, info: got.append((m.data, info)),
                          QoSProfile(depth=BACKLOG), with_info=True)
    before = time.time_ns()
    pub_node = _queue_backlog(rclpy_context, Int32, 'numbers', BACKLOG,
                              lambda k: Int32(data=k))
    _one_pass(rclpy_context, node)
    assert [d for d, _ in got] == list(range(BACKLOG))
    infos = got if callback_takes_info() else got[1:]     # Humble: the first has no info
    sources = [info['source_timestamp'] for _, info in infos]
    assert sources == sorted(sources) and before <= sources[0] <= time.time_ns()
    pub_node.destroy_node()
    node.destroy_node()
