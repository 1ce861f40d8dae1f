# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The package's errors, under one base, ``RobotIdError``.

With one base, callers (the CLI, the nodes) catch what this package raises on purpose and let real
bugs surface as tracebacks.

- ``InputError`` is bad input: a file, a message, a parameter, an argument. It stays a
  ``ValueError`` so code written against the earlier per-module ``ValueError`` types keeps working.
- ``OperationError`` is an operation that could not finish (a recording aborted, the demo failed).

Every error carries a structured ``kind`` (a short snake_case word a program can switch on) besides
its one-line message; a subclass sets a default ``kind`` and a raise site may give a finer one.
"""
from __future__ import annotations


class RobotIdError(Exception):
    """Base of every error this package raises on purpose."""

    kind = 'error'

    def __init__(self, message: str = '', kind: str | None = None):
        super().__init__(message)
        if kind is not None:
            self.kind = kind


class InputError(RobotIdError, ValueError):
    """Bad input; the message names the problem and the fix."""

    kind = 'input'


class OperationError(RobotIdError, RuntimeError):
    """An operation that could not complete; the message says why."""

    kind = 'operation'


def one_line(exc: BaseException) -> str:
    """Return the first line of an error's message, or its type name when the message is empty."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
