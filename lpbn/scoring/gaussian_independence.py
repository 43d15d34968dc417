"""Independence selection for the continuous and mixed scores (bic-g, BGe, bic-cg): Scanagatta,
de Campos, Corani & Zaffalon 2015, §3.1-3.2, with the Gaussian analogue of their BIC* guide.

The discrete version (:mod:`lpbn.scoring.explore.independence`) orders the open list by
``BIC*(Π ∪ {Y}) = BIC(Π) + BIC(Y) - BIC(∅)``, the score ``Π ∪ {Y}`` would have if ``Π`` and ``Y``
were independent given ``X`` (the exact penalty of the union and the approximate likelihood).
For bic-g the same sum is again the exact penalty of the union (``ln(N)/2·(p+2)`` is linear in
``p``) plus the log-likelihood gain of ``Y`` alone, so the guide carries over unchanged; for BGe
it is used as is (an approximation whatever the score, only the order of exploration depends on
it: every kept set carries its exact score).

The run scores the empty set and every single parent, then repeatedly pops the open set with
the best guide, scores it exactly (:func:`lpbn.scoring.gaussian.set_score`), and pushes every
unseen expansion ``Π ∪ {Y}`` below the size limit.  A set is kept only if it beats every
explored subset (§3.2; subset dominance over the explored list), at most ``max_candidates``
sets per variable (best first; the empty set always).  The budget is a number of scored sets per
variable (``max_evaluations``), which gives the same cache on every machine.  A budgeted cache is
optimal only over the sets it kept: the solvers certify DAGs *for the cache*.

For bic-cg a continuous node's candidates are every other column, discrete or continuous; each
set is scored from the rows (:func:`lpbn.scoring.cg_kernels.cg_score`, one regression per
observed configuration of its discrete members) and guided by the same sum, which for bic-cg is
only an approximation of the union's penalty too (``q·(g+2)`` is not additive).  A discrete node
of a conditional Gaussian takes discrete parents only and is explored by the discrete scorer's
own independence selection (:func:`lpbn.scoring.cg.explore_discrete_all`).

Sets are identified by 64-bit Zobrist hashes (XOR of one random key per variable) in an
open-addressing table; a collision (probability about ``E²/2^64`` for ``E`` sets) could only skip
a set, never give a wrong score.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from .explore.exhaustive import dominance_keep
from .cg_kernels import cg_scorer
from .gaussian import BGE, set_score


@numba.njit(cache=True)
def _heap_push(hk, hb, hy, size, key, b, y):
    i = size
    hk[i] = key
    hb[i] = b
    hy[i] = y
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] >= hk[i]:
            break
        hk[p], hk[i] = hk[i], hk[p]
        hb[p], hb[i] = hb[i], hb[p]
        hy[p], hy[i] = hy[i], hy[p]
        i = p
    return size + 1


@numba.njit(cache=True)
def _heap_pop(hk, hb, hy, size):
    key, b, y = hk[0], hb[0], hy[0]
    size -= 1
    hk[0], hb[0], hy[0] = hk[size], hb[size], hy[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and hk[c + 1] > hk[c]:
            c += 1
        if hk[i] >= hk[c]:
            break
        hk[c], hk[i] = hk[i], hk[c]
        hb[c], hb[i] = hb[i], hb[c]
        hy[c], hy[i] = hy[i], hy[c]
        i = c
    return key, b, y, size


@numba.njit(cache=True)
def _seen_add(table, h):
    """Insert hash ``h``; False when it was there already or the table is half full (the
    count of entries is kept in slot 0, which no hash uses: hashes are odd, see ``search``)."""
    if table[0] * np.uint64(2) >= np.uint64(table.shape[0]):
        return False
    mask = table.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while True:
        if table[i] == h:
            return False
        if table[i] == 0 and i != 0:
            table[i] = h
            table[0] += np.uint64(1)
            return True
        i = (i + 1) & mask


@numba.njit(cache=True)
def gaussian_scorer(ctx, x, ps):
    """The bic-g / BGe local score in the scorer form of :func:`search`: ``ctx = (M, kind, N,
    prior)`` with ``prior = (α_μ, α_w, t)`` for BGe (unused by bic-g)."""
    M, kind, N, prior = ctx
    return set_score(M, kind, x, ps, N, prior[0], prior[1], prior[2])


@numba.njit(cache=True)
def search(score, ctx, x, cand, n, limit, max_evals, zob):
    """Independence selection for variable ``x`` of ``n`` (module docstring), scoring a parent
    set ``ps`` (sorted index array) by ``score(ctx, x, ps)``: :func:`gaussian_scorer`, or
    :func:`lpbn.scoring.cg_kernels.cg_scorer` for a continuous node of a conditional Gaussian.
    Returns the explored sets (rows of variable ids, -1 padded), their sizes, exact scores
    (-inf: singular) and the number of expansions scored."""
    cap = max_evals + cand.shape[0] + 1
    width = max(limit, 1)
    sets = np.full((cap, width), -1, dtype=np.int64)
    sizes = np.zeros(cap, dtype=np.int64)
    scores = np.full(cap, -np.inf)
    hashes = np.zeros(cap, dtype=np.uint64)
    tsize = 1
    while tsize < 4 * (cap * (cand.shape[0] + 1) + 16):
        tsize *= 2
    table = np.zeros(min(tsize, 1 << 24), dtype=np.uint64)
    hcap = min(cap * cand.shape[0] + 16, 1 << 22)
    hk = np.empty(hcap)
    hb = np.empty(hcap, dtype=np.int64)
    hy = np.empty(hcap, dtype=np.int64)
    hsize = 0
    empty = score(ctx, x, np.zeros(0, dtype=np.int64))
    scores[0] = empty
    k = 1
    single = np.full(n, -np.inf)
    for y in cand:
        sc = score(ctx, x, np.array([y], dtype=np.int64))
        single[y] = sc
        if limit >= 1:
            sets[k, 0] = y
            sizes[k] = 1
            scores[k] = sc
            hashes[k] = zob[y]
            _seen_add(table, zob[y])
            k += 1
    start = k
    for j in range(1, start):
        if limit >= 2 and scores[j] > -np.inf:
            hsize = _expand(j, sets, sizes, scores, hashes, cand, single, empty, zob, table, hk, hb, hy, hsize)
    evals = 0
    while hsize > 0 and evals < max_evals and k < cap:
        _, b, y, hsize = _heap_pop(hk, hb, hy, hsize)
        s = sizes[b]
        ps = np.empty(s + 1, dtype=np.int64)
        ps[:s] = sets[b, :s]
        ps[s] = y
        ps.sort()
        sc = score(ctx, x, ps)
        evals += 1
        sets[k, :s + 1] = ps
        sizes[k] = s + 1
        scores[k] = sc
        hashes[k] = hashes[b] ^ zob[y]
        if s + 1 < limit and sc > -np.inf:
            hsize = _expand(k, sets, sizes, scores, hashes, cand, single, empty, zob, table, hk, hb, hy, hsize)
        k += 1
    return sets[:k], sizes[:k], scores[:k], evals


@numba.njit(cache=True)
def _expand(j, sets, sizes, scores, hashes, cand, single, empty, zob, table, hk, hb, hy, hsize):
    s = sizes[j]
    for y in cand:
        inside = False
        for i in range(s):
            if sets[j, i] == y:
                inside = True
                break
        if inside or single[y] == -np.inf:
            continue
        h = hashes[j] ^ zob[y]
        if not _seen_add(table, h):
            continue
        if hsize < hk.shape[0]:
            hsize = _heap_push(hk, hb, hy, hsize, scores[j] + single[y] - empty, j, y)
    return hsize


def explore_variable(stats, M, kind: int, x: int, max_parents, am: float, aw: float,
                     max_evaluations: int = 2000, max_candidates: int = 1000, seed: int = 0) -> dict:
    """Kept sets of ``x`` by independence selection (module docstring), as
    :func:`lpbn.scoring.gaussian.explore_variable` returns them."""
    n = stats.n
    t = am * (aw - n - 1) / (am + 1) if kind == BGE else 0.0
    cand = np.array([v for v in range(n) if v != x], dtype=np.int64)
    ctx = (M, kind, float(stats.N), np.array([am, aw, t]))
    return select(gaussian_scorer, ctx, x, cand, n, stats.N, max_parents, max_evaluations, max_candidates, seed)


def select(scorer, ctx, x: int, cand: np.ndarray, n: int, N: int, max_parents, max_evaluations: int,
           max_candidates: int, seed: int) -> dict:
    """Independence selection of ``x``'s parents among ``cand`` with ``scorer(ctx, x, ps)``
    (:func:`search`), then subset dominance over the explored sets and the ``max_candidates``
    best (the empty set always kept)."""
    t0 = time.perf_counter()
    limit = len(cand) if max_parents is None else min(int(max_parents), len(cand))
    limit = min(limit, max(N - 3, 0))
    # odd keys: an XOR of an odd number of them is odd, an even number -- a non-empty set of even
    # size -- is non-zero with probability 1 - 2^-63; 0 marks free slots (and slot 0 the count)
    zob = np.random.default_rng([seed, x]).integers(1, 2**62, size=n, dtype=np.int64).astype(np.uint64)
    zob = zob * np.uint64(2) + np.uint64(1)
    sets, sizes, scores, evals = search(scorer, ctx, x, cand, n, limit, int(max_evaluations), zob)
    ok = np.isfinite(scores)
    sets, sizes, scores = sets[ok], sizes[ok], scores[ok]
    keep = np.flatnonzero(dominance_keep(sets, sizes, scores, 1, n))
    sets, sizes, scores = sets[keep], sizes[keep], scores[keep]
    if len(scores) > max_candidates:
        order = np.argsort(-scores, kind="stable")
        top = order[:max_candidates]
        if not np.any(sizes[top] == 0):
            top = np.concatenate([top[:-1], np.flatnonzero(sizes == 0)])
        sets, sizes, scores = sets[top], sizes[top], scores[top]
    return {"x": x, "sets": sets, "sizes": sizes, "scores": scores, "limit": int(limit), "scored": int(evals) + len(cand) + 1,
            "cut": 0, "candidates_before": int(evals) + len(cand) + 1, "seconds": time.perf_counter() - t0}


def explore_cg_variable(table, x: int, max_parents, max_evaluations: int = 2000, max_candidates: int = 1000,
                        seed: int = 0) -> dict:
    """Kept ``(D, G)`` sets of the continuous node ``x`` of a conditional Gaussian (``table`` a
    :class:`lpbn.scoring.typed.Table`) by independence selection (module docstring)."""
    n = table.n
    cand = np.array([v for v in range(n) if v != x], dtype=np.int64)
    ctx = (np.ascontiguousarray(table.values, dtype=np.float64), np.ascontiguousarray(table.codes, dtype=np.int64),
           np.asarray(table.arities, dtype=np.int64), np.asarray(table.continuous, dtype=np.bool_), table.N)
    return select(cg_scorer, ctx, x, cand, n, table.N, max_parents, max_evaluations, max_candidates, seed)
