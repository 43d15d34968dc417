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
from ..dp_kernels import best_score_table, compress, order_dp


def estimate_memory(n: int) -> int:
    """Bytes :func:`family_bounds` needs for ``n`` variables."""
    return n * 2 ** max(n - 1, 0) * 8 + 2 ** n * 8 * 3 + 2 ** max(n - 1, 0) * 8


@numba.njit(cache=True)
def _backward(tables, b, n):
    """b[T] = best score of the variables T placed last (after V∖T), any order among them."""
    full = (1 << n) - 1
    b[0] = 0.0
    for T in range(1, full + 1):
        best = -np.inf
        rem = T
        while rem:
            low = rem & -rem
            i = 0
            while (low >> i) != 1:
                i += 1
            pred = full ^ T                    # x = i first among T: its predecessors are V∖T
            v = tables[i, compress(pred, i)] + b[T ^ low]
            best = max(best, v)
            rem ^= low
        b[T] = best


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
    step = 1
    while step < size:                                  # superset-max transform
        for base in range(0, size, 2 * step):
            for k in range(base, base + step):
                h[k] = max(h[k], h[k + step])
        step *= 2
    for j in range(start, stop):
        out[j] = scores[j] + h[compress(np.int64(masks[j]), x)]


def family_bounds(cache: ScoreCache, should_stop=None
                  ) -> tuple[np.ndarray, float, np.ndarray, np.ndarray] | None:
    """``(best, optimum, leaf, b)``: ``best[j]`` = score of the best DAG containing candidate
    ``j`` (exact), the optimal score, the DP's sink table (for the optimal DAG) and the backward
    table ``b`` (``b[T]`` = best score of the variables ``T`` placed after all others); None when
    ``should_stop()`` said so between variables."""
    n = cache.n
    masks = cache.masks
    tables = np.empty((n, 1 << max(n - 1, 0)), dtype=np.float64)
    for i in range(n):
        best_score_table(masks, cache.scores, int(cache.offsets[i]), int(cache.offsets[i + 1]), i,
                          tables[i])
    full = (1 << n) - 1
    f = np.empty(1 << n, dtype=np.float64)
    leaf = np.empty(1 << n, dtype=np.int8)
    f[0] = 0.0
    leaf[0] = -1
    order_dp(tables, f, leaf, n, 1, full + 1)
    if should_stop is not None and should_stop():
        return None
    b = np.empty(1 << n, dtype=np.float64)
    _backward(tables, b, n)
    del tables
    out = np.full(cache.m, -np.inf)
    h = np.empty(1 << max(n - 1, 0), dtype=np.float64)
    for x in range(n):
        _family_best(f, b, n, x, masks, cache.scores, int(cache.offsets[x]), int(cache.offsets[x + 1]),
                     out, h)
        if should_stop is not None and should_stop():
            return None
    return out, float(f[full]), leaf, b
