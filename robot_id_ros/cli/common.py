"""Pieces shared by the robot-id subcommands: model options, progress, errors."""
from __future__ import annotations

import sys
import time

from robot_id_ros.model.robot import YOUBOT_JOINTS, YOUBOT_TOOL_FRAME, RobotModel, default_urdf_path
from robot_id_ros.errors import InputError


class CommandError(InputError):
    """Bad input to a command: printed as one line, exit code 2."""


def add_robot_arguments(parser, urdf_required=False):
    """--urdf, --joints, --tool-frame (youBot defaults when --urdf is not given)."""
    parser.add_argument('--urdf', required=urdf_required, default=None,
                        help='robot URDF (default: the bundled youBot arm)')
    parser.add_argument('--joints', default=None,
                        help='comma-separated actuated joints, base to tip (default: the actuated joints '
                             'from the URDF root to the tool frame; fingers, mimic joints and side '
                             'branches are left out with a note)')
    parser.add_argument('--tool-frame', default=None,
                        help='frame where the wrench acts (default: the youBot tool point on the youBot '
                             'arm, else a tool/tcp frame at the end of the longest actuated chain)')


def robot_from_args(args) -> RobotModel:
    joints = [j.strip() for j in args.joints.split(',') if j.strip()] if args.joints else None
    if args.urdf is None:
        return RobotModel(default_urdf_path(), joints or YOUBOT_JOINTS, args.tool_frame or YOUBOT_TOOL_FRAME)
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
            print(f'{self.label}: {done}/{total} ({100 * frac:.0f}%) {el:.1f}s elapsed, ~{eta:.0f}s left',
                  file=self.stream, flush=True)
        elif total:
            print(f'{self.label}: 0/{total} {el:.1f}s elapsed', file=self.stream, flush=True)
        else:
            print(f'{self.label}: {done} {el:.1f}s elapsed', file=self.stream, flush=True)
