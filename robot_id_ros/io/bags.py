# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""rosbag2 input and output with ``rosbags`` (pure Python; sqlite3 and MCAP; no ROS needed).

A recording is a bag directory (``metadata.yaml`` + storage files), or a single ``.mcap`` or
``.db3`` file, holding ``sensor_msgs/msg/JointState``. Times: ``stamp_ns`` is each message's
``header.stamp`` (the bag receive time where the stamp is zero). A recorder's bag folder lists
either its committed parts (an interrupted recording) or the one file they were merged into
(``robot_id_ros.io.parted_bag``); the readers here read both alike.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.io.cdr_records import joint_state_records, wrench_stamped_records
from robot_id_ros.io.files import OutputKind, Outputs
from robot_id_ros.io.joint_state import JointIndexer, JointStateError
# the sidecar's path is the sidecar module's; kept importable from here for the recorders
from robot_id_ros.io.sidecar import sidecar_path  # noqa: F401

JOINT_STATE_TYPE = 'sensor_msgs/msg/JointState'
DEFAULT_TOPIC = '/joint_states'
CLOCK_JUMP_S = 0.1   # header stamps stepping back more than this (and 10 intervals): a clock reset
BAG_FORMAT_VERSION = 8          # rosbag2 metadata version written (the rosbags default)
BAG_FILE_STORAGE = {'.mcap': 'mcap', '.db3': 'sqlite3'}   # a single-file bag: its storage
PROGRESS_EVERY_MESSAGES = 5000  # read_joint_states calls ``progress`` once per this many messages
# a message without the selected joints (or naming one twice) makes the whole bag unusable
_FATAL_JOINT_STATE_KINDS = ('missing_joint', 'duplicate_joint')


class BagError(InputError):
    """A bag that cannot be read or written; the message names the problem and the fix."""


def typestore():
    from rosbags.typesys import Stores, get_typestore

    return get_typestore(Stores.ROS2_HUMBLE)


@dataclass
class JointStateSeries:
    """Joint states of one bag in model joint order.

    q rad, qd rad/s, effort Nm or A, each (N, n); velocity/effort may be None. ``stamp_ns``: (N,)
    header stamps, ns.
    """

    joint_names: tuple
    stamp_ns: np.ndarray
    q: np.ndarray
    qd: np.ndarray | None
    effort: np.ndarray | None
    source: str = ''
    topic: str = '/joint_states'
    skipped: list = field(default_factory=list)  # (index, reason) of messages that were not usable

    @property
    def t_s(self):
        """Seconds since the first sample."""
        return (self.stamp_ns - self.stamp_ns[0]) * 1e-9

    def __len__(self):
        return len(self.stamp_ns)

    def slice_stamp(self, start_ns, end_ns):
        """Return the samples with start_ns <= stamp_ns <= end_ns (bag time, ns)."""
        m = (self.stamp_ns >= start_ns) & (self.stamp_ns <= end_ns)
        return self.select(m)

    def select(self, mask):
        """Return the samples a boolean mask (or an index array) selects, as a new series."""
        return JointStateSeries(self.joint_names, self.stamp_ns[mask], self.q[mask],
                                None if self.qd is None else self.qd[mask],
                                None if self.effort is None else self.effort[mask], self.source,
                                self.topic)


def _open_reader(path):
    from rosbags.rosbag2 import Reader

    p = Path(path)
    if not p.exists():
        raise BagError(f'bag not found: {p} (give a bag directory, a .mcap or a .db3 file)')
    if p.is_dir() and not (p / 'metadata.yaml').is_file():
        raise BagError(f'{p} is a directory without metadata.yaml: not a rosbag2 bag')
    try:
        reader = Reader(p)
        reader.open()
    except Exception as exc:  # noqa: BLE001 - rosbags raises several types
        raise BagError(f'cannot open bag {p}: {exc}') from exc
    return reader


def read_joint_states(path, joint_names, topic=DEFAULT_TOPIC, require_velocity=False,
                      require_effort=True, progress=None) -> JointStateSeries:
    """All JointState messages of ``topic`` in ``path``, as arrays in ``joint_names`` order.

    The default topic, absent from the bag, stands for the bag's one namespaced JointState topic
    ending in it (``/arm/joint_states``); the series' ``topic`` says which was read.

    Messages that lack some of the selected joints raise, those with none of them (another
    publisher on the topic, e.g. a gripper's driver) are skipped; a message with NaN/inf or wrong
    array lengths is skipped and listed in ``skipped`` (a bag with no usable sample raises), and
    so is a message with no velocity (or effort) when other messages of the topic carry it, and
    a message with the stamp of an earlier one (the first is kept: a driver or bridge that
    published twice).

    Args:
        path: a bag directory, or a single ``.mcap`` / ``.db3`` file.
        joint_names: the model's joints, in the order of the returned columns.
        topic: the JointState topic.
        require_velocity: raise when the messages carry no velocity.
        require_effort: raise when the messages carry no effort.
        progress: callable(messages read, total) called every ``PROGRESS_EVERY_MESSAGES``.

    Returns:
        JointStateSeries sorted by stamp.

    Raises:
        BagError: no such bag or topic, another message type, a missing joint, no usable sample,
            or a required velocity / effort missing.
    """
    reader = _open_reader(path)
    ts = typestore()
    try:
        topic, conns = _joint_state_connections(reader, path, topic)
        total = sum(c.msgcount for c in conns)
        stamps, qs, qds, efs, skipped, index, received, first_missing = _read_messages(
            reader, ts, conns, joint_names, path, total, progress)
    finally:
        reader.close()
    if not stamps and first_missing is not None and len(skipped) == total:
        raise BagError(f'{path}: {first_missing}')    # no message has the model's joints
    if not stamps:
        raise BagError(f'bag {path} has no usable {topic} message'
                       + (f' (first problem: {skipped[0][1]})' if skipped else ''))
    _check_clock(path, topic, np.array(stamps, dtype=np.int64), index, received)
    qd, effort = np.array(qds), np.array(efs)
    has_vel, has_eff = ~np.isnan(qd).all(axis=1), ~np.isnan(effort).all(axis=1)
    if require_effort and not has_eff.any():
        raise BagError(f'bag {path}: {topic} has no effort (needed as measured torque/current); '
                       'record with a driver that publishes effort')
    if require_velocity and not has_vel.any():
        raise BagError(f'bag {path}: {topic} has no velocity (the wrench estimate needs the '
                       'joint velocities: record a driver that publishes JointState.velocity)')
    series = JointStateSeries(tuple(joint_names), np.array(stamps, dtype=np.int64), np.array(qs),
                              qd if has_vel.any() else None, effort if has_eff.any() else None,
                              str(path), topic)
    return _sorted_usable(series, index, has_vel, has_eff, skipped)


def _joint_state_connections(reader, path, topic):
    """Return (the topic read, its connections in the bag); raise when absent or not JointState.

    The default topic, absent from the bag, stands for the bag's one namespaced JointState topic
    ending in it.
    """
    conns = [c for c in reader.connections if c.topic == topic]
    if not conns and topic == DEFAULT_TOPIC:
        # a namespaced joint_states (/arm/joint_states) when it is the only one
        spaced = {c.topic for c in reader.connections if c.msgtype == JOINT_STATE_TYPE
                  and c.topic.endswith(DEFAULT_TOPIC)}
        if len(spaced) == 1:
            topic = spaced.pop()
            conns = [c for c in reader.connections if c.topic == topic]
    if not conns:
        have = ', '.join(sorted({f'{c.topic} ({c.msgtype})' for c in reader.connections}))
        raise BagError(f'bag {path} has no topic {topic} (topics: {have or "none"}); pass '
                       '--topic to choose one')
    bad = [c for c in conns if c.msgtype != JOINT_STATE_TYPE]
    if bad:
        raise BagError(f'topic {topic} in {path} is {bad[0].msgtype}, not {JOINT_STATE_TYPE}')
    return topic, conns


def _read_messages(reader, ts, conns, joint_names, path, total, progress):
    """Read the messages of ``conns`` in ``joint_names`` order, in the order received.

    Returns:
        (stamps ns, q rows, qd rows, effort rows (NaN where absent), skipped [(message index,
        why)], message index of each row, bag receive time ns of each row, the first error of a
        message with none of the model's joints or None).
    """
    indexer = JointIndexer(joint_names)
    stamps, qs, qds, efs, skipped, index, received = [], [], [], [], [], [], []
    first_missing = None
    for k, (conn, bag_ns, raw) in enumerate(reader.messages(connections=conns)):
        msg = ts.deserialize_cdr(raw, conn.msgtype)
        try:
            s = indexer.convert(msg.name, msg.position, msg.velocity, msg.effort,
                                require_velocity=False, require_effort=False)
        except JointStateError as exc:
            if exc.kind == 'missing_joint' and not set(msg.name) & set(joint_names):
                # another publisher on the topic (a gripper's driver): not an arm sample
                skipped.append((k, 'joint state of another publisher, none of the model '
                                   f'joints (it has: {", ".join(msg.name) or "none"})'))
                first_missing = first_missing or exc
                continue
            if exc.kind in _FATAL_JOINT_STATE_KINDS:
                raise BagError(f'{path}: {exc}') from exc
            skipped.append((k, str(exc)))
            continue
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        stamps.append(stamp if stamp > 0 else bag_ns)
        received.append(bag_ns)
        qs.append(s.q)
        index.append(k)
        qds.append(s.qd if s.qd is not None else np.full(len(joint_names), np.nan))
        efs.append(s.effort if s.effort is not None else np.full(len(joint_names), np.nan))
        if progress is not None and k % PROGRESS_EVERY_MESSAGES == 0:
            progress(k, total)
    return stamps, qs, qds, efs, skipped, index, received, first_missing


def _sorted_usable(series, index, has_vel, has_eff, skipped):
    """Return ``series`` sorted by stamp without its unusable messages, listed in ``skipped``.

    Unusable: a message without velocity (effort) among messages with it, and one whose stamp
    repeats an earlier one's (the first is kept).
    """
    order = np.argsort(series.stamp_ns, kind='stable')
    index = np.asarray(index)[order]
    keep = np.ones(len(order), dtype=bool)
    # a message without velocity (effort) among messages with it: that message is unusable
    for field_, has in (('velocity', has_vel[order]), ('effort', has_eff[order])):
        if has.any() and not has.all():
            skipped += [(int(k), f'joint state has no {field_} (other messages carry it)')
                        for k in index[~has]]
            keep &= has
    stamp = series.stamp_ns[order]
    dup = np.zeros(len(order), dtype=bool)
    dup[1:] = stamp[1:] == stamp[:-1]
    if dup.any():
        skipped += [(int(k), 'joint state stamp repeats an earlier message\'s (the first kept)')
                    for k in index[dup & keep]]
        keep &= ~dup
    if not keep.all() or np.any(order != np.arange(len(order))):
        series = series.select(order[keep])
    series.skipped = sorted(skipped)
    return series


def _check_clock(path, topic, stamps, index, received):
    """Raise when the header stamps, in the order received, jump back (a clock reset).

    Messages a few intervals out of order are sorted; a step back by more than
    ``CLOCK_JUMP_S`` and 10 median intervals would interleave two stretches of the recording.
    """
    if len(stamps) < 3:
        return
    dt = np.diff(stamps)
    step = float(np.median(dt[dt > 0])) if np.any(dt > 0) else 0.0
    behind = np.maximum.accumulate(stamps)[:-1] - stamps[1:]
    jumps = np.flatnonzero(behind > max(CLOCK_JUMP_S * 1e9, 10 * step))
    if jumps.size:
        j = int(jumps[0]) + 1
        count = int(np.sum(np.diff(jumps, prepend=-2) > 1))   # each stretch behind counted once
        raise BagError(
            f'bag {path}: the {topic} header stamps jump back by {behind[j - 1] * 1e-9:.4g} s at '
            f'message {index[j]} (bag time {received[j]} ns; {count} such jump(s)): the '
            'header clock was reset or switched; split the bag there (ros2 bag convert with '
            'start_time_ns / end_time_ns) and give the parts as separate bags')


def is_bag(path) -> bool:
    """Whether ``path`` is a bag that can be read (a bag folder, or a .mcap / .db3 file)."""
    try:
        reader = _open_reader(path)
    except BagError:
        return False
    reader.close()
    return True


BAG_OUTPUT = OutputKind('bag', is_bag, BagError)   # --overwrite replaces only a readable bag


class BagWriter:
    """Writes messages into a new rosbag2 bag, atomically.

    A path ending in ``.mcap`` or ``.db3`` names a single bag file (MCAP or sqlite3); any other
    path a bag folder (``metadata.yaml`` and one storage file named after the folder). The bag is
    written under a temporary name beside ``path`` and renamed onto it when the ``with`` block
    ends normally; on an exception (a full disk, KeyboardInterrupt) the temporary is removed and
    ``path`` is left as it was. Write with ``write(topic, stamp_ns, msg)`` (messages from the
    builders below) or ``write_raw`` (the ``cdr_*`` builders).

    Args:
        path: the bag file or folder to write.
        storage: 'mcap' (default) or 'sqlite3' for a bag folder; a file's suffix decides for it.
        overwrite: replace an existing bag (only a bag that can be read; never another file).
        outputs: the command's ``robot_id_ros.io.files.Outputs``: the bag is checked against
            its inputs and renamed with its other outputs when the ``Outputs`` block ends
            (``overwrite`` is then the ``Outputs``'); None: the bag is renamed on leaving this
            writer's block.
        custom_data: ``{key: value}`` strings for the bag's metadata ``custom_data``.

    Raises:
        BagError: ``path`` exists (without ``overwrite``, or is not a bag), is an input, or its
            folder does not exist; a storage that contradicts the suffix.
    """

    def __init__(self, path, storage=None, overwrite=False, outputs=None, custom_data=None):
        self.path, self.custom_data = Path(path), dict(custom_data or {})
        by_suffix = BAG_FILE_STORAGE.get(self.path.suffix)
        if storage not in (None, 'mcap', 'sqlite3') or storage not in (None, by_suffix or storage):
            raise BagError(f'bag {self.path}: storage {storage!r} does not fit the name (.mcap is '
                           'MCAP, .db3 sqlite3, a folder either)')
        self.storage = by_suffix or storage or 'mcap'
        self._own = outputs is None
        self.outputs = Outputs(overwrite=overwrite) if outputs is None else outputs
        if not self.outputs.checked(self.path):
            self.outputs.check(self.path, BAG_OUTPUT)
        self.ts = typestore()
        self._writer = None
        self._conns = {}

    def __enter__(self):
        from rosbags.rosbag2 import StoragePlugin, Writer

        single = self.path.suffix in BAG_FILE_STORAGE
        name = self.path.stem if single else self.path.name
        ext = {'mcap': '.mcap', 'sqlite3': '.db3'}[self.storage]
        # rosbags writes a folder <name>/ with <name><ext>: a file output is that storage file
        target = self.outputs.temp(self.path, inner=f'{name}/{name}{ext}' if single else name)
        plugin = {'mcap': StoragePlugin.MCAP, 'sqlite3': StoragePlugin.SQLITE3}[self.storage]
        try:
            self._writer = Writer(target.parent if single else target, version=BAG_FORMAT_VERSION,
                                  storage_plugin=plugin)
            self._writer.open()
            for key, value in self.custom_data.items():
                self._writer.set_custom_data(key, value)
        except BaseException:
            if self._own:
                self.outputs.discard()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        writer, self._writer = self._writer, None
        if exc is None:
            try:
                writer.close()
            except BaseException as err:   # a full disk while writing the index or metadata
                exc = err
        if exc is not None:
            try:
                writer.abort()
            except Exception:  # noqa: BLE001 - the first error is the one to report
                pass
        if self._own:   # commits, or removes the temporary (an OSError becomes one line)
            self.outputs.__exit__(None if exc is None else type(exc), exc, None)
        if exc is not None and exc_type is None:
            raise exc
        return False

    def write(self, topic, stamp_ns, msg):
        conn = self._conns.get(topic)
        if conn is None:
            conn = self._writer.add_connection(topic, msg.__msgtype__, typestore=self.ts)
            self._conns[topic] = conn
        self._writer.write(conn, int(stamp_ns), self.ts.serialize_cdr(msg, msg.__msgtype__))

    def write_raw(self, topic, msgtype, stamp_ns, raw):
        """Write an already CDR-serialised message (see the ``cdr_*`` builders below)."""
        conn = self._conns.get(topic)
        if conn is None:
            conn = self._writer.add_connection(topic, msgtype, typestore=self.ts)
            self._conns[topic] = conn
        self._writer.write(conn, int(stamp_ns), raw)

    # fast serialisation of many messages of one shape -------------------------------
    # Each builder lays the CDR bytes of N messages out in one numpy array (io/cdr_records.py)
    # and checks its first record against the rosbags serialiser of the same message: a mismatch
    # raises instead of writing a bad bag.
    def _check_first(self, records, msg):
        ref = self.ts.serialize_cdr(msg, msg.__msgtype__)
        if len(records) and bytes(records[0]) != bytes(ref):
            raise BagError(f'internal: fast CDR layout of {msg.__msgtype__} differs from rosbags')

    def cdr_wrench_stamped(self, stamps_ns, frame_id, wrench):
        """Return CDR bytes of N ``WrenchStamped`` messages.

        stamps (N,) ns, wrench (N, 6) = force N, torque Nm.
        """
        stamps = np.asarray(stamps_ns, dtype=np.int64)
        W = np.asarray(wrench, dtype='<f8').reshape(len(stamps), 6)
        out = wrench_stamped_records(stamps, frame_id, W)
        if len(out):
            self._check_first(out, self.wrench_stamped(stamps[0], frame_id, W[0, :3], W[0, 3:]))
        return out

    def cdr_joint_state(self, stamps_ns, names, position, velocity, effort):
        """CDR bytes of N ``JointState`` messages with the same names; arrays (N, n) each."""
        stamps = np.asarray(stamps_ns, dtype=np.int64)
        N = len(stamps)
        arrays = [np.asarray(a, dtype='<f8').reshape(N, -1) for a in (position, velocity, effort)]
        out = joint_state_records(stamps, names, arrays)
        if len(out):
            first = self.joint_state(stamps[0], names, arrays[0][0], arrays[1][0], arrays[2][0])
            self._check_first(out, first)
        return out

    def cdr_bool(self, value):
        """CDR bytes of one ``std_msgs/Bool``."""
        msg = self.bool(value)
        return self.ts.serialize_cdr(msg, msg.__msgtype__)

    # message builders ----------------------------------------------------------------
    def header(self, stamp_ns, frame_id=''):
        T = self.ts.types
        stamp_ns = int(stamp_ns)
        return T['std_msgs/msg/Header'](stamp=T['builtin_interfaces/msg/Time'](
            sec=stamp_ns // 1_000_000_000, nanosec=stamp_ns % 1_000_000_000), frame_id=frame_id)

    def joint_state(self, stamp_ns, names, position=(), velocity=(), effort=()):
        return self.ts.types[JOINT_STATE_TYPE](
            header=self.header(stamp_ns), name=list(names),
            position=np.asarray(position, dtype=np.float64),
            velocity=np.asarray(velocity, dtype=np.float64),
            effort=np.asarray(effort, dtype=np.float64))

    def wrench_stamped(self, stamp_ns, frame_id, force, torque):
        T = self.ts.types
        V = T['geometry_msgs/msg/Vector3']
        return T['geometry_msgs/msg/WrenchStamped'](
            header=self.header(stamp_ns, frame_id),
            wrench=T['geometry_msgs/msg/Wrench'](
                force=V(x=float(force[0]), y=float(force[1]), z=float(force[2])),
                torque=V(x=float(torque[0]), y=float(torque[1]), z=float(torque[2]))))

    def bool(self, value):
        return self.ts.types['std_msgs/msg/Bool'](data=bool(value))


def read_messages(path, topic):
    """(stamp_ns, message) pairs of any topic (for tests and tools)."""
    reader = _open_reader(path)
    ts = typestore()
    try:
        conns = [c for c in reader.connections if c.topic == topic]
        if not conns:
            raise BagError(f'bag {path} has no topic {topic}')
        return [(t, ts.deserialize_cdr(raw, c.msgtype))
                for c, t, raw in reader.messages(connections=conns)]
    finally:
        reader.close()


def count_messages(path):
    """Messages per topic of a bag, counted by reading every message (not from its metadata).

    Args:
        path: a bag directory, or a single ``.mcap`` / ``.db3`` file.

    Returns:
        dict: topic -> number of messages (topics without a message included, with 0).

    Raises:
        BagError: no such bag, or a bag that cannot be opened.
    """
    reader = _open_reader(path)
    try:
        counts = {c.topic: 0 for c in reader.connections}
        for c, _t, _raw in reader.messages():
            counts[c.topic] += 1
    finally:
        reader.close()
    return counts
