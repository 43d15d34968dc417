"""Engine ``bnb``: depth-first branch and bound over the BN graph (Chen, Choi & Darwiche 2015:
partial DAGs, one family added at a time) with order-graph bounds, for the k best DAGs.

Every DAG is one leaf of the tree that decides the variables in a fixed order, each with one
of its candidate parent sets (so no DAG is met twice); a family that would close a directed
cycle with the families already chosen is never taken.  A node's bound is the smaller of

* the chosen families' scores plus, for every undecided variable, its best candidate that
  closes no cycle with the chosen families (a relaxation of the rest), and
* the smallest "best DAG containing this family" value (:mod:`lpbn.kbest.tables`, exact per
  family by the subset DP; Chen, Darwiche & Choi, Thm 4) over the chosen families, and
* beyond the DP tables, the cluster LP's bound U(λ) minus the chosen families' regrets
  (Jaakkola et al. 2010 eq. 8 read as reduced costs, :mod:`lpbn.dual.fixing`; λ from the
  LP of the dominance-pruned cache, valid for the full one): additive over the families, so
  it tightens with every decision, and it needs no 2^n memory;

a node is cut when its bound is below the score of the K-th best DAG found so far, minus the
tie tolerance (so DAGs tied with the K-th are still met).  Before the search, a K-best list of
the DAGs consistent with one topological order of the optimum gives a first threshold
(K distinct DAGs exist above it), and every family whose best DAG is below it is dropped.
The search stops every ``chunk`` nodes to poll the limits, so a time limit returns the list so
far and the best score any unexplored DAG can have.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ..cache import ScoreCache
from .collect import Collector, tie_tol
from ..tuning import (KBEST_CHUNK_NODES as CHUNK_NODES, KBEST_BUFFER as BUFFER, KBEST_MAX_GROUP as MAX_GROUP,
                      KBEST_LP_SHARE as LP_SHARE, KBEST_LP_SECONDS as LP_SECONDS, KBEST_AIM as AIM)


def order_seed(cache: ScoreCache, order: np.ndarray, k: int, with_scores: bool = False):
    """A lower bound on the K-th best DAG score, and on the K-th best Markov equivalence
    class's (the DAGs consistent with one order lie in distinct classes): the K-th best of
    the DAGs consistent with ``order`` (:func:`order_kbest`); -inf when fewer than K such
    DAGs exist.  ``with_scores``:
    also the (up to) K best scores of those DAGs, best first."""
    sums, _ = order_kbest(cache, order, k)
    seed = float(sums[k - 1]) if len(sums) >= k else -math.inf
    return (seed, sums) if with_scores else seed


def order_kbest(cache: ScoreCache, order: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The (up to) K best DAGs consistent with ``order``, best first: their scores and their
    choices (one global candidate index per variable); all distinct, all acyclic."""
    n = cache.n
    order = np.asarray(order, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    acc = np.zeros(1)
    ch = np.zeros((1, 0), dtype=np.int64)
    for i in range(n):
        pred = 0
        for v in order[:pos[i]]:
            pred |= 1 << int(v)
        r = cache.family_range(i)
        cand = np.arange(r.start, r.stop)[(cache.masks[r.start:r.stop] & ~np.uint64(pred)) == 0]
        if len(cand) == 0:
            return np.empty(0), np.empty((0, n), dtype=np.int64)
        vals = cache.scores[cand]
        top = np.argsort(-vals, kind="stable")[:k]
        cand, vals = cand[top], vals[top]
        sums = (acc[:, None] + vals[None, :]).ravel()
        sel = np.argpartition(-sums, k - 1)[:k] if len(sums) > k else np.arange(len(sums))
        rows, cols = np.divmod(sel, len(vals))
        acc = sums[sel]
        ch = np.hstack([ch[rows], cand[cols][:, None]])
    o = np.argsort(-acc, kind="stable")
    return acc[o], ch[o]


def _add_seed_dags(coll: Collector, cache: ScoreCache, order: np.ndarray, k: int, classes: bool) -> int:
    """A stopped search lists at least the K best DAGs consistent with the seed order (real,
    distinct DAGs; for classes, only classes not listed yet, so no member is counted twice).
    Returns how many were added."""
    if len(order) != cache.n:
        return 0
    scores, choices = order_kbest(cache, order, k)
    if len(scores) == 0:
        return 0
    if classes:
        from .collect import class_keys
        keys = class_keys(cache.masks[choices])
        new = np.array([keys[t].tobytes() not in coll.keys for t in range(len(scores))])
    else:
        have = {row.tobytes() for row in np.asarray(coll.choices, dtype=np.int64)} if len(coll) else set()
        new = np.array([choices[t].tobytes() not in have for t in range(len(scores))])
    if new.any():
        coll.add(scores[new], choices[new])
    return int(new.sum())


@numba.njit(cache=True)
def _node_rest(d, n, vorder, offs, cmask, cscore, rperm, creg, desc_row):
    """Over the undecided variables (vorder[d:]), each restricted to the candidates closing
    no cycle with the chosen families (desc_row[v] = descendants of v): the sum of their best
    scores and the sum of their smallest LP regrets (``rperm``: the candidates of each
    variable by regret, ascending), each with the term of vorder[d]; -inf scores if one
    variable has no candidate left."""
    rest = 0.0
    first = 0.0
    rrest = 0.0
    rfirst = 0.0
    for e in range(d, n):
        z = vorder[e]
        dz = desc_row[z]
        got = -np.inf
        for p in range(offs[z], offs[z + 1]):
            if (cmask[p] & dz) == 0:
                got = cscore[p]
                break
        if got == -np.inf:
            return -np.inf, -np.inf, 0.0, 0.0
        reg = 0.0
        for q in range(offs[z], offs[z + 1]):
            p = rperm[q]
            if (cmask[p] & dz) == 0:
                reg = creg[p]
                break
        rest += got
        rrest += reg
        if e == d:
            first = got
            rfirst = reg
    return rest, first, rrest, rfirst


@numba.njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - np.uint64(1)
        c += 1
    return c


@numba.njit(cache=True)
def _cluster_excess(y, m, cnt_row, cl_bits, cl_k, cl_lam):
    """λ lost when variable y takes the family with parent mask m, given the counts so far:
    for every cluster C ∋ y that the family meets fewer than k_C times (it draws λ_C in the
    eq. 8 bound) while already k_C decided members did, λ_C (each extra one costs λ_C: every
    DAG scores at most U(λ) - Σ regrets - Σ_C λ_C (members meeting C fewer than k_C times -
    k_C), and those counts only grow)."""
    one = np.uint64(1)
    out = 0.0
    for c in range(cl_bits.shape[0]):
        b = cl_bits[c]
        if (b >> np.uint64(y)) & one and _popcount(m & b) < cl_k[c] and cnt_row[c] >= cl_k[c]:
            out += cl_lam[c]
    return out


@numba.njit(cache=True)
def _search(n, vorder, offs, cmask, cscore, cfull, creg, rperm, by_regret, lpu, cl_bits, cl_k,
            cl_lam, cnt, slack, corig, logcnt, remb, state, pos, desc, partial, minfull, regsum,
            restsum, rregsum, chosen, thr, budget, out_choice, out_score, acc):
    """Resumable DFS (see module docstring).  state = [depth, started, leaves_out].
    acc = [nodes, log_rest, next_bound].  ``creg``: each candidate's LP regret, ``lpu`` the
    LP bound they refer to (a DAG scores at most lpu minus its families' regrets minus the
    clusters' excess, :func:`_cluster_excess`, kept per depth in ``cnt``/``slack``; zeros,
    +inf and no clusters without the LP).  A variable's candidates are tried in the order
    ``rperm`` (within its block of ``offs``): by regret with the LP (``by_regret``; the K
    best DAGs have small regret sums, so they are met first), else by score.  ``pos[d]``
    indexes ``rperm``.
    Returns 0 when finished, 1 when the node budget ran out, 2 when the leaf buffer is full."""
    one = np.uint64(1)
    if state[1] == 0:
        state[1] = 1
        for v in range(n):
            desc[0, v] = 0
        partial[0] = 0.0
        regsum[0] = 0.0
        slack[0] = 0.0
        for c in range(cl_bits.shape[0]):
            cnt[0, c] = 0
        minfull[0] = np.inf
        rest, first, rrest, rfirst = _node_rest(0, n, vorder, offs, cmask, cscore, rperm, creg,
                                                desc[0])
        if rest == -np.inf:
            state[0] = -1
            return 0
        restsum[0] = rest - first
        rregsum[0] = rrest - rfirst
        pos[0] = offs[vorder[0]]
        state[0] = 0
    d = state[0]
    cap = out_score.shape[0]
    nodes = 0
    while d >= 0:
        if nodes >= budget:
            state[0] = d
            acc[0] += nodes
            return 1
        if state[2] >= cap:
            state[0] = d
            acc[0] += nodes
            return 2
        y = vorder[d]
        q = pos[d]
        end = offs[y + 1]
        if q >= end:
            d -= 1
            continue
        pos[d] = q + 1
        p = rperm[q]
        m = cmask[p]
        if (m & desc[d, y]) != 0:
            continue                               # would close a directed cycle
        ub = partial[d] + cscore[p] + min(restsum[d], remb[d + 1])
        lpb = lpu - (regsum[d] + creg[p] + rregsum[d] + slack[d])
        if (lpb if by_regret else ub) < thr:       # candidates are sorted: the rest is worse
            b = lpb if by_regret else ub
            acc[1] = np.logaddexp(acc[1], np.log(end - q) + logcnt[d] + b)
            acc[2] = max(acc[2], b)
            pos[d] = end
            continue
        extra = _cluster_excess(y, m, cnt[d], cl_bits, cl_k, cl_lam) if lpb >= thr else 0.0
        lpb -= extra
        if ub < thr or cfull[p] < thr or lpb < thr:
            b = min(ub, cfull[p], lpb)
            acc[1] = np.logaddexp(acc[1], logcnt[d] + b)
            acc[2] = max(acc[2], b)
            continue
        nd = d + 1
        chosen[d] = p
        nodes += 1
        if nd == n:
            k = state[2]
            for e in range(n):
                out_choice[k, vorder[e]] = corig[chosen[e]]
            out_score[k] = partial[d] + cscore[p]
            state[2] = k + 1
            continue
        partial[nd] = partial[d] + cscore[p]
        minfull[nd] = min(minfull[d], cfull[p])
        regsum[nd] = regsum[d] + creg[p]
        slack[nd] = slack[d] + extra
        for c in range(cl_bits.shape[0]):
            b = cl_bits[c]
            cnt[nd, c] = cnt[d, c] + (1 if ((b >> np.uint64(y)) & one
                                             and _popcount(m & b) < cl_k[c]) else 0)
        for v in range(n):
            desc[nd, v] = desc[d, v]
        ybit = one << np.uint64(y)
        add = ybit | desc[nd, y]
        for u in range(n):
            if (m >> np.uint64(u)) & one:
                ubit = one << np.uint64(u)
                for a in range(n):
                    if a == u or (desc[nd, a] & ubit) != 0:
                        desc[nd, a] |= add
        rest, first, rrest, rfirst = _node_rest(nd, n, vorder, offs, cmask, cscore, rperm, creg,
                                                desc[nd])
        bnd = min(partial[nd] + min(rest, remb[nd]), minfull[nd],
                  lpu - (regsum[nd] + rrest + slack[nd]))
        if bnd < thr:
            if bnd > -np.inf:
                acc[1] = np.logaddexp(acc[1], logcnt[d] + bnd)
                acc[2] = max(acc[2], bnd)
            continue
        restsum[nd] = rest - first
        rregsum[nd] = rrest - rfirst
        pos[nd] = offs[vorder[nd]]
        d = nd
    state[0] = -1
    acc[0] += nodes
    return 0


def _group_bounds(cache: ScoreCache, limit: int, control):
    """:class:`lpbn.kbest.tables.GroupBounds` with the largest groups the memory limit allows
    (at most :data:`MAX_GROUP`), grouped by coupling (:func:`lpbn.bfbnb.heuristic.make_groups`);
    None when not even groups of 2 fit or the limits stopped it."""
    from ..bfbnb.heuristic import make_groups
    from . import tables as tb
    g = min(MAX_GROUP, cache.n)
    while g >= 2 and tb.group_memory([g, g]) > limit:
        g -= 1
    if g < 2:
        return None
    gb = tb.GroupBounds(cache, make_groups(cache, g), control.should_stop)
    return gb if gb.ok else None


def _decision_order(cache: ScoreCache, opt_parents: list[tuple[int, ...]] | None) -> np.ndarray:
    """Decide the variables in a topological order of the optimal DAG (sources first: the
    undecided variables are then the sinks, whose backward-table bound is tight; on hepatitis,
    K = 1,000, 15 k nodes at the final threshold against 848 k sinks first), else the
    variables with the fewest candidates first."""
    if opt_parents is not None:
        from ..result import DAG
        topo = DAG(cache.names, opt_parents).topological_order()
        if topo is not None:
            return np.array(topo, dtype=np.int64)
    return np.argsort(cache.counts(), kind="stable").astype(np.int64)


def _lp_bounds(cache: ScoreCache, control, stats: dict):
    """Per-family bounds and additive regrets from the cluster LP, without 2^n memory
    (Jaakkola et al. 2010 eq. 8; :mod:`lpbn.dual.fixing`): for the root λ of the LP of the
    dominance-pruned cache, every DAG scores at most U(λ) minus the sum of its families'
    regrets minus the clusters' excess (:func:`_cluster_excess`).  Returns ((the regret of
    every candidate of ``cache``, U, and the clusters with λ > 0 as masks, k and λ), the
    LP's decoded DAG), or None when the LP gave no finite bound."""
    from ..dual.fixing import candidate_bounds_at
    from ..dual.solver import root_relaxation
    remaining = control.remaining()
    budget = LP_SECONDS if not math.isfinite(remaining) else min(LP_SECONDS, LP_SHARE * remaining)
    pruned = cache.prune_dominated()
    rr = root_relaxation(pruned, time_limit=budget)
    if not math.isfinite(rr.value):
        return None
    bounds, u = candidate_bounds_at(cache, rr.cluster_bits, rr.cluster_k, rr.lam)
    if not math.isfinite(u):
        return None
    regret = np.maximum(u - bounds, 0.0)
    u += 1e-9 * max(1.0, abs(u))           # rounding slack: the search compares sums of regrets
    pos = rr.lam > 0
    clusters = (np.ascontiguousarray(rr.cluster_bits[pos, 0]), rr.cluster_k[pos].astype(np.int64),
                rr.lam[pos].astype(np.float64))
    stats["lp_bound"] = u
    stats["lp_seconds"] = rr.stats.get("seconds")
    stats["lp_converged"] = rr.converged
    stats["lp_clusters"] = int(pos.sum())
    return (regret, u, *clusters), rr.best_dag


def enumerate_bnb(cache: ScoreCache, k: int, control, *, classes: bool = False,
                  memory_limit: int | None = None, tables: bool | None = None,
                  groups: bool | None = None, lp_bounds: bool | None = None,
                  chunk: int = CHUNK_NODES, threads: int | None = None) -> dict:
    """Run the engine; returns a dict with the collector and the proof (see api).  ``threads``:
    numba threads for the order-graph tables (None: every core)."""
    from ..dp_kernels import workers_for
    from . import tables as tb
    n = cache.n
    stats: dict = {"engine": "bnb"}
    limit = 4 * 2**30 if memory_limit is None else int(memory_limit)
    workers = workers_for(n, threads)
    use_tables = (tb.estimate_memory(n, workers) <= limit) if tables is None else bool(tables)
    coll = Collector(cache.masks, cache.scores, k, classes=classes)
    logc = np.log(cache.counts().astype(np.float64))
    opt_parents = None
    gb = None
    lp = lp_best = None
    if lp_bounds is True or (lp_bounds is None and not use_tables):
        got = _lp_bounds(cache, control, stats)
        if got is not None:
            lp, lp_best = got
    if use_tables:
        got = tb.family_bounds(cache, control.should_stop, workers)
        if got is None:
            return {"collector": coll, "complete": False, "open_bound": math.inf, "stats": stats}
        full, opt, leaf, btab = got
        from ..dp import backtrack
        opt_parents = backtrack(cache, leaf, (1 << n) - 1)
        stats["optimum"] = opt
        control.improved(best=opt, bound=opt)
    else:
        # with the LP's bounds the pattern database rarely pays for itself (flag's 100 best
        # classes: the same 1.0 M nodes, 7.6 s with the groups, 1.5 s without; horse: 6.1 M
        # nodes against 7.3 M, 8.9 s against 7.7 s), so it is built only without the LP
        use_groups = groups is True or (groups is None and lp is None)
        gb = _group_bounds(cache, limit, control) if use_groups else None
        if gb is not None:
            full = gb.full
            stats["family_bounds"] = (f"pattern database, groups of {sorted(map(len, gb.groups), reverse=True)} "
                                      "variables (DP tables above the memory limit)")
            stats["upper_bound"] = gb.top
        else:
            best = cache.best_unconstrained()
            full = cache.scores + (best.sum() - best[cache.family])
            stats["family_bounds"] = ("LP regrets" if lp is not None else "trivial") + \
                " (DP tables above the memory limit)"
    stats["family_bounds_exact"] = bool(use_tables)
    if lp is not None:
        full = np.minimum(full, lp[1] - lp[0])
    if opt_parents is not None:
        order = _decision_order(cache, opt_parents)
        from ..result import DAG
        seed_order = np.array(DAG(cache.names, opt_parents).topological_order(), dtype=np.int64)
    else:
        from ..ordering.quick import quick_ordering_search
        seed_order, _ = quick_ordering_search(cache, time_limit=min(1.0, 0.05 * control.remaining()),
                                        max_restarts=50)
        seed_order = np.asarray(seed_order, dtype=np.int64)
        if lp is not None and lp_best is not None:
            order_lp = np.array(lp_best.topological_order(), dtype=np.int64)
            if cache.best_for_order(order_lp)[1] > cache.best_for_order(seed_order)[1]:
                seed_order = order_lp
        order = seed_order.copy()                 # sources of a good order first, as with tables
    # the seed is a valid class threshold too: two DAGs consistent with one order and with the
    # same skeleton orient every edge alike, so distinct order-consistent DAGs lie in distinct
    # Markov equivalence classes, and the K best of them are K classes scoring at least it
    seed, seed_scores = order_seed(cache, seed_order, k, with_scores=True)
    stats["seed_threshold"] = seed if math.isfinite(seed) else None
    stats["families"] = int(cache.m)
    # remb[d]: the backward table's bound on the variables undecided at depth d (order[d:]),
    # placed after the decided ones (a relaxation: any parents among the decided variables)
    remb = np.full(n + 1, np.inf)
    if use_tables:
        for d in range(n + 1):
            rm = 0
            for v in order[d:]:
                rm |= 1 << int(v)
            remb[d] = float(btab[rm])
        del btab
    elif gb is not None:
        for d in range(n + 1):
            remb[d] = gb.rest(order[d:])
    top = opt if use_tables else float(seed_scores[0]) if len(seed_scores) else -math.inf
    rounds = []
    # threshold rounds pay off when a round near the final threshold is cheap, i.e. with the
    # exact per-family bounds; without them (flag, n = 29: 0 classes listed in 60 s at the
    # first guess, 100 with one plain round) one round from the seed
    t = _first_guess(top, seed_scores, k, seed) if use_tables else seed
    while True:
        out = _round(cache, k, control, classes, full, logc, order, remb, t, chunk, lp)
        coll = out["collector"]
        rounds.append({"threshold": t if math.isfinite(t) else None, "nodes": out["nodes"],
                       "listed": len(coll), "families_kept": out["families_kept"]})
        if out["stopped"] or _proven(coll, k, t, seed):
            break
        t = _next_guess(top, t, len(coll), k, seed)
        stopped = control.should_stop()
        if stopped:
            # the last round listed every DAG above its threshold, fewer than K
            out.update(complete=False, stopped=stopped)
            break
    if not out["complete"]:
        stats["seed_dags_added"] = _add_seed_dags(out["collector"], cache, seed_order, k, classes)
    stats["nodes"] = int(sum(r["nodes"] for r in rounds))
    stats["families_kept"] = out["families_kept"]
    stats["rounds"] = rounds
    out["stats"] = stats
    return out


def _first_guess(top: float, seed_scores: np.ndarray, k: int, seed: float) -> float:
    """The first round's threshold: a third of the way from the best known score down to the
    K-th best DAG consistent with the seed order (the final K-th lies between)."""
    if not math.isfinite(top) or len(seed_scores) == 0:
        return seed
    low = float(seed_scores[min(k, len(seed_scores)) - 1])
    if not low < top:
        return seed
    t = top - (top - low) / 3.0
    return max(seed, t)


def _next_guess(top: float, t: float, found: int, k: int, seed: float) -> float:
    """The next round's threshold after a round at ``t`` listed ``found`` < K: the number of
    DAGs above ``top - x`` grows about exponentially in ``x``, so aim at AIM·K by that
    model, going down between 1.5 and 4 times as far as the last round; never below the
    seed (a valid threshold: that round is the last), -inf when there is none and the step
    gets large (a plain search)."""
    if not math.isfinite(t) or not math.isfinite(top):
        return -math.inf
    dx = max(top - t, 1e-9 * max(1.0, abs(top)))
    if found > 1:
        want = dx * math.log(AIM * k) / math.log(found)
        want = min(max(want, 1.5 * dx), 4.0 * dx)
    else:
        want = 4.0 * dx
    nt = top - want
    if math.isfinite(seed):
        return max(seed, nt)
    if want >= max(1.0, abs(top)):
        return -math.inf
    return nt


def _proven(coll: Collector, k: int, t: float, seed: float) -> bool:
    """A round at threshold ``t`` met every DAG scoring at least ``t`` minus the tie tolerance;
    its list is the exact answer when its K-th entry and that entry's ties lie above that, or
    when ``t`` is at most the seed (K DAGs, and K classes, score at least the seed; rounding
    can hide the first case when the seed order's best DAG is the optimum and K = 1)."""
    if not math.isfinite(t) or t <= seed:
        return True
    if len(coll) < k:
        return False
    kth = coll.threshold()
    return kth - tie_tol(kth) >= t - tie_tol(t)


def _round(cache: ScoreCache, k: int, control, classes: bool, full: np.ndarray, logc: np.ndarray,
           order: np.ndarray, remb: np.ndarray, t: float, chunk: int,
           lp: tuple | None = None) -> dict:
    """One search over the DAGs scoring at least ``t`` (less the tie tolerance), or all DAGs
    for ``t = -inf``: the collector, and the proof of what it did not list."""
    n = cache.n
    coll = Collector(cache.masks, cache.scores, k, classes=classes)
    thr0 = t - tie_tol(t) if math.isfinite(t) else -math.inf
    keep = full >= thr0
    gone = ~keep
    if gone.any():
        # a dropped family: at most prod(other counts) DAGs, each scoring at most full[j]
        lc = logc.sum() - logc[cache.family[gone]] + full[gone]
        coll.log_rest = float(np.logaddexp(coll.log_rest, np.logaddexp.reduce(lc)))
        coll.next_bound = max(coll.next_bound, float(full[gone].max()))
    # reduced candidate lists, in decision order's variables (CSR by variable)
    idx = np.flatnonzero(keep)
    fam = cache.family[idx]
    cnts = np.bincount(fam, minlength=n)
    if (cnts == 0).any():
        # some variable keeps no family: then no DAG scores at least t, which cannot happen
        # for t at most a known DAG's score; be safe
        idx = np.arange(cache.m)
        fam = cache.family
        cnts = cache.counts()
    offs = np.zeros(n + 1, dtype=np.int64)
    offs[1:] = np.cumsum(cnts)
    cmask = cache.masks[idx].astype(np.uint64)
    cscore = cache.scores[idx].copy()
    cfull = full[idx].copy()
    creg = np.zeros(len(idx)) if lp is None else lp[0][idx].copy()
    # each variable's candidates by regret, ascending (positions in the arrays above)
    rperm = np.lexsort((creg, np.repeat(np.arange(n), cnts))).astype(np.int64)
    lpu = math.inf if lp is None else float(lp[1])
    if lp is None:
        cl_bits, cl_k, cl_lam = (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64),
                                 np.zeros(0))
    else:
        cl_bits, cl_k, cl_lam = lp[2], lp[3], lp[4]
    cnt = np.zeros((n + 1, len(cl_bits)), dtype=np.int64)
    slack = np.zeros(n + 1)
    corig = idx.astype(np.int64)
    rlog = np.log(cnts.astype(np.float64))
    logcnt = np.zeros(n)
    for d in range(n):
        logcnt[d] = float(rlog[order[d + 1:]].sum())
    state = np.zeros(3, dtype=np.int64)
    pos = np.zeros(n, dtype=np.int64)
    desc = np.zeros((n + 1, n), dtype=np.uint64)
    partial = np.zeros(n + 1)
    minfull = np.zeros(n + 1)
    regsum = np.zeros(n + 1)
    rregsum = np.zeros(n + 1)
    restsum = np.zeros(n + 1)
    chosen = np.zeros(n, dtype=np.int64)
    out_choice = np.zeros((BUFFER, n), dtype=np.int64)
    out_score = np.zeros(BUFFER)
    acc = np.array([0.0, -np.inf, -np.inf])
    stopped = None
    while True:
        thr_score = max(coll.threshold(), t)
        thr = thr_score - tie_tol(thr_score) if math.isfinite(thr_score) else -np.inf
        state[2] = 0
        code = _search(n, order, offs, cmask, cscore, cfull, creg, rperm, lp is not None, lpu,
                       cl_bits, cl_k, cl_lam, cnt, slack, corig, logcnt, remb,
                       state, pos, desc, partial, minfull, regsum, restsum, rregsum, chosen, thr,
                       chunk, out_choice, out_score, acc)
        got = int(state[2])
        if got:
            coll.add(out_score[:got].copy(), out_choice[:got].copy())
            if len(coll):
                control.improved(best=float(coll.scores.max()))
        if code == 0:
            break
        stopped = control.should_stop()
        if stopped:
            break
    coll.log_rest = float(np.logaddexp(coll.log_rest, acc[1]))
    coll.next_bound = max(coll.next_bound, float(acc[2]))
    open_bound = -math.inf
    if stopped:
        # every unexplored DAG lies below an open node of the stack
        d = int(state[0])
        for e in range(d + 1):
            y = int(order[e])
            q = int(pos[e])
            if q < offs[y + 1]:
                left = rperm[q:offs[y + 1]]        # the candidates not tried yet at depth e
                open_bound = max(open_bound, float(min(partial[e] + cscore[left].max()
                                                       + min(restsum[e], remb[e + 1]),
                                                       lpu - regsum[e] - rregsum[e] - slack[e]
                                                       - creg[left].min())))
    return {"collector": coll, "complete": stopped is None, "stopped": stopped,
            "open_bound": open_bound, "nodes": int(acc[0]), "families_kept": int(keep.sum())}
