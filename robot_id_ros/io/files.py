"""File helpers shared by the core: YAML-safe plain values and crash-safe (atomic) writes."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np


def to_plain(obj):
    """numpy scalars/arrays, tuples and paths to plain Python values that yaml.safe_dump writes."""
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_plain(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj


def fsync_dir(path):
    """Flush a directory entry (after a rename) where the platform allows it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path, text):
    """Write ``text`` to ``path`` through a temporary file, fsync'd and renamed into place: a crash
    leaves either the old file or the new one, never half of one."""
    path = Path(path)
    tmp = path.with_name(path.name + '.tmp')
    with open(tmp, 'w') as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)
