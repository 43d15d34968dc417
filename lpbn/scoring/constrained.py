"""Scoring under structural constraints: ``score_data(..., constraints=...)``.

Every pruning rule of the scorer drops a parent set only when one of its *subsets* scores at
least as well (Tian's parent limit: the empty set does; subset dominance; branch and bound
cuts only subset-dominated branches; :mod:`lpbn.scoring.pruning`).  Constraints that are
closed under taking subsets -- forbidden arcs and adjacencies, tiers, ``no_parents``,
``no_children``, in-degree limits -- are therefore applied exactly *after* scoring, by
:meth:`lpbn.constraints.Constraints.apply`: a dropped set's dominating subset is allowed too.

A required arc ``u -> v`` is not closed under subsets: the best parent sets of ``v`` that
contain ``u`` may all have been dropped because subsets *without* ``u`` beat them.  So for
every variable ``v`` with required parents ``R`` (and, for a required adjacency ``u - v``,
both ``R_v ∪ {u}`` for ``v`` and ``R_u ∪ {v}`` for ``u``, one per orientation) the sets
``R ∪ T`` are scored exhaustively (:func:`required_sets`): ``T`` ranges over the allowed
parents within the in-degree limit, and a branch is cut only when every superset provably
scores below ``R`` itself -- for BIC/MDL/AIC ``score(S) <= LL(v | R ∪ all allowed) - c (r_v - 1)
q_S``, since conditioning on more variables never lowers the log-likelihood -- and sets with an
``R``-containing proper subset that scores at least as well are dropped.  Both are subset
dominance among sets that contain ``R``, so the cache keeps, for every orientation, an optimal
DAG satisfying the constraints (``k_best = 1`` and no fixed ``order`` only).  BDeu has no such
bound: every set within the limit is scored, up to :data:`MAX_REQUIRED_SETS` per group.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cache import ScoreCache
from ..errors import InputError, ResourceLimitError
from .counting import family_stats, set_codes
from .scores import BDEU, LN2, MDL, local_score, penalty_coef

#: parent sets scored for one (variable, required parents) group before giving up
MAX_REQUIRED_SETS = 200_000


def constrain_scored(cache: ScoreCache, ds, kind: int, ess: float, max_parents: int | None, k_best: int,
                     order, constraints: Any) -> ScoreCache:
    """``cache`` (just scored from ``ds``) with the sets required arcs need added and every
    constraint but required adjacency applied (see the module docstring)."""
    from ..constraints import Constraints
    from .context import ScoringContext
    cons = Constraints.coerce(constraints)
    r = cons.resolve(cache.names)
    n = cache.n
    req = {v: tuple(sorted(r.required_parents(v))) for v in range(n)}
    groups: dict[int, set[tuple[int, ...]]] = {}
    for v in range(n):
        if req[v]:
            groups.setdefault(v, set()).add(req[v])
    oriented = set(r.require)
    for a, b in r.require_adjacent:
        if (a, b) in oriented or (b, a) in oriented:
            continue
        for p, v in ((a, b), (b, a)):
            if r.forbidden_arc(p, v) is None:
                groups.setdefault(v, set()).add(tuple(sorted(set(req[v]) | {p})))
    if groups and (k_best != 1 or order is not None):
        raise InputError("required arcs or adjacencies need k_best = 1 and no fixed order when scoring")
    scored = 0
    extra: dict[int, list[tuple[float, tuple[int, ...]]]] = {}
    if groups:
        ctx = ScoringContext(ds, kind, float(ess))
        for v, gs in sorted(groups.items()):
            limit = int(r.maxp[v]) if max_parents is None else min(int(max_parents), int(r.maxp[v]))
            allowed = [p for p in range(n) if p != v and r.forbidden_arc(p, v) is None]
            for R in sorted(gs):
                if len(R) > limit or not set(R) <= set(allowed):
                    continue        # this group admits no set; apply() reports it
                sets, scores = required_sets(ctx, v, R, allowed, limit)
                scored += len(sets)
                extra.setdefault(v, []).extend(zip(scores, sets))
    merged = _merge(cache, extra) if extra else cache
    out = cons.apply(merged, skip_adjacent=True)
    sc = out.meta.get("scoring")
    if isinstance(sc, dict):
        out.meta["scoring"] = {**sc, "required_sets_scored": scored,
                               "candidates_constrained": out.m}
    return out


def required_sets(ctx, x: int, R: tuple[int, ...], allowed: list[int], limit: int) -> tuple[list, list]:
    """Parent sets ``R ∪ T`` of ``x`` (``T`` from ``allowed``, ``|R ∪ T| <= limit``) that may be
    needed when ``R`` is required, with their scores in stored units (see the module docstring)."""
    ar = ctx.arities
    rx = int(ar[x])
    N = ctx.N
    cnt, pac, mapbuf = ctx.buffers()
    qlimit = max(1, ctx.qlimit_cells // max(rx, 1))
    xcol = ctx.cols[x]
    want_bdeu = ctx.kind == BDEU

    def stats(items: tuple[int, ...]) -> tuple[float, float]:
        arr = np.array(items, dtype=np.int64)
        codes, _ = set_codes(ctx.cols, ar, arr, qlimit, mapbuf)
        q = float(np.prod(ar[arr].astype(np.float64))) if len(arr) else 1.0
        ll, bd, _ = family_stats(codes, xcol, rx, cnt, pac, ctx.lgt, want_bdeu, ctx.ess / q, ctx.ess / (q * rx))
        return float(local_score(ctx.kind, ll, bd, q, rx, N)), ll

    base = tuple(sorted(R))
    pool = [p for p in allowed if p not in base and ar[p] > 1]   # arity-1 parents never change a score
    ref, _ = stats(base)
    sets: list[tuple[int, ...]] = [base]
    scores: list[float] = [ref]
    penalised = ctx.kind != BDEU
    if penalised:
        _, ll_max = stats(tuple(sorted(base + tuple(pool))))
        coef = penalty_coef(ctx.kind, N) * (rx - 1)
        cut_below = ref - 1e-9 * (1.0 + abs(ref))
    q_base = float(np.prod(ar[list(base)].astype(np.float64))) if base else 1.0
    stack = [((), q_base, 0)]
    while stack:
        T, q, start = stack.pop()
        if len(base) + len(T) >= limit:
            continue
        for j in range(start, len(pool)):
            q2 = q * float(ar[pool[j]])
            if penalised and ll_max - coef * q2 < cut_below:
                continue        # every superset of base ∪ T ∪ {p} scores below base
            T2 = T + (pool[j],)
            S = tuple(sorted(base + T2))
            s, _ = stats(S)
            sets.append(S)
            scores.append(s)
            if len(sets) > MAX_REQUIRED_SETS:
                raise ResourceLimitError(
                    f"required parents {{{', '.join(ctx.dataset.names[p] for p in base)}}} of "
                    f"{ctx.dataset.names[x]}: more than {MAX_REQUIRED_SETS} parent sets to score; give a "
                    "parent limit (--max-parents / max_parents) or forbid some parents")
            stack.append((T2, q2, j + 1))
    keep = _dominance_keep(sets, scores, len(ar))
    sets = [sets[i] for i in keep]
    scores = [scores[i] / LN2 if ctx.kind == MDL else scores[i] for i in keep]
    return sets, scores


def _dominance_keep(sets: list[tuple[int, ...]], scores: list[float], n: int) -> np.ndarray:
    from .explore.exhaustive import dominance_keep as keep_kernel
    width = max(1, max(len(s) for s in sets))
    arr = np.zeros((len(sets), width), dtype=np.int64)
    sizes = np.array([len(s) for s in sets], dtype=np.int64)
    for i, s in enumerate(sets):
        arr[i, :len(s)] = s
    return np.flatnonzero(keep_kernel(arr, sizes, np.asarray(scores, dtype=np.float64), 1, n))


def _merge(cache: ScoreCache, extra: dict[int, list[tuple[float, tuple[int, ...]]]]) -> ScoreCache:
    """``cache`` with ``extra[v]`` added to ``v``'s candidates (sets it already has are kept once)."""
    scores, sizes, items = [], [], []
    counts = np.zeros(cache.n, dtype=np.int64)
    for i in range(cache.n):
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        scores.append(cache.scores[lo:hi])
        sizes.append(cache.sizes[lo:hi].astype(np.int64))
        items.append(cache.pset_items[cache.pset_ptr[lo]:cache.pset_ptr[hi]])
        counts[i] = hi - lo
        if i in extra:
            have = {cache.parents(j) for j in range(lo, hi)}
            new = {}
            for s, ps in extra[i]:
                if ps not in have:
                    new[ps] = s
            if new:
                scores.append(np.array(list(new.values()), dtype=np.float64))
                sizes.append(np.array([len(ps) for ps in new], dtype=np.int64))
                items.append(np.array([p for ps in new for p in ps], dtype=np.int32))
                counts[i] += len(new)
    offsets = np.zeros(cache.n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    sz = np.concatenate(sizes)
    ptr = np.zeros(len(sz) + 1, dtype=np.int64)
    np.cumsum(sz, out=ptr[1:])
    return ScoreCache(cache.names, offsets, np.concatenate(scores), ptr,
                      np.concatenate(items).astype(np.int32), meta=dict(cache.meta), source=cache.source,
                      check_feasible=False)
