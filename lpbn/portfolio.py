"""The portfolio: which method ``method="auto"`` runs, and incumbents borrowed across methods.

This module sits above the methods (which never import it) and beside the front door
:mod:`lpbn.solve`, which re-exports :func:`auto_method` and the ``AUTO_*`` thresholds:

* :func:`auto_method` — the method for a cache, chosen by size and density from the
  benchmarks under ``results/`` (see the thresholds below), ``race`` (:mod:`lpbn.race`) where
  neither size nor density tells the order-graph search from the dual;
* :func:`borrow` — run another method for a while and hand its DAG and bound to the method
  that asked (``bfbnb``'s ``dual_time`` option).  A method asks through its
  :meth:`lpbn.control.SolveControl.borrow`, which the front door connects to this function,
  so no method imports another method or the front door.
"""

from __future__ import annotations

import math
from typing import Any

from .cache import ScoreCache
from .errors import InputError

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
#: The DP's own numpy path is faster below AUTO_LIGHT_MIN_DP_N variables (2^n work: 0.2 s at
#: 17-18 variables, 0.7 s at 20, where HiGHS proves hepatitis in 0.23 s).
AUTO_LIGHT_SECONDS = 1.5
AUTO_LIGHT_MAX_DENSITY = 40
AUTO_LIGHT_MIN_DP_N = 19


def auto_method(cache: ScoreCache) -> str:
    """The method ``method="auto"`` runs on ``cache`` (see AUTO_* above)."""
    n, m = cache.n, cache.m
    if n <= AUTO_DP_MAX_N:
        return "dp"
    if n <= AUTO_BFBNB_MAX_N and m >= AUTO_BFBNB_MIN_DENSITY * n:
        return "bfbnb"
    if n <= AUTO_RACE_MAX_N and m <= AUTO_DUAL_MAX_DENSITY * n:
        from .race import can_race
        if can_race():
            return "race"
    if n <= AUTO_DUAL_MAX_N and m <= AUTO_DUAL_MAX_DENSITY * n:
        from .race import can_race
        return "race" if can_race() else "dual"
    if in_ilp_range(cache):
        from .race import can_race
        if not can_race():
            return AUTO_LARGE_METHOD
        return AUTO_SCALE_METHOD if n >= AUTO_SEARCH_HIGHS_MIN_N else "race"
    return AUTO_SCALE_METHOD


def in_ilp_range(cache: ScoreCache) -> bool:
    """Whether ``cache`` is beyond the dual's range and sparse enough for the HiGHS ILP
    (AUTO_DUAL_MAX_N < n <= AUTO_HIGHS_MAX_N, AUTO_HIGHS_MAX_DENSITY, AUTO_HIGHS_MAX_M)."""
    n, m = cache.n, cache.m
    return AUTO_DUAL_MAX_N < n <= AUTO_HIGHS_MAX_N and m <= AUTO_HIGHS_MAX_DENSITY * n and m <= AUTO_HIGHS_MAX_M


def race_alone(cache: ScoreCache) -> str:
    """Of the two methods ``auto`` races on ``cache`` (or, in the ILP's range, runs as
    ``asobs``'s bound), the one it runs when a single exact method is needed (options meant for
    one method, a certificate): the ILP beyond AUTO_DUAL_MAX_N variables, else the dual."""
    return AUTO_LARGE_METHOD if cache.n > AUTO_DUAL_MAX_N else "dual"


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


def light_first(cache: ScoreCache, method: str) -> bool:
    """Whether ``method="auto"``, having chosen ``method``, first runs the numba-free HiGHS
    ILP for AUTO_LIGHT_SECONDS (see AUTO_LIGHT_SECONDS above)."""
    if method == "highs" or (method == "dp" and cache.n < AUTO_LIGHT_MIN_DP_N):
        return False
    return cache.m <= AUTO_LIGHT_MAX_DENSITY * cache.n and numba_free(cache, "highs", {"numba": False})


def auto_options(cache: ScoreCache, method: str) -> dict[str, Any]:
    """Options ``method="auto"`` passes to the method it chose: beyond AUTO_RACE_MAX_N
    variables the race's rival is the HiGHS ILP (AUTO_WIDE_RACE_METHODS), not the order-graph
    search."""
    if method == "race" and cache.n > AUTO_RACE_MAX_N:
        return {"methods": AUTO_WIDE_RACE_METHODS}
    return {}


def borrow(cache: ScoreCache, method: str, seconds: float) -> tuple[Any, float, float]:
    """Run ``method`` on ``cache`` for at most ``seconds`` through :func:`lpbn.solve.solve`;
    returns its DAG, score and upper bound, or ``(None, -inf, inf)`` when the method is not
    available in this build or refuses the cache (:class:`~lpbn.errors.InputError`)."""
    from .solve import available_methods, solve
    if method not in available_methods():
        return None, -math.inf, math.inf
    try:
        res = solve(cache, method=method, time_limit=seconds)
    except InputError:
        return None, -math.inf, math.inf
    return res.dag, res.score, res.upper_bound
