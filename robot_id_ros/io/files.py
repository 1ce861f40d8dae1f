# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""File helpers shared by the package: YAML-safe plain values and atomic outputs.

Everything the package writes for a user goes through here. A file or folder is written under a
temporary name in its destination folder (``.<stem>.tmp-<random><suffix>``), flushed to disk and
renamed into place only when complete; the temporary is removed on any failure, a
KeyboardInterrupt included. ``Outputs`` does this for several outputs of one command that land
together or not at all, and checks each one before any work: never an input of the command, and
an existing path only with ``overwrite`` and only when it holds an output of the same kind.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from robot_id_ros.errors import InputError, OperationError

TEMP_MARK = '.tmp-'          # in the name of every temporary and backup this module creates
OVERWRITE_FLAG = '--overwrite'


def _current_umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


class OutputError(InputError):
    """An output path that is refused (an input, an existing file, another kind of file).

    The message names the path and the way out.
    """

    kind = 'output'


def to_plain(obj):
    """Convert numpy scalars/arrays, tuples and paths to plain values yaml.safe_dump writes."""
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_plain(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj


def fsync_dir(path):
    """Flush a directory entry (after a rename) where the platform allows it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def new_temp(path, directory=False) -> Path:
    """Create an empty temporary file (or folder) beside ``path``, with the usual permissions.

    Args:
        path: the final path; the temporary is in the same folder and keeps its suffix (so that
            writers that choose a format by the suffix, like matplotlib, still do).
        directory: create a folder instead of a file.

    Returns:
        The temporary's path; the caller writes it and renames or removes it.
    """
    path = Path(path)
    parent = path.parent if str(path.parent) else Path('.')
    prefix = f'.{path.stem}{TEMP_MARK}'
    if directory:
        tmp = tempfile.mkdtemp(prefix=prefix, dir=parent)
        os.chmod(tmp, 0o777 & ~_UMASK)
    else:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=path.suffix, dir=parent)
        os.close(fd)
        os.chmod(tmp, 0o666 & ~_UMASK)
    return Path(tmp)


def remove_path(path):
    """Remove a file, a symlink or a whole folder; a missing path is no error."""
    path = Path(path)
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def _fsync_tree(path):
    """Fsync every regular file under ``path`` (or ``path`` itself) and the folders under it."""
    path = Path(path)
    files = [path] if not path.is_dir() else [p for p in path.rglob('*') if p.is_file()]
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    if path.is_dir():
        for d in [path] + [p for p in path.rglob('*') if p.is_dir()]:
            fsync_dir(d)


def atomic_write_text(path, text):
    """Write ``text`` to ``path`` through a temporary file, fsync'd and renamed into place.

    A crash leaves either the old file or the new one, never half of one, and no temporary is left
    behind on a failure (full disk, KeyboardInterrupt).

    Args:
        path: the file to write (replaced when it exists).
        text: its whole content.
    """
    path = Path(path)
    tmp = new_temp(path)
    try:
        with open(tmp, 'w') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        remove_path(tmp)
        raise
    fsync_dir(path.parent)


@dataclass(frozen=True)
class OutputKind:
    """What an output is, for the checks of ``Outputs``.

    Attributes:
        name: how messages call it ('file', 'model file', 'bag').
        is_same: whether an existing path holds an output of this kind (``--overwrite`` replaces
            only such a path).
        error: the exception class of refusals.
        fix: the way out a refusal of an existing path names ('' : the flag's rule only).
    """

    name: str
    is_same: Callable[[Path], bool]
    error: type = OutputError
    fix: str = ''


FILE_OUTPUT = OutputKind('file', lambda p: p.is_file())   # a symlink is replaced, not its target

HEAD_BYTES = 4096          # what the kind tests read of an existing file
YAML_KIND_MAX_BYTES = 64 * 1024 * 1024   # a larger file is not one of our YAML outputs


def file_head(path, n=HEAD_BYTES) -> bytes:
    """Return the first ``n`` bytes of a regular file, b'' for anything else (no error)."""
    try:
        if not Path(path).is_file():
            return b''
        with open(path, 'rb') as f:
            return f.read(n)
    except OSError:
        return b''


# leading bytes of the formats matplotlib writes (PLOT_SUFFIXES); svg and pgf are text
_IMAGE_MAGIC = (b'\x89PNG\r\n\x1a\n', b'%PDF', b'\xff\xd8\xff', b'II*\x00', b'MM\x00*',
                b'%!PS', b'\x1f\x8b')


def is_image(path) -> bool:
    """Whether ``path`` is an image file of a format a plot is written in (by its content)."""
    head = file_head(path)
    if head.startswith(_IMAGE_MAGIC) or (head[:4] == b'RIFF' and head[8:12] == b'WEBP'):
        return True
    text = head.decode('utf-8', 'replace').lstrip()
    svg = text.startswith(('<?xml', '<svg', '<!DOCTYPE svg')) and '<svg' in text
    return svg or text.startswith('%% Creator: Matplotlib')       # pgf


PLOT_OUTPUT = OutputKind('plot image', is_image)


def text_output(name, first_line_test) -> OutputKind:
    """Return the kind of a text file recognised by its first line (``first_line_test(line)``)."""
    def is_same(path):
        line = file_head(path).decode('utf-8', 'replace').split('\n', 1)[0].strip()
        return bool(line) and bool(first_line_test(line))
    return OutputKind(name, is_same)


def yaml_output(name, dict_test) -> OutputKind:
    """Return the kind of a YAML file recognised by its content (``dict_test(mapping)``)."""
    def is_same(path):
        from robot_id_ros.io.yaml_input import read_yaml
        path = Path(path)
        try:
            if not path.is_file():
                return False
            d = read_yaml(path, max_bytes=YAML_KIND_MAX_BYTES)
        except InputError:
            return False
        return isinstance(d, dict) and bool(dict_test(d))
    return OutputKind(name, is_same)


def _inside(path, folder):
    return folder in path.parents


def _same(a, b):
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class Outputs:
    """The outputs of one command: checked first, written to temporaries, renamed together.

    Use: ``check`` every output before the work, then ``with outputs:`` write each one to
    ``temp(path)``; leaving the block normally renames every temporary onto its path (all or
    none: a failed rename puts back what the earlier ones replaced); an exception removes every
    temporary and leaves the existing files as they were. An OSError while writing becomes one
    ``OperationError`` line naming the output.

    Args:
        inputs: the paths the command reads (files or bag folders); no output may be one, contain
            one or lie inside an input folder.
        overwrite: replace an existing output of the same kind (else an existing path is refused).
    """

    def __init__(self, inputs=(), overwrite=False):
        self.overwrite = overwrite
        self.inputs = [Path(p) for p in inputs if p is not None and str(p) != '']
        self._kinds = {}       # final path -> OutputKind
        self._folder_kinds = {}   # folder of check_folder -> the kind of files not named
        self._planned = []     # (final path, temporary, what to rename, merge into a folder)
        self._current = None   # the output being written (named by a write error)

    # checks -------------------------------------------------------------------------------
    def check(self, path, kind=FILE_OUTPUT) -> Path:
        """Refuse ``path`` now unless it can be written.

        Args:
            path: an output of the command.
            kind: what it is; an existing path is replaced only with ``overwrite`` and only when
                ``kind.is_same`` accepts it.

        Returns:
            ``path`` as a Path.

        Raises:
            kind.error: no such output folder, an input, or an existing path not to replace.
        """
        path = Path(path)
        parent = path.parent if str(path.parent) else Path('.')
        if not parent.is_dir():
            raise kind.error(f'output folder {parent} does not exist (for {path})')
        if any(_same(path.resolve(), p.resolve()) for p in self._kinds):
            raise kind.error(f'{path} is given as two outputs: give each output its own path')
        self._check_target(path, kind)
        self._kinds[path] = kind
        return path

    def checked(self, path) -> bool:
        """Whether ``path`` was checked as an output already."""
        return Path(path) in self._kinds

    def check_folder(self, folder, names=(), kind=FILE_OUTPUT, other=None) -> Path:
        """Check a folder that outputs are written into (``temp(..., merge=True)``).

        Args:
            folder: the folder (created when missing; its other files are left alone).
            names: file names in it that the command will write, known now.
            kind: the kind of those files.
            other: the kind of the files written into it that are not named now (checked when
                they land); None: ``kind``.

        Returns:
            ``folder`` as a Path.
        """
        folder = Path(folder)
        self._folder_kinds[folder] = other or kind
        if os.path.lexists(folder) and not folder.is_dir():
            raise kind.error(f'{folder} exists and is not a folder: give a folder for the outputs')
        if not folder.is_dir():
            return self.check(folder, OutputKind('folder', lambda p: False, kind.error))
        self._check_target(folder, kind, existing_ok=True)
        for name in names:
            self.check(folder / name, kind)
        return folder

    def _check_target(self, path, kind, existing_ok=False):
        out = path.resolve()
        for inp in self.inputs:
            src = inp.resolve()
            if _same(out, src):
                raise kind.error(f'{path} is an input of this command: choose another output path '
                                 f'({OVERWRITE_FLAG} never replaces an input)')
            if _inside(src, out) and not existing_ok:
                raise kind.error(f'{path} holds the input {inp}: choose another output path '
                                 f'({OVERWRITE_FLAG} never replaces an input)')
            if src.is_dir() and _inside(out, src):
                raise kind.error(f'{path} is inside the input folder {inp}: choose another '
                                 'output path')
        if existing_ok or not os.path.lexists(path):
            return
        if not self.overwrite:
            raise kind.error(f'{path} exists: not replacing it without {OVERWRITE_FLAG}')
        if not kind.is_same(path):
            fix = f'{kind.fix} ({OVERWRITE_FLAG}' if kind.fix else OVERWRITE_FLAG
            raise kind.error(f'{path} exists and is not a {kind.name}: {fix} replaces only a '
                             f'{kind.name}' + (')' if kind.fix else ''))

    # writing ------------------------------------------------------------------------------
    def temp(self, path, directory=False, merge=False, inner=None) -> Path:
        """Return a new temporary beside ``path`` that leaving the ``with`` block renames onto it.

        Args:
            path: a checked output (``check``, or ``check_folder`` for ``merge``).
            directory: the temporary is a folder (a bag folder, a report).
            merge: the temporary is a folder whose files go into the folder ``path`` one by one
                (each checked as a file then); else it replaces ``path`` as a whole.
            inner: for a writer that must create its own output: a relative path inside a new
                temporary folder, returned (not created) and renamed onto ``path``; the rest of
                the folder is removed.

        Returns:
            The temporary's path (an empty file or folder, or the not yet existing ``inner``).
        """
        path = Path(path)
        self._current = path      # a failure to create the temporary names this output too
        tmp = new_temp(path, directory=directory or merge or inner is not None)
        content = tmp / inner if inner is not None else tmp
        self._planned.append((path, tmp, content, merge))
        return content

    def discard(self):
        """Remove every temporary; the outputs stay as they were."""
        for _, tmp, _, _ in self._planned:
            remove_path(tmp)
        self._planned = []

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.commit()
                return False
        except OSError as err:
            exc = err
        self.discard()
        if isinstance(exc, OSError):
            raise OperationError(f'cannot write {self._current}: {exc.strerror or exc}; nothing '
                                 'was written', kind='write_failed') from exc
        return False

    def commit(self):
        """Rename every temporary into place, all or none (see the class docstring)."""
        done = []   # (final, backup or None) of every rename made
        try:
            moves = self._moves()
            for final, content in moves:
                self._current = final
                self._check_target(final, self._kinds.get(final, FILE_OUTPUT))
                _fsync_tree(content)
            for final, content in moves:
                self._current = final
                done.append((final, _place(final, content)))
        except BaseException:
            for final, backup in reversed(done):
                _undo(final, backup)
            self.discard()
            raise
        for final, backup in done:
            if backup is not None:
                remove_path(backup)
        for parent in {final.parent for final, _ in done}:
            fsync_dir(parent)
        self.discard()   # what is left of the temporary folders

    def _moves(self):
        """Return (final, content) pairs; a merge folder gives one pair per file it holds."""
        moves = []
        for final, _, content, merge in self._planned:
            if not merge or not final.is_dir():
                moves.append((final, content))
                continue
            for f in sorted(content.iterdir()):
                target = final / f.name
                self._kinds.setdefault(target, self._folder_kinds.get(final, FILE_OUTPUT))
                moves.append((target, f))
        return moves


def _place(final, tmp):
    """Rename ``tmp`` onto ``final``, keeping what ``final`` was as a backup.

    Returns the backup's path (None when ``final`` did not exist). On a failure nothing has
    changed.
    """
    if not os.path.lexists(final):
        os.rename(tmp, final)
        return None
    if final.is_file() and not final.is_symlink() and not tmp.is_dir():
        backup = _unused_name(final, 'old')
        try:
            os.link(final, backup)      # the old file stays in place until the atomic replace
        except OSError:                 # no hard links here: move it aside as below
            backup = None
        if backup is not None:
            try:
                os.replace(tmp, final)
            except BaseException:
                remove_path(backup)
                raise
            return backup
    # a folder cannot be replaced atomically: move the old one aside first
    backup = new_temp(final, directory=final.is_dir() and not final.is_symlink())
    try:
        os.replace(final, backup)
    except BaseException:
        remove_path(backup)
        raise
    try:
        os.rename(tmp, final)
    except BaseException:
        os.replace(backup, final)
        raise
    return backup


def _undo(final, backup):
    """Put back what ``_place`` replaced (best effort: this runs while another error is raised)."""
    try:
        if backup is None:
            remove_path(final)
        else:
            if final.is_dir() and not final.is_symlink():
                remove_path(final)
            os.replace(backup, final)
    except OSError:
        pass


def _unused_name(path, tag):
    for _ in range(100):
        name = path.parent / f'.{path.stem}{TEMP_MARK}{tag}-{os.urandom(4).hex()}{path.suffix}'
        if not os.path.lexists(name):
            return name
    raise FileExistsError(f'no free temporary name beside {path}')
