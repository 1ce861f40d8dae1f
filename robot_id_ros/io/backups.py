# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Keep the previous version of a file before it is replaced (``keep_previous``).

The copy sits beside the file and is named after the time the previous version was written
(``model.2026-01-31T12-00-00Z.yaml``; ``-2``, ``-3``... when that name is taken). It is made
without ever replacing an existing entry: a hard link to the same content where the file system
allows it, else a complete copy renamed onto a name this process created itself. The caller
then replaces the file atomically (a new file renamed onto it), so the kept copy never changes.
"""
from __future__ import annotations

import errno
import os
import shutil
import time
from pathlib import Path

from robot_id_ros.io.files import fsync_dir, new_temp, remove_path

MAX_SAME_SECOND = 1000     # backups of versions written in the same second (-2, -3, ...)


def backup_names(path):
    """Yield the candidate names of the copy of ``path``'s current version, in order."""
    path = Path(path)
    stamp = time.strftime('%Y-%m-%dT%H-%M-%SZ', time.gmtime(path.lstat().st_mtime))
    yield path.with_name(f'{path.stem}.{stamp}{path.suffix}')
    for k in range(2, MAX_SAME_SECOND + 1):
        yield path.with_name(f'{path.stem}.{stamp}-{k}{path.suffix}')


def keep_previous(path):
    """Keep the current version of ``path`` under a new name beside it.

    Only a regular file is kept: a missing path, or a symbolic link (a replace renames a new
    file onto the link itself and leaves its target as it was), gives None.

    Args:
        path: the file about to be replaced.

    Returns:
        The kept copy's path, or None when there was nothing to keep.

    Raises:
        OSError: no free name, or the copy could not be made (the file is left as it was).
    """
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        return None
    for name in backup_names(path):
        try:
            os.link(path, name, follow_symlinks=False)   # fails on any existing entry
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            return _copy_previous(path)
        fsync_dir(path.parent)
        return name
    raise FileExistsError(errno.EEXIST, f'no free backup name beside {path}')


def _copy_previous(path):
    """``keep_previous`` where hard links are refused: a full copy renamed onto a reserved name."""
    tmp = new_temp(path)
    try:
        shutil.copy2(path, tmp)
        with open(tmp, 'rb+') as f:
            os.fsync(f.fileno())
        for name in backup_names(path):
            try:    # reserve the name: created here, so the rename replaces only our own entry
                os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                continue
            os.replace(tmp, name)
            fsync_dir(path.parent)
            return name
        raise FileExistsError(errno.EEXIST, f'no free backup name beside {path}')
    finally:
        remove_path(tmp)


def replace_keeping_previous(path, write):
    """Replace ``path`` by ``write(path)`` (an atomic write), its previous version kept beside it.

    Returns:
        The kept copy's path, or None when there was nothing to keep.

    Raises:
        Whatever ``keep_previous`` or ``write`` raises; when ``write`` fails, ``path`` is as it
        was and the copy, a mere duplicate, is removed.
    """
    kept = keep_previous(path)
    try:
        write(path)
    except BaseException:
        if kept is not None:
            remove_path(kept)
        raise
    return kept
