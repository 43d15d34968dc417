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

#: ``method="auto"`` is a portfolio chosen from the benchmarks in results/ (bfbnb, highs, dual):
#: subset DP up to AUTO_DP_MAX_N variables; the order-graph search up to AUTO_BFBNB_MAX_N when
#: the cache is dense (at least AUTO_BFBNB_MIN_DENSITY candidates per variable), where the ILP's
#: LP is large and its relaxation gap hard to close; the dual LP branch and bound up to
#: AUTO_DUAL_MAX_N (results/dual/gobnilp.md vs results/highs/bench_anchors.md: 1.5-4x faster
#: than the HiGHS ILP on the hard anchors, e.g. soybean 36 s vs 81 s, wdbc 47 s vs 157 s, within
#: 0.2 s on the easy ones; hailfinder-5000 10 s vs 19 s); the HiGHS ILP beyond (pathfinder-5000,
#: n = 109: 20 s vs 22 s; munin1-5000, n = 186: 43 s vs 75 s; results/dual/blip.md).
#: Beyond that (results/scale/README.md, "Portfolio", 60 s on 2 cores), the HiGHS ILP for sparse caches
#: (at most AUTO_HIGHS_MAX_DENSITY candidates per variable and AUTO_HIGHS_MAX_M in all, up to
#: AUTO_HIGHS_MAX_N variables: munin1 optimal in 33 s, diabetes gap 0.048%, munin 0.31%,
#: moviereview 0.053% against asobs's 0.268%; at 2,000 variables the race's DAG was 8,300 below
#: ASOBS's and its gap 2.0% against 0.93%, results/scale/README.md), and otherwise ``asobs``, ASOBS beside an
#: LP bound (Scanagatta et al. 2015 with lpbn's certificate; :func:`lpbn.certified.auto_bound`): the caches that independence
#: selection writes (1,000 sets per variable; baudio: 0.16% against the dual's 0.22% and
#: HiGHS's 0.49%) and every cache with thousands of variables.
#: Up to AUTO_RACE_MAX_N variables (within the dual's density, and where the rule for ``bfbnb``
#: did not apply), with two cores, ``race`` runs the dual and, after 2 s without a proof, the
#: order-graph search beside it, taking the first proof (:mod:`lpbn.race`; results/medium:
#: alarm-5000 bfbnb 3.7 s vs dual 47 s, wdbc the reverse; an order-graph search that projects
#: it cannot finish hands its core to a second dual worker: wdbc 30.8 -> 22-25 s); with one
#: core, the dual.
#: From AUTO_RACE_MAX_N to AUTO_DUAL_MAX_N variables (within the dual's density), with two
#: cores, the race's rival is the HiGHS ILP instead (AUTO_WIDE_RACE_METHODS): the dual's cluster
#: LP stalls on half-integral points that the ILP's {0, 1/2}-cuts remove (hailfinder at
#: N = 20,000, 56 variables: the dual at 0.21% after 300 s, the race optimal in 54 s; results/
#: bnlearn20000), while the dual alone proves the uci-bic3 caches of 45-60 variables in 1-3 s,
#: before the rival starts; with one core, the dual.
#: Beyond AUTO_DUAL_MAX_N variables, where the rule for the ILP applies, two cores race the ILP
#: against the dual too (the dual's ordering search finds better DAGs early, the ILP's cuts
#: prove: results/large/README.md) up to AUTO_SEARCH_HIGHS_MIN_N variables, and run ASOBS
#: beside the ILP beyond; with one core, the ILP alone.
AUTO_DP_MAX_N = 20
AUTO_BFBNB_MAX_N = 30
AUTO_BFBNB_MIN_DENSITY = 50
AUTO_RACE_MAX_N = 40
AUTO_DUAL_MAX_N = 100
AUTO_DUAL_MAX_DENSITY = 500
AUTO_HIGHS_MAX_DENSITY = 200
AUTO_HIGHS_MAX_M = 250_000
AUTO_HIGHS_MAX_N = 1500
AUTO_LARGE_METHOD = "highs"
AUTO_SCALE_METHOD = "asobs"
#: From AUTO_SEARCH_HIGHS_MIN_N variables in the ILP's range, two cores run ``asobs`` (ASOBS
#: beside the HiGHS ILP as its bound, :func:`lpbn.certified.auto_bound`) instead of the race
#: of the ILP against the dual: ASOBS's DAGs feed the ILP better than the dual's at that size
#: (60 s, results/scale/README.md, "Which LP bound beside the search": diabetes-5000 optimal in
#: 46 s against the race's 0.043% gap, pigs-5000 0.108% / 0.120%, munin-5000 0.087% / 0.089%,
#: moviereview 0.024-0.040% / 0.050%); below it the race stays: its dual sometimes proves
#: first near 100 variables (pathfinder-5000 in idle60/ and final60/ of results/large), and on
#: munin1-5000 (186 variables) the two are level (optimal in 40.0 s by the race's ILP, 38.7 s
#: by ASOBS beside the ILP).
AUTO_SEARCH_HIGHS_MIN_N = 300
AUTO_WIDE_RACE_METHODS = ("highs", "dual")
#: From AUTO_LIGHT_MIN_DP_N variables (whether or not an earlier call in the process loaded
#: numba: the rule reads the cache's size only, issue 54; a fresh ``lpbn solve`` has not), a
#: sparse cache (at most AUTO_LIGHT_MAX_DENSITY candidates per variable)
#: that the HiGHS ILP can solve without numba (its option ``numba=False``, :func:`numba_free`)
#: is first given to it for AUTO_LIGHT_SECONDS: loading numba and a method's cached kernels
#: costs about a second per process, more than the whole solve of such caches
#: (results/startup: water1000, mildew1000, barley1000, insurance1000, horse, flag, alarm1000,
#: hailfinder500 in 0.3-1.3 s as whole processes instead of 1.3-2.2 s).
#: Without a proof by then, the method chosen above runs with the time left (spectf and
#: carpo500 need it: their separation wants the numba kernels), and the answer is the better
#: DAG and the lower bound of the two runs.
#: A budget in seconds, not a work count (issue 54, item 5): the stage's work is the HiGHS
#: root LPs, the numpy separation rounds and the MIP's nodes, and what it must bound is start-up
#: time saved, a wall-clock quantity; a count that stops where 1.5 s does on this machine would
#: stop elsewhere on another.  Either way the status and score are the same when a proof comes
#: (both stages are exact; the merge keeps the better DAG and the lower bound), and the DAG is
#: made canonical by the front door (lpbn.canonical).
#: The DP's own numpy path is faster below AUTO_LIGHT_MIN_DP_N variables (2^n work: 0.2 s at
#: 17-18 variables, 0.7 s at 20, where HiGHS proves hepatitis in 0.23 s).
AUTO_LIGHT_SECONDS = 1.5
AUTO_LIGHT_MAX_DENSITY = 40
AUTO_LIGHT_MIN_DP_N = 19


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
