"""Engine ``ilp``: the k best DAGs by the HiGHS ILP with no-good rows (Cussens et al. 2013, as
GOBNILP does it).

The model is lpbn's η ILP (:class:`lpbn.lp.model.EtaLP`): convexity rows, the root's
cluster cuts and the generation-number rows, so every MIP optimum is acyclic.  After each
optimum ``c`` (one candidate ``c_i`` per variable) the row ``Σ_i η_{i,c_i} <= n - 1`` removes
that DAG and nothing else; the next MIP's optimum is the next best DAG.  The loop stops when
the MIP's proven bound (the best score of any DAG not yet listed) falls below the K-th best
score minus the tie tolerance: then no DAG outside the list scores as high as the K-th.
Each MIP is solved to a relative gap of 1e-10 (:meth:`EtaLP.solve_mip`); the final list is
sorted, so an optimum found within that gap cannot reorder it.

Before building the model, families whose trivial bound (their score plus every other
variable's best score) is below a first threshold are dropped (Chen, Darwiche & Choi, Thm 4 with
the sum of maxima as the bound); the threshold is the K-th best DAG consistent with an order from
ordering search (:func:`lpbn.kbest.bnb.order_seed`).  Nothing here uses the subset DP, so the
engine is independent of :mod:`lpbn.kbest.bnb`.
"""

from __future__ import annotations

import math

import highspy
import numpy as np

from ..cache import ScoreCache
from .collect import Collector, tie_tol


def enumerate_ilp(cache: ScoreCache, k: int, control, *, classes: bool = False, threads: int = 1,
                  prune: bool = True, subip_time: float | None = 30.0) -> dict:
    from ..lp.cut_loop import cut_loop
    from ..lp.model import EtaLP
    from ..lp.separation import incumbent_clusters
    from .bnb import order_seed
    stats: dict = {"engine": "ilp", "mip_solves": 0, "mip_nodes": 0}
    coll = Collector(cache.masks, cache.scores, k, classes=classes)
    logc = np.log(cache.counts().astype(np.float64))
    work = cache
    keep_idx = np.arange(cache.m)
    if prune and not classes:
        from ..ordering.quick import quick_ordering_search
        order, _ = quick_ordering_search(cache, time_limit=min(1.0, 0.05 * control.remaining()), max_restarts=50)
        seed = order_seed(cache, np.asarray(order, dtype=np.int64), k)
        stats["seed_threshold"] = seed if math.isfinite(seed) else None
        if math.isfinite(seed):
            best = cache.best_unconstrained()
            triv = cache.scores + (best.sum() - best[cache.family])
            keep = triv >= seed - tie_tol(seed)
            gone = ~keep
            if gone.any() and np.all(np.bincount(cache.family[keep], minlength=cache.n) > 0):
                lc = logc.sum() - logc[cache.family[gone]] + triv[gone]
                coll.log_rest = float(np.logaddexp(coll.log_rest, np.logaddexp.reduce(lc)))
                coll.next_bound = max(coll.next_bound, float(triv[gone].max()))
                keep_idx = np.flatnonzero(keep)
                work = cache.select(keep)
    stats["families_kept"] = int(work.m)
    stats["families"] = int(cache.m)
    model = EtaLP(work, threads=threads)
    root = cut_loop(model, mode="clusters", exact=True, time_limit=control.remaining(),
                    subip_time=subip_time)
    stats["root_bound"] = root.value
    model.add_generation_rows()
    model.mip_options.update(mip_heuristic_effort=0.0, mip_heuristic_run_rins=False,
                             mip_heuristic_run_rens=False, mip_heuristic_run_feasibility_jump=False,
                             mip_heuristic_run_root_reduced_cost=False)
    n = work.n
    complete = False
    stopped = None
    open_bound = math.inf
    while True:
        stopped = control.should_stop()
        if stopped:
            break
        sol = model.solve_mip(control.remaining())
        stats["mip_solves"] += 1
        stats["mip_nodes"] += sol.nodes
        if sol.status == "infeasible":
            complete = True                  # every DAG of the cache is listed
            break
        if sol.status != "optimal" or sol.choice is None:
            stopped = control.should_stop() or sol.status
            open_bound = sol.bound
            break
        t = coll.threshold()
        if math.isfinite(t) and sol.bound < t - tie_tol(t):
            complete = True
            coll.next_bound = max(coll.next_bound, sol.bound)
            # every DAG not listed scores at most sol.bound; at most prod(counts) of them
            coll.log_rest = float(np.logaddexp(coll.log_rest, np.log(work.counts().astype(float)).sum()
                                               + sol.bound))
            break
        choice = np.asarray(sol.choice, dtype=np.int64)
        from ..incumbent import choice_is_acyclic
        if not choice_is_acyclic(work, choice):     # generation rows make this numerical trouble only
            cuts = incumbent_clusters(work, choice)
            if not cuts or not model.add_clusters(np.array(cuts)):
                stopped = "interrupted"
                break
            continue
        score = float(np.sum(work.scores[choice]))
        coll.add(np.array([score]), keep_idx[choice][None, :])
        control.improved(best=score)
        idx = np.asarray(choice, dtype=np.int32)
        model.h.addRow(-highspy.kHighsInf, float(n - 1), n, idx, np.ones(n))
        model.row_kind.append("nogood")
    return {"collector": coll, "complete": complete, "stopped": None if complete else stopped,
            "open_bound": open_bound, "stats": stats}
