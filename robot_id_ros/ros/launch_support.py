# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the package's launch files share: flags, topic names and how a launch ends.

Each process a launch starts has a role. A ``stage`` (a recorder, the identification call) is the
launch's work: its exit 0 ends the launch with status 0. A process that ``serves`` (the
simulator, the estimator, a driver) runs until it is stopped: its clean stop (exit 0, or killed
by SIGINT / SIGTERM, as Ctrl-C in a terminal reaches every process) ends the launch with status
0. A process a stage ``needs`` (the driver under a recorder) that ends before the stage is done
fails the launch. Any non-zero exit (``robot_id_ros.ros.main``'s codes) fails it too: the
handler raises ``LaunchStageFailed`` with a one-line reason, and launch's ``LaunchService.run()``
returns 1 when an event handler raises (``ros2 launch`` exits with it). A process ending while
the launch stops anyway changes nothing.

The launch libraries are imported inside the functions that use them: this module imports on a
machine without them (tests, the CLI).
"""
from __future__ import annotations

import signal
import sys

TRUE = ('true', '1', 'yes', 'on')
# robot_id_ros.ros.main's exit codes, as a launch reports them
EXIT_MEANINGS = {1: 'its work failed', 2: 'it could not start (bad parameters or input)',
                 3: 'its work was cancelled'}
ROLES = ('stage', 'serves', 'needed')


class LaunchStageFailed(RuntimeError):
    """A process of a launch ended badly; the message is the one-line reason."""


def truthy(text) -> bool:
    """Return whether ``text`` spells true as a launch argument (true, 1, yes, on; any case)."""
    return str(text).strip().lower() in TRUE


def absolute_name(name: str, namespace: str) -> str:
    """``name`` made absolute against ``namespace`` (as a node in ``namespace`` resolves it).

    A launch that starts nodes in different namespaces (youbot_bringup: the driver in ``arm_1``)
    remaps each of them to this one absolute name, so that all of them meet on it.
    """
    if name.startswith('/'):
        return name
    if name.startswith('~'):
        raise ValueError(f'topic {name!r}: a private (~) name cannot be shared by two nodes')
    parts = [p for p in namespace.split('/') + name.split('/') if p]
    return '/' + '/'.join(parts)


def exit_outcome(label: str, returncode: int, *, role: str, shutting_down: bool):
    """Return what the exit of one process means for its launch.

    Args:
        label: the process as the reason names it (e.g. 'static_pose_recorder').
        returncode: its exit code (negative: killed by that signal).
        role: 'stage', 'serves' or 'needed' (see the module doc).
        shutting_down: the launch is stopping already (Ctrl-C, the stage done).

    Returns:
        None (nothing to do), ``('done', reason)`` or ``('failed', reason)``.
    """
    if role not in ROLES:
        raise ValueError(f'role {role!r} is not one of {", ".join(ROLES)}')
    if shutting_down:
        return None
    stopped = returncode in (-signal.SIGINT, -signal.SIGTERM)
    if returncode == 0 and role == 'stage':
        return 'done', f'{label} done'
    if (returncode == 0 or stopped) and role == 'serves':
        return 'done', f'{label} stopped'
    if returncode == 0 or stopped:
        return 'failed', f'{label} stopped before the stage was done'
    if returncode < 0:
        try:
            how = f'killed by {signal.Signals(-returncode).name}'
        except ValueError:
            how = f'killed by signal {-returncode}'
        return 'failed', f'{label} {how}'
    meaning = EXIT_MEANINGS.get(returncode, 'see its log')
    return 'failed', (f'{label} failed with exit code {returncode} ({meaning}); its log above '
                      'says why')


def on_exit_of(process, label: str, role: str = 'serves'):
    """Return the launch action that ends the launch when ``process`` exits (see ``exit_outcome``).

    Args:
        process: a launch ``ExecuteProcess`` or launch_ros ``Node`` of the same launch.
        label: how the reason names it.
        role: 'stage', 'serves' or 'needed' (see the module doc).
    """
    from launch.actions import EmitEvent, LogInfo, RegisterEventHandler
    from launch.event_handlers import OnProcessExit
    from launch.events import Shutdown

    exit_outcome(label, 0, role=role, shutting_down=True)     # a bad role fails here, not later

    def handle(event, context):
        outcome = exit_outcome(label, event.returncode, role=role,
                               shutting_down=context.is_shutdown)
        if outcome is None:
            return None
        kind, reason = outcome
        if kind == 'failed':
            raise LaunchStageFailed(reason)
        return [LogInfo(msg=reason), EmitEvent(event=Shutdown(reason=reason))]

    return RegisterEventHandler(OnProcessExit(target_action=process, on_exit=handle))


def trigger_call(service: str, label: str):
    """Return the launch action that calls the std_srvs/Trigger ``service`` once (trigger_call).

    It runs this package's ``robot_id_ros.ros.trigger_call`` with the launch's own Python, so it
    needs no ``ros2`` command line.
    """
    from launch.actions import ExecuteProcess

    return ExecuteProcess(
        cmd=[sys.executable, '-m', 'robot_id_ros.ros.trigger_call', service], name=label,
        output='screen')


__all__ = ['EXIT_MEANINGS', 'LaunchStageFailed', 'ROLES', 'TRUE', 'absolute_name', 'exit_outcome',
           'on_exit_of', 'trigger_call', 'truthy']
