# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""robot-id: the command line of robot_id_ros (see ``robot-id --help``).

Every subcommand lives in ``robot_id_ros.cli.<name>`` with ``add_parser`` and ``run``. Bad
input exits with status 2 and a one-line reason on stderr.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from robot_id_ros.errors import RobotIdError, one_line

COMMANDS = ('describe', 'model', 'design_excitation', 'identify', 'validate', 'calibrate',
            'estimate', 'payload', 'demo')


def build_parser():
    parser = argparse.ArgumentParser(
        prog='robot-id',
        description='Dynamic identification and sensorless force estimation for robot arms.',
        epilog='Sign convention: a wrench (/wrench of robot-id estimate, ~/wrench of the '
               'wrench_estimator node) is the wrench the environment applies to the robot, at the '
               'tool frame\'s origin: a push on the tool along +x reads +fx (robot-id estimate '
               '--help).')
    sub = parser.add_subparsers(dest='command', metavar='COMMAND')
    sub.required = True
    for name in COMMANDS:
        mod = importlib.import_module(f'robot_id_ros.cli.{name}')
        p = mod.add_parser(sub)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv=None) -> int:
    """Run the ``robot-id`` command (entry point); return the exit code.

    The package's own errors (``robot_id_ros.errors.RobotIdError``) and file errors (OSError)
    print one line on stderr and exit 2; anything else is a bug and shows its traceback.
    ``--debug`` before the command shows the traceback of every error.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = '--debug' in argv[:1]
    if debug:
        argv = argv[1:]
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print('robot-id: interrupted', file=sys.stderr)
        return 130
    except (RobotIdError, OSError) as exc:
        if debug:
            raise
        print(f'robot-id {args.command}: error: {one_line(exc)}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
