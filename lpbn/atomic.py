"""Atomic output files: write to a temporary file beside the target, then rename.

A reader never sees a half-written file, and an error leaves no partial output.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator

from .errors import OutputError


def check_writable(path: str | os.PathLike) -> None:
    """Raise :class:`OutputError` now, before any long work, if ``path`` cannot be written:
    it is a directory, its directory does not exist, or that directory is not writable."""
    target = Path(path)
    if str(path) == "" or target.is_dir():
        raise OutputError(f"{path}: is a directory, not an output file" if str(path) else "empty output path")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(f"{path}: cannot write: no such directory {directory}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"{path}: cannot write: permission denied in {directory}")


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success rename it over ``path``.

    On any exception (including KeyboardInterrupt) the temporary file is removed and
    ``path`` is left untouched.
    """
    target = Path(path)
    check_writable(target)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        if "b" in mode:
            fh = os.fdopen(fd, mode)
        else:
            fh = os.fdopen(fd, mode, encoding=encoding, newline="\n")
        with fh:
            yield fh
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except OSError as exc:   # disk full, the target turned into a directory, ...
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


_UMASK: int | None = None


def _mode_for(target: Path) -> int:
    """An existing target's mode, else the mode ``open()`` would give a new file (0666 minus
    the umask): mkstemp's 0600 would hide results from other users and tools."""
    global _UMASK
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        pass
    if _UMASK is None:      # read once: os.umask can only be read by setting it
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return 0o666 & ~_UMASK
