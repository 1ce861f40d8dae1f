# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A crash-safe rosbag2 bag: written in parts, each ``commit()`` makes the part readable.

Each ``commit()`` closes the current MCAP part and atomically rewrites ``metadata.yaml`` to list
every completed part, so a recorder killed with SIGKILL leaves a bag that
``robot_id_ros.io.bags.read_joint_states`` reads (holding every committed part), and
``resume=True`` continues it. ``finalize()`` (or ``finalize_bag(path)`` after a crash) merges the
parts of a finished recording into one MCAP file ``<name>/<name>.mcap``, crash-safely.
"""
from __future__ import annotations

import heapq
import os
import shutil
from contextlib import ExitStack
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

import yaml

from robot_id_ros.errors import OperationError
from robot_id_ros.io.bags import BAG_FORMAT_VERSION, count_messages, typestore
from robot_id_ros.io.files import atomic_write_text, fsync_dir

PART_DIR_PREFIX = '.part_'        # hidden folder of the part in progress (readers never see it)
MERGE_DIR = '.merge'              # hidden folder of a merge in progress (readers never see it)


class RecordingError(OperationError):
    """A recording that cannot go on; the message says what happened and where the data is."""


@dataclass
class MergeResult:
    """What ``PartedBagWriter.finalize`` did.

    Attributes:
        path: the bag's one storage file ``<bag>/<name>.mcap`` (None: the bag holds no message).
        message_count: messages in the bag.
        topic_counts: topic -> messages, counted by reading the merged file back.
        parts_merged: parts merged by this call (0: the bag was one file already).
    """

    path: Path | None
    message_count: int = 0
    topic_counts: dict = field(default_factory=dict)
    parts_merged: int = 0


def _part_number(file_name, bag_name):
    """Return k of a part file ``<bag_name>_<k>.mcap``; None for another (the merged) file."""
    head, tail = f'{bag_name}_', '.mcap'
    if not (file_name.startswith(head) and file_name.endswith(tail)):
        return None
    k = file_name[len(head):-len(tail)]
    return int(k) if k.isdigit() else None


class PartedBagWriter:
    """A rosbag2 bag directory (MCAP storage) written as a sequence of closed parts.

    ``write`` appends serialized (CDR) messages to the open part; ``commit`` closes it, moves it
    into the bag as ``<name>_<k>.mcap`` and atomically rewrites ``metadata.yaml`` to list every
    committed part. A process killed at any moment leaves a bag that rosbag2 readers (``rosbags``,
    ``ros2 bag``, ``bags.read_joint_states``) open, holding everything up to the last commit;
    the part in progress lives in a hidden ``.part_<k>`` folder that readers never see.

    resume=True continues an existing bag (new parts after the committed ones; leftovers of an
    interrupted part or merge are deleted). ``finalize()`` ends a recording: the parts become one
    file ``<name>.mcap`` that Foxglove or PlotJuggler open in one go. Errors (unwritable folder,
    full disk) raise ``RecordingError`` naming the path and what is already safe.

    Args:
        path: the bag directory (created; its parent folder must exist and be writable).
        resume: continue the bag at ``path`` instead of refusing an existing path.
    """

    def __init__(self, path, resume=False):
        self.path = Path(path)
        self.name = self.path.name
        self.parts = []            # metadata 'files' entries of committed parts
        self.topics = {}           # topic -> {'topic_metadata': ..., 'message_count': n}
        self.messages_written = 0
        self._writer = None
        self._conns = {}
        self._part_dir = None
        self._part_index = None
        self._part_messages = 0
        self._next_index = 0
        self._check_parent()
        if self.path.exists():
            if not resume:
                raise RecordingError(f'output bag {self.path} exists; choose a new path (or '
                                     'resume it)')
            self._resume()
        else:
            try:
                self.path.mkdir()
            except OSError as exc:
                raise RecordingError(f'cannot create bag folder {self.path}: '
                                     f'{exc.strerror or exc}') from exc

    def _check_parent(self):
        parent = self.path.parent
        if not parent.is_dir():
            raise RecordingError(f'output folder {parent} does not exist; create it or choose '
                                 'another output path')
        if not os.access(parent, os.W_OK | os.X_OK):
            raise RecordingError(f'output folder {parent} is not writable; choose another '
                                 'output path')

    def _resume(self):
        """Read the committed parts of the bag at ``path`` and delete what no commit listed."""
        if not self.path.is_dir():
            raise RecordingError(f'{self.path} exists and is not a bag directory')
        meta = self.path / 'metadata.yaml'
        if meta.is_file():
            self._load(meta)
        for leftover in [*self.path.glob(f'{PART_DIR_PREFIX}*'), self.path / MERGE_DIR]:
            shutil.rmtree(leftover, ignore_errors=True)
        listed = {p['path'] for p in self.parts}
        merged = self.path / self.merged_name
        for f in [*self.path.glob(f'{self.name}_*.mcap'), merged]:
            # a part moved in but not yet listed when the recorder died; a merged file (or the
            # part-named link to one) whose listing a crash during finalize() prevented: the
            # listed files hold all of their messages
            if f.name not in listed and f.is_file():
                f.unlink()

    def _load(self, meta):
        try:
            info = yaml.safe_load(meta.read_text())['rosbag2_bagfile_information']
        except Exception as exc:  # noqa: BLE001
            raise RecordingError(f'cannot resume {self.path}: unreadable metadata.yaml '
                                 f'({exc})') from exc
        self.parts = list(info.get('files') or [])
        for t in info.get('topics_with_message_count') or []:
            self.topics[t['topic_metadata']['name']] = t
        self.messages_written = int(info.get('message_count', 0))
        # next part numbers continue after the highest committed one
        nums = [_part_number(p['path'], self.name) for p in self.parts]
        nums = [k for k in nums if k is not None]
        self._next_index = max(nums) + 1 if nums else 0

    @property
    def committed_parts(self):
        """Number of parts the bag lists (readable whatever happens next)."""
        return len(self.parts)

    @property
    def merged_name(self):
        """File name of the bag once ``finalize`` merged it: ``<name>.mcap``."""
        return f'{self.name}.mcap'

    def _open_part(self):
        from rosbags.rosbag2 import StoragePlugin, Writer

        k = self._next_index
        self._next_index = k + 1
        self._part_index = k
        self._part_dir = self.path / f'{PART_DIR_PREFIX}{k:05d}'
        if self._part_dir.exists():
            shutil.rmtree(self._part_dir)
        try:
            self._writer = Writer(self._part_dir, version=BAG_FORMAT_VERSION,
                                  storage_plugin=StoragePlugin.MCAP)
            self._writer.open()
        except Exception as exc:  # noqa: BLE001
            self._writer = None
            raise self._error('cannot open a new bag part', exc) from exc
        self._conns = {}
        self._part_messages = 0

    def _error(self, what, exc):
        detail = getattr(exc, 'strerror', None) or str(exc)
        return RecordingError(f'{what} in {self.path}: {detail}; the {len(self.parts)} '
                              f'committed part(s) ({self.messages_written} messages) are intact '
                              'and readable')

    def write(self, topic, msgtype, stamp_ns, data: bytes):
        """Append one serialized message to the part in progress (opened on the first write).

        Args:
            topic: topic name.
            msgtype: ROS message type, e.g. ``sensor_msgs/msg/JointState``.
            stamp_ns: bag time of the message, ns.
            data: the CDR-serialized message.
        """
        if self._writer is None:
            self._open_part()
        conn = self._conns.get(topic)
        try:
            if conn is None:
                conn = self._writer.add_connection(topic, msgtype, typestore=typestore())
                self._conns[topic] = conn
            self._writer.write(conn, int(stamp_ns), bytes(data))
        except Exception as exc:  # noqa: BLE001 - OSError from a full disk, rosbags errors
            self.abort_part()
            raise self._error('cannot write to the bag', exc) from exc
        self._part_messages += 1

    def abort_part(self):
        """Drop the part in progress (its data is lost; committed parts are untouched)."""
        w, self._writer = self._writer, None
        if w is not None:
            try:
                w.abort()
            except Exception:  # noqa: BLE001
                pass
        if self._part_dir is not None:
            shutil.rmtree(self._part_dir, ignore_errors=True)
            self._part_dir = None

    def commit(self):
        """Close the part in progress and make it part of the bag.

        Returns:
            The number of messages it held (0: nothing to commit).
        """
        if self._writer is None:
            return 0
        if self._part_messages == 0:
            self.abort_part()
            return 0
        w, self._writer = self._writer, None
        final = self.path / f'{self.name}_{self._part_index:05d}.mcap'
        try:
            w.close()
            parts, topics = self._move_part_in(final)
        except Exception as exc:  # noqa: BLE001
            shutil.rmtree(self._part_dir, ignore_errors=True)
            self._part_dir = None
            if final.exists() and final.name not in {p['path'] for p in self.parts}:
                final.unlink()
            raise self._error('cannot commit a bag part', exc) from exc
        shutil.rmtree(self._part_dir, ignore_errors=True)
        self._part_dir = None
        self.parts, self.topics = parts, topics
        n = self._part_messages
        self.messages_written += n
        return n

    def _move_part_in(self, final):
        """Move the closed part to ``final`` and list it in ``metadata.yaml``; (parts, topics)."""
        info = yaml.safe_load((self._part_dir / 'metadata.yaml').read_text())
        info = info['rosbag2_bagfile_information']
        src = self._part_dir / f'{self._part_dir.name}.mcap'
        _fsync_file(src)
        os.replace(src, final)
        entry = dict(info['files'][0])
        entry['path'] = final.name
        parts = self.parts + [entry]
        topics = {name: dict(v) for name, v in self.topics.items()}
        for t in info['topics_with_message_count']:
            name = t['topic_metadata']['name']
            if name in topics:
                topics[name]['message_count'] = (int(topics[name]['message_count'])
                                                 + int(t['message_count']))
            else:
                topics[name] = t
        self._write_metadata(parts, topics, info)
        return parts, topics

    def _write_metadata(self, parts, topics, template):
        start = min(p['starting_time']['nanoseconds_since_epoch'] for p in parts)
        end = max(p['starting_time']['nanoseconds_since_epoch'] + p['duration']['nanoseconds']
                  for p in parts)
        meta = {
            'version': template.get('version', BAG_FORMAT_VERSION),
            'storage_identifier': 'mcap',
            'relative_file_paths': [p['path'] for p in parts],
            'duration': {'nanoseconds': int(end - start)},
            'starting_time': {'nanoseconds_since_epoch': int(start)},
            'message_count': int(sum(p['message_count'] for p in parts)),
            'topics_with_message_count': list(topics.values()),
            'compression_format': '',
            'compression_mode': '',
            'files': parts,
            'custom_data': None,
            'ros_distro': template.get('ros_distro', 'rosbags'),
        }
        atomic_write_text(self.path / 'metadata.yaml',
                          yaml.safe_dump({'rosbag2_bagfile_information': meta}, sort_keys=False))

    def close(self):
        """Commit the part in progress. The bag stays valid whether or not this is called.

        Returns:
            The number of messages committed.
        """
        return self.commit()

    # merging a finished recording into one file --------------------------------------------
    def finalize(self):
        """Commit the part in progress and merge every part into one MCAP file.

        The bag becomes ``<path>/<name>.mcap`` + ``metadata.yaml`` (rosbag2 version
        ``BAG_FORMAT_VERSION``), every message in bag-time order (see ``merge_mcap_files``).
        Crash safe: the merged file is written in a hidden ``.merge`` folder, read back and its
        message count per topic checked against the listed parts, moved in, then listed in
        ``metadata.yaml`` (the atomic switch); only then are the parts deleted. A crash at any
        point leaves a readable bag (the parts, or the merged file); ``finalize_bag(path)`` or a
        resume then finish the merge. Calling it again on a merged bag does nothing; writing after
        it starts new parts that the next ``finalize`` merges with the merged file.

        Returns:
            MergeResult: the merged file and its message counts.

        Raises:
            RecordingError: the part in progress cannot be committed, or the merge fails (full
                disk, unreadable part, count mismatch); the parts are then intact and readable.
        """
        self.commit()
        merged = self.path / self.merged_name
        listed = [p['path'] for p in self.parts]
        counts = {t: int(v['message_count']) for t, v in self.topics.items()}
        if not listed:
            return MergeResult(None)
        if listed == [merged.name]:
            return MergeResult(merged, self.messages_written, counts, 0)
        if merged.name in listed:        # resumed after an earlier finalize
            self._relabel_merged()
        tmp_root = self.path / MERGE_DIR
        try:
            info, read_back = self._write_merged(tmp_root, counts)
            src = tmp_root / self.name / merged.name
            _fsync_file(src)
            os.replace(src, merged)
            fsync_dir(self.path)
        except Exception as exc:  # noqa: BLE001 - OSError, rosbags errors, count mismatch
            shutil.rmtree(tmp_root, ignore_errors=True)
            raise self._merge_error(exc) from exc
        entry = dict(info['files'][0], path=merged.name)
        topics = {t['topic_metadata']['name']: t for t in info['topics_with_message_count']}
        try:
            self._write_metadata([entry], topics, info)   # the switch to the merged file
        except Exception as exc:  # noqa: BLE001
            merged.unlink(missing_ok=True)
            shutil.rmtree(tmp_root, ignore_errors=True)
            raise self._merge_error(exc) from exc
        old, self.parts, self.topics = self.parts, [entry], topics
        for p in old:
            (self.path / p['path']).unlink(missing_ok=True)
        shutil.rmtree(tmp_root, ignore_errors=True)
        return MergeResult(merged, self.messages_written, read_back, len(old))

    def _write_merged(self, tmp_root, expected):
        """Merge the listed parts into ``tmp_root/<name>/<name>.mcap`` and check it.

        Args:
            tmp_root: the hidden merge folder (replaced).
            expected: topic -> message count the bag's metadata lists.

        Returns:
            (the merged bag's metadata 'rosbag2_bagfile_information', topic -> messages read
            back from the merged file).
        """
        shutil.rmtree(tmp_root, ignore_errors=True)
        tmp_root.mkdir()
        out = tmp_root / self.name
        written = merge_mcap_files([self.path / p['path'] for p in self.parts], out)
        read_back = count_messages(out / self.merged_name)
        for what, counts in (('written', written), ('read back', read_back)):
            if counts != expected:
                raise RecordingError(f'merged file {what} holds {counts} messages per topic, the '
                                     f'parts list {expected}')
        info = yaml.safe_load((out / 'metadata.yaml').read_text())
        return info['rosbag2_bagfile_information'], read_back

    def _relabel_merged(self):
        """Give the merged file of an earlier ``finalize`` a part name (frees ``<name>.mcap``).

        Each step leaves a readable bag: a hard link (else a copy) under the part name, the listing
        switched to it, the old name removed (a crash leaves an unlisted name; resume deletes it).
        """
        old = self.path / self.merged_name
        new = self.path / f'{self.name}_{self._next_index:05d}.mcap'
        self._next_index += 1
        try:
            new.unlink(missing_ok=True)
            try:
                os.link(old, new)
            except OSError:
                shutil.copyfile(old, new)
                _fsync_file(new)
            parts = [dict(p, path=new.name) if p['path'] == old.name else p for p in self.parts]
            self._write_metadata(parts, self.topics, {})
            self.parts = parts
            old.unlink()
        except Exception as exc:  # noqa: BLE001
            raise self._merge_error(exc) from exc

    def _merge_error(self, exc):
        detail = getattr(exc, 'strerror', None) or str(exc)
        return RecordingError(f'cannot merge the parts of {self.path}: {detail}; its '
                              f'{len(self.parts)} part(s) ({self.messages_written} messages) are '
                              'intact and readable; run finalize_bag on it again to merge them')


def _fsync_file(path):
    """Flush a file's data to disk (before it is renamed into a bag)."""
    with open(path, 'rb+') as f:
        os.fsync(f.fileno())


def merge_mcap_files(files, out):
    """Write the messages of rosbag2 MCAP storage files into a new bag, in bag-time order.

    Streams with bounded memory: files whose time spans do not overlap (the parts of a recording)
    are copied one after the other; only files that overlap in time are open together, merged
    with a heap (ties: the earlier-starting file first, then the order of ``files``). Topics keep
    the type, message definition, type hash, serialization format and QoS of the first file that
    has them.

    Args:
        files: the ``.mcap`` files.
        out: the new bag folder (must not exist); it gets ``<out name>.mcap`` + metadata.yaml.

    Returns:
        dict: topic -> messages written.
    """
    from rosbags.rosbag2 import Reader, StoragePlugin, Writer

    writer = Writer(out, version=BAG_FORMAT_VERSION, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    targets, counts = {}, {}
    try:
        for group in _overlapping_groups(files):
            with ExitStack() as stack:
                readers = [stack.enter_context(Reader(f)) for f in group]
                for c in (c for r in readers for c in r.connections):
                    if (c.topic, c.msgtype) not in targets:
                        targets[(c.topic, c.msgtype)] = _copy_connection(writer, c)
                        counts.setdefault(c.topic, 0)
                streams = [((t, targets[(c.topic, c.msgtype)], raw) for c, t, raw in r.messages())
                           for r in readers]
                for t, conn, raw in heapq.merge(*streams, key=itemgetter(0)):
                    writer.write(conn, t, raw)
                    counts[conn.topic] += 1
        writer.close()
    except BaseException:
        writer.abort()
        raise
    return counts


def _overlapping_groups(files):
    """Return ``files`` by first message, in groups that overlap in time.

    A file joins the group when it starts before every message of the group has passed.
    """
    from rosbags.rosbag2 import Reader

    spans = []
    for k, f in enumerate(files):
        with Reader(f) as r:
            spans.append((r.start_time, k, r.end_time, f))  # end_time: after the last message
    groups, group_end = [], None
    for start, _k, end, f in sorted(spans, key=itemgetter(0, 1)):
        if group_end is None or start >= group_end:
            groups.append([])
            group_end = end
        groups[-1].append(f)
        group_end = max(group_end, end)
    return groups


def _copy_connection(writer, c):
    """Add a connection to ``writer`` like the read connection ``c`` (same definition and QoS)."""
    ext = c.ext
    kw = {'serialization_format': getattr(ext, 'serialization_format', 'cdr'),
          'offered_qos_profiles': getattr(ext, 'offered_qos_profiles', ())}
    if c.digest and c.msgdef.data:
        return writer.add_connection(c.topic, c.msgtype, msgdef=c.msgdef.data, rihs01=c.digest,
                                     **kw)
    return writer.add_connection(c.topic, c.msgtype, typestore=typestore(), **kw)


def finalize_bag(path):
    """Merge the parts of a recording into one file, after a crash or when nothing else will.

    Deletes the leftovers of an interrupted part or merge (as ``resume=True`` does) and runs
    ``PartedBagWriter.finalize``. A bag that is one file already is left as it is.

    Args:
        path: the bag folder a ``PartedBagWriter`` wrote.

    Returns:
        MergeResult: the merged file and its message counts.

    Raises:
        RecordingError: ``path`` is not a bag folder, or the merge fails (the parts stay intact).
    """
    path = Path(path)
    if not (path / 'metadata.yaml').is_file():
        raise RecordingError(f'{path} is not a bag folder with metadata.yaml; nothing to merge')
    return PartedBagWriter(path, resume=True).finalize()
