"""Compiling a method's numba kernels ahead of a timed solve, so that time limits hold on a
fresh install.

lpbn's hot loops are numba kernels compiled at their first call and cached on disk
(``cache=True``).  On a fresh install the first solve therefore compiles for 5-30 s, and a
kernel cannot look at the clock while it compiles: ``--time-limit 5`` used to return after
9-15 s.  Here the compilation runs in a separate process instead:

* :func:`is_warm` (:mod:`lpbn.compiled`, the part the front door uses) tells whether ``method``'s kernels were compiled for this exact source
  tree, numba and Python (a marker file beside numba's cache, keyed by all three);
* :func:`warm_up` solves a small random cache with ``method`` in a child process (which
  fills numba's on-disk cache) and waits for it up to a deadline.  If the deadline comes
  first, the child goes on in the background (so the next run is warm) and the caller gets
  ``False``: :func:`lpbn.solve` then returns at once with status ``time_limit``, a DAG from
  a numpy-only heuristic and the trivial bound, instead of overrunning the limit.

``lpbn warmup`` (or ``python -m lpbn.warmup``) does the one-time step by hand for every
method; without a time limit nothing is spawned and kernels compile in process as before.
On several cores :func:`warm_all` compiles the methods in parallel child processes, each
method once the methods whose kernels it shares are done (:data:`AFTER`), the ordering
searches' kernels beside the dual's (:data:`ORDERING`): 37 s -> 23 s on two cores.

This module solves small caches through :func:`lpbn.solve`, so it sits above the front door
(beside the command line); the front door and the portfolio import :mod:`lpbn.compiled` only.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any, Callable

import numpy as np

from .compiled import (CHILD_ENV, HOME, METHODS, SCORING, WarmupFailed, compiling,  # noqa: F401  (re-exported)
                       is_warm, marker, quick_dag, quick_result, warm_up)

#: a unit of :func:`warm_all` that is no method: the ordering searches' kernels alone
#: (:func:`compile_ordering`), which obs and asobs need beside the dual's
ORDERING = "ordering-kernels"
#: what a unit waits for when compiling in parallel: units whose kernels it shares (the HiGHS
#: ILP's LP rows and separation are the dual's; obs and asobs run the dual or the ILP as their
#: bound), so that no kernel compiles twice at once
AFTER = {"highs": ("dual",), "obs": ("dual", "highs", ORDERING), "asobs": ("dual", "highs", ORDERING)}
#: the order in which a free core takes the next unit that is ready (the longest first: the
#: scoring kernels ~44 s, dual 17-23 s, the ordering kernels ~10 s, bfbnb 3 s, dp 2 s; the others
#: load the shared kernels)
SCHEDULE = (SCORING, "dual", ORDERING, "bfbnb", "dp", "pulp-cbc", "highs", "obs", "asobs")


def compile_method(method: str) -> None:
    """Solve small random caches with ``method`` (fills numba's cache), then mark it warm."""
    import numba  # noqa: F401  (loaded: small caches take the kernels, not the numba-free paths)
    with compiling():
        if method == SCORING:
            compile_scoring()
        else:
            _solve_small_caches(method)
    _mark_warm(method)


def _solve_small_caches(method: str) -> None:
    """The solves of :func:`compile_method` for a solver method."""
    from .solve import solve
    from .testing import random_cache
    caches = _small_caches()
    limits = [60, 60, 5]
    if method == "dp":       # numpy runs the dp up to NUMPY_COLD_MAX_N variables
        from .dp import NUMPY_COLD_MAX_N
        caches[2], limits[2] = random_cache(NUMPY_COLD_MAX_N + 1, seed=3, density=0.05), 60
    for cache, limit in zip(caches, limits):
        cache.prune_dominated()
        solve(cache, method, time_limit=limit)
    if method == "dual":     # large caches' polish: a restricted model (column generation)
        from .dual.polish import compile_kernels
        from .dual.relax import Incumbent, relax
        from .dual.state import DualState
        state = DualState(caches[2])
        relax(state, Incumbent(), separate=True, max_rounds=2, lp_polish=False)
        compile_kernels(state)
        from .lp.general_rows import GeneralRows      # the {0, 1/2}-cuts' pool test
        GeneralRows([(np.array([0]), np.array([1.0]), 1.0)]).activity(np.zeros(caches[2].m))
    if method == "highs":    # large caches' root LP: a restricted model (column generation)
        solve(caches[2], method, time_limit=limits[2], column_generation=True)
    if method in ("obs", "asobs"):   # bound="auto" takes the ILP on mid-size caches
        solve(caches[2], method, time_limit=limits[2], bound="highs", max_restarts=4)


def _mark_warm(method: str) -> None:
    path = marker(method)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"compiled {time.strftime('%Y-%m-%d %H:%M:%S')}\n")


def compile_scoring() -> None:
    """Score a small random data set with every exploration strategy, BIC and BDeu, k-best and
    constraints: through the dense and sparse counting kernels and the re-ranking of codes
    (arities of 40 make the joint tables of two or three parents sparse and large)."""
    from .scoring import read_data, score_data
    arities = np.array([2, 3, 40, 40, 40, 5])
    X = read_data(np.random.default_rng(0).integers(0, arities, size=(600, len(arities))))
    for score in ("bic", "bdeu"):
        score_data(X, score=score, explore="exhaustive", jobs=1)
        for strategy in ("independence", "greedy", "sequential"):
            score_data(X, score=score, explore=strategy, time_per_variable=None, max_evaluations=60, jobs=1)
    score_data(X, score="bic", max_parents=2, k_best=3, jobs=1)
    a, b, c = X.names[:3]
    score_data(X, score="bic", max_parents=2, jobs=1, constraints={"require": [f"{a}->{b}"], "forbid": [f"{c}->{a}"]})


def _small_caches() -> list:
    """The caches a warm-up solves: two that close at the root and a sparse one with cycles
    among neighbours that needs cuts, exact separation and the incumbent searches."""
    from .testing import random_cache, random_sparse_cache
    return [random_cache(9, seed=0, density=0.4), random_cache(12, seed=1, density=0.4),
            random_sparse_cache(30, per_variable=(20, 40), max_parents=3, seed=2, neighbourhood=8)]


def compile_ordering() -> None:
    """Compile the ordering searches' kernels (OBS and ASOBS, :mod:`lpbn.ordering`) without the
    dual bound that ``method="obs"``/``"asobs"`` run beside them; no marker (no method is warm
    by this alone)."""
    from .ordering.search import ordering_search
    for cache in _small_caches():
        cache.prune_dominated()
        for rule in ("obs", "asobs"):
            for restart in ("perturb", "random"):
                ordering_search(cache, rule, seed=0, max_restarts=4, restart=restart)


def _pending(methods: list[str]) -> list[str]:
    """The units :func:`warm_all` runs for ``methods``, in :data:`SCHEDULE` order."""
    cold = {m for m in methods if not is_warm(m)}
    if cold & {"obs", "asobs"}:
        cold.add(ORDERING)
    return [u for u in SCHEDULE if u in cold]


def warm_all(methods: list[str], jobs: int,
             report: Callable[[str, str], Any] = lambda unit, state: None) -> list[str]:
    """Compile ``methods`` in up to ``jobs`` child processes (``python -m lpbn.warmup UNIT``),
    a unit starting once the units it waits for (:data:`AFTER`) are done; ``report(unit,
    state)`` as each ends.  Returns the units that failed (their children's last error line
    reported).  Each child takes the method's lock, so concurrent warm-ups do not compile twice."""
    import threading
    units = _pending(methods)
    done: set[str] = set()
    started: set[str] = set()
    failed: list[str] = []
    cond = threading.Condition()
    env = {**os.environ, CHILD_ENV: "1"}   # their solves compile in process, spawning nothing

    def ready(u: str) -> bool:
        return all(d in done or d not in units for d in AFTER.get(u, ()))

    def worker() -> None:
        while True:
            with cond:
                while True:
                    left = [u for u in units if u not in started]
                    if not left:
                        return
                    nxt = next((u for u in left if ready(u)), None)
                    if nxt is not None:
                        started.add(nxt)
                        break
                    cond.wait()
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "lpbn.warmup", nxt], cwd=HOME,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env)
            with cond:
                done.add(nxt)
                if out.returncode != 0:
                    failed.append(nxt)
                    lines = (out.stderr or "").strip().splitlines()
                    report(nxt, f"failed (exit {out.returncode}): {lines[-1] if lines else 'no message'}")
                else:
                    report(nxt, f"compiled in {time.perf_counter() - t0:.1f} s")
                cond.notify_all()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, min(jobs, len(units))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failed


def main(argv: list[str] | None = None) -> int:
    methods = (argv if argv is not None else sys.argv[1:]) or list(METHODS)
    for m in methods:
        if m not in METHODS and m != ORDERING:
            print(f"lpbn warmup: unknown method {m!r} (choose from {', '.join(METHODS)})", file=sys.stderr)
            return 2
    if ORDERING in methods:
        compile_ordering()
        methods = [m for m in methods if m != ORDERING]
    for m in methods:
        path = marker(m)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".lock"), "w") as lock:
            _lock(lock)      # one compiling process per method; the others wait, then skip
            if not path.exists():
                compile_method(m)
    return 0


def _lock(fh) -> None:
    try:
        import fcntl
    except ImportError:     # not POSIX: concurrent compiles are merely wasteful
        return
    fcntl.flock(fh, fcntl.LOCK_EX)


if __name__ == "__main__":
    # run the imported module's main, not this __main__ copy (one module state for the child)
    from lpbn.warmup import main as _main
    sys.exit(_main())
