"""Thin rclpy nodes, one module per executable."""
