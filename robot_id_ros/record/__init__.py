"""Stage 1, planning experiments (ROS-free): safety limits, static poses, point-to-point motions,
friction sweeps, excitation trajectories and recording monitors."""
