"""Numba kernels of the full-space hill climber (:mod:`lpbn.scoring.hillclimb`).

State of a climb, all compact arrays: ``adj[i, j]`` (arc i -> j), ``npar[j]``, ``fs[j]`` (the
local score of j's family), ``delta[i, j]`` (score change of *toggling* arc i -> j in j's family:
adding i when absent, removing it when present), ``desc`` (descendant bitsets, one row of uint64
words per variable) and ``tabu[i, j]`` (the move number until which the pair {i, j} is tabu).

A reversal of i -> j changes two families: its delta is ``delta[i, j] + delta[j, i]`` (remove i
from j's family, add j to i's, which did not change).  After a move only the changed families'
columns of ``delta`` are rescored (Chickering 2002's locality of decomposable scores; bnlearn's
``hc`` keeps the same per-variable table of deltas), one counting pass per cell over the rows:
the codes of the current parent set are built once per column, an addition extends them by one
column, a removal rebuilds them without the removed parent.
"""

from __future__ import annotations

import numba
import numpy as np

from .counting import (
    DENSE_CELLS,
    extend_and_count_dense,
    extend_codes,
    family_parts,
    family_stats,
)
from .scores import local_score

#: move kinds returned by :func:`best_move`
ADD, REMOVE, REVERSE = 0, 1, 2


@numba.njit(cache=True)
def parent_list(adj, j):
    """The parents of ``j`` (ascending) as an int64 array."""
    n = adj.shape[0]
    k = 0
    for i in range(n):
        if adj[i, j]:
            k += 1
    out = np.empty(k, dtype=np.int64)
    k = 0
    for i in range(n):
        if adj[i, j]:
            out[k] = i
            k += 1
    return out


@numba.njit(cache=True)
def codes_of(cols, arities, items, skip, limit, mapbuf, a, b):
    """Codes (compressed above ``limit``) of ``items`` without ``items[skip]`` (skip < 0: all),
    built in the scratch rows ``a``/``b``; returns (codes, Q, q) with q the product of arities."""
    N = cols.shape[1]
    for s in range(N):
        a[s] = 0
    Q = 1
    q = 1.0
    src = a
    dst = b
    for t in range(items.shape[0]):
        if t == skip:
            continue
        v = items[t]
        Q = extend_codes(src, Q, cols[v], arities[v], dst, limit, mapbuf)
        q *= arities[v]
        src, dst = dst, src
    return src, Q, q


@numba.njit(cache=True)
def score_codes(codes, Q, q, xcol, rx, kind, ess, cnt, pacnt, lgt, N):
    """Local score of the child column ``xcol`` given parent codes ``codes`` (< Q)."""
    ll, bd, _ = family_stats(codes, xcol, rx, cnt, pacnt, lgt, kind == 3, ess / q, ess / (q * rx))
    return local_score(kind, ll, bd, q, rx, N)


@numba.njit(cache=True)
def score_extended(codes, Q, q, col, r, xcol, rx, kind, ess, cnt, pacnt, lgt, N, limit, mapbuf, tmp):
    """Local score of the family whose parent codes are ``codes`` extended by ``col`` (arity r)."""
    q2 = q * r
    aq = ess / q2
    if Q * r * rx <= DENSE_CELLS:
        ej, epa, fj, fpa, _, _ = extend_and_count_dense(codes, col, r, tmp, xcol, rx, Q * r, cnt, lgt,
                                                       kind == 3, aq, aq / rx)
    else:
        extend_codes(codes, Q, col, r, tmp, limit, mapbuf)
        ej, epa, fj, fpa, _, _ = family_parts(tmp, xcol, rx, cnt, pacnt, lgt, kind == 3, aq, aq / rx)
    return local_score(kind, ej - epa, fj - fpa, q2, rx, N)


@numba.njit(cache=True)
def family_score(cols, arities, j, items, kind, ess, lgt, limit, cnt, pacnt, mapbuf, a, b):
    """Local score of ``j | items``."""
    N = cols.shape[1]
    codes, Q, q = codes_of(cols, arities, items, -1, limit, mapbuf, a, b)
    return score_codes(codes, Q, q, cols[j], arities[j], kind, ess, cnt, pacnt, lgt, N)


@numba.njit(cache=True)
def rescore_column(cols, arities, adj, j, maxp, kind, ess, lgt, limit, cnt, pacnt, mapbuf, a, b, c, fs, delta):
    """``fs[j]`` and every ``delta[i, j]`` from the data (one counting pass per cell).
    Returns the number of families counted."""
    N = cols.shape[1]
    n = adj.shape[0]
    rx = arities[j]
    xcol = cols[j]
    items = parent_list(adj, j)
    base, Q, q = codes_of(cols, arities, items, -1, limit, mapbuf, a, b)
    if base is a:
        keep = a
        s1 = b
    else:
        keep = b
        s1 = a
    fs[j] = score_codes(keep, Q, q, xcol, rx, kind, ess, cnt, pacnt, lgt, N)
    counted = 1
    for i in range(n):
        if i == j:
            delta[i, j] = -np.inf
        elif adj[i, j]:
            continue
        elif items.shape[0] >= maxp:
            delta[i, j] = -np.inf
        else:
            delta[i, j] = score_extended(keep, Q, q, cols[i], arities[i], xcol, rx, kind, ess, cnt, pacnt, lgt,
                                         N, limit, mapbuf, s1) - fs[j]
            counted += 1
    for t in range(items.shape[0]):
        codes, Q2, q2 = codes_of(cols, arities, items, t, limit, mapbuf, s1, c)
        delta[items[t], j] = score_codes(codes, Q2, q2, xcol, rx, kind, ess, cnt, pacnt, lgt, N) - fs[j]
        counted += 1
    return counted


@numba.njit(cache=True)
def update_desc(adj, desc):
    """Descendant bitsets of every variable (Kahn's topological order, then children first)."""
    n = adj.shape[0]
    indeg = np.zeros(n, dtype=np.int64)
    for i in range(n):
        for j in range(n):
            if adj[i, j]:
                indeg[j] += 1
    topo = np.empty(n, dtype=np.int64)
    h = 0
    t = 0
    for v in range(n):
        if indeg[v] == 0:
            topo[t] = v
            t += 1
    while h < t:
        v = topo[h]
        h += 1
        for j in range(n):
            if adj[v, j]:
                indeg[j] -= 1
                if indeg[j] == 0:
                    topo[t] = j
                    t += 1
    W = desc.shape[1]
    for k in range(n - 1, -1, -1):
        v = topo[k]
        for w in range(W):
            desc[v, w] = 0
        for j in range(n):
            if adj[v, j]:
                desc[v, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
                for w in range(W):
                    desc[v, w] |= desc[j, w]
    return t == n


@numba.njit(cache=True, inline="always")
def has_bit(desc, v, u):
    return (desc[v, u >> 6] >> np.uint64(u & 63)) & np.uint64(1) != 0


@numba.njit(cache=True)
def reversal_ok(adj, desc, i, j):
    """Reversing i -> j keeps the graph acyclic: no other path from i to j."""
    n = adj.shape[0]
    for c in range(n):
        if c != j and adj[i, c] and has_bit(desc, c, j):
            return False
    return True


@numba.njit(cache=True)
def best_move(adj, npar, maxp, desc, delta, tabu, it, cur, best_total):
    """The best legal move (kind, i, j, delta); kind -1 when none.  A move on a tabu pair is
    taken only when it beats the best score seen (aspiration)."""
    n = adj.shape[0]
    bk = -1
    bi = -1
    bj = -1
    bd = -np.inf
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            d = delta[i, j]
            if adj[i, j]:
                if d > bd and (tabu[i, j] <= it or cur + d > best_total + 1e-9):
                    bk, bi, bj, bd = REMOVE, i, j, d
                if npar[i] < maxp:
                    d2 = d + delta[j, i]
                    if d2 > bd and (tabu[i, j] <= it or cur + d2 > best_total + 1e-9) and reversal_ok(adj, desc, i, j):
                        bk, bi, bj, bd = REVERSE, i, j, d2
            elif not adj[j, i] and d > bd and npar[j] < maxp and not has_bit(desc, j, i) \
                    and (tabu[i, j] <= it or cur + d > best_total + 1e-9):
                bk, bi, bj, bd = ADD, i, j, d
    return bk, bi, bj, bd


@numba.njit(cache=True)
def record_family(adj, j, score, rec_sets, rec_score, rec_n):
    """Append ``j``'s current family to the record buffer (rows: child, size, parents...);
    returns the new count (unchanged when the buffer is full)."""
    if rec_n >= rec_score.shape[0]:
        return rec_n
    n = adj.shape[0]
    k = 0
    for i in range(n):
        if adj[i, j]:
            if k + 2 >= rec_sets.shape[1]:
                return rec_n
            rec_sets[rec_n, 2 + k] = i
            k += 1
    rec_sets[rec_n, 0] = j
    rec_sets[rec_n, 1] = k
    rec_score[rec_n] = score
    return rec_n + 1


@numba.njit(cache=True)
def climb(cols, arities, adj, npar, maxp, kind, ess, lgt, limit, cnt, pacnt, mapbuf, a, b, c, fs, delta, desc,
          tabu, tenure, state, max_moves, max_idle, rec_sets, rec_score, best_adj):
    """Up to ``max_moves`` moves of hill climbing with a tabu list (Glover 1989; bnlearn's
    ``tabu``): take the best legal non-tabu move even when it loses, stop after ``max_idle``
    moves in a row without a new best (0: plain hill climbing, stop at the first local
    optimum).  The pair a move touched is tabu for ``tenure`` moves.

    ``state`` (float64): [move number, current score, best score, idle moves, families
    counted, records, finished].  ``best_adj`` receives the best DAG seen.
    """
    it = int(state[0])
    cur = state[1]
    best_total = state[2]
    idle = int(state[3])
    rec_n = int(state[5])
    n = adj.shape[0]
    for _ in range(max_moves):
        k, i, j, d = best_move(adj, npar, maxp, desc, delta, tabu, it, cur, best_total)
        if k < 0 or (max_idle == 0 and d <= 1e-9 * (1.0 + abs(cur))):
            state[6] = 1.0
            break
        if k == ADD:
            adj[i, j] = True
            npar[j] += 1
        elif k == REMOVE:
            adj[i, j] = False
            npar[j] -= 1
        else:
            adj[i, j] = False
            npar[j] -= 1
            adj[j, i] = True
            npar[i] += 1
        update_desc(adj, desc)
        tabu[i, j] = it + tenure
        tabu[j, i] = it + tenure
        it += 1
        state[4] += rescore_column(cols, arities, adj, j, maxp, kind, ess, lgt, limit, cnt, pacnt, mapbuf, a, b,
                                   c, fs, delta)
        rec_n = record_family(adj, j, fs[j], rec_sets, rec_score, rec_n)
        if k == REVERSE:
            state[4] += rescore_column(cols, arities, adj, i, maxp, kind, ess, lgt, limit, cnt, pacnt, mapbuf,
                                       a, b, c, fs, delta)
            rec_n = record_family(adj, i, fs[i], rec_sets, rec_score, rec_n)
        cur = 0.0
        for v in range(n):
            cur += fs[v]
        if cur > best_total + 1e-9 * (1.0 + abs(best_total)):
            best_total = cur
            idle = 0
            for u in range(n):
                for v in range(n):
                    best_adj[u, v] = adj[u, v]
        else:
            idle += 1
            if idle >= max_idle:
                state[6] = 1.0
                break
    state[0] = it
    state[1] = cur
    state[2] = best_total
    state[3] = idle
    state[5] = rec_n
    return state


@numba.njit(cache=True)
def order_family_climb(cols, arities, j, allowed, start, maxp, kind, ess, lgt, limit, cnt, pacnt, mapbuf, a, b, c,
                       rec_sets, rec_score, rec_n):
    """Best-improvement local search over ``j``'s parent sets within ``allowed`` (a bool mask:
    the predecessors of j in an ordering): add or remove one parent while the local score
    improves, from ``start`` (parents, a subset of ``allowed``).  Every family moved to is
    recorded.  Returns (best set as a bool mask, its score, families counted, records)."""
    N = cols.shape[1]
    n = cols.shape[0]
    rx = arities[j]
    xcol = cols[j]
    inset = np.zeros(n, dtype=np.bool_)
    for t in range(start.shape[0]):
        inset[start[t]] = True
    counted = 0
    cur = -np.inf
    while True:
        k = 0
        for v in range(n):
            if inset[v]:
                k += 1
        items = np.empty(k, dtype=np.int64)
        k = 0
        for v in range(n):
            if inset[v]:
                items[k] = v
                k += 1
        base, Q, q = codes_of(cols, arities, items, -1, limit, mapbuf, a, b)
        if base is a:
            keep = a
            s1 = b
        else:
            keep = b
            s1 = a
        if cur == -np.inf:
            cur = score_codes(keep, Q, q, xcol, rx, kind, ess, cnt, pacnt, lgt, N)
            counted += 1
        best = cur
        bv = -1
        if items.shape[0] < maxp:
            for v in range(n):
                if allowed[v] and not inset[v] and v != j:
                    sc = score_extended(keep, Q, q, cols[v], arities[v], xcol, rx, kind, ess, cnt, pacnt, lgt, N,
                                        limit, mapbuf, s1)
                    counted += 1
                    if sc > best + 1e-9 * (1.0 + abs(best)):
                        best = sc
                        bv = v
        for t in range(items.shape[0]):
            codes, Q2, q2 = codes_of(cols, arities, items, t, limit, mapbuf, s1, c)
            sc = score_codes(codes, Q2, q2, xcol, rx, kind, ess, cnt, pacnt, lgt, N)
            counted += 1
            if sc > best + 1e-9 * (1.0 + abs(best)):
                best = sc
                bv = items[t]
        if bv < 0:
            return inset, cur, counted, rec_n
        inset[bv] = not inset[bv]
        cur = best
        if rec_n < rec_score.shape[0] and items.shape[0] + 1 + 2 <= rec_sets.shape[1]:
            kk = 0
            for v in range(n):
                if inset[v] and kk + 2 < rec_sets.shape[1]:
                    rec_sets[rec_n, 2 + kk] = v
                    kk += 1
            rec_sets[rec_n, 0] = j
            rec_sets[rec_n, 1] = kk
            rec_score[rec_n] = cur
            rec_n += 1
