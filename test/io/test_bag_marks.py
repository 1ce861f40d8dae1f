# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The mark a command leaves in its bags' metadata is read back from each storage, and anything
that is not a marked bag (a recording, a truncated or foreign file) reads as no mark."""
import pytest

from robot_id_ros.io.bag_marks import MAX_METADATA_BYTES, bag_custom_data, mark, written_by
from robot_id_ros.io.bags import BagWriter

STAMP_NS = 1_700_000_000 * 10 ** 9


def write(path, custom_data=None):
    with BagWriter(path, custom_data=custom_data) as bw:
        for k in range(3):
            bw.write('/joint_states', STAMP_NS + k, bw.joint_state(STAMP_NS + k, ['j'], [0.0],
                                                                   [0.0], [0.0]))
    return path


@pytest.mark.parametrize('name', ['folder', 'single.mcap', 'single.db3'])
def test_the_mark_is_read_back_from_each_storage(tmp_path, name):
    assert written_by(write(tmp_path / name, mark('robot-id estimate'))) == 'robot-id estimate'
    assert written_by(write(tmp_path / ('plain_' + name))) is None


def test_what_is_no_marked_bag_reads_as_no_mark(tmp_path):
    marked = write(tmp_path / 'marked.mcap', mark('robot-id estimate'))
    data = marked.read_bytes()
    cases = {'truncated.mcap': data[:len(data) // 2], 'garbage.mcap': b'\x00' * 100,
             'tiny.mcap': b'x', 'not_sqlite.db3': b'SQLite format 2\x00' + bytes(200),
             'empty.db3': b''}
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        assert bag_custom_data(tmp_path / name) == {}, name
    huge = tmp_path / 'huge'
    huge.mkdir()
    (huge / 'metadata.yaml').write_text('custom_data: {robot_id_ros.written_by: x}\n'
                                        + '#' * MAX_METADATA_BYTES)
    assert bag_custom_data(huge) == {}
    assert bag_custom_data(tmp_path / 'missing') == {}
    assert bag_custom_data(tmp_path / 'notes.txt') == {}
