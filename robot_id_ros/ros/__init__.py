"""The thin rclpy layer: parameter declarations, the recorder base, generated node docs and the nodes
(``robot_id_ros.ros.nodes``, one module per executable)."""
