"""The front door: ``lpbn.solve(cache, method=...)``.

Like ``scipy.optimize.minimize``, every method returns the same :class:`SolveResult`.  A
method is a function ``fn(cache, control, **options) -> SolveResult`` registered under a
name (:mod:`lpbn.registry`, re-exported here); it reads its limits from the
:class:`SolveControl` and reports every improvement through it, which builds the trace and
drives callbacks and progress lines.  ``method="auto"`` runs the plan the portfolio's table
picks (:func:`lpbn.portfolio.choose_plan`).  The front door wires each control to the other
methods (``runner``: this function, ``helpers``: the registry), so a method that wants
another's help asks its control and no method imports this module (issue 55's layers).
"""

from __future__ import annotations

import math
import os
import threading
from typing import Any, Callable

import numpy as np

from . import bound as bound_safety
from . import normalise, signals
from .cache import ScoreCache
from .canonical import canonical_dag, dag_score as canonical_score
from .control import SolveControl
from .errors import InputError
from .options import check_options
from . import portfolio
from .portfolio import (AUTO_BFBNB_MAX_N, AUTO_BFBNB_MIN_DENSITY, AUTO_DP_MAX_N,  # noqa: F401  (re-exported)
                        AUTO_DUAL_MAX_DENSITY, AUTO_DUAL_MAX_N, AUTO_HIGHS_MAX_DENSITY, AUTO_HIGHS_MAX_M,
                        AUTO_LARGE_METHOD, AUTO_LIGHT_SECONDS, AUTO_SCALE_METHOD, Plan, auto_method, choose_plan,
                        light_first, merge, numba_free)
from .registry import (BUILTIN_METHODS, available_methods,  # noqa: F401  (re-exported)
                       helper, method_function, method_options, register_method, registered_methods, show_options)
from .result import ERROR, INFEASIBLE, INTERRUPTED, OPTIMAL, SolveResult
from .scope import bound_scope
from .tuning import WARMUP_MARGIN


def _compiled_in_time(cache: ScoreCache, method: str, control: SolveControl,
                      options: dict) -> SolveResult | None:
    """With a time limit and a method whose numba kernels are not compiled yet (a fresh
    install), compile them in a child process (:mod:`lpbn.compiled`) while the clock runs; if the
    limit or a signal comes first, the quick answer (status ``time_limit``/``interrupted``),
    else None and the method runs with its kernels loading from the cache (or, when the child
    failed, compiling them itself: a failure is never reported as a time limit)."""
    from . import compiled as warmup
    if numba_free(cache, method, options):
        return None                # numpy alone: nothing to compile
    if control.time_limit is None or warmup.is_warm(method):
        return None
    control.announce(f"compiling {method}'s kernels (once per install; `lpbn warmup` does it ahead)")
    try:
        if warmup.warm_up(method, timeout=max(0.0, control.remaining() - WARMUP_MARGIN), stop=signals.pending):
            return None
    except warmup.WarmupFailed:
        return None                # compile in this process (a failure then shows as itself)
    stopped = signals.pending() is not None
    return warmup.quick_result(
        cache, method, "interrupted" if stopped else "time_limit",
        f"{'stopped' if stopped else 'time limit reached'} while {method}'s kernels compile (first run on this "
        "install; they go on compiling in the background): a quick DAG and the trivial bound. "
        "Run `lpbn warmup` once to avoid this.")


def solve(cache: ScoreCache | str | os.PathLike, method: str = "auto", *,
          time_limit: float | None = None, gap_limit: float | None = None,
          node_limit: int | None = None, callback: Callable[[dict[str, Any]], Any] | None = None,
          progress: bool | None = None, constraints: Any = None, k_best: int | None = None,
          classes: bool = False, **options: Any) -> SolveResult:
    """Learn a maximum-score DAG from a local-score cache.

    Parameters
    ----------
    cache : ScoreCache or path
        The candidate parent sets and local scores (a path is read with
        :func:`lpbn.read_scores`).
    method : str
        ``"dp"`` (subset DP, Silander & Myllymäki 2006), ``"dual"`` (Jaakkola et al. 2010),
        ``"highs"`` (ILP with cluster cuts), ``"pulp-cbc"``, ``"bfbnb"`` (Malone et al. 2011),
        ``"obs"``/``"asobs"`` (ordering search with an LP bound, :mod:`lpbn.certified`),
        ``"race"`` (the dual here and BFBnB in a second process, the first proof wins,
        :mod:`lpbn.race`), ``"brute"`` (tests only), or ``"auto"``: a portfolio by size and density
        (DP, BFBnB, the race, the dual, the HiGHS ILP, ASOBS with an LP bound; see
        :func:`lpbn.portfolio.auto_method`).
    time_limit, gap_limit, node_limit
        Stop early with the best DAG and bound so far (status says which limit).
    callback
        Called with a dict (seconds, best, bound, gap, ...) at every improvement.
    progress
        Print a progress line to stderr at most once a second.
    constraints : Constraints, dict or path, optional
        Structural constraints (forbidden/required arcs and adjacencies, tiers, in-degree
        limits, roots, sinks; :mod:`lpbn.constraints`), honoured by every method: the cache is
        pruned to the parent sets they allow (then of subset-dominated ones), required
        adjacencies are solved by branching over their orientations.  ``stats["constraints"]``
        counts the candidates removed; status ``infeasible`` (reason in ``message``) when no
        DAG satisfies them.
    k_best : int, optional
        The ``k_best`` highest-scoring DAGs instead of one (:mod:`lpbn.kbest`): best first in
        ``result.solutions`` with ranks, ties with the K-th included, and posterior summaries
        in ``result.posterior``; ``status="optimal"`` when proven.  ``engine="bnb"|"ilp"|"auto"``
        picks the engine (``method`` is not used).  The cache must not be pruned for fewer
        networks (no subset-dominance pruning first: a dominated set can be in the second best).
    classes : bool
        With ``k_best``: the K best Markov equivalence classes (score-equivalent scores only).
    **options
        Passed to the method.

    Returns
    -------
    SolveResult
        SIGINT or SIGTERM (in the main thread) stop the method like a limit: the result has
        status ``"interrupted"`` (unless the run had already proved optimality), the best DAG
        and a valid bound so far, and ``stats["interrupted_by"]`` names the signal (see
        :mod:`lpbn.signals`).
    """
    if k_best is not None or classes:
        return _solve_kbest(cache, k_best, classes, constraints, time_limit, gap_limit, node_limit,
                            callback, progress, options)
    if constraints is not None:
        from .constraints import solve_constrained
        return solve_constrained(cache, method, constraints, solver=solve, time_limit=time_limit, gap_limit=gap_limit,
                                 node_limit=node_limit, callback=callback, progress=progress, **options)
    if not isinstance(cache, ScoreCache):
        from .formats import read_scores
        cache = read_scores(cache)
    if method == "auto":
        plan = choose_plan(cache)
        if not options and light_first(cache, plan):
            result = _light_then(cache, plan, time_limit=time_limit, gap_limit=gap_limit,
                                 node_limit=node_limit, callback=callback, progress=progress)
        else:       # options are for one method: a race then runs its ``alone`` method
            method = plan.method_for(options)
            result = solve(cache, method, time_limit=time_limit, gap_limit=gap_limit, node_limit=node_limit,
                           callback=callback, progress=progress, **plan.options_for(method, options))
        result.stats = dict(result.stats or {})
        result.stats["plan"] = plan.name
        return result
    fn = method_function(method)
    check_options(method, fn, options)
    control = SolveControl(time_limit=time_limit, gap_limit=gap_limit, node_limit=node_limit,
                           callback=callback, progress=progress)
    control.runner, control.helpers = solve, helper      # other methods, asked through the control
    control.method = method
    norm = normalise.plan(cache)
    work = cache if norm is None else norm.cache
    if norm is not None:
        control.report_map = norm.value_back
    with signals.stop_on_signals():
        control.announce(f"method {method}: {cache.n} variables, {cache.m} candidate parent sets"
                         + ("; SIGINT (Ctrl-C) or SIGTERM stops with the best so far"
                            if threading.current_thread() is threading.main_thread() else "")
                         + (f"; scores normalised (shift per variable, x 2^{norm.exponent})" if norm else ""))
        try:
            result = _compiled_in_time(work, method, control, options)
            if result is None:
                result = fn(work, control, **options)
        except (InputError, KeyboardInterrupt, MemoryError):
            raise                          # bad input, a stop, out of memory: as before
        except Exception as exc:
            if getattr(exc, "lpbn_from_callback", False):
                raise                      # the user's callback failed: theirs to see
            if signals.pending() is None:
                result = _failed(work, method, control, exc)
            else:
                # a method that failed while stopping: still a stop, not an internal error
                raise signals.Interrupted(signals.pending(), f"interrupted by "
                                          f"{signals.signal_name(signals.pending())}; the method failed "
                                          f"while stopping ({type(exc).__name__}: {exc})") from exc
        signum = signals.pending()
    return _wrap_up(cache, work, norm, control, method, result, signum)


def _wrap_up(cache: ScoreCache, work: ScoreCache, norm, control: SolveControl, method: str,
             result: SolveResult, signum) -> SolveResult:
    """The front door's last steps on a method's result: a trivial bound where the method had
    none, the normalised cache's values mapped back, the checks (:mod:`lpbn.bound`), the
    signal that stopped it, timings, trace and the bound's scope."""
    if result.status not in (OPTIMAL, INFEASIBLE) and not math.isfinite(result.upper_bound) \
            and result.dag is not None:
        # stopped before the method had a bound: each variable's best score sums to one
        result.upper_bound = math.fsum(work.best_unconstrained().tolist())
    if norm is not None:
        _map_back(result, norm)
    _finish_checks(cache, result, control, method)
    if signum is not None:
        result.stats["interrupted_by"] = signals.signal_name(signum)
        if result.status not in (OPTIMAL, INFEASIBLE, ERROR):
            result.status = INTERRUPTED
            result.message = result.message or f"interrupted by {signals.signal_name(signum)}"
    result.seconds = control.elapsed()
    if not result.trace:
        result.trace = list(control.trace)
        if norm is not None:
            result.trace = [(t, norm.value_back(b), norm.value_back(u)) for t, b, u in result.trace]
    result.method = result.method or method
    result.bound_scope = bound_scope(cache.meta)
    return result


def _failed(cache: ScoreCache, method: str, control: SolveControl, exc: Exception) -> SolveResult:
    """A method that raised (a solver failure, not bad input): status ``error`` with a quick
    DAG (:func:`lpbn.compiled.quick_dag`, numpy only) and the best bound the method reported,
    the exception named in the message: never a traceback for a valid cache."""
    from .result import DAG
    from .compiled import quick_dag
    choice, score = quick_dag(cache)
    dag = DAG(cache.names, [cache.parents(int(j)) for j in choice]) if math.isfinite(score) else None
    bound = min(control.bound, math.fsum(cache.best_unconstrained().tolist()))
    return SolveResult(dag, score if dag is not None else -math.inf, bound, ERROR, method,
                       stats={"exception": f"{type(exc).__name__}: {exc}"},
                       message=f"method {method!r} failed ({type(exc).__name__}: {exc}); a quick DAG and "
                               "the best bound it had reported are returned, nothing is claimed")


def _map_back(result: SolveResult, norm) -> None:
    """A result on a normalised copy (:mod:`lpbn.normalise`) in the original's units: the same
    graph scored on the original cache, the bound mapped back with its error term."""
    result.stats = dict(result.stats or {})
    result.stats["normalised"] = {"exponent": norm.exponent, "offset": norm.offset,
                                  "score": result.score, "upper_bound": result.upper_bound}
    if result.dag is not None:
        result.score = float(norm.original.dag_score(result.dag.parents))
    elif math.isfinite(result.score):
        result.score = norm.value_back(result.score)
    result.upper_bound = norm.bound_back(result.upper_bound)
    _certificate_back(result, norm)
    if result.trace:
        result.trace = [(t, norm.value_back(b), norm.value_back(u)) for t, b, u in result.trace]


def _certificate_back(result: SolveResult, norm) -> None:
    """A certificate recorded on the normalised copy, in the original's units: eq. 8 is linear
    in the scores and λ together and each variable's shift adds to its maximum, so λ scales by
    ``2^-exponent`` exactly and a threshold or bound maps like a score (verify recomputes every
    number from the original cache)."""
    extra = result.extra or {}
    scale = math.ldexp(1.0, -norm.exponent)
    if "certificate_tree" in extra:
        tree = dict(extra["certificate_tree"])
        tree["lambda"] = {nid: np.asarray(lam) * scale for nid, lam in tree["lambda"].items()}
        tree["fixing"] = [{**f, "lambda": np.asarray(f["lambda"]) * scale, "below": norm.value_back(f["below"])}
                          for f in tree.get("fixing") or []]
        if "bound" in tree:
            tree["bound"] = norm.bound_back(tree["bound"])
        extra["certificate_tree"] = tree
    if "certificate_lp" in extra:
        lp = dict(extra["certificate_lp"])
        lp["lambda"] = np.asarray(lp["lambda"]) * scale
        lp["bound"] = norm.bound_back(lp["bound"])
        extra["certificate_lp"] = lp


def _finish_checks(cache: ScoreCache, result: SolveResult, control: SolveControl, method: str) -> None:
    """The front door's last word on every answer: a fault the control detected or a bound
    crossing the score (:mod:`lpbn.bound`) is status ``error``; an answer with a DAG gets the
    canonical DAG of its local-score ties (:mod:`lpbn.canonical`)."""
    if control.fault is not None:
        result.stats = dict(result.stats or {})
        result.stats.setdefault("claimed_status", result.status)
        result.status = ERROR
        if control.fault not in result.message:
            result.message = control.fault + (f" (the method said: {result.message})" if result.message else "")
    # the original's own summation rounding is allowed beside the tolerance
    magnitude = math.fsum(np.maximum.reduceat(np.abs(cache.scores), cache.offsets[:-1]).tolist()) \
        if cache.m else 0.0
    bound_safety.guard(result, method, bound_safety.rounding_margin(magnitude, cache.n), control.tolerance)
    if result.dag is not None and result.dag.names == cache.names:
        canon = canonical_dag(cache, result.dag)
        if canon is not result.dag:        # a Markov class's member may differ in the last digits
            result.dag, result.score = canon, canonical_score(cache, canon.parents)


def _light_then(cache: ScoreCache, plan: Plan, *, time_limit: float | None, **limits) -> SolveResult:
    """``auto`` on a small sparse cache (:func:`lpbn.portfolio.light_first`): the numba-free
    HiGHS ILP for :data:`AUTO_LIGHT_SECONDS <lpbn.portfolio.AUTO_LIGHT_SECONDS>`, then, without
    a proof (or another reason to stop), ``plan``'s method with the time left; the two answers
    merged (:func:`lpbn.portfolio.merge`), with the first run in ``stats["auto_first"]``."""
    light = portfolio.AUTO_LIGHT_SECONDS
    budget = light if time_limit is None else min(light, time_limit)
    first = solve(cache, "highs", time_limit=budget, numba=False, **limits)
    first.stats["auto"] = "highs without numba"
    left = None if time_limit is None else time_limit - first.seconds
    if first.status != "time_limit" or (left is not None and left <= 0):
        return first
    result = solve(cache, plan.method, time_limit=left, **limits, **plan.options_for(plan.method, {}))
    result.stats["auto_first"] = {"method": "highs", "status": first.status,
                                  "seconds": round(first.seconds, 3), "score": first.score,
                                  "upper_bound": first.upper_bound}
    trace = list(first.trace) + [(t + first.seconds, max(best, first.score), min(bound, first.upper_bound))
                                 for t, best, bound in result.trace]
    result = merge([result, first])
    result.trace = trace
    result.seconds += first.seconds
    return result


def _solve_kbest(cache, k_best, classes, constraints, time_limit, gap_limit, node_limit, callback,
                 progress, options) -> SolveResult:
    """``solve(..., k_best=K)``: :func:`lpbn.kbest.api.solve_kbest` under the usual control."""
    if k_best is None:
        raise InputError("classes=True needs k_best (the number of classes to list)")
    if constraints is not None:
        raise InputError("k_best does not take structural constraints yet; apply them to the cache "
                         "first (lpbn score --constraints) and solve that")
    if gap_limit is not None or node_limit is not None:
        raise InputError("k_best takes time_limit only (no gap_limit or node_limit)")
    if not isinstance(cache, ScoreCache):
        from .formats import read_scores
        cache = read_scores(cache)
    from .kbest.api import solve_kbest
    control = SolveControl(time_limit=time_limit, callback=callback, progress=progress)
    control.runner, control.helpers = solve, helper
    with signals.stop_on_signals():
        control.announce(f"k-best: the {k_best} best {'classes' if classes else 'DAGs'} of {cache.n} "
                         f"variables, {cache.m} candidate parent sets")
        result = solve_kbest(cache, control, k_best, classes=classes, **options)
        signum = signals.pending()
    if signum is not None:
        result.stats["interrupted_by"] = signals.signal_name(signum)
        if result.status != OPTIMAL:
            result.status = INTERRUPTED
    result.seconds = control.elapsed()
    if not result.trace:
        result.trace = list(control.trace)
    return result


#: ``lpbn.solve.show_options(...)``: ``lpbn.solve`` in the package namespace is this function
solve.show_options = show_options
