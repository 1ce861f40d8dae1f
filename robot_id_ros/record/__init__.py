"""Stage 1, planning experiments (ROS-free): safety limits, static poses, point-to-point motions,
friction sweeps, excitation trajectories and recording monitors."""

# Public names, importable from the package (the modules are being split; import from here).
from robot_id_ros.record.recording import *  # noqa: F401,F403
from robot_id_ros.record.excitation import *  # noqa: F401,F403
