# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Pieces shared by the robot-id subcommands: model options, progress, errors."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from robot_id_ros.model.robot import (YOUBOT_JOINTS, YOUBOT_TOOL_FRAME, RobotModel,
                                      default_urdf_path)
from robot_id_ros.errors import InputError
from robot_id_ros.settings import default_of, flag_of, from_plain, settings_of
from robot_id_ros.io.bags import read_joint_states
from robot_id_ros.io.files import yaml_output
from robot_id_ros.io.model_file import KIND as MODEL_KIND
from robot_id_ros.io.sidecar import sidecar_path


class CommandError(InputError):
    """Bad input to a command: printed as one line, exit code 2."""


# suffixes matplotlib writes (a plot's format follows its file name)
PLOT_SUFFIXES = ('.png', '.pdf', '.svg', '.svgz', '.jpg', '.jpeg', '.tif', '.tiff', '.webp',
                 '.eps', '.ps', '.pgf')


# --overwrite replaces only a model file: YAML with ``kind: robot_id_ros/model`` at the top
MODEL_OUTPUT = yaml_output('model file', lambda d: d.get('kind') == MODEL_KIND)


def add_overwrite_argument(parser, what):
    """--overwrite: replace an existing output of the same kind (``what``), never an input."""
    parser.add_argument('--overwrite', action='store_true',
                        help=f'replace an existing {what} (never an input, never another kind of '
                             'file); without it no existing file is touched')


def bag_inputs(*bags):
    """Return the input paths of bags: each bag and its segment sidecar when it has one.

    Args:
        bags: bag paths, or lists of them; None entries are skipped.

    Returns:
        A list of paths for ``robot_id_ros.io.files.Outputs(inputs=...)``.
    """
    out = []
    for b in bags:
        for p in ([b] if isinstance(b, (str, Path)) else (b or [])):
            out.append(Path(p))
            if sidecar_path(p).is_file():
                out.append(sidecar_path(p))
    return out


def read_series(path, joint_names, topic, **kwargs):
    """``read_joint_states`` with a note on stderr when it read a namespaced topic instead."""
    series = read_joint_states(path, joint_names, topic, **kwargs)
    if series.topic != topic:
        print(f'note: {path} has no {topic}: read its {series.topic} (--topic to choose another)',
              file=sys.stderr)
    if series.effort is not None and len(series) > 1:
        flat = [j for j in range(len(joint_names)) if np.ptp(series.effort[:, j]) == 0]
        if flat:
            print(f'note: {path}: the effort of {", ".join(joint_names[j] for j in flat)} is '
                  f'{series.effort[0, flat[0]]:g} in every sample: its driver may not report it '
                  '(it is used as measured)', file=sys.stderr)
    return series


def check_plot_name(path, flag):
    """Refuse a plot file name whose suffix matplotlib cannot write (the format follows it).

    Args:
        path: the plot's file name, or None.
        flag: the option that gave it, for the message.
    """
    if path is not None and Path(path).suffix.lower() not in PLOT_SUFFIXES:
        raise CommandError(f'{flag} {path}: give a file name ending in one of '
                           + ', '.join(PLOT_SUFFIXES))


def add_robot_arguments(parser, urdf_required=False):
    """--urdf, --joints, --tool-frame (youBot defaults when --urdf is not given)."""
    parser.add_argument('--urdf', required=urdf_required, default=None,
                        help='robot URDF (default: the bundled youBot arm)')
    parser.add_argument(
        '--joints', default=None,
        help='comma-separated actuated joints, base to tip (default: the actuated joints '
        'from the URDF root to the tool frame; fingers, mimic joints and side '
        'branches are left out with a note)')
    parser.add_argument(
        '--tool-frame', default=None,
        help='frame where the wrench acts (default: the youBot tool point on the youBot '
        'arm, else a tool/tcp frame at the end of the longest actuated chain)')


def robot_from_args(args) -> RobotModel:
    joints = [j.strip() for j in args.joints.split(',') if j.strip()] if args.joints else None
    if args.urdf is None:
        return RobotModel(default_urdf_path(), joints or YOUBOT_JOINTS, args.tool_frame or
                          YOUBOT_TOOL_FRAME)
    robot = RobotModel(args.urdf, joints, args.tool_frame)
    if robot.selection_note:
        print(f'note: {robot.selection_note}', file=sys.stderr)
    return robot


class Progress:
    """Prints 'label: i/N (pct) elapsed, ETA' to stderr at most every ``every_s`` seconds."""

    def __init__(self, label, every_s=1.0, stream=None):
        self.label = label
        self.every_s = every_s
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()
        self._last = -1e9

    def __call__(self, done, total=None):
        now = time.monotonic()
        if now - self._last < self.every_s and (total is None or done < total):
            return
        self._last = now
        el = now - self.t0
        if total and done > 0:
            frac = done / total
            eta = el * (1 - frac) / frac
            print(
                f'{self.label}: {done}/{total} ({100 * frac:.0f}%) {el:.1f}s elapsed, '
                f'~{eta:.0f}s left',
                file=self.stream, flush=True)
        elif total:
            print(f'{self.label}: 0/{total} {el:.1f}s elapsed', file=self.stream, flush=True)
        else:
            print(f'{self.label}: {done} {el:.1f}s elapsed', file=self.stream, flush=True)


def parse_floats(text, n=None, what='values'):
    """Parse a flag's comma-separated numbers (empty entries skipped).

    Args:
        text: the flag's text; None (the flag not given) gives None.
        n: the number of values required; None for any number (at least one).
        what: the flag, for the message.

    Returns:
        The numbers as a list of floats, or None.

    Raises:
        CommandError: naming ``what``: text that is not finite numbers, or not ``n`` of them.
    """
    if text is None:
        return None
    try:
        values = [float(x) for x in str(text).split(',') if x.strip()]
    except ValueError as exc:
        raise CommandError(f'{what}: not a comma-separated list of numbers: {text!r}') from exc
    if not values or not all(np.isfinite(values)):
        raise CommandError(f'{what}: expected finite numbers, got {text!r}')
    if n is not None and len(values) != n:
        raise CommandError(f'{what}: need {n} values, got {len(values)}')
    return values


def _float_tuple(text):
    """Parse comma-separated numbers as a tuple of floats (an argparse type)."""
    try:
        return tuple(parse_floats(text))
    except CommandError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _flag_type(field, spec):
    """Return the argparse type of a number setting's flag (a None default: by its ``unset``)."""
    default = default_of(field)
    if default is not None and not isinstance(default, tuple):
        return type(default)
    if isinstance(spec.unset, (int, float)) and not isinstance(spec.unset, bool):
        return type(spec.unset)
    annotation = str(field.type)
    for scalar in (int, float):
        if annotation.startswith(scalar.__name__ + ' '):
            return scalar
    return _float_tuple


def add_setting_flags(parser, cls, title: str, names=None) -> None:
    """Add one flag per setting of the dataclass ``cls``, generated from its declaration.

    The declaration (``robot_id_ros.settings``) gives name, former names, choices, type and help;
    every default is None (not given), so a parameters file or the core default applies. A
    boolean setting gets ``--name`` and ``--no-name`` (and the same for each former name).

    Args:
        parser: the argparse parser of the subcommand.
        cls: the settings dataclass.
        title: the title of the flags' argument group in --help.
        names: only these settings (default: every setting that has a flag).
    """
    group = parser.add_argument_group(title)
    for name, (field, spec) in settings_of(cls).items():
        flag = flag_of(name, spec)
        if not flag or (names is not None and name not in names):
            continue
        default = default_of(field)
        shown = 'none' if default is None else default
        kwargs = {'dest': name, 'default': None,
                  'help': f'{spec.description()}; core default {shown}'.replace('%', '%%')}
        if isinstance(default, bool):
            kwargs['action'] = argparse.BooleanOptionalAction
        elif spec.choices:
            kwargs['choices'] = spec.choices
        else:
            kwargs['type'] = _flag_type(field, spec)
            if kwargs['type'] is _float_tuple:
                kwargs['metavar'] = 'X,Y,..'
        group.add_argument(flag, *spec.aliases, **kwargs)


def settings_from_args(args, cls, base: dict | None = None):
    """Build the settings dataclass from ``base`` with the flags given on top, checked.

    ``base`` holds e.g. a parameters file's values; a bad value is a CommandError naming the
    setting.
    """
    values = dict(base or {})
    values.update({name: getattr(args, name) for name in settings_of(cls)
                   if getattr(args, name, None) is not None})
    try:
        config = from_plain(cls, values)
        validated = getattr(config, 'validated', None)
        return validated() if validated is not None else config
    except ValueError as exc:
        raise CommandError(f'{cls.__name__} settings: {exc}') from None
