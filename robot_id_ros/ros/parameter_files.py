# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""ROS 2 parameters files read without rclpy.

Files of the form ``node_name: ros__parameters: {...}`` (or ``/**``), read so that the CLI and the
demo read the same file as the node (e.g. config/wrench_estimator.yaml).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from robot_id_ros.errors import InputError
from robot_id_ros.estimate.config import EstimatorConfig
from robot_id_ros.settings import from_plain, settings_by_param, yaml_comment


class ParamsFileError(InputError):
    """A parameters file that cannot be read or has no section for the node."""

    kind = 'params_file'


def node_parameters(params_file, node_name, example=None) -> dict:
    """Return the parameters of one node in a ROS 2 parameters file.

    Args:
        params_file: path of the YAML file.
        node_name: the node's name; its section is ``node_name``, ``/node_name`` or ``/**``
            (the first found), each with a ``ros__parameters`` mapping.
        example: a file to name in the error message when the section is missing.

    Returns:
        {parameter name: value} of that section.

    Raises:
        ParamsFileError: the file cannot be read or parsed, or has no such section.
    """
    from robot_id_ros.io.yaml_input import read_yaml

    path = Path(params_file)
    doc = read_yaml(path, f'{node_name} parameters file', ParamsFileError)
    if isinstance(doc, dict):
        for key in (node_name, '/' + node_name, '/**'):
            section = doc.get(key)
            if isinstance(section, dict) and isinstance(section.get('ros__parameters'), dict):
                return section['ros__parameters']
    hint = f' such as {example}' if example else ''
    raise ParamsFileError(f'{path} has no "{node_name}: ros__parameters:" (or "/**") section: '
                          f'give a {node_name} parameters file{hint}', 'no_section')


def estimator_settings(params_file, node_name='wrench_estimator') -> dict:
    """Return the ``EstimatorConfig`` fields set in a parameters file of the wrench_estimator node.

    E.g. config/wrench_estimator.yaml (the youBot settings): the node, the demo and
    ``robot-id estimate --params-file`` read the same file. Other node parameters (model_file,
    payload, QoS, ...) are left out.

    Args:
        params_file: path of the YAML file.
        node_name: the node's name in the file.

    Returns:
        {EstimatorConfig field: value}, validated.

    Raises:
        InputError: (a ValueError) naming the file and the problem.
    """
    section = node_parameters(params_file, node_name, example='config/wrench_estimator.yaml')
    names = {f.name for f in dataclasses.fields(EstimatorConfig)}
    out = {k: v for k, v in section.items() if k in names}
    try:
        config = from_plain(EstimatorConfig, out)
    except (TypeError, ValueError) as e:
        raise InputError(f'{params_file}: {e}', 'params_file') from None
    return {k: getattr(config, k) for k in out}


def youbot_estimator_settings() -> dict:
    """``estimator_settings`` of the package's config/wrench_estimator.yaml (the youBot's)."""
    from robot_id_ros.model.robot import package_share_dir

    return estimator_settings(package_share_dir() / 'config' / 'wrench_estimator.yaml')


# a hand-written note under a setting's generated comment starts with this (e.g. the youBot's
# measured reason for its value); its continuation lines are indented comment lines
NOTE_PREFIX = '# youBot'


def annotate_params_file(text: str, cls) -> str:
    """Return a parameters file's text with the settings' comments regenerated.

    The comment above each setting of ``cls`` is regenerated from its declaration
    (``robot_id_ros.settings.yaml_comment``).

    The comment block above a ``name: value`` line is replaced by the generated lines, followed
    by the block's hand-written note, if any (the lines from the first starting with
    ``NOTE_PREFIX``). Other lines are kept as they are. Running it twice changes nothing.
    """
    specs = settings_by_param(cls)   # keyed by the node parameter name
    lines = text.split('\n')
    out = []
    for line in lines:
        stripped = line.strip()
        key = stripped.split(':', 1)[0] if ':' in stripped and not stripped.startswith('#') else ''
        if key in specs:
            indent = len(line) - len(line.lstrip())
            block = []
            while out and out[-1].strip().startswith('#') and \
                    len(out[-1]) - len(out[-1].lstrip()) == indent:
                block.insert(0, out.pop())
            note = next((i for i, b in enumerate(block) if b.strip().startswith(NOTE_PREFIX)),
                        len(block))
            out.extend(yaml_comment(specs[key][1], indent=indent))
            out.extend(block[note:])
        out.append(line)
    return '\n'.join(out)
