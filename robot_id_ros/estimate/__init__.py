"""Stage 3, using the model online (ROS-free): residual observers, stiction handling, the wrench
mapping, contact detection and uncertainty."""
