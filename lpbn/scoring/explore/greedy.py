"""Greedy selection (GS): the first baseline of Scanagatta et al. 2015, §3.

"It starts by exploring all the parent sets of size one and adding them to a list.  Then
it repeats the following until time is expired: pops the best scoring parent set Π from
the list, explores all the supersets obtained by adding one variable to Π, and adds them to
the list."  Unlike independence selection every set is scored when it is generated, so the
list is ordered by exact scores.  The same safe superset bound as IS skips expansions whose
every superset is dominated by a scored subset.
"""

from __future__ import annotations

import numba
import numpy as np

from ..pruning import superset_bound
from . import frontier as F


@numba.njit(cache=True)
def start(hk, hb, ha, st, cf, pool_rows):
    """The list starts with every single parent of the pool, keyed by its score."""
    for t in range(pool_rows.shape[0]):
        j = pool_rows[t]
        F.heap_push(hk, hb, ha, st, cf[j, F.F_SCORE], j, -1)


@numba.njit(cache=True)
def step(cf, ci, ch, tk, tv, hk, hb, ha, st, thr, slot_owner, slot_codes, slot_q, cols, arities, x,
         kind, ess, lgt, qlimit, cnt, pacnt, mapbuf, pool, gain, single_score, z, limit, ll_ub, cg, rmin,
         max_pops, max_evals):
    """Pop the best scored set and score all its one-variable expansions, ``max_pops`` times.
    Returns (status, arrays) as :func:`lpbn.scoring.explore.independence.step`."""
    n, N = cols.shape
    rx = arities[x]
    items = np.empty(limit + 2, dtype=np.int64)
    scratch = np.empty(N, dtype=np.int64)
    dst = np.empty(N, dtype=np.int64)
    touched = np.empty(N, dtype=np.int64)
    tpa = np.empty(N, dtype=np.int64)
    mark = np.zeros(n, dtype=np.int64)
    status = 0
    for _ in range(max_pops):
        if st[F.S_HEAP] == 0:
            status = 1
            break
        key, j, unused = F.heap_pop(hk, hb, ha, st)
        k = F.items_of(ci, j, items)
        if k >= limit:
            continue
        for t in range(k):
            mark[items[t]] = j + 1
        refj = max(cf[j, F.F_SCORE], cf[j, F.F_REF])
        for p in range(pool.shape[0]):
            y = pool[p]
            if mark[y] == j + 1:
                continue
            h = ch[j] ^ z[y]
            if F.table_get(tk, tv, h) != -2:
                continue
            qn = cf[j, F.F_Q] * arities[y]
            if superset_bound(kind, ll_ub, qn, rx, ci[j, F.I_NZ], N) < max(refj, single_score[y]):
                st[F.S_BOUND_CUTS] += 1
                continue
            if st[F.S_EVALS] >= max_evals:
                return 2, cf, ci, ch, tk, tv
            score, ll, nz = F.evaluate(cf, ci, cols, arities, x, j, y, kind, ess, lgt, qlimit, cnt, pacnt,
                                       mapbuf, slot_owner, slot_codes, slot_q, items, scratch, dst, touched,
                                       tpa, st)
            k = F.items_of(ci, j, items)
            items[k] = y
            ref = F.best_known_subset(cf, ch, tk, tv, h, items, k + 1, z)
            cf, ci, ch = F.closed_grow(cf, ci, ch, st)
            r = F.closed_add(cf, ci, ch, st, j, y, k + 1, h, score, ll, qn, nz, ref)
            tk, tv = F.table_grow(tk, tv, st)
            F.table_put(tk, tv, st, h, r)
            if k + 1 < limit:
                if st[F.S_HEAP] == hk.shape[0]:
                    F.heap_halve(hk, hb, ha, st, thr)
                if score >= thr[0]:
                    F.heap_push(hk, hb, ha, st, score, r, -1)
    return status, cf, ci, ch, tk, tv
