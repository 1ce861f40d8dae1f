"""``python -m robot_id_ros.cli``: the robot-id command."""
import sys

from robot_id_ros.cli.main import main

sys.exit(main())
