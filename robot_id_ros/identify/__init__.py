"""Stage 2, fitting the model (ROS-free): signal processing, static gravity, friction sweeps, full
dynamics by least squares, physical consistency, validation, payloads and the report."""
