# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Which samples the estimator takes: the stamp rules (StampGate) in update and process, bad
input, the tare average and the effort scale."""
import numpy as np
import pytest
from estimate_cases import BENT, RATE, measured, stamps, trajectory

from robot_id_ros.estimate import (EstimatorConfig, EstimatorInputError, StampGate,
                                   WrenchEstimator, effort_scale, tare_average)
from robot_id_ros.io.model_file import nominal_model


def test_time_jump_back_resets_without_spike(youbot):
    n = 200
    t = np.arange(n) / RATE
    Q = np.tile(BENT, (n, 1))
    Z = np.zeros_like(Q)
    E = measured(youbot, Q, Z, Z, np.zeros((n, 6)))
    S = stamps(t)
    est = WrenchEstimator(youbot)
    for k in range(n):
        est.update(S[k], Q[k], Z[k], E[k])
    r = est.update(S[0], Q[0], Z[0], E[0])          # the bag looped: 1 s back
    assert r.reset_reason and 'back' in r.reset_reason
    assert np.abs(r.wrench).max() < 1e-6
    # a small step back is an out-of-order sample, rejected without changing the state
    with pytest.raises(EstimatorInputError) as exc:
        est.update(S[0] - 10 ** 6, Q[0], Z[0], E[0])
    assert exc.value.kind == 'out_of_order'
    # batch path: the same reset
    S2 = np.r_[S, S]
    res = WrenchEstimator(youbot).process(S2, np.r_[Q, Q], np.r_[Z, Z], np.r_[E, E])
    assert len(res.resets) == 1 and res.resets[0][0] == n
    assert np.abs(res.wrench).max() < 1e-6


def test_gap_resets(youbot):
    est = WrenchEstimator(youbot, EstimatorConfig(max_gap_s=0.5))
    g = youbot.robot.gravity_torque(BENT)
    est.update(10 ** 9, BENT, np.zeros(5), g)
    r = est.update(10 ** 9 + 2 * 10 ** 9, BENT, np.zeros(5), g)
    assert r.reset_reason and 'gap' in r.reset_reason


def test_bad_input_rejected_and_state_unchanged(youbot):
    t, Q, QD, QDD = trajectory(BENT, 1.0, np.full(5, 0.2), [0.3, 0.4, 0.5, 0.35, 0.45])
    E = measured(youbot, Q, QD, QDD, np.zeros((len(t), 6)))
    S = stamps(t)
    a, b = WrenchEstimator(youbot), WrenchEstimator(youbot)
    for k in range(100):
        a.update(S[k], Q[k], QD[k], E[k])
        b.update(S[k], Q[k], QD[k], E[k])
    bad = [((S[100], Q[100], QD[100], np.r_[E[100, :4], np.nan]), 'nonfinite'),
           ((S[100], Q[100], QD[100], E[100, :4]), 'shape'),
           ((S[100], np.r_[Q[100, :4], np.inf], QD[100], E[100]), 'nonfinite'),
           ((S[99], Q[100], QD[100], E[100]), 'duplicate_stamp'),
           ((S[98], Q[100], QD[100], E[100]), 'out_of_order')]
    for args, kind in bad:
        with pytest.raises(EstimatorInputError) as exc:
            a.update(*args)
        assert exc.value.kind == kind
    for k in range(100, len(t)):
        ra = a.update(S[k], Q[k], QD[k], E[k])
        rb = b.update(S[k], Q[k], QD[k], E[k])
        np.testing.assert_array_equal(ra.wrench, rb.wrench)
    # batch: NaN rows, duplicates and out-of-order stamps are listed and skipped
    E2 = E.copy()
    E2[10, 0] = np.nan
    S2 = S.copy()
    S2[20] = S2[19]
    res = WrenchEstimator(youbot).process(S2, Q, QD, E2)
    assert [k for k, _ in res.rejected] == [10, 20]
    assert len(res.stamp_ns) == len(t) - 2


def test_effort_scale(youbot):
    m = nominal_model(youbot.robot, youbot.friction)
    np.testing.assert_array_equal(effort_scale(m, 'torque'), np.ones(5))
    with pytest.raises(ValueError, match='drive gains'):
        effort_scale(m, 'current')
    m.drive_gains_nm_per_a = np.array([5.226, 5.226, 3.35, 3.621, 3.479])
    np.testing.assert_array_equal(effort_scale(m, 'current'), m.drive_gains_nm_per_a)
    np.testing.assert_array_equal(effort_scale(m, 'current', [1, 2, 3, 4, 5]), [1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match='5 finite'):
        effort_scale(m, 'current', [1, 2])


def _accept_each(gate, stamp_ns, usable):
    """``StampGate.scan``'s definition: ``accept`` sample by sample (the reference)."""
    gate.reset()
    keep, starts, rejected, resets = [], [], [], []
    for k, (s, ok) in enumerate(zip(stamp_ns.tolist(), usable.tolist())):
        if not ok:
            rejected.append((k, 'q, qd or effort is NaN or inf'))
            keep.append(False)
            starts.append(False)
            continue
        try:
            dt, reason = gate.accept(s)
        except EstimatorInputError as exc:
            rejected.append((k, str(exc)))
            keep.append(False)
            starts.append(False)
            continue
        keep.append(True)
        starts.append(dt == 0.0)
        if reason is not None:
            resets.append((k, reason))
    return np.array(keep, bool), np.array(starts, bool), rejected, resets, gate.last_ns


@pytest.mark.parametrize('seed', range(5))
def test_stamp_gate_scan_equals_accept_sample_by_sample(seed):
    """Duplicates, runs of older stamps, jumps back, gaps and unusable samples, in any order: the
    batch scan gives accept()'s verdicts, messages and final state."""
    rng = np.random.default_rng(seed)
    N = 3000
    d = rng.choice([5_000_000, 0, -1_000_000, -300_000_000, 700_000_000, 4_000_000],
                   p=[0.8, 0.04, 0.06, 0.02, 0.03, 0.05], size=N)
    S = 1_700_000_000 * 10 ** 9 + np.cumsum(d)
    usable = rng.uniform(size=N) > 0.03
    usable[:3] = [False, True, True]
    gate, ref = StampGate(0.2, 0.5), StampGate(0.2, 0.5)
    keep, starts, rejected, resets = gate.scan(S, usable)
    k2, s2, rej2, res2, last2 = _accept_each(ref, S, usable)
    np.testing.assert_array_equal(keep, k2)
    np.testing.assert_array_equal(starts, s2)
    assert rejected == rej2 and resets == res2 and gate.last_ns == last2
    for what in ('duplicate stamp', 'older than', 'NaN'):        # the data exercise every rule
        assert any(what in r for _, r in rejected), what
    assert any('back' in r for _, r in resets) and any('gap' in r for _, r in resets)
    assert resets and starts.sum() == len(resets) + 1
    # nothing usable, one sample
    assert gate.scan(S[:4], np.zeros(4, bool))[0].sum() == 0 and gate.last_ns is None
    keep, starts, rejected, resets = gate.scan(S[:1], np.ones(1, bool))
    assert keep.tolist() == [True] and starts.tolist() == [True] and not rejected + resets


def test_stamp_gate_accept():
    g = StampGate(time_jump_s=0.2, max_gap_s=0.5)
    assert g.accept(10 ** 9) == (0.0, None)
    assert g.accept(10 ** 9 + 5_000_000) == (0.005, None)
    with pytest.raises(EstimatorInputError) as exc:
        g.accept(10 ** 9 + 5_000_000)
    assert exc.value.kind == 'duplicate_stamp'
    with pytest.raises(EstimatorInputError) as exc:
        g.accept(10 ** 9)
    assert exc.value.kind == 'out_of_order' and g.last_ns == 10 ** 9 + 5_000_000
    dt, reason = g.accept(10 ** 9 + 5_000_000 - 200_000_000)     # exactly time_jump_s back
    assert dt == 0.0 and 'back 0.200 s' in reason
    dt, reason = g.accept(g.last_ns + 500_000_001)
    assert dt == 0.0 and 'gap of 0.500 s' in reason
    assert g.accept(g.last_ns + 500_000_000)[1] is None          # exactly max_gap_s: no gap


def test_tare_average_is_a_first_order_average_from_the_segment_start():
    rng = np.random.default_rng(2)
    R = rng.normal(size=(50, 3))
    dt = rng.uniform(0.001, 0.01, 50)
    window = 0.05
    want = R[10].copy()
    for k in range(11, 40):
        want += dt[k] / (dt[k] + window) * (R[k] - want)
    np.testing.assert_allclose(tare_average(R, dt, 10, 39, window), want, rtol=1e-12)
    assert not np.allclose(want, R[39])            # the window averages
    np.testing.assert_array_equal(tare_average(R, dt, 10, 39, 0.0), R[39])
