# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Stage 2, fitting the model (ROS-free).

Signal processing, static gravity, friction sweeps, full dynamics by least squares, physical
consistency, validation, payloads and the report.

Three data kinds, each optional (at least one of trajectories or static poses is needed):

* **trajectories** (Swevers et al. 1997; ``trajectories``, ``dynamics``): excitation runs.
  Positions are resampled to a uniform grid, then differentiated zero-phase (``signals``): by the
  exact band-limited Fourier series when the run is periodic (period from the sidecar's
  ``excitation_period`` segments or detected), else by Savitzky-Golay at ``cutoff_hz``. The
  measured torque enters the fit *as recorded* (not filtered): the regressor is band-limited, so
  the least-squares projection filters it anyway, and the residual stays white, which keeps the
  confidence intervals honest. The fit is on base parameters (``BaseParameters``) with friction
  and optionally rotor inertia and offsets, by OLS or WLS with per-joint noise variance (iterated
  from the OLS residual), with column scaling (eq. 25-26), a damped-least-squares prior toward the
  URDF values (eq. 27-29), subtraction of known standard parameters (eq. 16-18) and confidence
  intervals from the covariance (eq. 20-22) (``least_squares``). The normal equations are
  accumulated per joint in chunks, so memory does not grow with the record and per-joint
  residuals come out exactly.
* **static poses** (``static``): averaged efforts at rest, fitted with the static (gravity)
  regressor truncated to the combinations the poses identify; combinations the poses do not
  excite are dropped (kept at the URDF value) and reported. A point-mass model (weightless rods,
  point masses, potential energy differentiated) is offered as a baseline.
* **friction sweeps** (``sweeps``): constant-velocity passes forward and backward over the same
  positions; half their difference at matched positions is pure friction (gravity cancels),
  fitted per joint as Coulomb + viscous (+ Stribeck).

In every kind the joints stop and break free; the friction torque at those moments is the stiction
breakaway (``breakaway``), measured there rather than extrapolated from the friction law.

``identify`` (``pipeline``) runs the whole thing and returns an ``IdentificationResult`` holding
the ``IdentifiedModel`` to save; ``validate`` (``validation``) measures a model on held-out data.
The modules form a chain: options -> trajectories, least_squares -> static, sweeps, dynamics ->
consistency, breakaway -> validation, pipeline.
"""
from robot_id_ros.identify.consistency import (ConsistencyResult, is_physically_consistent,
                                               physically_consistent_fit, pseudo_inertia)
from robot_id_ros.identify.dynamics import (STRIBECK_VELOCITY_GRID_RAD_S, DynamicsResult,
                                            identify_dynamics)
from robot_id_ros.identify.identification_record import (DynamicsRecord, GravityModelRecord,
                                                         IdentificationRecord, StaticFitRecord)
from robot_id_ros.identify.least_squares import (LeastSquaresResult, NormalEquations, accumulate,
                                                 free_columns, solve_least_squares,
                                                 structural_base)
from robot_id_ros.identify.options import (IdentificationError, IdentificationOptions,
                                           effort_to_torque)
from robot_id_ros.identify.pipeline import IdentificationResult, identify
from robot_id_ros.identify.static import (GravityResult, PointMassResult, StaticPoses,
                                          identify_gravity, point_mass_gravity, static_poses)
from robot_id_ros.identify.sweeps import FrictionSweepResult, identify_friction_sweeps
from robot_id_ros.identify.trajectories import Trajectory, motion_mask, prepare_trajectory
from robot_id_ros.identify.validation import (ValidationResult, processing_options, validate,
                                              validation_metrics)

__all__ = [
    'ConsistencyResult', 'DynamicsRecord', 'DynamicsResult', 'FrictionSweepResult',
    'GravityModelRecord', 'GravityResult', 'IdentificationError', 'IdentificationOptions',
    'IdentificationRecord', 'IdentificationResult', 'LeastSquaresResult', 'NormalEquations',
    'PointMassResult', 'STRIBECK_VELOCITY_GRID_RAD_S', 'StaticFitRecord', 'StaticPoses',
    'Trajectory', 'ValidationResult', 'accumulate', 'effort_to_torque', 'free_columns',
    'identify', 'identify_dynamics', 'identify_friction_sweeps', 'identify_gravity',
    'is_physically_consistent', 'motion_mask', 'physically_consistent_fit', 'point_mass_gravity',
    'prepare_trajectory', 'processing_options', 'pseudo_inertia', 'solve_least_squares',
    'static_poses', 'structural_base', 'validate', 'validation_metrics',
]
