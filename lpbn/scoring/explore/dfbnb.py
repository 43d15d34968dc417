"""Tian 2000's depth-first branch and bound over the set-enumeration tree of one variable
(§5, Fig. 3) with the K3 greedy start (Fig. 1); the pruning rules are those of
:mod:`lpbn.scoring.pruning` (parent limits, subset dominance, eq. 12 entropy bounds,
superset bounds, and the entropy rule of de Campos, Scanagatta, Corani & Zaffalon 2018).

The search visits ``C = T ∪ {q}`` for every node T of the tree (candidate parents in the tree
order of eq. 14, children in decreasing tree position so every subset of a set is visited
before it).  Per node: the reference (best, or k-th best, score of a known proper subset),
the bounds that may cut the whole branch (:func:`superset_bound`, :func:`tw_loglik`), the
exact score (from the memos, or one counting pass, :func:`count_set`), the record
(:func:`append_set`) and the descent.  The per-node steps that hit the memos stay inline in
:func:`dfbnb_family`: a numba call with some thirty array arguments costs more than a memo
lookup (splitting them out made the wdbc scoring 40% slower, 27 s -> 38 s).
"""

from __future__ import annotations

import numba
import numpy as np

from ..counting import (DENSE_CELLS, e_unit, extend_and_count, extend_and_count_dense, extend_codes,
                        family_parts, family_stats)
from ..pruning import superset_bound
from ..scores import local_score, penalty_coef
from .memo import ht_get, ht_put, ht_store, joint_keys, set_key

# columns of the stats array returned by dfbnb_family
ST_COUNTED, ST_CUT, ST_TW, ST_MEMO, ST_JOINT_HITS, ST_ENTROPY = range(6)


@numba.njit(cache=True)
def dfbnb_family(cols, arities, x, order, maxp, kind, ess, k, lgt, ll_all, sfx, sQ, use_tw,
                 global_ref, k3_sets, k3_scores, qlimit, cnt, pacnt, mapbuf, use_bnb, use_dom,
                 hk, hE, hF, hZ, hstate, jcap, lsize):
    """Tian's DFBnB for variable ``x`` over candidate parents ``order`` (tree order).

    ``cnt`` (>= qlimit * r_X cells), ``pacnt`` (>= qlimit) and ``mapbuf`` are zeroed scratch
    buffers, returned zeroed (reused across variables).  ``hk, hE, hF, hZ, hstate, jcap`` is
    the joint-table memo (:func:`lpbn.scoring.explore.memo.new_joint_table`), which persists
    across variables.  ``lsize``: expected number of evaluated sets (sizes the per-variable
    memo).  ``use_bnb``/``use_dom`` switch the bounds and dominance off (tests).
    Returns ``(sets (cap, maxp) variables, sizes, scores, n_out, stats)`` where ``stats`` =
    [families counted, branches cut, H(X|T,W) bounds computed, memo size, joint-memo hits,
    entropy-rule cuts].
    """
    N = cols.shape[1]
    m = order.shape[0]
    rx = arities[x]
    xcol = cols[x]
    want_bdeu = kind == 3
    D = max(maxp, 0)
    # per-depth state of the current path
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
    keyd = np.zeros(D + 2, dtype=np.int64)
    twa = np.empty(N, dtype=np.int64)
    twb = np.empty(N, dtype=np.int64)
    sub = np.zeros(D + 1, dtype=np.int64)
    topk = np.full(max(k, 1), -np.inf)
    gv = np.zeros(D + 2, dtype=np.int64)
    stats = np.zeros(6, dtype=np.int64)
    # the entropy rule (de Campos et al. 2018) for penalised scores, k = 1
    use_ent = use_bnb and k == 1 and kind != 3
    cpen = penalty_coef(kind, N) * (rx - 1)
    excl = np.zeros((D + 1, max(m, 1)), dtype=np.bool_)
    B = m + 1
    JB = cols.shape[0] + 1
    joint_ok = _fits_keys(JB, D + 2) and jcap > 0
    memo_ok = _fits_keys(B, D + 1)
    lk, lv, lb, lstate, lcap = _local_memo(lsize)
    out_sets = np.zeros((256, D + 1), dtype=np.int64)
    out_size = np.zeros(256, dtype=np.int64)
    out_score = np.zeros(256)

    # ---- the empty set (root)
    ll, bd, nz = family_stats(codes[0], xcol, rx, cnt, pacnt, lgt, want_bdeu, ess, ess / rx)
    stats[ST_COUNTED] += 1
    s0 = local_score(kind, ll, bd, 1.0, rx, N)
    scored[0] = s0
    bestsub[0] = s0
    nzd[0] = nz
    h = ht_put(lk, lstate, lcap, 0)
    lv[h] = s0
    lb[h] = s0
    h0 = ht_put(hk, hstate, jcap, 0)
    if h0 >= 0:
        hE[h0] = lgt[N] * e_unit(lgt)  # E(∅) = N log N (lgt in fixed point)
    out_score[0] = s0
    n_out = 1
    gbest = _seed_k3(k3_sets, k3_scores, sub, lk, lv, lb, lstate, lcap, memo_ok, B, s0)
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
            stats[ST_ENTROPY] += 1
            continue
        q = order[pos]
        rq = arities[q]
        qC = qprod[d] * rq
        path[d] = pos
        # --- reference: best (k-th best) score of a known proper subset of C
        if k == 1:
            refsub = bestsub[d]
            if memo_ok:
                for i in range(d):
                    kk = 0
                    for j in range(d + 1):
                        if j != i:
                            sub[kk] = path[j]
                            kk += 1
                    h = ht_get(lk, set_key(sub, kk, B))
                    if h >= 0 and lb[h] > refsub:
                        refsub = lb[h]
        else:
            refsub = kth_subset_score(k, d, path, sub, topk, lk, lv, memo_ok, B, scored)
        ref = refsub
        if global_ref and gbest > ref:
            ref = gbest
        tol = 1e-9 * (1.0 + abs(ref))
        # --- branch bounds (eqs. 12-13): every S with C ⊆ S ⊆ T ∪ W
        if use_bnb:
            if superset_bound(kind, ll_all, qC, rx, nzd[d], N) < ref - tol:
                stats[ST_CUT] += 1
                continue
            if use_tw and d > 0:
                if not has_tw[d]:
                    lltw[d] = tw_loglik(cols, arities, order, path, d, last, sfx, sQ, twa, twb, qlimit, mapbuf,
                                        xcol, rx, cnt, pacnt, lgt)
                    has_tw[d] = True
                    stats[ST_TW] += 1
                if superset_bound(kind, lltw[d], qC, rx, nzd[d], N) < ref - tol:
                    stats[ST_CUT] += 1
                    continue
        # --- keys of C and C + X over global variable ids, for the joint memo
        keyC = -1
        keyCX = -1
        hT = -1
        hC = -1
        hCX = -1
        if joint_ok:
            _sorted_globals(order, path, d, gv)
            keyC, keyCX = joint_keys(gv, d + 1, x, JB)
            hT = ht_get(hk, keyd[d])
            hC = ht_get(hk, keyC)
            hCX = ht_get(hk, keyCX)
            # entropy rule: N·H(Y|T) <= c (r_X - 1)(r_Y - 1) q_T  =>  every S ⊇ T+Y in this
            # subtree scores no better than S - Y (de Campos, Scanagatta, Corani & Zaffalon 2018)
            if use_ent and hC >= 0 and hT >= 0 and _entropy_cut(hE[hT] - hE[hC], cpen, rq, qprod[d]):
                excl[d, pos] = True
                stats[ST_ENTROPY] += 1
                continue
        key = set_key(path, d + 1, B) if memo_ok else -1
        hkey = ht_get(lk, key) if memo_ok else -1
        # --- the exact score: per-variable memo, joint memo, or one counting pass
        fresh = False
        epa = 0.0
        if hkey >= 0:
            sc = lv[hkey]
            nz = hZ[hCX] if (hCX >= 0 and hZ[hCX] > 0) else 1   # 1: a valid weaker count
        elif hC >= 0 and hCX >= 0:
            bd = hF[hCX] - hF[hC] if want_bdeu else 0.0
            nz = hZ[hCX] if hZ[hCX] > 0 else 1
            stats[ST_JOINT_HITS] += 1
            sc = local_score(kind, hE[hCX] - hE[hC], bd, qC, rx, N)
        else:
            ej, epa, fj, fpa, npa, nz = count_set(cols, arities, x, order, path, d, codes, Qd, has_codes,
                                                  want_bdeu, lgt, qlimit, cnt, pacnt, mapbuf, twa, twb, ess / qC)
            if joint_ok:
                ht_store(hk, hE, hF, hZ, hstate, jcap, keyC, epa, fpa, npa)
                ht_store(hk, hE, hF, hZ, hstate, jcap, keyCX, ej, fj, nz)
            fresh = True
            stats[ST_COUNTED] += 1
            sc = local_score(kind, ej - epa, fj - fpa, qC, rx, N)
        cut_below = False
        if fresh and use_ent and joint_ok and hT >= 0 and _entropy_cut(hE[hT] - epa, cpen, rq, qprod[d]):
            excl[d, pos] = True
            stats[ST_ENTROPY] += 1
            cut_below = True
        if memo_ok:
            h = ht_put(lk, lstate, lcap, key)
            if h >= 0:
                lv[h] = sc
                lb[h] = max(sc, refsub)
        record = sc > refsub or not use_dom
        if global_ref:
            record = sc > gbest
        if sc > gbest:
            gbest = sc
        if record:
            out_sets, out_size, out_score = append_set(out_sets, out_size, out_score, n_out, order, path, d, sc)
            n_out += 1
        # --- descend
        if d + 1 < D and not cut_below:
            keyd[d + 1] = keyC
            if use_ent:
                for t in range(excl.shape[1]):
                    excl[d + 1, t] = excl[d, t]
            qprod[d + 1] = qC
            bestsub[d + 1] = max(sc, refsub)
            scored[d + 1] = sc
            nzd[d + 1] = nz
            has_tw[d + 1] = False
            has_codes[d + 1] = fresh
            nextpos[d + 1] = m - 1
            d += 1
    stats[ST_MEMO] = lstate[0]
    return out_sets[:n_out], out_size[:n_out], out_score[:n_out], n_out, stats


@numba.njit(cache=True)
def _fits_keys(base, digits):
    """True when keys of ``digits`` digits in ``base`` fit an int64."""
    lim = 1.0
    for _ in range(digits):
        lim *= base
    return lim < 4.0e18


@numba.njit(cache=True)
def _local_memo(lsize):
    """Per-variable memo of evaluated sets (tree positions): keys, score, best-subset score."""
    lsz = 16
    while lsz < 2 * min(max(lsize, 8), 1 << 20):
        lsz *= 2
    return (np.full(lsz, -1, dtype=np.int64), np.zeros(lsz), np.zeros(lsz), np.zeros(1, dtype=np.int64),
            lsz // 2)


@numba.njit(cache=True)
def _seed_k3(k3_sets, k3_scores, sub, lk, lv, lb, lstate, lcap, memo_ok, B, s0):
    """Seed the memo with the K3 greedy chain (Tian Fig. 1); returns the best score so far
    (the fixed-order mode's global reference)."""
    gbest = s0
    for t in range(k3_scores.shape[0]):
        kk = 0
        for i in range(k3_sets.shape[1]):
            if k3_sets[t, i] >= 0:
                sub[kk] = k3_sets[t, i]
                kk += 1
        if memo_ok:
            h = ht_put(lk, lstate, lcap, set_key(sub, kk, B))
            if h >= 0:
                lv[h] = k3_scores[t]
                lb[h] = -np.inf
        if k3_scores[t] > gbest:
            gbest = k3_scores[t]
    return gbest


@numba.njit(cache=True)
def kth_subset_score(k, d, path, sub, topk, lk, lv, memo_ok, B, scored):
    """k-best pruning: the k-th best score of a known proper subset of ``C = path[:d+1]``
    (the k = 1 case, the best, is computed inline in :func:`dfbnb_family`)."""
    for t in range(k):
        topk[t] = -np.inf
    if memo_ok:
        for mask in range((1 << (d + 1)) - 1):
            kk = 0
            for j in range(d + 1):
                if mask & (1 << j):
                    sub[kk] = path[j]
                    kk += 1
            h = ht_get(lk, set_key(sub, kk, B))
            if h >= 0:
                _insert_topk(topk, k, lv[h])
    else:
        for j in range(d + 1):
            _insert_topk(topk, k, scored[j])
    return topk[k - 1]


@numba.njit(cache=True, inline="always")
def _insert_topk(topk, k, v):
    if v > topk[k - 1]:
        t = k - 1
        while t > 0 and topk[t - 1] < v:
            topk[t] = topk[t - 1]
            t -= 1
        topk[t] = v


@numba.njit(cache=True)
def tw_loglik(cols, arities, order, path, d, last, sfx, sQ, twa, twb, qlimit, mapbuf, xcol, rx, cnt, pacnt, lgt):
    """LL(X | T, W) with W = tree positions after last(T): suffix codes plus T's columns
    (Tian eq. 12, with H = -LL)."""
    Q = sQ[last + 1]
    src = sfx[last + 1]
    for i in range(d):
        v = order[path[i]]
        Q = extend_codes(src, Q, cols[v], arities[v], twa, qlimit, mapbuf)
        twa, twb = twb, twa
        src = twb
    llt, _, _ = family_stats(src, xcol, rx, cnt, pacnt, lgt, False, 1.0, 1.0)
    return llt


@numba.njit(cache=True)
def _sorted_globals(order, path, d, gv):
    """The global variable ids of ``path[:d+1]``, sorted, into ``gv``."""
    for j in range(d + 1):
        v = order[path[j]]
        t = j
        while t > 0 and gv[t - 1] > v:
            gv[t] = gv[t - 1]
            t -= 1
        gv[t] = v


@numba.njit(cache=True, inline="always")
def _entropy_cut(hy, cpen, rq, qT):
    """de Campos et al. 2018: N·H(Y|T) below the penalty increment of adding Y."""
    return hy < cpen * (rq - 1) * qT - 1e-9 * (1.0 + abs(hy))


@numba.njit(cache=True)
def count_set(cols, arities, x, order, path, d, codes, Qd, has_codes, want_bdeu, lgt, qlimit, cnt, pacnt,
              mapbuf, twa, twb, aq):
    """One counting pass for ``C = path[:d+1]``: the codes of T (= ``path[:d]``) are
    materialised lazily, extended by the last parent and counted (dense table when small).
    Returns the parts of :func:`lpbn.scoring.counting._finish`."""
    rx = arities[x]
    j0 = d
    while not has_codes[j0]:
        j0 -= 1
    for j in range(j0, d):
        v = order[path[j]]
        Qd[j + 1] = extend_codes(codes[j], Qd[j], cols[v], arities[v], codes[j + 1], qlimit, mapbuf)
        has_codes[j + 1] = True
    q = order[path[d]]
    rq = arities[q]
    xcol = cols[x]
    if Qd[d] * rq * rx <= DENSE_CELLS:
        Qd[d + 1] = Qd[d] * rq
        return extend_and_count_dense(codes[d], cols[q], rq, codes[d + 1], xcol, rx, Qd[d + 1], cnt, lgt,
                                      want_bdeu, aq, aq / rx)
    if Qd[d] * rq <= qlimit:
        Qd[d + 1] = Qd[d] * rq
        return extend_and_count(codes[d], cols[q], rq, codes[d + 1], xcol, rx, cnt, pacnt, twa, twb, lgt,
                                want_bdeu, aq, aq / rx)
    Qd[d + 1] = extend_codes(codes[d], Qd[d], cols[q], rq, codes[d + 1], qlimit, mapbuf)
    return family_parts(codes[d + 1], xcol, rx, cnt, pacnt, lgt, want_bdeu, aq, aq / rx)


@numba.njit(cache=True)
def append_set(out_sets, out_size, out_score, n_out, order, path, d, sc):
    """Record ``path[:d+1]`` (as variables) with score ``sc`` at row ``n_out`` (arrays grow)."""
    if n_out >= out_score.shape[0]:
        cap2 = 2 * out_score.shape[0]
        o1 = np.zeros((cap2, out_sets.shape[1]), dtype=np.int64)
        o2 = np.zeros(cap2, dtype=np.int64)
        o3 = np.zeros(cap2)
        for i in range(n_out):      # loops, not slice copies: no broadcasting code to compile (4 s)
            for j in range(out_sets.shape[1]):
                o1[i, j] = out_sets[i, j]
            o2[i] = out_size[i]
            o3[i] = out_score[i]
        out_sets, out_size, out_score = o1, o2, o3
    for j in range(d + 1):
        out_sets[n_out, j] = order[path[j]]
    out_size[n_out] = d + 1
    out_score[n_out] = sc
    return out_sets, out_size, out_score


@numba.njit(cache=True)
def k3_greedy(cols, arities, x, cand, maxp, kind, ess, lgt, qlimit, cnt, pacnt, mapbuf,
              hk, hE, hF, hZ, hstate, jcap):
    """K3 (Bouckaert 1994; Tian 2000 Fig. 1): add the best single parent while it improves.

    Returns the chain of sets (rows padded with -1, entries are indices into ``cand``) and
    their scores.  Uses and fills the joint memo (see :func:`dfbnb_family`).
    """
    N = cols.shape[1]
    rx = arities[x]
    xcol = cols[x]
    want_bdeu = kind == 3
    D = max(maxp, 0)
    JB = cols.shape[0] + 1
    joint_ok = _fits_keys(JB, D + 2) and jcap > 0
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
                for j in range(step):
                    gv[j] = cand[chosen[j]]
                gv[step] = v
                for a in range(1, step + 1):
                    t = a
                    while t > 0 and gv[t - 1] > gv[t]:
                        tmpv = gv[t]
                        gv[t] = gv[t - 1]
                        gv[t - 1] = tmpv
                        t -= 1
                keyC, keyCX = joint_keys(gv, step + 1, x, JB)
                hC = ht_get(hk, keyC)
                hCX = ht_get(hk, keyCX)
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
                    ht_store(hk, hE, hF, hZ, hstate, jcap, keyC, epa, fpa, npa)
                    ht_store(hk, hE, hF, hZ, hstate, jcap, keyCX, ej, fj, nz)
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
