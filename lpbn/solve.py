"""The front door: ``lpbn.solve(cache, method=...)`` and the method registry.

Like ``scipy.optimize.minimize``, every method returns the same :class:`SolveResult`.  A
method is a function ``fn(cache, control, **options) -> SolveResult`` registered under a
name; it reads its limits from the :class:`SolveControl` and reports every improvement
through it, which builds the trace and drives callbacks and progress lines.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import sys
import time
from typing import Any, Callable

from .cache import ScoreCache
from .errors import InputError
from .result import OPTIMALITY_TOLERANCE, SolveResult, relative_gap

#: name -> "module:function" (imported lazily) or a callable.
_METHODS: dict[str, str | Callable[..., SolveResult]] = {
    "dp": "lpbn.dp:solve_dp",
    "brute": "lpbn.brute:solve_brute",
    "dual": "lpbn.dual.solver:solve_dual",
    "highs": "lpbn.highs.ilp:solve_highs",
    "pulp-cbc": "lpbn.highs.pulp_model:solve_pulp_cbc",
    "bfbnb": "lpbn.bfbnb.search:solve_bfbnb",
    "obs": "lpbn.certified:solve_obs",
    "asobs": "lpbn.certified:solve_asobs",
}

#: ``method="auto"`` is a portfolio chosen from the benchmarks in results/ (bfbnb, highs, dual):
#: subset DP up to AUTO_DP_MAX_N variables; the order-graph search up to AUTO_BFBNB_MAX_N when
#: the cache is dense (at least AUTO_BFBNB_MIN_DENSITY candidates per variable), where the ILP's
#: LP is large and its relaxation gap hard to close; the dual LP branch and bound up to
#: AUTO_DUAL_MAX_N (results/dual/gobnilp.md vs results/highs/bench_anchors.md: 1.5-4x faster
#: than the HiGHS ILP on the hard anchors, e.g. soybean 36 s vs 81 s, wdbc 47 s vs 157 s, within
#: 0.2 s on the easy ones; hailfinder-5000 10 s vs 19 s); the HiGHS ILP beyond (pathfinder-5000,
#: n = 109: 20 s vs 22 s; munin1-5000, n = 186: 43 s vs 75 s; results/dual/blip.md).
#: Beyond that (results/scale/portfolio.md, 60 s on 2 cores), the HiGHS ILP for sparse caches
#: (at most AUTO_HIGHS_MAX_DENSITY candidates per variable and AUTO_HIGHS_MAX_M in all: munin1
#: optimal in 33 s, diabetes gap 0.048%, munin 0.31%), and otherwise ``asobs``, ASOBS beside the
#: dual bound (Scanagatta et al. 2015 with lpbn's certificate): the caches that independence
#: selection writes (1,000 sets per variable; baudio: 0.16% against the dual's 0.22% and
#: HiGHS's 0.49%) and every cache with thousands of variables.
AUTO_DP_MAX_N = 20
AUTO_BFBNB_MAX_N = 30
AUTO_BFBNB_MIN_DENSITY = 50
AUTO_DUAL_MAX_N = 100
AUTO_DUAL_MAX_DENSITY = 500
AUTO_HIGHS_MAX_DENSITY = 200
AUTO_HIGHS_MAX_M = 250_000
AUTO_LARGE_METHOD = "highs"
AUTO_SCALE_METHOD = "asobs"


def register_method(name: str, func: str | Callable[..., SolveResult]) -> None:
    """Register (or replace) a method under ``name``: a callable or ``"module:function"``."""
    _METHODS[name] = func


def _resolve(name: str) -> Callable[..., SolveResult]:
    target = _METHODS.get(name)
    if target is None:
        raise InputError(f"unknown method {name!r}; choose from {', '.join(available_methods())}")
    if callable(target):
        return target
    module, _, func = target.partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("lpbn"):
            raise InputError(f"method {name!r} is not available in this build of lpbn") from None
        raise
    return getattr(mod, func)


def available_methods() -> list[str]:
    """Names of registered methods whose implementation can be imported."""
    names = []
    for name, target in _METHODS.items():
        if callable(target):
            names.append(name)
            continue
        module = target.partition(":")[0]
        if importlib.util.find_spec(module.split(".")[0]) is None:
            continue
        try:
            if importlib.util.find_spec(module) is not None:
                names.append(name)
        except ModuleNotFoundError:
            pass
    return names


class SolveControl:
    """Limits, trace and progress shared by every method.

    Methods call :meth:`improved` whenever their best score or bound changes, and poll
    :meth:`should_stop` in their loops; a stop returns the best so far, never raises.
    """

    def __init__(self, time_limit: float | None = None, gap_limit: float | None = None,
                 node_limit: int | None = None, callback: Callable[[dict[str, Any]], Any] | None = None,
                 progress: bool | None = None, tolerance: float = OPTIMALITY_TOLERANCE):
        for label, v in (("time_limit", time_limit), ("gap_limit", gap_limit), ("node_limit", node_limit)):
            if v is not None and not (isinstance(v, (int, float)) and v >= 0 and not math.isnan(v)):
                raise InputError(f"{label} must be a non-negative number, got {v!r}")
        self.time_limit = time_limit
        self.gap_limit = gap_limit
        self.node_limit = node_limit
        self.callback = callback
        self.progress = progress
        self.tolerance = tolerance
        self.start = time.perf_counter()
        self.best = -math.inf
        self.bound = math.inf
        self.trace: list[tuple[float, float, float]] = []
        self.stop_reason: str | None = None
        self._last_progress = self.start

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        """Seconds left before the time limit (inf without one)."""
        return math.inf if self.time_limit is None else max(0.0, self.time_limit - self.elapsed())

    def improved(self, best: float | None = None, bound: float | None = None, **info) -> None:
        """Record a new best score and/or upper bound (kept monotone), trace it, report it."""
        changed = False
        if best is not None and best > self.best:
            self.best = float(best)
            changed = True
        if bound is not None and bound < self.bound:
            self.bound = float(bound)
            changed = True
        if changed:
            self.trace.append((self.elapsed(), self.best, self.bound))
            if self.callback is not None:
                self.callback({"seconds": self.elapsed(), "best": self.best, "bound": self.bound,
                               "gap": self.gap, **info})
        self._maybe_progress(info)

    @property
    def gap(self) -> float:
        return relative_gap(self.best, self.bound)

    def closed(self) -> bool:
        """True when the best score meets the bound within the optimality tolerance."""
        return self.gap <= self.tolerance

    def should_stop(self, nodes: int | None = None) -> str | None:
        """The status to stop with (``time_limit``/``gap_limit``/``node_limit``) or None."""
        if self.time_limit is not None and self.elapsed() >= self.time_limit:
            self.stop_reason = "time_limit"
        elif self.gap_limit is not None and self.gap <= self.gap_limit and math.isfinite(self.best):
            self.stop_reason = "gap_limit"
        elif self.node_limit is not None and nodes is not None and nodes >= self.node_limit:
            self.stop_reason = "node_limit"
        return self.stop_reason

    def _maybe_progress(self, info: dict[str, Any]) -> None:
        show = self.progress if self.progress is not None else False
        now = time.perf_counter()
        if not show or now - self._last_progress < 1.0:
            return
        self._last_progress = now
        extra = " ".join(f"{k}={v}" for k, v in info.items())
        print(f"[{self.elapsed():8.1f}s] best {self.best:.6f}  bound {self.bound:.6f}  "
              f"gap {self.gap:.3%} {extra}", file=sys.stderr, flush=True)


def auto_method(cache: ScoreCache) -> str:
    """The method ``method="auto"`` runs on ``cache`` (see AUTO_* above)."""
    n, m = cache.n, cache.m
    if n <= AUTO_DP_MAX_N:
        return "dp"
    if n <= AUTO_BFBNB_MAX_N and m >= AUTO_BFBNB_MIN_DENSITY * n:
        return "bfbnb"
    if n <= AUTO_DUAL_MAX_N and m <= AUTO_DUAL_MAX_DENSITY * n:
        return "dual"
    if n > AUTO_DUAL_MAX_N and m <= AUTO_HIGHS_MAX_DENSITY * n and m <= AUTO_HIGHS_MAX_M:
        return AUTO_LARGE_METHOD
    return AUTO_SCALE_METHOD


def solve(cache: ScoreCache | str | os.PathLike, method: str = "auto", *,
          time_limit: float | None = None, gap_limit: float | None = None,
          node_limit: int | None = None, callback: Callable[[dict[str, Any]], Any] | None = None,
          progress: bool | None = None, **options: Any) -> SolveResult:
    """Learn a maximum-score DAG from a local-score cache.

    Parameters
    ----------
    cache : ScoreCache or path
        The candidate parent sets and local scores (a path is read with
        :func:`lpbn.read_scores`).
    method : str
        ``"dp"`` (subset DP, Silander & Myllymäki 2006), ``"dual"`` (Jaakkola et al. 2010),
        ``"highs"`` (ILP with cluster cuts), ``"pulp-cbc"``, ``"bfbnb"`` (Malone et al. 2011),
        ``"obs"``/``"asobs"`` (ordering search with the dual bound, :mod:`lpbn.certified`),
        ``"brute"`` (tests only), or ``"auto"``: a portfolio by size and density (DP, BFBnB,
        the dual, the HiGHS ILP, ASOBS with the dual bound; see :func:`auto_method`).
    time_limit, gap_limit, node_limit
        Stop early with the best DAG and bound so far (status says which limit).
    callback
        Called with a dict (seconds, best, bound, gap, ...) at every improvement.
    progress
        Print a progress line to stderr at most once a second.
    **options
        Passed to the method.

    Returns
    -------
    SolveResult
    """
    if not isinstance(cache, ScoreCache):
        from .formats import read_scores
        cache = read_scores(cache)
    if method == "auto":
        method = auto_method(cache)
    fn = _resolve(method)
    control = SolveControl(time_limit=time_limit, gap_limit=gap_limit, node_limit=node_limit,
                           callback=callback, progress=progress)
    result = fn(cache, control, **options)
    result.seconds = control.elapsed()
    if not result.trace:
        result.trace = list(control.trace)
    result.method = result.method or method
    return result
