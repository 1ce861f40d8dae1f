"""The simulated youBot arm and its drives (ROS-free)."""
