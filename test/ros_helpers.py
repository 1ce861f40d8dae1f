"""Test helpers for real-DDS integration tests: an isolated ROS domain per test."""
import itertools
import os

_counter = itertools.count()


def unique_domain_id():
    """A ROS domain id (1..200) distinct for every call within a test session, spread by pid so
    two pytest processes on one machine rarely collide."""
    return 1 + (os.getpid() * 7 + next(_counter)) % 200


def isolated_env(domain_id):
    """Environment for a subprocess node on ``domain_id``, discovery limited to this machine."""
    env = dict(os.environ)
    env['ROS_DOMAIN_ID'] = str(domain_id)
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    env['ROS_LOCALHOST_ONLY'] = '1' if 'ROS_LOCALHOST_ONLY' in os.environ else env.get('ROS_LOCALHOST_ONLY', '')
    if not env['ROS_LOCALHOST_ONLY']:
        del env['ROS_LOCALHOST_ONLY']
    env['PYTHONUNBUFFERED'] = '1'
    return env
