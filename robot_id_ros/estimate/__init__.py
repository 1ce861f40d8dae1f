"""Stage 3, using the model online (ROS-free): residual observers, stiction handling, the wrench
mapping, contact detection and uncertainty."""

# Public names, importable from the package (the modules are being split; import from here).
from robot_id_ros.estimate.estimation import *  # noqa: F401,F403
