# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""One recorder run's output, ROS-free: a crash-safe bag, its segment sidecar and the run status.

A ``RecordingSession`` owns the parted bag writer (``PartedBagWriter``) and the sidecar
(``<bag>.segments.yaml``, see ``robot_id_ros.io.sidecar``):

- ``open()`` applies the resume rules: a new output path starts a new recording; an existing one
  is continued only when ``resume`` is true and its sidecar says it is an unfinished recording of
  the same kind and joints (anything else is refused with a ``RecordingError`` naming the fix);
- ``write()`` appends one serialized message (from any thread); a resumed recording refuses a
  message stamped at or before its committed data (``ClockBehind``: the driver's clock restarted,
  and continuing would merge two runs into one timeline, one static hold into two runs' samples),
  and writes nothing more;
- ``add_segment()`` commits the bag first (the segment's data is then on disk), then rewrites
  the sidecar atomically: a killed process loses at most the segment in progress;
- ``finish()`` commits what is left and writes the final ``info.status`` (finished, cancelled or
  failed), ``info.error`` and ``complete``: the data recorded so far stays valid either way.

Also here: ``SampleBuffer`` (the joint states of the last seconds, for averaging and checks) and
``Progress`` (periodic progress lines with an estimate of the time left).
"""
from __future__ import annotations

import collections
import importlib
import math
import threading
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from robot_id_ros import record as rec
from robot_id_ros.io.bags import sidecar_path, typestore
from robot_id_ros.io.files import to_plain
from robot_id_ros.io.parted_bag import finalize_bag
from robot_id_ros.io.sidecar import SidecarError, read_sidecar, write_sidecar

RUNNING, FINISHED, CANCELLED, FAILED = 'running', 'finished', 'cancelled', 'failed'
SINGLE_FILE_SUFFIXES = ('.mcap', '.db3')


class StampedSample(NamedTuple):
    """One joint state in the recorder's joint order.

    Attributes: stamp_ns (header stamp, ns), q (rad), qd (rad/s or None), effort (Nm or A, in the
    driver's effort_unit, or None).
    """

    stamp_ns: int
    q: np.ndarray
    qd: np.ndarray | None
    effort: np.ndarray | None


class ClockBehind(rec.RecordingError):
    """A resumed recording got a message stamped at or before its committed data."""

    kind = 'clock_behind'


def committed_end_ns(parts) -> int | None:
    """Return the stamp (ns) of the last message of the bag parts listed (metadata ``files``)."""
    ends = [int(p['starting_time']['nanoseconds_since_epoch']) + int(p['duration']['nanoseconds'])
            for p in parts]
    return max(ends) if ends else None


def error_text(exc: BaseException | None) -> str:
    """Return how a run's error reads in the log and the sidecar.

    A ``RecordingError`` by its message, anything else prefixed with its type name ('' for no
    error).
    """
    if exc is None:
        return ''
    if isinstance(exc, rec.RecordingError):
        return str(exc)
    return f'{type(exc).__name__}: {exc}'


class RecordingSession:
    """The bag folder and sidecar of one recorder run (see the module doc)."""

    def __init__(self, output_path, kind: str, joint_names, effort_unit: str = 'torque',
                 recorder: str = 'recorder', info: dict | None = None, resume: bool = True,
                 log=None):
        """Open the recording (new, or resumed).

        Args:
            output_path: the bag folder to write (its sidecar goes beside it).
            kind: sidecar kind (static, trajectory, friction_sweep or passive).
            joint_names: recorded joints, base to tip.
            effort_unit: 'torque' (Nm) or 'current' (A), written into the sidecar.
            recorder: name of the recording node (sidecar ``info.recorder``).
            info: further sidecar info of a new recording (URDF, parameters, ...).
            resume: continue an interrupted recording at ``output_path`` (else refuse it).
            log: callable taking one line (the resume notice), or None.
        """
        self.output_path = str(output_path)
        self.kind = kind
        self.joint_names = list(joint_names)
        self.effort_unit = effort_unit
        self.recorder = recorder
        self.new_info = dict(info or {})
        self.resume = bool(resume)
        self.log = log
        self.bag_path: Path | None = None
        self.sidecar_file: Path | None = None
        self.sidecar: dict | None = None
        self.resumed = False
        self.status: str | None = None          # None until open(), then RUNNING, then final
        self._writer = None
        self._write_error: BaseException | None = None
        self._lock = threading.RLock()
        self._stamps_ns: list[int] = []       # every stamp written in this run (timing stats)
        self.resume_after_ns: int | None = None   # a resumed run writes only stamps after this
        self._t_commit_ns: int | None = None

    # ------------------------------------------------------------------ opening
    def open(self) -> None:
        """Create the bag and the sidecar, or continue an interrupted recording (resume rules).

        Raises:
            RecordingError: no output path, a single-file bag name, an output that is not a
                resumable recording of this kind and joints, or an unwritable folder.
        """
        if not self.output_path:
            raise rec.RecordingError('parameter output_path is empty: give the bag folder to '
                                     'write')
        path = Path(self.output_path).expanduser().absolute()
        if path.suffix in SINGLE_FILE_SUFFIXES:
            raise rec.RecordingError(f'output_path {path} names a single-file bag; recorders '
                                     'write a bag folder (drop the suffix)')
        sc_path = sidecar_path(path)
        old = self._resumable(path, sc_path) if path.exists() else None
        # load the bag library and message types here, not in the first write (a callback)
        importlib.import_module('rosbags.rosbag2')
        typestore()
        self._writer = rec.PartedBagWriter(path, resume=old is not None)
        self.bag_path, self.sidecar_file = path, sc_path
        self.resumed = old is not None
        if self.resumed:
            self.sidecar = old
            info = self.sidecar.setdefault('info', {})
            info['resumed'] = int(info.get('resumed', 0)) + 1
            self.resume_after_ns = committed_end_ns(self._writer.parts)
            if self.log is not None:
                self.log(f'resuming {path}: {len(self.segments)} segment(s) already complete, '
                         f'{self._writer.messages_written} messages in '
                         f'{self._writer.committed_parts} part(s)')
        else:
            self.sidecar = {'schema_version': 1, 'kind': self.kind, 'bag': path.name,
                            'joint_names': self.joint_names, 'effort_unit': self.effort_unit,
                            'complete': False,
                            'info': {'recorder': self.recorder, 'status': RUNNING,
                                     **self.new_info},
                            'segments': []}
        self.status = RUNNING
        self.info['status'] = RUNNING
        self.info.pop('error', None)
        self.save()

    def _resumable(self, path: Path, sc_path: Path) -> dict:
        """Return the sidecar of the interrupted recording at ``path``; RecordingError if none."""
        if not self.resume:
            raise rec.RecordingError(f'output {path} exists and resume is false; choose a new '
                                     'output_path')
        if not sc_path.is_file():
            raise rec.RecordingError(f'output {path} exists but has no sidecar {sc_path.name}: it '
                                     'is not an interrupted recording of this recorder; choose a '
                                     'new output_path')
        try:
            old = read_sidecar(sc_path)
        except SidecarError as exc:
            raise rec.RecordingError(f'cannot resume {path}: {exc}') from exc
        if old.get('kind') != self.kind:
            raise rec.RecordingError(f'cannot resume {path}: it is a {old.get("kind")!r} '
                                     f'recording, this is {self.kind!r}; choose a new output_path')
        if old.get('complete'):
            finalize_bag(path)  # finish a merge a crash interrupted (nothing when it is one file)
            raise rec.RecordingError(f'{path} is a complete recording already; choose a new '
                                     'output_path')
        if list(old.get('joint_names') or []) != self.joint_names:
            raise rec.RecordingError(f'cannot resume {path}: recorded joints '
                                     f'{old.get("joint_names")} differ from {self.joint_names}')
        return old

    # ------------------------------------------------------------------ state
    @property
    def is_open(self) -> bool:
        """True while messages are written (between ``open()`` and ``finish()`` or an error)."""
        return self._writer is not None

    @property
    def info(self) -> dict:
        """The sidecar's free-form ``info`` (saved with the next ``save()``)."""
        return self.sidecar['info']

    @property
    def segments(self) -> list:
        """Return the completed segments, those of an interrupted run first."""
        return self.sidecar['segments']

    @property
    def stamps_ns(self) -> list:
        """The stamps (ns) of every message written in this run."""
        return self._stamps_ns

    # ------------------------------------------------------------------ writing
    def write(self, topic: str, msgtype: str, stamp_ns: int, data: bytes) -> bool:
        """Append one serialized message (thread-safe). Returns False when the bag is not open.

        Raises:
            RecordingError: the bag cannot be written (full disk ...), or ``ClockBehind``; nothing
                more is written and ``commit()`` raises the same error.
        """
        with self._lock:
            if self._writer is None:
                return False
            try:
                self._check_clock(stamp_ns)
                self._writer.write(topic, msgtype, stamp_ns, data)
            except rec.RecordingError as exc:
                self._writer = None
                self._write_error = exc
                raise
            self._stamps_ns.append(int(stamp_ns))
            return True

    def _check_clock(self, stamp_ns: int) -> None:
        """Raise ``ClockBehind`` for a resumed run's message stamped at or before its data."""
        end = self.resume_after_ns
        if end is not None and stamp_ns <= end:
            raise ClockBehind(
                f'cannot resume {self.bag_path}: the driver\'s clock is behind the recording (a '
                f'joint state stamped {stamp_ns * 1e-9:.3f} s, the recorded data reach '
                f'{end * 1e-9:.3f} s), so the driver restarted its clock and continuing would '
                'merge two runs into one timeline; nothing was added to it: record into a new '
                'output_path')

    def commit(self, now_ns: int | None = None) -> int:
        """Put everything written so far on disk; returns the number of messages committed.

        Args:
            now_ns: the present (ROS time, ns), the reference of ``commit_if_due``.

        Raises:
            RecordingError: the commit failed, or an earlier write did.
        """
        with self._lock:
            if self._writer is None:
                if self._write_error is not None:
                    raise self._write_error
                return 0
            n = self._writer.commit()
        if now_ns is not None:
            self._t_commit_ns = int(now_ns)
        return n

    def commit_if_due(self, now_ns: int, period_ns: int) -> int:
        """Commit when the last commit is more than ``period_ns`` before ``now_ns`` (ns)."""
        if self._t_commit_ns is None:
            self._t_commit_ns = int(now_ns)
        if now_ns - self._t_commit_ns > period_ns:
            return self.commit(now_ns)
        return 0

    def save(self) -> None:
        """Rewrite the sidecar atomically.

        Raises:
            RecordingError: it cannot be written.
        """
        try:
            write_sidecar(self.sidecar_file, to_plain(self.sidecar))
        except OSError as exc:
            raise rec.RecordingError(f'cannot write sidecar {self.sidecar_file}: '
                                     f'{exc.strerror or exc}; the bag {self.bag_path} holds the '
                                     'data up to the last commit') from exc

    def add_segment(self, segment: dict, now_ns: int | None = None) -> None:
        """Commit the bag, then add ``segment`` to the sidecar.

        The segment's data is on disk once the bag is committed. ``now_ns``: the present (ROS
        time, ns), see ``commit``.
        """
        self.commit(now_ns)
        self.segments.append(to_plain(segment))
        self.save()

    # ------------------------------------------------------------------ the end
    def _merge_parts(self, writer) -> None:
        """Merge a finished recording's parts into one bag.

        Crash safe, see ``PartedBagWriter.finalize``; a merge that fails leaves the parts, which
        stay a valid bag, and is noted in the sidecar's ``info.merge_error``, not as a failed
        recording.
        """
        try:
            result = writer.finalize()
        except rec.RecordingError as exc:
            self.info['merge_error'] = str(exc)
            if self.log is not None:
                self.log(f'the parts were not merged into one bag (they stay readable): {exc}')
            return
        self.info.pop('merge_error', None)
        if result.path is not None:       # None: nothing was recorded
            self.info['bag_file'] = Path(result.path).name

    def finish(self, status: str, error: BaseException | None = None, add_info=None):
        """Commit what is left, close the bag and write the final status into the sidecar.

        Args:
            status: FINISHED, CANCELLED or FAILED.
            error: the cause of a failure (its text goes into ``info.error``).
            add_info: callable(info dict) adding run statistics, or None.

        Returns:
            (status, message): the final status (FAILED when the last commit or the sidecar
            could not be written) and the error text ('' when none).
        """
        msg = error_text(error)
        try:
            if self._writer is not None:
                try:
                    self.commit()
                except rec.RecordingError as exc:
                    msg = msg or str(exc)
                    status = FAILED
                with self._lock:
                    writer, self._writer = self._writer, None
                if status == FINISHED:
                    self._merge_parts(writer)
            if self.sidecar is not None:
                info = self.info
                info['status'] = status
                if msg:
                    info['error'] = msg
                info['driver_timing'] = rec.timing_stats(self._stamps_ns)
                if add_info is not None:
                    add_info(info)
                self.sidecar['complete'] = status == FINISHED
                self.save()
        except Exception as exc:  # noqa: BLE001 - the run's end must be reported, whatever failed
            msg = msg or error_text(exc)
            status = FAILED
        self.status = status
        return status, msg


class SampleBuffer:
    """The joint states of the last ``horizon_s`` seconds (stamp time), in arrival order.

    Thread-safe (one thread appends, others read).
    """

    def __init__(self, horizon_s: float):
        """Args: horizon_s: samples older than the newest minus this (s) are dropped."""
        self.horizon_ns = int(horizon_s * 1e9)
        self._samples: collections.deque = collections.deque()
        self._lock = threading.Lock()

    def append(self, sample: StampedSample) -> None:
        """Add the newest sample and drop those beyond the horizon."""
        with self._lock:
            self._samples.append(sample)
            horizon = sample.stamp_ns - self.horizon_ns
            while self._samples and self._samples[0].stamp_ns < horizon:
                self._samples.popleft()

    def latest(self) -> StampedSample | None:
        """Return the newest sample, or None."""
        with self._lock:
            return self._samples[-1] if self._samples else None

    def between(self, t0_ns: int, t1_ns: int) -> list:
        """Return the samples stamped in [t0_ns, t1_ns]."""
        with self._lock:
            return [s for s in self._samples if t0_ns <= s.stamp_ns <= t1_ns]

    def after(self, t_ns: int) -> list:
        """Return the samples stamped after ``t_ns`` (searched from the newest end)."""
        out = []
        with self._lock:
            for s in reversed(self._samples):
                if s.stamp_ns <= t_ns:
                    break
                out.append(s)
        out.reverse()
        return out


def eta_text(elapsed_s: float, done: int, left: int) -> str:
    """'<s> s' of time left at the pace so far (``done`` items in ``elapsed_s``), or 'unknown'."""
    rest = elapsed_s / done * left if done > 0 else float('nan')
    return f'{rest:.0f} s' if math.isfinite(rest) else 'unknown'


class Progress:
    """Progress lines every ``period_s`` wall seconds: what is done, elapsed, time left."""

    def __init__(self, period_s: float, log):
        """Args: period_s: wall seconds between lines; log: callable taking one line."""
        self.period_s = float(period_s)
        self.log = log
        self.done, self.total, self.what = 0, 0, ''
        self._t_start = time.monotonic()
        self._t_last = 0.0

    def start(self, what: str = 'starting') -> None:
        """Restart the clock of a new run."""
        self._t_start = time.monotonic()
        self.done, self.total, self.what = 0, 0, what

    def set(self, done: int, total: int, what: str = '') -> None:
        """``done`` of ``total`` items done, now doing ``what``."""
        self.done, self.total, self.what = done, total, what

    def report(self, force: bool = False) -> None:
        """Log a progress line when ``period_s`` has passed since the last one (or ``force``)."""
        now = time.monotonic()
        if not force and now - self._t_last < self.period_s:
            return
        self._t_last = now
        el = now - self._t_start
        self.log(f'{self.what} ({self.done} of {self.total} done), elapsed {el:.0f} s, '
                 f'estimated time left {eta_text(el, self.done, self.total - self.done)}')


__all__ = ['CANCELLED', 'ClockBehind', 'FAILED', 'FINISHED', 'RUNNING', 'StampedSample',
           'Progress', 'RecordingSession', 'SampleBuffer', 'committed_end_ns', 'error_text',
           'eta_text']
