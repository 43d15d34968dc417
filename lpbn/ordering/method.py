"""Ordering-based search as a solve method, with the trivial (or a given) upper bound.

``lpbn.solve(cache, "asobs" | "obs")`` is :mod:`lpbn.certified`, which adds the dual LP
bound; with ``bound="trivial"`` (or a number / function giving a known bound) it calls
:func:`solve_ordering` here, which returns the best DAG found by :func:`lpbn.ordering.search.ordering_search` and an upper
bound from :func:`upper_bound` (the trivial bound, or a better one passed as the ``bound``
option, e.g. a dual LP value).  The status is ``optimal`` only when the score reaches the
bound; otherwise the limit that stopped the search (``time_limit``, ``gap_limit``,
``node_limit``, ``interrupted``).  ``node_limit`` also reports that the restart budget
(``max_restarts``, or ``lpbn.solve(node_limit=...)``, which counts restarts) or the patience
ran out: the DAG is then the best found, not proven optimal.  Without a time limit or restart
budget the search stops after 200 restarts in a row without improvement or 60 s
(:data:`~lpbn.ordering.search.DEFAULT_PATIENCE`, :data:`~lpbn.ordering.search.DEFAULT_SECONDS`).

"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..cache import ScoreCache
from ..errors import InputError
from ..result import STATUSES, SolveResult, relative_gap
from .options import OrderingOptions
from .search import DEFAULT_PATIENCE, DEFAULT_SECONDS, ordering_search


def trivial_bound(cache: ScoreCache) -> float:
    """Sum over the variables of their best candidate's score: a valid upper bound."""
    return float(np.sum(cache.scores[cache.offsets[:-1]]))


def upper_bound(cache: ScoreCache,
                bound: float | Callable[[ScoreCache], float] | None = None) -> float:
    """The bound the methods report: the trivial bound, tightened by ``bound`` (a valid upper
    bound on the optimum, or a function of the cache returning one) when given."""
    ub = trivial_bound(cache)
    if bound is not None:
        try:
            extra = float(bound(cache) if callable(bound) else bound)
        except (TypeError, ValueError):
            extra = math.nan
        if math.isnan(extra):
            raise InputError(f"bound must be a number or a function returning one, got {bound!r}")
        ub = min(ub, extra)
    return ub


def solve_obs(cache: ScoreCache, control, **options: Any) -> SolveResult:
    """OBS (Teyssier & Koller 2005) with iterated local search and the trivial bound."""
    return solve_ordering(cache, control, "obs", **options)


def solve_asobs(cache: ScoreCache, control, **options: Any) -> SolveResult:
    """ASOBS (Scanagatta et al. 2015, §4) with iterated local search and the trivial bound."""
    return solve_ordering(cache, control, "asobs", **options)


def solve_ordering(cache: ScoreCache, control, rule: str, **options: Any) -> SolveResult:
    """The search ``rule`` (``"obs"`` or ``"asobs"``) with the trivial or a given bound.
    ``options``: the fields of :class:`lpbn.ordering.options.OrderingOptions`, checked and built
    once, here.  Without a time limit, restart budget or patience, the default stopping rule
    applies (DEFAULT_PATIENCE restarts without improvement or DEFAULT_SECONDS), so the call
    terminates; ``bound`` is reported instead of the trivial bound when smaller."""
    o = OrderingOptions.build(options, rule)
    bound, max_restarts = o.bound, o.max_restarts
    ub = upper_bound(cache, bound)
    control.improved(bound=ub)
    try:
        res = ordering_search(cache, rule, control=control, **o.search_kwargs())
    except KeyboardInterrupt:       # raised before any DAG exists
        return SolveResult(dag=None, score=-math.inf, upper_bound=ub, status="interrupted",
                           method=rule, message="interrupted by the user")
    if res.score > ub + control.tolerance * max(1.0, abs(res.score)):
        raise InputError(f"bound {ub!r} is not a valid upper bound: the search found a DAG "
                         f"scoring {res.score!r}")
    dag = res.dag(cache)
    if res.stop == "exhausted":         # n <= 2: every ordering was evaluated
        ub = min(ub, res.score)
        control.improved(bound=ub)
    status, message = _status(control, res, ub, max_restarts)
    stats = dict(res.stats, trivial_bound=trivial_bound(cache), upper_bound=ub)
    return SolveResult(dag=dag, score=res.score, upper_bound=ub, status=status,
                       method=rule, stats=stats, message=message)


def _status(control, res, ub: float, max_restarts) -> tuple[str, str]:
    """Status and message: optimal only when the bound proves it."""
    gap = relative_gap(res.score, ub)
    if gap <= control.tolerance:
        return "optimal", "the score reaches the upper bound"
    not_proven = f"best DAG found, not proven optimal (relative gap {gap:.3g} to the upper bound)"
    default = res.stats.get("default_rule")
    if res.stop == "max_restarts":
        return "node_limit", f"restart budget exhausted (max_restarts={max_restarts}): {not_proven}"
    if res.stop == "patience":
        how = " (the default stopping rule without a time limit or restart budget)" \
            if default else ""
        return "node_limit", (f"{res.stats.get('patience', DEFAULT_PATIENCE)} restarts in a row "
                              f"without improvement{how}: {not_proven}")
    if res.stop == "time_limit" and default:
        return "time_limit", (f"stopped at the default {DEFAULT_SECONDS:g} s cap (no time limit or "
                              f"restart budget given): {not_proven}")
    if res.stop == "node_limit":
        return "node_limit", f"restart limit (node_limit counts restarts): {not_proven}"
    if res.stop in STATUSES:
        return res.stop, not_proven
    return "node_limit", f"stopped ({res.stop}): {not_proven}"
