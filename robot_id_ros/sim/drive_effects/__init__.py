# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""What real drives do and the identified models do not say, for recordings of any URDF arm.

A joint's truth here is a rigid-body model (``RobotModel``) and a friction law
(``FrictionModel``), which the identification's model family can represent, plus effects it
cannot (each off unless set):

- ``friction``: friction that varies with position, cogging, Coulomb friction that grows with the
  load torque, friction that drifts within a run (``FrictionEffects``);
- ``transmission``: a compliant transmission, the encoder on the motor side of a spring to the
  link (``compliant_motor_side``);
- ``sensors``: a current sensor with a gain error and an offset (``CurrentSensor``), a coarse
  encoder (``encoder_reading``);
- ``recording``: all of them on a prescribed link motion, as the drives would record it
  (``record_drives``).

The motion is the link's, given with its derivatives (the spring's link side is a flat output:
the motor side follows from it), so no forward integration is needed. ROS-free.
"""
from robot_id_ros.sim.drive_effects.friction import FrictionEffects, joint_friction
from robot_id_ros.sim.drive_effects.recording import DriveEffects, DriveRun, record_drives
from robot_id_ros.sim.drive_effects.sensors import (CurrentSensor, encoder_reading,
                                                    encoder_velocity)
from robot_id_ros.sim.drive_effects.transmission import compliant_motor_side
