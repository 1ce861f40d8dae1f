# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""One declaration per setting, everything else generated from it.

A dataclass field carries its documentation, unit, range, choices and whether it may change at
run time, and everything else is generated from it - the node parameter descriptors
(``robot_id_ros.ros.node_parameters.settings_table``), the ``robot-id`` flags
(``robot_id_ros.cli.common.add_setting_flags``), the comments of the parameter files and the
validation of a value (``validated_settings``).

Example::

    @dataclass
    class FilterConfig:
        cutoff_hz: float = setting(10.0, 'low-pass cut-off', unit='Hz', lo=0.1, hi=500.0)
        mode: str = setting('zero_phase', 'filter kind', choices=('zero_phase', 'causal'))

Validation has one shape: ``check_value`` (and the other ``check_*`` helpers) raise on one bad
value; ``validated_settings(obj)`` returns a settings instance after
checking every declared range and choice; a settings dataclass with rules of its own has a
``validated()`` method that checks those too, and calls it from ``__post_init__``: such an
instance is checked once, when it is built (``dataclasses.replace`` builds a new one), and is
valid wherever it is used. Each raises an ``InputError`` naming the first problem. Settings built
from plain values (node parameters, parameters files, flags) go through ``from_plain``; a node
reads its settings with ``robot_id_ros.ros.node_parameters.settings_from_params``.

ROS-free: this module knows nothing of rclpy or argparse beyond plain data.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from robot_id_ros.errors import InputError

META_KEY = 'robot_id_setting'


class SettingError(InputError):
    """A setting value out of its range or choices, or a name that is not a setting."""

    kind = 'setting'


@dataclass(frozen=True)
class Setting:
    """What one setting is (the field's name, type and default are the dataclass field's).

    Attributes:
        doc: one or two sentences for a user: what it does.
        unit: the unit ('Hz', 'rad/s', 'N', ...), '' for none.
        lo: inclusive lower bound of a number, None for none.
        hi: inclusive upper bound of a number, None for none.
        choices: the allowed values of a string setting, () for any.
        read_only: as a node parameter, fixed at start (True) or changeable at run time.
        flag: the ``robot-id`` flag ('--name-with-dashes' by default; '' for no flag).
        aliases: former flag names still accepted.
        node: whether nodes declare it as a parameter.
        unset: for a setting whose default is None: the value that stands for None where None
            cannot be written (a node parameter, a parameters file), e.g. ``(0.0,)``.
        param: the node parameter's name where it differs from the field's (``param_of``).
    """

    doc: str
    unit: str = ''
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    read_only: bool = True
    flag: str | None = None
    aliases: tuple = ()
    node: bool = True
    unset: Any = None
    param: str | None = None

    def description(self) -> str:
        """Return the doc with unit and choices, as node descriptors, flags and YAML show it."""
        text = self.doc
        if self.choices:
            text += ' (one of: ' + ', '.join(repr(c) for c in self.choices) + ')'
        if self.unit:
            text += f' [{self.unit}]'
        return text


def setting(default: Any, doc: str, **kwargs) -> Any:
    """Return a dataclass field that is a setting; ``Setting`` lists the keyword arguments."""
    meta = {META_KEY: Setting(doc, **kwargs)}
    if isinstance(default, (list, dict, set)):
        value = default
        return dataclasses.field(default_factory=lambda: type(value)(value), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def settings_of(cls_or_obj) -> dict:
    """``{name: (dataclasses.Field, Setting)}`` of the fields of a dataclass that are settings."""
    return {f.name: (f, f.metadata[META_KEY]) for f in dataclasses.fields(cls_or_obj)
            if META_KEY in f.metadata}


def default_of(field: dataclasses.Field) -> Any:
    """Return a field's default value (calling its default factory)."""
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    raise SettingError(f'setting {field.name} has no default')


def check_value(name: str, spec: Setting, value: Any) -> None:
    """Raise SettingError naming ``name`` when ``value`` is outside the setting's range/choices."""
    if spec.choices and value not in spec.choices:
        raise SettingError(f'{name} = {value!r}: must be one of '
                           + ', '.join(repr(c) for c in spec.choices))
    if spec.lo is None and spec.hi is None:
        return
    if value is None and spec.unset is not None:
        return
    values = value if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise SettingError(f'{name} = {value!r}: must be a finite number')
        if (spec.lo is not None and v < spec.lo) or (spec.hi is not None and v > spec.hi):
            lo = '-inf' if spec.lo is None else f'{spec.lo:g}'
            hi = 'inf' if spec.hi is None else f'{spec.hi:g}'
            unit = f' {spec.unit}' if spec.unit else ''
            raise SettingError(f'{name} = {v!r}: must be within [{lo}, {hi}]{unit}')


def validated_settings(obj):
    """Return a dataclass instance after checking every setting's range and choices.

    A settings dataclass with rules of its own has a ``validated()`` method that calls this.
    Raises SettingError.
    """
    for name, (_, spec) in settings_of(obj).items():
        check_value(name, spec, getattr(obj, name))
    return obj


def replace_settings(obj, values: dict):
    """Return a copy of ``obj`` with ``values`` (setting name -> value) applied and checked.

    Unknown names raise SettingError listing the known ones.
    """
    known = settings_of(obj)
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise SettingError(f'unknown setting(s) {", ".join(unknown)} of {type(obj).__name__}; '
                           f'known: {", ".join(sorted(known))}')
    new = dataclasses.replace(obj, **values)
    # a dataclass with a validated() checked itself when built
    return new if callable(getattr(new, 'validated', None)) else validated_settings(new)


def from_plain(cls, values: dict, base=None):
    """Return a settings dataclass from plain values (node parameters, a parameters file, flags).

    Values equal to a setting's ``unset`` become None, lists become tuples where the field's
    default is None or a tuple; names that are not settings raise SettingError; the result is
    checked. ``base``: the instance whose other fields are kept (default: ``cls()``).
    """
    known = settings_of(cls)
    plain = {}
    for name, value in values.items():
        if name in known:
            spec = known[name][1]
            if spec.unset is not None and _same(value, spec.unset):
                value = None
            elif isinstance(value, list) and isinstance(spec.unset, tuple):
                value = tuple(value)
        plain[name] = value
    return replace_settings(base if base is not None else cls(), plain)


def _same(value, unset):
    if isinstance(unset, tuple):
        return isinstance(value, (list, tuple)) and tuple(value) == unset
    return value == unset


def flag_of(name: str, spec: Setting) -> str:
    """Return the ``robot-id`` flag of a setting ('' when it has none)."""
    if spec.flag is not None:
        return spec.flag
    return '--' + name.replace('_', '-')


def param_of(name: str, spec: Setting) -> str:
    """Return the node parameter (and parameters file) name of a setting."""
    return spec.param or name


def settings_by_param(cls_or_obj) -> dict:
    """Return ``{parameter name: (dataclasses.Field, Setting)}`` of a dataclass's settings."""
    return {param_of(name, spec): (field, spec)
            for name, (field, spec) in settings_of(cls_or_obj).items()}


def yaml_comment(spec: Setting, width: int = 99, indent: int = 4) -> list:
    """Return the comment lines a parameter file shows above the setting (wrapped to ``width``)."""
    import textwrap
    prefix = ' ' * indent + '# '
    return textwrap.wrap(spec.description(), width=width, initial_indent=prefix,
                         subsequent_indent=prefix, break_on_hyphens=False)


__all__ = ['META_KEY', 'Setting', 'SettingError', 'check_value', 'default_of', 'flag_of',
           'from_plain', 'param_of',
           'replace_settings', 'setting', 'settings_by_param', 'settings_of', 'validated_settings',
           'yaml_comment']
