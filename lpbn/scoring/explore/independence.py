"""Independence selection (IS): Scanagatta, de Campos, Corani & Zaffalon 2015, §3.1-3.2.

The open list holds parent sets not yet scored, ordered by the approximate score BIC*
(eq. 1), which is computed in constant time from two scored sets:

    BIC*(X, Π1, Π2) = BIC(X, Π1) + BIC(X, Π2) + inter(X, Π1, Π2)
                    = LL(Π1) + LL(Π2) - LL(∅) - ½ ln N (r_X - 1) q_Π1 q_Π2,

i.e. the exact penalty of Π1 ∪ Π2 and the log-likelihood it would have if Π1 and Π2 were
independent given X and marginally (Theorem 1: the error is N · ii(Π1; Π2; X), at most
N · min{H(X), H(Π1), H(Π2)} by Corollary 1).  Here Π2 is always a single parent Y.

The run starts from the scored empty set and every single parent (closed list), then
repeatedly pops the set with the best BIC*, scores it exactly, adds it to the closed list
and pushes every expansion ``Π ∪ {Y}`` not seen before with its BIC*.  A set is kept in
the cache only when it beats every explored subset (§3.2: "It safely prunes Π if any of its
subsets yields a higher BIC score").  Two refinements keep the open list small on
thousands of variables, neither changing which sets can be reached first:

* expansions ``Π ∪ {Y}`` whose every superset is provably dominated by a scored subset
  (de Campos & Ji 2011, Thm 4, with the exact LL bound of :func:`superset_bound`; this
  subsumes the paper's Theorem 2, which bounds BIC(Π) through BIC* and Corollary 1) are
  not pushed;
* a full open list keeps its better half, and later entries below the best dropped key
  are not pushed; the parents Y of an expansion are tried by decreasing single-parent gain
  ``LL(Y) - LL(∅)``, so the scan stops at the first Y that cannot reach that key.

For BDeu and AIC the guide is the same LL-based estimate with the score's own (BDeu: BIC's)
penalty; every kept set carries its exact score of the requested kind.
"""

from __future__ import annotations

import numba
import numpy as np

from ..pruning import superset_bound
from . import frontier as F


@numba.njit(cache=True)
def push_expansions(cf, ci, ch, tk, tv, hk, hb, ha, st, thr, j, pool, gain, single_score, arities, x,
                    z, kind, ll_ub, cg, rmin, N, mark, items):
    """Push every unseen ``row j + Y`` (Y in ``pool``, by decreasing gain) with its BIC*."""
    k = F.items_of(ci, j, items)
    stamp = j + 1
    for t in range(k):
        mark[items[t]] = stamp
    rx = arities[x]
    qj = cf[j, F.F_Q]
    llj = cf[j, F.F_LL]
    refj = max(cf[j, F.F_SCORE], cf[j, F.F_REF])
    unit = cg * (rx - 1) * qj
    for p in range(pool.shape[0]):
        y = pool[p]
        g = gain[y]
        if llj + g - unit * rmin < thr[0]:
            break   # pool is sorted by gain: no later Y reaches the threshold
        if mark[y] == stamp:
            continue
        h = ch[j] ^ z[y]
        if F.table_get(tk, tv, h) != -2:
            continue
        qn = qj * arities[y]
        ub = superset_bound(kind, ll_ub, qn, rx, ci[j, F.I_NZ], N)
        if ub < max(refj, single_score[y]):
            st[F.S_BOUND_CUTS] += 1
            continue
        key = llj + g - cg * (rx - 1) * qn
        if key < thr[0]:
            continue
        if st[F.S_HEAP] == hk.shape[0]:
            F.heap_halve(hk, hb, ha, st, thr)
            if key < thr[0]:
                continue
        F.heap_push(hk, hb, ha, st, key, j, y)
        tk, tv = F.table_grow(tk, tv, st)
        F.table_put(tk, tv, st, h, -1)
    return tk, tv


@numba.njit(cache=True)
def start(cf, ci, ch, tk, tv, hk, hb, ha, st, thr, pool_rows, pool, gain, single_score, arities, x, z,
          kind, ll_ub, cg, rmin, limit, n, N):
    """Push the expansions of the given rows (sets within the pool) below the size limit."""
    mark = np.zeros(n, dtype=np.int64)
    items = np.empty(limit + 2, dtype=np.int64)
    for t in range(pool_rows.shape[0]):
        if ci[pool_rows[t], F.I_SIZE] < limit:
            tk, tv = push_expansions(cf, ci, ch, tk, tv, hk, hb, ha, st, thr, pool_rows[t], pool, gain,
                                     single_score, arities, x, z, kind, ll_ub, cg, rmin, N, mark, items)
    return tk, tv


@numba.njit(cache=True)
def step(cf, ci, ch, tk, tv, hk, hb, ha, st, thr, slot_owner, slot_codes, slot_q, cols, arities, x,
         kind, ess, lgt, qlimit, cnt, pacnt, mapbuf, pool, gain, single_score, z, limit, ll_ub, cg, rmin,
         max_pops, max_evals):
    """Pop, score and expand up to ``max_pops`` sets.  Returns (status, arrays): status 0 =
    chunk done, 1 = open list empty, 2 = evaluation cap reached."""
    n, N = cols.shape
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
        if st[F.S_EVALS] >= max_evals:
            status = 2
            break
        key, base, y = F.heap_pop(hk, hb, ha, st)
        score, ll, nz = F.evaluate(cf, ci, cols, arities, x, base, y, kind, ess, lgt, qlimit, cnt, pacnt,
                                   mapbuf, slot_owner, slot_codes, slot_q, items, scratch, dst, touched, tpa,
                                   st)
        h = ch[base] ^ z[y]
        k = F.items_of(ci, base, items)
        items[k] = y
        k += 1
        ref = F.best_known_subset(cf, ch, tk, tv, h, items, k, z)
        cf, ci, ch = F.closed_grow(cf, ci, ch, st)
        j = F.closed_add(cf, ci, ch, st, base, y, k, h, score, ll, cf[base, F.F_Q] * arities[y], nz, ref)
        tk, tv = F.table_grow(tk, tv, st)
        F.table_put(tk, tv, st, h, j)
        if k < limit:
            tk, tv = push_expansions(cf, ci, ch, tk, tv, hk, hb, ha, st, thr, j, pool, gain, single_score,
                                     arities, x, z, kind, ll_ub, cg, rmin, N, mark, items)
    return status, cf, ci, ch, tk, tv
