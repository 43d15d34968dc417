"""The driver shared by the budgeted strategies: independence, greedy and sequential selection.

For one child variable X it (1) scores the empty set and every single parent at once from
bit planes (:mod:`lpbn.scoring.bitplanes`); (2) picks the *pool* of variables that may be
added to sets: the single parents that beat the empty set plus the next ``pool_extra`` by
gain ``LL(X|Y) - LL(X|∅)``; (3) bounds the set size by the user's limit and, for penalised
scores, Tian 2000 eq. 34 with the exact ``LL(X | pool)``; (4) runs the strategy's numba
``step`` in chunks until the open list is empty, ``max_evaluations`` sets were scored or
``time_per_variable`` seconds passed (checked between chunks of about 10-50 ms; independence
selection's first pushes may take a variable to twice its budget); (5) keeps
the sets that beat every explored subset, best first, at most ``max_candidates`` (the empty
set always).  Only the evaluation cap is reproducible across machines.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..bitplanes import single_parent_stats
from ..counting import family_stats, set_codes
from ..pruning import degree_bound
from ..scores import AIC, BDEU, BIC, local_score, penalty_coef
from . import frontier as F
from . import greedy, independence, sequential
from ...tuning import EXPLORE_CHUNK_FAST as _CHUNK_FAST, EXPLORE_CHUNK_SLOW as _CHUNK_SLOW


def _empty_family(ctx, x: int):
    """(score, LL, non-empty cells) of X with no parents."""
    rx = int(ctx.arities[x])
    cnt, pac, _ = ctx.buffers()
    zero = np.zeros(ctx.N, dtype=np.int64)
    ll, bd, nz = family_stats(zero, ctx.cols[x], rx, cnt, pac, ctx.lgt, ctx.kind == BDEU, ctx.ess, ctx.ess / rx)
    return float(local_score(ctx.kind, ll, bd, 1.0, rx, ctx.N)), float(ll), int(nz)


def _pool(cand: np.ndarray, s_score: np.ndarray, gain: np.ndarray, score0: float, opts) -> np.ndarray:
    """Positions (into ``cand``) of the pool, by decreasing gain."""
    by_gain = np.argsort(-gain, kind="stable")
    beats = s_score[by_gain] > score0
    chosen = np.concatenate([by_gain[beats], by_gain[~beats][:opts.pool_extra]])
    chosen = chosen[np.argsort(-gain[chosen], kind="stable")]
    return chosen[:opts.max_pool]


def _ll_of(ctx, x: int, variables: np.ndarray) -> float:
    """LL(X | variables): an upper bound on LL(X | S) for every S within them."""
    cnt, pac, mapbuf = ctx.buffers()
    rx = int(ctx.arities[x])
    codes, _ = set_codes(ctx.cols, ctx.arities, variables.astype(np.int64), max(1, ctx.qlimit_cells // rx), mapbuf)
    ll, _, _ = family_stats(codes, ctx.cols[x], rx, cnt, pac, ctx.lgt, False, 1.0, 1.0)
    return float(ll)


def explore(ctx, x: int, strategy: str, seconds: float | None = None) -> dict[str, Any]:
    """Explore the parent sets of variable ``x`` with ``strategy`` (see the module docstring),
    for ``seconds`` (default: ``ctx.options.time_per_variable``; the schedule of
    :mod:`lpbn.scoring.parallel` passes each variable its share of the time left)."""
    t0 = time.perf_counter()
    opts = ctx.options
    rx = int(ctx.arities[x])
    score0, ll0, nz0 = _empty_family(ctx, x)
    cand = np.flatnonzero(ctx.arities > 1).astype(np.int64)
    cand = cand[cand != x]
    if rx <= 1 or len(cand) == 0:
        return _result(x, np.zeros((1, 1), np.int64), np.zeros(1, np.int64), np.array([score0]), t0,
                       limit=0, candidates=len(cand), pool=0, stats=np.zeros(F.N_STATE, np.int64), stop="exhausted")
    planes = ctx.planes()
    s_ll, s_score, s_nz = np.empty(len(cand)), np.empty(len(cand)), np.empty(len(cand), dtype=np.int64)
    single_parent_stats(planes.planes, planes.ptr, planes.counts, x, cand, ctx.kind, ctx.ess, ctx.lgt, ctx.N,
                        s_ll, s_score, s_nz)
    gain = s_ll - ll0
    pool_pos = _pool(cand, s_score, gain, score0, opts)
    pool = cand[pool_pos]
    ll_ub = _ll_of(ctx, x, pool) if len(pool) else ll0
    limit = len(pool)
    if ctx.max_parents is not None:
        limit = min(limit, int(ctx.max_parents))
    if ctx.kind != BDEU:
        limit = min(limit, degree_bound(ctx.kind, ctx.N, rx, [int(a) for a in ctx.arities[pool]], ll0, ll_ub, 1))
    # rows: the empty set, the pool's single parents and every other one that beats the empty set
    in_pool = np.zeros(len(cand), dtype=bool)
    in_pool[pool_pos] = True
    start = np.flatnonzero(in_pool | (s_score > score0))
    if strategy == "sequential":
        start = start[np.argsort(cand[start], kind="stable")]
    else:
        start = start[np.argsort(-gain[start], kind="stable")]
    if ctx.max_parents is not None and int(ctx.max_parents) < 1:
        start = start[:0]
    fr = F.Frontier(ctx.N, opts.heap_cap)
    z = ctx.scratch("zobrist", lambda: F.zobrist(ctx.n))
    cf, ci, ch, tk, tv, rows = F.add_start_rows(fr.cf, fr.ci, fr.ch, fr.tk, fr.tv, fr.st, z, score0, ll0, nz0,
                                                cand[start], s_score[start], s_ll[start], s_nz[start],
                                                ctx.arities[cand[start]])
    fr.set_arrays((cf, ci, ch, tk, tv))
    full_single = np.full(ctx.n, -np.inf)
    full_single[cand] = s_score
    full_gain = np.full(ctx.n, -np.inf)
    full_gain[cand] = gain
    pool_rows = rows[np.isin(start, pool_pos)]
    budget = opts.time_per_variable if seconds is None else seconds
    stop = _run(ctx, x, strategy, fr, z, pool, full_gain, full_single, pool_rows, limit, ll_ub, t0, budget)
    F.final_refs(fr.cf, fr.ci, fr.ch, fr.tk, fr.tv, fr.st, z, max(limit, 1))
    keep = F.select_rows(fr.cf, fr.ci, fr.st, int(opts.max_candidates), 0.0)
    sets, sizes, scores = F.rows_to_sets(fr.ci, fr.cf, keep, max(limit, 1))
    return _result(x, sets, sizes, scores, t0, limit=limit, candidates=len(cand), pool=len(pool), stats=fr.st,
                   stop=stop)


def _run(ctx, x, strategy, fr, z, pool, gain, single, pool_rows, limit, ll_ub, t0, budget) -> str:
    """The strategy's steps in chunks until done; returns why it stopped.

    Independence selection first scores every pair of the pool exactly (a sequential phase
    of size 2, until ``pairs_share`` of the budget), then follows BIC* over triples only
    (until ``pairs_share + triples_share``), then over sets of any size: the paper's open list
    starts with every pair ranked by BIC*, and scoring them all costs little next to the
    deeper sets, while a DAG often needs a good pair or triple of parents that BIC*, which
    favours supersets of the strongest parents (often the variable's children), would reach
    last.  With ``pairs_share = triples_share = 0`` this is the paper's BIC* order from the start.
    """
    opts = ctx.options
    kind, N = ctx.kind, ctx.N
    cg = penalty_coef(AIC if kind == AIC else BIC, N)   # the guide's penalty (BDeu: BIC's)
    rmin = float(ctx.arities[pool].min()) if len(pool) else 2.0
    max_evals = np.iinfo(np.int64).max if opts.max_evaluations is None else int(opts.max_evaluations)
    deadline = np.inf if budget is None else t0 + float(budget)
    # independence selection's first pushes (every expansion of the given rows, each scanning
    # the whole pool) may overrun the budget by at most one more budget: unbounded, they took
    # 0.6 s a variable against 0.05 s on 20,000 columns; cut at the deadline itself, they left
    # jester's caches worse (BIC -493,700 instead of -491,600 through the scale bench)
    start_until = np.inf if budget is None else deadline + float(budget)
    cnt, pac, mapbuf = ctx.buffers()
    qlimit = max(1, ctx.qlimit_cells // int(ctx.arities[x]))   # codes * r_X must fit the count buffer
    common = (fr.slot_owner, fr.slot_codes, fr.slot_q, ctx.cols, ctx.arities, x, kind, ctx.ess, ctx.lgt,
              qlimit, cnt, pac, mapbuf)
    cursor = np.zeros(2, dtype=np.int64)
    pos = np.full(ctx.n, -1, dtype=np.int64)
    if strategy == "sequential":
        pool = np.sort(pool)
    pos[pool] = np.arange(len(pool))

    def sequential_step(chunk, cap, size_limit):
        return sequential.step(fr.cf, fr.ci, fr.ch, fr.tk, fr.tv, fr.st, cursor, *common, pool, pos, single, z,
                               size_limit, ll_ub, chunk, cap)

    if strategy == "sequential":
        return _chunks(fr, lambda c: sequential_step(c, max_evals, limit), deadline)
    if strategy == "greedy":
        greedy.start(fr.hk, fr.hb, fr.ha, fr.st, fr.cf, pool_rows)
        return _chunks(fr, lambda c: greedy.step(fr.cf, fr.ci, fr.ch, fr.tk, fr.tv, fr.hk, fr.hb, fr.ha, fr.st,
                                                 fr.threshold, *common, pool, gain, single, z, limit, ll_ub, cg,
                                                 rmin, c, max_evals), deadline)
    if opts.pairs_share > 0 and limit >= 2:
        share_t = t0 + opts.pairs_share * (deadline - t0) if np.isfinite(deadline) else np.inf
        share_e = max_evals if max_evals == np.iinfo(np.int64).max else int(opts.pairs_share * max_evals)
        stop = _chunks(fr, lambda c: sequential_step(c, share_e, 2), min(deadline, share_t))
        if stop == "max_evaluations" and share_e == max_evals:
            return stop
    rows = np.arange(1, fr.st[F.S_CLOSED])
    rows = rows[pos[fr.ci[rows, F.I_ADD]] >= 0]   # sets within the pool (pool singles and pairs)

    def is_start(rows, size_limit, until):
        # the open list's first entries: every expansion of the given rows, in row order and in
        # chunks, until ``until`` (start_until above)
        def push(first, chunk):
            fr.tk, fr.tv = independence.start(fr.cf, fr.ci, fr.ch, fr.tk, fr.tv, fr.hk, fr.hb, fr.ha, fr.st,
                                              fr.threshold, rows[first:first + chunk], pool, gain, single,
                                              ctx.arities, x, z, kind, ll_ub, cg, rmin, size_limit, ctx.n, N)
        _row_chunks(len(rows), push, until)

    def is_steps(size_limit, cap, until):
        return _chunks(fr, lambda c: independence.step(fr.cf, fr.ci, fr.ch, fr.tk, fr.tv, fr.hk, fr.hb, fr.ha,
                                                       fr.st, fr.threshold, *common, pool, gain, single, z,
                                                       size_limit, ll_ub, cg, rmin, c, cap), until)

    if opts.triples_share > 0 and limit >= 3:
        share_t = t0 + (opts.pairs_share + opts.triples_share) * (deadline - t0) if np.isfinite(deadline) else np.inf
        share_e = max_evals if max_evals == np.iinfo(np.int64).max else \
            int((opts.pairs_share + opts.triples_share) * max_evals)
        is_start(rows, 3, start_until)
        stop = is_steps(3, share_e, min(deadline, share_t))
        if stop == "max_evaluations" and share_e == max_evals:
            return stop
        rows = np.arange(1, fr.st[F.S_CLOSED])
        rows = rows[fr.ci[rows, F.I_SIZE] == 3]   # the triples go on to larger sets
    is_start(rows, limit, start_until)
    return is_steps(limit, max_evals, deadline)


def _row_chunks(count: int, work, deadline: float) -> None:
    """Call ``work(first, chunk)`` over ``range(count)`` in chunks sized to take 10-50 ms, until
    done or the deadline passes (checked before every chunk: nothing when it has passed)."""
    first, chunk = 0, 16
    while first < count and time.perf_counter() < deadline:
        ts = time.perf_counter()
        work(first, chunk)
        first += chunk
        chunk = _next_chunk(chunk, time.perf_counter() - ts)


def _next_chunk(chunk: int, seconds: float) -> int:
    """The next chunk size: doubled after a chunk faster than _CHUNK_FAST, halved after one
    slower than _CHUNK_SLOW."""
    if seconds < _CHUNK_FAST:
        return min(chunk * 2, 1 << 20)
    if seconds > _CHUNK_SLOW and chunk > 1:
        return chunk // 2
    return chunk


def _chunks(fr, step, deadline: float) -> str:
    """Call ``step(chunk)`` until it reports done (1: exhausted, 2: evaluation cap) or the
    deadline passes; chunks are sized to take 10-50 ms."""
    chunk = 16
    while True:
        ts = time.perf_counter()
        out = step(chunk)
        fr.set_arrays(out[1:])
        if out[0] == 1:
            return "exhausted"
        if out[0] == 2:
            return "max_evaluations"
        now = time.perf_counter()
        if now >= deadline:
            return "time"
        chunk = _next_chunk(chunk, now - ts)


def _result(x, sets, sizes, scores, t0, *, limit, candidates, pool, stats, stop) -> dict[str, Any]:
    return {"x": x, "sets": sets, "sizes": sizes, "scores": scores,
            "counted": int(stats[F.S_EVALS]), "cut": int(stats[F.S_BOUND_CUTS]), "tw_bounds": 0,
            "joint_hits": 0, "entropy_cuts": 0, "limit": int(limit), "bounds": {}, "candidates": candidates,
            "pool": pool, "evaluated": int(stats[F.S_CLOSED]), "pushed": int(stats[F.S_PUSHES]),
            "dropped": int(stats[F.S_DROPPED]), "stop": stop, "seconds": time.perf_counter() - t0}
