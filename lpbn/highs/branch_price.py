"""Branch and price over the η LP: the ``highs`` method's search after a dense cache's root.

On the caches that independence selection writes (~850 candidate parent sets per variable),
the root's cut loop levels off about half a percent above the best DAG (accidents: -349,279
after 208 s and no step more in 392 s; results/scale/README.md), and HiGHS's MIP over every
column cannot take over: with the root's cuts, dense over all ~100,000 columns, its model has
~11 million nonzeros and it never left its root in 20 minutes.  The root LP itself prices its
columns (:class:`lpbn.lp.model.EtaLP` with ``price``: a restricted master of ~8,000 columns,
every LP value still the optimum over all candidates), so the search goes on over that LP —
branch and price (Barnhart, Johnson, Nemhauser, Savelsbergh & Vance, Oper. Res. 46, 1998):

* a node is a set of edge decisions (i, p, meets): variable i's parent sets that contain p
  (``meets``), or those that do not; the first also drops p's parent sets that contain i
  (a 2-cycle).  Its LP is the root's, with the other candidates fixed to 0
  (:meth:`~lpbn.lp.model.EtaLP.restrict`), and pricing considers only the allowed ones, so
  its value bounds every DAG of the node;
* a node runs the cut loop (:func:`lpbn.lp.cut_loop.cut_loop`: cluster rows of eq. 6, the
  k-clusters, {0, 1/2}-cuts and local cuts beside tailing rounds) for at most NODE_ROUNDS
  rounds, or until they stall; its rows are valid for every DAG, so every node keeps them;
* it then splits on the edge chosen by strong branching (:mod:`lpbn.highs.branching`);
  an integral acyclic LP point is a DAG (offered to the incumbent), and a node whose bound
  is not above the incumbent's score is pruned;
* the nodes are taken best first (the largest bound), so the largest open bound, which the
  method reports, falls as fast as the tree allows; an empty tree proves the incumbent
  optimal.

On accidents' explored cache, at the root's plateau (-349,096 after 240 s), one split on the
best of 15 fractional edges gave children of -349,202 and -349,254 before any cut: a fall of
106 in one step, where the root's cut rounds had gained ~10 in their last 40.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..bound import tree_bound
from ..incumbent import Incumbent
from ..lp.cut_loop import cut_loop
from ..lp.model import EtaLP, choice_from_eta, is_integral
from ..lp.separation import incumbent_clusters
from ..result import DAG, OPTIMAL, OPTIMALITY_TOLERANCE
from .branching import meets_parent, strong_edge_split
from ..tuning import NODE_ROUNDS, NODE_STALL, NODE_MAX_PRICING, NODE_SECONDS

#: a node whose bound is within this (relative) of the incumbent's score is closed: the one
#: optimality tolerance (lpbn.bound, docs/trust.md), so a closed node's bound is within the
#: slack the crossing check allows above the tree bound it leaves behind
CLOSE_RTOL = OPTIMALITY_TOLERANCE


@dataclass(order=True)
class _Node:
    key: float                                   # -bound: heapq pops the largest bound first
    seq: int
    bound: float = field(compare=False)
    decisions: tuple = field(compare=False)      # ((i, p, meets), ...)


def node_mask(model: EtaLP, base: np.ndarray, decisions: tuple) -> np.ndarray | None:
    """The candidates a node's edge decisions leave among ``base``; None when a variable has
    none left or the forced edges close a directed cycle (no DAG lies in the node)."""
    cache = model.cache
    allowed = base.copy()
    forced = []
    for i, p, meets in decisions:
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        has = meets_parent(cache, i, p)
        allowed[lo:hi] &= has if meets else ~has
        if meets:
            forced.append((p, i))
            lo, hi = int(cache.offsets[p]), int(cache.offsets[p + 1])
            allowed[lo:hi] &= ~meets_parent(cache, p, i)
    if np.any(np.bincount(cache.family[allowed], minlength=cache.n) == 0):
        return None
    if len(forced) > 1:
        parents: list[list[int]] = [[] for _ in range(cache.n)]
        for p, i in forced:
            parents[i].append(p)
        if not DAG(cache.names, parents).is_acyclic():
            return None
    return allowed


def branch_and_price(model: EtaLP, control, incumbent: Incumbent, *, bound: float, offer_lp, cut_options: dict,
                     stats: dict) -> str:
    """Search the tree below the root LP of ``model`` (its rows and columns as the root left
    them; ``model.allowed`` the candidates left by reduced-cost fixing) best first, from the
    root's ``bound``.  ``offer_lp(eta)`` offers what an LP point gives (a decoded DAG, a
    search's DAGs beside); ``cut_options`` are the nodes' :func:`cut_loop` options.  Reports
    every fall of the largest open bound to ``control`` and returns the status: OPTIMAL
    when the tree is empty, else the stop's (``node_limit`` counts the nodes solved here)."""
    cache = model.cache
    base = model.allowed.copy()
    heap = [_Node(-bound, 0, bound, ())]
    seq, nodes, depth, t0 = 1, 0, 0, time.perf_counter()
    cut_options = dict(cut_options, mode="clusters", exact=False, max_rounds=NODE_ROUNDS, stall=NODE_STALL,
                       max_pricing=NODE_MAX_PRICING, best=lambda: incumbent.score,
                       on_bound=lambda value, eta: offer_lp(eta))
    unsplit = -math.inf              # the largest bound of a node that could not be split

    def closed(value: float) -> bool:
        best = incumbent.score
        return value <= best + CLOSE_RTOL * max(1.0, abs(best))

    def book() -> None:
        stats.update(bp_nodes=nodes, bp_open=len(heap), bp_depth=depth,
                     bp_seconds=round(time.perf_counter() - t0, 3))

    def report() -> None:
        top = heap[0].bound if heap else -math.inf
        control.improved(bound=tree_bound(incumbent.score, top, unsplit))
        book()

    try:
        while heap:
            report()
            if control.closed():
                return OPTIMAL
            stop = control.should_stop(nodes=nodes)
            if stop:
                return stop
            node = heapq.heappop(heap)
            if closed(node.bound):
                continue
            allowed = node_mask(model, base, node.decisions)
            if allowed is None:
                continue
            model.restrict(allowed)
            model.cover_allowed()
            res = cut_loop(model, time_limit=min(control.remaining(), NODE_SECONDS), **cut_options)
            nodes += 1
            value, eta = min(node.bound, res.value), res.eta
            if res.status == "infeasible":
                continue
            if eta is not None and is_integral(eta) and not closed(value):
                # a round's bound may be a Lagrangian one, above the integral point's score:
                # solve again with every column priced out, so that the value is the node's LP
                # optimum (the point's DAG, if acyclic, was offered by the loop's on_bound)
                lp = model.solve_lp(control.remaining())
                if lp.status == "infeasible":
                    continue
                value, eta = (min(value, lp.upper), lp.eta) if lp.status == "optimal" else (value, None)
            if eta is None or control.should_stop(nodes=nodes):   # stopped inside the node's LPs
                heapq.heappush(heap, _Node(-value, seq, value, node.decisions))
                seq += 1
                continue
            if closed(value):
                continue
            if is_integral(eta):             # the priced-out point is a cyclic DAG: cut, come back
                choice = choice_from_eta(cache, eta)
                if incumbent.offer(choice):
                    continue
                if not model.add_clusters(np.array(incumbent_clusters(cache, choice))):
                    unsplit = max(unsplit, value)      # numerical trouble: kept open, not looped on
                    continue
                heapq.heappush(heap, _Node(-value, seq, value, node.decisions))
                seq += 1
                continue
            split = strong_edge_split(cache, model, eta, allowed, value,
                                      incumbent.score + CLOSE_RTOL * max(1.0, abs(incumbent.score)))
            if split is None:            # not for a fractional point (two sets differ in an edge)
                unsplit = max(unsplit, value)
                continue
            i, p = split
            depth = max(depth, len(node.decisions) + 1)
            for meets in (False, True):
                heapq.heappush(heap, _Node(-value, seq, value, node.decisions + ((i, p, meets),)))
                seq += 1
        report()
        return OPTIMAL if unsplit == -math.inf else "interrupted"
    finally:
        model.restrict(base)
        book()
