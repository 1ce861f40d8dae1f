"""The robot and its dynamic structure, shared by every stage: the URDF model (Pinocchio), the
inertial and friction regressors, base parameters and friction laws. ROS-free."""
