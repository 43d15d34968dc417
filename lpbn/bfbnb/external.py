"""External memory for the frontier BFBnB search (Malone et al. 2011, §5.4–5.5).

* :class:`TempArea` -- a private temporary directory ``lpbn-bfbnb-*`` under ``tmp_dir``,
  removed on success, error and interrupt (the search always runs inside ``try/finally``;
  SIGINT and SIGTERM only stop it, :mod:`lpbn.signals`).  A process killed outright
  (SIGKILL, a crash) cannot clean up: every run holds an exclusive ``flock`` on its
  directory's ``.lock`` for its lifetime (the kernel releases it when the process dies),
  and each new run removes the directories under its ``tmp_dir`` whose lock is free --
  :func:`reap_stale` (``lpbn-bfbnb-*`` directories of older lpbn versions, without a lock
  file, after a day).
* Each order-graph layer is written sequentially, in combinadic order, to three files:
  node keys (uint64), g scores (float64) and the leaf's chosen candidate (int32).  The g
  file is deleted once the next layer is built; keys and candidates stay for the
  solution reconstruction (§5.5: "for each order graph node we write the subset of
  variables, the leaf variable and its optimal parents"), which binary-searches them.
* :class:`LayerSource` feeds the n successor streams of :func:`kernels.merge_expand`:
  from RAM when the layer fits the budget (all streams share one array, no copy), else
  from disk through one buffer per stream.

Memory model (``M = memory_limit``): a layer is loaded into RAM only when it needs
≤ 0.4·M (16 B per node); otherwise the streams' buffers take ≤ 0.2·M; the output buffer
takes ≤ 0.1·M.  Everything else (interpreter, numba, score cache, heuristic tables) is
the constant on top of ``M``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

import numpy as np

try:
    import fcntl
except ImportError:          # not POSIX: no lock, no reaping of killed runs' directories
    fcntl = None

PREFIX = "lpbn-bfbnb-"
LOCK = ".lock"
#: A directory without a lock file (an older lpbn, or killed while being created) is stale
#: after this many seconds.
UNLOCKED_STALE_SECONDS = 24 * 3600


def _try_lock(path: str):
    """An open file holding an exclusive lock on ``path``, or None if another process holds it."""
    try:
        fh = open(path, "a")
    except OSError:
        return None
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        return None
    return fh


def reap_stale(tmp_dir: str | os.PathLike | None = None) -> list[str]:
    """Remove the ``lpbn-bfbnb-*`` directories under ``tmp_dir`` (default: the system temp
    directory) left by runs that died without cleaning up (see the module docstring);
    returns their paths.  Directories of live runs are never touched."""
    if fcntl is None:
        return []
    root = tempfile.gettempdir() if tmp_dir is None else os.fspath(tmp_dir)
    removed = []
    try:
        entries = [e for e in os.scandir(root)
                   if e.name.startswith(PREFIX) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    for entry in entries:
        lock = os.path.join(entry.path, LOCK)
        if os.path.exists(lock):
            fh = _try_lock(lock)
            if fh is None:              # a live run
                continue
            try:
                shutil.rmtree(entry.path, ignore_errors=True)
            finally:
                fh.close()
        else:
            try:
                if time.time() - entry.stat(follow_symlinks=False).st_mtime < UNLOCKED_STALE_SECONDS:
                    continue
            except OSError:
                continue
            shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.path)
    return removed


class TempArea:
    """A private temporary directory under ``tmp_dir`` (or the system default), locked for
    the life of the run; stale ones of killed runs are removed first (:func:`reap_stale`)."""

    def __init__(self, tmp_dir: str | os.PathLike | None = None):
        if tmp_dir is not None:
            os.makedirs(tmp_dir, exist_ok=True)
        self.reaped = reap_stale(tmp_dir)
        self.path = tempfile.mkdtemp(prefix=PREFIX, dir=tmp_dir)
        self._lock = None
        if fcntl is not None:
            # locked before it gets its name, so a reaper never sees it unlocked
            tmp = os.path.join(self.path, LOCK + ".new")
            self._lock = _try_lock(tmp)
            os.replace(tmp, os.path.join(self.path, LOCK))
        self.bytes_written = 0

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def cleanup(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def disk_usage(self) -> int:
        total = 0
        for entry in os.scandir(self.path):
            try:
                total += entry.stat().st_size
            except OSError:
                pass
        return total

    def __enter__(self) -> "TempArea":
        return self

    def __exit__(self, *exc) -> None:
        self.cleanup()


class LayerFiles:
    """The files of one layer: ``keys`` (u8), ``g`` (f8), ``cand`` (i4), written in order."""

    def __init__(self, area: TempArea, level: int):
        self.area = area
        self.level = level
        self.paths = {k: area.file(f"layer{level:02d}.{k}") for k in ("keys", "g", "cand")}
        self.count = 0
        self._fh = None

    def open_write(self) -> None:
        self._fh = {k: open(p, "wb") for k, p in self.paths.items()}

    def append(self, keys: np.ndarray, g: np.ndarray, cand: np.ndarray) -> None:
        keys.tofile(self._fh["keys"])
        g.tofile(self._fh["g"])
        cand.tofile(self._fh["cand"])
        self.count += len(keys)
        self.area.bytes_written += keys.nbytes + g.nbytes + cand.nbytes

    def close(self) -> None:
        if self._fh:
            for fh in self._fh.values():
                fh.close()
            self._fh = None

    def load(self) -> tuple[np.ndarray, np.ndarray]:
        """The whole layer's keys and g in RAM."""
        return (np.fromfile(self.paths["keys"], dtype=np.uint64, count=self.count),
                np.fromfile(self.paths["g"], dtype=np.float64, count=self.count))

    def drop_scores(self) -> None:
        try:
            os.remove(self.paths["g"])
        except FileNotFoundError:
            pass

    def lookup(self, key: int) -> int:
        """Candidate recorded for node ``key`` (binary search in the keys file, §5.5)."""
        if self.count == 0:
            raise KeyError(key)
        keys = np.memmap(self.paths["keys"], dtype=np.uint64, mode="r", shape=(self.count,))
        try:
            i = int(np.searchsorted(keys, np.uint64(key)))
            if i == self.count or int(keys[i]) != key:
                raise KeyError(key)
        finally:
            del keys
        with open(self.paths["cand"], "rb") as fh:
            fh.seek(4 * i)
            return int(np.frombuffer(fh.read(4), dtype=np.int32)[0])


class LayerSource:
    """Per-stream read buffers over one layer (``bk, bg, blen, bpos, bdone`` of the kernel)."""

    def __init__(self, n: int, files: LayerFiles | None, keys: np.ndarray | None = None,
                 g: np.ndarray | None = None, buffer: int = 1 << 16):
        self.n = n
        if keys is not None:                          # RAM: every stream reads the same array
            self.count = len(keys)
            self.bk = np.broadcast_to(keys, (n, self.count))
            self.bg = np.broadcast_to(g, (n, self.count))
            self.blen = np.full(n, self.count, dtype=np.int64)
            self.bdone = np.ones(n, dtype=np.bool_)
            self.files = None
        else:
            self.count = files.count
            self.files = files
            size = max(1, min(buffer, self.count))
            self.bk = np.empty((n, size), dtype=np.uint64)
            self.bg = np.empty((n, size), dtype=np.float64)
            self.blen = np.zeros(n, dtype=np.int64)
            self.bdone = np.zeros(n, dtype=np.bool_)
            self.fpos = np.zeros(n, dtype=np.int64)
            self.fk = open(files.paths["keys"], "rb")
            self.fg = open(files.paths["g"], "rb")
            for x in range(n):
                self.refill(x)
        self.bpos = np.zeros(n, dtype=np.int64)

    @property
    def in_memory(self) -> bool:
        return self.files is None

    def refill(self, x: int) -> None:
        """Read the next chunk of the layer into stream x's buffer."""
        start = int(self.fpos[x])
        cnt = min(self.bk.shape[1], self.count - start)
        for fh, buf, size in ((self.fk, self.bk, 8), (self.fg, self.bg, 8)):
            fh.seek(start * size)
            got = fh.readinto(memoryview(buf[x, :cnt]).cast("B"))
            if got != cnt * size:
                raise OSError(f"{fh.name}: layer file is truncated")
        self.fpos[x] = start + cnt
        self.blen[x] = cnt
        if hasattr(self, "bpos"):
            self.bpos[x] = 0
        self.bdone[x] = self.fpos[x] >= self.count

    def close(self) -> None:
        if self.files is not None:
            self.fk.close()
            self.fg.close()
