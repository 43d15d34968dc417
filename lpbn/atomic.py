"""Atomic output files: write to a temporary file beside the target, then rename.

A reader never sees a half-written file, and an error leaves no partial output.  A process
killed outright (SIGKILL, a crash) cannot remove its temporary ``.NAME.XXXX.tmp``; as with
bfbnb's folders (:mod:`lpbn.bfbnb.external`), every writer holds an exclusive ``flock`` on
its temporary file until the rename (taken before the file gets its ``.tmp`` name), and the
next write of ``NAME`` removes the ``.NAME.*.tmp`` files whose lock is free: those of killed
writers, never a live one's.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path
from typing import IO, Iterator

from .errors import OutputError

try:
    import fcntl
except ImportError:          # not POSIX: no locks, no reaping of killed writers' files
    fcntl = None

#: a ``.NAME.XXXX.tmp.new`` file (a writer killed between creating and naming it, a few
#: microseconds) is removed after this many seconds
UNNAMED_STALE_SECONDS = 24 * 3600


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
    reap_stale_temps(target)
    try:
        fd, tmp, lock = _locked_temp(target, directory)
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
    finally:
        if lock is not None:
            os.close(lock)


def _locked_temp(target: Path, directory: Path) -> tuple[int, str, int | None]:
    """``(fd, path, lock fd)`` of a new temporary file ``.NAME.XXXX.tmp`` beside ``target``,
    locked (through a duplicate descriptor, held until after the rename) before it gets that
    name, so :func:`reap_stale_temps` never sees a live writer's file unlocked."""
    fd, new = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp.new", dir=directory)
    lock = None
    try:
        if fcntl is not None:
            lock = os.dup(fd)
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        tmp = new[:-len(".new")]
        os.rename(new, tmp)
    except BaseException:
        for f in (fd, lock):
            if f is not None:
                with contextlib.suppress(OSError):
                    os.close(f)
        with contextlib.suppress(OSError):
            os.unlink(new)
        raise
    return fd, tmp, lock


def reap_stale_temps(target: str | os.PathLike) -> list[str]:
    """Remove the temporary files of ``target`` (``.NAME.XXXX.tmp`` beside it) that killed
    writers left (their lock is free); returns their paths.  Live writers' files are never
    touched (see the module docstring)."""
    if fcntl is None:
        return []
    target = Path(target)
    directory = target.parent if str(target.parent) else Path(".")
    prefix = f".{target.name}."
    removed = []
    try:
        entries = [e for e in os.scandir(directory) if e.name.startswith(prefix)
                   and e.name.endswith((".tmp", ".tmp.new")) and e.is_file(follow_symlinks=False)]
    except OSError:
        return []
    for entry in entries:
        if entry.name.endswith(".new"):
            with contextlib.suppress(OSError):
                if time.time() - entry.stat(follow_symlinks=False).st_mtime > UNNAMED_STALE_SECONDS:
                    os.unlink(entry.path)
                    removed.append(entry.path)
            continue
        try:
            fh = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:             # a live writer
            os.close(fh)
            continue
        try:
            os.unlink(entry.path)
            removed.append(entry.path)
        except OSError:
            pass
        finally:
            os.close(fh)
    return removed


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
