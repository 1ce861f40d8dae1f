"""A crash-safe rosbag2 bag: written in parts, each ``commit()`` makes the part readable.

Each ``commit()`` closes the current MCAP part and atomically rewrites ``metadata.yaml`` to list
every completed part, so a recorder killed with SIGKILL leaves a bag that
``robot_id_ros.io.bags.read_joint_states`` reads (holding every committed part), and
``resume=True`` continues it.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import yaml

from robot_id_ros.errors import OperationError
from robot_id_ros.io.bags import BAG_FORMAT_VERSION, typestore
from robot_id_ros.io.files import atomic_write_text

PART_DIR_PREFIX = '.part_'        # hidden folder of the part in progress (readers never see it)


class RecordingError(OperationError):
    """A recording that cannot go on; the message says what happened and where the data is."""


class PartedBagWriter:
    """A rosbag2 bag directory (MCAP storage) written as a sequence of closed parts.

    ``write`` appends serialized (CDR) messages to the open part; ``commit`` closes it, moves it
    into the bag as ``<name>_<k>.mcap`` and atomically rewrites ``metadata.yaml`` to list every
    committed part. A process killed at any moment leaves a bag that rosbag2 readers (``rosbags``,
    ``ros2 bag``, ``bags.read_joint_states``) open, holding everything up to the last commit;
    the part in progress lives in a hidden ``.part_<k>`` folder that readers never see.

    resume=True continues an existing bag (new parts after the committed ones; leftovers of an
    interrupted part are deleted). Errors (unwritable folder, full disk) raise ``RecordingError``
    naming the path and what is already safe.

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
        for leftover in self.path.glob(f'{PART_DIR_PREFIX}*'):
            shutil.rmtree(leftover, ignore_errors=True)
        listed = {p['path'] for p in self.parts}
        for f in self.path.glob(f'{self.name}_*.mcap'):
            if f.name not in listed:  # moved in but not yet listed when the recorder died
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
        nums = [int(p['path'].rsplit('_', 1)[1].split('.')[0]) for p in self.parts]
        self._next_index = max(nums) + 1 if nums else 0

    @property
    def committed_parts(self):
        """Number of parts the bag lists (readable whatever happens next)."""
        return len(self.parts)

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
        with open(src, 'rb+') as f:
            os.fsync(f.fileno())
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
