# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Old import paths of the flat layout, kept for one release.

``robot_id_ros.core.*``, ``robot_id_ros.nodes.*``, ``robot_id_ros.commands.*``: importing one
gives the module at its new place and a DeprecationWarning naming it.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {
    'robot_id_ros.core.model': 'robot_id_ros.model.robot',
    'robot_id_ros.core.regressor': 'robot_id_ros.model.regressor',
    'robot_id_ros.core.base_parameters': 'robot_id_ros.model.base_parameters',
    'robot_id_ros.core.friction': 'robot_id_ros.model.friction',
    'robot_id_ros.core.bag_io': 'robot_id_ros.io.bags',
    'robot_id_ros.core.sidecar': 'robot_id_ros.io.sidecar',
    'robot_id_ros.core.model_file': 'robot_id_ros.io.model_file',
    'robot_id_ros.core.files': 'robot_id_ros.io.files',
    'robot_id_ros.core.joint_state': 'robot_id_ros.io.joint_state',
    'robot_id_ros.core.recording': 'robot_id_ros.record.recording',
    'robot_id_ros.core.excitation': 'robot_id_ros.record.excitation',
    'robot_id_ros.core.identification': 'robot_id_ros.identify',
    'robot_id_ros.core.physical_consistency': 'robot_id_ros.identify.consistency',
    'robot_id_ros.core.signals': 'robot_id_ros.identify.signals',
    'robot_id_ros.core.payload': 'robot_id_ros.identify.payload',
    'robot_id_ros.core.report': 'robot_id_ros.identify.report',
    'robot_id_ros.core.estimation': 'robot_id_ros.estimate',
    'robot_id_ros.nodes.docs': 'robot_id_ros.ros.docs',
    'robot_id_ros.nodes.parameters': 'robot_id_ros.ros.node_parameters',
    'robot_id_ros.nodes.youbot_sim': 'robot_id_ros.ros.nodes.youbot_sim',
    'robot_id_ros.nodes.wrench_estimator': 'robot_id_ros.ros.nodes.wrench_estimator',
    'robot_id_ros.nodes.identification': 'robot_id_ros.ros.nodes.identification',
    'robot_id_ros.nodes.static_pose_recorder': 'robot_id_ros.ros.nodes.static_pose_recorder',
    'robot_id_ros.nodes.trajectory_recorder': 'robot_id_ros.ros.nodes.trajectory_recorder',
    'robot_id_ros.nodes.friction_sweep_recorder': 'robot_id_ros.ros.nodes.friction_sweep_recorder',
}
for _name in ('common', 'demo', 'describe', 'design_excitation', 'estimate', 'identify', 'payload',
              'validate'):
    MOVED[f'robot_id_ros.commands.{_name}'] = f'robot_id_ros.cli.{_name}'


# the former packages themselves: empty packages whose modules are the aliases above
OLD_PACKAGES = {
    'robot_id_ros.core': 'the ROS-free core, now model/, io/, record/, identify/, estimate/',
    'robot_id_ros.nodes': 'the nodes, now ros/nodes/',
    'robot_id_ros.commands': 'the robot-id subcommands, now cli/',
}


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolve an old module name to the module at its new place (the same module object)."""

    def find_spec(self, fullname, path=None, target=None):
        """Return a spec for an old package or module name, None for any other name."""
        if fullname in OLD_PACKAGES:
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        """Return the module at its new place (an old package: a new empty package)."""
        if spec.name in OLD_PACKAGES:
            return None
        new = MOVED[spec.name]
        warnings.warn(f'{spec.name} is deprecated and will be removed in the next release: '
                      f'import {new}', DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module):
        """Give an old package its doc and an empty path; a moved module needs nothing."""
        if module.__name__ in OLD_PACKAGES:
            module.__doc__ = f'Deprecated: {OLD_PACKAGES[module.__name__]} (see {__name__}).'
            module.__path__ = []


def install() -> None:
    """Register the finder once (``import robot_id_ros`` does)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
