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

**Store.**  Column generation prices the same data pass after pass; only λ changes.  The
bonus only shrinks as a set grows (each indicator ``[|S ∩ C| < k]`` can only turn off), so a
family that some subset of its parents scores at least as well as never prices out and never
sets a maximum, under **any** λ: the subset's reduced score is at least its own (in floats
too: the subset's bonus adds a superset of the same non-negative terms in the same order, and
rounded addition is monotone).  The enumeration therefore passes over a family whose score is
at most ``floor[x]`` (the score of x without parents, less 1e-9 relative: the empty set beats
it) or at most that of a family with one parent fewer (computed from the same joint table,
exactly as that family's own set computes it); by induction on the set size the maximum is
unchanged.  A finished enumeration keeps every other family in a :class:`FamilyStore`, and a
later pass scans the store instead of enumerating, when its thresholds satisfy ``floor +
maxbonus <= thr`` for every variable (no family below its floor can beat them, since ``r <= s +
maxbonus``; always so when the cache holds the empty sets, ``thr >= r(∅) = s(∅) + maxbonus``):
the same maxima, bound and sets as an enumeration (the same :func:`_offer`, the same floats).
Otherwise the pass enumerates again.

The scores are those of :func:`lpbn.scoring.counting.family_stats` to the last bit: the same
fixed-point sums of ``lgt`` over the same non-empty cells.  The reduced score and the proof
are :mod:`lpbn.pricing`'s: every family is enumerated, so the per-variable maximum is exact.
Parallel over the pairs (a, b) that start the sets U (numba threads, per-thread buffers).
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numba
import numpy as np

from .pricing_kernels import half_down
from .scoring.counting import e_unit, f_scale, fixed, lg_table
from .scoring.scores import LN2, MDL, local_score

#: the largest parent limit of the enumeration (5-counts are the most it forms)
MAX_K = 4
#: the pair bounds on the cluster bonus take n³ floats: up to 160 variables (33 MB)
PAIR_BONUS_MAX_N = 160
#: the count tables may take up to 1 GiB (K = 4: about 200 variables); beyond, the branch and
#: bound of lpbn.pricing_kernels prices
MAX_TABLE_BYTES = 1 << 30
#: the family store (:class:`FamilyStore`; 14 bytes a family up to 256 variables, 19 beyond)
#: may take up to 2 GiB; an enumeration that finds more families keeps no store
STORE_MAX_BYTES = 1 << 31


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
    store: "FamilyStore | None" = None     # set by run(): the families above their floors


@dataclass
class FamilyStore:
    """Every family of 1..K parents that neither the variable without parents nor a family
    with one parent fewer beats, kept by one finished enumeration under the score
    ``kind``/``ess`` (module docstring, "Store"), in the rows its threads wrote."""

    K: int
    kind: int
    ess: float
    floor: np.ndarray      # (n,)
    x: np.ndarray          # (threads, rows) uint8/uint16
    k: np.ndarray          # (threads, rows) uint8: the number of parents
    parents: np.ndarray    # (threads, rows, MAX_K) uint8/uint16
    score: np.ndarray      # (threads, rows) float64
    size: np.ndarray       # (threads,): the rows each thread filled

    @property
    def m(self) -> int:
        """The number of families held."""
        return int(self.size.sum())

    def families(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The rows held, in one copy: ``(x, k, parents, score)``."""
        rows = [slice(0, int(c)) for c in self.size]
        return tuple(np.concatenate([a[w, r] for w, r in enumerate(rows)])
                     for a in (self.x, self.k, self.parents, self.score))

    def covers(self, K: int, kind: int, ess: float, thr: np.ndarray, maxbonus: np.ndarray) -> bool:
        """Whether scanning the store prices exactly: the same K and score, and for every
        variable no family below its floor can beat its threshold, ``floor + maxbonus <= thr``."""
        return (self.K == K and self.kind == kind and self.ess == ess
                and bool(np.all(self.floor + maxbonus <= thr)))


#: the store's buffers inside the kernels: ``floor`` (n,), ``empty`` (n,) the score of each
#: variable without parents (written by every pass), per thread ``x``/``k``/``parents``/
#: ``score`` rows and ``size`` (families offered, beyond the rows' capacity too)
_StoreBuffers = namedtuple("_StoreBuffers", "floor empty x k parents score size")


def _family_bytes(n: int) -> int:
    """Bytes of one stored family: variable and parents as uint8 up to 256 variables."""
    return (1 if n <= 256 else 2) * (1 + MAX_K) + 1 + 8


def _store_buffers(n: int, nt: int, capacity: int, floor: np.ndarray | None = None) -> _StoreBuffers:
    """Buffers for ``capacity`` families per thread (0: none stored); pages are committed only
    as rows are written."""
    idx = np.uint8 if n <= 256 else np.uint16
    return _StoreBuffers(np.full(n, np.inf) if floor is None else floor, np.full(n, np.nan),
                         np.empty((nt, capacity), idx), np.empty((nt, capacity), np.uint8),
                         np.empty((nt, capacity, MAX_K), idx), np.empty((nt, capacity)),
                         np.zeros(nt, np.int64))


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
                     pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size, tid, counted, st, cnt,
                     el, tv, given=False):
    """The ``s`` families of the set U = ``uv[:s]``: each x ∈ U with parents U∖{x}.  The joint
    table of U (Möbius inversion of its subsets' counts) gives every family's cells at once,
    and its marginal without x the parent configurations.  A family is recorded when its
    reduced score beats ``thr[x]``.  A family with parents is passed over when its score is at
    most ``st.floor[x]`` or a family with one parent fewer scores at least as much (module
    docstring, "Store": a smaller set's bonus is never lower, so it beats this one under every
    λ); the others go to thread ``tid``'s rows of the store buffers ``st``
    (:class:`_StoreBuffers`).  A family without parents writes its score to ``st.empty[x]``.  ``cnt``, ``el``, ``tv``: scratch
    (32, 5, 4); with ``given``, ``cnt`` already holds the subsets' counts."""
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
        k = 0
        for j in range(s):
            if j != i:
                tv[k] = uv[j]
                k += 1
        if s == 1:
            st.empty[x] = sc
        elif sc <= st.floor[x] or _dominated(cnt, s, i, sc, uv, arities, lgt, kind, ess, unit, N):
            continue
        else:
            _store(st, tid, x, sc, tv, k)
        _offer(x, sc, tv, k, thr, maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets,
               buf_size, tid)


@numba.njit(cache=True)
def _dominated(cnt, s, i, sc, uv, arities, lgt, kind, ess, unit, N):
    """Whether dropping one parent of the family (x = ``uv[i]``, parents ``U∖{x}``) scores at
    least ``sc``.  The smaller family's cells are marginals of U's joint table ``cnt``; its
    score is computed as its own set's enumeration computes it (the same fixed-point sums of
    the same cells, the same arity products), so the comparison is that of the two stored
    floats."""
    bdeu = kind == 3
    fs = f_scale(lgt)
    eu = e_unit(lgt)
    rx = arities[uv[i]]
    bi = 1 << i
    for j in range(s):
        if j == i:
            continue
        bj = 1 << j
        qall = 1.0
        for t in range(s):
            if t != j:
                qall *= arities[uv[t]]
        aqr = ess / qall
        lar = math.lgamma(aqr) if bdeu else 0.0
        q = qall / rx
        aq = ess / q
        la = math.lgamma(aq) if bdeu else 0.0
        ej = np.int64(0)
        fj = np.int64(0)
        epa = np.int64(0)
        fpa = np.int64(0)
        for m in range(1 << s):
            if m & bj:
                continue
            v = cnt[m] + cnt[m | bj]
            if v > 0:
                ej += lgt[v]
                if bdeu:
                    fj += fixed(math.lgamma(aqr + v) - lar, fs)
            if m & bi:
                continue
            v = v + cnt[m | bi] + cnt[m | bi | bj]
            if v > 0:
                epa += lgt[v]
                if bdeu:
                    fpa += fixed(math.lgamma(aq + v) - la, fs)
        ll = ej * eu - epa * eu
        bd = fj / fs - fpa / fs
        if unit * local_score(kind, ll, bd, q, rx, N) >= sc:
            return True
    return False


@numba.njit(cache=True, inline="always")
def _offer(x, sc, tv, k, thr, maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size,
           tid):
    """Record the family (x, ``tv[:k]``) of score ``sc`` when its reduced score (eq. 14)
    beats ``thr[x]``.  The bounds on the bonus are tried first: ``maxbonus[x]``, and the pair
    bounds of :func:`_bonus_bounds` over the parents' pairs (a single parent's pair is itself)."""
    ub = maxbonus[x]
    if pairbonus.shape[0] > 0 and k >= 1:
        for j in range(k):
            for l in range(j if k == 1 else j + 1, k):
                if pairbonus[x, tv[j], tv[l]] < ub:
                    ub = pairbonus[x, tv[j], tv[l]]
    if sc + ub <= thr[x]:
        return
    b = 0.0
    for c in range(cl_ptr[x], cl_ptr[x + 1]):
        hits = 0
        for j in range(k):
            if (cl_bits[c, tv[j] >> 6] >> np.uint64(tv[j] & 63)) & np.uint64(1):
                hits += 1
        if hits < cl_k[c]:
            b += cl_lam[c]
    ct_ptr, ct_conv, ct_mu, ct_cptr, ct_bits = ct
    for e in range(ct_ptr[x], ct_ptr[x + 1]):       # the {0, 1/2}-cuts' a(x, S), eq. (14) with cuts
        a = ct_conv[e]
        for t in range(ct_cptr[e], ct_cptr[e + 1]):
            hit = False
            for j in range(k):
                if (ct_bits[t, tv[j] >> 6] >> np.uint64(tv[j] & 63)) & np.uint64(1):
                    hit = True
                    break
            if not hit:
                a -= 1
        b -= ct_mu[e] * half_down(a)
    r = sc + b
    if r > thr[x]:
        _record(buf_r, buf_s, buf_sets, buf_size, tid, x, r, sc, tv, k)


@numba.njit(cache=True, inline="always")
def _store(st, tid, x, sc, tv, k):
    """Append the family (x, ``tv[:k]``) of score ``sc`` to thread ``tid``'s store rows; past
    their capacity only count it (the store is then incomplete and :func:`run` drops it)."""
    i = st.size[tid]
    st.size[tid] = i + 1
    if i >= st.x.shape[1]:
        return
    st.x[tid, i] = x
    st.k[tid, i] = k
    st.score[tid, i] = sc
    for j in range(k):
        st.parents[tid, i, j] = tv[j]


@numba.njit(cache=True, parallel=True)
def price_units(units, K, its_ind, vptr, vrows, rptr, rvars, binom, c1, c2, t3, t4, N, arities, lgt, kind,
                ess, unit, thr, maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size,
                counted, st, pa, pb):
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
                         pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size, tid, counted, st, cnt, el, tv)
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
                             pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size, tid, counted, st, cnt,
                             el, tv)
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
                                 maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size, tid,
                                 counted, st, cnt, el, tv)
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
                                     maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size, tid,
                                     counted, st, cnt, el, tv, True)


@numba.njit(cache=True)
def price_small(c1, c2, t3, t4, binom, N, arities, lgt, kind, ess, unit, thr, maxbonus, pairbonus, cl_ptr, cl_bits,
                cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size, counted, st):
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
                         pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size, 0, counted, st, cnt, el, tv)


def _cluster_arrays(duals, n: int):
    """Per variable, its rows with λ > 0 (CSR: ptr, bits, λ, k), its {0, 1/2}-cut entries
    (``ct``, :func:`cut_entries`) and bounds on the bonus of its sets (:func:`_bonus_bounds`)."""
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
    ct = cut_entries(duals, n)
    maxbonus, pairbonus = _bonus_bounds(n, ptr, cl_bits, cl_lam, cl_k, ct, n <= PAIR_BONUS_MAX_N)
    return ptr, cl_bits, cl_lam, cl_k, ct, maxbonus, pairbonus


def cut_entries(duals, n: int) -> tuple:
    """The {0, 1/2}-cuts of ``duals`` (``duals.cuts``, derivations, with multipliers
    ``duals.mu`` > 0) per variable x, as the kernels read them: ``(ptr, conv, mu, cptr, bits)``
    where x's entries are ``ptr[x]:ptr[x+1]``, entry e has ``conv[e]`` (1 when x's convexity
    row is in the combination), ``mu[e]`` and the clusters of the combination that hold x,
    ``bits[cptr[e]:cptr[e+1]]``; then a(x, S) = ⌊(conv[e] − #{those clusters S misses}) / 2⌋
    (:class:`lpbn.lp.zero_half.Derivation`).  A cut with neither gives x the coefficient 0."""
    W = max(1, (n + 63) // 64)
    cuts, mus = getattr(duals, "cuts", ()), np.asarray(getattr(duals, "mu", ()), dtype=np.float64)
    entries: list[list[tuple[int, float, np.ndarray]]] = [[] for _ in range(n)]
    for d, mu in zip(cuts, mus.tolist()):
        if not mu > 0.0:
            continue
        cl = np.asarray(d.clusters, dtype=np.uint64).reshape(-1, W)
        conv = set(np.asarray(d.conv).tolist())
        holds = (cl[:, np.arange(n) >> 6] >> (np.arange(n) & 63).astype(np.uint64)) & np.uint64(1)
        for x in sorted(conv | set(np.flatnonzero(holds.any(axis=0)).tolist())):
            entries[x].append((int(x in conv), float(mu), cl[holds[:, x] == 1]))
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(e) for e in entries], out=ptr[1:])
    flat = [t for e in entries for t in e]
    conv = np.array([t[0] for t in flat], dtype=np.int64)
    mu = np.array([t[1] for t in flat], dtype=np.float64)
    cptr = np.zeros(len(flat) + 1, dtype=np.int64)
    np.cumsum([len(t[2]) for t in flat], out=cptr[1:])
    cbits = np.ascontiguousarray(np.vstack([t[2] for t in flat]) if flat and cptr[-1] else np.zeros((0, W), np.uint64),
                                 dtype=np.uint64)
    return ptr, conv, mu, cptr, cbits


@numba.njit(cache=True)
def _bonus_bounds(n, ptr, cl_bits, cl_lam, cl_k, ct, pairs):
    """``maxbonus[x]``, the bonus of the empty set (every row's λ, less the cuts' μ a(x, ∅)),
    and, when ``pairs``, ``pairbonus[x, p, q]``, the bonus of {p, q} (p = q: a single parent):
    since ``|T ∩ C| >= |{p, q} ∩ C|`` and a(x, T) >= a(x, {p, q}), the bonus of any T ⊇ {p, q}
    is at most that.  Summed in the kernel's row order and with its operations (clusters, then
    ``b -= μ a``), so float rounding keeps the bound above the bonus the kernel sums (rounded
    addition and multiplication by μ >= 0 are monotone)."""
    maxbonus = np.zeros(n)
    pairbonus = np.zeros((n, n, n) if pairs else (0, 0, 0))
    inC = np.zeros(n, dtype=np.int64)
    ct_ptr, ct_conv, ct_mu, ct_cptr, ct_bits = ct
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
        for e in range(ct_ptr[x], ct_ptr[x + 1]):
            maxbonus[x] -= ct_mu[e] * half_down(ct_conv[e] - (ct_cptr[e + 1] - ct_cptr[e]))
            if not pairs:
                continue
            for p in range(n):
                for q in range(p, n):
                    a = ct_conv[e]
                    for t in range(ct_cptr[e], ct_cptr[e + 1]):
                        if not ((ct_bits[t, p >> 6] >> np.uint64(p & 63)) & np.uint64(1)
                                or (ct_bits[t, q >> 6] >> np.uint64(q & 63)) & np.uint64(1)):
                            a -= 1
                    pairbonus[x, p, q] -= ct_mu[e] * half_down(a)
        if pairs:
            for p in range(n):
                for q in range(p + 1, n):
                    pairbonus[x, q, p] = pairbonus[x, p, q]
    return maxbonus, pairbonus


@numba.njit(cache=True, parallel=True)
def price_stored(sx, sk, sp, ssc, ssize, thr, maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s,
                 buf_sets, buf_size, counted):
    """Offer every stored family (:class:`FamilyStore`: thread w's rows ``[:ssize[w]]``) as the
    enumeration would (:func:`_offer`: the same reduced scores, to the last bit)."""
    chunk = 1 << 16
    starts = np.zeros(ssize.shape[0] + 1, dtype=np.int64)
    for w in range(ssize.shape[0]):
        starts[w + 1] = starts[w] + (ssize[w] + chunk - 1) // chunk
    for task in numba.prange(starts[-1]):
        tid = numba.get_thread_id()
        w = 0
        while starts[w + 1] <= task:
            w += 1
        lo = (task - starts[w]) * chunk
        tv = np.empty(MAX_K, dtype=np.int64)
        for i in range(lo, min(ssize[w], lo + chunk)):
            k = np.int64(sk[w, i])
            for j in range(k):
                tv[j] = sp[w, i, j]
            counted[tid] += 1
            _offer(np.int64(sx[w, i]), ssc[w, i], tv, k, thr, maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct,
                   buf_r, buf_s, buf_sets, buf_size, tid)


def run(its: Itemsets, K: int, kind: int, ess: float, thr: np.ndarray, duals, per_variable: int, deadline: float,
        say=None) -> tuple[bool, np.ndarray, list, int, bool]:
    """Every family of at most ``K`` parents (``K <= its.K``) under the score ``kind``
    (:mod:`lpbn.scoring.scores`): ``(finished, top, found, counted, scanned)`` with ``top[x]``
    the best reduced score above ``thr[x]`` (-inf: none), ``found`` the ``per_variable`` best
    sets of each variable above its threshold as ``(x, parents, score)``, ``counted`` the
    families scored (or offered from the store) and ``scanned`` whether the store was scanned.
    When ``its.store`` covers these thresholds (:meth:`FamilyStore.covers`) it is scanned;
    otherwise every family is enumerated, in batches of units (pairs of first parents, in a
    fixed shuffled order) until ``deadline`` (perf_counter seconds), and a finished
    enumeration leaves its store in ``its.store`` (module docstring, "Store")."""
    import time
    n = its.n
    unit = 1.0 / LN2 if kind == MDL else 1.0       # stored units (MDL: bits)
    lgt = lg_table(its.N)
    cl_ptr, cl_bits, cl_lam, cl_k, ct, maxbonus, pairbonus = _cluster_arrays(duals, n)
    nt = max(1, int(numba.config.NUMBA_NUM_THREADS))
    buf_r = np.full((nt, n, per_variable), -np.inf)
    buf_s = np.zeros((nt, n, per_variable))
    buf_sets = np.zeros((nt, n, per_variable, MAX_K), dtype=np.int64)
    buf_size = np.zeros((nt, n, per_variable), dtype=np.int64)
    counted = np.zeros(nt, dtype=np.int64)
    bonus = (thr, maxbonus, pairbonus, cl_ptr, cl_bits, cl_lam, cl_k, ct, buf_r, buf_s, buf_sets, buf_size, counted)
    common = (its.binom, its.N, its.arities, lgt, kind, float(ess), float(unit), *bonus)
    small = _store_buffers(n, nt, 0)
    price_small(its.c1, its.c2, its.t3, its.t4, *common, small)
    finished = True
    store = its.store
    scanned = K >= 1 and store is not None and store.covers(K, kind, float(ess), thr, maxbonus)
    if scanned:
        price_stored(store.x, store.k, store.parents, store.score, store.size, *bonus)
    elif K >= 1:
        floor = small.empty - 1e-9 * (1.0 + np.abs(small.empty))
        families = sum(n * math.comb(n - 1, k) for k in range(1, K + 1))
        try:        # rows for every family at most, within STORE_MAX_BYTES; none under a tight memory limit
            st = _store_buffers(n, nt, min(STORE_MAX_BYTES // _family_bytes(n) // nt, families), floor)
        except MemoryError:
            st = _store_buffers(n, nt, 0, floor)
        units = np.random.default_rng(0).permutation(len(its.pa)).astype(np.int64)
        batches = np.array_split(units, min(len(units), 100))
        t0 = time.perf_counter()
        for i, batch in enumerate(batches):
            if time.perf_counter() > deadline:
                finished = False
                break
            price_units(batch, K, its.ind, its.vptr, its.vrows, its.rptr, its.rvars, its.binom, its.c1, its.c2,
                        its.t3, its.t4, its.N, its.arities, lgt, kind, float(ess), float(unit), *bonus, st, its.pa,
                        its.pb)
            if say and (i + 1) % 10 == 0:
                say(f"pricing: {i + 1}% of the parent sets of at most {K} parents enumerated "
                    f"[{time.perf_counter() - t0:.1f} s]")
        if finished:
            its.store = _kept(st, K, kind, float(ess))
    top = np.full(n, -np.inf)
    found = []
    for x in range(n):
        cand = [(buf_r[t, x, j], buf_s[t, x, j], tuple(int(v) for v in buf_sets[t, x, j, :buf_size[t, x, j]]))
                for t in range(nt) for j in range(per_variable) if buf_r[t, x, j] > -np.inf]
        cand.sort(key=lambda c: (-c[0], c[2]))
        if cand:
            top[x] = cand[0][0]
        found.extend((x, tuple(sorted(ps)), s) for _, s, ps in cand[:per_variable])
    return finished, top, found, int(counted.sum()), scanned


def _kept(st: _StoreBuffers, K: int, kind: int, ess: float) -> FamilyStore | None:
    """The store of a finished enumeration (None when a thread's rows overflowed)."""
    if np.any(st.size > st.x.shape[1]):
        return None
    return FamilyStore(K, kind, ess, st.floor.copy(), st.x, st.k, st.parents, st.score, st.size.copy())
