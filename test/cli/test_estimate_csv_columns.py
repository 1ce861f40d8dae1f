# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The CSV of robot-id estimate --csv (the CLI's only CSV) has the columns docs/workflows.md
documents, in that order, and its contact column takes only the documented values."""
import csv
import re
from pathlib import Path

from robot_id_ros.cli.main import main
from robot_id_ros.estimate import CONTACT_STATE_NAMES
from robot_id_ros.io.model_file import load_model

WORKFLOWS = Path(__file__).resolve().parents[2] / 'docs' / 'workflows.md'


def _documented_columns():
    """The column names of the CSV table in docs/workflows.md, in order, ``...`` expanded."""
    text = WORKFLOWS.read_text()
    table = text[text.index('| column | unit | what |'):].split('\n\n')[0]
    names = []
    for row in table.splitlines()[2:]:
        cell = row.split('|')[1]
        found = re.findall(r'`([^`]+)`', cell)
        if '...' in cell:   # `fx_std` ... `mz_std`: the six components' std
            names += [f'{c}_std' for c in ('fx', 'fy', 'fz', 'mx', 'my', 'mz')]
        else:
            names += found
    return names, table


def test_the_csv_columns_are_the_documented_ones(inputs, tmp_path):
    d, model_file, bag = inputs
    out = tmp_path / 'w.csv'
    assert main(['estimate', '--model', str(model_file), '--data', str(bag),
                 '--out', str(tmp_path / 'o.mcap'), '--csv', str(out)]) == 0
    with open(out, newline='') as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    joints = list(load_model(model_file).joint_names)
    documented, table = _documented_columns()
    expected = [c for c in documented if c != 'tau_ext_<joint>'] + [
        f'tau_ext_{j}' for j in joints]
    assert header == expected
    contact = header.index('contact')
    assert body and {r[contact] for r in body} <= set(CONTACT_STATE_NAMES)
    for state in CONTACT_STATE_NAMES:
        assert f'`{state}`' in table
