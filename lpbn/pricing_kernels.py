"""Numba kernels of pricing against the data (:mod:`lpbn.pricing`): the exact maximum of one
variable's reduced score over every parent set of at most K parents, by depth-first branch
and bound over the data.

Notation.  For variable ``x`` the reduced score of a parent set S is
``r(S) = s(x, S) + bonus(S)`` with ``bonus(S) = Σ_{C ∋ x} λ_C [|S ∩ C| < k_C]`` (the cluster
duals of Jaakkola et al. 2010 eq. 8 / 14, k-clusters of Cussens et al. 2017; ``k_C = 1`` is
the paper's ``S ∩ C = ∅``).  The search enumerates the sets in the order of ``cand`` (a set
is a path ``cand[j1] < cand[j2] < ...`` by position); a node S whose last position is ``l``
has the branch of strict supersets ``S' = S ∪ T``, ``∅ ≠ T ⊆ W = cand[l+1:]``,
``|S'| <= K``.  Every S' of that branch satisfies (proof in :mod:`lpbn.pricing`)

    r(S') <= unit · (LL(x | S ∪ W) - pen_min(S')) + bonus(S)              (BIC, MDL, AIC)
    r(S') <= unit · min(LL(x | S ∪ W), -ln(r_x) · cells(S, x)) + bonus(S)    (BDeu)

with ``pen_min(S') = c · (r_x - 1) · q_S · min_{w ∈ W} r_w`` (the smallest penalty of a strict
superset), and the branch is cut when that bound is at most the threshold ``T``.  Counting
reuses :mod:`lpbn.scoring.counting` (mixed-radix codes, compression, fixed-point sums); the
sets of K parents, most of the work, are counted by popcounts over their parent node's joint
bit planes (:func:`leaf_stats`) when that costs fewer word operations than a pass over the
rows (on baudio at K = 4, 96% of the sets).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .scoring.bitplanes import popcount
from .scoring.counting import e_unit, extend_codes, f_scale, family_stats, fixed
from .scoring.scores import local_score, penalty_coef

# columns of the stats array the subtree kernel adds to
ST_COUNTED, ST_CUT, ST_BOUNDS, ST_SKIPPED, ST_PLANES = range(5)


@numba.njit(cache=True)
def node_planes(codes, Q, xcol, rx, PA):
    """Bit planes of the node's joint configurations: row ``u * rx + a`` of ``PA`` holds the
    rows where the parent code is u and x = a (rows ``< Q * rx`` are overwritten)."""
    W = PA.shape[1]
    for p in range(Q * rx):
        for w in range(W):
            PA[p, w] = 0
    for s in range(codes.shape[0]):
        PA[codes[s] * rx + xcol[s], s >> 6] |= np.uint64(1) << np.uint64(s & 63)


@numba.njit(cache=True)
def leaf_stats(PA, Q, rx, planes, base, rt, lgt, want_bdeu, aq, aqr):
    """(LL, BDeu, #non-empty joint cells) of the node's set plus the variable whose state
    planes are ``planes[base:base + rt]``, by popcounts over the node's planes: the same
    fixed-point sums as :func:`lpbn.scoring.counting.family_stats`, so the same scores to the
    last bit.  Cost ``Q rx rt`` plane ANDs of N/64 words instead of a pass over N rows."""
    W = PA.shape[1]
    ej = np.int64(0)
    epa = np.int64(0)
    fj = np.int64(0)
    fpa = np.int64(0)
    fs = f_scale(lgt)
    lar = math.lgamma(aqr) if want_bdeu else 0.0
    la = math.lgamma(aq) if want_bdeu else 0.0
    cells = 0
    for u in range(Q):
        for b in range(rt):
            tb = planes[base + b]
            nub = 0
            for a in range(rx):
                row = PA[u * rx + a]
                c = np.uint64(0)
                for w in range(W):
                    c += popcount(row[w] & tb[w])
                v = np.int64(c)
                if v > 0:
                    cells += 1
                    nub += v
                    ej += lgt[v]
                    if want_bdeu:
                        fj += fixed(math.lgamma(aqr + v) - lar, fs)
            if nub > 0:
                epa += lgt[nub]
                if want_bdeu:
                    fpa += fixed(math.lgamma(aq + nub) - la, fs)
    eu = e_unit(lgt)
    return ej * eu - epa * eu, fj / fs - fpa / fs, cells


@numba.njit(cache=True, inline="always")
def half_down(a):
    """⌊a / 2⌋ of an integer, negative ones too (a {0, 1/2}-cut's rounding, shared with
    :mod:`lpbn.pricing_itemsets`)."""
    return (a - (a & 1)) // 2


@numba.njit(cache=True)
def singles(cols, arities, x, cand, kind, ess, unit, lgt, limit, cnt, pacnt, mapbuf, inC, lam, kc):
    """Reduced score of every single-parent set ``{cand[j]}`` (stored units)."""
    N = cols.shape[1]
    m = cand.shape[0]
    rx = arities[x]
    xcol = cols[x]
    zero = np.zeros(N, dtype=np.int64)
    codes = np.empty(N, dtype=np.int64)
    out = np.empty(m)
    for j in range(m):
        v = cand[j]
        extend_codes(zero, 1, cols[v], arities[v], codes, limit, mapbuf)
        q = float(arities[v])
        ll, bd, _ = family_stats(codes, xcol, rx, cnt, pacnt, lgt, kind == 3, ess / q, ess / (q * rx))
        b = 0.0
        for c in range(lam.shape[0]):
            if (1 if inC[c, v] else 0) < kc[c]:
                b += lam[c]
        out[j] = unit * local_score(kind, ll, bd, q, rx, N) + b
    return out


@numba.njit(cache=True)
def suffix_loglik(cols, arities, x, sfx, sQ, lgt, cnt, pacnt):
    """``LL(x | cand[j:])`` for every suffix (row ``j`` of :func:`lpbn.scoring.counting.suffix_codes`)."""
    rx = arities[x]
    out = np.empty(sfx.shape[0])
    for j in range(sfx.shape[0]):
        ll, _, _ = family_stats(sfx[j], cols[x], rx, cnt, pacnt, lgt, False, 1.0, 1.0)
        out[j] = ll
    return out


@numba.njit(cache=True)
def _record(buf_sets, buf_size, buf_r, buf_s, nbuf, path, d, cand, r, s):
    """Keep the set of the path (depth d) among the buffer's best; returns the new fill."""
    cap = buf_r.shape[0]
    if nbuf < cap:
        slot = nbuf
        nbuf += 1
    else:
        slot = 0
        for t in range(1, cap):
            if buf_r[t] < buf_r[slot]:
                slot = t
        if r <= buf_r[slot]:
            return nbuf
    for t in range(d):
        buf_sets[slot, t] = cand[path[t + 1]]
    buf_size[slot] = d
    buf_r[slot] = r
    buf_s[slot] = s
    return nbuf


@numba.njit(cache=True)
def _threshold(thr0, buf_r, nbuf):
    """The cut threshold: ``thr0``, raised to the buffer's worst once the buffer is full."""
    if nbuf < buf_r.shape[0]:
        return thr0
    w = buf_r[0]
    for t in range(1, nbuf):
        if buf_r[t] < w:
            w = buf_r[t]
    return max(thr0, w)


@numba.njit(cache=True)
def price_subtree(cols, arities, x, cand, j0, K, kind, ess, unit, lgt, limit, cnt, pacnt, mapbuf,
                  sfx, sQ, llsuf, minar, inC, lam, kc, entries, thr0, buf_sets, buf_size, buf_r, buf_s, nbuf, stats,
                  planes, pptr, PA):
    """Every parent set of ``x`` whose first position in ``cand`` is ``j0`` and size <= K:
    the best ones above the threshold (``thr0``, or the buffer's worst once it is full) go to
    the buffer (sets, sizes, reduced scores, scores; stored units), branches whose bound (see
    the module docstring) is at most the threshold are cut.  ``sfx``/``sQ``: suffix codes of
    ``cand``; ``llsuf[j] = LL(x | cand[j:])``; ``minar[j] = min arity of cand[j:]``.
    ``inC[c, v]``: v is in the c-th cluster that contains x (λ ``lam``, k ``kc``); ``entries``
    ``(conv, mu, ptr, rows)``: x's {0, 1/2}-cuts, entry t with coefficient
    ⌊(conv[t] − #{its rows ``rows[ptr[t]:ptr[t+1]]`` with no hit}) / 2⌋ and multiplier mu[t]
    (:class:`lpbn.lp.zero_half.Derivation`; it never falls as the set grows).
    ``planes``/``pptr``: the data's state bit planes (:class:`lpbn.scoring.bitplanes.BitPlanes`);
    the leaves (sets of K parents) are counted by popcounts over their parent node's joint
    planes (``PA``, :func:`leaf_stats`) when that costs fewer word operations than a pass over
    the rows.  Returns the buffer's new fill; ``stats`` (ST_*) is added to."""
    N = cols.shape[1]
    m = cand.shape[0]
    rx = arities[x]
    xcol = cols[x]
    ncl = lam.shape[0]
    ct_conv, ct_mu, ct_ptr, ct_rows = entries
    pc = penalty_coef(kind, N)
    codes = np.zeros((K + 1, N), dtype=np.int64)
    tmp = np.empty(N, dtype=np.int64)
    Qd = np.ones(K + 1, dtype=np.int64)
    qd = np.ones(K + 1)
    hits = np.zeros((K + 1, ncl), dtype=np.int64)
    path = np.zeros(K + 1, dtype=np.int64)
    nxt = np.zeros(K + 1, dtype=np.int64)
    maxar = 1
    for t in range(m):
        maxar = max(maxar, arities[cand[t]])
    W64 = PA.shape[1]
    planar = False            # the node at depth K - 1 has its joint planes in PA
    d = 0
    nxt[0] = j0
    stop0 = j0 + 1            # depth 0 has the one child j0
    while d >= 0:
        if d >= K or (d == 0 and nxt[0] >= stop0) or nxt[d] >= m:
            d -= 1
            continue
        j = nxt[d]
        nxt[d] += 1
        v = cand[j]
        e = d + 1
        q = qd[d] * arities[v]
        qd[e] = q
        if e == K and planar:
            ll, bd, cells = leaf_stats(PA, Qd[d], rx, planes, pptr[v], arities[v], lgt, kind == 3, ess / q,
                                       ess / (q * rx))
            stats[ST_PLANES] += 1
        else:
            Qd[e] = extend_codes(codes[d], Qd[d], cols[v], arities[v], codes[e], limit, mapbuf)
            ll, bd, cells = family_stats(codes[e], xcol, rx, cnt, pacnt, lgt, kind == 3, ess / q, ess / (q * rx))
        stats[ST_COUNTED] += 1
        s = unit * local_score(kind, ll, bd, q, rx, N)
        bonus = 0.0
        for c in range(ncl):
            hits[e, c] = hits[d, c] + (1 if inC[c, v] else 0)
            if hits[e, c] < kc[c]:
                bonus += lam[c]
        for t in range(ct_conv.shape[0]):
            a = ct_conv[t]
            for r in range(ct_ptr[t], ct_ptr[t + 1]):
                if hits[e, ct_rows[r]] == 0:
                    a -= 1
            bonus -= ct_mu[t] * half_down(a)
        path[e] = j
        T = _threshold(thr0, buf_r, nbuf)
        if s + bonus > T:
            nbuf = _record(buf_sets, buf_size, buf_r, buf_s, nbuf, path, e, cand, s + bonus, s)
            T = _threshold(thr0, buf_r, nbuf)
        if e >= K or j + 1 >= m:
            continue
        # the bound on every strict superset in the branch (module docstring)
        pen = pc * (rx - 1) * q * minar[j + 1]
        if kind == 3:
            cap = -math.log(rx) * cells if rx > 1 else 0.0
        else:
            cap = -pen
        if unit * cap + bonus <= T:
            stats[ST_CUT] += 1
            continue
        # LL(x | S ∪ W) >= LL(x | W): when even that cannot cut, do not count S ∪ W
        if unit * (min(llsuf[j + 1], cap + pen) - pen) + bonus > T:
            stats[ST_SKIPPED] += 1
            nxt[e] = j + 1
            d = e
            planar = _planes_pay(e, K, Qd[e], rx, maxar, W64, N, PA.shape[0])
            if planar:
                node_planes(codes[e], Qd[e], xcol, rx, PA)
            continue
        extend_codes(codes[e], Qd[e], sfx[j + 1], sQ[j + 1], tmp, limit, mapbuf)
        llw, _, _ = family_stats(tmp, xcol, rx, cnt, pacnt, lgt, False, 1.0, 1.0)
        stats[ST_BOUNDS] += 1
        if unit * (min(llw, cap + pen) - pen) + bonus <= T:
            stats[ST_CUT] += 1
            continue
        nxt[e] = j + 1
        d = e
        planar = _planes_pay(e, K, Qd[e], rx, maxar, W64, N, PA.shape[0])
        if planar:
            node_planes(codes[e], Qd[e], xcol, rx, PA)
    return nbuf


@numba.njit(cache=True, inline="always")
def _planes_pay(e, K, Q, rx, maxar, W64, N, rows):
    """Whether the leaves below a node at depth ``e`` are counted on planes: it is the last
    inner depth, its joint planes fit ``PA`` and ``Q rx r_t`` plane ANDs of N/64 words cost
    fewer word operations than a pass over the N rows."""
    return e == K - 1 and e >= 1 and Q * rx <= rows and Q * rx * maxar * W64 <= N
