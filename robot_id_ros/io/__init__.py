"""Files on disk, ROS-free: rosbag2 recordings, recording sidecars, the model file, atomic writes
and JointState layouts."""
