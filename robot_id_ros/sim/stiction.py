# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Joint friction with stiction for the simulated arm (``youbot_arm``), on Python floats.

The step of ``SimulatedArm`` works on lists of n floats: numpy's per-call overhead dominates on
5-element arrays. Every expression keeps the operation order of a numpy step, so the results are
the same floats (test/sim/test_sim_step_reference.py). The model is the one in the
``youbot_arm`` module docstring: Stribeck friction of the slipping joints, stuck joints held
while the torque their constraint needs is inside the breakaway band.
"""
from __future__ import annotations

import math

import numpy as np


class StictionSolver:
    """Friction torques and the stick/slip solve of one arm.

    Args:
        coulomb_pos_nm, coulomb_neg_nm: Coulomb friction per joint and direction [Nm].
        viscous_nm_s_rad: viscous friction per joint [Nm s/rad].
        breakaway_ratio: friction at zero speed / Coulomb friction.
        stribeck_velocity_rad_s: the Stribeck velocity [rad/s].
    """

    def __init__(self, coulomb_pos_nm, coulomb_neg_nm, viscous_nm_s_rad, breakaway_ratio,
                 stribeck_velocity_rad_s):
        self.n = len(coulomb_pos_nm)
        self._fcp = np.asarray(coulomb_pos_nm, dtype=float).tolist()
        self._fcn = np.asarray(coulomb_neg_nm, dtype=float).tolist()
        self._fv = np.asarray(viscous_nm_s_rad, dtype=float).tolist()
        self._ratio = breakaway_ratio
        self._vs = stribeck_velocity_rad_s
        self._bp = (breakaway_ratio * np.asarray(coulomb_pos_nm, dtype=float)).tolist()
        self._bn = (breakaway_ratio * np.asarray(coulomb_neg_nm, dtype=float)).tolist()

    def set_friction(self, coulomb_pos_nm, coulomb_neg_nm, viscous_nm_s_rad):
        """Replace the friction per joint (lists of floats; the breakaway follows the Coulomb)."""
        r = self._ratio
        self._fcp, self._fcn, self._fv = coulomb_pos_nm, coulomb_neg_nm, viscous_nm_s_rad
        self._bp = [r * f for f in coulomb_pos_nm]
        self._bn = [r * f for f in coulomb_neg_nm]

    def power(self, qd, d):
        """Return the power [W] each joint's friction dissipates (list; 0 for a stuck joint)."""
        moving = [j for j in range(self.n) if d[j] != 0]
        out = [0.0] * self.n
        for j, f in zip(moving, self.slip(qd, d, moving)):
            out[j] = f * qd[j]
        return out

    def slip(self, qd, d, joints):
        """Return the friction torques [Nm] of the slipping ``joints``.

        Args:
            qd: velocities [rad/s] of all n joints (list).
            d: directions (+-1 slipping, 0 stuck) of all n joints (list).
            joints: the indices of the slipping joints.

        Returns:
            list of one torque per index of ``joints``.
        """
        fcp, fcn, fv = self._fcp, self._fcn, self._fv
        rm1, vs, exp = self._ratio - 1.0, self._vs, math.exp
        out = []
        for j in joints:
            v, dj = qd[j], d[j]
            u = v / vs
            out.append(dj * (fcp[j] if dj > 0 else fcn[j]) * (1.0 + rm1 * exp(-(u * u)))
                       + fv[j] * v)
        return out

    def solve(self, a, mass_matrix, qd, d, stop, dt):
        """Return the accelerations with the stuck joints held; update d, stop and qd in place.

        Args:
            a: tau_motor + tau_ext - h(q, qd), (n,) array [Nm].
            mass_matrix: a callable returning M(q) (n, n); called only when a joint is free.
            qd: velocities [rad/s] (list); a joint that sticks gets 0.
            d: directions (list): 0 stuck, +-1 slipping.
            stop: end stops (list): +1 at the upper, -1 at the lower stop, 0 none.
            dt: the step [s].

        Returns:
            qdd [rad/s^2] (list of n floats).
        """
        n = self.n
        a_list = a.tolist()
        M = None
        released = [False] * n
        qdd = [0.0] * n
        for _ in range(3 * n + 2):
            free = [j for j in range(n) if d[j] != 0]
            nf = len(free)
            if nf:
                M = mass_matrix() if M is None else M
                fr = self.slip(qd, d, free)
                if nf == n:
                    qdd = np.linalg.solve(M, a - fr).tolist()
                else:
                    sol = np.linalg.solve(M[free][:, free],
                                          [a_list[j] - f for j, f in zip(free, fr)]).tolist()
                    qdd = [0.0] * n
                    for j, x in zip(free, sol):
                        qdd[j] = x
            else:
                qdd = [0.0] * n
            if nf < n:
                # torque the stiction / end-stop constraint must supply on the stuck joints
                r = (a - M @ np.array(qdd)).tolist() if nf else a_list
                j = self.breaking_joint(r, d, stop)
                if j is not None:
                    d[j] = 1 if r[j] > 0 else -1
                    stop[j] = 0
                    released[j] = True
                    continue
            if nf and self._stick(free, released, qd, qdd, d, dt):
                continue
            break
        return qdd

    @staticmethod
    def _stick(free, released, qd, qdd, d, dt):
        """Stick the joints that cannot slip on; return whether any did."""
        # a slipping joint whose velocity would change sign within the step sticks
        rev = [j for j in free if d[j] * (qd[j] + qdd[j] * dt) < 0 and not released[j]]
        for j in rev:
            d[j] = 0
            qd[j] = 0.0
        if rev:
            return True
        # a joint released in this step that accelerates backwards: it stays stuck
        back = [j for j in range(len(d)) if released[j] and d[j] * qdd[j] < 0]
        for j in back:
            d[j] = 0
            released[j] = False
        return bool(back)

    def breaking_joint(self, r, d, stop):
        """Return the stuck joint whose constraint torque most exceeds its band, or None.

        Args:
            r: the torque the constraint needs per joint [Nm] (list).
            d: directions (list); stop: end stops (list), as in ``solve``.

        Returns:
            the index of the joint that breaks loose (the largest excess, first on ties), or
            None. A joint pushed into its end stop stays held.
        """
        best, best_excess = None, 1.0
        bp, bn = self._bp, self._bn
        for j in range(self.n):
            if d[j] != 0:
                continue
            rj = r[j]
            excess = abs(rj) / (bp[j] if rj > 0 else bn[j])
            if stop[j] != 0 and (rj > 0) - (rj < 0) == stop[j]:
                continue
            if excess > best_excess:
                best, best_excess = j, excess
        return best
