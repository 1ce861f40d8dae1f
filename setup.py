# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""ament_python package robot_id_ros.

colcon build in a ROS 2 workspace, or pip install standalone.
"""
from glob import glob

from setuptools import find_packages, setup

package_name = 'robot_id_ros'

NODES = {
    'youbot_sim': 'robot_id_ros.ros.nodes.youbot_sim:main',
    'static_pose_recorder': 'robot_id_ros.ros.nodes.static_pose_recorder:main',
    'trajectory_recorder': 'robot_id_ros.ros.nodes.trajectory_recorder:main',
    'friction_sweep_recorder': 'robot_id_ros.ros.nodes.friction_sweep_recorder:main',
    'identification': 'robot_id_ros.ros.nodes.identification:main',
    'wrench_estimator': 'robot_id_ros.ros.nodes.wrench_estimator:main',
    'force_controller': 'robot_id_ros.ros.nodes.force_controller:main',
    'robot-id': 'robot_id_ros.cli.main:main',
}

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'benchmarks']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        ('share/' + package_name + '/launch', glob('launch/*.launch.py')),
        ('share/' + package_name + '/config', glob('config/*.yaml')),
        ('share/' + package_name + '/urdf', glob('urdf/*.urdf')),
    ],
    python_requires='>=3.10',
    install_requires=['setuptools', 'numpy', 'scipy', 'pyyaml', 'matplotlib', 'rosbags>=0.10',
                      'numba'],
    extras_require={
        # no ROS installation at all: ROS 2 client library and messages from PyPI wheels
        'standalone': [
            'ros-rclpy[fastrtps]',
            'ros-sensor-msgs',
            'ros-geometry-msgs',
            'ros-std-msgs',
            'ros-std-srvs',
            'ros-trajectory-msgs',
            'ros-diagnostic-msgs',
            'ros-rosgraph-msgs',
            'pin',
            'cvxpy',
        ],
        'test': [
            'pytest', 'example-robot-data', 'colcon-common-extensions', 'flake8', 'pydocstyle',
            'pytest-xdist'
        ],
    },
    zip_safe=True,
    maintainer='robot_id_ros maintainers',
    maintainer_email='maintainers@robot-id-ros.invalid',
    description=('Sensorless force estimation for robot arms by dynamic identification '
                 '(KUKA youBot and any URDF arm).'),
    license='Apache-2.0',
    tests_require=['pytest'],
    entry_points={'console_scripts': [f'{name} = {target}' for name, target in NODES.items()]},
)
