"""ROS-free numeric core (numpy, scipy, pinocchio). Nothing under this package imports rclpy."""
