# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot_id_ros.io.files: the atomic output helper every robot-id command writes through."""
import os

import pytest

from cli_output_helpers import full_disk, snapshot
from robot_id_ros.errors import OperationError
from robot_id_ros.io.files import FILE_OUTPUT, OutputError, OutputKind, Outputs, atomic_write_text

FOLDER = OutputKind('folder of notes', lambda p: (p / 'a.txt').is_file())


def test_atomic_write_text_interrupted_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    (tmp_path / 'm.yaml').write_text('old\n')

    def fsync(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, 'fsync', fsync)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(tmp_path / 'm.yaml', 'new\n')
    assert snapshot(tmp_path) == {'m.yaml': b'old\n'}


def test_a_failed_second_rename_puts_back_a_replaced_folder(tmp_path, monkeypatch):
    (tmp_path / 'bag').mkdir()
    (tmp_path / 'bag' / 'a.txt').write_text('old bag\n')
    (tmp_path / 'z.csv').write_text('old csv\n')
    before = snapshot(tmp_path)
    outputs = Outputs(overwrite=True)
    outputs.check(tmp_path / 'bag', FOLDER)
    outputs.check(tmp_path / 'z.csv', FILE_OUTPUT)
    real = os.replace

    def replace(src, dst):
        if os.path.basename(dst) == 'z.csv':
            raise full_disk()
        return real(src, dst)

    monkeypatch.setattr(os, 'replace', replace)
    with pytest.raises(OperationError, match=r'cannot write .*z\.csv: No space left on device'):
        with outputs:
            (outputs.temp(tmp_path / 'bag', directory=True) / 'a.txt').write_text('new bag\n')
            outputs.temp(tmp_path / 'z.csv').write_text('new csv\n')
    assert snapshot(tmp_path) == before
    monkeypatch.setattr(os, 'replace', real)
    with outputs:
        (outputs.temp(tmp_path / 'bag', directory=True) / 'a.txt').write_text('new bag\n')
        outputs.temp(tmp_path / 'z.csv').write_text('new csv\n')
    assert snapshot(tmp_path) == {'bag/a.txt': b'new bag\n', 'z.csv': b'new csv\n'}


def test_checks_name_the_path_and_the_flag(tmp_path):
    (tmp_path / 'in.mcap').write_text('x')
    (tmp_path / 'notes').mkdir()
    outputs = Outputs(inputs=[tmp_path / 'in.mcap'])
    with pytest.raises(OutputError, match=r'notes exists: not replacing it without --overwrite'):
        outputs.check(tmp_path / 'notes', FOLDER)
    with pytest.raises(OutputError, match=r'in\.mcap is an input'):
        Outputs(inputs=[tmp_path / 'in.mcap'], overwrite=True).check(tmp_path / 'in.mcap')
    with pytest.raises(OutputError, match=r'holds the input'):
        Outputs(inputs=[tmp_path / 'in.mcap'], overwrite=True).check(tmp_path, FOLDER)
    with pytest.raises(OutputError, match=r'is not a folder of notes: --overwrite replaces only'):
        Outputs(overwrite=True).check(tmp_path / 'notes', FOLDER)
    with pytest.raises(OutputError, match=r'output folder .*nope does not exist'):
        outputs.check(tmp_path / 'nope' / 'x')
    outputs.check(tmp_path / 'x')
    with pytest.raises(OutputError, match='given as two outputs'):
        outputs.check(tmp_path / 'notes' / '..' / 'x')


@pytest.mark.parametrize('suffix', ['.png', '.pdf', '.svg', '.svgz', '.jpg', '.tif', '.webp',
                                    '.eps', '.ps'])
def test_a_plot_is_recognised_by_its_content(tmp_path, suffix):
    """--overwrite replaces a plot that matplotlib wrote, and not a user's file of that name."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    from robot_id_ros.io.files import PLOT_OUTPUT

    fig = plt.figure()
    plt.plot([0, 1])
    fig.savefig(tmp_path / f'p{suffix}')
    plt.close(fig)
    (tmp_path / f'n{suffix}').write_text('notes on Matplotlib and <svg> tags\n')
    assert PLOT_OUTPUT.is_same(tmp_path / f'p{suffix}')
    assert not PLOT_OUTPUT.is_same(tmp_path / f'n{suffix}')
