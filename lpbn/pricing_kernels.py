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
reuses :mod:`lpbn.scoring.counting` (mixed-radix codes, compression, fixed-point sums).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .scoring.counting import extend_codes, family_stats
from .scoring.scores import local_score, penalty_coef

# columns of the stats array the subtree kernel adds to
ST_COUNTED, ST_CUT, ST_BOUNDS, ST_SKIPPED = range(4)


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
                  sfx, sQ, llsuf, minar, inC, lam, kc, thr0, buf_sets, buf_size, buf_r, buf_s, nbuf, stats):
    """Every parent set of ``x`` whose first position in ``cand`` is ``j0`` and size <= K:
    the best ones above the threshold (``thr0``, or the buffer's worst once it is full) go to
    the buffer (sets, sizes, reduced scores, scores; stored units), branches whose bound (see
    the module docstring) is at most the threshold are cut.  ``sfx``/``sQ``: suffix codes of
    ``cand``; ``llsuf[j] = LL(x | cand[j:])``; ``minar[j] = min arity of cand[j:]``.
    ``inC[c, v]``: v is in the c-th cluster that contains x (λ ``lam``, k ``kc``).
    Returns the buffer's new fill; ``stats`` (ST_*) is added to."""
    N = cols.shape[1]
    m = cand.shape[0]
    rx = arities[x]
    xcol = cols[x]
    ncl = lam.shape[0]
    pc = penalty_coef(kind, N)
    codes = np.zeros((K + 1, N), dtype=np.int64)
    tmp = np.empty(N, dtype=np.int64)
    Qd = np.ones(K + 1, dtype=np.int64)
    qd = np.ones(K + 1)
    hits = np.zeros((K + 1, ncl), dtype=np.int64)
    path = np.zeros(K + 1, dtype=np.int64)
    nxt = np.zeros(K + 1, dtype=np.int64)
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
        Qd[e] = extend_codes(codes[d], Qd[d], cols[v], arities[v], codes[e], limit, mapbuf)
        q = qd[d] * arities[v]
        qd[e] = q
        ll, bd, cells = family_stats(codes[e], xcol, rx, cnt, pacnt, lgt, kind == 3, ess / q, ess / (q * rx))
        stats[ST_COUNTED] += 1
        s = unit * local_score(kind, ll, bd, q, rx, N)
        bonus = 0.0
        for c in range(ncl):
            hits[e, c] = hits[d, c] + (1 if inC[c, v] else 0)
            if hits[e, c] < kc[c]:
                bonus += lam[c]
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
            continue
        extend_codes(codes[e], Qd[e], sfx[j + 1], sQ[j + 1], tmp, limit, mapbuf)
        llw, _, _ = family_stats(tmp, xcol, rx, cnt, pacnt, lgt, False, 1.0, 1.0)
        stats[ST_BOUNDS] += 1
        if unit * (min(llw, cap + pen) - pen) + bonus <= T:
            stats[ST_CUT] += 1
            continue
        nxt[e] = j + 1
        d = e
    return nbuf
