# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The wrench_estimator node's residual calibration: its file at start and ``~/calibrate``.

At start the node loads ``calibration_file`` when it exists; '' stands for
``$ROS_HOME/robot_id_ros/<node>_calibration.yaml`` (ROS_HOME: ~/.ros by default; <node> the
node's namespace and name joined by dots), the file ``~/calibrate`` writes, so a calibration is
kept across restarts. A file that cannot be used (malformed, for other joints, measured on
another residual method or bandwidth, older than the model file it would be used with) is
refused in one logged line and shown in /diagnostics, and the node runs on the model's
statistics.

``~/calibrate`` (std_srvs/srv/Trigger) gathers ``calibration_duration_s`` (by the samples'
stamps) of the node's own samples, which the caller declares free of contact: the untared
external torque, the model torque (it plus the measured torque) and the joint velocity; the
first samples after an observer restart are left out while the observer settles. It answers
when the gathering and the fit are done: the call waits as a coroutine on the node's executor,
which meanwhile goes on estimating, publishing and answering its other services. On success
the estimator is rebuilt with the calibration (its mean becomes the bias, in place of a tare;
the payload is kept; the observer restarts), the file is written atomically with its previous
version kept beside it, and the answer is a one-line summary. A failure (a stretch that looks
like it holds a contact, too few samples, an observer reset or a payload change during the
gathering, a gathering that does not end within its deadline, a call while another one runs)
answers success false with the reason and changes nothing.
"""
from __future__ import annotations

import math
import os
import time
import traceback
from pathlib import Path

import numpy as np
from rclpy.task import Future

from robot_id_ros.errors import RobotIdError
from robot_id_ros.estimate import WrenchEstimator
from robot_id_ros.estimate.calibration import calibrate_estimator
from robot_id_ros.io.backups import replace_keeping_previous
from robot_id_ros.io.calibration_file import CalibrationFileError, load_calibration
from robot_id_ros.ros.node_parameters import OutputGuard

# samples within this many time constants of the residual's filter after an observer restart
# are left out: the observer is still converging there
SETTLE_TIME_CONSTANTS = 5.0
# a gathering fails when it has not ended after this many times its duration plus this margin
# of wall time (input slower than real time, or none at all)
DEADLINE_FACTOR, DEADLINE_MARGIN_S = 10.0, 10.0


def default_calibration_path(node_fqn) -> Path:
    """Return ``$ROS_HOME/robot_id_ros/<node>_calibration.yaml`` for the node ``node_fqn``.

    ``node_fqn`` is the fully qualified node name (``/arm/wrench_estimator``: <node> is
    ``arm.wrench_estimator``); ROS_HOME defaults to ~/.ros, as for ROS's own files.
    """
    return node_home_file(node_fqn, 'calibration.yaml')


def node_home_file(node_fqn, suffix) -> Path:
    """Return ``$ROS_HOME/robot_id_ros/<node>_<suffix>``, a file the node ``node_fqn`` keeps."""
    home = Path(os.environ.get('ROS_HOME') or Path.home() / '.ros')
    return home / 'robot_id_ros' / f'{node_fqn.strip("/").replace("/", ".")}_{suffix}'


class CalibrationGathering:
    """The samples of one calibration, gathered until they span ``duration_s`` of stamps.

    Args:
        duration_s: the stretch to gather, s (of the samples' stamps).
        settle_ns: samples within this of the estimator's restart are left out, ns.
        run_start_ns: the stamp of the first sample since the estimator's last restart; None:
            the next sample's.
        deadline_s: ``time.monotonic()`` after which the gathering fails.
        finished: called once, with None when the stretch is gathered, else the reason it
            failed.
    """

    def __init__(self, duration_s, settle_ns, run_start_ns, deadline_s, finished):
        self.duration_s = float(duration_s)
        self.settle_ns, self.run_start_ns = int(settle_ns), run_start_ns
        self.deadline_s, self._finished = deadline_s, finished
        self.stamps, self.tau, self.model_torque, self.qd = [], [], [], []
        self.done = False

    def add(self, stamp_ns, tau_ext_nm, model_torque_nm, qd_rad_s):
        """Take one sample (its untared external torque, model torque and velocity)."""
        if self.done:
            return
        if self.run_start_ns is None:
            self.run_start_ns = stamp_ns
        if stamp_ns < self.run_start_ns + self.settle_ns:
            return
        self.stamps.append(stamp_ns)
        self.tau.append(np.array(tau_ext_nm, dtype=float))
        self.model_torque.append(np.array(model_torque_nm, dtype=float))
        self.qd.append(np.array(qd_rad_s, dtype=float))
        if (stamp_ns - self.stamps[0]) * 1e-9 >= self.duration_s:
            self._finish(None)

    def fail(self, reason):
        """End the gathering with ``reason`` (nothing happens once it has ended)."""
        if not self.done:
            self._finish(reason)

    def check_deadline(self, now_s):
        """Fail when ``now_s`` (``time.monotonic()``) is past the deadline."""
        if now_s > self.deadline_s:
            self.fail(f'the gathering did not end in time ({self.progress()}): are joint '
                      'states coming in?')

    def progress(self) -> str:
        """Return how much is gathered, one line."""
        spanned = (self.stamps[-1] - self.stamps[0]) * 1e-9 if self.stamps else 0.0
        return f'{len(self.stamps)} samples over {spanned:.2f} of {self.duration_s:g} s'

    def arrays(self):
        """Return (stamps (N,), tau_ext (N, n), model torque (N, n), qd (N, n))."""
        return (np.array(self.stamps, dtype=np.int64), np.array(self.tau),
                np.array(self.model_torque), np.array(self.qd))

    def _finish(self, reason):
        self.done = True
        self._finished(reason)


def _wake(_future):
    """Nothing: a done callback makes the executor wake and resume the awaiting service."""


class NodeCalibration:
    """The calibration file and the ``~/calibrate`` service of a wrench_estimator node.

    The node keeps ``lock`` (its estimator's), ``est``, ``model``, ``monitor`` and calls
    ``replace_estimator``; it calls ``taken`` with the samples it estimates, ``restarted`` when
    its estimator restarts and ``interrupt`` when its payload changes.

    Args:
        node: the node.
        calibration_file: the parameter's value ('' = ``default_calibration_path``).
        model_file: the model file the estimator runs (a calibration older than it is refused).
    """

    def __init__(self, node, calibration_file, model_file):
        self.node, self.model_file = node, model_file
        self.path = (Path(calibration_file).expanduser() if calibration_file
                     else default_calibration_path(node.get_fully_qualified_name()))
        self.output = OutputGuard(str(self.path), 'calibration_file')
        self.file_problem = ''        # why the file was refused at start, until a calibration
        self.state = 'none'           # the last ~/calibrate's outcome, for /diagnostics
        self.gathering = None         # the running CalibrationGathering
        self.busy = False             # a call is gathering, fitting or writing
        self.run_start_ns = None      # first stamp since the estimator's last restart

    # --- at start -----------------------------------------------------------------------
    def build_estimator(self, model, config) -> WrenchEstimator:
        """Return the estimator for ``model`` and ``config``, with the calibration file if usable.

        Logs which file is used or why it is refused (one line).
        """
        log = self.node.get_logger()
        if not self.path.exists():
            self.state = f'no calibration file yet ({self.path}; ~/calibrate writes it)'
            log.info(f'no calibration file at {self.path}: the estimator runs on the model\'s '
                     'statistics (~/calibrate writes one)')
            return WrenchEstimator(model, config)
        try:
            calibration = load_calibration(self.path)
            self._check_not_older(self.path)
            est = WrenchEstimator(model, config, calibration)
        except CalibrationFileError as exc:
            self.file_problem = (f'calibration file {self.path} refused: '
                                 f'{" ".join(str(exc).split())}')
            log.error(f'{self.file_problem}; the estimator runs on the model\'s statistics')
            return WrenchEstimator(model, config)
        self.state = f'loaded {self.path}'
        log.info(f'calibration {self.path} loaded ({calibration.samples} samples over '
                 f'{calibration.duration_s:.2f} s): {calibration.describe()}')
        return est

    def _check_not_older(self, path):
        """Raise CalibrationFileError when ``path`` is older than the model file."""
        try:
            newer = Path(self.model_file).stat().st_mtime > Path(path).stat().st_mtime
        except OSError:
            return
        if newer:
            raise CalibrationFileError(
                f'{path} is older than the model file {self.model_file}: it was measured with '
                'another model; call ~/calibrate (or robot-id calibrate) again')

    # --- samples (the input, under the node's lock) --------------------------------------
    def taken(self, est, stamp_ns, result, torque_nm, qd_rad_s):
        """Note an estimated sample (``torque_nm`` the measured torque); gather it if gathering."""
        if self.run_start_ns is None or result.reset_reason is not None:
            self.run_start_ns = stamp_ns
        g = self.gathering
        if g is None:
            return
        if result.reset_reason is not None:
            g.fail(f'the observer was reset during the gathering ({result.reset_reason})')
            return
        tau = result.tau_ext + est.bias          # untared: the bias holds a tare or calibration
        g.add(stamp_ns, tau, tau + torque_nm, qd_rad_s)

    def restarted(self, reason):
        """Note an estimator restart (``reason``): a running gathering fails."""
        self.run_start_ns = None
        self.interrupt(f'the observer was reset during the gathering ({reason})')

    def interrupt(self, reason):
        """Fail a running gathering with ``reason``."""
        if self.gathering is not None:
            self.gathering.fail(reason)

    # --- /diagnostics (under the node's lock) ---------------------------------------------
    def status(self, est):
        """Return (problems, values): the warnings and key/values for /diagnostics."""
        if self.gathering is not None:
            self.gathering.check_deadline(time.monotonic())
        problems = [self.file_problem] if self.file_problem else []
        if est.statistics.fallback:
            problems.append('running on fallback statistics: calibrate (~/calibrate while the '
                            'arm moves without contact, or calibration_file from robot-id '
                            'calibrate)')
        state = ('gathering: ' + self.gathering.progress() if self.gathering is not None
                 else self.state)
        return problems, [('residual_statistics', est.statistics.source),
                          ('calibration_file', str(self.path)), ('calibration', state)]

    # --- ~/calibrate ---------------------------------------------------------------------
    async def handle(self, request, response):
        """Answer a ``~/calibrate`` call once the calibration is done or refused."""
        log = self.node.get_logger()
        try:
            ok, message = await self._calibrate()
        except Exception as exc:  # noqa: BLE001 - a bug: report it, keep the node alive
            log.error(traceback.format_exc())
            ok, message = False, f'calibration failed unexpectedly: {type(exc).__name__}: {exc}'
        response.success, response.message = ok, message
        if ok:      # separate call sites: rclpy refuses one call site logging at two severities
            log.info(message)
        else:
            log.error(message)
        return response

    async def _calibrate(self):
        node = self.node
        with node.lock:
            if self.busy:
                running = (self.gathering.progress() if self.gathering is not None
                           else 'fitting')
                return False, f'a calibration is already running ({running}): wait for its answer'
            duration_s = float(node.get_parameter('calibration_duration_s').value)
            finished = Future(executor=node.executor)
            finished.add_done_callback(_wake)
            bandwidth_hz = node.est.config.residual_bandwidth_hz
            self.gathering = CalibrationGathering(
                duration_s, SETTLE_TIME_CONSTANTS / (2.0 * math.pi * bandwidth_hz) * 1e9,
                self.run_start_ns, time.monotonic() + DEADLINE_FACTOR * duration_s
                + DEADLINE_MARGIN_S, finished.set_result)
            self.busy = True
        try:
            node.get_logger().info(f'calibration: gathering {duration_s:g} s of joint states '
                                   'declared free of contact')
            failure = await finished
            with node.lock:
                gathering, self.gathering = self.gathering, None
                est = node.est
            if failure is None:
                failure, summary = self._fit_and_apply(est, gathering)
        finally:
            with node.lock:
                self.gathering, self.busy = None, False
        if failure is not None:
            self.state = f'failed: {failure}'
            return False, f'calibration refused, nothing changed: {failure}'
        self.state = summary
        return True, summary

    def _fit_and_apply(self, est, gathering):
        """Fit, write the file and swap the estimator; return (failure or None, summary)."""
        node = self.node
        stamps, tau, model_torque, qd = gathering.arrays()
        source = (f'{node.get_fully_qualified_name()} ~/calibrate, stamps '
                  f'{stamps[0] * 1e-9:.3f}-{stamps[-1] * 1e-9:.3f} s')
        try:
            calibration = calibrate_estimator(est, stamps, tau, model_torque, qd, source)
            with node.lock:        # the estimators share the model's Pinocchio data
                new = WrenchEstimator(est.model, est.config, calibration)
            out = self.output.target()
            out.parent.mkdir(parents=True, exist_ok=True)
            kept = replace_keeping_previous(out, calibration.save)
        except (RobotIdError, OSError) as exc:
            return ' '.join(str(exc).split()), ''
        with node.lock:
            node.replace_estimator(new)
            self.run_start_ns = None
        self.file_problem = ''
        previous = f', the previous one kept as {kept}' if kept is not None else ''
        notes = ''.join(f'; note: {n}' for n in calibration.notes)
        return None, (f'calibrated on {calibration.samples} samples over '
                      f'{calibration.duration_s:.2f} s, written to {out}{previous}: '
                      f'{calibration.describe()}{notes}')


__all__ = ['CalibrationGathering', 'NodeCalibration', 'default_calibration_path']
