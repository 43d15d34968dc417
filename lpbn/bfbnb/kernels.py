"""Numba kernels of the frontier BFBnB search over the order graph (Malone et al. 2011).

Sets of variables are single uint64 words (``n <= 64``).  Scores follow lpbn's convention
(log-scores, higher is better); the paper's MDL costs are their negatives, so its
``f = g + h`` lower bound on cost becomes an *upper* bound on score here, and "prune
f > upper" becomes "prune f <= incumbent".

BestScore(X, U) -- the paper's parent graphs (§5.2) -- is answered from the pruned score
cache directly: candidates of X are stored best first, so the first candidate whose
parent mask is a subset of U is BestScore(X, U).  It is only ever computed for order-graph
nodes U that survived pruning, which is exactly the paper's ``isPresent`` restriction of
the parent graphs (§5.1), without materialising any n·2^(n-1) table.

The next layer's open list is an open-addressing hash table (linear probing, key 0 = empty;
layer >= 1 never contains the empty set), the "hash table to detect as many duplicates in
RAM as possible" of §5.4.
"""

from __future__ import annotations

import numba
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, inline="always")
def _slot(key, shift):
    return np.int64((key * _GOLDEN) >> shift)


@numba.njit(cache=True, inline="always")
def best_within(masks, start, stop, notu):
    """BestScore(X, U): first (best) candidate in ``start:stop`` whose mask avoids ``notu``."""
    for j in range(start, stop):
        if masks[j] & notu == 0:
            return j
    return -1


@numba.njit(cache=True, inline="always")
def group_values(u, full, group_lo, group_mask, table_off, tables, hv):
    """Fill ``hv[i]`` = T_i((V∖U) ∩ G_i) (see :mod:`lpbn.bfbnb.heuristic`)."""
    r = full & ~u
    for i in range(group_lo.shape[0]):
        hv[i] = tables[table_off[i] + np.int64((r >> np.uint64(group_lo[i])) & group_mask[i])]


@numba.njit(cache=True)
def expand_chunk(keys_in, g_in, start, stop, n, layer, masks, starts, stops, scores,
                 group_lo, group_mask, table_off, tables, group_of, threshold,
                 tab_keys, tab_g, tab_cand, shift, max_count, state, fstate):
    """Expand order-graph nodes ``start:stop`` into the hash table (Algorithm 1, EXPANDORDERGRAPH).

    For every node U and every X ∉ U the successor S = U ∪ {X} gets
    g = g(U) + BestScore(X, U) and f = g + h(S); it is pruned when f <= ``threshold``
    (incumbent score + tolerance, §5.1), otherwise kept with the best g per S (duplicate
    detection, §5.4).  h is the pattern-database heuristic of :mod:`lpbn.bfbnb.heuristic`
    (eq. 3 with singleton groups).  Stops early, before a node whose successors might
    not fit, when the table holds ``max_count`` entries; returns the next unexpanded index.

    ``state`` (int64): [count, generated, pruned, infeasible]; ``fstate`` (float64):
    [max f of kept successors, max f of pruned successors].
    """
    tmask = tab_keys.shape[0] - 1
    count = state[0]
    free = n - layer
    one = np.uint64(1)
    full = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - n)
    p = group_lo.shape[0]
    hv = np.empty(p)
    others = np.empty(p)
    for idx in range(start, stop):
        if count + free > max_count:
            state[0] = count
            return idx
        u = keys_in[idx]
        gu = g_in[idx]
        group_values(u, full, group_lo, group_mask, table_off, tables, hv)
        for i in range(p):
            o = 0.0
            for k in range(p):
                if k != i:
                    o += hv[k]
            others[i] = o
        notu = ~u
        r = full & notu
        for x in range(n):
            low = one << np.uint64(x)
            if u & low:
                continue
            j = best_within(masks, starts[x], stops[x], notu)
            state[1] += 1
            if j < 0:
                state[3] += 1
                continue
            gi = group_of[x]
            rs = (r ^ low) >> np.uint64(group_lo[gi])
            hs = others[gi] + tables[table_off[gi] + np.int64(rs & group_mask[gi])]
            gs = gu + scores[j]
            f = gs + hs
            if f <= threshold:
                state[2] += 1
                if f > fstate[1]:
                    fstate[1] = f
                continue
            s = u | low
            h = _slot(s, shift)
            while True:
                k = tab_keys[h]
                if k == 0:
                    tab_keys[h] = s
                    tab_g[h] = gs
                    tab_cand[h] = j
                    count += 1
                    break
                if k == s:
                    if gs > tab_g[h]:
                        tab_g[h] = gs
                        tab_cand[h] = j
                    break
                h = (h + 1) & tmask
            if f > fstate[0]:
                fstate[0] = f
    state[0] = count
    return stop


@numba.njit(cache=True)
def rehash(old_keys, old_g, old_cand, new_keys, new_g, new_cand, shift):
    """Move every entry of a table into a larger empty one."""
    tmask = new_keys.shape[0] - 1
    for i in range(old_keys.shape[0]):
        k = old_keys[i]
        if k == 0:
            continue
        h = _slot(k, shift)
        while new_keys[h] != 0:
            h = (h + 1) & tmask
        new_keys[h] = k
        new_g[h] = old_g[i]
        new_cand[h] = old_cand[i]


@numba.njit(cache=True)
def compact(tab_keys, tab_g, tab_cand):
    """Move the occupied entries to the front of the table arrays (in place); return count."""
    c = 0
    for i in range(tab_keys.shape[0]):
        k = tab_keys[i]
        if k != 0:
            tab_keys[c] = k
            tab_g[c] = tab_g[i]
            tab_cand[c] = tab_cand[i]
            c += 1
    return c


@numba.njit(cache=True)
def dedupe_sorted(keys, g, cand):
    """Keep the best-g record of each key in a key-sorted batch (in place); return count."""
    m = keys.shape[0]
    if m == 0:
        return 0
    c = 0
    for i in range(1, m):
        if keys[i] == keys[c]:
            if g[i] > g[c]:
                g[c] = g[i]
                cand[c] = cand[i]
        else:
            c += 1
            keys[c] = keys[i]
            g[c] = g[i]
            cand[c] = cand[i]
    return c + 1
