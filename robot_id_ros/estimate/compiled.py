# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The estimator's compiled functions: ``compiled`` (numba's njit with its on-disk cache).

The kernels are compiled when the first estimator is made and kept in numba's on-disk cache: in
``__pycache__`` next to their module, or where that is not writable in the user's cache directory
(~/.cache/numba; ``NUMBA_CACHE_DIR`` moves it). Without numba installed (``COMPILED`` False) the
same functions run as plain Python with the same numbers, several times slower per sample
(docs/results.md); the node says so when it starts.
"""
from __future__ import annotations

try:
    from numba import njit
except ImportError:         # the kernels run as plain Python (see the module doc)
    njit = None

# whether the kernels are compiled (numba installed)
COMPILED = njit is not None


def compiled(func):
    """Return ``numba.njit(func)`` with its on-disk cache, if numba finds a writable place for it.

    Without one, each process compiles the kernels again.
    """
    if njit is None:
        return func
    try:
        return njit(cache=True)(func)
    except RuntimeError:        # numba: no locator available (no writable cache directory)
        return njit(func)
