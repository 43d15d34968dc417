"""A heuristic DAG with a proven upper bound: ordering search, then the dual LP bound.

Scanagatta et al. 2015 (§4) find good networks on thousands of variables with ASOBS, but
cannot say how far from optimal they are.  ``method="asobs"`` (and ``"obs"``) here spend one
time budget on two things (one after the other on one core; side by side on two, see below):

1. **search** (a share ``search_share`` of the time, default half): the ordering search of
   :mod:`lpbn.ordering` finds the DAG;
2. **bound** (the rest): the Jaakkola et al. 2010 cluster LP solved in the dual
   (:mod:`lpbn.dual`), with the search's DAG as its incumbent, gives a valid upper bound on
   every DAG of the cache (eq. 8 at any λ).  When the cache is small enough the dual's branch
   and bound may even close the gap, and the status becomes ``optimal``.  ``bound="highs"``
   takes the HiGHS ILP's bound instead (:mod:`lpbn.highs`; see LP_BOUNDS), with the search's
   DAGs as its incumbents too and, on dense caches (LOCAL_CUTS_MIN_DENSITY), the local cuts
   of LOCAL_CUTS_K variables in its root and nodes (:mod:`lpbn.lp.local_cuts`, unless
   ``dual_options`` says otherwise).  ``bound="auto"``
   (the default) takes the one measured tighter for the cache's size (:func:`auto_bound`).

With two or more cores and a time limit (``parallel=None``, the default, or ``True``) the two
run side by side instead, each for the whole time: the dual in a forked process (which shares
the cache's memory), the search here; the search stops early when the dual proves the optimum.
Measured at 60 s on munin-5000 (n = 1041): sequential, score -1,025,178 and gap 0.354%; side
by side, gap 0.330%.

The reported score is the better of the two phases' DAGs, the bound the smaller of the
dual's and the trivial bound (each variable's best score).  Without a time limit the search
uses its default stopping rule and the bound phase gets the same split of the time the search
took (``bound_seconds = search_seconds x (1 - share) / share``).  ``bound="trivial"`` (or a
number, or a function of the cache, giving a known valid bound) skips the dual: the search
then has the whole budget (:func:`lpbn.ordering.method.solve_ordering`).
"""

from __future__ import annotations

import math
import numbers
import signal
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import signals
from .cache import ScoreCache
from .control import SolveControl
from .errors import InputError
from .incumbent import dag_of
from .options import BOOL, NONNEG, Rule, opt
from .ordering.method import solve_ordering, trivial_bound
from .ordering.options import SearchOptions
from .ordering.search import DEFAULT_PATIENCE, DEFAULT_SECONDS, ordering_search
from .portfolio import merge
from .result import ERROR, OPTIMAL, SolveResult, relative_gap
from .workers import Worker, can_fork, cores
from .tuning import (CERTIFIED_SEARCH_SHARE as SEARCH_SHARE,
                     CERTIFIED_DUAL_LOCAL_SEARCH_MAX_N as DUAL_LOCAL_SEARCH_MAX_N, AUTO_BOUND_HIGHS_MIN_N,
                     AUTO_BOUND_HIGHS_MAX_N, AUTO_BOUND_HIGHS_MAX_M, LOCAL_CUTS_MIN_DENSITY, LOCAL_CUTS_K,
                     BOUND_STOP_GRACE as STOP_GRACE, BOUND_LATE)

#: LP bounds the search can run beside: the cluster LP in the dual, or the HiGHS ILP.  Both add
#: k-clusters and {0, 1/2}-cuts beside tailing cluster rounds (the dual's cuts as Lagrangian
#: terms, :meth:`lpbn.dual.state.DualState.add_cuts`).  Beside ASOBS on the explored caches
#: (results/scale/README.md, "The two LP bounds again"): the dual is tighter on plants, baudio,
#: jester and bnetflix at 60 s (0.758 / 0.118 / 0.055 / 0.060% against 1.214 / 0.201 / 0.059 /
#: 0.084%), HiGHS, whose root LP prices its columns, on accidents and connect4 at 300 s (0.755 /
#: 0.765% against the dual's 0.72-0.88 / 0.85-0.92%).  Since the HiGHS root caps its local
#: cuts, it is also the tighter on those two at 60 s; the number of variables tells the two
#: bounds apart (AUTO_BOUND_HIGHS_MIN_N below).
LP_BOUNDS = ("dual", "highs")
BOUNDS = LP_BOUNDS + ("auto", "trivial")
#: the ``bound`` option: one of BOUNDS, a number or a function of the cache
BOUND = Rule(lambda v: v in BOUNDS if isinstance(v, str) else callable(v) or
             (isinstance(v, numbers.Real) and not isinstance(v, bool)),
             f"one of {', '.join(map(repr, BOUNDS))}, a number or a function of the cache")
SHARE = Rule(lambda v: NONNEG.test(v) and 0 < v <= 1, "a number in (0, 1]")


def solve_certified(cache: ScoreCache, control: SolveControl, rule: str, **options: Any) -> SolveResult:
    """Ordering search (``rule``: ``"asobs"`` or ``"obs"``) plus a certified upper bound
    within ``control``'s limits (see the module docstring).  ``options``: the fields of
    :class:`CertifiedOptions`, checked and built once, here; the search's own go to
    :func:`lpbn.ordering.ordering_search`, ``dual_options`` to the bound's method (``bound``:
    ``"dual"`` or ``"highs"``, or ``"auto"``: :func:`auto_bound`)."""
    o = CertifiedOptions.build(options, rule)
    search_share, bound, dual_options, parallel = o.search_share, o.bound, o.dual_options, o.parallel
    search_options = o.search_kwargs()
    if not (isinstance(bound, str) and bound in LP_BOUNDS + ("auto",)):
        return solve_ordering(cache, control, rule, bound=None if bound == "trivial" else bound, **search_options)
    cache = cache.prune_dominated()
    chosen = auto_bound(cache) if bound == "auto" else bound
    _check_bound_options(rule, bound, chosen, cache, dual_options or {})
    bound = chosen
    trivial = trivial_bound(cache)
    control.improved(bound=trivial)
    if parallel is None:
        parallel = can_fork() and cores() >= 2
    if parallel and control.time_limit is not None and can_fork():
        return _solve_side_by_side(cache, control, rule, trivial, bound, dual_options or {}, search_options)
    search = _search(cache, control, rule, float(search_share), search_options)
    best = search.score
    control.improved(best=best)
    stats: dict[str, Any] = {"search": dict(search.stats, stop=search.stop), "search_score": best,
                             "search_seconds": search.stats.get("seconds"), "trivial_bound": trivial,
                             "search_share": float(search_share), "bound_method": bound}
    own = SolveResult(dag=search.dag(cache), score=best, upper_bound=trivial, status="time_limit", method=rule)
    dual = None
    if relative_gap(best, trivial) > control.tolerance and not _stopped(control):
        dual = _bound(cache, control, search, float(search_share), bound, dual_options or {})
        stats.update(dual=dual.stats, dual_score=dual.score, bound_seconds=dual.seconds,
                     dual_status=dual.status)
    merged = own if dual is None else merge([own, dual])
    control.improved(best=merged.score, bound=merged.upper_bound)
    status, message = _status(control, search, dual, merged.score, merged.upper_bound)
    return SolveResult(dag=merged.dag, score=merged.score, upper_bound=merged.upper_bound, status=status,
                       method=rule, stats=stats, message=message + _fault(dual, bound))


def auto_bound(cache: ScoreCache) -> str:
    """The LP bound ``bound="auto"`` runs beside the search on ``cache`` (see
    AUTO_BOUND_HIGHS_MIN_N): ``"highs"`` or ``"dual"``."""
    if AUTO_BOUND_HIGHS_MIN_N <= cache.n <= AUTO_BOUND_HIGHS_MAX_N and cache.m <= AUTO_BOUND_HIGHS_MAX_M:
        return "highs"
    return "dual"


def _check_bound_options(rule, bound, chosen, cache, options) -> None:
    """Refuse ``dual_options`` that the bound's method does not take (:func:`lpbn.options.check_options`),
    before it starts: beside the search it runs in another process, where the error would only
    cost the bound."""
    try:
        if chosen == "highs":
            from .highs.options import HighsOptions
            HighsOptions.build(options, chosen)
        else:
            # DualOptions, not lpbn.dual.solver: importing the solver here, before the fork,
            # left the forked dual silent on synthetic-2000 (no bound in 300 s; not understood)
            from .dual.options import DualOptions
            DualOptions.build(options, chosen)
    except InputError as exc:
        why = f" (bound='auto' chose it for {cache.n} variables; set bound= to choose)" if bound == "auto" else ""
        raise InputError(f"method {rule!r}, dual_options: {exc}{why}") from None


def _search(cache, control, rule, share, options, watch=None, feed=None):
    """The search phase: a share of the time limit (all of it when share is 1); with ``watch``
    (an event) it also stops once that is set; improved DAGs go to ``feed`` (an
    :class:`_IncumbentSlot`)."""
    limit = None if control.time_limit is None else share * control.remaining()
    sub = _WatchedControl(watch, feed, time_limit=limit, gap_limit=control.gap_limit, node_limit=control.node_limit,
                          callback=lambda info: control.improved(best=info["best"]), tolerance=control.tolerance)
    sub.improved(bound=control.bound)
    return ordering_search(cache, rule, control=sub, **options)


def _bound(cache, control, search, share, method, options):
    """The bound phase: ``method`` (``"dual"``, with the search's DAG as incumbent, or
    ``"highs"``) for the time left (or, without a time limit, the search's time scaled to the
    split)."""
    if control.time_limit is not None:
        limit = control.remaining()
    else:
        limit = (search.stats.get("seconds") or 0.0) * (1.0 - share) / share if share < 1 else 0.0
        from . import compiled
        if not compiled.is_warm(method):
            # a budget scaled from the search's time must not go to compiling the bound's
            # kernels (fresh install: 30 s; wine's bound stopped at a 1.4% gap): compile first
            # (in a child, :mod:`lpbn.compiled`; if it fails, in this process as before)
            try:
                compiled.warm_up(method)
            except compiled.WarmupFailed:
                pass
    sub = control.derive(time_limit=max(limit, 0.0), gap_limit=control.gap_limit, tolerance=control.tolerance,
                         callback=lambda info: control.improved(best=info["best"], bound=info["bound"]),
                         progress=control.progress)
    t0 = time.perf_counter()
    res = _solve_bound(cache, sub, method, options, incumbent=search.dag(cache))
    res.seconds = time.perf_counter() - t0
    return res


def _solve_bound(cache, control, method, options, incumbent=None, feed=None) -> SolveResult:
    """Run the bound's method on the (pruned) cache, the dual or the HiGHS ILP, with the search's
    DAG as its incumbent (``incumbent``, or polled from ``feed``)."""
    if method == "highs":
        from .highs.ilp import solve_highs
        # as a bound the root's tightness is all that counts: the local cuts on dense caches
        # (LOCAL_CUTS_MIN_DENSITY), let in by a gap measured against the search's DAG (its own
        # incumbents are weaker)
        return solve_highs(cache, control, prune=False, start=incumbent, incumbent_feed=feed,
                           **{"local_cuts": LOCAL_CUTS_K if cache.m >= LOCAL_CUTS_MIN_DENSITY * cache.n else 0,
                              **options})
    from .dual.solver import solve_dual
    opts = dict(options)
    if cache.n > DUAL_LOCAL_SEARCH_MAX_N or feed is not None:
        # beside the search (feed), its DAGs are the incumbents: the dual's own climbs took
        # 5 of accidents' 60 s of bound and never beat them (results/scale/README.md)
        opts.setdefault("local_search", 0.0)
    if feed is not None:
        opts["incumbent_feed"] = feed
    return solve_dual(cache, control, prune=False, incumbent=incumbent, **opts)


class _IncumbentSlot:
    """The search's latest DAG (candidate index per variable) in shared memory, for the forked
    dual to pick up.  Never blocks either side: a pipe did, at 10,000 variables (an 80 KB DAG
    filled it while the dual, finished, was sending its own result the other way)."""

    def __init__(self, ctx, n: int):
        self._n = n
        self._raw = ctx.RawArray("q", max(n, 1))
        self._version = ctx.Value("q", 0)
        self._seen = 0

    def put(self, choice) -> None:
        with self._version.get_lock():
            np.frombuffer(self._raw, dtype=np.int64)[:self._n] = choice
            self._version.value += 1

    def take(self):
        """The DAG put since the last take, or None."""
        with self._version.get_lock():
            if self._version.value == self._seen:
                return None
            self._seen = self._version.value
            return np.frombuffer(self._raw, dtype=np.int64)[:self._n].copy()


class _BoundSlot:
    """The bound process's best upper bound so far in shared memory, for the parent to report
    when no result comes (the process killed, out of memory, or still busy STOP_GRACE after its
    stop request: a time limit then still ends with the bound so far, not the trivial one).
    Each bound a method reports through its control is valid when reported."""

    def __init__(self, ctx):
        self._value = ctx.Value("d", math.inf)

    def put(self, bound: float) -> None:
        with self._value.get_lock():
            if bound < self._value.value:
                self._value.value = float(bound)

    def get(self) -> float:
        with self._value.get_lock():
            return float(self._value.value)


class _WatchedControl(SolveControl):
    """A control that also stops when an event (the dual process finished) is set, and puts
    every improved DAG into ``feed`` (the dual process's incumbent slot)."""

    def __init__(self, event=None, feed=None, **kw):
        super().__init__(**kw)
        self.event = event
        self.feed = feed

    def on_dag(self, choice, score) -> None:
        if self.feed is not None:
            self.feed.put(np.asarray(choice, dtype=np.int64))

    def should_stop(self, nodes: int | None = None) -> str | None:
        if self.stop_reason is None and self.event is not None and self.event.is_set():
            self.stop_reason = "dual_finished"
        return super().should_stop(nodes)


def _solve_side_by_side(cache, control, rule, trivial, method, options, search_options) -> SolveResult:
    """Search here and the bound's ``method`` in a forked process, both for the whole time limit."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    feed = _IncumbentSlot(ctx, cache.n)
    published = _BoundSlot(ctx)
    done = ctx.Event()
    limit = control.remaining()
    started = control.elapsed()
    child = Worker(_bound_worker, cache, method, limit, control, dict(options), done, feed, published,
                   name="bound").start()
    try:
        # a stop request (SIGINT/SIGTERM) reaches the dual as SIGINT: it returns its bound so far
        with signals.forward(child.pid, signal.SIGINT):
            search = _search(cache, control, rule, 1.0, search_options, watch=done, feed=feed)
            control.improved(best=search.score)
            dual, error = _collect(child, control.remaining() + BOUND_LATE)
    finally:
        child.reap()
    stats: dict[str, Any] = {"search": dict(search.stats, stop=search.stop), "search_score": search.score,
                             "search_seconds": search.stats.get("seconds"), "trivial_bound": trivial,
                             "search_share": 1.0, "bound_method": method, "parallel": True}
    own = SolveResult(dag=search.dag(cache), score=search.score, upper_bound=trivial, status="time_limit",
                      method=rule)
    if dual is not None:
        stats.update(dual=dual["stats"], dual_score=dual["score"], bound_seconds=dual["seconds"],
                     dual_status=dual["status"])
        other = SolveResult(dag=None if dual["choice"] is None else dag_of(cache, dual["choice"]),
                            score=dual["score"], upper_bound=dual["upper_bound"], status=dual["status"],
                            method=method, message=dual.get("message", ""))
    else:
        stats["dual_status"] = "failed"
        stats["dual_error"] = error
        kept = published.get()      # its bound so far: every bound a method reports is valid
        other = SolveResult(dag=None, score=-math.inf, upper_bound=kept, status="time_limit", method=method)
        if kept < trivial:
            stats["dual_bound_published"] = kept
    merged = merge([own, other])
    best, ub = merged.score, merged.upper_bound
    control.improved(best=best, bound=ub)
    status, message = _status(control, search, other if dual is not None else None, best, ub)
    if dual is None:
        which = "its last reported bound" if "dual_bound_published" in stats else "the trivial bound"
        message += f" (the bound's process returned no result: {error}; {which} is reported)"
    trace = _merged_trace(control.trace, started, dual["trace"] if dual else [], best, ub)
    return SolveResult(dag=merged.dag, score=best, upper_bound=ub, status=status, method=rule,
                       stats=stats, message=message + _fault(other if dual is not None else None, method),
                       trace=trace)


def _fault(dual: SolveResult | None, method: str) -> str:
    """The message's note when the bound's method ended in a detected fault (status ``error``):
    its bound is not used (:func:`lpbn.portfolio.merge`)."""
    if dual is None or dual.status != ERROR:
        return ""
    return f" (the bound's method {method} ended in error, its bound is not used: {dual.message})"


def _merged_trace(own, offset, dual_trace, best, ub):
    """The search's trace and the dual process's, on one clock, kept monotone."""
    points = [(t, b, u) for t, b, u in own] + [(offset + t, -math.inf, u) for t, _, u in dual_trace]
    points.sort(key=lambda p: p[0])
    out, hi, lo = [], -math.inf, math.inf
    for t, b, u in points:
        hi, lo = max(hi, b), min(lo, u)
        out.append((t, hi, lo))
    if out:
        out.append((out[-1][0], best, ub))
    return out


def _bound_worker(cache, method, limit, parent, options, done, feed, published, conn) -> None:
    """The forked bound: solve with ``method`` for ``limit`` seconds under a control derived
    from the search's ``parent`` (its gap limit, tolerance and helpers; the dual taking the
    search's DAGs from ``feed`` as incumbents), publish every bound it reports in
    ``published`` (a :class:`_BoundSlot`), and send the result."""
    try:
        t0 = time.perf_counter()
        control = parent.derive(time_limit=limit, gap_limit=parent.gap_limit, tolerance=parent.tolerance,
                                callback=lambda info: published.put(info["bound"]))
        res = _solve_bound(cache, control, method, options, feed=feed.take)
        choice = None if res.dag is None else cache.indices_of(res.dag.parents)
        out = {"status": res.status, "score": res.score, "upper_bound": res.upper_bound, "choice": choice,
               "message": res.message, "stats": res.stats, "seconds": time.perf_counter() - t0, "trace": list(res.trace)}
    except BaseException as exc:   # reported in the parent as a missing bound, never a crash
        out = {"error": f"{type(exc).__name__}: {exc}"}
    done.set()      # stops the search, whose process then reads the result
    try:
        conn.send(out)
    finally:
        conn.close()


def _collect(child: Worker, timeout: float) -> tuple[dict[str, Any] | None, str | None]:
    """The dual process's result and None, or None and why there is none (its error, no
    answer STOP_GRACE after a stop request -- ours or the user's --, or its death).  A process
    that has not answered within ``timeout`` gets the stop request (SIGINT)."""
    deadline = time.perf_counter() + max(timeout, 0.0)
    stopping = False
    while not child.poll(0.05):
        if not stopping and signals.pending() is not None:
            stopping = True
            deadline = min(deadline, time.perf_counter() + STOP_GRACE)
        if time.perf_counter() >= deadline:
            if stopping or not child.alive():
                return None, "no answer in time"
            stopping = True                  # late: ask it for its bound so far
            deadline = time.perf_counter() + STOP_GRACE
            child.stop(signal.SIGINT)
    if child.error is not None:
        return None, f"{child.error} (exit code {child.proc.exitcode})"
    if "error" in child.answer:
        return None, child.answer["error"]
    return child.answer, None


def _stopped(control) -> bool:
    return control.stop_reason is not None or (control.time_limit is not None and control.remaining() <= 0)


def _status(control, search, dual, best, ub) -> tuple[str, str]:
    """Optimal only when the bound proves it; else the limit that ended the run."""
    gap = relative_gap(best, ub)
    if gap <= control.tolerance:
        return OPTIMAL, "the score reaches the LP bound: optimal"
    note = f"best DAG found, within a proven relative gap of {gap:.3g} of the cache's optimum"
    if control.gap_limit is not None and gap <= control.gap_limit:
        return "gap_limit", note
    if search.stop == "interrupted" or (dual is not None and dual.status == "interrupted"):
        return "interrupted", note
    if control.time_limit is None and search.stop in ("max_restarts", "patience", "node_limit"):
        return "node_limit", f"{note}; {_search_limit(search)}"
    if control.time_limit is None and search.stats.get("default_rule"):
        return "time_limit", f"{note}; {_search_limit(search)}"
    return "time_limit", note


def _search_limit(search) -> str:
    """Which limit ended a search run without a time limit, and how to raise it (issue 56: a
    default limit is named, since the user asked for none)."""
    st = search.stats
    more = ("give a time limit (--time-limit S) or raise it with --option {} to search longer; the "
            "bound then had the search's share of that time")
    if st.get("default_rule"):
        if search.stop == "patience":
            return (f"the search stopped at lpbn's default limit of {st.get('patience', DEFAULT_PATIENCE)} "
                    "restarts in a row without improvement (no time, node or restart limit was given); "
                    + more.format("patience=P"))
        return (f"the search stopped at lpbn's default cap of {DEFAULT_SECONDS:g} s (no time, node or "
                "restart limit was given); give a time limit (--time-limit S) to search longer")
    if search.stop == "max_restarts":
        return f"the search stopped at its restart budget (max_restarts, {st.get('restarts')} restarts); " + \
            more.format("max_restarts=R")
    if search.stop == "patience":
        return (f"the search stopped after patience={st.get('patience')} restarts in a row without "
                "improvement; " + more.format("patience=P"))
    return "the search stopped at the node limit given (it counts the search's restarts)"


@dataclass(frozen=True)
class CertifiedOptions(SearchOptions):
    """The options of ``method="asobs"``/``"obs"``: the ordering search's (
    :class:`lpbn.ordering.options.SearchOptions`) and the bound's beside it (issue 55)."""

    search_share: float = opt(SEARCH_SHARE, "Share of the time the search gets when it runs before "
                                            "the bound (one core).", SHARE)
    bound: Any = opt("auto", (
        "'dual' (the cluster LP bound), 'highs' (the HiGHS ILP, whose root adds {0, 1/2}-cuts "
        "beside tailing cluster rounds), 'auto' (HiGHS from 101 to 1,500 variables and 250,000 "
        "candidates, else the dual), 'trivial', a number or a function of the cache giving a "
        "valid upper bound."), BOUND)
    dual_options: dict[str, Any] | None = opt(None, (
        "Options of the bound's method (see show_options('dual') or show_options('highs'))."),
        Rule(lambda v: isinstance(v, dict), "a dict of options of the bound's method"))
    parallel: bool | None = opt(None, "Search and dual side by side on two cores (None: when available).",
                                BOOL)


def solve_asobs(cache: ScoreCache, control: SolveControl, **options: Any) -> SolveResult:
    """``method="asobs"``: ASOBS (Scanagatta et al. 2015, §4) plus an LP bound (:func:`auto_bound`)."""
    return solve_certified(cache, control, "asobs", **options)


def solve_obs(cache: ScoreCache, control: SolveControl, **options: Any) -> SolveResult:
    """``method="obs"``: OBS (Teyssier & Koller 2005) plus an LP bound (:func:`auto_bound`)."""
    return solve_certified(cache, control, "obs", **options)


solve_asobs.options_class = solve_obs.options_class = CertifiedOptions


__all__ = ["solve_certified", "solve_asobs", "solve_obs", "auto_bound", "SEARCH_SHARE"]
