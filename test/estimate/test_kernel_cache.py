# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The compiled kernels' cache follows every kernel module, not only the kernel's own file.

A kernel's compiled code holds the kernels it calls from other modules; numba stamps a cache
entry with its own file only, so an edit to the contact rule would leave the step's cached code
with the former rule. ``compiled`` stamps the kernels with all their modules.
"""
import pytest

from robot_id_ros.estimate import compiled

pytestmark = pytest.mark.skipif(not compiled.COMPILED, reason='numba is not installed')


def test_the_stamp_changes_with_any_kernel_module(tmp_path):
    files = []
    for name in compiled.KERNEL_MODULES:
        f = tmp_path / f'{name}.py'
        f.write_text(f'# {name}\n')
        files.append(f)
    before = compiled.kernel_stamp(files)
    for f in files:
        f.write_text(f.read_text() + 'X = 1\n')
        after = compiled.kernel_stamp(files)
        assert after != before
        before = after


def test_every_kernel_is_cached_under_the_stamp_of_all_kernel_modules():
    from robot_id_ros.estimate import contact_rule, over_samples, sample_step

    kernels = [sample_step.run_sample, sample_step.uncertainty, contact_rule.contact_scores,
               over_samples.contact_scores_over]
    stamp = compiled.kernel_stamp(compiled._kernel_files())
    for kernel in kernels:
        locator = kernel._cache._impl._locator
        assert type(locator).__name__.startswith('Kernel'), kernel
        assert locator.get_source_stamp() == stamp
    # functions of other modules keep numba's own locators
    import numba

    other = numba.njit(cache=True)(lambda x: x + 1)
    assert not type(other._cache._impl._locator).__name__.startswith('Kernel')
