"""Common machinery of the three recorder nodes (not an executable itself).

A recorder subscribes to the driver's ``joint_states`` (any QoS reliability), writes every message
into a crash-safe bag (``core.recording.PartedBagWriter``) and runs its experiment in a worker
thread: it commands the arm with ``trajectory_msgs/JointTrajectory`` on ``command_topic``, waits
in ROS time (``use_sim_time`` honoured), and adds one sidecar segment per completed step
(``core.sidecar``): bag part committed first, then the sidecar rewritten atomically.

Services (``std_srvs/Trigger``): ``~/start`` (start the experiment, or resume it) and ``~/cancel``
(stop the arm where it is, close the bag and sidecar: both stay valid and readable).

Every failure (driver silent, unreachable pose, tracking error, full disk, unwritable output) ends
the run with an ERROR log naming the cause, keeps the data recorded so far, and writes
``info.status`` / ``info.error`` into the sidecar.
"""
from __future__ import annotations

import collections
import math
import sys
import threading
import time
import traceback
from pathlib import Path

import numpy as np
import rclpy
from builtin_interfaces.msg import Duration as DurationMsg
from builtin_interfaces.msg import Time as TimeMsg
from rclpy.clock import Clock, ClockType
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from robot_id_ros import record as rec
from robot_id_ros.io.bags import sidecar_path
from robot_id_ros.io.files import to_plain
from robot_id_ros.io.joint_state import JointIndexer, JointStateError
from robot_id_ros.model.robot import YOUBOT_JOINTS, YOUBOT_TOOL_FRAME, ModelError, RobotModel, default_urdf_path
from robot_id_ros.io.sidecar import SidecarError, read_sidecar, write_sidecar
from robot_id_ros.ros.params import EFFORT_UNITS, desc, float_desc

JOINT_STATE_TYPE = 'sensor_msgs/msg/JointState'


class Cancelled(Exception):
    """The experiment was cancelled by the ~/cancel service or a shutdown."""


def common_parameters():
    """name: (default, descriptor) of the parameters every recorder has."""
    return {
        'output_path': ('', desc('bag to write: a folder path (created; its sidecar is '
                                 '<output_path>.segments.yaml beside it). Required', True)),
        'resume': (True, desc('if output_path exists from an interrupted run of this recorder, continue '
                              'after its last completed segment (false: refuse to touch it)', True)),
        'autostart': (False, desc('start the experiment as soon as the driver publishes (else call ~/start)', True)),
        'passive': (False, desc('record only; never command the arm (something else moves it)', True)),
        'shutdown_when_done': (False, desc('exit the process when the run ends (finished, cancelled or failed)',
                                           True)),
        'joint_names': (list(YOUBOT_JOINTS), desc('arm joints to record and command, base to tip (URDF names)',
                                                  True)),
        'urdf_path': ('', desc("URDF of the arm; '' = the project's youBot arm URDF", True)),
        'tool_frame': (YOUBOT_TOOL_FRAME, desc('tool frame of the URDF (floor checks, sidecar info)', True)),
        'joint_states_topic': ('joint_states', desc('sensor_msgs/JointState topic of the driver', True)),
        'command_topic': ('joint_trajectory_controller/joint_trajectory',
                          desc('trajectory_msgs/JointTrajectory topic the driver follows', True)),
        'command_interface': ('trajectory', desc(
            "'trajectory': every motion as one JointTrajectory whose header.stamp is its start time; "
            "'trajectory_stream': motions streamed as short JointTrajectory chunks (stamp 0 = start on "
            'receipt), for controllers that take no future start times', True)),
        'effort_unit': ('torque', desc("what the driver's effort is: 'torque' (Nm) or 'current' (motor current, A); "
                                       'written into the sidecar', True)),
        'joint_limit_margin_rad': (rec.YOUBOT_SAFE_MARGIN_RAD, float_desc(
            'every commanded position stays this far inside the URDF joint limits, rad', 0.0, 1.0, True)),
        'max_velocity_rad_s': (rec.YOUBOT_SAFE_VELOCITY_RAD_S, float_desc(
            'largest commanded joint speed, rad/s (youBot drives: 1.57)', 0.01, 3.0, True)),
        'max_acceleration_rad_s2': (rec.YOUBOT_SAFE_ACCELERATION_RAD_S2, float_desc(
            'largest commanded joint acceleration, rad/s^2', 0.01, 20.0, True)),
        'command_lead_s': (0.3, float_desc('a motion starts this long after it is sent (ROS time), s',
                                           0.0, 5.0, True)),
        'command_point_period_s': (0.05, float_desc('time between the points of a sent trajectory, s',
                                                    0.001, 1.0, True)),
        'stream_chunk_s': (1.0, float_desc("length of one chunk with command_interface 'trajectory_stream', s",
                                           0.1, 10.0, True)),
        'driver_timeout_s': (2.0, float_desc(
            'wall-clock seconds without a joint state after which the driver counts as silent (error)',
            0.1, 60.0, True)),
        'startup_timeout_s': (10.0, float_desc(
            'wall-clock seconds to wait for the first joint state before giving up', 0.5, 600.0, True)),
        'progress_period_s': (5.0, float_desc('wall-clock seconds between progress log lines', 0.5, 600.0, True)),
        'commit_period_s': (5.0, float_desc(
            'ROS-time seconds between bag commits while no segment completes (crash safety of long runs)',
            0.5, 600.0, True)),
        'buffer_s': (600.0, float_desc('joint states kept in memory for averaging and checks, s of data',
                                       10.0, 36000.0, True)),
    }


class RecorderBase(Node):
    """Subscription, crash-safe bag, sidecar, services, progress, waiting and commanding."""

    KIND = 'passive'       # sidecar kind of an active run
    NODE_NAME = 'recorder'

    def __init__(self, node_name=None, extra_parameters=None, **kwargs):
        super().__init__(node_name or self.NODE_NAME, **kwargs)
        table = common_parameters()
        table.update(extra_parameters or {})
        self._param_names = list(table)
        for name, (default, d) in table.items():
            self.declare_parameter(name, default, d)
        self.p = {name: self.get_parameter(name).value for name in table}
        self.log = self.get_logger()
        self.joint_names = tuple(self.p['joint_names'])
        urdf = self.p['urdf_path'] or str(default_urdf_path())
        self.robot = RobotModel(urdf, self.joint_names, self.p['tool_frame'])
        self.n = self.robot.n
        self.limits = rec.SafetyLimits(self.p['joint_limit_margin_rad'], self.p['max_velocity_rad_s'],
                                       self.p['max_acceleration_rad_s2'])
        self.limits.vectors(self.n)
        self.lower, self.upper = self.limits.bounds(self.robot)
        if self.p['command_interface'] not in ('trajectory', 'trajectory_stream'):
            raise ValueError(f"parameter command_interface must be 'trajectory' or 'trajectory_stream', "
                             f"got {self.p['command_interface']!r}")
        if self.p['effort_unit'] not in EFFORT_UNITS:
            former = {'torque_nm': " (renamed: use 'torque')", 'current_a': " (renamed: use 'current')"}
            raise ValueError(f"parameter effort_unit must be 'torque' or 'current', got {self.p['effort_unit']!r}"
                             + former.get(self.p['effort_unit'], ''))
        self.indexer = JointIndexer(self.joint_names)
        self._steady = Clock(clock_type=ClockType.STEADY_TIME)
        self._lock = threading.RLock()
        self._samples = collections.deque()
        self._last_wall = None           # time.monotonic() of the last joint state
        self._msg_count = 0
        self._bad_msgs = 0
        self._last_bad = None
        self._stamps_ns = []             # every received stamp of this run (timing statistics)
        self.writer = None
        self.sidecar = None
        self.bag_path = None
        self._cancel = threading.Event()
        self._worker = None
        self.state = 'idle'              # idle, running, finished, cancelled, failed
        self.error = None
        self._t_commit_ns = None
        self._sample_hooks = []
        self._chunk_timer = None
        qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT,
                         durability=DurabilityPolicy.VOLATILE)  # matches reliable and best-effort publishers
        self.create_subscription(JointState, self.p['joint_states_topic'], self._on_joint_state, qos)
        self.pub_cmd = self.create_publisher(JointTrajectory, self.p['command_topic'], 10)
        self.create_service(Trigger, '~/start', self._srv_start)
        self.create_service(Trigger, '~/cancel', self._srv_cancel)
        if self.p['autostart']:
            self._autostart_timer = self.create_timer(0.05, self._autostart, clock=self._steady)

    # ------------------------------------------------------------------ joint states
    def _on_joint_state(self, msg: JointState):
        self._last_wall = time.monotonic()
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        if stamp == 0:
            stamp = self.get_clock().now().nanoseconds
        try:
            s = self.indexer.convert(msg.name, msg.position, msg.velocity, msg.effort,
                                     require_velocity=False, require_effort=False)
        except JointStateError as exc:
            self._bad_msgs += 1
            if self._last_bad != str(exc):
                self._last_bad = str(exc)
                self.log.error(f'unusable joint state on {self.p["joint_states_topic"]}: {exc}')
            s = None
        with self._lock:
            self._msg_count += 1
            w = self.writer
            if w is not None and self.state == 'running':
                try:
                    w.write('/' + self.p['joint_states_topic'].lstrip('/'), JOINT_STATE_TYPE, stamp,
                            serialize_message(msg))
                    self._stamps_ns.append(stamp)
                except rec.RecordingError as exc:
                    self.writer = None  # no further writes; the worker reports the error
                    self._fail_async(exc)
            if s is None:
                return
            self._samples.append((stamp, s.q, s.qd, s.effort))
            horizon = stamp - int(self.p['buffer_s'] * 1e9)
            while self._samples and self._samples[0][0] < horizon:
                self._samples.popleft()
        for hook in list(self._sample_hooks):
            hook(stamp, s)

    def _fail_async(self, exc):
        self.error = exc
        self._cancel.set()

    def latest(self):
        """(stamp_ns, q, qd, effort) of the newest joint state, or None."""
        with self._lock:
            return self._samples[-1] if self._samples else None

    def samples_between(self, t0_ns, t1_ns):
        with self._lock:
            sel = [s for s in self._samples if t0_ns <= s[0] <= t1_ns]
        return sel

    # ------------------------------------------------------------------ time and waiting
    def now_ns(self):
        return self.get_clock().now().nanoseconds

    def time_ref_ns(self):
        """The present in ROS time: the node clock, never behind the newest joint state stamp (the
        clock may lag, or be zero before the first /clock message with use_sim_time)."""
        last = self.latest()
        return max(self.now_ns(), last[0] if last is not None else 0)

    def wait_for_command_subscriber(self):
        """Commands published before the driver's subscription is matched are lost: wait for it."""
        t_end = time.monotonic() + self.p['startup_timeout_s']
        while self.pub_cmd.get_subscription_count() == 0:
            self.check()
            if time.monotonic() > t_end:
                raise rec.RecordingError(
                    f'nothing subscribes to the command topic {self.pub_cmd.topic_name} after '
                    f'{self.p["startup_timeout_s"]:g} s: is the driver\'s trajectory controller running? '
                    '(set command_topic, or passive:=true to only record)')
            time.sleep(0.01)

    def check(self):
        """Raise on cancel, a writer error or a silent driver."""
        if self.error is not None:
            raise self.error
        if self._cancel.is_set():
            raise Cancelled()
        if self._last_wall is not None and time.monotonic() - self._last_wall > self.p['driver_timeout_s']:
            raise rec.RecordingError(
                f'the driver stopped publishing on {self.p["joint_states_topic"]}: no joint state for '
                f'{time.monotonic() - self._last_wall:.1f} s (driver_timeout_s = {self.p["driver_timeout_s"]})')

    def wait_for_driver(self):
        t_end = time.monotonic() + self.p['startup_timeout_s']
        while self.latest() is None:
            if self._cancel.is_set():
                raise Cancelled()
            if time.monotonic() > t_end:
                got = (f'; {self._bad_msgs} message(s) arrived but were unusable: {self._last_bad}'
                       if self._bad_msgs else '')
                raise rec.RecordingError(
                    f'no joint state from the driver on {self.resolve_topic(self.p["joint_states_topic"])} within '
                    f'{self.p["startup_timeout_s"]:g} s (is the driver running, on this ROS domain, '
                    f'with these joint names: {", ".join(self.joint_names)}?){got}')
            time.sleep(0.01)

    def resolve_topic(self, name):
        try:
            return self.resolve_topic_name(name)
        except Exception:  # noqa: BLE001 - only for messages
            return name

    def wait_until_stamp(self, t_ns, poll_s=0.005):
        """Block until a joint state stamped >= t_ns arrived (driver time), checking for errors."""
        while True:
            self.check()
            last = self.latest()
            if last is not None and last[0] >= t_ns:
                return last
            self._maybe_progress()
            self._maybe_commit()
            time.sleep(poll_s)

    def sleep_ros(self, seconds):
        return self.wait_until_stamp(self.latest()[0] + int(seconds * 1e9))

    # ------------------------------------------------------------------ commanding
    def send_motion(self, motion: rec.Motion, start_ns=None):
        """Command ``motion`` to start at ROS time ``start_ns`` (default now + command_lead_s).
        Returns the start time (ns)."""
        if self.p['passive']:
            raise RuntimeError('passive recorders never command the arm')
        if start_ns is None:
            start_ns = self.time_ref_ns() + int(self.p['command_lead_s'] * 1e9)
        dt = self.p['command_point_period_s']
        if self.p['command_interface'] == 'trajectory':
            self._publish_points(motion, 0.0, motion.duration_s, dt, start_ns, start_ns)
        else:
            self._stream(motion, start_ns)
        return start_ns

    def _publish_points(self, motion, t0, t1, dt, stamp_ns, origin_ns):
        rel, Q, V = rec.sample_for_command(motion, t0, t1, dt)
        off = (t0 + (origin_ns - stamp_ns) * 1e-9)
        msg = JointTrajectory()
        if stamp_ns:
            msg.header.stamp = TimeMsg(sec=stamp_ns // 1_000_000_000, nanosec=stamp_ns % 1_000_000_000)
        msg.joint_names = list(self.joint_names)
        for tr, q, v in zip(rel, Q, V):
            t = tr + off
            if t <= 0:
                continue
            pt = JointTrajectoryPoint()
            pt.positions = [float(x) for x in q]
            pt.velocities = [float(x) for x in v]
            ns = int(round(t * 1e9))
            pt.time_from_start = DurationMsg(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)
            msg.points.append(pt)
        if msg.points:
            self.pub_cmd.publish(msg)

    def _stream(self, motion, start_ns):
        """Chunks of stream_chunk_s, each sent command_lead_s before it begins, relative to receipt."""
        chunk = self.p['stream_chunk_s']
        lead = self.p['command_lead_s']
        dt = self.p['command_point_period_s']
        k = 0
        self.motion_stream = (motion, start_ns)
        while k * chunk < motion.duration_s:
            t0 = k * chunk
            send_at = start_ns + int((t0 - lead) * 1e9)
            while self.time_ref_ns() < send_at:
                self.check()
                time.sleep(0.002)
            now = self.time_ref_ns()
            # points relative to now (receipt): they cover [t0, t0 + chunk + lead] of the motion
            t_first = max(0.0, (now - start_ns) * 1e-9)
            self._publish_points(motion, t_first, min(motion.duration_s, t0 + chunk + lead), dt, 0, now)
            k += 1

    def hold_position(self):
        """Stop the arm where it is (a one-point trajectory to the measured position)."""
        if self.p['passive']:
            return
        last = self.latest()
        if last is None:
            return
        q = np.clip(last[1], self.robot.limits.lower_rad, self.robot.limits.upper_rad)
        msg = JointTrajectory()
        msg.joint_names = list(self.joint_names)
        pt = JointTrajectoryPoint()
        pt.positions = [float(x) for x in q]
        pt.velocities = [0.0] * self.n
        pt.time_from_start = DurationMsg(sec=0, nanosec=200_000_000)
        msg.points.append(pt)
        self.pub_cmd.publish(msg)

    def move_to(self, q_target, label=''):
        """Point-to-point move from the measured pose; returns when the motion time has passed."""
        q0 = self.latest()[1]
        m = rec.plan_point_to_point(q0, q_target, self.limits, min_duration_s=0.2)
        start = self.send_motion(m)
        self.wait_until_stamp(start + int(m.duration_s * 1e9))
        return m

    # ------------------------------------------------------------------ bag and sidecar
    def open_output(self):
        out = self.p['output_path']
        if not out:
            raise rec.RecordingError('parameter output_path is empty: give the bag folder to write')
        path = Path(out).expanduser().absolute()
        if path.suffix in ('.mcap', '.db3'):
            raise rec.RecordingError(f'output_path {path} names a single-file bag; recorders write a bag folder '
                                     '(drop the suffix)')
        kind = 'passive' if self.p['passive'] else self.KIND
        sc_path = sidecar_path(path)
        resume = False
        if path.exists():
            if not self.p['resume']:
                raise rec.RecordingError(f'output {path} exists and resume is false; choose a new output_path')
            if not sc_path.is_file():
                raise rec.RecordingError(f'output {path} exists but has no sidecar {sc_path.name}: it is not an '
                                         'interrupted recording of this recorder; choose a new output_path')
            try:
                old = read_sidecar(sc_path)
            except SidecarError as exc:
                raise rec.RecordingError(f'cannot resume {path}: {exc}') from exc
            if old.get('kind') != kind:
                raise rec.RecordingError(f'cannot resume {path}: it is a {old.get("kind")!r} recording, this is '
                                         f'{kind!r}; choose a new output_path')
            if old.get('complete'):
                raise rec.RecordingError(f'{path} is a complete recording already; choose a new output_path')
            if list(old.get('joint_names') or []) != list(self.joint_names):
                raise rec.RecordingError(f'cannot resume {path}: recorded joints {old.get("joint_names")} differ '
                                         f'from {list(self.joint_names)}')
            resume = True
        self.writer = rec.PartedBagWriter(path, resume=resume)
        self.bag_path = path
        self.sidecar_file = sc_path
        if resume:
            self.sidecar = old
            self.sidecar.setdefault('info', {})
            self.sidecar['info']['resumed'] = int(self.sidecar['info'].get('resumed', 0)) + 1
            self.log.info(f'resuming {path}: {len(self.sidecar["segments"])} segment(s) already complete, '
                          f'{self.writer.messages_written} messages in {self.writer.committed_parts} part(s)')
        else:
            self.sidecar = {'schema_version': 1, 'kind': kind, 'bag': path.name, 'joint_names': list(self.joint_names),
                            'effort_unit': self.p['effort_unit'], 'complete': False,
                            'info': {'recorder': self.get_name(), 'status': 'running',
                                     'urdf': str(self.robot.urdf_path), 'urdf_sha256': self.robot.urdf_sha256,
                                     'tool_frame': self.robot.tool_frame,
                                     'parameters': {k: self.p[k] for k in self._param_names}},
                            'segments': []}
        self.sidecar['info']['status'] = 'running'
        self.sidecar['info'].pop('error', None)
        self.save_sidecar()

    def save_sidecar(self):
        try:
            write_sidecar(self.sidecar_file, to_plain(self.sidecar))
        except OSError as exc:
            raise rec.RecordingError(f'cannot write sidecar {self.sidecar_file}: {exc.strerror or exc}; the bag '
                                     f'{self.bag_path} holds the data up to the last commit') from exc

    def commit(self):
        with self._lock:
            w = self.writer
            if w is None:
                if self.error is not None:
                    raise self.error
                return 0
            n = w.commit()
        self._t_commit_ns = self.time_ref_ns()
        return n

    def _maybe_commit(self):
        now = self.time_ref_ns()
        if self._t_commit_ns is None:
            self._t_commit_ns = now
        if now - self._t_commit_ns > self.p['commit_period_s'] * 1e9:
            self.commit()

    def add_segment(self, seg):
        """Commit the bag (the segment's data is then on disk), then add the segment to the sidecar."""
        self.commit()
        self.sidecar['segments'].append(to_plain(seg))
        self.save_sidecar()

    def completed(self, **match):
        return [s for s in self.sidecar['segments'] if all(s.get(k) == v for k, v in match.items())]

    # ------------------------------------------------------------------ progress
    def set_progress(self, done, total, what=''):
        self._progress = (done, total, what)

    def _maybe_progress(self, force=False):
        now = time.monotonic()
        if not force and now - getattr(self, '_last_progress', 0.0) < self.p['progress_period_s']:
            return
        self._last_progress = now
        done, total, what = getattr(self, '_progress', (0, 0, ''))
        el = now - self._t_start_wall
        left = el / done * (total - done) if done > 0 else float('nan')
        eta = f'{left:.0f} s' if math.isfinite(left) else 'unknown'
        self.log.info(f'{what} ({done} of {total} done), elapsed {el:.0f} s, estimated time left {eta}')

    # ------------------------------------------------------------------ run control
    def _autostart(self):
        self.destroy_timer(self._autostart_timer)
        ok, msg = self.start()
        if not ok:
            self.log.error(msg)

    def _srv_start(self, req, resp):
        resp.success, resp.message = self.start()
        return resp

    def _srv_cancel(self, req, resp):
        if self.state != 'running':
            resp.success, resp.message = False, f'nothing to cancel (state: {self.state})'
            return resp
        self._cancel.set()
        resp.success, resp.message = True, 'cancelling: the arm stops where it is, bag and sidecar are closed'
        return resp

    def start(self):
        if self.state == 'running':
            return False, 'already running'
        self._cancel.clear()
        self.error = None
        self.state = 'running'
        self._worker = threading.Thread(target=self._run, name='recorder', daemon=True)
        self._worker.start()
        return True, f'started; recording to {self.p["output_path"]}'

    def _run(self):
        self._t_start_wall = time.monotonic()
        self._progress = (0, 0, 'starting')
        status, err = 'finished', None
        try:
            self.open_output()
            self.wait_for_driver()
            self.log.info(f'driver publishes on {self.resolve_topic(self.p["joint_states_topic"])}; '
                          f'recording to {self.bag_path}')
            if self.p['passive']:
                self.run_passive()
            else:
                self.wait_for_command_subscriber()
                self.run_experiment()
        except Cancelled:
            status = 'cancelled'
            if self.error is not None:
                status, err = 'failed', self.error
        except (rec.RecordingError, rec.PoseError, ValueError, OSError) as exc:
            status, err = 'failed', exc
        except Exception as exc:  # noqa: BLE001 - report anything, keep the data
            status, err = 'failed', exc
            self.log.error(traceback.format_exc())
        finally:
            if status != 'finished':
                try:
                    self.hold_position()
                except Exception:  # noqa: BLE001
                    pass
            self._finish(status, err)

    def _finish(self, status, err):
        msg = f'{type(err).__name__}: {err}' if err is not None and not isinstance(err, rec.RecordingError) else (
            str(err) if err is not None else '')
        try:
            if self.writer is not None:
                try:
                    self.commit()
                except rec.RecordingError as exc:
                    msg = msg or str(exc)
                    status = 'failed'
                with self._lock:
                    self.writer = None
            if self.sidecar is not None:
                info = self.sidecar.setdefault('info', {})
                info['status'] = status
                if msg:
                    info['error'] = msg
                info['driver_timing'] = rec.timing_stats(self._stamps_ns)
                self.finish_info(info)
                self.sidecar['complete'] = status == 'finished'
                self.save_sidecar()
        except Exception as exc:  # noqa: BLE001
            msg = msg or f'{type(exc).__name__}: {exc}'
            status = 'failed'
        self.state = status
        where = f' (data so far: {self.bag_path})' if self.bag_path else ''
        if status == 'failed':
            self.log.error(f'recording failed: {msg}{where}')
        elif status == 'cancelled':
            self.log.warning(f'recording cancelled{where}; bag and sidecar are valid')
        else:
            self.log.info(f'recording finished: {self.bag_path} and {self.sidecar_file.name}')
        self._maybe_progress(force=True)
        if self.p['shutdown_when_done']:
            self._exit_code = 0 if status == 'finished' else (1 if status == 'failed' else 3)
            self.context.try_shutdown() if hasattr(self.context, 'try_shutdown') else rclpy.try_shutdown(
                context=self.context)

    # ------------------------------------------------------------------ hooks for subclasses
    def run_experiment(self):
        raise NotImplementedError

    def run_passive(self):
        """Default passive run: record until cancelled (or passive_duration_s when declared)."""
        dur = self.p.get('passive_duration_s', 0.0) or 0.0
        t_end = self.latest()[0] + int(dur * 1e9) if dur > 0 else None
        while t_end is None or self.latest()[0] < t_end:
            self.check()
            self._maybe_commit()
            self.set_progress(0, 0, 'passive recording')
            self._maybe_progress()
            time.sleep(0.01)

    def finish_info(self, info):
        """Add run statistics to the sidecar info."""


def run_node(cls, args=None):
    """main() of a recorder: spin until shutdown; exit code 0 finished, 1 failed, 2 bad parameters,
    3 cancelled (with shutdown_when_done)."""
    rclpy.init(args=args)
    node = None
    code = 0
    try:
        node = cls()
        rclpy.spin(node)
    except (ModelError, ValueError, rec.RecordingError, rec.PoseError) as exc:
        print(f'{cls.NODE_NAME}: {exc}', file=sys.stderr)
        code = 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            if node.state == 'running':
                node._cancel.set()
                if node._worker is not None:
                    node._worker.join(timeout=10.0)
            code = code or getattr(node, '_exit_code', 0)
            node.destroy_node()
        rclpy.try_shutdown()
    if code:
        sys.exit(code)
