"""Sequential ordering (SQ): the second baseline of Scanagatta et al. 2015, §3.

"The parent sets are explored in sequential order: first all the parent sets of size one,
then all the parent sets of size two, and so on" — breadth first over the set-enumeration
tree of the candidate parents (in variable order), until the budget runs out.  With an
unlimited budget and a parent limit k this is the exhaustive enumeration up to k, less the
subtrees that the safe superset bound proves dominated.
"""

from __future__ import annotations

import numba
import numpy as np

from ..pruning import superset_bound
from . import frontier as F


@numba.njit(cache=True)
def step(cf, ci, ch, tk, tv, st, cursor, slot_owner, slot_codes, slot_q, cols, arities, x, kind, ess, lgt,
         qlimit, cnt, pacnt, mapbuf, pool, pos, single_score, z, limit, ll_ub, max_pops, max_evals):
    """Expand up to ``max_pops`` closed rows in breadth-first order (``cursor`` = [next row,
    next pool position within it]); a row's children add pool variables after its last one.
    Returns (status, arrays) as :func:`lpbn.scoring.explore.independence.step`."""
    n, N = cols.shape
    rx = arities[x]
    items = np.empty(limit + 2, dtype=np.int64)
    scratch = np.empty(N, dtype=np.int64)
    dst = np.empty(N, dtype=np.int64)
    touched = np.empty(N, dtype=np.int64)
    tpa = np.empty(N, dtype=np.int64)
    for _ in range(max_pops):
        i = cursor[0]
        if i >= st[F.S_CLOSED]:
            return 1, cf, ci, ch, tk, tv
        k = ci[i, F.I_SIZE]
        last = pos[ci[i, F.I_ADD]] if i > 0 else -1
        if k >= limit or (i > 0 and last < 0):
            cursor[0] = i + 1
            cursor[1] = 0
            continue
        refi = max(cf[i, F.F_SCORE], cf[i, F.F_REF])
        for p in range(max(cursor[1], last + 1), pool.shape[0]):
            y = pool[p]
            qn = cf[i, F.F_Q] * arities[y]
            if superset_bound(kind, ll_ub, qn, rx, ci[i, F.I_NZ], N) < max(refi, single_score[y]):
                st[F.S_BOUND_CUTS] += 1
                continue
            h = ch[i] ^ z[y]
            if F.table_get(tk, tv, h) >= 0:
                continue   # a single parent scored at the start
            if st[F.S_EVALS] >= max_evals:
                cursor[1] = p
                return 2, cf, ci, ch, tk, tv
            score, ll, nz = F.evaluate(cf, ci, cols, arities, x, i, y, kind, ess, lgt, qlimit, cnt, pacnt,
                                       mapbuf, slot_owner, slot_codes, slot_q, items, scratch, dst, touched,
                                       tpa, st)
            kk = F.items_of(ci, i, items)
            items[kk] = y
            ref = F.best_known_subset(cf, ch, tk, tv, h, items, kk + 1, z)
            cf, ci, ch = F.closed_grow(cf, ci, ch, st)
            r = F.closed_add(cf, ci, ch, st, i, y, kk + 1, h, score, ll, qn, nz, ref)
            tk, tv = F.table_grow(tk, tv, st)
            F.table_put(tk, tv, st, h, r)
        cursor[0] = i + 1
        cursor[1] = 0
    return 0, cf, ci, ch, tk, tv
