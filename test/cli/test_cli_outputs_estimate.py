# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id estimate's outputs (issue 14 item 3): atomic, never an input, --overwrite only of a
bag, a .mcap name is a single bag file, every error one line on stderr naming the file."""
import pytest

from cli_output_helpers import full_disk, refuse_temporaries_in, snapshot
from robot_id_ros.cli.main import main
from robot_id_ros.io.bags import read_joint_states, read_messages


def estimate(model_file, data, out, *flags):
    return main(['estimate', '--model', str(model_file), '--data', str(data), '--out', str(out),
                 *map(str, flags)])


def error_line(capsys):
    """The single line on stderr after the progress lines; nothing else than results on stdout."""
    cap = capsys.readouterr()
    assert 'error:' not in cap.out, cap.out
    lines = [x for x in cap.err.splitlines() if 'error:' in x]
    assert len(lines) == 1, cap.err
    return lines[0]


@pytest.fixture
def work(inputs, tmp_path):
    """A private copy of the inputs: (folder, model file, bag file)."""
    d, model_file, bag = inputs
    (tmp_path / 'model.yaml').write_bytes(model_file.read_bytes())
    (tmp_path / 'in.mcap').write_bytes(bag.read_bytes())
    return tmp_path, tmp_path / 'model.yaml', tmp_path / 'in.mcap'


def test_mcap_name_is_one_bag_file_and_a_folder_name_a_bag_folder(work, capsys):
    d, model_file, bag = work
    assert estimate(model_file, bag, d / 'x.mcap') == 0
    assert (d / 'x.mcap').is_file()
    n = len(read_joint_states(bag, ['arm_joint_1']))
    assert len(read_messages(d / 'x.mcap', '/wrench')) == n
    assert estimate(model_file, d / 'x.mcap', d / 'y', '--topic', '/external_joint_torques') == 0
    assert (d / 'y').is_dir() and (d / 'y' / 'metadata.yaml').is_file()
    assert sorted(p.name for p in d.iterdir()) == ['in.mcap', 'model.yaml', 'x.mcap', 'y']


@pytest.mark.parametrize('flags', [[], ['--overwrite']])
def test_out_equal_to_data_is_refused_and_the_input_kept(work, capsys, flags):
    d, model_file, bag = work
    before = snapshot(d)
    assert estimate(model_file, bag, bag, *flags) == 2
    line = error_line(capsys)
    assert str(bag) in line and 'input' in line
    assert snapshot(d) == before


def test_a_bag_folder_holding_the_input_is_refused(work, capsys):
    d, model_file, bag = work
    (d / 'run').mkdir()
    (d / 'run' / 'metadata.yaml').write_text('rosbag2_bagfile_information: {}\n')
    inner = d / 'run' / 'in.mcap'
    bag.rename(inner)
    before = snapshot(d)
    assert estimate(model_file, inner, d / 'run', '--overwrite') == 2
    assert 'holds the input' in error_line(capsys)
    assert snapshot(d) == before


def test_overwrite_replaces_only_a_bag(work, capsys):
    d, model_file, bag = work
    (d / 'notes.txt').write_text('my notes\n')
    (d / 'photos').mkdir()
    (d / 'photos' / 'a.jpg').write_bytes(b'\xff\xd8')
    before = snapshot(d)
    for target in ('notes.txt', 'photos'):
        assert estimate(model_file, bag, d / target) == 2
        line = error_line(capsys)
        assert str(d / target) in line and '--overwrite' in line
        assert estimate(model_file, bag, d / target, '--overwrite') == 2
        line = error_line(capsys)
        assert str(d / target) in line and 'not a bag' in line
    assert snapshot(d) == before
    # a bag is replaced (a file by a file, a folder by a folder)
    assert estimate(model_file, bag, d / 'out.mcap') == 0
    assert estimate(model_file, bag, d / 'out.mcap', '--overwrite', '--frame', 'tool') == 0
    assert read_messages(d / 'out.mcap', '/wrench')[0][1].header.frame_id == 'arm_tool_link'
    # one path for two outputs is refused, the bag kept
    kept = (d / 'out.mcap').read_bytes()
    assert estimate(model_file, bag, d / 'out.mcap', '--csv', d / 'out.mcap', '--overwrite') == 2
    assert 'given as two outputs' in error_line(capsys)
    assert (d / 'out.mcap').read_bytes() == kept
    assert not [p for p in d.iterdir() if p.name.startswith('.')]


@pytest.mark.parametrize('error', [full_disk, KeyboardInterrupt])
def test_full_disk_or_interrupt_while_writing_the_bag_leaves_nothing(work, capsys, monkeypatch,
                                                                     error):
    """The disk fills (or Ctrl-C comes) in the middle of the bag's data: no bag without metadata,
    no temporary, the command fails with one line naming the output."""
    from rosbags.rosbag2 import storage_mcap

    d, model_file, bag = work
    real = storage_mcap.write_record

    def write_record(bio, op, record):
        if op == 0x06:   # a chunk of messages: half of it reaches the disk
            bio.write(bytes(record.getbuffer())[:len(record.getbuffer()) // 2])
            raise error()
        real(bio, op, record)

    monkeypatch.setattr(storage_mcap, 'write_record', write_record)
    before = snapshot(d)
    for out in ('w.mcap', 'w'):
        rc = estimate(model_file, bag, d / out, '--csv', d / 'w.csv')
        if error is KeyboardInterrupt:
            assert rc == 130
        else:
            assert rc == 2
            line = error_line(capsys)
            assert str(d / out) in line and 'No space left on device' in line
        assert snapshot(d) == before
        assert sorted(p.name for p in d.iterdir()) == ['in.mcap', 'model.yaml']


def test_a_failed_plot_leaves_neither_bag_nor_csv(work, capsys, monkeypatch):
    """The outputs land together: the plot's full disk removes the bag and the CSV too."""
    import matplotlib.figure

    d, model_file, bag = work

    def savefig(self, fname, **kw):
        with open(fname, 'wb') as f:
            f.write(b'\x89PNG')
        raise full_disk()

    monkeypatch.setattr(matplotlib.figure.Figure, 'savefig', savefig)
    rc = estimate(model_file, bag, d / 'o.mcap', '--csv', d / 'o.csv', '--plot', d / 'o.png')
    assert rc == 2
    line = error_line(capsys)
    assert str(d / 'o.png') in line and 'No space left' in line
    assert sorted(p.name for p in d.iterdir()) == ['in.mcap', 'model.yaml']


def test_errors_go_to_stderr_in_one_line(work, capsys):
    d, model_file, bag = work
    (d / 'bad.yaml').write_text('kind: [\n')
    assert estimate(d / 'bad.yaml', bag, d / 'o') == 2
    cap = capsys.readouterr()
    assert cap.out == '' and len(cap.err.strip().splitlines()) == 1 and 'bad.yaml' in cap.err
    assert estimate(model_file, bag, d / 'no' / 'o') == 2
    cap = capsys.readouterr()
    assert cap.out == '' and len(cap.err.strip().splitlines()) == 1 and str(d / 'no') in cap.err


def test_overwrite_replaces_only_a_wrench_csv_and_a_plot(work, capsys):
    """--csv and --plot on a user's own files: refused with --overwrite too; ours replaced."""
    d, model_file, bag = work
    (d / 'essay.md').write_text('my essay\n')
    (d / 'photo.png').write_text('not an image of ours\n')
    before = snapshot(d)
    for flag, target in (('--csv', 'essay.md'), ('--plot', 'photo.png')):
        assert estimate(model_file, bag, d / 'o.mcap', flag, d / target, '--overwrite') == 2
        line = error_line(capsys)
        assert str(d / target) in line and 'replaces only a' in line
    assert snapshot(d) == before
    assert estimate(model_file, bag, d / 'o.mcap', '--csv', d / 'w.csv') == 0
    assert estimate(model_file, bag, d / 'o.mcap', '--csv', d / 'w.csv', '--overwrite',
                    '--frame', 'tool') == 0
    assert (d / 'w.csv').read_text().startswith('stamp_ns,fx,fy,fz,')


def test_an_unwritable_output_folder_is_named(work, capsys, monkeypatch):
    """The temporary cannot be created (EACCES): the one error line names the output."""
    d, model_file, bag = work
    refuse_temporaries_in(monkeypatch, d)
    assert estimate(model_file, bag, d / 'o.mcap') == 2
    line = error_line(capsys)
    assert str(d / 'o.mcap') in line and 'Permission denied' in line, line
    assert sorted(p.name for p in d.iterdir()) == ['in.mcap', 'model.yaml']


def recording(folder, bag):
    """A recorder's raw recording: a bag folder of joint states (no estimate mark)."""
    from robot_id_ros.io.bags import BagWriter

    msgs = read_messages(bag, '/joint_states')
    with BagWriter(folder) as bw:
        for stamp, msg in msgs[:50]:
            bw.write('/joint_states', stamp, msg)
    return folder


@pytest.mark.parametrize('name', ['recording', 'recording.mcap'])
def test_overwrite_never_replaces_a_recording(work, capsys, name):
    """A bag estimate did not write (a recorder's raw recording, a folder or a single file) is
    refused with --overwrite, in one line naming the fix; the recording is kept as it was."""
    import shutil

    d, model_file, bag = work
    target = d / name
    if name.endswith('.mcap'):
        shutil.copyfile(bag, target)
        other = bag
    else:
        recording(target, bag)
        other = d / 'other.mcap'
        shutil.copyfile(bag, other)
    before = snapshot(d)
    assert estimate(model_file, other, target, '--overwrite') == 2
    line = error_line(capsys)
    assert str(target) in line and 'choose another --out' in line, line
    assert 'not a bag written by robot-id estimate' in line
    assert snapshot(d) == before


@pytest.mark.parametrize('name', ['est', 'est.mcap', 'est.db3'])
def test_overwrite_replaces_the_bag_estimate_wrote(work, capsys, name):
    from robot_id_ros.io.bag_marks import written_by

    d, model_file, bag = work
    assert estimate(model_file, bag, d / name) == 0
    assert written_by(d / name) == 'robot-id estimate'
    assert estimate(model_file, bag, d / name, '--overwrite', '--frame', 'tool') == 0
    assert read_messages(d / name, '/wrench')[0][1].header.frame_id == 'arm_tool_link'
    assert written_by(d / name) == 'robot-id estimate'


def bag_of(path, bag, moved):
    """A copy of ``bag``'s joint states with arm_joint_1 10 rad further (beyond the youBot's
    joint limits) in the messages ``k`` where ``moved(k)``."""
    from robot_id_ros.io.bags import BagWriter

    with BagWriter(path) as bw:
        for k, (stamp, msg) in enumerate(read_messages(bag, '/joint_states')):
            q = msg.position.copy()
            q[0] += 10.0 if moved(k) else 0.0
            bw.write('/joint_states', stamp, bw.joint_state(stamp, msg.name, q, msg.velocity,
                                                            msg.effort))
    return path


def test_a_bag_whose_every_sample_is_rejected_is_one_line(work, capsys):
    """Every sample outside the joint limits: one line that counts them and names the likely
    cause, and no output."""
    d, model_file, bag = work
    n = len(read_messages(bag, '/joint_states'))
    bad = bag_of(d / 'beyond_limits', bag, lambda k: True)
    assert estimate(model_file, bad, d / 'o.mcap') == 2
    line = error_line(capsys)
    assert f'all {n} joint states were rejected' in line
    assert f"{n} outside the model's joint limits (implausible)" in line
    assert 'wrong joint order or wrong model' in line and 'reshape' not in line
    assert not (d / 'o.mcap').exists()


def test_a_bag_whose_most_samples_are_rejected_warns_with_the_count(work, capsys):
    d, model_file, bag = work
    n = len(read_messages(bag, '/joint_states'))
    assert estimate(model_file, bag_of(d / 'quarter', bag, lambda k: k % 4 == 0),
                    d / 'few.mcap') == 0
    assert 'warning' not in capsys.readouterr().err       # a quarter rejected: no warning
    assert estimate(model_file, bag_of(d / 'three_quarters', bag, lambda k: k % 4 != 0),
                    d / 'o.mcap') == 0
    warnings = [x for x in capsys.readouterr().err.splitlines() if x.startswith('warning:')]
    rejected = n - (n + 3) // 4
    assert len(warnings) == 1 and f'{rejected} of {n} joint states were rejected' in warnings[0]
    assert len(read_messages(d / 'o.mcap', '/wrench')) == n - rejected
