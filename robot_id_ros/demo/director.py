"""The demo's director: a small rclpy node that moves the simulated arm, has the simulator apply a
scripted sequence of known forces, tares the estimator at each rest pose and records what comes
back (the estimator's wrench and contact flag, the simulator's true wrench), all in sim time.

The script is planned ROS-free (``ForceScript``): rest poses with forces that the drives can hold,
then the held-out excitation trajectory with a contact-free stretch followed by force steps.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from robot_id_ros.record import FourierTrajectory
from robot_id_ros.model.robot import RobotModel
from robot_id_ros.demo.results import Phase

REST_FORCES_N = [(5, 0, 0), (0, 0, -15), (0, 5, 0), (0, 0, 15), (-15, 0, 0), (0, -5, 0), (15, 0, 0), (0, 15, 0)]
MOTION_FORCES_N = [(5, 0, 0), (0, 0, -5), (0, 5, 0), (0, 0, 15), (-5, 0, 0), (0, -15, 0), (15, 0, 0)]


@dataclass
class Action:
    kind: str          # 'move', 'trajectory', 'wait', 'tare', 'force', 'clear', 'phase_start', 'phase_end'
    duration_s: float = 0.0
    value: object = None


@dataclass
class ForceScript:
    actions: list = field(default_factory=list)

    @classmethod
    def default(cls, robot: RobotModel, trajectory: FourierTrajectory, quick=False, hold_s=2.0, gap_s=1.0,
                seed=0):
        """Two rest poses where the arm is far from singular (the force is observable) with forces that
        keep every joint within 80 % of its torque limit; then the trajectory: one contact-free period,
        then force steps placed where the drives can carry them along the path."""
        acts = []
        n_rest = 3 if quick else 4
        poses = rest_poses(robot, 2, np.random.default_rng(seed))
        for i, q in enumerate(poses):
            forces = feasible_forces(robot, [q], REST_FORCES_N, 0.8)[:n_rest]
            acts += [Action('move', 4.0, q), Action('wait', 2.0), Action('tare'), Action('wait', 0.5),
                     Action('phase_start', value=('rest', f'rest pose {i + 1}'))]
            for f in forces:
                acts += [Action('force', hold_s, np.array(f, float)), Action('clear', gap_s)]
            acts.append(Action('phase_end'))
        T = trajectory.period_s
        periods = 2 if quick else 3
        q_start = trajectory.evaluate(np.array([0.0]))[0][0]
        # no tare before motion: a bias taken at rest holds stiction friction that motion removes
        acts += [Action('move', 4.0, q_start), Action('wait', 1.5), Action('clear_tare'), Action('wait', 0.3),
                 Action('trajectory', 0.0, (trajectory, periods * T)),
                 Action('phase_start', value=('motion_free', 'contact-free motion')), Action('wait', T - 0.3),
                 Action('phase_end'), Action('phase_start', value=('motion', 'motion with forces'))]
        t = T   # trajectory time now
        plan = motion_force_plan(robot, trajectory, T, periods * T - 0.5, MOTION_FORCES_N, hold_s, gap_s)
        for t_on, f in plan[:(4 if quick else 8)]:
            acts += [Action('wait', t_on - t), Action('force', hold_s, np.array(f, float)), Action('clear', gap_s)]
            t = t_on + hold_s + gap_s
        acts += [Action('wait', max(periods * T - t, 0.0)), Action('phase_end'), Action('wait', 0.5)]
        return cls(acts)

    def duration_s(self):
        return sum(a.duration_s for a in self.actions)


def rest_poses(robot: RobotModel, count, rng, candidates=400, floor_z_m=0.1):
    """``count`` rest poses well inside the limits, tool above the floor, chosen for the largest
    smallest singular value of the force Jacobian (forces best observable), spread apart."""
    Q = robot.random_configurations(candidates, rng, 0.3)
    scored = []
    for q in Q:
        if robot.tool_placement(q).translation[2] < floor_z_m:
            continue
        s = np.linalg.svd(robot.tool_jacobian(q, 'base')[:3], compute_uv=False)[-1]
        scored.append((s, q))
    scored.sort(key=lambda x: -x[0])
    out = []
    for s, q in scored:
        if all(np.abs(q - p)[1:4].max() > 0.4 for p in out):
            out.append(q)
        if len(out) == count:
            break
    return out


def feasible_forces(robot: RobotModel, Q, candidates, fraction):
    """The candidate forces (base axes, at the tool point) whose static joint torques
    g(q) - J^T F stay within ``fraction`` of the torque limits at every configuration in Q."""
    out = []
    lim = fraction * robot.limits.effort_nm
    for f in candidates:
        f = np.array(f, float)
        if all(np.all(np.abs(robot.gravity_torque(q) - robot.tool_jacobian(q, 'base')[:3].T @ f) <= lim)
               for q in Q):
            out.append(tuple(f))
    return out


def motion_force_plan(robot: RobotModel, trajectory: FourierTrajectory, t_from, t_to, candidates, hold_s, gap_s,
                      fraction=0.9, dt=0.05):
    """(onset time, force) steps along the trajectory, each held ``hold_s`` where the drives can carry
    it: |ID(q, qd, qdd) - J^T F| within ``fraction`` of the torque limits over the whole hold."""
    t = np.arange(t_from, t_to, dt)
    Q, QD, QDD = trajectory.evaluate(t)
    lim = fraction * robot.limits.effort_nm
    tau = np.array([robot.inverse_dynamics(q, qd, qdd) for q, qd, qdd in zip(Q, QD, QDD)])
    JT = np.array([robot.tool_jacobian(q, 'base')[:3].T for q in Q])
    plan, k, c = [], 0, 0
    n_hold = int(round(hold_s / dt))
    while k + n_hold < len(t):
        placed = False
        for i in range(len(candidates)):
            f = np.array(candidates[(c + i) % len(candidates)], float)
            if np.all(np.abs(tau[k:k + n_hold] - JT[k:k + n_hold] @ f) <= lim):
                plan.append((float(t[k]), tuple(f)))
                c += i + 1
                k += n_hold + int(round(gap_s / dt))
                placed = True
                break
        if not placed:
            k += int(round(0.25 / dt))
    return plan


@dataclass
class DirectorLog:
    true_t_s: list = field(default_factory=list)
    true_force_n: list = field(default_factory=list)
    est_t_s: list = field(default_factory=list)
    est_force_n: list = field(default_factory=list)
    contact_t_s: list = field(default_factory=list)      # receive time (sim clock)
    contact: list = field(default_factory=list)
    tare_events: list = field(default_factory=list)      # (sim s, 'tare' | 'clear')
    phases: list = field(default_factory=list)


def run_director(domain_id, script: ForceScript, sim_node_name, real_time_factor, robot: RobotModel,
                 estimator_name='wrench_estimator', command_topic='joint_trajectory_controller/joint_trajectory',
                 progress=print):
    """Run the script over DDS on ``domain_id``; return a DirectorLog (times in sim seconds)."""
    import rclpy
    from geometry_msgs.msg import WrenchStamped
    from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.parameter import Parameter as RclParameter
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Bool
    from std_srvs.srv import Trigger
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

    ctx = Context()
    rclpy.init(context=ctx, domain_id=domain_id)
    node = Node('demo_director', context=ctx,
                parameter_overrides=[RclParameter('use_sim_time', RclParameter.Type.BOOL, True)])
    log = DirectorLog()
    latest = {'q': None}
    names = list(robot.joint_names)
    qos = QoSProfile(depth=200, reliability=ReliabilityPolicy.BEST_EFFORT)

    def on_js(msg):
        try:
            idx = [msg.name.index(n) for n in names]
        except ValueError:
            return
        latest['q'] = np.array([msg.position[i] for i in idx])

    def t_of(stamp):
        return stamp.sec + stamp.nanosec * 1e-9

    def on_true(msg):
        f = msg.wrench.force
        log.true_t_s.append(t_of(msg.header.stamp))
        log.true_force_n.append((f.x, f.y, f.z))

    def on_est(msg):
        f = msg.wrench.force
        log.est_t_s.append(t_of(msg.header.stamp))
        log.est_force_n.append((f.x, f.y, f.z))

    def on_contact(msg):
        log.contact_t_s.append(now())
        log.contact.append(bool(msg.data))

    node.create_subscription(JointState, 'joint_states', on_js, qos)
    node.create_subscription(WrenchStamped, 'sim/true_wrench', on_true, qos)
    node.create_subscription(WrenchStamped, f'{estimator_name}/wrench', on_est, qos)
    node.create_subscription(Bool, f'{estimator_name}/contact', on_contact, qos)
    pub_cmd = node.create_publisher(JointTrajectory, command_topic, 10)
    pub_wrench = node.create_publisher(WrenchStamped, 'sim/wrench', 10)
    tare = node.create_client(Trigger, f'{estimator_name}/tare')
    untare = node.create_client(Trigger, f'{estimator_name}/clear_tare')
    clear = node.create_client(Trigger, 'sim/clear_wrench')
    setp = node.create_client(SetParameters, f'{sim_node_name}/set_parameters')
    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(node)
    spin = threading.Thread(target=ex.spin, daemon=True)
    spin.start()

    def now():
        return node.get_clock().now().nanoseconds * 1e-9

    def call(client, req, what, timeout_s=10.0):
        if not client.wait_for_service(timeout_sec=timeout_s):
            raise RuntimeError(f'demo director: service {client.srv_name} not available ({what})')
        fut = client.call_async(req)
        t0 = time.monotonic()
        while not fut.done():
            if time.monotonic() - t0 > timeout_s:
                raise RuntimeError(f'demo director: {what} timed out')
            time.sleep(0.005)
        return fut.result()

    def wait_sim(dt):
        t_end = now() + dt
        while now() < t_end:
            time.sleep(0.002)

    def send(points, t0_sim):
        msg = JointTrajectory()
        sec = int(t0_sim)
        msg.header.stamp.sec, msg.header.stamp.nanosec = sec, int((t0_sim - sec) * 1e9)
        msg.joint_names = names
        for t, q, qd in points:
            p = JointTrajectoryPoint()
            p.positions = [float(x) for x in q]
            p.velocities = [float(x) for x in qd]
            p.time_from_start.sec = int(t)
            p.time_from_start.nanosec = int((t - int(t)) * 1e9)
            msg.points.append(p)
        pub_cmd.publish(msg)

    def wrench_msg(f):
        m = WrenchStamped()
        m.header.frame_id = 'base'
        m.header.stamp = node.get_clock().now().to_msg()
        m.wrench.force.x, m.wrench.force.y, m.wrench.force.z = (float(x) for x in f)
        return m

    try:
        t_wait = time.monotonic()
        while latest['q'] is None or now() == 0.0 or not log.true_t_s:
            if time.monotonic() - t_wait > 30:
                raise RuntimeError('demo director: no joint_states / true wrench / clock from the simulator')
            time.sleep(0.05)
        req = SetParameters.Request()
        req.parameters = [Parameter(name='real_time_factor', value=ParameterValue(
            type=ParameterType.PARAMETER_DOUBLE, double_value=float(real_time_factor)))]
        call(setp, req, 'set the simulator real-time factor')
        phase_open = None
        total = script.duration_s()
        done_s = 0.0
        for a in script.actions:
            if a.kind == 'move':
                q0 = latest['q']
                T = a.duration_s
                ts = np.linspace(0, T, int(T / 0.05) + 1)
                s = 10 * (ts / T) ** 3 - 15 * (ts / T) ** 4 + 6 * (ts / T) ** 5
                sd = (30 * (ts / T) ** 2 - 60 * (ts / T) ** 3 + 30 * (ts / T) ** 4) / T
                t0 = now() + 0.2
                send([(t, q0 + si * (a.value - q0), sdi * (a.value - q0)) for t, si, sdi in zip(ts, s, sd)], t0)
                wait_sim(T + 0.2)
            elif a.kind == 'trajectory':
                traj, length_s = a.value
                ts = np.arange(0.0, length_s + 1e-9, 0.05)
                Q, QD, _ = traj.evaluate(ts)
                t0 = now() + 0.3
                send(list(zip(ts, Q, QD)), t0)
                wait_sim(0.3)
            elif a.kind == 'wait':
                wait_sim(a.duration_s)
            elif a.kind in ('tare', 'clear_tare'):
                call(tare if a.kind == 'tare' else untare, Trigger.Request(), f'{a.kind} the estimator')
                log.tare_events.append((now(), a.kind.replace('clear_tare', 'clear')))
            elif a.kind == 'force':
                pub_wrench.publish(wrench_msg(a.value))
                wait_sim(a.duration_s)
            elif a.kind == 'clear':
                call(clear, Trigger.Request(), 'clear the wrench')
                wait_sim(a.duration_s)
            elif a.kind == 'phase_start':
                phase_open = (a.value, now())
            elif a.kind == 'phase_end':
                (kind, label), t0 = phase_open
                log.phases.append(Phase(kind, t0, now(), label))
                phase_open = None
            done_s += a.duration_s
            if progress is not None and a.kind in ('force', 'move', 'trajectory'):
                progress(f'        force script: {done_s:.0f}/{total:.0f} s sim time'
                         + (f', force {np.round(a.value, 1).tolist()} N' if a.kind == 'force' else ''))
        wait_sim(0.5)
    finally:
        ex.shutdown()
        node.destroy_node()
        rclpy.shutdown(context=ctx)
        spin.join(timeout=5)
    return log
