"""Shared machinery of the budgeted exploration strategies (numba, arrays only).

A run explores the parent sets of one child variable X.  Every evaluated set is a row of
the **closed list**, stored as a chain: row ``j`` is the set of row ``base[j]`` plus the
variable ``add[j]`` (row 0 is the empty set), so a set costs a few words whatever its size.
Per row: ``score`` (the requested local score, nats), ``ll`` (log-likelihood, natural log),
``q`` (number of parent configurations), ``ref`` (best score of a known proper subset),
``nz`` (non-empty cells of its joint table, for the BDeu bound), ``size`` and a 64-bit
Zobrist ``hash`` (XOR of one random word per variable, so ``hash(S + y) = hash(S) ^ z[y]``).

The **seen table** (open addressing on the hashes) tells whether a set was pushed or
evaluated and maps evaluated sets to their row; the **open heap** is a binary max-heap of
``(key, base row, added variable)``.  A hash collision can only make the exploration skip a
set; every kept set's score is still exact.

Counting (:func:`count_extension`) extends the parent-configuration codes of the base set by
one column and counts the family in one pass over the rows (the kernels of
:mod:`lpbn.scoring.counting`); the codes of recently used base sets are kept in a few slots,
so the many children of one base cost one pass each.
"""

from __future__ import annotations

import numba
import numpy as np

from ..counting import (DENSE_CELLS, extend_and_count, extend_and_count_dense, extend_codes,
                        family_parts)
from ..scores import BDEU, local_score

# columns of the float and int row arrays of the closed list
F_SCORE, F_LL, F_Q, F_REF = 0, 1, 2, 3
I_BASE, I_ADD, I_SIZE, I_NZ = 0, 1, 2, 3
# counters in the state array
S_CLOSED, S_HEAP, S_TABLE, S_EVALS, S_PUSHES, S_DROPPED, S_BOUND_CUTS, S_CODE_HITS = range(8)
N_STATE = 8
EMPTY_KEY = np.uint64(0)


def zobrist(n: int, seed: int = 20150917) -> np.ndarray:
    """One random non-zero 64-bit word per variable (deterministic)."""
    rng = np.random.default_rng(seed)
    z = rng.integers(1, np.iinfo(np.int64).max, size=n, dtype=np.int64).astype(np.uint64)
    return z * np.uint64(2) + np.uint64(1)   # odd, so never zero


class Frontier:
    """The arrays of one variable's exploration (see the module docstring); they grow as needed."""

    def __init__(self, N: int, heap_cap: int, closed_cap: int = 1024, table_cap: int = 4096,
                 code_slots: int = 8):
        self.cf = np.zeros((closed_cap, 4))
        self.ci = np.zeros((closed_cap, 4), dtype=np.int64)
        self.ch = np.zeros(closed_cap, dtype=np.uint64)
        self.tk = np.zeros(table_cap, dtype=np.uint64)
        self.tv = np.zeros(table_cap, dtype=np.int64)
        # the heap reads only its first st[S_HEAP] entries: uninitialised pages are never touched
        # beyond what it holds (zeroing 24 MB per variable cost ~1 ms and most of the page faults)
        self.hk = np.empty(heap_cap)
        self.hb = np.empty(heap_cap, dtype=np.int64)
        self.ha = np.empty(heap_cap, dtype=np.int64)
        self.st = np.zeros(N_STATE, dtype=np.int64)
        self.threshold = np.full(1, -np.inf)
        self.slot_owner = np.full(code_slots, -1, dtype=np.int64)
        self.slot_codes = np.zeros((code_slots, N), dtype=np.int64)
        self.slot_q = np.zeros(code_slots, dtype=np.int64)

    def arrays(self):
        return (self.cf, self.ci, self.ch, self.tk, self.tv)

    def set_arrays(self, arrays) -> None:
        self.cf, self.ci, self.ch, self.tk, self.tv = arrays


# ---------------------------------------------------------------------- seen table
@numba.njit(cache=True, inline="always")
def _slot(tk, h):
    mask = tk.shape[0] - 1
    i = np.int64((h ^ (h >> np.uint64(29))) & np.uint64(mask))
    while True:
        k = tk[i]
        if k == h or k == EMPTY_KEY:
            return i
        i = (i + 1) & mask


@numba.njit(cache=True)
def table_get(tk, tv, h):
    """Row of the evaluated set with hash ``h``; -1 if only pushed; -2 if never seen."""
    i = _slot(tk, h)
    return tv[i] if tk[i] == h else -2


@numba.njit(cache=True)
def table_put(tk, tv, st, h, v):
    """Record ``h -> v`` (callers grow the table first, see :func:`table_grow`)."""
    i = _slot(tk, h)
    if tk[i] != h:
        tk[i] = h
        st[S_TABLE] += 1
    tv[i] = v


@numba.njit(cache=True)
def table_grow(tk, tv, st):
    """The table at twice the size when more than half full (else the same arrays)."""
    if 2 * (st[S_TABLE] + 1) <= tk.shape[0]:
        return tk, tv
    nk = np.zeros(2 * tk.shape[0], dtype=np.uint64)
    nv = np.zeros(2 * tk.shape[0], dtype=np.int64)
    for i in range(tk.shape[0]):
        if tk[i] != EMPTY_KEY:
            j = _slot(nk, tk[i])
            nk[j] = tk[i]
            nv[j] = tv[i]
    return nk, nv


# ---------------------------------------------------------------------- closed list
@numba.njit(cache=True)
def closed_grow(cf, ci, ch, st):
    """The closed list with room for one more row."""
    if st[S_CLOSED] < cf.shape[0]:
        return cf, ci, ch
    m = 2 * cf.shape[0]
    cf2 = np.zeros((m, cf.shape[1]))
    ci2 = np.zeros((m, ci.shape[1]), dtype=np.int64)
    ch2 = np.zeros(m, dtype=np.uint64)
    for i in range(cf.shape[0]):    # loops, not slice copies: no broadcasting code to compile
        for t in range(cf.shape[1]):
            cf2[i, t] = cf[i, t]
        for t in range(ci.shape[1]):
            ci2[i, t] = ci[i, t]
        ch2[i] = ch[i]
    return cf2, ci2, ch2


@numba.njit(cache=True)
def closed_add(cf, ci, ch, st, base, add, size, h, score, ll, q, nz, ref):
    j = st[S_CLOSED]
    cf[j, F_SCORE] = score
    cf[j, F_LL] = ll
    cf[j, F_Q] = q
    cf[j, F_REF] = ref
    ci[j, I_BASE] = base
    ci[j, I_ADD] = add
    ci[j, I_SIZE] = size
    ci[j, I_NZ] = nz
    ch[j] = h
    st[S_CLOSED] = j + 1
    return j


@numba.njit(cache=True)
def items_of(ci, j, out):
    """Variables of row ``j`` into ``out`` (most recently added first); returns the count."""
    k = 0
    while j > 0:
        out[k] = ci[j, I_ADD]
        k += 1
        j = ci[j, I_BASE]
    return k


@numba.njit(cache=True)
def best_known_subset(cf, ch, tk, tv, h, items, k, z):
    """Best score (or ref) over the evaluated sets ``S - {v}`` of the set with hash ``h``."""
    ref = -np.inf
    for t in range(k):
        r = table_get(tk, tv, h ^ z[items[t]])
        if r >= 0:
            v = max(cf[r, F_SCORE], cf[r, F_REF])
            if v > ref:
                ref = v
    return ref


# ---------------------------------------------------------------------- open heap (max)
@numba.njit(cache=True)
def heap_push(hk, hb, ha, st, key, base, add):
    i = st[S_HEAP]
    st[S_HEAP] = i + 1
    st[S_PUSHES] += 1
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] >= key:
            break
        hk[i] = hk[p]
        hb[i] = hb[p]
        ha[i] = ha[p]
        i = p
    hk[i] = key
    hb[i] = base
    ha[i] = add


@numba.njit(cache=True)
def heap_pop(hk, hb, ha, st):
    """Remove the top entry; returns (key, base, add)."""
    key, base, add = hk[0], hb[0], ha[0]
    n = st[S_HEAP] - 1
    st[S_HEAP] = n
    if n > 0:
        lk, lb, la = hk[n], hb[n], ha[n]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and hk[c + 1] > hk[c]:
                c += 1
            if hk[c] <= lk:
                break
            hk[i] = hk[c]
            hb[i] = hb[c]
            ha[i] = ha[c]
            i = c
        hk[i] = lk
        hb[i] = lb
        ha[i] = la
    return key, base, add


@numba.njit(cache=True)
def heap_halve(hk, hb, ha, st, threshold):
    """Keep the better half of a full heap; later pushes below the best dropped key are
    refused (``threshold[0]``).  Dropped sets stay 'seen', so they are not pushed again."""
    n = st[S_HEAP]
    order = np.argsort(-hk[:n], kind="mergesort")
    keep = n // 2
    threshold[0] = max(threshold[0], hk[order[keep]])
    k2 = hk[order[:keep]].copy()
    b2 = hb[order[:keep]].copy()
    a2 = ha[order[:keep]].copy()
    st[S_HEAP] = 0
    st[S_DROPPED] += n - keep
    for t in range(keep):   # sorted descending: already a valid max-heap
        hk[t] = k2[t]
        hb[t] = b2[t]
        ha[t] = a2[t]
    st[S_HEAP] = keep


# ---------------------------------------------------------------------- counting
@numba.njit(cache=True)
def codes_of(ci, cols, arities, j, slot_owner, slot_codes, slot_q, qlimit, mapbuf, items, scratch, st):
    """Slot holding the parent-configuration codes of row ``j`` (computed unless cached)."""
    K = slot_owner.shape[0]
    for s in range(K):
        if slot_owner[s] == j:
            st[S_CODE_HITS] += 1
            return s
    s = j % K
    k = items_of(ci, j, items)
    dst = slot_codes[s]
    dst.fill(0)
    Q = 1
    for t in range(k):
        v = items[t]
        Q = extend_codes(dst, Q, cols[v], arities[v], scratch, qlimit, mapbuf)
        for r in range(dst.shape[0]):
            dst[r] = scratch[r]
    slot_owner[s] = j
    slot_q[s] = Q
    return s


@numba.njit(cache=True)
def count_extension(src, Q, col, r, xcol, rx, dst, cnt, pacnt, touched, tpa, lgt, qlimit, mapbuf,
                    kind, ess, q_new):
    """Counts of ``X | S + y`` from the codes ``src`` of S: (ll, bdeu, non-empty cells)."""
    want_bdeu = kind == BDEU
    aq = ess / q_new
    if Q * r * rx <= DENSE_CELLS:
        ej, epa, fj, fpa, npa, nz = extend_and_count_dense(src, col, r, dst, xcol, rx, Q * r, cnt, lgt,
                                                         want_bdeu, aq, aq / rx)
    elif Q * r <= qlimit:
        ej, epa, fj, fpa, npa, nz = extend_and_count(src, col, r, dst, xcol, rx, cnt, pacnt, touched, tpa,
                                                   lgt, want_bdeu, aq, aq / rx)
    else:
        extend_codes(src, Q, col, r, dst, qlimit, mapbuf)
        ej, epa, fj, fpa, npa, nz = family_parts(dst, xcol, rx, cnt, pacnt, lgt, want_bdeu, aq, aq / rx)
    return ej - epa, fj - fpa, nz


@numba.njit(cache=True)
def evaluate(cf, ci, cols, arities, x, base, y, kind, ess, lgt, qlimit, cnt, pacnt, mapbuf,
             slot_owner, slot_codes, slot_q, items, scratch, dst, touched, tpa, st):
    """Exact (score, ll, nz) of X with the parents of row ``base`` plus ``y``."""
    s = codes_of(ci, cols, arities, base, slot_owner, slot_codes, slot_q, qlimit, mapbuf, items, scratch, st)
    q_new = cf[base, F_Q] * arities[y]
    ll, bd, nz = count_extension(slot_codes[s], slot_q[s], cols[y], arities[y], cols[x], arities[x], dst,
                                 cnt, pacnt, touched, tpa, lgt, qlimit, mapbuf, kind, ess, q_new)
    st[S_EVALS] += 1
    N = cols.shape[1]
    return local_score(kind, ll, bd, q_new, arities[x], N), ll, nz


# ---------------------------------------------------------------------- start and finish
H_EMPTY = np.uint64(0x9E3779B97F4A7C15)   # hash of the empty set (non-zero)


@numba.njit(cache=True)
def add_start_rows(cf, ci, ch, tk, tv, st, z, score0, ll0, nz0, singles, s_score, s_ll, s_nz, s_arity):
    """Row 0 = the empty set, then one row per single parent in ``singles`` (with its exact
    statistics from :func:`lpbn.scoring.bitplanes.single_parent_stats`).  Returns the arrays
    and ``row_of`` (row of each single parent, by position in ``singles``)."""
    closed_add(cf, ci, ch, st, 0, -1, 0, H_EMPTY, score0, ll0, 1.0, nz0, -np.inf)
    tk, tv = table_grow(tk, tv, st)
    table_put(tk, tv, st, H_EMPTY, 0)
    row_of = np.empty(singles.shape[0], dtype=np.int64)
    for k in range(singles.shape[0]):
        y = singles[k]
        cf, ci, ch = closed_grow(cf, ci, ch, st)
        h = H_EMPTY ^ z[y]
        row_of[k] = closed_add(cf, ci, ch, st, 0, y, 1, h, s_score[k], s_ll[k], float(s_arity[k]), s_nz[k],
                               score0)
        tk, tv = table_grow(tk, tv, st)
        table_put(tk, tv, st, h, row_of[k])
    return cf, ci, ch, tk, tv, row_of


@numba.njit(cache=True)
def final_refs(cf, ci, ch, tk, tv, st, z, max_size):
    """Recompute every row's ``ref`` (best score of an evaluated proper subset reachable
    through evaluated immediate subsets), smallest sets first, now that the run is over:
    a subset evaluated after its superset is taken into account too."""
    m = st[S_CLOSED]
    order = np.argsort(ci[:m, I_SIZE], kind="mergesort")
    items = np.empty(max_size + 1, dtype=np.int64)
    for t in range(m):
        j = order[t]
        if j == 0:
            continue
        k = items_of(ci, j, items)
        cf[j, F_REF] = best_known_subset(cf, ch, tk, tv, ch[j], items, k, z)


@numba.njit(cache=True)
def select_rows(cf, ci, st, cap, tol):
    """Rows strictly better than every known proper subset (always row 0, the empty set), at
    most ``cap``, best first.  Over the cap, the sizes share it: the best of each size, then
    the second best of each size, and so on — keeping only the best overall would fill the cache
    with supersets of the strongest parents, while a DAG that cannot use them needs the
    smaller sets without them."""
    m = st[S_CLOSED]
    keep = np.zeros(m, dtype=np.bool_)
    keep[0] = True
    for j in range(1, m):
        sc = cf[j, F_SCORE]
        keep[j] = sc > cf[j, F_REF] + tol * (1.0 + abs(sc))
    idx = np.flatnonzero(keep)
    order = np.argsort(-cf[idx, F_SCORE], kind="mergesort")
    idx = idx[order]
    if idx.shape[0] <= cap:
        return idx
    sizes = ci[idx, I_SIZE]
    top = sizes.max()
    rank = np.zeros(top + 1, dtype=np.int64)
    within = np.empty(idx.shape[0], dtype=np.int64)
    for t in range(idx.shape[0]):   # rank of each row within its size (best first)
        within[t] = rank[sizes[t]]
        rank[sizes[t]] += 1
    # rank 0 of every size first, then rank 1, ...; within a rank by score (a stable sort)
    by_rank = np.argsort(within, kind="mergesort")
    take = np.zeros(idx.shape[0], dtype=np.bool_)
    taken = 0
    for t in range(idx.shape[0]):
        if idx[t] == 0:
            take[t] = True
            taken += 1
    for t in by_rank:
        if taken >= cap:
            break
        if not take[t]:
            take[t] = True
            taken += 1
    return idx[take]


@numba.njit(cache=True)
def rows_to_sets(ci, cf, rows, width):
    """Padded sets (rows x width, -1 padded, sorted), sizes and scores of ``rows``."""
    M = rows.shape[0]
    sets = np.full((M, max(width, 1)), -1, dtype=np.int64)
    sizes = np.zeros(M, dtype=np.int64)
    scores = np.zeros(M)
    items = np.empty(max(width, 1), dtype=np.int64)
    for t in range(M):
        j = rows[t]
        k = items_of(ci, j, items)
        srt = np.sort(items[:k])
        for a in range(k):
            sets[t, a] = srt[a]
        sizes[t] = k
        scores[t] = cf[j, F_SCORE]
    return sets, sizes, scores
