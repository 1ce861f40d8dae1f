# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What the wrench estimator node reports about its input (ROS-free).

Counts of received, used, rejected and dropped samples, observer resets, processing time and
latency, stale input, and the diagnostics status made from them (a level word, a message and
key/values); the node's payload parameters and its start-up summary.

Times: ``clock()`` is a monotonic wall clock in seconds; stamps are integer nanoseconds.
"""
from __future__ import annotations

import math
import statistics
import time
from collections import deque

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.estimate import CONTACT_STATE_NAMES
from robot_id_ros.estimate.compiled import COMPILED
from robot_id_ros.estimate.samples import NONFINITE_STATE
from robot_id_ros.model.chain import YOUBOT_JOINTS

DROP_FACTOR = 1.5          # a gap over this many nominal periods counts as dropped samples
PERIOD_WINDOW = 128        # the nominal period is the median of this many recent stamp steps
PERIOD_MIN_STEPS = 8       # steps seen before the first period (earlier gaps are counted then)
PERIOD_REFRESH = 16        # the median is recomputed every this many steps
RATE_CHANGE_STEPS = 128    # this many equal gaps in a row: the rate changed (not drops)
PROBLEM_HOLD = (2.0, 1.0)  # a bad sample shows for 2 * stale_timeout_s + 1 s in diagnostics
TIMING_WINDOW = 5000       # processing time and latency samples kept between two reports
YOUBOT_RATED_PAYLOAD_KG = 0.5   # KUKA's rated payload of the youBot arm
MAX_PAYLOAD_COM_M = 1.0    # |each coordinate| of a payload's centre of mass (tool frame), m


class WarningThrottle:
    """One warning per problem kind per period (``logger`` has a ``warning(text)`` method)."""

    def __init__(self, logger, period_s=5.0, clock=time.monotonic):
        self.logger, self.period_s, self.clock, self.last = logger, period_s, clock, {}

    def warn(self, kind, text):
        """Log ``text`` unless a warning of ``kind`` was logged less than ``period_s`` ago."""
        now = self.clock()
        if now - self.last.get(kind, -1e9) >= self.period_s:
            self.last[kind] = now
            self.logger.warning(text)


class StampGaps:
    """Samples missing from a stamp sequence, against a robust nominal period.

    The nominal period is the median of the last ``PERIOD_WINDOW`` steps, a step over
    ``DROP_FACTOR`` periods entering as its length over the samples it spans (so a bunched
    first step, jitter and the gaps themselves do not move it). Such a step counts
    ``round(step / period) - 1`` missing samples. ``RATE_CHANGE_STEPS`` gaps in a row spanning
    the same number of periods are a new rate, not losses (a node that falls behind loses
    samples in runs of varying length): they are uncounted and the period is measured again.
    A step <= 0 (a duplicate) is neither a step nor a gap; ``restart()`` (an observer reset)
    starts a new sequence without counting the pause.
    """

    def __init__(self):
        self.steps = deque(maxlen=PERIOD_WINDOW)   # per-sample periods [ns]
        self.pending = []                   # steps before a period is known [ns]
        self.period_ns = None
        self.dropped = 0
        self.last_ns = None
        self._limit_ns = math.inf
        self._since_refresh = 0
        self._run = self._run_dropped = self._run_n = 0   # equal gaps in a row, their drops

    def restart(self):
        """Start a new sequence: the step to the next stamp is not counted."""
        self.last_ns = None

    def add(self, stamp_ns):
        """Take the next stamp [ns] of the sequence and count the samples missing before it."""
        last = self.last_ns
        if last is not None and stamp_ns <= last:
            return
        self.last_ns = stamp_ns
        if last is None:
            return
        dt = stamp_ns - last
        if self.period_ns is None:
            self.pending.append(dt)
            if len(self.pending) >= PERIOD_MIN_STEPS:
                self.steps.extend(self.pending)
                self._refresh()
                self.steps.clear()
                for d in self.pending:
                    self._step(d)
                self.pending = []
            return
        self._step(dt)
        self._since_refresh += 1
        if self._since_refresh >= PERIOD_REFRESH:
            self._refresh()

    def _step(self, dt):
        if dt <= self._limit_ns:
            self.steps.append(dt)
            self._run = self._run_dropped = 0
            return
        n = int(round(dt / self.period_ns))
        self.steps.append(dt / n)
        self.dropped += n - 1
        if n != self._run_n:
            self._run = self._run_dropped = 0
        self._run_n = n
        self._run += 1
        self._run_dropped += n - 1
        if self._run >= RATE_CHANGE_STEPS:     # a slower rate, not losses: measure it again
            self.dropped -= self._run_dropped
            self._run = self._run_dropped = 0
            self.period_ns, self._limit_ns = None, math.inf
            self.steps.clear()

    def _refresh(self):
        self._since_refresh = 0
        if self.steps:
            self.period_ns = statistics.median(self.steps)
            self._limit_ns = DROP_FACTOR * self.period_ns


class InputMonitor:
    """Counters and windows of the estimator node's input, and its diagnostics status.

    Args:
        stale_timeout_s: no sample for this long [s, wall time]: the input is stale.
        warn: ``warn(kind, text)``, called for an observer reset and for stale input.
        clock: monotonic wall clock [s].
    """

    def __init__(self, stale_timeout_s, warn, clock=time.monotonic):
        self.stale_timeout_s = float(stale_timeout_s)
        self.warn, self.clock = warn, clock
        self.n_in = self.n_out = self.n_rejected = self.n_resets = 0
        self.gaps = StampGaps()
        self.rejected_by_kind = {}
        self.last_problem = ''
        self.last_problem_t = -1e9
        self.last_rx = None                    # wall time of the last sample
        self.proc_ms = deque(maxlen=TIMING_WINDOW)
        self.age_ms = deque(maxlen=TIMING_WINDOW)
        self.stale_reported = False
        self.last = None                       # the last EstimatorResult
        self.window_start = self.clock()
        self.window_in = 0

    def received(self) -> float:
        """Count a sample (used or not); return the processing start (``time.perf_counter``)."""
        t0 = time.perf_counter()
        self.n_in += 1
        self.window_in += 1
        self.last_rx = self.clock()
        self.stale_reported = False
        return t0

    def rejected(self, kind, text, stamp_ns=0):
        """Count an unusable sample: ``kind`` is the error's kind, ``text`` its message.

        ``stamp_ns`` (> 0, its stamp [ns]) enters the stamp sequence: a sample that arrived is
        rejected, not dropped.
        """
        if stamp_ns > 0:
            self.gaps.add(stamp_ns)
        self.n_rejected += 1
        self.rejected_by_kind[kind] = self.rejected_by_kind.get(kind, 0) + 1
        self.last_problem = f'{kind}: {text}'
        self.last_problem_t = self.clock()
        self.warn(kind, f'joint_states sample not used ({kind}): {text}')
        if kind == NONFINITE_STATE:      # the estimator reset itself: count it as a reset
            self.n_resets += 1
            self.observer_reset()

    def observer_reset(self):
        """Note an observer reset: the next sample starts a new stamp sequence."""
        self.gaps.restart()

    @property
    def n_dropped(self) -> int:
        """Samples missing from the stamp sequence of the samples received (``StampGaps``)."""
        return self.gaps.dropped

    def used(self, stamp_ns, result):
        """Take ``result`` of the sample stamped ``stamp_ns``: count resets and dropped samples."""
        if result.reset_reason:
            self.n_resets += 1
            self.gaps.restart()
            self.warn('reset', f'observer reset: {result.reset_reason}')
        self.gaps.add(stamp_ns)
        self.last = result
        self.n_out += 1

    def published(self, t0, stamp_ns, now_ns):
        """Record that the outputs of a sample are out (processing time and latency).

        ``t0`` is what ``received`` returned, ``stamp_ns`` the sample's stamp and ``now_ns`` the
        node's clock now (the latency is their difference).
        """
        self.proc_ms.append((time.perf_counter() - t0) * 1e3)
        self.age_ms.append((now_ns - stamp_ns) * 1e-6)

    def status(self, est):
        """Return the diagnostics status now; starts a new rate and timing window.

        Args:
            est: the ``WrenchEstimator`` (its method, frame, mapping and tare bias are reported).

        Returns:
            ``(level, message, values)``: level ``'ok'`` or ``'warn'``, a one-line message and a
            list of ``(key, value)`` pairs.
        """
        now = self.clock()
        stale = self.last_rx is None or now - self.last_rx > self.stale_timeout_s
        if stale and self.last_rx is not None and not self.stale_reported:
            self.stale_reported = True
            self.warn('stale', f'no joint_states for {now - self.last_rx:.2f} s (stale input)')
        rate = self.window_in / max(now - self.window_start, 1e-9)
        self.window_start, self.window_in = now, 0
        problems = self._problems(now, stale)
        period = self.gaps.period_ns
        values = [('input_rate_hz', f'{rate:.1f}'),
                  ('stamp_rate_hz', f'{1e9 / period:.1f}' if period else 'unknown'),
                  ('samples_in', self.n_in),
                  ('samples_out', self.n_out), ('dropped_samples', self.n_dropped),
                  ('rejected_samples', self.n_rejected),
                  ('rejected_by_kind', ', '.join(f'{k}={v}' for k, v
                                                 in sorted(self.rejected_by_kind.items()))),
                  ('last_problem', self.last_problem), ('stale_input', stale),
                  ('resets', self.n_resets), ('method', est.config.method),
                  ('frame_id', est.frame_id), ('wrench_mode', est.mapper.mapping.label)]
        values += self._timing_values() + self._result_values(est)
        return ('warn' if problems else 'ok'), ('; '.join(problems) if problems else 'ok'), values

    def _problems(self, now, stale):
        problems = []
        if self.last_rx is None:
            problems.append('no joint_states received yet')
        elif stale:
            problems.append(f'stale input: no joint_states for {now - self.last_rx:.2f} s')
        if now - self.last_problem_t < PROBLEM_HOLD[0] * self.stale_timeout_s + PROBLEM_HOLD[1]:
            problems.append(f'bad input: {self.last_problem}')
        if self.last is not None and self.last.damped:
            problems.append(f'near a singularity: sigma_min {self.last.sigma_min:.4f} (damped)')
        return problems

    def _timing_values(self):
        if not self.proc_ms:
            return []
        pm, am = np.array(self.proc_ms), np.array(self.age_ms)
        self.proc_ms.clear()
        self.age_ms.clear()
        return [('processing_ms_p50', f'{np.percentile(pm, 50):.3f}'),
                ('processing_ms_p99', f'{np.percentile(pm, 99):.3f}'),
                ('latency_ms_p50', f'{np.percentile(am, 50):.3f}'),
                ('latency_ms_p99', f'{np.percentile(am, 99):.3f}')]

    def _result_values(self, est):
        last = self.last
        if last is None:
            return []
        sd = wrench_std(last)
        return [('sigma_min', f'{last.sigma_min:.5f}'), ('damped', last.damped),
                ('contact_state', CONTACT_STATE_NAMES[last.contact_state]),
                ('contact_score', f'{last.contact_score:.3f}'),
                ('wrench_std', ' '.join(f'{x:.3f}' for x in sd)),
                ('wrench_covariance',
                 ' '.join(f'{x:.4g}' for x in last.wrench_covariance.ravel())),
                ('tare_bias_nm', ' '.join(f'{x:+.3f}' for x in est.bias))]


def wrench_std(result) -> np.ndarray:
    """1-sigma of each wrench component of an estimator result (the covariance diagonal)."""
    return np.sqrt(np.maximum(np.diag(result.wrench_covariance), 0.0))


def payload_bound_kg(model, max_payload_kg=-1.0) -> float:
    """Return the largest payload mass the node accepts, kg.

    Args:
        model: the ``IdentifiedModel``.
        max_payload_kg: the node's ``max_payload_kg``; < 0: from the model, the youBot arm's
            rated payload (``YOUBOT_RATED_PAYLOAD_KG``) for the youBot arm joints, else the total
            mass of the arm's moving links (URDF).

    Returns:
        The bound, kg.
    """
    if max_payload_kg >= 0:
        return float(max_payload_kg)
    if list(model.joint_names) == list(YOUBOT_JOINTS):
        return YOUBOT_RATED_PAYLOAD_KG
    pm = model.robot.model
    return float(sum(pm.inertias[i].mass for i in range(1, pm.njoints)))


def apply_payload(est, model, mass_kg, com_m, max_mass_kg=math.inf):
    """Set the estimator's payload from the node's payload parameters.

    Args:
        est: the ``WrenchEstimator``.
        model: its ``IdentifiedModel`` (whose payload ``mass_kg = -1`` selects).
        mass_kg: payload mass [kg]; 0 = no payload, -1 = the model file's (when it has none, the
            estimator keeps its current payload).
        com_m: payload centre of mass [m], 3 values in the tool frame.
        max_mass_kg: the largest plausible mass [kg] (``payload_bound_kg``).

    Raises:
        InputError: (kind 'parameter') a mass above ``max_mass_kg``, or ``com_m`` not 3 finite
            values within +-``MAX_PAYLOAD_COM_M``; nothing is changed.
    """
    mass, com = float(mass_kg), [float(c) for c in com_m]
    if len(com) != 3 or not all(math.isfinite(c) and abs(c) <= MAX_PAYLOAD_COM_M
                                for c in com):
        raise InputError(f'payload_com_m needs 3 finite values within +-{MAX_PAYLOAD_COM_M:g} m '
                         f'(tool frame), got {com}', kind='parameter')
    if mass > max_mass_kg:
        raise InputError(f'payload_mass_kg {mass:g} kg is above the plausible {max_mass_kg:g} kg '
                         '(max_payload_kg; -1 there: the rated payload or the arm mass)',
                         kind='parameter')
    if mass < 0:
        if model.payload is not None:
            est.set_payload(model.payload.mass_kg, model.payload.com_m)
    else:
        est.set_payload(mass if mass > 0 else None, com)


def startup_summary(model_file, model, est) -> str:
    """One line on what the estimator runs: model, joints, method, mapping, stiction, contact."""
    robot, cfg = model.robot, est.config
    return (f'model {model_file} ({robot.robot_name}: {", ".join(model.joint_names)}; tool '
            f'{robot.tool_frame}); {cfg.method}, wrench {est.mapper.mapping.label} in '
            f'{est.frame_id}; {est.friction.describe()}, stiction mode {cfg.stiction_mode}, '
            f'band weighting '
            f'{"on" if cfg.band_weighting else "off"}; {cfg.contact_test} contact test at '
            f'{cfg.contact_threshold_sigma:g} std, thresholds from {est.threshold_source}'
            + ('' if COMPILED else '; numba is not installed: the one-sample step '
               'runs as plain Python, about 7x slower (sudo apt install python3-numba, or pip '
               'install numba)'))


__all__ = ['MAX_PAYLOAD_COM_M', 'YOUBOT_RATED_PAYLOAD_KG', 'InputMonitor', 'StampGaps',
           'WarningThrottle',
           'apply_payload', 'payload_bound_kg', 'startup_summary', 'wrench_std']
