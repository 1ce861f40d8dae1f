# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id identify, payload, design-excitation and validate outputs (issue 14 item 3): a model
and its report land together or not at all; --overwrite replaces only an output of the same kind
and never an input; without it no existing file is touched; a full disk or Ctrl-C leaves no
temporary; every error is one line on stderr naming the file."""
import os

import pytest
import yaml

from cli_output_helpers import full_disk, refuse_temporaries_in, snapshot
from robot_id_ros.cli.main import main
from robot_id_ros.io.model_file import load_model


def run(*argv):
    return main([str(a) for a in argv])


def error_line(capsys):
    cap = capsys.readouterr()
    assert 'error:' not in cap.out, cap.out
    lines = [x for x in cap.err.splitlines() if 'error:' in x]
    assert len(lines) == 1, cap.err
    return lines[0]


def listing(d):
    return sorted(p.name for p in d.iterdir())


@pytest.fixture
def work(inputs, tmp_path):
    d, model_file, bag = inputs
    (tmp_path / 'in.mcap').write_bytes(bag.read_bytes())
    return tmp_path, model_file, tmp_path / 'in.mcap'


def identify(bag, out, *flags):
    return run('identify', '--data', bag, '--out', out, '--max-samples', 400, *flags)


def test_identify_touches_no_existing_file_and_overwrites_only_a_model(work, capsys):
    d, model_file, bag = work
    (d / 'notes.yaml').write_text('shopping: [milk]\n')
    before = snapshot(d)
    for flags in ([], ['--overwrite']):
        assert identify(bag, d / 'notes.yaml', *flags) == 2
        line = error_line(capsys)
        assert str(d / 'notes.yaml') in line and '--overwrite' in line
    assert identify(bag, bag, '--overwrite') == 2
    assert 'is an input' in error_line(capsys)
    assert snapshot(d) == before
    assert identify(bag, d / 'm.yaml', '--report', d / 'rep') == 0
    first = (d / 'm.yaml').read_text()
    assert identify(bag, d / 'm.yaml') == 2       # an existing model: only with the flag
    assert str(d / 'm.yaml') in error_line(capsys)
    assert (d / 'm.yaml').read_text() == first
    assert identify(bag, d / 'm.yaml', '--report', d / 'rep', '--no-offset', '--overwrite') == 0
    assert load_model(d / 'm.yaml').identification['options']['offset'] is False
    assert listing(d) == ['in.mcap', 'm.yaml', 'notes.yaml', 'rep']


@pytest.mark.parametrize('error', [full_disk, KeyboardInterrupt])
def test_model_and_report_land_together_or_not_at_all(work, capsys, monkeypatch, error):
    """The disk fills (or Ctrl-C comes) while the report's plots are written: no model without
    its report, no temporary, exit 2 with one line naming the file (130 on Ctrl-C)."""
    import matplotlib.figure

    d, model_file, bag = work

    def savefig(self, fname, **kw):
        with open(fname, 'wb') as f:
            f.write(b'\x89PNG')
        raise error()

    monkeypatch.setattr(matplotlib.figure.Figure, 'savefig', savefig)
    rc = identify(bag, d / 'm.yaml', '--report', d / 'rep')
    if error is KeyboardInterrupt:
        assert rc == 130
    else:
        assert rc == 2
        line = error_line(capsys)
        assert str(d / 'rep') in line and 'No space left on device' in line
    assert listing(d) == ['in.mcap']


def test_a_failed_rename_puts_the_old_model_back(work, capsys, monkeypatch):
    """The report cannot be renamed into place after the model was: the old model is back, the
    new one and every temporary gone."""
    d, model_file, bag = work
    assert identify(bag, d / 'm.yaml') == 0
    old = (d / 'm.yaml').read_bytes()
    real_rename, real_replace = os.rename, os.replace

    def failing(real):
        def move(src, dst, *a, **kw):
            if os.path.basename(dst) == 'rep':
                raise full_disk()
            return real(src, dst, *a, **kw)
        return move

    monkeypatch.setattr(os, 'rename', failing(real_rename))
    monkeypatch.setattr(os, 'replace', failing(real_replace))
    assert identify(bag, d / 'm.yaml', '--report', d / 'rep', '--overwrite', '--no-offset') == 2
    assert 'No space left on device' in error_line(capsys)
    assert (d / 'm.yaml').read_bytes() == old
    assert listing(d) == ['in.mcap', 'm.yaml']


def test_an_interrupted_model_write_leaves_no_temporary(work, monkeypatch):
    """Ctrl-C while the model file is flushed: the old model stays, no m.yaml.tmp."""
    d, model_file, bag = work
    assert identify(bag, d / 'm.yaml') == 0
    old = (d / 'm.yaml').read_bytes()

    def fsync(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, 'fsync', fsync)
    assert identify(bag, d / 'm.yaml', '--overwrite', '--no-offset') == 130
    assert (d / 'm.yaml').read_bytes() == old
    assert listing(d) == ['in.mcap', 'm.yaml']


class _Payload:
    def to_dict(self):
        return {'mass_kg': 0.5, 'com_m': [0.0, 0.0, 0.05], 'mass_std_kg': 0.01,
                'com_std_m': [0.001] * 3, 'poses': 4, 'method': 'stub'}


@pytest.fixture
def payload_stubbed(monkeypatch):
    """robot-id payload with the estimation stubbed out (the outputs are under test here)."""
    from robot_id_ros.cli import payload

    monkeypatch.setattr(payload, '_estimate', lambda *a, **kw: _Payload().to_dict())


def test_payload_on_a_full_disk_leaves_no_temporary(work, capsys, monkeypatch, payload_stubbed):
    d, model_file, bag = work

    def fsync(fd):
        raise full_disk()

    monkeypatch.setattr(os, 'fsync', fsync)
    assert run('payload', '--model', model_file, '--data', bag, '--out', d / 'o') == 2
    line = error_line(capsys)
    assert str(d / 'o') in line and 'No space left on device' in line
    assert listing(d) == ['in.mcap']


def test_payload_touches_no_existing_file(work, capsys, payload_stubbed):
    d, model_file, bag = work
    (d / 'o.yaml').write_text('mine\n')
    assert run('payload', '--model', model_file, '--data', bag, '--out', d / 'o.yaml') == 2
    line = error_line(capsys)
    assert str(d / 'o.yaml') in line and '--overwrite' in line
    assert (d / 'o.yaml').read_text() == 'mine\n'
    assert run('payload', '--model', model_file, '--data', bag, '--out', d / 'o.yaml',
               '--overwrite') == 2     # not a payload result: kept
    assert 'replaces only a payload result' in error_line(capsys)
    assert (d / 'o.yaml').read_text() == 'mine\n'
    assert run('payload', '--model', model_file, '--data', bag, '--out', d / 'p.yaml') == 0
    assert run('payload', '--model', model_file, '--data', bag, '--out', d / 'p.yaml',
               '--overwrite') == 0
    assert yaml.safe_load((d / 'p.yaml').read_text())['mass_kg'] == 0.5
    assert run('payload', '--model', model_file, '--data', bag, '--out', bag, '--overwrite') == 2
    assert 'is an input' in error_line(capsys)


def test_design_excitation_touches_no_existing_file(tmp_path, capsys):
    (tmp_path / 't.yaml').write_text('mine\n')
    (tmp_path / 't.png').write_text('mine\n')
    assert run('design-excitation', '--out', tmp_path / 't.yaml', '--harmonics', 2,
               '--iterations', 1) == 2
    assert str(tmp_path / 't.yaml') in error_line(capsys)
    assert run('design-excitation', '--out', tmp_path / 'u.yaml', '--plot', tmp_path / 't.png',
               '--harmonics', 2, '--iterations', 1) == 2
    assert str(tmp_path / 't.png') in error_line(capsys)
    assert listing(tmp_path) == ['t.png', 't.yaml']
    assert (tmp_path / 't.yaml').read_text() == (tmp_path / 't.png').read_text() == 'mine\n'


def test_validate_report_touches_no_existing_plot(work, capsys):
    d, model_file, bag = work
    (d / 'rep').mkdir()
    (d / 'rep' / 'validation.png').write_text('mine\n')
    assert run('validate', '--model', model_file, '--data', bag, '--report', d / 'rep') == 2
    line = error_line(capsys)
    assert str(d / 'rep' / 'validation.png') in line and '--overwrite' in line
    assert (d / 'rep' / 'validation.png').read_text() == 'mine\n'


def test_overwrite_replaces_only_an_output_of_the_same_kind(work, capsys, payload_stubbed):
    """A user's own files where an output goes stay, --overwrite or not (issue 14 item 3)."""
    d, model_file, bag = work
    (d / 'notes.yaml').write_text('shopping: [milk]\n')
    (d / 'rep').mkdir()
    (d / 'rep' / 'report.md').write_text('# My own notes\n')
    (d / 'mine').mkdir()
    (d / 'mine' / 'validation.png').write_text('not a plot\n')
    before = snapshot(d)
    runs = ((('design-excitation', '--out', d / 'notes.yaml', '--harmonics', 2, '--iterations',
              1), d / 'notes.yaml'),
            (('payload', '--model', model_file, '--data', bag, '--out', d / 'notes.yaml'),
             d / 'notes.yaml'),
            (('identify', '--data', bag, '--out', d / 'm.yaml', '--max-samples', 400,
              '--report', d / 'rep'), d / 'rep' / 'report.md'),
            (('validate', '--model', model_file, '--data', bag, '--report', d / 'mine'),
             d / 'mine' / 'validation.png'))
    for argv, target in runs:
        assert run(*argv, '--overwrite') == 2, argv
        line = error_line(capsys)
        assert str(target) in line and 'replaces only a' in line, line
    assert snapshot(d) == before
    # what the commands wrote themselves is replaced
    assert identify(bag, d / 'm.yaml', '--report', d / 'ours') == 0
    assert identify(bag, d / 'm.yaml', '--report', d / 'ours', '--overwrite') == 0
    assert run('payload', '--model', model_file, '--data', bag, '--out', d / 'p.yaml') == 0
    assert run('payload', '--model', model_file, '--data', bag, '--out', d / 'p.yaml',
               '--overwrite') == 0


def test_an_unwritable_output_folder_is_named(work, capsys, monkeypatch):
    """The model's temporary cannot be created (EACCES): the error line names the model file."""
    d, model_file, bag = work
    refuse_temporaries_in(monkeypatch, d)
    assert identify(bag, d / 'm.yaml') == 2
    line = error_line(capsys)
    assert str(d / 'm.yaml') in line and 'Permission denied' in line, line
    assert listing(d) == ['in.mcap']
