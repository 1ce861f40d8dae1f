# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Parameter helpers shared by the nodes.

One way to describe, read and check a parameter, and the guard of a node's output folder
(``OutputGuard``).

Descriptor builders (``read_only`` parameters are fixed at start: rclpy refuses ``ros2 param
set`` on them):

- ``desc(text, read_only=False)``: a described parameter, no range;
- ``float_desc(text, lo, hi, read_only=False)``: a double with an inclusive range;
- ``int_desc(text, lo, hi, read_only=False)``: an integer with an inclusive range.

Conventions the nodes share:

- the same concept has the same name everywhere: ``urdf_path`` (the robot's URDF),
  ``joint_names`` (a string array, base to tip), ``effort_unit`` (``'torque'`` in Nm or
  ``'current'`` in A), ``drive_gains_nm_per_a`` (a double array; all zeros = not given);
- an "empty" string array is declared with the default ``['']`` (``NO_STRINGS``): rclpy types a
  default of ``[]`` as a byte array (a string list given later would then be refused), and a ROS 2
  params file cannot hold an empty list (rcl reads ``[]`` as no value). ``string_list`` drops the
  empty entries, so ``['']`` (and ``[]`` where one gets through) reads as no strings;
- ``refuse_renamed``: a node refuses to start when it is given a parameter under a former name
  (rclpy would otherwise silently ignore the undeclared name).

Safety over DDS: a parameter naming a file or folder (``is_path_like``) is read-only; a run-time
change of another is checked by its range or by ``run_time_problem`` in the node's set-parameters
callback; a node writes only through an ``OutputGuard`` made at start.

One way to declare and read: a node keeps a table ``{name: (default, descriptor)}``, declares it
with ``declare_table`` (which returns the values) and builds its settings dataclass from those
values by field name with ``settings_from_params`` or ``robot_id_ros.settings.from_plain``.
"""
from __future__ import annotations

import math
import re
import sys

from contextlib import contextmanager
from pathlib import Path

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor

from robot_id_ros.errors import InputError, RobotIdError
from robot_id_ros.settings import Setting, from_plain, param_of, settings_of
from robot_id_ros.sim.config import EFFORT_UNITS
NO_STRINGS = ['']      # the default of a string-array parameter that may be empty
PATH_WORDS = frozenset({'file', 'files', 'folder', 'folders', 'path', 'paths', 'dir', 'dirs',
                        'directory', 'bag', 'bags'})   # words that make a parameter path-like
NAME_PATTERN = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_./:-]{0,255}')   # a joint or frame name
MAX_LIST = 64          # most entries of a run-time array parameter (names, gains)


def desc(text, read_only=False):
    return ParameterDescriptor(description=text, read_only=read_only)


def float_desc(text, lo, hi, read_only=False):
    return ParameterDescriptor(description=text, read_only=read_only, floating_point_range=[
        FloatingPointRange(from_value=float(lo), to_value=float(hi), step=0.0)])


def int_desc(text, lo, hi, read_only=False):
    return ParameterDescriptor(description=text, read_only=read_only, integer_range=[
        IntegerRange(from_value=int(lo), to_value=int(hi), step=1)])


def string_list(value):
    """Return the non-empty strings of a string-array parameter value (``['']`` -> ``[]``)."""
    return [str(s) for s in (value or []) if s]


def setting_descriptor(spec: Setting, value) -> ParameterDescriptor:
    """Return the parameter descriptor of a declared setting (``robot_id_ros.settings``).

    Its description, range (numbers; widened to take a number ``unset``) and read_only.
    """
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if numeric and (spec.lo is not None or spec.hi is not None):
        lo = -sys.float_info.max if spec.lo is None else spec.lo
        hi = sys.float_info.max if spec.hi is None else spec.hi
        if isinstance(spec.unset, (int, float)) and not isinstance(spec.unset, bool):
            lo, hi = min(lo, spec.unset), max(hi, spec.unset)   # the unset value is declarable
        if isinstance(value, int):
            return int_desc(spec.description(), int(max(lo, -2**62)), int(min(hi, 2**62)),
                            spec.read_only)
        return float_desc(spec.description(), lo, hi, spec.read_only)
    return desc(spec.description(), spec.read_only)


def settings_table(cls, base=None) -> dict:
    """Return the parameter table of a settings dataclass's node settings.

    ``{name: (default, descriptor)}``, from their declarations (named by ``param_of``);
    defaults from ``base`` (default ``cls()``); a None default is declared as the setting's
    ``unset`` value.
    """
    base = base if base is not None else cls()
    table = {}
    for name, (_, spec) in settings_of(cls).items():
        if not spec.node:
            continue
        value = getattr(base, name)
        if value is None:
            value = spec.unset
        if isinstance(value, tuple):
            value = list(value)
        table[param_of(name, spec)] = (value, setting_descriptor(spec, value))
    return table


def settings_from_params(cls, values, base=None):
    """Return a settings dataclass from a node's parameter values.

    Args:
        cls: the settings dataclass (its node settings were declared with ``settings_table``).
        values: ``{parameter name: value}``; names that are no node setting of ``cls`` are
            left out (the node's own parameters).
        base: the instance whose other fields are kept (default ``cls()``).

    Returns:
        ``robot_id_ros.settings.from_plain`` of the node settings, by field name (checked).
    """
    plain = {name: values[param_of(name, spec)] for name, (_, spec) in settings_of(cls).items()
             if spec.node and param_of(name, spec) in values}
    return from_plain(cls, plain, base)


def declare_table(node, table) -> dict:
    """Declare every parameter of ``table`` on ``node`` and read the values back.

    Args:
        node: the rclpy node.
        table: ``{name: (default, ParameterDescriptor)}``, in declaration order.

    Returns:
        ``{name: value}`` for every name of ``table`` (overrides and params files applied).
    """
    for name, (default, descriptor) in table.items():
        node.declare_parameter(name, default, descriptor)
    return read_table(node, table)


def read_table(node, names) -> dict:
    """Return the current values of the parameters ``names`` (an iterable of names, or a table).

    Returns:
        ``{name: value}``.
    """
    return {name: node.get_parameter(name).value for name in names}


def require(values, name, what):
    """Raise InputError ``parameter <name> is required (<what>)`` if ``values[name]`` is empty."""
    if not values[name]:
        raise InputError(f'parameter {name} is required ({what})', kind='parameter')


@contextmanager
def parameter_check():
    """Report a ``ValueError`` of a core check of parameter values as ``InputError``.

    Wraps calls that only validate settings (so that ``run_node`` exits 2 with one line): the
    core's checks that still raise a plain ``ValueError`` become ``InputError(kind='parameter')``;
    the package's own errors pass unchanged.
    """
    try:
        yield
    except RobotIdError:
        raise
    except ValueError as exc:
        raise InputError(str(exc), kind='parameter') from exc


def is_path_like(name, descriptor) -> bool:
    """Check whether a parameter names a file or folder.

    True when a word of its name or of its description is a file, folder, path, dir(ectory) or bag
    (such a parameter must be read-only: fixed at start).
    """
    words = set(name.lower().split('_')) | set(
        re.findall(r'[a-z]+', descriptor.description.lower()))
    return bool(words & PATH_WORDS)


def run_time_problem(new, choices=None, names=(), topics=(), numbers=None):
    """Why a run-time change of parameters is refused (the ranges rclpy checks itself).

    Args:
        new: ``{name: value}`` being set.
        choices: ``{name: allowed values}`` of string parameters.
        names: parameters holding a joint or frame name, or a list of them (``NAME_PATTERN``;
            '' is allowed: it means the default).
        topics: parameters holding a ROS topic name.
        numbers: ``{name: (lo, hi)}`` of number-array parameters: at most ``MAX_LIST`` finite
            values inside ``[lo, hi]``.

    Returns:
        None when every value is acceptable, else one line naming the parameter and the reason.
    """
    choices, numbers = choices or {}, numbers or {}
    for name, value in new.items():
        if name in choices and value not in choices[name]:
            return f'{name} must be one of {list(choices[name])}, got {value!r}'
        if name in names:
            values = [value] if isinstance(value, str) else list(value)
            bad = [v for v in values if v and not NAME_PATTERN.fullmatch(v)]
            if bad or len(values) > MAX_LIST:
                return (f'{name}: at most {MAX_LIST} names of letters, digits and _ . / : -, '
                        f'got {bad or len(values)}')
        if name in topics:
            from rclpy.validate_topic_name import validate_topic_name
            try:
                validate_topic_name(value)
            except Exception as exc:  # noqa: BLE001 - rclpy raises its own InvalidTopicName
                return f'{name}: {value!r} is not a ROS topic name ({exc})'
        if name in numbers:
            lo, hi = numbers[name]
            values = list(value)
            if len(values) > MAX_LIST or not all(
                    math.isfinite(v) and lo <= v <= hi for v in values):
                return (f'{name}: at most {MAX_LIST} finite values in [{lo:g}, {hi:g}], '
                        f'got {values}')
    return None


class OutputGuard:
    """The folder a node writes into, fixed at start: a write that would leave it is refused.

    The folder is resolved when the node starts (its configured output is read-only). Before
    each write ``target()`` checks that the folder still resolves there (no symbolic link was
    swapped in for it or a parent) and that no existing entry the write may open (the file and
    its temporaries, or every entry of a folder output) is a symbolic link leading outside.

    Args:
        path: the configured output: a file, or with ``is_folder`` a folder; '' = none.
        what: the parameter's name, for messages.
        is_folder: ``path`` is the output folder itself (a report folder).
    """

    def __init__(self, path, what, is_folder=False):
        self.given, self.what = (Path(path) if path else None), what
        self.name = None if (is_folder or self.given is None) else self.given.name
        self.folder = None if self.given is None else self._folder_now()

    def _folder_now(self):
        return (self.given if self.name is None else self.given.parent).resolve()

    def target(self):
        """Return the path to write now (None when no output is configured).

        Raises:
            InputError: (kind 'outside_output') the folder moved, or an entry is a symbolic link
                to a place outside the folder.
        """
        if self.given is None:
            return None
        if self._folder_now() != self.folder:
            raise InputError(f'{self.what}: {self.given} no longer resolves into {self.folder} '
                             '(a symbolic link was put in its path): not written',
                             kind='outside_output')
        if self.folder.is_dir():
            for entry in self.folder.iterdir():
                if self.name is not None and not entry.name.startswith(self.name):
                    continue
                if entry.is_symlink() and not entry.resolve().is_relative_to(self.folder):
                    raise InputError(f'{self.what}: {entry} is a symbolic link to '
                                     f'{entry.resolve()}, outside {self.folder}: not written',
                                     kind='outside_output')
        return self.folder if self.name is None else self.folder / self.name


def refuse_renamed(node, renamed):
    """Raise InputError naming the new name if ``node`` got a parameter under a former name.

    ``renamed``: {former name: current name}. Checks the node's parameter overrides (command line
    ``-p``, params files, ``parameter_overrides``), which hold undeclared names too.
    """
    given = getattr(node, '_parameter_overrides', {}) or {}
    old = sorted(n for n in renamed if n in given)
    if old:
        text = ', '.join(f'{n} is now {renamed[n]}' for n in old)
        raise InputError(f'renamed parameter(s): {text}', kind='renamed_parameter')


__all__ = ['EFFORT_UNITS', 'MAX_LIST', 'NAME_PATTERN', 'NO_STRINGS', 'PATH_WORDS', 'OutputGuard',
           'declare_table', 'desc', 'float_desc', 'int_desc', 'is_path_like', 'parameter_check',
           'read_table', 'refuse_renamed', 'require', 'run_time_problem', 'settings_from_params',
           'settings_table', 'string_list']
