# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Force holding's part of the force controller (``ForceHold``, mixed into ``ForceController``).

The pressing force to act on (the estimate fused with the contact line), the bound on the
reference's lead over the measured tool along ``force_axis`` (no wind-up, no overshoot) and the
contact probe of a force hold without dither. The methods use the controller's state
(``config``, ``kin``, ``q_ref``, ``contact``, ...).
"""
from __future__ import annotations

import numpy as np

from robot_id_ros.control.admittance import pressing_force_n, sigma_along_n, unit
from robot_id_ros.control.contact_model import fuse

# force_hold: beyond force_max_lead_m (and the distance to the set force) the reference moves
# along force_axis at this fraction of the admittance velocity, so a stuck arm does not wind it up
LEAD_CREEP = 0.1
# force_hold with a fitted contact line: the reference may lead the measured tool along
# force_axis by this multiple of the tool's distance to the set force on that line (plus
# force_max_lead_m while the tool is not moving towards it), because the position drives need a
# position error to make the torque of a larger force (docs/force_control.md, "No wind-up")
LEAD_OVERDRIVE = 4.0
# the tool moves towards the reference when its filtered speed along force_axis (time constant
# TOOL_SPEED_FILTER_S) is above MOVING_M_S: the breakaway lead force_max_lead_m is dropped then,
# and a reference beyond its bound is pulled back to it within PULL_BACK_S (the drives' integral
# would carry the tool past the set force to it)
MOVING_M_S = 2e-4
TOOL_SPEED_FILTER_S = 0.02
PULL_BACK_S = 0.05
# force_hold: the contact line is fitted on estimates of at least this fraction of the set force,
# because a moving arm's estimate in free space can carry a steady bias beyond 3 sigma that
# would flatten the fitted line
FIT_MIN_FRACTION = 0.3
# force_hold without dither: the contact line is fitted on a press at the approach speed
# (force_admittance_m_s_n x set force, kept until the estimate reads the set force) and a release
# at that speed until the pressing force is this fraction of the set force: the two legs at one
# speed cancel the fit's biases odd in the velocity, and half the set force spans about the
# press leg's fitted range while keeping the contact (docs/force_control.md, "Without dither")
PROBE_RELEASE_FRACTION = 0.5


class ForceHold:
    """The force_hold methods of ``ForceController`` (see the module docstring)."""

    def _pressing(self, t_s, inp, q_meas):
        """Return the pressing force to act on in force_hold, N.

        The estimate, fused with the contact's force-position line (``contact_model``) where
        ``force_contact_model``.
        """
        d = unit(self.config.force_axis)
        est = pressing_force_n(inp.force_n, d)
        used = est
        if self.config.force_contact_model:
            s = float(d @ self.kin.tool_position_m(q_meas))
            sigma = sigma_along_n(inp.sigma_n, d)
            self.contact.add(t_s, s, est, sigma,
                             FIT_MIN_FRACTION * self.config.force_setpoint_n)
            line = self.contact.predict(s)
            self._line_n = None if line is None else line[0]
            used = fuse(est, sigma, line)[0]
        self.pressing_n = (est, used)
        return used

    def _lead_along(self, d, q_meas) -> float:
        """Return how far the reference's tool is ahead of the measured one along ``d``, m."""
        return float(d @ (self.kin.tool_position_m(self.q_ref) -
                          self.kin.tool_position_m(q_meas)))

    def _tool_speed_along(self, d, q_meas, dt) -> float:
        """Return the measured tool speed along ``d`` (filtered over TOOL_SPEED_FILTER_S), m/s."""
        s_now = float(d @ self.kin.tool_position_m(q_meas))
        if self._s_prev is not None and dt > 0.0:
            a = min(1.0, dt / TOOL_SPEED_FILTER_S)
            self._s_speed += a * ((s_now - self._s_prev) / dt - self._s_speed)
        self._s_prev = s_now
        return self._s_speed

    def _no_windup(self, v, q_meas, dt):
        """Return ``v`` with its part along force_axis kept within the lead bounds (force_hold).

        The reference's lead over the measured tool along force_axis stays within
        ``force_max_lead_m`` of zero; with a fitted contact line, within ``force_max_lead_m``
        plus LEAD_OVERDRIVE x the distance to where the line gives the set force, in that
        distance's direction. Beyond a bound the reference only creeps on (LEAD_CREEP: a stuck
        arm does not wind it up, and one whose drive errors sit in their integral's dead band
        still gets there). While the tool moves towards the reference the breakaway part
        ``force_max_lead_m`` is dropped and a reference beyond the bound is pulled back to it
        (PULL_BACK_S): the drives' integral would otherwise carry the tool past the set force.
        """
        d = unit(self.config.force_axis)
        lead = self._lead_along(d, q_meas)
        speed = self._tool_speed_along(d, q_meas, dt)
        along = float(d @ v)
        margin = self.config.force_max_lead_m
        k = self.contact.stiffness_n_m
        line = k is not None and self.pressing_n is not None
        if line and speed * lead > 0.0 and abs(speed) > MOVING_M_S:
            margin = 0.0
        hi, lo = margin, -margin
        if line:
            to_target = (self.config.force_setpoint_n - self.pressing_n[1]) / k
            hi += LEAD_OVERDRIVE * max(to_target, 0.0)
            lo += LEAD_OVERDRIVE * min(to_target, 0.0)
        out = np.asarray(v, dtype=float)
        if (lead > hi and along > 0.0) or (lead < lo and along < 0.0):
            out = out - (1.0 - LEAD_CREEP) * along * d
            along *= LEAD_CREEP
        if line and lead > hi:
            out = out - ((lead - hi) / PULL_BACK_S) * d
        elif line and lead < lo:
            out = out + ((lo - lead) / PULL_BACK_S) * d
        return out

    def _probe_velocity(self, v, ramp, q_meas, dt):
        """Return ``v`` with its part along force_axis that of the contact probe (no dither).

        'press': the approach speed (force_admittance_m_s_n x set force) into the surface until
        the estimate reads the set force; 'release': that speed back out until the contact
        line fitted on the press (the fused force before there is a line) gives
        PROBE_RELEASE_FRACTION of the set force; then the admittance law with the line
        (``_no_windup``). Both legs are fitted while the joints move (PROBE_RELEASE_FRACTION's
        comment). A press whose tool stops following (its filtered speed along force_axis at
        most MOVING_M_S while the reference leads it by more than ``force_max_lead_m``: a
        blocked tool, a contact much stiffer than the drives) ends the probe: the admittance
        law's lead bound takes over and the reference does not wind up.
        """
        c = self.config
        d = unit(c.force_axis)
        lead = self._lead_along(d, q_meas)
        speed_m_s = self._tool_speed_along(d, q_meas, dt)
        if self._probe == 'press' and lead > c.force_max_lead_m and speed_m_s <= MOVING_M_S:
            self._probe = None         # from the next step on, the admittance law's lead bound
            return v
        est, used = self.pressing_n
        if self._probe == 'press' and est >= c.force_setpoint_n:
            self._probe = 'release'
        if self._probe == 'release' and self._line_n is not None:
            used = self._line_n        # the line alone: a frozen estimate does not end the leg
        if self._probe == 'release' and used <= PROBE_RELEASE_FRACTION * c.force_setpoint_n:
            self._probe = None
            return v
        speed = c.force_admittance_m_s_n * c.force_setpoint_n * ramp
        if self._probe == 'release':
            speed = -speed
        return np.asarray(v, dtype=float) + (speed - float(d @ v)) * d
