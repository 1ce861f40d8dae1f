"""Parameter helpers shared by the nodes: one way to describe and read a parameter.

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
"""
from __future__ import annotations

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor

EFFORT_UNITS = ('torque', 'current')
NO_STRINGS = ['']      # the default of a string-array parameter that may be empty


def desc(text, read_only=False):
    return ParameterDescriptor(description=text, read_only=read_only)


def float_desc(text, lo, hi, read_only=False):
    return ParameterDescriptor(description=text, read_only=read_only, floating_point_range=[
        FloatingPointRange(from_value=float(lo), to_value=float(hi), step=0.0)])


def int_desc(text, lo, hi, read_only=False):
    return ParameterDescriptor(description=text, read_only=read_only, integer_range=[
        IntegerRange(from_value=int(lo), to_value=int(hi), step=1)])


def string_list(value):
    """The non-empty strings of a string-array parameter value (``['']`` -> ``[]``)."""
    return [str(s) for s in (value or []) if s]


def refuse_renamed(node, renamed):
    """ValueError naming the new name when ``node`` was given a parameter under a former name.

    ``renamed``: {former name: current name}. Checks the node's parameter overrides (command line
    ``-p``, params files, ``parameter_overrides``), which hold undeclared names too."""
    given = getattr(node, '_parameter_overrides', {}) or {}
    old = sorted(n for n in renamed if n in given)
    if old:
        raise ValueError('renamed parameter(s): ' + ', '.join(f'{n} is now {renamed[n]}' for n in old))


__all__ = ['EFFORT_UNITS', 'NO_STRINGS', 'desc', 'float_desc', 'int_desc', 'refuse_renamed',
           'string_list']
