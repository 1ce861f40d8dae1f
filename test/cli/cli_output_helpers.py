# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Helpers of the robot-id output tests (a module of its own: every test folder has a
conftest.py, so ``from conftest import`` would pick whichever was imported first)."""
import errno
import os


def full_disk():
    """The error a write raises on a full disk."""
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def snapshot(folder):
    """{relative path: bytes} of every file under ``folder`` (hidden ones included)."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob('*')) if p.is_file()}


def refuse_temporaries_in(monkeypatch, folder):
    """Make every temporary file or folder in ``folder`` fail with EACCES (elsewhere they work:
    a model's private URDF copy goes to the system's temporary folder)."""
    import tempfile

    def refusing(make):
        def make_in(*args, **kwargs):
            if str(kwargs.get('dir')) == str(folder):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
            return make(*args, **kwargs)
        return make_in

    monkeypatch.setattr(tempfile, 'mkstemp', refusing(tempfile.mkstemp))
    monkeypatch.setattr(tempfile, 'mkdtemp', refusing(tempfile.mkdtemp))
