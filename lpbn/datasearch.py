"""Learning at scale: search on the data and an enlarged cache, in turn (issue 52).

When exhaustive scoring is too large, a cache from budgeted exploration caps the answer: the
best network can use parent sets the exploration never kept.  :func:`search_and_enlarge`
instead

1. climbs over all DAGs on the data (:func:`lpbn.scoring.hillclimb.hill_climb`: hill climbing
   + tabu, bnlearn's ``hc``/``tabu`` algorithm, with perturbation restarts); every family it
   visits seeds the cache, so the cache holds at least what local search finds;
1b. adds the sets of a short independence selection (:func:`independence_families`);
2. for the incumbent's topological order, searches each variable's parent set among its
   predecessors *on the data* (best-improvement add/remove from the incumbent's family,
   :func:`lpbn.scoring.hillclimb_kernels.order_family_climb`) and adds every family moved to:
   the incumbent's order then yields a DAG at least as good as the incumbent (its families are
   consistent with its own order, and the search starts from them);
3. runs the ordering search (ASOBS, Scanagatta et al. 2015) on the enlarged cache from that
   order; its DAG becomes the incumbent when better;
4. climbs on the data again from the incumbent (one tabu climb): moves the cache cannot
   express (families it never held) improve it further, and the families visited join the
   cache.  2-4 repeat until a whole round finds no family that improves the incumbent, or the
   time share ends.

The caller then solves the final cache with its bound (:func:`lpbn.solve`): that bound holds
over the DAGs whose families are in the cache (``bound_scope="cache"``), not over every DAG.
Step 2 is a local search, not Tian's exact fixed-order DFBnB (:mod:`lpbn.scoring.explore.dfbnb`,
``score_data(order=...)``): on 100 variables with 9,000 rows that exact search had not
finished one ordering after 600 s, far beyond a 60-s run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cache import ScoreCache
from .result import smallest_topological_order
from .scoring import hillclimb_kernels as HK
from .scoring.hillclimb import Climber, ClimbOptions, hill_climb, to_units
from .tuning import (HC_SHARE, ENLARGE_SHARE, IS_SHARE, WALK, TABLE_SHARE,
                     DATASEARCH_SECONDS as DEFAULT_SECONDS)

__all__ = ["ENLARGE_SHARE", "HC_SHARE", "SearchOutcome", "families_cache", "search_and_enlarge"]


@dataclass
class SearchOutcome:
    """The enlarged cache, the incumbent DAG (parents per variable, its score) and its
    topological order, and what each step did."""

    cache: ScoreCache
    parents: list[tuple[int, ...]]
    score: float
    order: list[int]
    stats: dict[str, Any] = field(default_factory=dict)


def families_cache(ds, families: dict, kind: int, ess: float, meta: dict[str, Any]) -> ScoreCache:
    """A :class:`ScoreCache` of the given families ((child, parents) -> score, stored units),
    with every variable's empty set added (scored on the data) so each variable has one."""
    cl = Climber(ds, kind, ess, None, records=1)
    fams = dict(families)
    for j in range(ds.n):
        if (j, ()) not in fams:
            s = HK.family_score(cl.cols, cl.ar, j, np.zeros(0, np.int64), kind, cl.ess, cl.lgt, cl.limit, cl.cnt,
                                cl.pac, cl.mapbuf, cl.scr[0], cl.scr[1])
            fams[(j, ())] = to_units(kind, s)
    keys = sorted(fams, key=lambda k: (k[0], -fams[k], len(k[1]), k[1]))
    offsets = np.zeros(ds.n + 1, dtype=np.int64)
    for j, _ in keys:
        offsets[j + 1] += 1
    np.cumsum(offsets, out=offsets)
    scores = np.array([fams[k] for k in keys])
    sizes = np.array([len(k[1]) for k in keys], dtype=np.int64)
    ptr = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    items = np.array([v for k in keys for v in k[1]], dtype=np.int32)
    return ScoreCache(ds.names, offsets, scores, ptr, items, meta=dict(meta), source=ds.source)


def order_best(cl: Climber, order: list[int], parents: list[tuple[int, ...]], families: dict) -> tuple[list, float]:
    """Step 2: each variable's parent set among its predecessors in ``order``, by
    best-improvement search on the data from its family in ``parents`` (restricted to the
    predecessors).  Families moved to are added to ``families``; returns the DAG and score."""
    n = cl.ds.n
    allowed = np.zeros(n, dtype=np.bool_)
    out: list[tuple[int, ...]] = [()] * n
    total = 0.0
    rec_sets = np.zeros((64 * n, min(n, 64) + 2), dtype=np.int64)
    rec_score = np.zeros(64 * n)
    for j in order:
        start = np.array([p for p in parents[j] if allowed[p]], dtype=np.int64)
        mask, sc, counted, rec_n = HK.order_family_climb(cl.cols, cl.ar, j, allowed, start, cl.maxp, cl.kind, cl.ess,
                                                         cl.lgt, cl.limit, cl.cnt, cl.pac, cl.mapbuf, *cl.scr,
                                                         rec_sets, rec_score, 0)
        cl.counted += counted
        for r in range(rec_n):
            k = int(rec_sets[r, 1])
            families[(j, tuple(int(x) for x in rec_sets[r, 2:2 + k]))] = to_units(cl.kind, float(rec_score[r]))
        out[j] = tuple(int(v) for v in np.flatnonzero(mask))
        families[(j, out[j])] = to_units(cl.kind, sc)
        total += to_units(cl.kind, sc)
        allowed[j] = True
    return out, total


def topological(parents: list[tuple[int, ...]]) -> list[int]:
    """A topological order of a DAG given as parents per variable (ties by index)."""
    return smallest_topological_order(parents)


def search_and_enlarge(ds, kind: int, ess: float, max_parents: int | None, time_limit: float | None,
                       meta: dict[str, Any], say: Callable[[str], None] | None = None,
                       seed: int = 0) -> SearchOutcome | None:
    """Steps 1-4 of the module docstring within ``time_limit`` seconds (HC_SHARE for the
    climber, IS_SHARE for the independence selection, ENLARGE_SHARE of the rest for the
    rounds; the remainder is left for the caller's solve); see :data:`DEFAULT_SECONDS`.  None when
    the data are too large to climb in that time (see :data:`TABLE_SHARE`)."""
    t0 = time.perf_counter()
    total = DEFAULT_SECONDS if time_limit is None else float(time_limit)
    hc = hill_climb(ds, kind_name(kind), ess, max_parents, time_limit=HC_SHARE * total, say=say,
                    options=walk_options(ds.n, seed, TABLE_SHARE * total))
    if hc is None:
        return None
    families = dict(hc.families)
    parents, score = hc.parents, hc.score
    if say:
        say(f"hill climbing: BIC {score:.6f}, {hc.stats['climbs']} climbs, {len(families)} families "
            f"[{time.perf_counter() - t0:.1f} s]")
    added = independence_families(ds, kind, ess, max_parents, IS_SHARE * total, families)
    if say:
        say(f"independence selection: {added} more families [{time.perf_counter() - t0:.1f} s]")
    cl = Climber(ds, kind, ess, max_parents, records=1)
    end = t0 + (HC_SHARE + IS_SHARE + (1 - HC_SHARE - IS_SHARE) * ENLARGE_SHARE) * total
    rounds = []
    while True:
        rec, parents, score = enlarge_round(cl, families, parents, score, meta, end, seed + len(rounds) + 1)
        rounds.append(rec)
        if say:
            say(f"enlarge round {len(rounds)}: {len(families)} families, incumbent {score:.6f} "
                f"[{time.perf_counter() - t0:.1f} s]")
        if not rec["gained"] or time.perf_counter() >= end:
            break
    for j, ps in enumerate(parents):     # the incumbent's families, even if a record buffer was full
        if (j, tuple(ps)) not in families:
            families[(j, tuple(ps))] = to_units(kind, HK.family_score(
                cl.cols, cl.ar, j, np.array(ps, dtype=np.int64), kind, cl.ess, cl.lgt, cl.limit, cl.cnt, cl.pac,
                cl.mapbuf, cl.scr[0], cl.scr[1]))
    cache = families_cache(ds, families, kind, ess, meta)
    stats = {"hill_climb": hc.stats, "hill_climb_score": hc.score, "rounds": rounds,
             "seconds": time.perf_counter() - t0}
    return SearchOutcome(cache, parents, score, topological(parents), stats)


def walk_options(n: int, seed: int, table_budget: float | None = None) -> ClimbOptions:
    """The climber's settings here: a pair stays tabu for n moves, a climb ends after WALK * n
    tabu moves without a new best."""
    return ClimbOptions(tenure=n, max_idle=WALK * n, seed=seed, table_budget=table_budget)


def enlarge_round(cl: Climber, families: dict, parents, score: float, meta: dict[str, Any], end: float,
                  seed: int):
    """One round: the incumbent's order searched on the data (step 2), ASOBS on the enlarged
    cache from that order (step 3, a third of the time left), then one tabu climb on the data
    from the incumbent (half of the rest; its families join the cache).  Returns the round's
    record (``gained``: whether any step improved the incumbent) and the incumbent."""
    from .ordering.search import ordering_search
    ds, kind, ess = cl.ds, cl.kind, cl.ess

    def better(x: float) -> bool:
        return x > score + 1e-9 * (1.0 + abs(score))

    rec: dict[str, Any] = {"gained": False}
    ob_parents, rec["order_search"] = order_best(cl, topological(parents), parents, families)
    if better(rec["order_search"]):
        parents, score, rec["gained"] = ob_parents, rec["order_search"], True
    left = end - time.perf_counter()
    if left > 0:
        cache = families_cache(ds, families, kind, ess, meta)
        res = ordering_search(cache, "asobs", seed=seed, time_limit=left / 3, start=np.array(topological(parents)))
        rec["asobs"] = res.score
        if better(res.score):
            parents, score, rec["gained"] = [tuple(sorted(p)) for p in res.dag(cache).parents], res.score, True
    left = end - time.perf_counter()
    if left > 0:
        walk = hill_climb(ds, kind_name(kind), ess, cl.maxp, time_limit=left / 2, max_climbs=1, start=parents,
                          options=walk_options(ds.n, seed))
        families.update(walk.families)
        rec["climb"] = walk.score
        if better(walk.score):
            parents, score, rec["gained"] = walk.parents, walk.score, True
    rec["families"] = len(families)
    return rec, parents, score


def independence_families(ds, kind: int, ess: float, max_parents, seconds: float, families: dict) -> int:
    """Add the parent sets of a short independence selection (Scanagatta et al. 2015, the
    default exploration at this size before issue 52; :func:`lpbn.score_data`) spread over
    ``seconds`` of wall time; returns how many were new.  With few rows (nips: 500 variables,
    400 rows) its small sets serve the ordering search better than the climber's families: on
    nips the climber's cache alone gave -109,650.0 at 55 s, below bnlearn ``hc()``'s -109,649.3."""
    from .scoring.api import SERIAL_CELLS, score_data
    from .scoring.parallel import default_jobs
    jobs = 1 if ds.n * ds.N <= SERIAL_CELLS else min(default_jobs(), ds.n)
    per = max(1e-3, seconds * jobs / max(ds.n, 1))
    cache = score_data(ds, score=kind_name(kind), ess=ess, max_parents=max_parents, jobs=jobs,
                       explore="independence", time_per_variable=per)
    before = len(families)
    for j in range(ds.n):
        for c in cache.family_range(j):
            families.setdefault((j, tuple(int(v) for v in cache.parents(c))), float(cache.scores[c]))
    return len(families) - before


def kind_name(kind: int) -> str:
    from .scoring.scores import KINDS
    return next(k for k, v in KINDS.items() if v == kind)


def remaining(t0: float, time_limit: float | None) -> float | None:
    """Seconds left of ``time_limit`` since ``t0`` (None: no limit)."""
    return None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - t0))


