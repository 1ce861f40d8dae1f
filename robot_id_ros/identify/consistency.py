"""Physically consistent standard parameters close to a least-squares fit (LMI, cvxpy).

Each link's 10 parameters (m, h = m c, inertia I about the joint frame origin) are physically
realisable exactly when the pseudo-inertia matrix

    J = [[ (tr(I)/2) 1 - I , h ],
         [ h'              , m ]]

is positive semidefinite (Wensing, Kim, Slotine 2017): positive mass, and the second moments of
mass (the diagonal of the upper block) satisfy the triangle inequalities. We ask J >= eps 1 (a
margin, so the body has some extent) and, where identified, rotor inertia >= 0, viscous and
Coulomb friction >= 0, and minimise

    (B theta - beta_ls)' A (B theta - beta_ls) + mu ||D (theta - theta_ref)||^2

with A the (weighted) normal matrix of the fit: the first term is exactly the increase of the
weighted residual sum of squares over the least-squares optimum; the small second term picks,
among the torque-equivalent parameter sets, the one closest to the URDF (the unidentifiable
directions). The result is reported with its cost in fit error and its run time.
"""
from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pinocchio as pin

from robot_id_ros.identify.identification import DynamicsResult, IdentificationError, IdentificationOptions, base_matrix
from robot_id_ros.model.robot import RobotModel

# E_k with J = sum_k theta_k E_k for one link (parameter order m, mx, my, mz, XX, XY, YY, XZ, YZ, ZZ)
_E = np.zeros((10, 4, 4))
_E[0][3, 3] = 1.0
for _k, _i in ((1, 0), (2, 1), (3, 2)):
    _E[_k][_i, 3] = _E[_k][3, _i] = 1.0
# Sigma = tr(I)/2 1 - I: XX -> diag(-1/2, 1/2, 1/2) ... products: -I_ij
_E[4][:3, :3] = np.diag([-0.5, 0.5, 0.5])
_E[6][:3, :3] = np.diag([0.5, -0.5, 0.5])
_E[9][:3, :3] = np.diag([0.5, 0.5, -0.5])
_E[5][0, 1] = _E[5][1, 0] = -1.0
_E[7][0, 2] = _E[7][2, 0] = -1.0
_E[8][1, 2] = _E[8][2, 1] = -1.0


def pseudo_inertia(theta10):
    return np.tensordot(np.asarray(theta10, float), _E, axes=1)


def is_physically_consistent(theta, n, tol=0.0):
    """(ok, min eigenvalue of each link's pseudo-inertia)."""
    mins = np.array([np.linalg.eigvalsh(pseudo_inertia(theta[10 * i:10 * i + 10])).min() for i in range(n)])
    return bool(np.all(mins >= -tol)), mins


@dataclass
class ConsistencyResult:
    theta: np.ndarray
    beta: np.ndarray
    min_eigenvalues: np.ndarray          # of each link's pseudo-inertia (>= margin)
    ls_consistent: bool                  # was the least-squares standard vector already consistent
    ls_min_eigenvalues: np.ndarray
    relative_error_ls: float
    relative_error: float                # on the fit data, after
    residual_rms_ls_nm: np.ndarray
    residual_rms_nm: np.ndarray
    time_s: float
    ls_time_s: float
    status: str
    solver: str

    @property
    def time_ratio(self):
        return self.time_s / max(self.ls_time_s, 1e-9)

    @property
    def cost_relative(self):
        """Increase of the relative fit error, as a fraction of the least-squares one."""
        return self.relative_error / max(self.relative_error_ls, 1e-300) - 1.0

    def summary(self):
        return (f'physical consistency (LMI, {self.solver}, {self.status}): relative fit error '
                f'{100 * self.relative_error_ls:.4g} % -> {100 * self.relative_error:.4g} % '
                f'(+{100 * self.cost_relative:.3g} % of it); least-squares set was '
                f'{"already" if self.ls_consistent else "not"} consistent; '
                f'{self.time_s:.3g} s = {self.time_ratio:.3g} x the least-squares step')

    def to_dict(self):
        return {'relative_error_ls': self.relative_error_ls, 'relative_error': self.relative_error,
                'cost_relative': self.cost_relative, 'time_s': self.time_s, 'ls_time_s': self.ls_time_s,
                'time_ratio': self.time_ratio, 'status': self.status, 'solver': self.solver,
                'ls_consistent': self.ls_consistent, 'min_eigenvalues': self.min_eigenvalues.tolist(),
                'residual_rms_nm': self.residual_rms_nm.tolist()}


def physically_consistent_fit(dyn: DynamicsResult, options: IdentificationOptions | None = None,
                              margin=1e-7, mu=1e-4, solver=None) -> ConsistencyResult:
    """Physically consistent standard parameters closest (in fit error) to the fit ``dyn``."""
    import cvxpy as cp

    t0 = time.perf_counter()
    reg, base, ls, neq = dyn.regressor, dyn.base, dyn.ls, dyn.neq
    n, p = reg.n, reg.p
    B = base_matrix(base, p)
    A = np.einsum('j,jik->ik', ls.weights, neq.A)
    d = np.sqrt(np.clip(np.diag(A), 1e-300, None))
    As = A / d[:, None] / d[None, :]
    w, V = np.linalg.eigh(0.5 * (As + As.T))
    w = np.clip(w, 0, None)
    Ls = (V * np.sqrt(w)).T                      # Ls' Ls = As
    theta_ref = dyn.theta_reference
    # scale of each standard parameter for the regulariser
    scale = np.ones(p)
    for i in range(n):
        m = max(abs(theta_ref[10 * i]), 0.1)
        scale[10 * i] = m
        scale[10 * i + 1:10 * i + 4] = m * 0.1
        scale[10 * i + 4:10 * i + 10] = m * 0.01
    scale[reg.n_inertial:] = 0.1
    th = cp.Variable(p)
    resid = Ls @ cp.multiply(d, B @ th - ls.beta)
    obj = cp.sum_squares(resid) + mu * cp.sum_squares(cp.multiply(1.0 / scale, th - theta_ref))
    cons = []
    for i in range(n):
        Ji = sum(th[10 * i + k] * _E[k] for k in range(10))
        cons.append(Ji >> margin * np.eye(4))
    nk = len(reg.joint_kinds)
    for k, kind in enumerate(reg.joint_kinds):
        idx = [reg.n_inertial + j * nk + k for j in range(n)]
        if kind in ('Ia', 'fv', 'fc', 'fcp', 'fcn'):
            cons.append(th[idx] >= 0)
    if len(dyn.known_idx):
        cons.append(th[dyn.known_idx] == theta_ref[dyn.known_idx])
    prob = cp.Problem(cp.Minimize(obj), cons)
    solvers = [solver] if solver else ['CLARABEL', 'SCS']
    status, used = 'not solved', ''
    for s in solvers:
        try:
            prob.solve(solver=s)
            status, used = prob.status, s
            if th.value is not None and prob.status in ('optimal', 'optimal_inaccurate'):
                break
        except Exception as exc:  # noqa: BLE001 - a solver failing: try the next
            status = f'{s} failed: {exc}'
    if th.value is None:
        raise IdentificationError(f'physical consistency: the LMI problem was not solved ({status})')
    theta = np.array(th.value)
    beta = B @ theta
    t1 = time.perf_counter()
    ss_ls = neq.residual_ss(ls.beta)
    ss = neq.residual_ss(beta)
    yy = max(neq.yy.sum(), 1e-300)
    ok_ls, mins_ls = is_physically_consistent(dyn.theta, n)
    _, mins = is_physically_consistent(theta, n)
    cnt = np.maximum(neq.count, 1)
    return ConsistencyResult(theta, beta, mins, ok_ls, mins_ls, float(np.sqrt(ss_ls.sum() / yy)),
                             float(np.sqrt(ss.sum() / yy)), np.sqrt(ss_ls / cnt), np.sqrt(ss / cnt), t1 - t0,
                             dyn.time_s.get('least_squares_total', 0.0), str(status), used)


# ---------------------------------------------------------------------------------------------
# identified URDF
# ---------------------------------------------------------------------------------------------
def export_urdf(robot: RobotModel, theta, path, require_consistent=True):
    """Write a copy of ``robot``'s URDF whose links carry the identified inertias.

    Each selected joint's child link gets the whole identified body (which, in the model, also
    holds every link rigidly attached to it and every locked joint's links, e.g. gripper fingers);
    those attached links get zero mass so nothing is counted twice. Refuses a physically
    inconsistent set unless ``require_consistent`` is False.
    """
    theta = np.asarray(theta, float)
    n = robot.n
    ok, mins = is_physically_consistent(theta, n, tol=1e-12)
    if require_consistent and not ok:
        bad = [robot.joint_names[i] for i in np.flatnonzero(mins < -1e-12)]
        raise IdentificationError(f'not exporting a URDF: the inertias of the bodies of {", ".join(bad)} are not '
                                  'physically valid; identify with physical consistency')
    tree = ET.parse(str(robot.urdf_path))
    root = tree.getroot()
    links = {l.get('name'): l for l in root.findall('link')}
    joints = {j.get('name'): j for j in root.findall('joint')}
    m = robot.model
    child_of = {name: joints[name].find('child').get('link') for name in robot.joint_names}
    # every link frame on body i (merged links)
    body_links = {i: [] for i in range(1, m.njoints)}
    for f in m.frames:
        if f.type == pin.FrameType.BODY and f.parentJoint > 0:
            body_links[f.parentJoint].append(f.name)
    for i, jn in enumerate(robot.joint_names, start=1):
        main = child_of[jn]
        inertia = pin.Inertia.FromDynamicParameters(theta[10 * (i - 1):10 * i])
        # the body frame of joint i is the child link frame of the URDF joint
        _set_inertial(links[main], inertia.mass, np.array(inertia.lever), np.array(inertia.inertia))
        for name in body_links[i]:
            if name != main and name in links and links[name].find('inertial') is not None:
                _set_inertial(links[name], 0.0, np.zeros(3), np.zeros((3, 3)))
    ET.indent(tree)
    Path(path).write_text(ET.tostring(root, encoding='unicode'))
    return Path(path)


def _set_inertial(link, mass, com, I_c):
    inertial = link.find('inertial')
    if inertial is None:
        inertial = ET.SubElement(link, 'inertial')
    for tag in ('origin', 'mass', 'inertia'):
        for e in inertial.findall(tag):
            inertial.remove(e)
    ET.SubElement(inertial, 'origin', xyz=' '.join(f'{x:.10g}' for x in com), rpy='0 0 0')
    ET.SubElement(inertial, 'mass', value=f'{mass:.10g}')
    ET.SubElement(inertial, 'inertia', ixx=f'{I_c[0, 0]:.10g}', ixy=f'{I_c[0, 1]:.10g}', ixz=f'{I_c[0, 2]:.10g}',
                  iyy=f'{I_c[1, 1]:.10g}', iyz=f'{I_c[1, 2]:.10g}', izz=f'{I_c[2, 2]:.10g}')
