# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Lint, as ament's linters check a ROS 2 Python package: flake8 (99 columns, setup.cfg),
pep257 docstrings (pydocstyle, setup.cfg), a copyright and licence header on every Python file,
and well-formed package.xml and launch files."""
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CODE = ['robot_id_ros', 'test', 'benchmarks', 'tools', 'launch', 'setup.py']
HEADER = ('# Copyright 2026 The robot_id_ros Authors', '# SPDX-License-Identifier: Apache-2.0')


def python_files():
    """Every Python file of the package, its tests, benchmarks, tools and launch files."""
    out = [ROOT / 'setup.py']
    for d in CODE[:-1]:
        out += sorted((ROOT / d).rglob('*.py'))
    return [p for p in out if '__pycache__' not in p.parts]


def _run(module, *args):
    return subprocess.run([sys.executable, '-m', module, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.lint
def test_flake8():
    pytest.importorskip('flake8')
    r = _run('flake8', *CODE)
    assert r.returncode == 0, f'flake8 found {len(r.stdout.splitlines())} problem(s):\n{r.stdout}'


@pytest.mark.lint
def test_pep257():
    pytest.importorskip('pydocstyle')
    # the package, benchmarks, tools and launch files; a test's docstring states the behaviour it
    # checks (not an imperative summary), as ament's own packages' tests do
    r = _run('pydocstyle', *[c for c in CODE if c != 'test'])
    assert r.returncode == 0, f'pep257:\n{r.stdout}{r.stderr}'


@pytest.mark.lint
def test_copyright_and_licence_header():
    missing = []
    for path in python_files():
        head = path.read_text().splitlines()[:3]
        if head[:1] and head[0].startswith('#!'):
            head = head[1:]
        if tuple(head[:2]) != HEADER:
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, 'no copyright/licence header (' + ' / '.join(HEADER) + '): ' + \
        ', '.join(missing)
    assert 'Apache License' in (ROOT / 'LICENSE').read_text()


@pytest.mark.lint
def test_xmllint_package_xml_and_urdf():
    root = ET.parse(ROOT / 'package.xml').getroot()
    assert root.tag == 'package' and root.get('format') == '3'
    for tag in ('name', 'version', 'description', 'maintainer', 'license'):
        assert root.find(tag) is not None and (root.findtext(tag) or '').strip(), tag
    assert root.findtext('license') == 'Apache-2.0'
    for urdf in (ROOT / 'urdf').glob('*.urdf'):
        assert ET.parse(urdf).getroot().tag == 'robot', urdf


@pytest.mark.lint
def test_no_absolute_paths_of_a_machine_in_tests_or_benchmarks():
    """A path of one checkout (a home, a venv, a work folder) fails on every other machine."""
    import re
    pattern = re.compile(r"""['"](/home/|/root/|/work/|/Users/|/tmp/pytest-|[^'"]*/\.venv/)""")
    found = []
    for path in python_files():
        rel = path.relative_to(ROOT)
        if rel.parts[0] not in ('test', 'benchmarks'):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f'{rel}:{n}')
    assert not found, 'absolute paths: ' + ', '.join(found)
