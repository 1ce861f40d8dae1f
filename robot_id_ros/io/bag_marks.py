# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Which command wrote a bag: a mark in the bag's own metadata (rosbag2 ``custom_data``).

A command that writes bags marks them (``BagWriter(custom_data=mark(...))``), and its
``--overwrite`` replaces only a bag with its mark (``marked_bag_output``): a recorder's raw
recording, or any other bag, is never replaced. The mark is read from where rosbag2 keeps the
metadata: ``metadata.yaml`` of a bag folder, the ``rosbag2`` metadata record of a single .mcap
file, the ``metadata`` table of a single .db3 file. Reading is bounded: a metadata text larger
than ``MAX_METADATA_BYTES`` is taken as no mark.
"""
from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

import yaml

from robot_id_ros.io.bags import BagError, is_bag
from robot_id_ros.io.files import OutputKind

MARK_KEY = 'robot_id_ros.written_by'
MAX_METADATA_BYTES = 1 << 20
_MCAP_MAGIC = b'\x89MCAP0\r\n'
_MCAP_FOOTER, _MCAP_METADATA, _MCAP_METADATA_INDEX = 0x02, 0x0C, 0x0D


def mark(command) -> dict:
    """Return the ``custom_data`` that marks a bag as written by ``command``."""
    return {MARK_KEY: command}


def written_by(path):
    """Return the command that marked the bag ``path``, or None (no mark, or not readable)."""
    value = bag_custom_data(path).get(MARK_KEY)
    return value if isinstance(value, str) else None


def marked_bag_output(command, fix='') -> OutputKind:
    """Return the output kind of the bags ``command`` writes: a bag with its mark.

    Args:
        command: the mark's value ('robot-id estimate').
        fix: the way out named when an existing path is not such a bag.
    """
    def is_same(path):
        return written_by(path) == command and is_bag(path)
    return OutputKind(f'bag written by {command}', is_same, BagError, fix)


def bag_custom_data(path) -> dict:
    """Return the ``custom_data`` of the bag ``path`` ({} when it has none or cannot be read)."""
    path = Path(path)
    try:
        if path.is_dir():
            text = _bounded_text(path / 'metadata.yaml')
        elif path.suffix == '.mcap':
            text = _mcap_metadata(path)
        elif path.suffix == '.db3':
            text = _db3_metadata(path)
        else:
            return {}
        info = yaml.safe_load(text) if text else None
    except (OSError, ValueError, struct.error, sqlite3.Error, yaml.YAMLError):
        return {}
    if isinstance(info, dict) and 'rosbag2_bagfile_information' in info:
        info = info['rosbag2_bagfile_information']     # a folder's metadata.yaml
    custom = info.get('custom_data') if isinstance(info, dict) else None
    return custom if isinstance(custom, dict) else {}


def _bounded_text(path):
    with open(path, 'rb') as f:
        data = f.read(MAX_METADATA_BYTES + 1)
    return None if len(data) > MAX_METADATA_BYTES else data.decode('utf-8')


def _db3_metadata(path):
    con = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    try:
        row = con.execute('SELECT metadata FROM metadata ORDER BY rowid DESC LIMIT 1').fetchone()
    finally:
        con.close()
    text = row[0] if row else None
    return text if isinstance(text, str) and len(text) <= MAX_METADATA_BYTES else None


def _read(f, n):
    data = f.read(n)
    if len(data) != n:
        raise ValueError('truncated MCAP record')
    return data


def _string(buf, at):
    (n,) = struct.unpack_from('<I', buf, at)
    if at + 4 + n > len(buf):
        raise ValueError('MCAP string beyond its record')
    return buf[at + 4:at + 4 + n].decode('utf-8'), at + 4 + n


def _mcap_metadata(path):
    """Return the ``serialized_metadata`` of a .mcap file's ``rosbag2`` metadata record."""
    with open(path, 'rb') as f:
        size = f.seek(0, 2)
        f.seek(size - 37)
        footer = _read(f, 37)
        if footer[-8:] != _MCAP_MAGIC or footer[0] != _MCAP_FOOTER:
            return None
        (at,) = struct.unpack_from('<Q', footer, 9)      # the summary's start
        while 0 < at < size - 37:
            f.seek(at)
            op, length = struct.unpack('<BQ', _read(f, 9))
            if op == _MCAP_FOOTER:
                return None
            if op == _MCAP_METADATA_INDEX and length <= MAX_METADATA_BYTES:
                body = _read(f, length)
                offset, record_length = struct.unpack_from('<QQ', body)
                name, _ = _string(body, 16)
                if name == 'rosbag2' and record_length <= MAX_METADATA_BYTES:
                    return _metadata_record(f, offset, record_length)
            at += 9 + length
    return None


def _metadata_record(f, offset, length):
    f.seek(offset)
    record = _read(f, length)
    if record[0] != _MCAP_METADATA:
        return None
    _, at = _string(record, 9)                       # the record's name
    (map_length,) = struct.unpack_from('<I', record, at)
    at, end = at + 4, at + 4 + map_length
    while at < end:
        key, at = _string(record, at)
        value, at = _string(record, at)
        if key == 'serialized_metadata':
            return value
    return None
