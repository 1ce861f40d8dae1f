# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The wrench_estimator node's tracked friction: ``~/save_friction`` and its /diagnostics values.

With ``friction_tracking`` on, the estimator follows each joint's friction terms while the arm
moves without contact (``estimate.friction_tracking``). ``~/save_friction`` (std_srvs/srv/
Trigger) writes the model file with the tracked terms to ``tracked_model_file`` ('' =
``$ROS_HOME/robot_id_ros/<node>_tracked_model.yaml``), atomically, its previous version kept
beside it; a node started with that file as ``model_file`` begins from what was learnt instead of
learning it again. /diagnostics shows the tracked terms, their standard deviations and how many
samples each joint has learnt from, and the model's offset, which is not tracked.
"""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np

from robot_id_ros.io.backups import replace_keeping_previous
from robot_id_ros.ros.node_calibration import node_home_file


def default_tracked_model_path(node_fqn) -> Path:
    """Return ``$ROS_HOME/robot_id_ros/<node>_tracked_model.yaml`` for the node ``node_fqn``."""
    return node_home_file(node_fqn, 'tracked_model.yaml')


def tracked_model(est):
    """Return a copy of the estimator's model with its tracked friction terms."""
    model = copy.copy(est.model)
    model.friction = est.tracked_friction()
    return model


def save_tracked_friction(est, path, lock):
    """Write ``est``'s model with its tracked friction to ``path``: ``(success, message)``.

    Tracking off, or a file that cannot be written (the previous one is left as it was), is a
    failure whose message says why.
    """
    if est.tracker is None:
        return False, 'friction_tracking is off: start the node with friction_tracking:=true'
    with lock:
        model = tracked_model(est)
        used = est.tracker.samples_used.copy()
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_keeping_previous(path, model.save)
    except OSError as exc:
        return False, f'cannot write {path}: {exc.strerror or exc}: set tracked_model_file'
    return True, (f'wrote {path} (friction learnt from {int(used.min())}-{int(used.max())} '
                  f'samples per joint): start with model_file:={path} to begin from it')


def tracking_values(est):
    """Return the /diagnostics key-values of the tracked friction (none when it is off)."""
    if est.tracker is None:
        return [('friction_tracking', False)]
    terms, std = est.tracker.terms(), est.tracker.term_std()
    values = [('friction_tracking', True)]
    for k, name in enumerate(est.model.joint_names):
        values.append((f'friction_{name}', (
            f'coulomb +{terms["coulomb_pos_nm"][k]:.4g}/-{terms["coulomb_neg_nm"][k]:.4g} '
            f'(std {std["coulomb_pos_nm"][k]:.2g}/{std["coulomb_neg_nm"][k]:.2g}) Nm, viscous '
            f'{terms["viscous_nm_s_rad"][k]:.4g} (std {std["viscous_nm_s_rad"][k]:.2g}) Nm s/rad, '
            f"offset {est.model.friction.offset_nm[k]:.4g} Nm (the model's, not tracked), "
            f'{int(est.tracker.samples_used[k])} samples')))
    change = max(float(np.max(np.abs(terms[n] - getattr(est.model.friction, n))))
                 for n in ('coulomb_pos_nm', 'coulomb_neg_nm'))
    values.append(('friction_coulomb_change_max_nm', change))    # since the model file
    return values
