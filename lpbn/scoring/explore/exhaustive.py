"""Exhaustive exploration: every parent set within the parent limit, pruned safely while it is
enumerated — Tian 2000's depth-first branch and bound (§5, Fig. 3) over the set-enumeration
tree with a K3 greedy start (Fig. 1), the parent limits of Tian eq. 34 and Chen et al.
(Cor. 1, Thm 5, Alg. 2 for the k best), subset dominance (Teyssier & Koller 2005; Chen et
al. Thm 3) and the superset bounds of :mod:`lpbn.scoring.pruning`.

For ``k_best == 1`` the kept sets contain the families of an optimal DAG (over all DAGs
within the parent limit); for ``k_best = K`` those of K best DAGs.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numba
import numpy as np

from ..counting import DENSE_CELLS, extend_and_count_dense, family_stats, set_codes, suffix_codes
from ..pruning import (chen_corollary1, degree_bound, dfbnb_family, k3_greedy, new_joint_table,
                       tian_global_bound)
from ..scores import BDEU, LN2, penalty_coef


def _dominance_keep(sets, sizes, scores, k, n):
    """Theorem 3 (Chen et al.; Teyssier-Koller for k = 1): keep a set unless >= k of its
    proper subsets in the list score at least as well."""
    W = (n + 63) // 64
    bits = _to_bits(sets, sizes.astype(np.int64), W)
    return _keep_kernel(bits, sizes.astype(np.int64), scores, int(k))


@numba.njit(cache=True)
def _to_bits(sets, sizes, W):
    M = sizes.shape[0]
    bits = np.zeros((M, W), dtype=np.uint64)
    for j in range(M):
        for t in range(sizes[j]):
            v = sets[j, t]
            bits[j, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return bits


@numba.njit(cache=True)
def _keep_kernel(bits, sizes, scores, k):
    M, W = bits.shape
    keep = np.ones(M, dtype=np.bool_)
    for j in range(M):
        c = 0
        for i in range(M):
            if sizes[i] >= sizes[j] or scores[i] < scores[j]:
                continue
            sub = True
            for w in range(W):
                if bits[i, w] & ~bits[j, w]:
                    sub = False
                    break
            if sub:
                c += 1
                if c >= k:
                    keep[j] = False
                    break
    return keep


def explore(ctx, x: int) -> dict[str, Any]:
    """Score and prune every candidate parent set of variable ``x`` (Tian 2000 DFBnB, see
    :mod:`lpbn.scoring.pruning`)."""
    t0 = time.perf_counter()
    ar = ctx.arities
    rx = int(ar[x])
    k = ctx.k
    if ctx.order is not None:
        pos = ctx.order.index(x)
        pool = ctx.order[:pos]
    else:
        pool = [v for v in range(ctx.n) if v != x]
    # arity-1 parents never change a family's score: for k = 1 they are always (weakly)
    # dominated (Teyssier & Koller), so they are not candidates.
    cand = [v for v in pool if ar[v] > 1] if (k == 1 and "dominance" in ctx.rules) else pool
    cand_arr = np.array(cand, dtype=np.int64)
    qlimit = max(1, ctx.qlimit_cells // max(rx, 1))
    lgt = ctx.lgt
    zero = np.zeros(ctx.N, dtype=np.int64)
    cnt = np.zeros(max(rx, 1), dtype=np.int32)
    pac = np.zeros(1, dtype=np.int32)
    ll_empty, _, _ = family_stats(zero, ctx.cols[x], rx, cnt, pac, lgt, False, 1.0, 1.0)
    # tree order (Tian eq. 14): ascending H(X | X_k) = descending LL(X | X_k)
    single = np.empty(len(cand))
    cnt2, pac2, _ = ctx.buffers()
    scratch = np.empty(ctx.N, dtype=np.int64)
    for i, v in enumerate(cand):
        # dense joint table of (X_v, X) when small, else the general counter
        if ar[v] * rx <= DENSE_CELLS:
            ej, epa, _, _, _, _ = extend_and_count_dense(zero, ctx.cols[v], int(ar[v]), scratch, ctx.cols[x], rx,
                                                      int(ar[v]), cnt2, lgt, False, 1.0, 1.0)
            single[i] = ej - epa
        else:
            ll, _, _ = family_stats(ctx.cols[v].astype(np.int64), ctx.cols[x], rx, cnt2, pac2, lgt,
                                    False, 1.0, 1.0)
            single[i] = ll
    tree = cand_arr[np.argsort(-single, kind="stable")] if len(cand) else cand_arr
    bcnt, bpa, bmap = ctx.buffers()
    if ctx.use_tw:
        sfx, sQ = suffix_codes(ctx.cols, ar, tree, qlimit, bmap)
        all_codes = sfx[0]
    else:
        sfx, sQ = np.zeros((1, 1), dtype=np.int64), np.ones(1, dtype=np.int64)
        all_codes, _ = set_codes(ctx.cols, ar, tree, qlimit, bmap)
    ll_all, _, _ = family_stats(all_codes, ctx.cols[x], rx, bcnt, bpa, lgt, False, 1.0, 1.0)
    # parent limit
    limit = len(cand) if ctx.max_parents is None else min(ctx.max_parents, len(cand))
    bounds = {"user": ctx.max_parents}
    if ctx.kind != BDEU and "limit" in ctx.rules:
        n_ones = len([v for v in cand if ar[v] <= 1])
        big = [int(ar[v]) for v in cand if ar[v] > 1]
        if rx <= 1:
            dv = 0 if k == 1 else max(0, math.ceil(math.log2(k + 1)) - 1)
            dv += n_ones
        else:
            dv = degree_bound(ctx.kind, ctx.N, rx, big, ll_empty, ll_all, k) + n_ones
        bounds.update(eq34=dv, tian_thm1=tian_global_bound(ctx.N))
        limit = min(limit, dv)
        if k > 1:
            c_bits = float(penalty_coef(ctx.kind, ctx.N)) / LN2
            cor1 = chen_corollary1(ctx.N, k, c_bits) + n_ones
            bounds["chen_cor1"] = cor1
            limit = min(limit, cor1)
        if ctx.kbest_limits is not None:
            limit = min(limit, int(ctx.kbest_limits[x]) + n_ones)
            bounds["algorithm2"] = int(ctx.kbest_limits[x])
    elif rx <= 1 and k == 1 and "limit" in ctx.rules:
        limit = 0
    limit = max(limit, 0)
    # K3 greedy start
    joint = ctx.scratch("joint_memo", lambda: _new_joint_memo(ctx))
    bcnt, bpa, bmap = ctx.buffers()
    k3_sets, k3_scores = k3_greedy(ctx.cols, ar, x, tree, limit, ctx.kind, ctx.ess, lgt,
                                   qlimit, bcnt, bpa, bmap, *joint)
    k3p = np.full(k3_sets.shape, -1, dtype=np.int64)
    for t in range(k3_sets.shape[0]):
        row = sorted(int(p) for p in k3_sets[t] if p >= 0)
        k3p[t, :len(row)] = row
    sets, sizes, scores, n_out, st = dfbnb_family(
        ctx.cols, ar, x, tree, limit, ctx.kind, ctx.ess, k, lgt, ll_all, sfx, sQ, ctx.use_tw,
        ctx.order is not None, k3p, k3_scores, qlimit, bcnt, bpa, bmap, "bnb" in ctx.rules,
        "dominance" in ctx.rules, *joint, _n_within(len(tree), limit))
    if "dominance" not in ctx.rules:
        keep = np.ones(n_out, dtype=bool)
    elif ctx.order is not None:
        # Tian's fixed-order DFBnB_K3: the best of the K3 start and of the improving DFS sets
        t = int(np.argmax(k3_scores))
        if k3_scores[t] >= scores.max():
            row = [int(tree[p]) for p in k3p[t] if p >= 0]
            sets = np.zeros((1, max(1, sets.shape[1])), dtype=np.int64)
            sets[0, :len(row)] = row
            sizes = np.array([len(row)], dtype=np.int64)
            scores = np.array([k3_scores[t]])
            keep = np.ones(1, dtype=bool)
        else:
            keep = np.zeros(n_out, dtype=bool)
            keep[int(np.argmax(scores))] = True
    else:
        keep = _dominance_keep(sets, sizes, scores, k, ctx.n)
    idx = np.flatnonzero(keep)
    return {"x": x, "sets": sets[idx], "sizes": sizes[idx], "scores": scores[idx],
            "counted": int(st[0]), "cut": int(st[1]), "tw_bounds": int(st[2]), "joint_hits": int(st[4]), "entropy_cuts": int(st[5]),
            "limit": int(limit), "bounds": bounds, "candidates": len(cand),
            "seconds": time.perf_counter() - t0}


def _n_within(m: int, L: int) -> int:
    return sum(math.comb(m, j) for j in range(0, min(m, L) + 1))


def _new_joint_memo(ctx):
    """Memo of ``E(S)``, ``F(S)`` shared by the variables a process scores (numpy
    open-addressing table, see :func:`lpbn.scoring.pruning.new_joint_table`)."""
    L = ctx.n - 1 if ctx.max_parents is None else min(ctx.max_parents, ctx.n - 1)
    est = 0
    for j in range(0, L + 2):
        est += math.comb(ctx.n, j)
        if est > ctx.joint_cap:
            break
    return new_joint_table(est, ctx.joint_cap)
