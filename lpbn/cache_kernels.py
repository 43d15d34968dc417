"""numba kernels of :class:`lpbn.cache.ScoreCache` over its CSR arrays (parent sets as
``pset_ptr``/``pset_items``, families as ``offsets``, candidates best first).

Kept apart from :mod:`lpbn.cache` so that reading and pruning a small cache, and the numpy
paths of small solves, never import numba (about a third of a second of every process).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def lower_bound(a, lo, hi, x):
    """The first index k in [lo, hi) with a[k] >= x in the sorted ``a`` (hi if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(cache=True)
def find_candidates(offsets, ptr, items, tptr, titems):
    n = offsets.shape[0] - 1
    out = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        k = tptr[i + 1] - tptr[i]
        for j in range(offsets[i], offsets[i + 1]):
            if ptr[j + 1] - ptr[j] != k:
                continue
            same = True
            for a in range(k):
                if items[ptr[j] + a] != titems[tptr[i] + a]:
                    same = False
                    break
            if same:
                out[i] = j
                break
    return out


@numba.njit(cache=True)
def gather_csr(ptr, items, order, new_ptr):
    out = np.empty(new_ptr[-1], dtype=np.int32)
    for k in range(order.shape[0]):
        j = order[k]
        a = ptr[j]
        b = new_ptr[k]
        for t in range(ptr[j + 1] - a):
            out[b + t] = items[a + t]
    return out


@numba.njit(cache=True)
def check_sets(offsets, ptr, items):
    """(0,0,0) if fine; (1, i, v) self-parent; (2, i, v) repeated parent."""
    n = offsets.shape[0] - 1
    for i in range(n):
        for j in range(offsets[i], offsets[i + 1]):
            for a in range(ptr[j], ptr[j + 1]):
                if items[a] == i:
                    return (1, i, i)
                for b in range(ptr[j], a):
                    if items[b] == items[a]:
                        return (2, i, items[a])
    return (0, 0, 0)


@numba.njit(cache=True)
def inverse_index(n, pset_ptr, pset_items):
    """CSR (ptr, candidates): for each variable v, the candidates whose parent set contains v."""
    m = pset_ptr.shape[0] - 1
    cnt = np.zeros(n + 1, dtype=np.int64)
    for k in range(pset_items.shape[0]):
        cnt[pset_items[k] + 1] += 1
    for v in range(n):
        cnt[v + 1] += cnt[v]
    inv = np.empty(pset_items.shape[0], dtype=np.int64)
    fill = cnt[:-1].copy()
    for j in range(m):
        for a in range(pset_ptr[j], pset_ptr[j + 1]):
            v = pset_items[a]
            inv[fill[v]] = j
            fill[v] += 1
    return cnt, inv


@numba.njit(cache=True)
def greedy_order(n, offsets, ptr, items):
    """Places variables greedily; returns which variables could be placed."""
    m = ptr.shape[0] - 1
    missing = np.empty(m, dtype=np.int64)
    for j in range(m):
        missing[j] = ptr[j + 1] - ptr[j]
    cnt, inv = inverse_index(n, ptr, items)
    fam = np.empty(m, dtype=np.int64)
    for i in range(n):
        for j in range(offsets[i], offsets[i + 1]):
            fam[j] = i
    placed = np.zeros(n, dtype=np.bool_)
    queued = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    top = 0
    for j in range(m):
        if missing[j] == 0 and not queued[fam[j]]:
            queued[fam[j]] = True
            stack[top] = fam[j]
            top += 1
    while top > 0:
        top -= 1
        v = stack[top]
        placed[v] = True
        for k in range(cnt[v], cnt[v + 1]):
            j = inv[k]
            missing[j] -= 1
            if missing[j] == 0 and not queued[fam[j]]:
                queued[fam[j]] = True
                stack[top] = fam[j]
                top += 1
    return placed


@numba.njit(cache=True)
def best_within(bits, start, stop, allowed):
    for j in range(start, stop):
        ok = True
        for w in range(bits.shape[1]):
            if bits[j, w] & ~allowed[w]:
                ok = False
                break
        if ok:
            return j
    return -1


@numba.njit(cache=True)
def best_for_order_csr(offsets, pset_ptr, pset_items, order):
    """Best-first scan per variable for the first candidate whose parents all precede it in
    ``order`` (CSR sets, positions instead of bitsets); -1 where none does."""
    n = order.shape[0]
    pos = np.empty(n, dtype=np.int64)
    for k in range(n):
        pos[order[k]] = k
    choice = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        for j in range(offsets[i], offsets[i + 1]):
            ok = True
            for a in range(pset_ptr[j], pset_ptr[j + 1]):
                if pos[pset_items[a]] > pos[i]:
                    ok = False
                    break
            if ok:
                choice[i] = j
                break
    return choice


@numba.njit(cache=True)
def dominance_keep_csr(offsets, ptr, items, scores, n):
    """:func:`dominance_keep` with subset tests on CSR sets (a stamp array per candidate)."""
    m = ptr.shape[0] - 1
    keep = np.ones(m, dtype=np.bool_)
    kept = np.empty(m, dtype=np.int64)
    stamp = np.full(n, -1, dtype=np.int64)
    for i in range(offsets.shape[0] - 1):
        nk = 0
        for j in range(offsets[i], offsets[i + 1]):
            for a in range(ptr[j], ptr[j + 1]):
                stamp[items[a]] = j
            size_j = ptr[j + 1] - ptr[j]
            dominated = False
            for t in range(nk):
                k = kept[t]
                if scores[k] < scores[j] or ptr[k + 1] - ptr[k] >= size_j:
                    continue
                sub = True
                for a in range(ptr[k], ptr[k + 1]):
                    if stamp[items[a]] != j:
                        sub = False
                        break
                if sub:
                    dominated = True
                    break
            if dominated:
                keep[j] = False
            else:
                kept[nk] = j
                nk += 1
    return keep


@numba.njit(cache=True)
def dominance_keep(bits, offsets, scores):
    """Candidates are best first (ties: smaller first); keep j unless a kept subset scores >= j."""
    m = bits.shape[0]
    W = bits.shape[1]
    keep = np.ones(m, dtype=np.bool_)
    kept = np.empty(m, dtype=np.int64)
    for i in range(offsets.shape[0] - 1):
        nk = 0
        for j in range(offsets[i], offsets[i + 1]):
            dominated = False
            for t in range(nk):
                k = kept[t]
                if scores[k] < scores[j]:
                    continue
                sub = True
                for w in range(W):
                    if bits[k, w] & ~bits[j, w]:
                        sub = False
                        break
                if sub:
                    dominated = True
                    break
            if dominated:
                keep[j] = False
            else:
                kept[nk] = j
                nk += 1
    return keep
