"""Exact dynamic programming over variable subsets (``method="dp"``), the reference oracle.

Silander & Myllymäki (2006); recurrences as in Malone et al. 2011, §3:

* best parent set of X within U:  BestScore(X, U) = max_{s ⊆ U, s ∈ cache(X)} score_X(s),
  computed for all U ⊆ V∖{X} by a max-zeta transform over the subset lattice;
* order DP:  Score(S) = max_{X ∈ S} Score(S∖{X}) + BestScore(X, S∖{X}),  Score(∅) = 0.

Memory is ``n·2^(n-1)`` float64 for the BestScore tables plus ``2^n·9`` bytes for the order
DP; the method estimates it first and refuses above ``memory_limit`` (default 8 GiB).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .cache import ScoreCache
from .errors import ResourceLimitError
from .options import parse_memory
from .result import DAG, INFEASIBLE, OPTIMAL, SolveResult
from .solve import SolveControl

DEFAULT_MEMORY_LIMIT = 8 * 2**30
MAX_N = 30


def estimate_memory(n: int) -> int:
    """Bytes the DP needs for ``n`` variables."""
    return n * 2 ** max(n - 1, 0) * 8 + 2 ** n * 9


def _human(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} TiB"


def solve_dp(cache: ScoreCache, control: SolveControl, memory_limit: int | None = None) -> SolveResult:
    """Exact optimum by subset DP; see the module docstring.  Stops on ``time_limit``."""
    n = cache.n
    limit = DEFAULT_MEMORY_LIMIT if memory_limit is None else parse_memory(memory_limit)
    need = estimate_memory(n)
    if n > MAX_N or need > limit:
        raise ResourceLimitError(
            f"method 'dp' needs about {_human(need)} for n={n} variables (limit {_human(limit)}); "
            "use method='bfbnb' or 'dual', or raise memory_limit")
    masks = cache.masks
    full = (1 << n) - 1
    tables = np.empty((n, 1 << max(n - 1, 0)), dtype=np.float64)
    for i in range(n):
        _best_score_table(masks, cache.scores, int(cache.offsets[i]), int(cache.offsets[i + 1]), i,
                          tables[i])
        if control.should_stop():
            return _stopped(cache, control)
    f = np.empty(1 << n, dtype=np.float64)
    leaf = np.empty(1 << n, dtype=np.int8)
    f[0] = 0.0
    leaf[0] = -1
    chunk = max(1 << 16, (1 << n) // 64)
    start = 1
    while start <= full:
        stop = min(full + 1, start + chunk)
        _order_dp(tables, f, leaf, n, start, stop)
        start = stop
        if start <= full and control.should_stop():
            return _stopped(cache, control)
    if not math.isfinite(f[full]):
        return SolveResult(None, -math.inf, -math.inf, INFEASIBLE, "dp",
                           message="no DAG is consistent with the candidate parent sets")
    parents = _backtrack(cache, leaf, full)
    dag = DAG(cache.names, parents)
    score = cache.dag_score(parents)
    control.improved(best=score, bound=max(score, float(f[full])))
    return SolveResult(dag, score, max(score, float(f[full])), OPTIMAL, "dp",
                       stats={"subsets": 1 << n, "memory_bytes": need})


def _backtrack(cache: ScoreCache, leaf: np.ndarray, full: int) -> list[tuple[int, ...]]:
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


@numba.njit(cache=True, inline="always")
def _compress(U, i):
    """Drop bit i from U (subsets of V∖{i} are indexed with n-1 bits)."""
    low = U & ((1 << i) - 1)
    return low | ((U >> (i + 1)) << i)


@numba.njit(cache=True)
def _best_score_table(masks, scores, start, stop, i, t):
    """t[U] = BestScore(X_i, U) for every U ⊆ V∖{i} (max-zeta transform)."""
    size = t.shape[0]
    for u in range(size):
        t[u] = -np.inf
    for j in range(start, stop):
        u = _compress(np.int64(masks[j]), i)
        if scores[j] > t[u]:
            t[u] = scores[j]
    step = 1
    while step < size:
        for base in range(0, size, 2 * step):
            for k in range(base, base + step):
                if t[k] > t[k + step]:
                    t[k + step] = t[k]
        step *= 2


@numba.njit(cache=True)
def _order_dp(tables, f, leaf, n, start, stop):
    for S in range(start, stop):
        best = -np.inf
        bl = -1
        rem = S
        while rem:
            low = rem & -rem
            i = 0
            while (low >> i) != 1:
                i += 1
            U = S ^ low
            v = f[U] + tables[i, _compress(U, i)]
            if v > best:
                best = v
                bl = i
            rem ^= low
        f[S] = best
        leaf[S] = bl
