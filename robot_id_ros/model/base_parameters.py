# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Base (identifiable) parameters by QR decomposition of a random regressor (Gautier 1990).

The regressor W of random states is column-normalised and decomposed by QR *in a fixed column
order* (Khalil's per-link order XX XY XZ YY YZ ZZ MX MY MZ M, link 1 first, then the per-joint
columns). A column whose |R_ii| is below ``tolerance * max |R_ii|`` is a combination of earlier
columns; the others are the independent set. With W_b = W[:, independent] and
W[:, dependent] = W_b K, every torque satisfies

    W theta = W_b beta,   beta = theta[independent] + K theta[dependent],

so each base parameter beta_i is one human-readable grouped expression. Dependent columns that are
zero everywhere (e.g. the inertia of a link about axes it never rotates about) do not appear in
any base parameter: they are unidentifiable and do not matter.

The tolerance (``BASE_TOLERANCE_DEFAULT`` = 1e-8, relative to the largest |R_ii| of the
normalised regressor) separates Pinocchio's round-off (~1e-14) from any real excitation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robot_id_ros.errors import InputError
from robot_id_ros.model.regressor import Regressor

BASE_TOLERANCE_DEFAULT = 1e-8
K_ZERO = 1e-10  # K entries below this are round-off


@dataclass
class BaseParameters:
    """The map between the p standard parameters and the b base parameters."""

    standard_names: tuple
    independent: np.ndarray   # (b,) indices of standard columns kept
    dependent: np.ndarray     # (p - b,) indices regrouped onto the independent ones
    K: np.ndarray             # (b, p - b): W[:, dependent] = W[:, independent] @ K
    tolerance: float

    @property
    def n_base(self):
        return len(self.independent)

    @property
    def names(self):
        """Name of each base parameter: its leading standard one's, suffixed R if regrouped."""
        out = []
        for i, idx in enumerate(self.independent):
            grouped = np.any(np.abs(self.K[i]) > K_ZERO)
            out.append(self.standard_names[idx] + ('R' if grouped else ''))
        return tuple(out)

    def base_regressor(self, W):
        return W[:, self.independent]

    def to_base(self, theta):
        theta = np.asarray(theta, dtype=float)
        return theta[self.independent] + self.K @ theta[self.dependent]

    def to_standard(self, beta, theta_reference):
        """Return a standard parameter vector whose base parameters are ``beta``.

        The dependent parameters are at their reference values: torque-equivalent to beta, and as
        close to the reference as the regrouping allows.
        """
        theta = np.array(theta_reference, dtype=float)
        theta[self.independent] = np.asarray(beta, dtype=float) - self.K @ theta[self.dependent]
        return theta

    def matrix(self, p=None):
        """Return the ``to_base`` map as a matrix.

        Args:
            p: number of standard parameters (columns); default ``len(standard_names)``.

        Returns:
            B, (b, p), with beta = B theta.
        """
        p = len(self.standard_names) if p is None else p
        B = np.zeros((self.n_base, p))
        B[np.arange(self.n_base), self.independent] = 1.0
        if len(self.dependent):
            B[:, self.dependent] = self.K
        return B

    def standard_jacobian(self):
        """Return d theta / d beta of ``to_standard`` (p x b)."""
        J = np.zeros((len(self.standard_names), self.n_base))
        J[self.independent, np.arange(self.n_base)] = 1.0
        return J

    def expressions(self, digits=4):
        """One grouped expression per base parameter, e.g. ``ZZ1 + YY2 + 0.024*m3``."""
        out = []
        for i, idx in enumerate(self.independent):
            terms = [self.standard_names[idx]]
            for k, d in enumerate(self.dependent):
                c = self.K[i, k]
                if abs(c) <= K_ZERO:
                    continue
                if abs(c - 1.0) < 10 ** -digits:
                    terms.append(f'+ {self.standard_names[d]}')
                elif abs(c + 1.0) < 10 ** -digits:
                    terms.append(f'- {self.standard_names[d]}')
                else:
                    sign = '-' if c < 0 else '+'
                    terms.append(f'{sign} {abs(c):.{digits}g}*{self.standard_names[d]}')
            out.append(' '.join(terms))
        return out

    def unidentifiable(self):
        """Return the standard parameters that have no effect on torque at all."""
        zero_cols = ~np.any(np.abs(self.K) > K_ZERO, axis=0)
        return [self.standard_names[d] for d, z in zip(self.dependent, zero_cols) if z]

    def to_dict(self):
        return {'tolerance': self.tolerance,
                'independent': [self.standard_names[i] for i in self.independent],
                'dependent': [self.standard_names[i] for i in self.dependent],
                'K': self.K.tolist()}

    @classmethod
    def from_dict(cls, d, standard_names):
        idx = {n: i for i, n in enumerate(standard_names)}
        try:
            ind = np.array([idx[n] for n in d['independent']], dtype=int)
            dep = np.array([idx[n] for n in d['dependent']], dtype=int)
        except KeyError as exc:
            raise InputError(f'base parameter map names unknown parameter {exc}',
                             kind='base_parameters') from exc
        K = np.array(d['K'], dtype=float).reshape(len(ind), len(dep))
        return cls(tuple(standard_names), ind, dep, K, float(d['tolerance']))


# the fraction of random_states' joint velocities drawn at exactly 0 (a joint at rest)
REST_FRACTION = 0.2


def random_states(regressor: Regressor, count, rng):
    """Return random (q, qd, qdd) exciting every column.

    Angles over a full turn, velocities and accelerations of order 1 (structural rank does not
    depend on limits). A fraction ``REST_FRACTION`` of each joint's velocities is exactly 0: a
    joint at rest is where an offset and an asymmetric Coulomb term differ when the Coulomb
    term's sign is sharp (tanh(qd / v) is +-1 to round-off at every drawn speed far above v),
    and real recordings have rests; without them the offset was folded into the Coulomb pair.
    """
    n = regressor.n
    Q = rng.uniform(-np.pi, np.pi, (count, n))
    QD = rng.normal(0.0, 1.0, (count, n))
    QD[rng.uniform(size=(count, n)) < REST_FRACTION] = 0.0
    QDD = rng.normal(0.0, 2.0, (count, n))
    return Q, QD, QDD


def compute_base_parameters(regressor: Regressor, static=False, tolerance=BASE_TOLERANCE_DEFAULT,
                            samples=None, seed=0, columns=None) -> BaseParameters:
    """Return base parameters of ``regressor`` from the regressor of random states.

    Args:
        regressor: the regressor whose columns are grouped.
        static: group the columns of the static (gravity-only) regressor instead.
        tolerance: relative rank tolerance (see the module docstring).
        samples: number of random states; default ``max(60, 4 p / n + 20)``.
        seed: seed of the random states.
        columns: indices of the standard columns to group (the others, e.g. known parameters,
            are left out); default all. With ``static``, only the static columns among them.

    Returns:
        The ``BaseParameters``, indexed in the full standard vector.
    """
    rng = np.random.default_rng(seed)
    if samples is None:
        samples = max(60, int(4 * regressor.p / regressor.n) + 20)
    Q, QD, QDD = random_states(regressor, samples, rng)
    if static:
        W = regressor.static(Q)
    else:
        # the drift columns get a random coordinate of their own, as the states are random
        opts = regressor.options
        drift = rng.uniform(size=len(Q)) if opts.friction_drift and opts.friction else None
        W = regressor.stack(Q, QD, QDD, drift=drift)
    if columns is None:
        return base_parameters_of(W, regressor.names, regressor.grouping_order(), tolerance)
    columns = np.asarray(columns, dtype=int)
    if static:
        columns = columns[np.isin(columns, regressor.static_columns())]
    position = {c: i for i, c in enumerate(columns)}
    order = np.array([position[c] for c in regressor.grouping_order() if c in position], dtype=int)
    sub = base_parameters_of(W[:, columns], [regressor.names[c] for c in columns], order,
                             tolerance)
    return BaseParameters(regressor.names, columns[sub.independent], columns[sub.dependent], sub.K,
                          sub.tolerance)


def base_parameters_of(W, names, order=None, tolerance=BASE_TOLERANCE_DEFAULT) -> BaseParameters:
    """Return base parameters of a given stacked regressor ``W`` (columns named ``names``)."""
    W = np.asarray(W, dtype=float)
    p = W.shape[1]
    order = np.arange(p) if order is None else np.asarray(order)
    norms = np.linalg.norm(W, axis=0)
    nonzero = norms > tolerance * norms.max()   # columns of pure round-off are zero columns
    scale = np.where(nonzero, norms, 1.0)
    Wn = np.where(nonzero[order], W[:, order] / scale[order], 0.0)
    import scipy.linalg     # here, not at import: the youbot_sim node needs no scipy
    R = scipy.linalg.qr(Wn, mode='r')[0]
    diag = np.abs(np.diag(R[:min(R.shape), :]))
    if len(diag) < p:
        diag = np.concatenate([diag, np.zeros(p - len(diag))])
    keep = diag > tolerance * diag.max()
    keep &= nonzero[order]
    independent = order[keep]
    dependent = order[~keep]
    Wb = W[:, independent]
    if len(dependent):
        K = np.linalg.lstsq(Wb, W[:, dependent], rcond=None)[0]
        K[np.abs(K) < K_ZERO] = 0.0
    else:
        K = np.zeros((len(independent), 0))
    return BaseParameters(tuple(names), independent, dependent, K, tolerance)
