"""Whether a method's numba kernels are compiled, compiling them in a child process, and a
quick answer meanwhile: the part of the warm-up (:mod:`lpbn.warmup`) that the front door uses.

lpbn's hot loops are numba kernels compiled at their first call and cached on disk
(``cache=True``).  On a fresh install the first solve therefore compiles for 5-30 s, and a
kernel cannot look at the clock while it compiles: ``--time-limit 5`` used to return after
9-15 s.  Here the compilation runs in a separate process instead:

* :func:`is_warm` tells whether ``method``'s kernels were compiled for this exact source
  tree, numba and Python (a marker file beside numba's cache, keyed by all three);
* :func:`warm_up` runs ``python -m lpbn.warmup METHOD`` in a child process (which fills
  numba's on-disk cache) and waits for it up to a deadline.  If the deadline comes first, the
  child goes on in the background (so the next run is warm) and the caller gets ``False``:
  :func:`lpbn.solve` then returns at once with :func:`quick_result`, a DAG from a numpy-only
  heuristic and the trivial bound, instead of overrunning the limit.

It imports no method and not the front door (the child does the solving): the front door
imports it, and :mod:`lpbn.warmup`, which solves small caches, sits above the front door.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

#: methods with numba kernels worth compiling ahead (others start at once), and the scoring
#: of data (``lpbn score``, ``lpbn learn``: :func:`compile_scoring`)
SCORING = "score"
METHODS = ("dp", "dual", "highs", "pulp-cbc", "bfbnb", "obs", "asobs", SCORING)
def _fingerprint() -> str:
    """lpbn's source files (names, sizes, mtimes), numba's and Python's versions."""
    import numba
    root = Path(__file__).resolve().parent
    h = hashlib.sha1(f"{numba.__version__} {sys.version}".encode())
    for p in sorted(root.rglob("*.py")):
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.relative_to(root)} {st.st_size} {st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def _marker_dir() -> Path:
    """Where the markers live: numba's cache directory when set, else lpbn's own."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return Path(env)
    own = Path(__file__).resolve().parent / "__pycache__"
    if os.access(own if own.exists() else own.parent, os.W_OK):
        return own
    return Path.home() / ".cache" / "lpbn"


def marker(method: str) -> Path:
    """The file whose presence says ``method``'s kernels are compiled for this source tree."""
    return _marker_dir() / f"lpbn-warm-{method}-{_fingerprint()}"


_compiling = False     # inside compile_method: solve() must not spawn another warm-up


class compiling:
    """``with compiling():`` — inside :func:`lpbn.warmup.compile_method`, which compiles in
    process: :func:`is_warm` says yes, so no solve below spawns another warm-up."""

    def __enter__(self) -> None:
        global _compiling
        _compiling = True

    def __exit__(self, *exc) -> None:
        global _compiling
        _compiling = False

#: the folder holding this lpbn package, the warm-up children's working directory: ``python -m``
#: puts its working directory first on the path, so a child started from a clone of the
#: repository would import (and compile the kernels of) the clone, not the installed package
#: this process runs, whose numba cache would stay cold
HOME = str(Path(__file__).resolve().parent.parent)


#: set in the warm-up child's environment: nothing below it may spawn another warm-up
CHILD_ENV = "LPBN_WARMUP_CHILD"


def is_warm(method: str) -> bool:
    """True when ``method`` has nothing to compile (or no kernels of its own), and inside a
    warm-up (which compiles in process)."""
    return (method not in METHODS or _compiling or os.environ.get(CHILD_ENV) == "1"
            or marker(method).exists())


def warm_up(method: str, timeout: float | None = None, stop: Callable[[], Any] | None = None) -> bool:
    """Compile ``method``'s kernels in a child process; True once done, False if ``timeout``
    seconds passed first (the child then finishes in the background, in its own session, so the
    next run is warm) or ``stop()`` became true (a signal: the child is stopped too).  A child
    that fails (exit status not 0) raises :class:`WarmupFailed`: the caller should compile in
    its own process, where the real error, if any, shows."""
    if is_warm(method):
        return True
    child = subprocess.Popen([sys.executable, "-m", "lpbn.warmup", method], cwd=HOME,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True,
                             env={**os.environ, CHILD_ENV: "1"})
    deadline = math.inf if timeout is None else time.monotonic() + timeout
    while child.poll() is None:
        if stop is not None and stop():     # the user stops everything: the compile too
            with contextlib.suppress(OSError):
                os.killpg(child.pid, signal.SIGTERM)
            child.wait()
            return False
        if time.monotonic() >= deadline:    # a time limit: let it finish for the next run
            return False
        time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
    if child.returncode != 0:
        raise WarmupFailed(f"the warm-up of {method} exited with status {child.returncode}")
    return is_warm(method)


class WarmupFailed(RuntimeError):
    """The warm-up child process failed (not a time limit, not a stop)."""


def quick_result(cache, method: str, status: str, message: str):
    """A :class:`~lpbn.result.SolveResult` without compiling anything: :func:`quick_dag` and
    the trivial bound (each variable's best score)."""
    from .result import DAG, SolveResult
    choice, score = quick_dag(cache)
    dag = DAG(cache.names, [cache.parents(int(j)) for j in choice]) if np.isfinite(score) else None
    bound = float(np.sum(cache.best_unconstrained()))
    return SolveResult(dag, score, bound, status, method, message=message,
                       stats={"compiling": True})


def quick_dag(cache) -> tuple[np.ndarray, float]:
    """A DAG without compiling anything: variables in order of their best candidate's size
    (sources first), each taking its best candidate among its predecessors (numpy only).
    Returns (candidate index per variable, score)."""
    n = cache.n
    offsets = np.asarray(cache.offsets, dtype=np.int64)
    sizes = np.asarray(cache.sizes, dtype=np.int64)
    best = offsets[:-1] + np.array([np.argmax(cache.scores[offsets[i]:offsets[i + 1]]) for i in range(n)])
    order = np.argsort(sizes[best], kind="stable")
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    items = np.asarray(cache.pset_items, dtype=np.int64)
    ptr = np.asarray(cache.pset_ptr, dtype=np.int64)
    latest = np.full(cache.m, -1, dtype=np.int64)        # latest position among the parents
    nonempty = sizes > 0
    if items.size:
        latest[nonempty] = np.maximum.reduceat(pos[items], ptr[:-1][nonempty])
    family = np.asarray(cache.family, dtype=np.int64)
    ok = latest < pos[family]
    masked = np.where(ok, cache.scores, -np.inf)
    choice = np.array([offsets[i] + int(np.argmax(masked[offsets[i]:offsets[i + 1]])) for i in range(n)])
    if not np.all(ok[choice]):
        return choice, -np.inf       # some variable has no candidate within the order
    return choice, float(cache.scores[choice].sum())
