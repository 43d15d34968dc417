"""Order-graph tables for the k best networks: the exact score of the best DAG that contains
each family (Chen, Darwiche & Choi, "On pruning with the MDL score", Thm 4).

With the subset DP of :mod:`lpbn.dp` (Silander & Myllymäki 2006) run forwards, ``f(S)`` = best
network over ``S``, and backwards, ``b(T)`` = best score of the variables ``T`` placed after all
others, the best DAG containing the family ``X ← U`` is

    best(X, U) = s_X(U) + max_{U ⊆ S ⊆ V∖{X}} f(S) + b(V ∖ S ∖ {X})

(``S`` = the variables placed before ``X`` in one of its topological orders), a superset-max
transform per variable.  A family with ``best(X, U)`` below the score of the K-th best DAG
is in none of the K best (Thm 4); :mod:`lpbn.kbest.bnb` also uses the values as bounds.

Memory: ``n·2^(n-1)`` float64 (the BestScore tables of :mod:`lpbn.dp`) plus ``3·2^n``; the
caller estimates it first (:func:`estimate_memory`).
"""

from __future__ import annotations

import numba
import numpy as np

from ..cache import ScoreCache
from ..dp_kernels import (compress, order_dp, order_dp_blocks, run_best_score_tables, run_subsets,
                          superset_max_transform, workers_for)


def estimate_memory(n: int, threads: int = 1) -> int:
    """Bytes :func:`family_bounds` needs for ``n`` variables (one work table per thread)."""
    return n * 2 ** max(n - 1, 0) * 8 + 2 ** n * 8 * 3 + threads * 2 ** max(n - 1, 0) * 8


@numba.njit(cache=True)
def _backward(tables, b, n, start, stop):
    """b[T] = best score of the variables T placed last (after V∖T), any order among them, for
    ``start <= T < stop`` (b[T ∖ {X}] must be known: smaller T, as in the order DP)."""
    full = (1 << n) - 1
    for T in range(start, stop):
        best = -np.inf
        pred = full ^ T                        # x = i first among T: its predecessors are V∖T
        for i in range(n):
            if (T >> i) & 1:
                v = tables[i, compress(pred, i)] + b[T ^ (1 << i)]
                if v > best:
                    best = v
        b[T] = best


@numba.njit(cache=True, parallel=True)
def _backward_blocks(tables, b, n, low, highs):
    """:func:`_backward` over the blocks ``highs`` (one layer), in parallel: the block scheme
    of :mod:`lpbn.dp_kernels` (b[T] reads b[T ∖ {X}], as f[S] does)."""
    for t in numba.prange(highs.shape[0]):
        base = highs[t] << low
        _backward(tables, b, n, max(base, 1), base + (1 << low))


@numba.njit(cache=True, parallel=True)
def _family_best_many(f, b, n, lo, hi, masks, scores, offsets, out, work):
    """:func:`_family_best` for the variables ``lo..hi-1`` in parallel, each with its own work
    table ``work[x - lo]``."""
    for t in numba.prange(hi - lo):
        x = lo + t
        _family_best(f, b, n, x, masks, scores, offsets[x], offsets[x + 1], out, work[t])


@numba.njit(cache=True)
def _family_best(f, b, n, x, masks, scores, start, stop, out, h):
    """out[j] = s_j + max over S ⊇ U_j (S ⊆ V∖{x}) of f(S) + b(V∖S∖{x}), for j in x's range."""
    full = (1 << n) - 1
    size = h.shape[0]
    xbit = 1 << x
    low_mask = xbit - 1
    for s in range(size):
        S = (s & low_mask) | ((s >> x) << (x + 1))     # expand: insert a 0 at bit x
        h[s] = f[S] + b[full ^ S ^ xbit]
    superset_max_transform(h)
    for j in range(start, stop):
        out[j] = scores[j] + h[compress(np.int64(masks[j]), x)]


def family_bounds(cache: ScoreCache, should_stop=None, threads: int | None = None
                  ) -> tuple[np.ndarray, float, np.ndarray, np.ndarray] | None:
    """``(best, optimum, leaf, b)``: ``best[j]`` = score of the best DAG containing candidate
    ``j`` (exact), the optimal score, the DP's sink table (for the optimal DAG) and the backward
    table ``b`` (``b[T]`` = best score of the variables ``T`` placed after all others); None when
    ``should_stop()`` said so between steps.  ``threads``: numba threads (None: every core; the
    tables are the same for any count)."""
    return _bounds(cache.n, cache.masks, cache.scores, cache.offsets, should_stop, threads)


def _bounds(n, masks, scores, offsets, should_stop=None, threads=None):
    """:func:`family_bounds` on arrays (parent masks over ``n`` variables, candidates grouped by
    child with ``offsets``; several candidates may share a mask)."""
    workers = workers_for(n, threads)
    stop = should_stop if should_stop is not None else (lambda: False)
    offsets = np.asarray(offsets, dtype=np.int64)
    m = len(scores)
    tables = np.empty((n, 1 << max(n - 1, 0)), dtype=np.float64)
    if not run_best_score_tables(masks, scores, offsets, tables, workers, stop):
        return None
    full = (1 << n) - 1
    f = np.empty(1 << n, dtype=np.float64)
    leaf = np.empty(1 << n, dtype=np.int8)
    f[0] = 0.0
    leaf[0] = -1
    if not run_subsets(order_dp, order_dp_blocks, (tables, f, leaf, n), n, workers, stop):
        return None
    b = np.empty(1 << n, dtype=np.float64)
    b[0] = 0.0
    if not run_subsets(_backward, _backward_blocks, (tables, b, n), n, workers, stop):
        return None
    del tables
    out = np.full(m, -np.inf)
    work = np.empty((min(workers, n), 1 << max(n - 1, 0)), dtype=np.float64)
    for lo in range(0, n, workers):
        if workers > 1:
            _family_best_many(f, b, n, lo, min(n, lo + workers), masks, scores, offsets, out, work)
        else:
            _family_best(f, b, n, lo, masks, scores, offsets[lo], offsets[lo + 1], out, work[0])
        if stop():
            return None
    return out, float(f[full]), leaf, b


class GroupBounds:
    """Memory-light bounds for caches beyond the DP tables (a static pattern database, Yuan &
    Malone 2012, used for the k best): the variables are split into groups ``G`` of at most
    ``max_group``; inside a group the tables above are built with every variable outside the
    group free (a candidate's parents outside ``G`` are dropped: any of them is allowed), so
    acyclicity is kept within groups only.  Then, for ``R`` ⊆ V,

        b_PD(R) = Σ_G b_G(R ∩ G)  ≥  the best score of R placed after V∖R,

    and the best DAG containing the family ``X ← U`` (``X`` in group ``G``) scores at most

        best_G(X, U ∩ G) + Σ_{G' ≠ G} b_{G'}(G'),

    where ``best_G`` is :func:`family_bounds`' value in ``G`` (relaxation: the DAG restricted to
    each group, with the rest free, is a network of that group).  Memory: ``g·2^(g-1)`` per
    group of ``g`` variables."""

    def __init__(self, cache: ScoreCache, groups: list[list[int]], should_stop=None):
        n = cache.n
        self.groups = [sorted(int(v) for v in g) for g in groups]
        self.btabs = []
        self.full = np.full(cache.m, -np.inf)
        self.ok = True
        tops = []
        outs = []
        for g in self.groups:
            k = len(g)
            pos = {v: t for t, v in enumerate(g)}
            idx = np.concatenate([np.arange(cache.offsets[v], cache.offsets[v + 1]) for v in g])
            offs = np.zeros(k + 1, dtype=np.int64)
            offs[1:] = np.cumsum([cache.offsets[v + 1] - cache.offsets[v] for v in g])
            src = cache.masks[idx]
            proj = np.zeros(len(idx), dtype=np.uint64)
            for v, t in pos.items():
                proj |= ((src >> np.uint64(v)) & np.uint64(1)) << np.uint64(t)
            got = _bounds(k, proj, cache.scores[idx], offs, should_stop)
            if got is None:
                self.ok = False
                return
            out, _, _, b = got
            self.btabs.append(b)
            tops.append(float(b[(1 << k) - 1]))
            outs.append((idx, out))
        total = float(sum(tops))
        for (idx, out), top in zip(outs, tops):
            self.full[idx] = out + (total - top)
        self.top = total
        self.pos = np.full(n, -1, dtype=np.int64)
        self.grp = np.full(n, -1, dtype=np.int64)
        for gi, g in enumerate(self.groups):
            for t, v in enumerate(g):
                self.pos[v] = t
                self.grp[v] = gi

    def rest(self, vars_) -> float:
        """b_PD of the set ``vars_`` (see the class docstring)."""
        keys = [0] * len(self.groups)
        for v in vars_:
            keys[self.grp[v]] |= 1 << int(self.pos[v])
        return float(sum(self.btabs[gi][key] for gi, key in enumerate(keys)))


def group_memory(sizes: list[int]) -> int:
    """Bytes :class:`GroupBounds` needs for groups of these sizes (at most; built one by one)."""
    return max((estimate_memory(g) for g in sizes), default=0) + sum(2 ** g * 8 for g in sizes)
