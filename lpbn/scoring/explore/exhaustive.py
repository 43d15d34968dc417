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
from ..pruning import chen_corollary1, degree_bound, tian_global_bound
from ..scores import BDEU, LN2, penalty_coef
from .dfbnb import (ST_COUNTED, ST_CUT, ST_ENTROPY, ST_JOINT_HITS, ST_TW, dfbnb_family,
                    k3_greedy)
from .memo import new_joint_table


def dominance_keep(sets, sizes, scores, k, n):
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
    :mod:`lpbn.scoring.pruning` and :mod:`.dfbnb`)."""
    t0 = time.perf_counter()
    rx = int(ctx.arities[x])
    qlimit = max(1, ctx.qlimit_cells // max(rx, 1))
    cand = _candidates(ctx, x)
    tree = _tree_order(ctx, x, cand)
    bcnt, bpa, bmap = ctx.buffers()
    if ctx.use_tw:
        sfx, sQ = suffix_codes(ctx.cols, ctx.arities, tree, qlimit, bmap)
        all_codes = sfx[0]
    else:
        sfx, sQ = np.zeros((1, 1), dtype=np.int64), np.ones(1, dtype=np.int64)
        all_codes, _ = set_codes(ctx.cols, ctx.arities, tree, qlimit, bmap)
    ll_all, _, _ = family_stats(all_codes, ctx.cols[x], rx, bcnt, bpa, ctx.lgt, False, 1.0, 1.0)
    limit, bounds = _parent_limit(ctx, x, cand, ll_all)
    joint = ctx.scratch("joint_memo", lambda: _new_joint_memo(ctx))
    k3_sets, k3_scores = k3_greedy(ctx.cols, ctx.arities, x, tree, limit, ctx.kind, ctx.ess, ctx.lgt,
                                   qlimit, bcnt, bpa, bmap, *joint)
    k3p = np.full(k3_sets.shape, -1, dtype=np.int64)
    for t in range(k3_sets.shape[0]):
        row = sorted(int(p) for p in k3_sets[t] if p >= 0)
        k3p[t, :len(row)] = row
    sets, sizes, scores, n_out, st = dfbnb_family(
        ctx.cols, ctx.arities, x, tree, limit, ctx.kind, ctx.ess, ctx.k, ctx.lgt, ll_all, sfx, sQ, ctx.use_tw,
        ctx.order is not None, k3p, k3_scores, qlimit, bcnt, bpa, bmap, "bnb" in ctx.rules,
        "dominance" in ctx.rules, *joint, _n_within(len(tree), limit))
    if ctx.order is not None and "dominance" in ctx.rules:
        sets, sizes, scores = _fixed_order_best(sets, sizes, scores, k3p, k3_scores, tree)
    elif "dominance" in ctx.rules:
        keep = np.flatnonzero(dominance_keep(sets, sizes, scores, ctx.k, ctx.n))
        sets, sizes, scores = sets[keep], sizes[keep], scores[keep]
    return {"x": x, "sets": sets, "sizes": sizes, "scores": scores,
            "counted": int(st[ST_COUNTED]), "cut": int(st[ST_CUT]), "tw_bounds": int(st[ST_TW]),
            "joint_hits": int(st[ST_JOINT_HITS]), "entropy_cuts": int(st[ST_ENTROPY]),
            "limit": int(limit), "bounds": bounds, "candidates": len(cand),
            "seconds": time.perf_counter() - t0}


def _candidates(ctx, x: int) -> np.ndarray:
    """Candidate parents: every other variable, or the predecessors in a fixed order.

    Arity-1 parents never change a family's score: for k = 1 they are always (weakly)
    dominated (Teyssier & Koller), so they are not candidates then."""
    if ctx.order is not None:
        pool = ctx.order[:ctx.order.index(x)]
    else:
        pool = [v for v in range(ctx.n) if v != x]
    if ctx.k == 1 and "dominance" in ctx.rules:
        pool = [v for v in pool if ctx.arities[v] > 1]
    return np.array(pool, dtype=np.int64)


def _tree_order(ctx, x: int, cand: np.ndarray) -> np.ndarray:
    """Tian eq. 14: candidates by ascending H(X | X_k), i.e. descending LL(X | X_k)."""
    rx = int(ctx.arities[x])
    zero = np.zeros(ctx.N, dtype=np.int64)
    cnt, pac, _ = ctx.buffers()
    scratch = np.empty(ctx.N, dtype=np.int64)
    single = np.empty(len(cand))
    for i, v in enumerate(cand):
        rv = int(ctx.arities[v])
        if rv * rx <= DENSE_CELLS:   # dense joint table of (X_v, X) when small
            ej, epa, _, _, _, _ = extend_and_count_dense(zero, ctx.cols[v], rv, scratch, ctx.cols[x], rx, rv,
                                                       cnt, ctx.lgt, False, 1.0, 1.0)
            single[i] = ej - epa
        else:
            single[i], _, _ = family_stats(ctx.cols[v].astype(np.int64), ctx.cols[x], rx, cnt, pac, ctx.lgt,
                                           False, 1.0, 1.0)
    return cand[np.argsort(-single, kind="stable")] if len(cand) else cand


def _parent_limit(ctx, x: int, cand: np.ndarray, ll_all: float) -> tuple[int, dict[str, Any]]:
    """The largest parent set to enumerate: the user's limit, Tian eq. 34 per variable, and for
    the k best Chen et al. Cor. 1 and Alg. 2 (penalised scores); with the bounds applied."""
    rx = int(ctx.arities[x])
    k = ctx.k
    limit = len(cand) if ctx.max_parents is None else min(ctx.max_parents, len(cand))
    bounds: dict[str, Any] = {"user": ctx.max_parents}
    if ctx.kind != BDEU and "limit" in ctx.rules:
        n_ones = int(sum(1 for v in cand if ctx.arities[v] <= 1))
        big = [int(ctx.arities[v]) for v in cand if ctx.arities[v] > 1]
        if rx <= 1:
            dv = (0 if k == 1 else max(0, math.ceil(math.log2(k + 1)) - 1)) + n_ones
        else:
            ll_empty = _ll_empty(ctx, x)
            dv = degree_bound(ctx.kind, ctx.N, rx, big, ll_empty, ll_all, k) + n_ones
        bounds.update(eq34=dv, tian_thm1=tian_global_bound(ctx.N))
        limit = min(limit, dv)
        if k > 1:
            cor1 = chen_corollary1(ctx.N, k, float(penalty_coef(ctx.kind, ctx.N)) / LN2) + n_ones
            bounds["chen_cor1"] = cor1
            limit = min(limit, cor1)
        if ctx.kbest_limits is not None:
            limit = min(limit, int(ctx.kbest_limits[x]) + n_ones)
            bounds["algorithm2"] = int(ctx.kbest_limits[x])
    elif rx <= 1 and k == 1 and "limit" in ctx.rules:
        limit = 0
    return max(limit, 0), bounds


def _ll_empty(ctx, x: int) -> float:
    rx = int(ctx.arities[x])
    cnt = np.zeros(max(rx, 1), dtype=np.int32)
    pac = np.zeros(1, dtype=np.int32)
    ll, _, _ = family_stats(np.zeros(ctx.N, dtype=np.int64), ctx.cols[x], rx, cnt, pac, ctx.lgt, False, 1.0, 1.0)
    return float(ll)


def _fixed_order_best(sets, sizes, scores, k3p, k3_scores, tree):
    """Tian's fixed-order DFBnB_K3: the best of the K3 start and of the improving DFS sets."""
    t = int(np.argmax(k3_scores))
    if k3_scores[t] >= scores.max():
        row = [int(tree[p]) for p in k3p[t] if p >= 0]
        one = np.zeros((1, max(1, sets.shape[1])), dtype=np.int64)
        one[0, :len(row)] = row
        return one, np.array([len(row)], dtype=np.int64), np.array([k3_scores[t]])
    b = int(np.argmax(scores))
    return sets[b:b + 1], sizes[b:b + 1], scores[b:b + 1]


def _n_within(m: int, L: int) -> int:
    return sum(math.comb(m, j) for j in range(0, min(m, L) + 1))


def _new_joint_memo(ctx):
    """Memo of ``E(S)``, ``F(S)`` shared by the variables a process scores (numpy
    open-addressing table, see :func:`lpbn.scoring.explore.memo.new_joint_table`)."""
    L = ctx.n - 1 if ctx.max_parents is None else min(ctx.max_parents, ctx.n - 1)
    est = 0
    for j in range(0, L + 2):
        est += math.comb(ctx.n, j)
        if est > ctx.joint_cap:
            break
    return new_joint_table(est, ctx.joint_cap)
