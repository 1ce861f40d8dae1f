"""robot_id_ros: force sensing without a force/torque sensor, by dynamic identification.

``robot_id_ros.core`` is the ROS-free numeric core, ``robot_id_ros.sim`` the simulated youBot,
``robot_id_ros.nodes`` the thin rclpy nodes and ``robot_id_ros.cli`` the ``robot-id`` command.
"""
__version__ = '0.1.0'
