# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The previous version of a replaced file is kept beside it, and a kept copy is never replaced."""
import errno
import os

import pytest

from robot_id_ros.io import backups
from robot_id_ros.io.backups import keep_previous
from robot_id_ros.io.files import atomic_write_text


@pytest.mark.parametrize('links', [True, False], ids=['hard link', 'copy'])
def test_each_version_is_kept_and_no_copy_is_replaced(tmp_path, monkeypatch, links):
    if not links:          # a file system without hard links
        def no_link(*args, **kwargs):
            raise OSError(errno.EPERM, os.strerror(errno.EPERM))
        monkeypatch.setattr(backups.os, 'link', no_link)
    path = tmp_path / 'model.yaml'
    kept = []
    for version in range(3):
        atomic_write_text(path, f'version {version}\n')
        os.utime(path, (1_700_000_000, 1_700_000_000))    # every version in the same second
        kept.append(keep_previous(path))
    assert [p.name for p in kept] == ['model.2023-11-14T22-13-20Z.yaml',
                                      'model.2023-11-14T22-13-20Z-2.yaml',
                                      'model.2023-11-14T22-13-20Z-3.yaml']
    atomic_write_text(path, 'version 3\n')
    assert [p.read_text() for p in kept] == [f'version {v}\n' for v in range(3)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name] + [
        p.name for p in kept])


def test_nothing_to_keep(tmp_path):
    assert keep_previous(tmp_path / 'missing.yaml') is None
    (tmp_path / 'target.yaml').write_text('theirs\n')
    (tmp_path / 'link.yaml').symlink_to(tmp_path / 'target.yaml')
    assert keep_previous(tmp_path / 'link.yaml') is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ['link.yaml', 'target.yaml']


def test_replace_keeps_the_previous_version_and_a_failed_write_leaves_all_as_it_was(tmp_path):
    path = tmp_path / 'calibration.yaml'
    assert backups.replace_keeping_previous(path, lambda p: atomic_write_text(p, 'v1\n')) is None
    kept = backups.replace_keeping_previous(path, lambda p: atomic_write_text(p, 'v2\n'))
    assert kept.read_text() == 'v1\n' and path.read_text() == 'v2\n'

    def fails(p):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    with pytest.raises(OSError):
        backups.replace_keeping_previous(path, fails)
    assert path.read_text() == 'v2\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, kept.name])
