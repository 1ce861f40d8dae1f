"""Stage 2, fitting the model (ROS-free): signal processing, static gravity, friction sweeps, full
dynamics by least squares, physical consistency, validation, payloads and the report."""

# Public names, importable from the package (the modules are being split; import from here).
from robot_id_ros.identify.identification import *  # noqa: F401,F403
