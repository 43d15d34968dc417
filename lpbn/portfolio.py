"""The portfolio: what ``method="auto"`` runs, as data.

* :data:`PLANS` — one table: each :class:`Plan` says when it applies (a predicate on the
  cache's size n, density m/n and whether two cores are there, :class:`Shape`), which method
  runs (a single method, ``race``: two on two cores, or ``asobs``: the search beside an LP
  bound in a second process), with which options, what runs alone when the caller passes
  options, whether the numba-free HiGHS ILP may run first, and how the results merge;
* :func:`choose_plan` picks the first plan that applies (the front door records its name in
  ``result.stats["plan"]``); :func:`auto_method` is its method;
* :func:`merge` — the one rule combining several methods' answers (the race, the stages of a
  plan).

It sits above the methods (which never import it) and the registry, and below the front door
:mod:`lpbn.solve`, which re-exports :func:`auto_method` and the ``AUTO_*`` thresholds.  (A
method that borrows another's incumbent, ``bfbnb``'s ``dual_time``, asks through
:meth:`lpbn.control.SolveControl.borrow`, which the front door wires.)
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import bound as bound_safety
from .cache import ScoreCache
from .result import ERROR, INFEASIBLE, OPTIMAL, SolveResult
from .workers import can_race
# the plans' thresholds, with their evidence: lpbn/tuning.py (docs/auto.md)
from .tuning import (AUTO_DP_MAX_N, AUTO_BFBNB_MAX_N, AUTO_BFBNB_MIN_DENSITY, AUTO_RACE_MAX_N,
                     AUTO_DUAL_MAX_N, AUTO_DUAL_MAX_DENSITY, AUTO_HIGHS_MAX_DENSITY, AUTO_HIGHS_MAX_M,
                     AUTO_HIGHS_MAX_N, AUTO_SEARCH_HIGHS_MIN_N, AUTO_LIGHT_MAX_DENSITY, AUTO_LIGHT_MIN_DP_N)
from .tuning import AUTO_LIGHT_SECONDS  # noqa: F401  (read at call time as portfolio.AUTO_LIGHT_SECONDS)

AUTO_LARGE_METHOD = "highs"
AUTO_SCALE_METHOD = "asobs"
AUTO_WIDE_RACE_METHODS = ("highs", "dual")


#: how a plan's results merge (:func:`merge`): the first proof wins, else the better DAG with
#: the lower of the bounds (both valid, so their minimum is)
FIRST_PROOF = "first proof, else the better DAG and the lower bound"
ONE_METHOD = "one method"


class Shape:
    """What a plan is chosen on: the cache's size ``n``, its candidate count ``m`` (density
    m/n) and whether two cores and fork are there (``parallel``, :func:`lpbn.workers.can_race`).
    Never the process's import state, never the instance's name.  (A plain class, like
    :class:`Plan`: a dataclass costs a compile per generated method at every start-up.)"""

    __slots__ = ("n", "m", "parallel")

    def __init__(self, n: int, m: int, parallel: bool):
        self.n, self.m, self.parallel = n, m, parallel

    @classmethod
    def of(cls, cache: ScoreCache, parallel: bool | None = None) -> Shape:
        return cls(int(cache.n), int(cache.m), can_race() if parallel is None else bool(parallel))

    def dense(self, per_variable: float) -> bool:
        """At least ``per_variable`` candidates per variable."""
        return self.m >= per_variable * self.n

    def sparse(self, per_variable: float) -> bool:
        """At most ``per_variable`` candidates per variable."""
        return self.m <= per_variable * self.n

    def ilp_range(self) -> bool:
        """Beyond the dual's range and sparse enough for the HiGHS ILP (AUTO_DUAL_MAX_N < n <=
        AUTO_HIGHS_MAX_N, AUTO_HIGHS_MAX_DENSITY per variable, AUTO_HIGHS_MAX_M in all)."""
        return AUTO_DUAL_MAX_N < self.n <= AUTO_HIGHS_MAX_N and self.sparse(AUTO_HIGHS_MAX_DENSITY) \
            and self.m <= AUTO_HIGHS_MAX_M


class Plan:
    """One row of ``method="auto"``'s table (:data:`PLANS`): when it applies, what runs on how
    many cores, how their results merge.  ``options`` go to ``method`` when the caller gave
    none; with options (meant for one method) or a certificate a race runs ``alone`` instead.
    ``light``: the numba-free HiGHS ILP may run first (see AUTO_LIGHT_SECONDS; when the cache
    allows it, :func:`light_first`)."""

    __slots__ = ("name", "when", "method", "options", "alone", "light", "cores", "merge")

    def __init__(self, name: str, when: Callable[[Shape], bool], method: str,
                 options: tuple[tuple[str, Any], ...] = (), *, alone: str | None = None, light: bool = True,
                 cores: int = 1, merge: str = ONE_METHOD):
        self.name, self.when, self.method, self.options = name, when, method, options
        self.alone, self.light, self.cores, self.merge = alone, light, cores, merge

    def __repr__(self) -> str:
        return f"Plan({self.name!r}: {self.method})"

    def method_for(self, options: dict) -> str:
        """The method this plan runs given the caller's ``options``."""
        return self.alone if options and self.alone is not None else self.method

    def options_for(self, method: str, options: dict) -> dict[str, Any]:
        """The caller's options, or this plan's own for its own method."""
        return dict(options) if options or method != self.method else dict(self.options)


#: ``method="auto"``'s plans, tried in order; the first whose ``when`` holds runs.  The
#: evidence for each threshold is in the comments on the AUTO_* constants above and in
#: docs/auto.md.
PLANS: tuple[Plan, ...] = (
    Plan("dp-numpy", lambda s: s.n < AUTO_LIGHT_MIN_DP_N and s.n <= AUTO_DP_MAX_N, "dp", light=False),
    Plan("dp", lambda s: s.n <= AUTO_DP_MAX_N, "dp"),
    Plan("bfbnb-dense", lambda s: s.n <= AUTO_BFBNB_MAX_N and s.dense(AUTO_BFBNB_MIN_DENSITY), "bfbnb"),
    Plan("race-order-graph", lambda s: s.parallel and s.n <= AUTO_RACE_MAX_N and s.sparse(AUTO_DUAL_MAX_DENSITY),
         "race", alone="dual", cores=2, merge=FIRST_PROOF),
    Plan("race-ilp", lambda s: s.parallel and s.n <= AUTO_DUAL_MAX_N and s.sparse(AUTO_DUAL_MAX_DENSITY),
         "race", (("methods", AUTO_WIDE_RACE_METHODS),), alone="dual", cores=2, merge=FIRST_PROOF),
    Plan("dual", lambda s: s.n <= AUTO_DUAL_MAX_N and s.sparse(AUTO_DUAL_MAX_DENSITY), "dual"),
    Plan("race-ilp-large", lambda s: s.parallel and s.ilp_range() and s.n < AUTO_SEARCH_HIGHS_MIN_N,
         "race", (("methods", AUTO_WIDE_RACE_METHODS),), alone=AUTO_LARGE_METHOD, cores=2, merge=FIRST_PROOF),
    Plan("asobs-beside-ilp", lambda s: s.parallel and s.ilp_range(), AUTO_SCALE_METHOD, cores=2,
         merge="the search's DAG, the bound process's bound"),
    Plan("ilp", lambda s: s.ilp_range(), AUTO_LARGE_METHOD, light=False),
    Plan("asobs", lambda s: True, AUTO_SCALE_METHOD, merge="the search's DAG, the bound's bound"),
)


def choose_plan(cache: ScoreCache | Shape) -> Plan:
    """The plan ``method="auto"`` runs on ``cache`` (or on a :class:`Shape`): the first of
    :data:`PLANS` whose condition holds."""
    shape = cache if isinstance(cache, Shape) else Shape.of(cache)
    return next(plan for plan in PLANS if plan.when(shape))


def auto_method(cache: ScoreCache) -> str:
    """The method ``method="auto"`` runs on ``cache`` (its plan's, :func:`choose_plan`)."""
    return choose_plan(cache).method


def in_ilp_range(cache: ScoreCache) -> bool:
    """Whether ``cache`` is beyond the dual's range and sparse enough for the HiGHS ILP
    (:meth:`Shape.ilp_range`)."""
    return Shape.of(cache, parallel=False).ilp_range()


def numba_free(cache: ScoreCache, method: str, options: dict | None = None) -> bool:
    """Whether ``method`` with ``options`` solves ``cache`` without loading numba in this
    process: ``dp`` up to :data:`lpbn.dp.NUMPY_COLD_MAX_N` variables, ``highs`` with
    ``numba=False`` up to :data:`lpbn.lp.numpy_kernels.COLD_MAX_N` when dominance pruning is
    numpy's too (the LP rows and separation then use :mod:`lpbn.lp.numpy_kernels`)."""
    if method == "dp":
        from .dp import numpy_path
        return numpy_path(cache.n)
    if method == "highs" and (options or {}).get("numba", True) is False:
        # sizes only, never what this process has imported (issue 54: the same call takes the
        # same path): inside them the ILP runs its numpy twins (lpbn.lp.numpy_kernels.numpy_lp)
        from .lp.numpy_kernels import can_use_numpy
        return can_use_numpy(cache.n) and cache.prunes_with_numpy(cold=True)
    return False


def light_first(cache: ScoreCache, plan: Plan) -> bool:
    """Whether ``method="auto"``, having chosen ``plan``, first runs the numba-free HiGHS ILP
    for AUTO_LIGHT_SECONDS (see AUTO_LIGHT_SECONDS above): the plan allows it and the cache is
    sparse and small enough for the ILP's numpy path."""
    return plan.light and Shape.of(cache, parallel=False).sparse(AUTO_LIGHT_MAX_DENSITY) \
        and numba_free(cache, "highs", {"numba": False})


def merge(results: Sequence[SolveResult]) -> SolveResult:
    """The one rule by which lpbn combines answers of several methods on the same cache (a
    plan's stages: the race's two methods, ``auto``'s numba-free ILP and the method after it).

    ``results`` in the caller's priority order.  A proof wins: the first optimal result, as it
    is.  Otherwise the first result, given the best DAG of all (the first on ties) and the
    lowest upper bound of all: each bound is valid, so their minimum is (a result whose status
    is ``error``, a detected fault, gives no bound); its status becomes ``optimal`` when the
    two then meet (:func:`lpbn.bound.closed`)."""
    proven = [r for r in results if r.status == OPTIMAL]
    if proven:
        return proven[0]
    res = results[0]
    for other in results[1:]:
        if other.dag is not None and (res.dag is None or other.score > res.score):
            res.dag, res.score = other.dag, other.score
        if other.status != ERROR and other.upper_bound < res.upper_bound:
            res.upper_bound = other.upper_bound
    if res.status not in (OPTIMAL, INFEASIBLE, ERROR) and res.dag is not None \
            and bound_safety.closed(res.score, res.upper_bound):
        res.status = OPTIMAL
    return res
