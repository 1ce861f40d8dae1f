# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The identified model of the simulated youBot that the force-control tests and benchmark use.

Made the way the project's own simulator identification is made
(test/identify/test_identification_sim.py, benchmarks/bench_identification_sim.py): one excitation
run of a designed trajectory on ``SimulatedArm(SimConfig(seed))``, fitted with the demo's
options (``SIM_OPTIONS``). The fit takes a minute or two, so the model file is cached under
``.cache/control/`` of the checkout (or ``$ROBOT_ID_CACHE_DIR``) and reused; the cache key is the
seed, the number of periods and a hash of the code that makes the model (the simulator, the
model, identification and this file), so a change there fits it anew.
"""
import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / 'test' / 'identify'))

SEED = 3           # the simulated youBot of the identification tests
PERIODS = 2        # periods of 8 s of the excitation the model is fitted on


def cache_dir() -> Path:
    """Return the folder the model file is cached in (created)."""
    d = Path(os.environ.get('ROBOT_ID_CACHE_DIR', ROOT / '.cache')) / 'control'
    d.mkdir(parents=True, exist_ok=True)
    return d


def code_hash() -> str:
    """Return 12 hex digits of the SHA-256 of the sources the identified model depends on."""
    h = hashlib.sha256()
    files = [Path(__file__), ROOT / 'test' / 'identify' / 'test_identification_sim.py']
    for sub in ('sim', 'model', 'signals', 'identify'):
        files += sorted((ROOT / 'robot_id_ros' / sub).glob('*.py'))
    for f in files:
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def identified_model_path(seed: int = SEED, periods: int = PERIODS) -> Path:
    """Return the model file identified on the simulated youBot ``seed``; fit it if not cached.

    Args:
        seed: the simulator's seed (its hidden true parameters).
        periods: excitation periods of 8 s in the fitted run.

    Returns:
        Path of the model file (``robot_id_ros.io.model_file`` format).
    """
    path = cache_dir() / f'youbot_sim_seed{seed}_p{periods}_{code_hash()}.yaml'
    if path.is_file():
        return path
    from test_identification_sim import SIM_OPTIONS, design, run_excitation

    from robot_id_ros.identify import IdentificationOptions, identify
    from robot_id_ros.model.robot import youbot_model
    from robot_id_ros.sim.config import SimConfig
    from robot_id_ros.sim.youbot_arm import SimulatedArm

    robot = youbot_model()
    arm = SimulatedArm(SimConfig(seed=seed))
    ident = run_excitation(arm, design(robot, 100 * seed + 1, 8.0), periods, 'excitation')
    res = identify(robot, data=[ident], options=IdentificationOptions(**SIM_OPTIONS))
    res.model.save(path)
    return path


if __name__ == '__main__':
    print(identified_model_path())
