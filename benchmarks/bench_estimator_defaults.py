# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Estimator defaults from the model: force RMS over the true-model floor.

Arms of other makes (UR5, Panda from example-robot-data) and the youBot, simulated with a known
friction law and known wrench bursts (test/estimate/defaults_cases.py): 'smooth' friction is
tanh(qd / 0.05 rad/s) with a Stribeck bump, 'exact' jumps at zero velocity. 200 Hz, 20 s, torque
noise 0.05 Nm, velocity noise as listed. The estimator reads the true model written as a model
file (residual std = the torque noise std; for 'exact' the file states the sign velocity listed,
its smooth law being all a model file can say).

  floor     plain momentum-observer residual (10 Hz, as the estimator) fed the true model and the
            true friction law at the measured velocity, same least squares: N RMS
  defaults  WrenchEstimator / robot-id estimate with the core defaults: ratio to the floor
  former    the former core defaults (exact sign, stiction_velocity 0.02 rad/s): ratio
  plain     plain residual with the model file's own friction law: ratio
  youbot    the youBot's config/wrench_estimator.yaml: ratio

Reproduce:
    .venv/bin/python benchmarks/bench_estimator_defaults.py
"""
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'test'))
sys.path.insert(0, str(ROOT / 'test' / 'estimate'))

from defaults_cases import (estimator_force_rms, floor_force_rms, make_case,  # noqa: E402
                            panda_arm, ur5_arm, youbot_arm)
from robots import panda, ur5  # noqa: E402

from robot_id_ros.estimate import EstimatorConfig  # noqa: E402
from robot_id_ros.io.model_file import load_model  # noqa: E402
from robot_id_ros.ros.parameter_files import youbot_estimator_settings  # noqa: E402

FORMER = EstimatorConfig(friction_sign='exact', stiction_velocity_rad_s=0.02)

# (label, arm factory, amplitude scale, law, velocity noise rad/s, sign velocity in the file)
CASES = [
    ('UR5 smooth, slow', lambda: ur5_arm(*ur5()), 0.5, 'smooth', 0.0005, None),
    ('UR5 smooth, slow, noisy qd', lambda: ur5_arm(*ur5()), 0.5, 'smooth', 0.002, None),
    ('UR5 smooth, fast', lambda: ur5_arm(*ur5()), 1.0, 'smooth', 0.002, None),
    ('Panda smooth, slow', lambda: panda_arm(*panda()), 0.5, 'smooth', 0.0005, None),
    ('youBot smooth, slow', youbot_arm, 0.5, 'smooth', 0.0005, None),
    ('UR5 exact, file vs 0.003', lambda: ur5_arm(*ur5()), 0.5, 'exact', 0.0005, 0.003),
    ('UR5 exact, file vs 0.01', lambda: ur5_arm(*ur5()), 0.5, 'exact', 0.0005, 0.01),
    ('youBot exact, file vs 0.003', youbot_arm, 0.5, 'exact', 0.0005, 0.003),
    ('youBot exact, file vs 0.01', youbot_arm, 0.5, 'exact', 0.0005, 0.01),
]


def run_case(tmp, arm_of, scale, law, noise, sign_velocity):
    """Return (floor N, defaults, former, plain, youbot ratios) of one case."""
    arm = arm_of()
    arm.amp_rad = scale * arm.amp_rad
    case = make_case(arm, law, tmp, velocity_noise_rad_s=noise)
    model = load_model(case.model_path)
    if sign_velocity is not None:
        model.friction.sign_velocity_rad_s = sign_velocity
        model.save(case.model_path)
    floor = floor_force_rms(case)
    youbot = EstimatorConfig(**youbot_estimator_settings())
    return (floor, estimator_force_rms(case, EstimatorConfig()) / floor,
            estimator_force_rms(case, FORMER) / floor,
            floor_force_rms(case, friction=model.friction.torque) / floor,
            estimator_force_rms(case, youbot) / floor)


def main():
    print(__doc__.split('\n\n')[0])
    print(f'{"case":30s} {"qd noise":>9s} {"floor N":>8s} {"defaults":>9s} {"former":>7s} '
          f'{"plain":>6s} {"youbot":>7s}')
    with tempfile.TemporaryDirectory() as tmp:
        for label, arm_of, scale, law, noise, sv in CASES:
            floor, d, f, p, y = run_case(Path(tmp), arm_of, scale, law, noise, sv)
            print(f'{label:30s} {noise:9.4f} {floor:8.3f} {d:9.3f} {f:7.3f} {p:6.3f} {y:7.3f}',
                  flush=True)
    print('acceptance: defaults <= 1.10 where the friction is smooth near zero')
    print('reproduce: .venv/bin/python benchmarks/bench_estimator_defaults.py')


if __name__ == '__main__':
    main()
