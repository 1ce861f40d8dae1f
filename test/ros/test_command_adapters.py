# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The set point stream's timing figures (ROS-free part of ros/command_adapters)."""
import pytest

from robot_id_ros.ros.command_adapters import StreamTiming


def test_stream_timing_counts_sends_past_their_time_and_the_longest_pause():
    timing = StreamTiming(lead_s=0.4)
    # ROS ns late against the plan, wall s of the send
    for late_ns, wall_s in ((0, 10.0), (100_000_000, 10.02), (450_000_000, 10.12),
                            (390_000_000, 10.13), (500_000_000, 10.135)):
        timing.add(late_ns, wall_s)
    r = timing.report()
    assert r['sends'] == 5 and r['lead_s'] == 0.4
    assert r['late_max_s'] == pytest.approx(0.5)
    assert r['past_their_time'] == 2                  # 0.45 and 0.5 s late, beyond the lead
    assert r['wall_gap_max_s'] == pytest.approx(0.1)


def test_stream_timing_before_any_send():
    assert StreamTiming(0.04).report() == {'sends': 0, 'lead_s': 0.04, 'late_max_s': 0.0,
                                           'past_their_time': 0, 'wall_gap_max_s': 0.0}
