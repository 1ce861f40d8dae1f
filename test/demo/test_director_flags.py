# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The demo director stamps a contact flag with the sample it was published after."""
from robot_id_ros.demo.director import flag_sample_stamp


def test_the_flag_belongs_to_the_estimate_written_just_before_it():
    stamps = [10.000, 10.005, 10.010, 10.015, 10.020]
    sources = [1000, 2000, 3000, 4000, 5000]          # the writer's wall ns
    # the flag was written after the estimate of 10.005, before that of 10.010; by the time
    # the director handles it, three more estimates have been received
    assert flag_sample_stamp(stamps, sources, 2500) == 10.005
    assert flag_sample_stamp(stamps, sources, 5000) == 10.020
    # a flag before every estimate received (its estimate was lost): the first one
    assert flag_sample_stamp(stamps, sources, 500) == 10.000


def test_without_source_timestamps_the_newest_estimate():
    assert flag_sample_stamp([1.0, 2.0], [None, None], None) == 2.0
    assert flag_sample_stamp([1.0, 2.0], [10, 20], None) == 2.0
    assert flag_sample_stamp([], [], 5) is None
