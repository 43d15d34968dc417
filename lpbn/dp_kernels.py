"""numba kernels of :mod:`lpbn.dp` (the subset DP where numpy does not run it, see
:func:`lpbn.dp.numpy_path`): the max-zeta transform of one variable's BestScore table and a
chunk of the order DP."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def compress(U, i):
    """Drop bit i from U (subsets of V∖{i} are indexed with n-1 bits)."""
    low = U & ((1 << i) - 1)
    return low | ((U >> (i + 1)) << i)


@numba.njit(cache=True)
def best_score_table(masks, scores, start, stop, i, t):
    """t[U] = BestScore(X_i, U) for every U ⊆ V∖{i} (max-zeta transform)."""
    size = t.shape[0]
    for u in range(size):
        t[u] = -np.inf
    for j in range(start, stop):
        u = compress(np.int64(masks[j]), i)
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
def order_dp(tables, f, leaf, n, start, stop):
    """f[S] = best network over S, leaf[S] = its sink (Silander & Myllymäki 2006, eq. 3)."""
    for S in range(start, stop):
        best = -np.inf
        bl = -1
        for i in range(n):
            if (S >> i) & 1:
                U = S ^ (1 << i)
                v = f[U] + tables[i, compress(U, i)]
                if v > best:
                    best = v
                    bl = i
        f[S] = best
        leaf[S] = bl
