"""Safe pruning of candidate parent sets while scoring (one variable ``X`` at a time).

Rules (each keeps, for ``k = 1``, an optimal DAG; for ``k > 1`` a set of k best DAGs):

a. **Parent limit** (:func:`degree_bound`).  Tian 2000 Thm 1 / Chen et al. Thm 2:
   ``|U| <= floor(log2(2N / log2 N))`` for MDL/BIC, applied in its exact per-variable form
   (Tian's eq. 34 with ``minMDL = MDL(X|∅)``, the exact entropies ``H(X|∅)`` and
   ``H(X|all others)`` and the actual arities; see :func:`tian_global_bound` for why the
   published closed form is only reported).
b. **Subset dominance** (Teyssier & Koller 2005; Chen et al. Thm 1, and Thm 3 for k-best):
   ``U`` is dropped when ``k`` of its proper subsets score at least as well.
c. **Depth-first branch and bound** (Tian 2000 §5, Fig. 3) over the set-enumeration tree in
   the tree order of eq. 14 (``H(X|X_k1) <= H(X|X_k2) <= ...``) with a K3 greedy start
   (Fig. 1).  Generalised to any variable ordering: a branch ``T ∪ {X_q} ...`` is cut when
   the bound of eq. 12, ``LL(X|T,W) - c·K(X|T)·r_q`` (the entropy lower bound of eqs. 12-13
   with ``H = -LL``), cannot beat the best (k-th best) score of a known proper subset of
   ``T ∪ {X_q}`` — every set in the branch is then subset-dominated.  Children are visited
   in decreasing tree position, so all subsets of a set are visited before it.
   ``H(X|T,W)`` is obtained from precomputed suffix codes of the tree order plus ``T``
   (``O(|T| N)`` per node instead of ``O(|W| N)``).
d. **Superset bounds** (de Campos & Ji 2011 style): for BIC/MDL/AIC the penalty bound above;
   for BDeu ``BDeu(S) <= LL(X|S) <= LL(X|T,W)`` (the Dirichlet-multinomial marginal is a
   mixture of multinomials, so it never exceeds the maximum likelihood) and, for S ⊇ T,
   ``BDeu(S) <= -ln(r_X) · #non-empty cells of the (T, X) table``.  Proof: write a
   configuration's marginal as the product over its rows of ``(a/r + m)/(a + t)``; its first
   row gives ``1/r`` and every later first occurrence of a state at most
   ``(a/r)/(a + 1) <= 1/r``, other rows at most 1.  A T-configuration with k observed states
   is split by S into J sub-configurations holding, together, at least k first
   occurrences, each worth at most ``ln(1/r)``.

In fixed-order mode (``global_ref``) the reference is the best score found so far over all
candidates (the paper's ``minMDL``), and only improving sets are recorded.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .counting import (DENSE_CELLS, extend_and_count, extend_and_count_dense, extend_codes,
                       family_parts, family_stats)
from .scores import local_score, penalty_coef


def degree_bound(kind: int, N: int, rx: int, parent_arities, ll_empty: float, ll_all: float,
                 k: int = 1) -> int:
    """Largest parent-set size that can be needed for X (penalised-LL scores only).

    ``k = 1`` (Tian 2000 eq. 34 with ``minMDL = MDL(X|∅)``, as any needed set must beat the
    empty set): a set U is needed only if ``c·(r_X-1)·(q_U - 1) < H(X|∅) - H(X|all)``.
    ``k > 1`` (Chen et al. Thm 5 / Corollary 1 with exact entropies): if
    ``H(X|∅) - H(X|all) <= ½·c·K(X|U)`` all ``2^|U| - 1`` proper subsets score at least as
    well, so sets with ``2^|U| - 1 >= k`` are not needed.  ``q_U`` is bounded below by the
    product of the ``|U|`` smallest parent arities (arities 1 excluded, see caller).
    Returns ``len(parent_arities)`` when nothing can be concluded (e.g. BDeu).
    """
    if kind == 3:
        return len(parent_arities)
    c = 0.5 * math.log(N) if kind != 1 else 1.0
    gap = (ll_all - ll_empty)  # = H(X|∅) - H(X|all) >= 0
    gap = max(gap, 0.0)
    slack = 1e-9 * (1.0 + abs(ll_empty))
    ars = sorted(int(a) for a in parent_arities)
    prod = 1.0
    for j, a in enumerate(ars, 1):
        prod *= a
        # gap == 0: no set has a better fit than the empty set, so the penalty decides
        if k <= 1:
            if c * (rx - 1) * (prod - 1.0) >= gap + slack or gap <= 0.0:
                return j - 1
        else:
            if 2 ** j - 1 >= k and (0.5 * c * (rx - 1) * prod >= gap + slack or gap <= 0.0):
                return j - 1
    return len(ars)


def tian_global_bound(N: int) -> int:
    """Tian 2000 Thm 1 / Chen et al. Thm 2 as published: ``floor(log2(2N / log2 N))``.

    Reported only.  Tian's derivation (eqs. 16-27) gives ``2^d <= 1 + 2N/log2 N``, so the
    published floor can be one too small when ``2N/log2 N`` lies in ``[2^j - 1, 2^j)``
    (e.g. N = 40: 15.04, published D = 3, but a 4-parent set of a uniform binary X that is a
    function of 4 binary parents can beat the empty set).  lpbn applies the exact
    per-variable form (:func:`degree_bound`), which is never looser than the corrected
    ``floor(log2(1 + 2N/log2 N))``.
    """
    if N < 2:
        return 0
    return int(math.floor(math.log2(2.0 * N / math.log2(N))))


def chen_corollary1(N: int, k: int, c_bits: float | None = None) -> int:
    """Chen et al. Corollary 1: ``d = floor(log2(2N / c))`` with the penalty coefficient in bits
    (``c = ½ log2 N`` for BIC/MDL, ``1/ln 2`` for AIC), inflated to the smallest ``d' >= d``
    with ``k <= 2^(d'+1) - 1`` when k is larger."""
    if N < 2:
        return 0
    c = 0.5 * math.log2(N) if c_bits is None else c_bits
    d = int(math.floor(math.log2(2.0 * N / c)))
    while k > 2 ** (d + 1) - 1:
        d += 1
    return d


@numba.njit(cache=True)
def _key(items, d, B):
    key = 0
    mul = 1
    for i in range(d):
        key += (items[i] + 1) * mul
        mul *= B
    return key


@numba.njit(cache=True)
def superset_bound(kind, ll_ub, qC, rx, cellsT, N):
    """Upper bound on the score of every S ⊇ T ∪ {q} (see the module docstring, rule d):
    ``ll_ub`` bounds LL(X|S), ``qC`` = q of T ∪ {q}, ``cellsT`` = non-empty cells of (T, X)."""
    if kind == 3:
        b2 = -math.log(rx) * cellsT if rx > 1 else 0.0
        return min(ll_ub, b2)
    return ll_ub - penalty_coef(kind, N) * (rx - 1) * qC


@numba.njit(cache=True, inline="always")
def _ht_slot(hk, key):
    """Open-addressing slot of ``key`` in the key array ``hk`` (power-of-two size, -1 = free)."""
    mask = hk.shape[0] - 1
    x = np.uint64(key)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    h = np.int64(x & np.uint64(mask))
    while True:
        k = hk[h]
        if k == key or k == -1:
            return h
        h = (h + 1) & mask


@numba.njit(cache=True, inline="always")
def _ht_get(hk, key):
    """Slot of ``key`` or -1."""
    if hk.shape[0] < 2:
        return -1
    h = _ht_slot(hk, key)
    return h if hk[h] == key else -1


@numba.njit(cache=True, inline="always")
def _ht_put(hk, hstate, cap, key):
    """Slot for ``key`` (inserted if absent and the table holds fewer than ``cap``), or -1."""
    if hk.shape[0] < 2:
        return -1
    h = _ht_slot(hk, key)
    if hk[h] == key:
        return h
    if hstate[0] >= cap:
        return -1
    hk[h] = key
    hstate[0] += 1
    return h


@numba.njit(cache=True, inline="always")
def _ht_store(hk, hE, hF, hZ, hstate, cap, key, e, f, z):
    h = _ht_put(hk, hstate, cap, key)
    if h >= 0:
        hE[h] = e
        hF[h] = f
        hZ[h] = z


def new_joint_table(n_sets: int, cap: int):
    """Arrays of the joint-table memo for about ``n_sets`` variable sets (at most ``cap``)."""
    want = max(16, min(int(n_sets), int(cap)))
    size = 1 << int(math.ceil(math.log2(2 * want)))
    return (np.full(size, -1, dtype=np.int64), np.zeros(size), np.zeros(size),
            np.zeros(size, dtype=np.int64), np.zeros(1, dtype=np.int64), int(min(cap, size // 2)))


@numba.njit(cache=True)
def dfbnb_family(cols, arities, x, order, maxp, kind, ess, k, lgt, ll_all, sfx, sQ, use_tw,
                 global_ref, k3_sets, k3_scores, qlimit, cnt, pacnt, mapbuf, use_bnb, use_dom,
                 hk, hE, hF, hZ, hstate, jcap, lsize):
    # use_ent: the entropy rule (de Campos et al. 2018) for penalised scores, k = 1
    """Tian's DFBnB for variable ``x`` over candidate parents ``order`` (tree order).

    ``cnt`` (>= qlimit * r_X cells), ``pacnt`` (>= qlimit) and ``mapbuf`` are zeroed scratch
    buffers, returned zeroed (reused across variables).
    Returns ``(sets (cap, maxp) positions, sizes, scores, n_out, stats)`` where ``stats`` =
    [families counted, branches cut, H(X|T,W) bounds computed, memo size, joint-memo hits,
    entropy-rule cuts].  ``lsize``: expected number of evaluated sets (sizes the memo).

    The joint-table memo (``hk`` keys, ``hE``/``hF``/``hZ`` values, ``hstate`` = [#entries],
    see :func:`new_joint_table`) maps a variable set (over all variables) to ``E(S)``,
    ``F(S)`` and its number of non-empty configurations (see :func:`.counting._finish`); it
    persists across variables, so ``LL(X|C) = E(C+X) - E(C)`` is often obtained without a
    counting pass (the joint table of C+X was counted for another child).  At most ``jcap``
    entries.
    """
    N = cols.shape[1]
    m = order.shape[0]
    rx = arities[x]
    xcol = cols[x]
    want_bdeu = kind == 3
    D = max(maxp, 0)
    codes = np.zeros((D + 1, N), dtype=np.int64)
    Qd = np.ones(D + 1, dtype=np.int64)
    path = np.zeros(D + 1, dtype=np.int64)
    qprod = np.ones(D + 1, dtype=np.float64)
    bestsub = np.full(D + 1, -np.inf)
    scored = np.full(D + 1, -np.inf)
    nzd = np.ones(D + 1, dtype=np.int64)
    lltw = np.zeros(D + 1)
    has_tw = np.zeros(D + 1, dtype=np.bool_)
    has_codes = np.zeros(D + 2, dtype=np.bool_)
    has_codes[0] = True
    nextpos = np.zeros(D + 1, dtype=np.int64)
    twa = np.empty(N, dtype=np.int64)
    twb = np.empty(N, dtype=np.int64)
    sub = np.zeros(D + 1, dtype=np.int64)
    topk = np.full(max(k, 1), -np.inf)
    stats = np.zeros(6, dtype=np.int64)
    use_ent = use_bnb and k == 1 and kind != 3
    cpen = penalty_coef(kind, N) * (rx - 1)
    excl = np.zeros((D + 1, max(m, 1)), dtype=np.bool_)
    keyd = np.zeros(D + 2, dtype=np.int64)
    B = m + 1
    nvar = cols.shape[0]
    JB = nvar + 1
    jlim = 1.0
    for _ in range(D + 2):
        jlim *= JB
    joint_ok = jlim < 4.0e18 and jcap > 0
    gv = np.zeros(D + 2, dtype=np.int64)
    memo_ok = True
    lim = 1.0
    for _ in range(D + 1):
        lim *= B
    if lim > 4.0e18:
        memo_ok = False
    # per-variable memo of evaluated sets (tree positions): score and best-subset score
    lsz = 16
    while lsz < 2 * min(max(lsize, 8), 1 << 20):
        lsz *= 2
    lk = np.full(lsz, -1, dtype=np.int64)
    lv = np.zeros(lsz)
    lb = np.zeros(lsz)
    lstate = np.zeros(1, dtype=np.int64)
    lcap = lsz // 2
    cap = 256
    out_sets = np.zeros((cap, D + 1), dtype=np.int64)
    out_size = np.zeros(cap, dtype=np.int64)
    out_score = np.zeros(cap)
    n_out = 0

    # ---- the empty set (root)
    ll, bd, nz = family_stats(codes[0], xcol, rx, cnt, pacnt, lgt, want_bdeu, ess, ess / rx)
    stats[0] += 1
    s0 = local_score(kind, ll, bd, 1.0, rx, N)
    scored[0] = s0
    bestsub[0] = s0
    nzd[0] = nz
    h = _ht_put(lk, lstate, lcap, 0)
    lv[h] = s0
    lb[h] = s0
    h0 = _ht_put(hk, hstate, jcap, 0)
    if h0 >= 0:
        hE[h0] = lgt[N]  # E(∅) = N log N
    out_size[0] = 0
    out_score[0] = s0
    n_out = 1
    gbest = s0
    # ---- K3 greedy start (Tian Fig. 1): seed the memo / the global reference
    for t in range(k3_scores.shape[0]):
        kk = 0
        for i in range(k3_sets.shape[1]):
            if k3_sets[t, i] >= 0:
                sub[kk] = k3_sets[t, i]
                kk += 1
        if memo_ok:
            key = _key(sub, kk, B)
            h = _ht_put(lk, lstate, lcap, key)
            if h >= 0:
                lv[h] = k3_scores[t]
                lb[h] = -np.inf
        if k3_scores[t] > gbest:
            gbest = k3_scores[t]
    if D == 0:
        return out_sets[:n_out], out_size[:n_out], out_score[:n_out], n_out, stats

    d = 0
    nextpos[0] = m - 1
    while d >= 0:
        last = path[d - 1] if d > 0 else -1
        if d >= D or nextpos[d] <= last:
            d -= 1
            continue
        pos = nextpos[d]
        nextpos[d] -= 1
        if use_ent and excl[d, pos]:
            stats[5] += 1
            continue
        q = order[pos]
        rq = arities[q]
        qC = qprod[d] * rq
        path[d] = pos
        # --- reference: best (k-th best) score of known proper subsets of C = T + {q}
        if k == 1:
            refsub = bestsub[d]
            if memo_ok:
                for i in range(d):
                    kk = 0
                    for j in range(d + 1):
                        if j != i:
                            sub[kk] = path[j]
                            kk += 1
                    h = _ht_get(lk, _key(sub, kk, B))
                    v = lb[h] if h >= 0 else -np.inf
                    if v > refsub:
                        refsub = v
        else:
            for t in range(k):
                topk[t] = -np.inf
            if memo_ok:
                full = (1 << (d + 1)) - 1
                for mask in range(full):
                    kk = 0
                    for j in range(d + 1):
                        if mask & (1 << j):
                            sub[kk] = path[j]
                            kk += 1
                    key = _key(sub, kk, B)
                    h = _ht_get(lk, key)
                    if h >= 0:
                        v = lv[h]
                        if v > topk[k - 1]:
                            t = k - 1
                            while t > 0 and topk[t - 1] < v:
                                topk[t] = topk[t - 1]
                                t -= 1
                            topk[t] = v
            else:
                for j in range(d + 1):
                    v = scored[j]
                    if v > topk[k - 1]:
                        t = k - 1
                        while t > 0 and topk[t - 1] < v:
                            topk[t] = topk[t - 1]
                            t -= 1
                        topk[t] = v
            refsub = topk[k - 1]
        ref = refsub
        if global_ref and gbest > ref:
            ref = gbest
        tol = 1e-9 * (1.0 + abs(ref))
        # --- branch bound (eqs. 12-13): every S with C ⊆ S ⊆ T ∪ W
        ub = superset_bound(kind, ll_all, qC, rx, nzd[d], N) if use_bnb else np.inf
        if ub < ref - tol:
            stats[1] += 1
            continue
        if use_bnb and use_tw and d > 0:
            if not has_tw[d]:
                # H(X | T, W) with W = tree positions after last(T): suffix codes + T's columns
                Q = sQ[last + 1]
                src = sfx[last + 1]
                for i in range(d):
                    v = order[path[i]]
                    Q = extend_codes(src, Q, cols[v], arities[v], twa, qlimit, mapbuf)
                    twa, twb = twb, twa
                    src = twb
                llt, _, _ = family_stats(src, xcol, rx, cnt, pacnt, lgt, False, 1.0, 1.0)
                lltw[d] = llt
                has_tw[d] = True
                stats[2] += 1
            ub = superset_bound(kind, lltw[d], qC, rx, nzd[d], N)
            if ub < ref - tol:
                stats[1] += 1
                continue
        # --- evaluate C (fused code extension and counting unless codes need compressing)
        key = _key(path, d + 1, B) if memo_ok else -1
        hkey = _ht_get(lk, key) if memo_ok else -1
        known = hkey >= 0
        aq = ess / qC
        fresh = False
        cut_below = False
        # keys of C and C+X over global variable ids (sorted), for the joint memo
        keyC = -1
        keyCX = -1
        if joint_ok:
            for j in range(d + 1):
                v = order[path[j]]
                t = j
                while t > 0 and gv[t - 1] > v:
                    gv[t] = gv[t - 1]
                    t -= 1
                gv[t] = v
            keyC, keyCX = _joint_keys(gv, d + 1, x, JB)
            # entropy rule: N·H(Y|T) <= c (r_X - 1)(r_Y - 1) q_T  =>  every S ⊇ T+Y in this
            # subtree scores no better than S - Y (de Campos, Scanagatta, Corani & Zaffalon 2018)
            hC = _ht_get(hk, keyC)
            hCX = _ht_get(hk, keyCX)
            hT = _ht_get(hk, keyd[d])
            if use_ent and hC >= 0 and hT >= 0:
                hy = hE[hT] - hE[hC]
                if hy < cpen * (rq - 1) * qprod[d] - 1e-9 * (1.0 + abs(hy)):
                    excl[d, pos] = True
                    stats[5] += 1
                    continue
        if known:
            sc = lv[hkey]
            nz = hZ[hCX] if (joint_ok and hCX >= 0 and hZ[hCX] > 0) else 1  # 1: a valid weaker count
        elif joint_ok and hC >= 0 and hCX >= 0:
            ll = hE[hCX] - hE[hC]
            bd = hF[hCX] - hF[hC] if want_bdeu else 0.0
            nz = hZ[hCX] if hZ[hCX] > 0 else 1
            stats[4] += 1
            sc = local_score(kind, ll, bd, qC, rx, N)
        else:
            # codes of T are materialised lazily (memo hits need none)
            j0 = d
            while not has_codes[j0]:
                j0 -= 1
            for j in range(j0, d):
                v = order[path[j]]
                Qd[j + 1] = extend_codes(codes[j], Qd[j], cols[v], arities[v], codes[j + 1], qlimit, mapbuf)
                has_codes[j + 1] = True
            fresh = True
            if Qd[d] * rq * rx <= DENSE_CELLS:
                Qd[d + 1] = Qd[d] * rq
                ej, epa, fj, fpa, npa, nz = extend_and_count_dense(codes[d], cols[q], rq, codes[d + 1], xcol, rx,
                                                              Qd[d + 1], cnt, lgt, want_bdeu, aq, aq / rx)
            elif Qd[d] * rq <= qlimit:
                Qd[d + 1] = Qd[d] * rq
                ej, epa, fj, fpa, npa, nz = extend_and_count(codes[d], cols[q], rq, codes[d + 1], xcol, rx,
                                                        cnt, pacnt, twa, twb, lgt, want_bdeu, aq, aq / rx)
            else:
                Qd[d + 1] = extend_codes(codes[d], Qd[d], cols[q], rq, codes[d + 1], qlimit, mapbuf)
                ej, epa, fj, fpa, npa, nz = family_parts(codes[d + 1], xcol, rx, cnt, pacnt, lgt, want_bdeu,
                                                    aq, aq / rx)
            ll = ej - epa
            bd = fj - fpa
            if joint_ok:
                _ht_store(hk, hE, hF, hZ, hstate, jcap, keyC, epa, fpa, npa)
                _ht_store(hk, hE, hF, hZ, hstate, jcap, keyCX, ej, fj, nz)
            stats[0] += 1
            sc = local_score(kind, ll, bd, qC, rx, N)
            if use_ent and joint_ok and hT >= 0:
                hy = hE[hT] - epa
                if hy < cpen * (rq - 1) * qprod[d] - 1e-9 * (1.0 + abs(hy)):
                    excl[d, pos] = True
                    stats[5] += 1
                    cut_below = True
        if memo_ok:
            h = _ht_put(lk, lstate, lcap, key)
            if h >= 0:
                lv[h] = sc
                lb[h] = max(sc, refsub)
        record = sc > refsub or not use_dom
        if global_ref:
            record = sc > gbest
        if sc > gbest:
            gbest = sc
        if record:
            if n_out >= out_score.shape[0]:
                cap2 = 2 * out_score.shape[0]
                o1 = np.zeros((cap2, D + 1), dtype=np.int64)
                o1[:n_out] = out_sets[:n_out]
                out_sets = o1
                o2 = np.zeros(cap2, dtype=np.int64)
                o2[:n_out] = out_size[:n_out]
                out_size = o2
                o3 = np.zeros(cap2)
                o3[:n_out] = out_score[:n_out]
                out_score = o3
            for j in range(d + 1):
                out_sets[n_out, j] = order[path[j]]
            out_size[n_out] = d + 1
            out_score[n_out] = sc
            n_out += 1
        # --- descend
        if d + 1 < D and not cut_below:
            keyd[d + 1] = keyC
            if use_ent:
                excl[d + 1, :] = excl[d, :]
            qprod[d + 1] = qC
            bestsub[d + 1] = max(sc, refsub)
            scored[d + 1] = sc
            nzd[d + 1] = nz
            has_tw[d + 1] = False
            has_codes[d + 1] = fresh
            nextpos[d + 1] = m - 1
            d += 1
    stats[3] = lstate[0]
    return out_sets[:n_out], out_size[:n_out], out_score[:n_out], n_out, stats


@numba.njit(cache=True)
def _joint_keys(gv, n_in, x, JB):
    """Keys of the sorted set ``gv[:n_in]`` and of the same set plus ``x``."""
    keyC = _key(gv, n_in, JB)
    keyCX = 0
    mul = 1
    placed = False
    for j in range(n_in):
        if not placed and x < gv[j]:
            keyCX += (x + 1) * mul
            mul *= JB
            placed = True
        keyCX += (gv[j] + 1) * mul
        mul *= JB
    if not placed:
        keyCX += (x + 1) * mul
    return keyC, keyCX


@numba.njit(cache=True)
def k3_greedy(cols, arities, x, cand, maxp, kind, ess, lgt, qlimit, cnt, pacnt, mapbuf,
              hk, hE, hF, hZ, hstate, jcap):
    """K3 (Bouckaert 1994; Tian 2000 Fig. 1): add the best single parent while it improves.

    Returns the chain of sets (rows padded with -1, entries are indices into ``cand``) and
    their scores.  Uses and fills the joint memo (see :func:`dfbnb_family`).
    """
    N = cols.shape[1]
    nvar = cols.shape[0]
    rx = arities[x]
    xcol = cols[x]
    want_bdeu = kind == 3
    D = max(maxp, 0)
    JB = nvar + 1
    jlim = 1.0
    for _ in range(D + 2):
        jlim *= JB
    joint_ok = jlim < 4.0e18 and jcap > 0
    sets = np.full((D + 1, D + 1), -1, dtype=np.int64)
    scs = np.zeros(D + 1)
    cur = np.zeros(N, dtype=np.int64)
    tmp = np.zeros(N, dtype=np.int64)
    sc1 = np.empty(N, dtype=np.int64)
    sc2 = np.empty(N, dtype=np.int64)
    gv = np.zeros(D + 2, dtype=np.int64)
    Q = 1
    ll, bd, nz = family_stats(cur, xcol, rx, cnt, pacnt, lgt, want_bdeu, ess, ess / rx)
    best = local_score(kind, ll, bd, 1.0, rx, N)
    scs[0] = best
    used = np.zeros(cand.shape[0], dtype=np.bool_)
    qcur = 1.0
    nset = 1
    chosen = np.zeros(D + 1, dtype=np.int64)
    for step in range(D):
        bi = -1
        bsc = -np.inf
        for i in range(cand.shape[0]):
            if used[i]:
                continue
            v = cand[i]
            qC = qcur * arities[v]
            aq = ess / qC
            hit = False
            keyC = -1
            keyCX = -1
            if joint_ok:
                nin = 0
                for j in range(step):
                    gv[nin] = cand[chosen[j]]
                    nin += 1
                gv[nin] = v
                nin += 1
                for a in range(1, nin):
                    t = a
                    while t > 0 and gv[t - 1] > gv[t]:
                        tmpv = gv[t]
                        gv[t] = gv[t - 1]
                        gv[t - 1] = tmpv
                        t -= 1
                keyC, keyCX = _joint_keys(gv, nin, x, JB)
                hC = _ht_get(hk, keyC)
                hCX = _ht_get(hk, keyCX)
                hit = hC >= 0 and hCX >= 0
            if hit:
                ll = hE[hCX] - hE[hC]
                bd = hF[hCX] - hF[hC] if want_bdeu else 0.0
            else:
                if Q * arities[v] * rx <= DENSE_CELLS:
                    ej, epa, fj, fpa, npa, nz = extend_and_count_dense(cur, cols[v], arities[v], tmp, xcol, rx,
                                                                  Q * arities[v], cnt, lgt, want_bdeu, aq,
                                                                  aq / rx)
                elif Q * arities[v] <= qlimit:
                    ej, epa, fj, fpa, npa, nz = extend_and_count(cur, cols[v], arities[v], tmp, xcol, rx, cnt,
                                                            pacnt, sc1, sc2, lgt, want_bdeu, aq, aq / rx)
                else:
                    extend_codes(cur, Q, cols[v], arities[v], tmp, qlimit, mapbuf)
                    ej, epa, fj, fpa, npa, nz = family_parts(tmp, xcol, rx, cnt, pacnt, lgt, want_bdeu, aq, aq / rx)
                ll = ej - epa
                bd = fj - fpa
                if joint_ok:
                    _ht_store(hk, hE, hF, hZ, hstate, jcap, keyC, epa, fpa, npa)
                    _ht_store(hk, hE, hF, hZ, hstate, jcap, keyCX, ej, fj, nz)
            sc = local_score(kind, ll, bd, qC, rx, N)
            if sc > bsc:
                bsc = sc
                bi = i
        if bi < 0 or bsc <= best:
            break
        used[bi] = True
        best = bsc
        v = cand[bi]
        Q = extend_codes(cur, Q, cols[v], arities[v], tmp, qlimit, mapbuf)
        cur, tmp = tmp, cur
        qcur *= arities[v]
        chosen[step] = bi
        for j in range(step + 1):
            sets[nset, j] = chosen[j]
        scs[nset] = bsc
        nset += 1
    return sets[:nset], scs[:nset]
