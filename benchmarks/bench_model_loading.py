# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Time to refuse a hostile model file, and to load a normal one.

  alias bomb     a youBot model file with an alias bomb (``--levels`` nested lists of ``--width``
                 aliases: width**levels nodes written out) beside its sections:
                 refused by ``load_model`` from the composed node graph (``io.yaml_input``)
  large file     a model file of ``--size-mb`` MB (a valid model padded with comments): refused
                 from its size before it is read
  normal model   the youBot's nominal model file, loaded and checked (``io.model_checks``)
  against URDF   the same, compared with a URDF of the same geometry but other bytes
                 (``model.geometry_match``)

Each figure is the wall time of one call in this process, the best of ``--rounds`` (the files sit
in a temporary folder, in the page cache after the first round).

Reproduce:
    .venv/bin/python benchmarks/bench_model_loading.py [--levels 9] [--width 10] [--size-mb 100]
        [--rounds 5]
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robot_id_ros.io.model_file import ModelFileError, load_model, nominal_model  # noqa: E402
from robot_id_ros.model.robot import default_urdf_path, youbot_model  # noqa: E402


def _bomb(levels, width):
    lines = ['  l0: &l0 [' + ', '.join(['lol'] * width) + ']']
    lines += [f'  l{i}: &l{i} [' + ', '.join([f'*l{i - 1}'] * width) + ']'
              for i in range(1, levels)]
    return 'bomb:\n' + '\n'.join(lines) + '\n'


def _best(call, rounds, refused):
    times, message = [], ''
    for _ in range(rounds):
        t0 = time.perf_counter()
        try:
            call()
        except ModelFileError as exc:
            message = str(exc)
        times.append(time.perf_counter() - t0)
    if refused != bool(message):
        raise SystemExit(f'expected {"a refusal" if refused else "a load"}, got: {message!r}')
    return min(times), message


def main(argv=None):
    """Write the files, time each case, print one line per case."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--levels', type=int, default=9, help='alias levels of the bomb')
    ap.add_argument('--width', type=int, default=10, help='aliases per level of the bomb')
    ap.add_argument('--size-mb', type=float, default=100.0, help='size of the large file, MB')
    ap.add_argument('--rounds', type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        normal = tmp / 'youbot.yaml'
        nominal_model(youbot_model()).save(normal)
        text = normal.read_text()
        bomb = tmp / 'bomb.yaml'
        bomb.write_text(text + _bomb(args.levels, args.width))
        large = tmp / 'large.yaml'
        line = '#' + 'x' * 1023 + '\n'
        with open(large, 'w') as f:
            f.write(text)
            f.write(line * int(args.size_mb * 1e6 / len(line) + 1))
        urdf = tmp / 'same_geometry.urdf'
        urdf.write_text(default_urdf_path().read_text() + '<!-- other bytes -->\n')
        cases = [
            (f'alias bomb ({bomb.stat().st_size / 1e3:.0f} kB, {args.width}^{args.levels} '
             'nodes)',
             lambda: load_model(bomb), True),
            (f'large file ({large.stat().st_size / 1e6:.0f} MB)', lambda: load_model(large),
             True),
            (f'normal model ({normal.stat().st_size / 1e3:.0f} kB)', lambda: load_model(normal),
             False),
            ('against URDF (same geometry, other bytes)',
             lambda: load_model(normal, urdf_path=urdf), False),
        ]
        for label, call, refused in cases:
            best, message = _best(call, args.rounds, refused)
            verdict = f'refused: {message[:90]}...' if refused else 'loaded'
            print(f'{label:48s} {1000 * best:8.1f} ms  {verdict}')
    print('reproduce: .venv/bin/python benchmarks/bench_model_loading.py '
          f'--levels {args.levels} --width {args.width} --size-mb {args.size_mb:g} '
          f'--rounds {args.rounds}')


if __name__ == '__main__':
    main()
