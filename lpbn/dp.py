"""Exact dynamic programming over variable subsets (``method="dp"``), the reference oracle.

Silander & Myllymäki (2006); recurrences as in Malone et al. 2011, §3:

* best parent set of X within U:  BestScore(X, U) = max_{s ⊆ U, s ∈ cache(X)} score_X(s),
  computed for all U ⊆ V∖{X} by a max-zeta transform over the subset lattice;
* order DP:  Score(S) = max_{X ∈ S} Score(S∖{X}) + BestScore(X, S∖{X}),  Score(∅) = 0.

Memory is ``n·2^(n-1)`` float64 for the BestScore tables plus ``2^n·9`` bytes for the order
DP; the method estimates it first and refuses above ``memory_limit`` (default 8 GiB).

Up to ``NUMPY_MAX_N`` variables both recurrences run as vectorised numpy (the zeta transform one
bit at a time, the order DP one subset size at a time), so that a small solve never imports or
loads numba; beyond, numba kernels.  Both compute the same tables.  While numba is not loaded
in the process, numpy goes on up to ``NUMPY_COLD_MAX_N``: loading numba's runtime and the cached
kernels costs about a second, more than numpy's slower DP needs below 21 variables.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from .cache import ScoreCache
from .errors import ResourceLimitError
from .bound import rounding_margin
from .options import MEMORY, THREADS, MethodOptions, opt, parse_memory
from .result import DAG, INFEASIBLE, OPTIMAL, SolveResult
from .control import SolveControl
from .tuning import NUMPY_MAX_N, NUMPY_COLD_MAX_N

DEFAULT_MEMORY_LIMIT = 8 * 2**30
MAX_N = 30


def numpy_path(n: int) -> bool:
    """Whether the DP on ``n`` variables runs in numpy (see the module docstring)."""
    return n <= NUMPY_MAX_N or (n <= NUMPY_COLD_MAX_N and "numba" not in sys.modules)


def estimate_memory(n: int) -> int:
    """Bytes the DP needs for ``n`` variables."""
    return n * 2 ** max(n - 1, 0) * 8 + 2 ** n * 9


def _human(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} TiB"


@dataclass(frozen=True)
class DpOptions(MethodOptions):
    """Options of ``method="dp"`` (Silander & Myllymäki 2006), declared once (issue 55)."""

    memory_limit: int | str | None = opt(None, (
        "Memory the DP tables may take, in bytes or a size such as '8G' (default "
        "DEFAULT_MEMORY_LIMIT, 8 GiB); a cache whose tables need more is refused before any work "
        "(ResourceLimitError)."), MEMORY)
    threads: int | None = opt(None, (
        "Threads of the numba kernels (None or 0: every core; the tables are the same for any "
        "count).  The numpy path (small n) runs in one thread."), THREADS)


def solve_dp(cache: ScoreCache, control: SolveControl, **options) -> SolveResult:
    """Exact optimum by subset DP; see the module docstring.  Stops on ``time_limit``.

    ``options``: the fields of :class:`DpOptions`, checked and built once, here."""
    memory_limit, threads = DpOptions.build(options, "dp").values()
    n = cache.n
    limit = DEFAULT_MEMORY_LIMIT if memory_limit is None else parse_memory(memory_limit)
    need = estimate_memory(n)
    if n > MAX_N or need > limit:
        raise ResourceLimitError(
            f"method 'dp' needs about {_human(need)} for n={n} variables (limit {_human(limit)}); "
            "use method='bfbnb' or 'dual', or raise memory_limit")
    full = (1 << n) - 1
    solved = (_solve_numpy(cache, control) if numpy_path(n)
              else _solve_numba(cache, control, threads))
    if solved is None:
        return _stopped(cache, control)
    f, leaf = solved
    if not math.isfinite(f[full]):
        return SolveResult(None, -math.inf, -math.inf, INFEASIBLE, "dp",
                           message="no DAG is consistent with the candidate parent sets")
    parents = backtrack(cache, leaf, full)
    dag = DAG(cache.names, parents)
    score = cache.dag_score(parents)
    # f[full] is the optimum summed in the DP's order, score the DAG's in variable order
    margin = rounding_margin(math.fsum(abs(cache.local_score(i, ps)) for i, ps in enumerate(parents)), n)
    control.improved(best=score, bound=float(f[full]), margin=margin)
    return SolveResult(dag, score, float(f[full]), OPTIMAL, "dp",
                       stats={"subsets": 1 << n, "memory_bytes": need})


def _solve_numba(cache: ScoreCache, control: SolveControl, threads: int | None = None):
    """(f, leaf) of the order DP by the numba kernels, or None when ``control`` stopped it:
    the BestScore tables a variable per thread, the order DP a layer of blocks at a time
    (:mod:`lpbn.dp_kernels`; serial below ``PARALLEL_MIN_N`` variables)."""
    from .dp_kernels import (order_dp, order_dp_blocks, run_best_score_tables, run_subsets,
                             workers_for)
    n = cache.n
    workers = workers_for(n, threads)
    offsets = np.asarray(cache.offsets, dtype=np.int64)
    tables = np.empty((n, 1 << max(n - 1, 0)), dtype=np.float64)
    if not run_best_score_tables(cache.masks, cache.scores, offsets, tables, workers, control.should_stop):
        return None
    f = np.empty(1 << n, dtype=np.float64)
    leaf = np.empty(1 << n, dtype=np.int8)
    f[0] = 0.0
    leaf[0] = -1
    if not run_subsets(order_dp, order_dp_blocks, (tables, f, leaf, n), n, workers, control.should_stop):
        return None
    return f, leaf


def _compress_all(U: np.ndarray, i: int) -> np.ndarray:
    """Drop bit i from every U (subsets of V∖{i} are indexed with n-1 bits)."""
    return (U & ((1 << i) - 1)) | ((U >> (i + 1)) << i)


def _best_score_table_numpy(cache: ScoreCache, i: int) -> np.ndarray:
    """BestScore(X_i, U) for every U ⊆ V∖{i}: the candidates' scores, then a max-zeta
    transform one bit at a time (each U takes the best of U without that bit)."""
    n = cache.n
    size = 1 << max(n - 1, 0)
    t = np.full(size, -np.inf)
    a, b = int(cache.offsets[i]), int(cache.offsets[i + 1])
    u = _compress_all(cache.masks[a:b].astype(np.int64), i)
    np.maximum.at(t, u, cache.scores[a:b])
    step = 1
    while step < size:
        v = t.reshape(-1, 2, step)
        np.maximum(v[:, 1, :], v[:, 0, :], out=v[:, 1, :])
        step *= 2
    return t


def _solve_numpy(cache: ScoreCache, control: SolveControl | None = None):
    """(f, leaf) of the order DP in numpy: subsets of each size at once, for every X in them,
    Score(S) = max_X Score(S∖{X}) + BestScore(X, S∖{X}); None when ``control`` stopped it."""
    n = cache.n
    stop = control.should_stop if control is not None else (lambda: False)
    tables = []
    for i in range(n):
        tables.append(_best_score_table_numpy(cache, i))
        if stop():
            return None
    subsets = np.arange(1 << n, dtype=np.int64)
    popcount = np.zeros(1 << n, dtype=np.int64)
    for i in range(n):
        popcount += (subsets >> i) & 1
    f = np.full(1 << n, -np.inf)
    leaf = np.full(1 << n, -1, dtype=np.int8)
    f[0] = 0.0
    by_size = np.argsort(popcount, kind="stable")
    bounds = np.searchsorted(popcount[by_size], np.arange(n + 2))
    for k in range(1, n + 1):
        S = by_size[bounds[k]:bounds[k + 1]]
        best = np.full(S.size, -np.inf)
        arg = np.full(S.size, -1, dtype=np.int8)
        for i in range(n):
            has = (S >> i) & 1 == 1
            U = S[has] ^ (1 << i)
            v = f[U] + tables[i][_compress_all(U, i)]
            better = v > best[has]
            idx = np.flatnonzero(has)[better]
            best[idx] = v[better]
            arg[idx] = i
        f[S] = best
        leaf[S] = arg
        if k < n and stop():
            return None
    return f, leaf


def backtrack(cache: ScoreCache, leaf: np.ndarray, full: int) -> list[tuple[int, ...]]:
    """Parents per variable of the best DAG on the subset ``full``, from the order DP's
    ``leaf`` table (the last variable of each subset's best order)."""
    parents: list[tuple[int, ...]] = [()] * cache.n
    S = full
    while S:
        i = int(leaf[S])
        S ^= 1 << i
        j, _ = cache.best_parent_set(i, S)
        parents[i] = cache.parents(j)
    return parents


def _stopped(cache: ScoreCache, control: SolveControl) -> SolveResult:
    """Limit hit: greedy DAG (best parent sets along a topological order) and the trivial bound."""
    order = np.argsort(cache.sizes[cache.offsets[:-1]], kind="stable")
    choice, score = cache.best_for_order(order)
    dag = DAG(cache.names, [cache.parents(j) for j in choice]) if math.isfinite(score) else None
    bound = float(cache.best_unconstrained().sum())
    control.improved(best=score, bound=bound)
    return SolveResult(dag, score, bound, control.stop_reason or "time_limit", "dp",
                       message="stopped before the DP finished; bound is the sum of best local scores")


solve_dp.options_class = DpOptions
