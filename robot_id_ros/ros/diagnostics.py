# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""``/diagnostics`` messages from a ROS-free status: a level word, a message and key/values."""
from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

LEVELS = {'ok': DiagnosticStatus.OK, 'warn': DiagnosticStatus.WARN,
          'error': DiagnosticStatus.ERROR, 'stale': DiagnosticStatus.STALE}


def diagnostic_array(stamp, name, hardware_id, level='ok', message='',
                     values=()) -> DiagnosticArray:
    """Return a ``DiagnosticArray`` holding one status.

    Args:
        stamp: ``builtin_interfaces/Time`` of the header.
        name: the status name (by convention ``'<node>: <what>'``).
        hardware_id: the hardware the status is about.
        level: ``'ok'``, ``'warn'``, ``'error'`` or ``'stale'``.
        message: one line.
        values: ``{key: value}`` or ``(key, value)`` pairs; each value is shown as ``str(value)``.

    Returns:
        The message.
    """
    items = values.items() if isinstance(values, dict) else values
    status = DiagnosticStatus(level=LEVELS[level], name=name, hardware_id=hardware_id,
                              message=message,
                              values=[KeyValue(key=str(k), value=str(v)) for k, v in items])
    arr = DiagnosticArray(status=[status])
    arr.header.stamp = stamp
    return arr


__all__ = ['LEVELS', 'diagnostic_array']
