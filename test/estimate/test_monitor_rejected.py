# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A rejected sample arrived: the drop counter counts it as rejected, not as dropped."""
from types import SimpleNamespace

from robot_id_ros.estimate.monitor import InputMonitor

PERIOD_NS = 1_000_000           # 1 kHz
T0_NS = 1_700_000_000 * 10 ** 9
OK = SimpleNamespace(reset_reason='')


def test_rejected_samples_are_not_drops():
    m = InputMonitor(1.0, lambda kind, text: None)
    lost = {500, 1501, 1502}                        # never received
    nan = {300, 301, 1200}                          # received, then rejected (a NaN effort)
    for k in range(2000):
        stamp = T0_NS + k * PERIOD_NS
        if k in lost:
            continue
        if k in nan:
            m.rejected('nonfinite', 'joint state effort is NaN', stamp)
        elif k == 900:                              # the same stamp again: rejected, no step
            m.used(stamp, OK)
            m.rejected('duplicate_stamp', 'stamp not newer', stamp)
        else:
            m.used(stamp, OK)
    assert m.n_rejected == len(nan) + 1
    assert m.n_dropped == len(lost)
