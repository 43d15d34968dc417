"""Pricing by co-occurrence counts: the exact maximum of the reduced score over every parent set
of at most 4 parents of binary data, by enumeration (:func:`lpbn.pricing.price`'s fast path).

**Why.**  The branch and bound of :mod:`lpbn.pricing_kernels` cuts almost nothing at K = 4
on 100 variables (its bound ``LL(x | S ∪ W)`` is near the maximum whenever W is large), so a
pass is an enumeration of every family, each counted over the rows.  For binary data the
counting itself can be shared.

**Counts.**  Give every variable an *indicator* state, its less frequent one (the log
likelihood and BDeu do not depend on how a variable's states are labelled, so the scores are
unchanged).  For a set U let ``N(U)`` be the number of rows where every variable of U is in its
indicator state (``N(∅)`` = N).  The contingency table of a family (x, T) follows from the
``N(U)``, U ⊆ T ∪ {x}, by Möbius inversion over the subsets of T (inclusion–exclusion): the
rows whose parents are in their indicator states exactly on A ⊆ T number

    n(A) = Σ_{A ⊆ B ⊆ T} (-1)^{|B∖A|} N(B),      n(A, x = ind) = the same with N(B ∪ {x}),

and ``n(A, x = other) = n(A) - n(A, x = ind)``.  So every family of at most 4 parents needs
co-occurrence counts of at most 5 variables.  Those of at most 4 are tabulated once per data
set (``t3[(a, b), x] = N({a, b, x})``, ``t4[(a, b, c), x] = N({a, b, c, x})``, rows in the
combinatorial number system, columns x, so the innermost loop reads them contiguously).  The
sets U are enumerated once each, as ``a < b < c < d < e``; the 5-counts N({a, b, c, d, e}) of a
triple (a, b, c) come from its rows (those where a, b and c are in their indicator states),
each adding one for every pair d < e of its indicator variables above c.  Indicators are the
rarer states, so these rows are few.  The Möbius inversion of U's subset counts is U's joint
table, shared by its |U| families (x ∈ U, parents U∖{x}); a family's parent configurations are
the joint table's marginal without x.

The scores are those of :func:`lpbn.scoring.counting.family_stats` to the last bit: the same
fixed-point sums of ``lgt`` over the same non-empty cells.  The reduced score and the proof
are :mod:`lpbn.pricing`'s: every family is enumerated, so the per-variable maximum is exact.
Parallel over the pairs (a, b) that start the sets U (numba threads, per-thread buffers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from .scoring.counting import e_unit, f_scale, fixed, lg_table
from .scoring.scores import LN2, MDL, local_score

#: the largest parent limit of the enumeration (5-counts are the most it forms)
MAX_K = 4
#: the pair bounds on the cluster bonus take n³ floats: up to 160 variables (33 MB)
PAIR_BONUS_MAX_N = 160
#: the count tables may take up to 1 GiB (K = 4: about 200 variables); beyond, the branch and
#: bound of lpbn.pricing_kernels prices
MAX_TABLE_BYTES = 1 << 30


def table_bytes(n: int, K: int) -> int:
    """Bytes of the count tables t3 (K >= 2) and t4 (K >= 3) for ``n`` variables."""
    return 4 * n * ((math.comb(n, 2) if K >= 2 else 0) + (math.comb(n, 3) if K >= 3 else 0))


def applicable(ds, K: int) -> bool:
    """Binary data (every arity <= 2), 1 <= K <= :data:`MAX_K` and count tables within
    :data:`MAX_TABLE_BYTES`."""
    ar = np.asarray(ds.arities)
    return (1 <= int(K) <= MAX_K and ds.n >= 2 and ar.size > 0 and int(ar.max()) <= 2
            and table_bytes(ds.n, int(K)) <= MAX_TABLE_BYTES)


@dataclass
class Itemsets:
    """Indicator rows and co-occurrence tables of one binary data set (module docstring)."""

    n: int
    N: int
    K: int
    ind: np.ndarray        # (n, N) uint8: row in the variable's indicator state
    vptr: np.ndarray       # CSR: rows of each variable's indicator
    vrows: np.ndarray
    rptr: np.ndarray       # CSR: indicator variables of each row
    rvars: np.ndarray
    binom: np.ndarray      # binom[v, i] = C(v, i), i <= 4
    c1: np.ndarray         # (n,) N({v})
    c2: np.ndarray         # (n, n) N({a, b})
    t3: np.ndarray         # (C(n, 2), n) N({a, b, x}); row rank2(a, b)
    t4: np.ndarray         # (C(n, 3), n) N({a, b, c, x}); row rank3(a, b, c); (0, n) when K < 3
    arities: np.ndarray
    pa: np.ndarray         # the pairs a < b, the units of the parallel loops
    pb: np.ndarray


def prepare(ds, K: int) -> Itemsets:
    """Tabulate the co-occurrence counts of at most ``min(K, 3) + 1`` variables."""
    cols = np.asarray(ds.columns)
    n, N = cols.shape
    ar = np.asarray(ds.arities, dtype=np.int64)
    ones = (cols == 1).sum(axis=1)
    flip = ones * 2 > N                    # the indicator is the rarer state
    ind = np.where(flip[:, None], cols == 0, cols == 1) & (ar[:, None] == 2)
    ind8 = np.ascontiguousarray(ind, dtype=np.uint8)
    c1 = ind.sum(axis=1).astype(np.int64)                # N({v})
    vptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(c1, out=vptr[1:])
    vrows = np.nonzero(ind)[1].astype(np.int32)          # row-major over (variable, row)
    rptr = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(ind.sum(axis=0), out=rptr[1:])
    rvars = np.nonzero(ind.T)[1].astype(np.int32)
    binom = np.zeros((n + 1, 5), dtype=np.int64)
    for v in range(n + 1):
        for i in range(5):
            binom[v, i] = math.comb(v, i)
    iu = np.triu_indices(n, 1)
    pa, pb = iu[0].astype(np.int64), iu[1].astype(np.int64)
    f = ind.astype(np.float64)
    c2 = np.rint(f @ f.T).astype(np.int32)                # exact: integer sums below 2^53
    t3 = np.zeros((int(binom[n, 2]), n), dtype=np.int32) if K >= 2 else np.zeros((0, n), np.int32)
    t4 = np.zeros((int(binom[n, 3]), n), dtype=np.int32) if K >= 3 else np.zeros((0, n), np.int32)
    if K >= 2:
        _tables(pa, pb, K, ind8, vptr, vrows, rptr, rvars, binom, t3, t4)
    return Itemsets(n, N, int(K), ind8, vptr, vrows, rptr, rvars, binom, c1, c2, t3, t4, ar, pa, pb)


@numba.njit(cache=True, parallel=True)
def _tables(pa, pb, K, ind, vptr, vrows, rptr, rvars, binom, t3, t4):
    """t3 and (K >= 3) t4 by filtering row lists: each pair (a, b) writes its own rows."""
    n, N = ind.shape
    for u in numba.prange(pa.shape[0]):
        a, b = pa[u], pb[u]
        rab = np.empty(vptr[a + 1] - vptr[a], dtype=np.int32)
        nab = _filter(vrows[vptr[a]:vptr[a + 1]], vptr[a + 1] - vptr[a], ind[b], rab)
        row = binom[b, 2] + a
        for t in range(nab):
            r = rab[t]
            for j in range(rptr[r], rptr[r + 1]):
                t3[row, rvars[j]] += 1
        if K < 3:
            continue
        rabc = np.empty(max(1, nab), dtype=np.int32)
        for c in range(b + 1, n):
            nabc = _filter(rab, nab, ind[c], rabc)
            row3 = binom[c, 3] + binom[b, 2] + a
            for t in range(nabc):
                r = rabc[t]
                for j in range(rptr[r], rptr[r + 1]):
                    t4[row3, rvars[j]] += 1


@numba.njit(cache=True, inline="always")
def _filter(rows, cnt, flags, out):
    """``out[:k]`` = the rows among ``rows[:cnt]`` with ``flags[row]`` set; returns k."""
    k = 0
    for t in range(cnt):
        r = rows[t]
        if flags[r]:
            out[k] = r
            k += 1
    return k


@numba.njit(cache=True, inline="always")
def _superset_moebius(f, k):
    """In place: f[A] <- Σ_{B ⊇ A} (-1)^{|B∖A|} f[B] over the subsets of k bits."""
    for i in range(k):
        bit = 1 << i
        for m in range(1 << k):
            if not (m & bit):
                f[m] -= f[m | bit]


@numba.njit(cache=True, inline="always")
def _subset_count(el, pc, N, c1, c2, t3, t4, binom, n45):
    """N(U) of the set ``el[:pc]`` (sorted, at most 5; a 5-set must be the unit's
    ``(a, b, c, d, e)``, whose count is ``n45[d, e]``)."""
    if pc == 0:
        return np.int64(N)
    if pc == 1:
        return np.int64(c1[el[0]])
    if pc == 2:
        return np.int64(c2[el[0], el[1]])
    if pc == 3:
        return np.int64(t3[binom[el[1], 2] + el[0], el[2]])
    if pc == 4:
        return np.int64(t4[binom[el[2], 3] + binom[el[1], 2] + el[0], el[3]])
    return np.int64(n45[el[3], el[4]])


@numba.njit(cache=True, inline="always")
def _record(buf_r, buf_s, buf_sets, buf_size, tid, x, r, s, tv, k):
    """Keep (r, s, tv[:k]) among thread ``tid``'s best sets of x (its worst slot is replaced)."""
    pv = buf_r.shape[2]
    slot = 0
    for t in range(1, pv):
        if buf_r[tid, x, t] < buf_r[tid, x, slot]:
            slot = t
    if r <= buf_r[tid, x, slot]:
        return
    buf_r[tid, x, slot] = r
    buf_s[tid, x, slot] = s
    for i in range(k):
        buf_sets[tid, x, slot, i] = tv[i]
    buf_size[tid, x, slot] = k


@numba.njit(cache=True)
def _families_of_set(s, uv, N, c1, c2, t3, t4, binom, n45, arities, lgt, kind, ess, unit, thr, maxbonus,
                     pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid, counted, cnt, el, tv,
                     given=False):
    """The ``s`` families of the set U = ``uv[:s]``: each x ∈ U with parents U∖{x}.  The joint
    table of U (Möbius inversion of its subsets' counts) gives every family's cells at once,
    and its marginal without x the parent configurations.  A family is recorded when its
    reduced score beats ``thr[x]``.  ``cnt``, ``el``, ``tv``: scratch (32, 5, 4); with
    ``given``, ``cnt`` already holds the subsets' counts."""
    if not given:
        for m in range(1 << s):
            pc = 0
            for i in range(s):
                if (m >> i) & 1:
                    el[pc] = uv[i]
                    pc += 1
            cnt[m] = _subset_count(el, pc, N, c1, c2, t3, t4, binom, n45)
    _superset_moebius(cnt, s)           # cnt[m]: rows whose indicator pattern on U is m
    bdeu = kind == 3
    fs = f_scale(lgt)
    eu = e_unit(lgt)
    qall = 1.0
    for i in range(s):
        qall *= arities[uv[i]]
    aqr = ess / qall
    lar = math.lgamma(aqr) if bdeu else 0.0
    ej = np.int64(0)
    fj = np.int64(0)
    for m in range(1 << s):
        v = cnt[m]
        if v > 0:
            ej += lgt[v]
            if bdeu:
                fj += fixed(math.lgamma(aqr + v) - lar, fs)
    for i in range(s):
        x = uv[i]
        counted[tid] += 1
        rx = arities[x]
        q = qall / rx
        aq = ess / q
        la = math.lgamma(aq) if bdeu else 0.0
        bit = 1 << i
        epa = np.int64(0)
        fpa = np.int64(0)
        for m in range(1 << s):
            if m & bit:
                continue
            v = cnt[m] + cnt[m | bit]
            if v > 0:
                epa += lgt[v]
                if bdeu:
                    fpa += fixed(math.lgamma(aq + v) - la, fs)
        ll = ej * eu - epa * eu
        bd = fj / fs - fpa / fs
        sc = unit * local_score(kind, ll, bd, q, rx, N)
        ub = maxbonus[x]                # a bound on the bonus: cheap test first
        if pairbonus.shape[0] > 0 and s >= 2:
            for j in range(s):
                for l in range(j if s == 2 else j + 1, s):
                    if j != i and l != i and pairbonus[x, uv[j], uv[l]] < ub:
                        ub = pairbonus[x, uv[j], uv[l]]
        if sc + ub <= thr[x]:
            continue
        k = 0
        for j in range(s):
            if j != i:
                tv[k] = uv[j]
                k += 1
        b = 0.0
        for c in range(cl_ptr[x], cl_ptr[x + 1]):
            hits = 0
            for j in range(k):
                if (cl_bits[c, tv[j] >> 6] >> np.uint64(tv[j] & 63)) & np.uint64(1):
                    hits += 1
            if hits < cl_k[c]:
                b += cl_lam[c]
        r = sc + b
        if r > thr[x]:
            _record(buf_r, buf_s, buf_sets, buf_size, tid, x, r, sc, tv, k)


@numba.njit(cache=True, parallel=True)
def price_units(units, K, its_ind, vptr, vrows, rptr, rvars, binom, c1, c2, t3, t4, N, arities, lgt, kind,
                ess, unit, thr, maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size,
                counted, pa, pb):
    """Every family of 1..K parents whose set U = {x} ∪ parents has first two elements
    ``pa[u] < pb[u]`` for the units ``u`` given (threads write their own buffer rows:
    ``numba.get_thread_id()``).  K = 4: the 5-counts N({a, b, c, d, e}) of a triple (a, b, c)
    come from its rows, each adding 1 for every pair d < e of its indicator variables above c."""
    n = its_ind.shape[0]
    for t in numba.prange(units.shape[0]):
        tid = numba.get_thread_id()
        u = units[t]
        a, b = pa[u], pb[u]
        uv = np.empty(5, dtype=np.int64)
        cnt = np.empty(32, dtype=np.int64)
        el = np.empty(5, dtype=np.int64)
        tv = np.empty(4, dtype=np.int64)
        n45 = np.zeros((n if K >= 4 else 1, n if K >= 4 else 1), dtype=np.int32)
        base = np.empty(16, dtype=np.int64)
        msize = np.empty(16, dtype=np.int64)
        mrow = np.zeros(16, dtype=np.int64)
        uv[0] = a
        uv[1] = b
        _families_of_set(2, uv, N, c1, c2, t3, t4, binom, n45, arities, lgt, kind, ess, unit, thr, maxbonus,
                         pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid, counted, cnt, el, tv)
        if K < 2:
            continue
        rab = np.empty(max(1, vptr[a + 1] - vptr[a]), dtype=np.int32)
        nab = 0
        if K >= 4:
            nab = _filter(vrows[vptr[a]:vptr[a + 1]], vptr[a + 1] - vptr[a], its_ind[b], rab)
        rabc = np.empty(max(1, nab), dtype=np.int32)
        for c in range(b + 1, n):
            uv[2] = c
            _families_of_set(3, uv, N, c1, c2, t3, t4, binom, n45, arities, lgt, kind, ess, unit, thr, maxbonus,
                             pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid, counted, cnt, el,
                             tv)
            if K < 3:
                continue
            if K >= 4:
                for d in range(c + 1, n):
                    for e in range(d + 1, n):
                        n45[d, e] = 0
                nabc = _filter(rab, nab, its_ind[c], rabc)
                for i in range(nabc):
                    r = rabc[i]
                    j = rptr[r]
                    j1 = rptr[r + 1]
                    while j < j1 and rvars[j] <= c:
                        j += 1
                    for p in range(j, j1):
                        d = rvars[p]
                        for p2 in range(p + 1, j1):
                            n45[d, rvars[p2]] += 1
            for d in range(c + 1, n):
                uv[3] = d
                _families_of_set(4, uv, N, c1, c2, t3, t4, binom, n45, arities, lgt, kind, ess, unit, thr,
                                 maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid,
                                 counted, cnt, el, tv)
                if K < 4:
                    continue
                # the 16 subsets of {a, b, c, d}: their counts, and the table row of each
                # one's union with e (size, then element / rank), so the loop over e only reads
                for m in range(16):
                    pc = 0
                    for i in range(4):
                        if (m >> i) & 1:
                            el[pc] = uv[i]
                            pc += 1
                    base[m] = _subset_count(el, pc, N, c1, c2, t3, t4, binom, n45)
                    msize[m] = pc
                    if pc == 1:
                        mrow[m] = el[0]
                    elif pc == 2:
                        mrow[m] = binom[el[1], 2] + el[0]
                    elif pc == 3:
                        mrow[m] = binom[el[2], 3] + binom[el[1], 2] + el[0]
                for e in range(d + 1, n):
                    uv[4] = e
                    for m in range(16):
                        cnt[m] = base[m]
                        pc = msize[m]
                        if pc == 0:
                            cnt[16 | m] = c1[e]
                        elif pc == 1:
                            cnt[16 | m] = c2[mrow[m], e]
                        elif pc == 2:
                            cnt[16 | m] = t3[mrow[m], e]
                        elif pc == 3:
                            cnt[16 | m] = t4[mrow[m], e]
                        else:
                            cnt[16 | m] = n45[d, e]
                    _families_of_set(5, uv, N, c1, c2, t3, t4, binom, n45, arities, lgt, kind, ess, unit, thr,
                                     maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid,
                                     counted, cnt, el, tv, True)


@numba.njit(cache=True)
def price_small(c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr, maxbonus, pairbonus, cl_ptr, cl_bits,
                cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, counted):
    """The families without parents (the sets U = {x}), thread 0's buffers."""
    n = c1.shape[0]
    uv = np.empty(5, dtype=np.int64)
    cnt = np.empty(32, dtype=np.int64)
    el = np.empty(5, dtype=np.int64)
    tv = np.empty(4, dtype=np.int64)
    n45 = np.zeros((1, 1), dtype=np.int32)
    for a in range(n):
        uv[0] = a
        _families_of_set(1, uv, N, c1, c2, t3, t4, binom, n45, arities, lgt, kind, ess, unit, thr, maxbonus,
                         pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, 0, counted, cnt, el, tv)


def _cluster_arrays(duals, n: int):
    """Per variable, its rows with λ > 0 (CSR: ptr, bits, λ, k) and bounds on the bonus of
    its sets (:func:`_bonus_bounds`)."""
    W = max(1, (n + 63) // 64)
    lam = np.asarray(duals.lam, dtype=np.float64)
    bits = np.asarray(duals.bits, dtype=np.uint64).reshape(len(lam), -1) if len(lam) else np.zeros((0, W), np.uint64)
    kk = np.asarray(duals.k, dtype=np.int64)
    live = np.nonzero(lam > 0.0)[0]
    member = [[c for c in live if (int(bits[c, x >> 6]) >> (x & 63)) & 1] for x in range(n)]
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(m) for m in member], out=ptr[1:])
    flat = np.array([c for m in member for c in m], dtype=np.int64)
    cl_bits = np.ascontiguousarray(bits[flat][:, :W] if len(flat) else np.zeros((0, W), np.uint64))
    cl_lam = lam[flat] if len(flat) else np.zeros(0)
    cl_k = kk[flat] if len(flat) else np.zeros(0, np.int64)
    maxbonus, pairbonus = _bonus_bounds(n, ptr, cl_bits, cl_lam, cl_k, n <= PAIR_BONUS_MAX_N)
    return ptr, cl_bits, cl_lam, cl_k, maxbonus, pairbonus


@numba.njit(cache=True)
def _bonus_bounds(n, ptr, cl_bits, cl_lam, cl_k, pairs):
    """``maxbonus[x]``, the bonus of the empty set (every row's λ), and, when ``pairs``,
    ``pairbonus[x, p, q]`` = Σ λ_C over x's rows with ``|{p, q} ∩ C| < k_C`` (p = q: a single
    parent): since ``|T ∩ C| >= |{p, q} ∩ C|``, the bonus of any T ⊇ {p, q} is at most that.
    Summed in the kernel's row order, so float rounding keeps the bound above the bonus the
    kernel sums (rounded addition is monotone)."""
    maxbonus = np.zeros(n)
    pairbonus = np.zeros((n, n, n) if pairs else (0, 0, 0))
    inC = np.zeros(n, dtype=np.int64)
    for x in range(n):
        for c in range(ptr[x], ptr[x + 1]):
            maxbonus[x] += cl_lam[c]
            if not pairs:
                continue
            for v in range(n):
                inC[v] = (cl_bits[c, v >> 6] >> np.uint64(v & 63)) & np.uint64(1)
            for p in range(n):
                for q in range(p, n):
                    if inC[p] + (inC[q] if q != p else 0) < cl_k[c]:
                        pairbonus[x, p, q] += cl_lam[c]
        if pairs:
            for p in range(n):
                for q in range(p + 1, n):
                    pairbonus[x, q, p] = pairbonus[x, p, q]
    return maxbonus, pairbonus


def run(its: Itemsets, K: int, kind: int, ess: float, thr: np.ndarray, duals, per_variable: int, deadline: float,
        say=None) -> tuple[bool, np.ndarray, list, int]:
    """Enumerate every family of at most ``K`` parents (``K <= its.K``) under the score
    ``kind`` (:mod:`lpbn.scoring.scores`): ``(finished, top,
    found, counted)`` with ``top[x]`` the best reduced score above ``thr[x]`` (-inf: none),
    ``found`` the ``per_variable`` best sets of each variable above its threshold as
    ``(x, parents, score)`` and ``counted`` the families scored.  Batches of units (pairs of
    first parents, in a fixed shuffled order) run until ``deadline`` (perf_counter seconds)."""
    import time
    n = its.n
    unit = 1.0 / LN2 if kind == MDL else 1.0       # stored units (MDL: bits)
    lgt = lg_table(its.N)
    cl_ptr, cl_bits, cl_lam, cl_k, maxbonus, pairbonus = _cluster_arrays(duals, n)
    nt = max(1, int(numba.config.NUMBA_NUM_THREADS))
    buf_r = np.full((nt, n, per_variable), -np.inf)
    buf_s = np.zeros((nt, n, per_variable))
    buf_sets = np.zeros((nt, n, per_variable, MAX_K), dtype=np.int64)
    buf_size = np.zeros((nt, n, per_variable), dtype=np.int64)
    counted = np.zeros(nt, dtype=np.int64)
    common = (its.binom, its.N, its.arities, lgt, kind, float(ess), float(unit), thr, maxbonus, pairbonus, cl_ptr,
              cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, counted)
    price_small(its.c1, its.c2, its.t3, its.t4, *common)
    finished = True
    if K >= 1:
        units = np.random.default_rng(0).permutation(len(its.pa)).astype(np.int64)
        batches = np.array_split(units, min(len(units), 100))
        t0 = time.perf_counter()
        for i, batch in enumerate(batches):
            if time.perf_counter() > deadline:
                finished = False
                break
            price_units(batch, K, its.ind, its.vptr, its.vrows, its.rptr, its.rvars, its.binom, its.c1, its.c2,
                        its.t3, its.t4, its.N, its.arities, lgt, kind, float(ess), float(unit), thr, maxbonus,
                        pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, counted, its.pa, its.pb)
            if say and (i + 1) % 10 == 0:
                say(f"pricing: {i + 1}% of the parent sets of at most {K} parents enumerated "
                    f"[{time.perf_counter() - t0:.1f} s]")
    top = np.full(n, -np.inf)
    found = []
    for x in range(n):
        cand = [(buf_r[t, x, j], buf_s[t, x, j], tuple(int(v) for v in buf_sets[t, x, j, :buf_size[t, x, j]]))
                for t in range(nt) for j in range(per_variable) if buf_r[t, x, j] > -np.inf]
        cand.sort(key=lambda c: -c[0])
        if cand:
            top[x] = cand[0][0]
        found.extend((x, tuple(sorted(ps)), s) for _, s, ps in cand[:per_variable])
    return finished, top, found, int(counted.sum())
