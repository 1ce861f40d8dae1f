# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The estimator's compiled functions: ``compiled`` (numba's njit with its on-disk cache).

The kernels are compiled when the first estimator is made and kept in numba's on-disk cache: in
``__pycache__`` next to their module, or where that is not writable in the user's cache directory
(~/.cache/numba; ``NUMBA_CACHE_DIR`` moves it). Without numba installed (``COMPILED`` False) the
same functions run as plain Python with the same numbers, several times slower per sample
(docs/results.md); the node says so when it starts.

numba's cache checks only the file of the function it caches, but a kernel's compiled code holds
the kernels it calls from other modules (the contact rule in ``contact_rule`` for the step in
``sample_step``): edited there, the caller's cache would keep the former rule. So the kernels'
cache entries are stamped with the content of every kernel module (``KERNEL_MODULES``): an edit
to any of them recompiles them all on the next start.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

try:
    from numba import njit
except ImportError:         # the kernels run as plain Python (see the module doc)
    njit = None

# whether the kernels are compiled (numba installed)
COMPILED = njit is not None
# the modules whose functions are kernels (compiled) or define the kernels' records
KERNEL_MODULES = ('compiled', 'contact_rule', 'damped_map', 'friction_tracking', 'over_samples',
                  'sample_step', 'step_state')
_HERE = Path(__file__).resolve().parent


def kernel_stamp(paths) -> bytes:
    """Return the sha256 of the kernel modules' contents, in order: the kernels' cache stamp."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).read_bytes())
    return digest.digest()


def _kernel_files():
    return [_HERE / f'{name}.py' for name in KERNEL_MODULES]


def _is_kernel_file(py_file) -> bool:
    try:
        return Path(py_file).resolve() in _kernel_files()
    except OSError:
        return False


def _install_kernel_locators():
    """Put locators first in numba's list that stamp the kernels with every kernel module.

    Each takes only this package's kernel modules (other functions keep numba's own locators)
    and keeps numba's places: the user's cache directory if given, ``__pycache__``, else the
    user-wide cache.
    """
    from numba.core import caching

    def stamped(base):
        class KernelLocator(base):
            def get_source_stamp(self):
                return kernel_stamp(_kernel_files())

            @classmethod
            def from_function(cls, py_func, py_file):
                if not _is_kernel_file(py_file):
                    return None
                return super().from_function(py_func, py_file)

        KernelLocator.__name__ = f'Kernel{base.__name__}'
        return KernelLocator

    impl = getattr(caching, 'CacheImpl', None) or caching._CacheImpl   # its name before 0.60
    if not any(getattr(c, '__name__', '').startswith('Kernel') for c in impl._locator_classes):
        impl._locator_classes = [stamped(base) for base in (
            caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
            caching.UserWideCacheLocator)] + list(impl._locator_classes)


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


if COMPILED:
    _install_kernel_locators()
