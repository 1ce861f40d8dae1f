# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Which joints and which tool frame make "the arm" of a URDF when the user names none.

Default joints: the actuated joints on the chain from the URDF root to the tool frame. Default tool
frame: the youBot tool point when the URDF is the youBot arm (recognised by its joint names, not by
its path), else the end of the longest actuated chain. A gripper's fingers, mimic joints and other
side branches are left out, and the selection says so in one line (``ChainSelection.note``).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pinocchio as pin

YOUBOT_JOINTS = tuple(f'arm_joint_{i}' for i in range(1, 6))
YOUBOT_TOOL_FRAME = 'arm_tool_link'
# words that name an end effector's joints: the arm ends before the first joint named so
END_EFFECTOR_WORDS = ('finger', 'gripper', 'hand', 'jaw', 'thumb', 'index', 'palm', 'grip')


@dataclass(frozen=True)
class ChainSelection:
    """The chosen joints (base to tip), tool frame and a one-line note of what was left out."""

    joint_names: tuple
    tool_frame: str
    note: str = ''


def mimic_joints(urdf_text: str) -> set:
    """Names of the joints that copy another joint (``<mimic>``): never actuated on their own."""
    try:
        root = ET.fromstring(urdf_text)
    except ET.ParseError:
        return set()
    return {j.get('name') for j in root.iter('joint') if j.find('mimic') is not None}


def _parent_actuated(model, joint_id, one_dof):
    """Return the nearest 1-DoF ancestor of a joint (0 for the root)."""
    j = model.parents[joint_id]
    while j != 0 and j not in one_dof:
        j = model.parents[j]
    return j


def _chain_to(model, joint_id, actuated):
    """Actuated joints from the root to ``joint_id`` (inclusive when actuated), base to tip."""
    out = []
    j = joint_id
    while j != 0:
        if j in actuated:
            out.append(j)
        j = model.parents[j]
    return out[::-1]


def _longest_chain(model, one_dof, actuated):  # noqa: C901 - one walk, commented
    """Walk down from the root along the tallest branch of actuated joints.

    Stop at a gripper (several 1-DoF leaf joints on one body). Returns (joint ids, notes).
    """
    children = {j: [] for j in [0, *one_dof]}
    for j in sorted(one_dof):
        children[_parent_actuated(model, j, one_dof)].append(j)
    height = {}

    def tall(j):
        if j not in height:
            height[j] = 1 + max((tall(k) for k in children[j]), default=0)
        return height[j]

    # a word every actuated joint carries names the robot itself (a finger robot), not its effector
    words = [w for w in END_EFFECTOR_WORDS
             if not all(w in model.names[j].lower() for j in actuated)]
    chain, notes, current = [], [], 0
    while True:
        kids = children[current]
        if not kids:
            break
        if len(kids) >= 2 and all(tall(k) == 1 for k in kids):
            notes.append('gripper/branch joints ' + ', '.join(model.names[k] for k in kids))
            break
        effector = [k for k in kids if _is_effector(model.names[k], words)]
        if effector:
            notes.append('end-effector joints ' + ', '.join(model.names[k] for k in effector))
        candidates = [k for k in kids if k in actuated and k not in effector]
        if not candidates:
            if not effector:
                notes.append('mimic joints ' + ', '.join(model.names[k] for k in kids))
            break
        best = max(candidates, key=tall)   # first in tree order among the tallest
        rest = [k for k in kids if k != best and k not in effector]
        if rest:
            notes.append('branch joints ' + ', '.join(model.names[k] for k in rest))
        chain.append(best)
        current = best
    return chain, notes


def _is_effector(joint_name, words):
    name = joint_name.lower()
    return any(w in name for w in words)


def frame_id(model, name):
    """Return the id of a frame by name, the body frame where a joint frame has the same name."""
    if model.existFrame(name, pin.FrameType.BODY):
        return model.getFrameId(name, pin.FrameType.BODY)
    return model.getFrameId(name)


TOOL_WORDS = ('tcp', 'tool', 'end_effector', 'eef', 'ee_link', 'effector')


def _parent_frame(frame):
    """Return the frame a frame hangs from (``parentFrame`` in Pinocchio 3, else previousFrame)."""
    return frame.parentFrame if hasattr(type(frame), 'parentFrame') else frame.previousFrame


def _deepest_fixed_frame(model, joint_id):
    """Return the tool frame of a chain's last joint.

    A body frame on its body named like a tool (tcp, tool, end effector), else the one at the end
    of the fixed links hanging from it.
    """
    named = [
        f.name for f in model.frames
        if f.parentJoint == joint_id and f.type == pin.FrameType.BODY and any(w in f.name.lower()
                                                                              for w in TOOL_WORDS)
    ]
    if named:
        return named[-1]
    best, best_depth = None, -1
    for i, f in enumerate(model.frames):
        if f.parentJoint != joint_id or f.type != pin.FrameType.BODY:
            continue
        depth, k = 0, i
        while model.frames[k].type != pin.FrameType.JOINT and _parent_frame(model.frames[k]) != k:
            k = _parent_frame(model.frames[k])
            depth += 1
        if depth > best_depth:
            best, best_depth = f.name, depth
    return best


def select_chain(model, urdf_text: str, tool_frame: str | None = None) -> ChainSelection:
    """Return default joints and tool frame of a full (unreduced) Pinocchio model of a URDF.

    Args:
        model: ``pinocchio.buildModelFromUrdf`` of the URDF.
        urdf_text: the URDF's text (for ``<mimic>`` joints).
        tool_frame: a tool frame the user gave, or None for the default.
    Returns:
        ChainSelection; its joint list is empty when the URDF has no actuated joint.
    """
    names = [model.names[i] for i in range(model.njoints)]
    one_dof = {i for i in range(1, model.njoints) if model.joints[i].nv == 1}
    mimic = mimic_joints(urdf_text)
    actuated = {i for i in one_dof if names[i] not in mimic}
    if all(n in names for n in YOUBOT_JOINTS) \
            and (tool_frame is None or tool_frame == YOUBOT_TOOL_FRAME) \
            and model.existFrame(YOUBOT_TOOL_FRAME):
        chain = [names.index(n) for n in YOUBOT_JOINTS]
        tool = YOUBOT_TOOL_FRAME
        notes = []
    elif tool_frame is not None:
        if not model.existFrame(tool_frame):
            return ChainSelection((), tool_frame)
        chain = _chain_to(model, model.frames[frame_id(model, tool_frame)].parentJoint, actuated)
        tool, notes = tool_frame, []
    else:
        chain, notes = _longest_chain(model, one_dof, actuated)
        tool = _deepest_fixed_frame(model, chain[-1]) if chain else None
    left = sorted(set(one_dof) - set(chain))
    note = ''
    if left:
        note = (
            f'using joints {", ".join(names[i] for i in chain)} (tool frame {tool}); left out: ' +
            ', '.join(names[i] for i in left) + (' (' + '; '.join(notes) + ')' if notes else ''))
    return ChainSelection(tuple(names[i] for i in chain), tool or '', note)
