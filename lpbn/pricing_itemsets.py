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
combinatorial number system, columns x: the inner loop over x reads them contiguously); the
5-counts ``N(T ∪ {x})`` of a 4-set T come, for every x at once, from the rows where T is in
its indicator states (found by filtering the rows of its 3-prefix) and the list of indicator
variables of each row.  Indicators are the rarer states, so these row lists are short.

The scores are those of :func:`lpbn.scoring.counting.family_stats` to the last bit: the same
fixed-point sums of ``lgt`` over the same non-empty cells.  The reduced score and the proof
are :mod:`lpbn.pricing`'s: every family is enumerated, so the per-variable maximum is exact.
Parallel over pairs (a, b) of the sets' first two parents (numba threads, per-thread buffers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from .scoring.counting import e_unit, f_scale, fixed
from .scoring.scores import local_score

#: the largest parent limit of the enumeration (5-counts are the most it forms)
MAX_K = 4


def applicable(ds, K: int) -> bool:
    """Binary data (every arity <= 2) and 1 <= K <= :data:`MAX_K`."""
    ar = np.asarray(ds.arities)
    return 1 <= int(K) <= MAX_K and ds.n >= 2 and ar.size > 0 and int(ar.max()) <= 2


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
    vptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(ind.sum(axis=1), out=vptr[1:])
    vrows = np.nonzero(ind)[1].astype(np.int32)          # row-major over (variable, row)
    rptr = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(ind.sum(axis=0), out=rptr[1:])
    rvars = np.nonzero(ind.T)[1].astype(np.int32)
    binom = np.zeros((n + 1, 5), dtype=np.int64)
    for v in range(n + 1):
        for i in range(5):
            binom[v, i] = math.comb(v, i)
    c1 = ind.sum(axis=1).astype(np.int64)
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


@numba.njit(cache=True)
def _score_T(k, tv, g, h, hrow, n5, x, c1, c2, t3, t4, N, arities, lgt, kind, ess, unit, q):
    """Score (stored units) of the family (x, T = tv[:k]): ``g`` holds T's Möbius-inverted
    parent-configuration counts, ``hrow[m]`` the table row of the subset m of T (|m| = 2, 3);
    ``h`` is scratch (16)."""
    for m in range(1 << k):
        pc = 0
        last = -1
        for i in range(k):
            if (m >> i) & 1:
                pc += 1
                last = tv[i]
        if pc == 0:
            h[m] = c1[x]
        elif pc == 1:
            h[m] = c2[last, x]
        elif pc == 2:
            h[m] = t3[hrow[m], x]
        elif pc == 3:
            h[m] = t4[hrow[m], x]
        else:
            h[m] = n5[x]
    _superset_moebius(h, k)
    rx = arities[x]
    ej = np.int64(0)
    epa = np.int64(0)
    fj = np.int64(0)
    fpa = np.int64(0)
    bdeu = kind == 3
    fs = f_scale(lgt)
    aq = ess / q
    aqr = ess / (q * rx)
    lar = math.lgamma(aqr) if bdeu else 0.0
    la = math.lgamma(aq) if bdeu else 0.0
    for m in range(1 << k):
        tot = g[m]
        if tot == 0:
            continue
        one = h[m]
        epa += lgt[tot]
        if bdeu:
            fpa += fixed(math.lgamma(aq + tot) - la, fs)
        if one > 0:
            ej += lgt[one]
            if bdeu:
                fj += fixed(math.lgamma(aqr + one) - lar, fs)
        if tot - one > 0:
            ej += lgt[tot - one]
            if bdeu:
                fj += fixed(math.lgamma(aqr + tot - one) - lar, fs)
    eu = e_unit(lgt)
    ll = ej * eu - epa * eu
    bd = fj / fs - fpa / fs
    return unit * local_score(kind, ll, bd, q, rx, N)


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
def _families_of(k, tv, npT, n5, its_c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr,
                 maxbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid, counted, sc):
    """Every family (x, T) with T = tv[:k] and x ∉ T: scored, and recorded when its reduced
    score beats ``thr[x]``.  ``npT`` = N(T) (used when k = 4); ``sc``: scratch (:func:`_scratch`)."""
    n = its_c1.shape[0]
    g, h, hrow, el = sc[0], sc[1], sc[2], sc[3]
    q = 1.0
    for i in range(k):
        q *= arities[tv[i]]
    for m in range(1 << k):
        pc = 0
        for i in range(k):
            if (m >> i) & 1:
                el[pc] = tv[i]
                pc += 1
        if pc == 0:
            g[m] = N
        elif pc == 1:
            g[m] = its_c1[el[0]]
        elif pc == 2:
            g[m] = c2[el[0], el[1]]
            hrow[m] = binom[el[1], 2] + el[0]
        elif pc == 3:
            g[m] = t3[binom[el[1], 2] + el[0], el[2]]
            hrow[m] = binom[el[2], 3] + binom[el[1], 2] + el[0]
        else:
            g[m] = npT
    _superset_moebius(g, k)
    W = cl_bits.shape[1]
    tb = np.zeros(W, dtype=np.uint64)      # (W is 1 or 2 words up to 128 variables)
    for i in range(k):
        tb[tv[i] >> 6] |= np.uint64(1) << np.uint64(tv[i] & 63)
    for x in range(n):
        skip = False
        for i in range(k):
            if tv[i] == x:
                skip = True
        if skip:
            continue
        counted[tid] += 1
        s = _score_T(k, tv, g, h, hrow, n5, x, its_c1, c2, t3, t4, N, arities, lgt, kind, ess, unit, q)
        if s + maxbonus[x] <= thr[x]:
            continue
        b = 0.0
        for c in range(cl_ptr[x], cl_ptr[x + 1]):
            hits = 0
            for w in range(W):
                v = tb[w] & cl_bits[c, w]
                while v:
                    v &= v - np.uint64(1)
                    hits += 1
            if hits < cl_k[c]:
                b += cl_lam[c]
        r = s + b
        if r > thr[x]:
            _record(buf_r, buf_s, buf_sets, buf_size, tid, x, r, s, tv, k)


@numba.njit(cache=True)
def _scratch():
    """g, h, hrow, el: the per-T arrays of :func:`_families_of` (one set per unit)."""
    return np.zeros((4, 16), dtype=np.int64)


@numba.njit(cache=True, parallel=True)
def price_units(units, K, its_ind, vptr, vrows, rptr, rvars, binom, c1, c2, t3, t4, N, arities, lgt, kind,
                ess, unit, thr, maxbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size,
                counted, pa, pb):
    """Every family whose parent set has 2..K parents with first two ``pa[u] < pb[u]`` for the
    units ``u`` given (threads write their own buffer rows: ``numba.get_thread_id()``)."""
    n = its_ind.shape[0]
    for t in numba.prange(units.shape[0]):
        tid = numba.get_thread_id()
        u = units[t]
        a, b = pa[u], pb[u]
        tv = np.empty(4, dtype=np.int64)
        tv[0] = a
        tv[1] = b
        n5 = np.zeros(n, dtype=np.int64)
        sc = _scratch()
        rab = np.empty(max(1, vptr[a + 1] - vptr[a]), dtype=np.int32)
        nab = _filter(vrows[vptr[a]:vptr[a + 1]], vptr[a + 1] - vptr[a], its_ind[b], rab)
        _families_of(2, tv, nab, n5, c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr, maxbonus,
                     cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid, counted, sc)
        if K < 3:
            continue
        rabc = np.empty(max(1, nab), dtype=np.int32)
        rT = np.empty(max(1, nab), dtype=np.int32)
        for c in range(b + 1, n):
            tv[2] = c
            nabc = _filter(rab, nab, its_ind[c], rabc)
            _families_of(3, tv, nabc, n5, c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr,
                         maxbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid, counted, sc)
            if K < 4:
                continue
            for d in range(c + 1, n):
                tv[3] = d
                nT = _filter(rabc, nabc, its_ind[d], rT)
                for x in range(n):
                    n5[x] = 0
                for i in range(nT):
                    r = rT[i]
                    for j in range(rptr[r], rptr[r + 1]):
                        n5[rvars[j]] += 1
                _families_of(4, tv, nT, n5, c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr,
                             maxbonus, cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, tid,
                             counted, sc)


@numba.njit(cache=True)
def price_small(K, c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr, maxbonus, cl_ptr, cl_bits,
                cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, counted):
    """The families of at most one parent (the empty set and every single parent), thread 0's
    buffers."""
    n = c1.shape[0]
    tv = np.empty(4, dtype=np.int64)
    n5 = np.zeros(n, dtype=np.int64)
    sc = _scratch()
    _families_of(0, tv, 0, n5, c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr, maxbonus,
                 cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, 0, counted, sc)
    if K < 1:
        return
    for a in range(n):
        tv[0] = a
        _families_of(1, tv, 0, n5, c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr, maxbonus,
                     cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, 0, counted, sc)


def _cluster_arrays(duals, n: int):
    """Per variable, its rows with λ > 0 (CSR: ptr, bits, λ, k) and the sum of their λ (the
    largest bonus any of its sets can get)."""
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
    maxbonus = np.array([math.fsum(lam[m].tolist()) if m else 0.0 for m in member])
    return ptr, cl_bits, cl_lam, cl_k, maxbonus


def run(its: Itemsets, K: int, kind: int, ess: float, unit: float, lgt: np.ndarray, thr: np.ndarray, duals,
        per_variable: int, deadline: float, say=None) -> tuple[bool, np.ndarray, list, int]:
    """Enumerate every family of at most ``K`` parents (``K <= its.K``): ``(finished, top,
    found, counted)`` with ``top[x]`` the best reduced score above ``thr[x]`` (-inf: none),
    ``found`` the ``per_variable`` best sets of each variable above its threshold as
    ``(x, parents, score)`` and ``counted`` the families scored.  Batches of units (pairs of
    first parents, in a fixed shuffled order) run until ``deadline`` (perf_counter seconds)."""
    import time
    n = its.n
    cl_ptr, cl_bits, cl_lam, cl_k, maxbonus = _cluster_arrays(duals, n)
    nt = max(1, int(numba.config.NUMBA_NUM_THREADS))
    buf_r = np.full((nt, n, per_variable), -np.inf)
    buf_s = np.zeros((nt, n, per_variable))
    buf_sets = np.zeros((nt, n, per_variable, MAX_K), dtype=np.int64)
    buf_size = np.zeros((nt, n, per_variable), dtype=np.int64)
    counted = np.zeros(nt, dtype=np.int64)
    common = (its.binom, its.N, its.arities, lgt, kind, float(ess), float(unit), thr, maxbonus, cl_ptr, cl_bits,
              cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, counted)
    price_small(K, its.c1, its.c2, its.t3, its.t4, *common)
    finished = True
    if K >= 2:
        units = np.random.default_rng(0).permutation(len(its.pa)).astype(np.int64)
        batches = np.array_split(units, min(len(units), 100))
        t0 = time.perf_counter()
        for i, batch in enumerate(batches):
            if time.perf_counter() > deadline:
                finished = False
                break
            price_units(batch, K, its.ind, its.vptr, its.vrows, its.rptr, its.rvars, its.binom, its.c1, its.c2,
                        its.t3, its.t4, its.N, its.arities, lgt, kind, float(ess), float(unit), thr, maxbonus,
                        cl_ptr, cl_bits, cl_lam, cl_k, buf_r, buf_s, buf_sets, buf_size, counted, its.pa, its.pb)
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
