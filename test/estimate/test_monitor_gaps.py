# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The estimator node's drop counter counts the samples really missing from the stamp sequence.

Synthetic 1 kHz stamp sequences with known gaps, a bunched first step, a duplicate, timing
jitter, an observer reset and a sustained random loss: ``dropped_samples`` must equal the number
of samples taken out.
"""
from types import SimpleNamespace

import numpy as np

from robot_id_ros.estimate.monitor import InputMonitor

PERIOD_NS = 1_000_000           # 1 kHz
T0_NS = 1_700_000_000 * 10 ** 9
# the fields of an estimator result that InputMonitor reads (a sample at rest, no contact)
OK = SimpleNamespace(reset_reason='', damped=False, sigma_min=0.1, contact_state=0,
                     contact_score=0.0, wrench_covariance=np.eye(6))
EST = SimpleNamespace(config=SimpleNamespace(method='momentum'), frame_id='arm_link_0',
                      mapper=SimpleNamespace(mapping=SimpleNamespace(label='force')),
                      bias=np.zeros(5))


def monitor():
    return InputMonitor(1.0, lambda kind, text: None)


def jittered(index, rng, jitter_ns=200_000):
    """Stamps of the samples ``index`` of a 1 kHz sequence, each moved by up to +-jitter_ns."""
    return [T0_NS + int(k) * PERIOD_NS + int(rng.integers(-jitter_ns, jitter_ns + 1))
            for k in index]


def test_known_gaps_counted_exactly():
    rng = np.random.default_rng(3)
    removed = {4, 5, 300, 301, 302, 700, 1200, *range(2000, 2010), 2500}  # 18 samples
    index = [k for k in range(3000) if k not in removed]
    stamps = jittered(index, rng)
    # the driver's first two samples came 0.15 ms apart (bunched at start)
    stamps[0] = stamps[1] - 150_000
    m = monitor()
    for k, s in enumerate(stamps):
        m.used(s, OK)
        if k == 1000:
            m.used(s, OK)              # the same stamp twice: not a gap, not a step
    assert m.n_dropped == len(removed)
    values = dict(m.status(EST)[2])
    assert values['dropped_samples'] == len(removed)
    assert abs(float(values['stamp_rate_hz']) - 1000.0) < 20.0


def test_reset_gap_is_not_a_drop_and_random_loss_is_counted():
    rng = np.random.default_rng(11)
    keep = rng.random(6000) > 0.08            # 8 % of the samples lost at random
    keep[:2] = True
    first, second = np.flatnonzero(keep[:3000]), np.flatnonzero(keep[3000:]) + 3000
    m = monitor()
    for s in jittered(first, rng):
        m.used(s, OK)
    m.observer_reset()                         # e.g. a long gap: the sequence restarts
    stamps = jittered(second, rng)
    m.used(stamps[0] + 10 ** 9, SimpleNamespace(**{**vars(OK), 'reset_reason': 'gap of 1 s'}))
    for s in stamps[1:]:
        m.used(s + 10 ** 9, OK)
    true_gaps = int((~keep[first[0]:first[-1]]).sum() + (~keep[second[0]:second[-1]]).sum())
    assert m.n_dropped == true_gaps


def test_a_new_rate_is_not_a_loss():
    """1 kHz, then the driver publishes at 200 Hz: no sample is missing (a gap after is)."""
    m = monitor()
    stamps = [T0_NS + k * PERIOD_NS for k in range(1000)]
    stamps += [stamps[-1] + k * 5 * PERIOD_NS for k in range(1, 1000)]
    stamps.append(stamps[-1] + 3 * 5 * PERIOD_NS)          # 2 samples at 200 Hz missing
    for s in stamps:
        m.used(s, OK)
    assert m.n_dropped == 2
