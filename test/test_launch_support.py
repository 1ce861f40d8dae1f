# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot_id_ros.ros.launch_support: the names and exits the launch files share, and the
identification stage's service call (robot_id_ros.ros.trigger_call) against a real service."""
import signal
import subprocess
import sys
import threading

import pytest

from robot_id_ros.ros.launch_support import absolute_name, exit_outcome, truthy
from ros_helpers import isolated_env


@pytest.mark.parametrize('name, namespace, want', [
    ('/joint_states', 'ns1', '/joint_states'),
    ('joint_states', '', '/joint_states'),
    ('joint_trajectory_controller/joint_trajectory', 'ns1',
     '/ns1/joint_trajectory_controller/joint_trajectory'),
    ('cmd', '/a/b/', '/a/b/cmd'),
])
def test_absolute_name(name, namespace, want):
    assert absolute_name(name, namespace) == want


def test_a_private_name_is_not_shared():
    with pytest.raises(ValueError, match='private'):
        absolute_name('~/wrench', 'ns1')


def test_truthy_spellings():
    assert all(truthy(v) for v in ('true', 'True', ' 1', 'yes', 'ON'))
    assert not any(truthy(v) for v in ('false', '0', '', 'auto'))


@pytest.mark.parametrize('role, code, kind', [
    ('stage', 0, 'done'), ('serves', 0, 'done'), ('needed', 0, 'failed'),
    ('serves', -signal.SIGINT, 'done'), ('needed', -signal.SIGTERM, 'failed'),
    ('stage', -signal.SIGINT, 'failed'), ('stage', 1, 'failed'), ('serves', 2, 'failed'),
    ('needed', 3, 'failed'), ('serves', -signal.SIGSEGV, 'failed'),
])
def test_exit_outcome(role, code, kind):
    got, reason = exit_outcome('youbot_sim', code, role=role, shutting_down=False)
    assert got == kind and 'youbot_sim' in reason
    assert exit_outcome('youbot_sim', code, role=role, shutting_down=True) is None


def test_exit_reasons_say_what_happened():
    assert 'could not start' in exit_outcome('e', 2, role='serves', shutting_down=False)[1]
    assert 'SIGSEGV' in exit_outcome('e', -signal.SIGSEGV, role='serves',
                                     shutting_down=False)[1]
    with pytest.raises(ValueError, match='role'):
        exit_outcome('e', 0, role='required', shutting_down=False)


def _trigger_call(env, service, wait_s):
    return subprocess.run([sys.executable, '-m', 'robot_id_ros.ros.trigger_call', service,
                           '--wait-s', str(wait_s)], env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def trigger_service(rclpy_context):
    """A real std_srvs/Trigger service /stage/identify whose answer the test sets."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from std_srvs.srv import Trigger

    answer = {'success': True, 'message': 'model written'}
    node = rclpy.create_node('stage', context=rclpy_context)

    def handle(request, response):
        response.success, response.message = answer['success'], answer['message']
        return response
    node.create_service(Trigger, '/stage/identify', handle)
    executor = SingleThreadedExecutor(context=rclpy_context)
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield answer
    executor.shutdown()
    node.destroy_node()


@pytest.mark.integration
def test_trigger_call_exits_with_the_answer(trigger_service, ros_domain_id):
    env = isolated_env(ros_domain_id)
    ok = _trigger_call(env, '/stage/identify', 120)
    assert ok.returncode == 0 and 'model written' in ok.stdout, ok.stdout + ok.stderr
    trigger_service.update(success=False, message='no static bag in recordings_dir')
    failed = _trigger_call(env, '/stage/identify', 120)
    assert failed.returncode == 1 and 'no static bag in recordings_dir' in failed.stderr
    absent = _trigger_call(env, '/nobody/identify', 0.5)
    assert absent.returncode == 2 and 'did not appear' in absent.stderr
