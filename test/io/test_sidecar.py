# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Segment sidecars: path beside the bag, former effort-unit spellings
(robot_id_ros.io.sidecar)."""
from robot_id_ros.io.sidecar import read_sidecar, sidecar_path, write_sidecar


def test_sidecar_path():
    assert sidecar_path('/x/run1').name == 'run1.segments.yaml'
    assert sidecar_path('/x/run1.mcap').name == 'run1.segments.yaml'


def test_sidecar_effort_unit_former_spelling_reads_as_today(tmp_path):
    """Recorders wrote effort_unit 'torque_nm' / 'current_a' before the nodes shared 'torque' /
    'current'."""
    for former, today in (('torque_nm', 'torque'), ('current_a', 'current'), ('torque', 'torque'),
                          ('current', 'current')):
        path = tmp_path / f'{former}.segments.yaml'
        write_sidecar(
            path, {
                'kind': 'static',
                'bag': 'b',
                'joint_names': ['a'],
                'effort_unit': former,
                'complete': True,
                'info': {},
                'segments': []
            })
        assert read_sidecar(path)['effort_unit'] == today


def test_sidecar_path_still_importable_from_bags():
    from robot_id_ros.io import bags

    assert bags.sidecar_path is sidecar_path
